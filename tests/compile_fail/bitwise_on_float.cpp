// & with a float operand.
// expect: bitwise_operator_needs_integer_operands<
// expect: the expression `k & x` in statement #0 on stream 'main' needs integer or bool operands for bitwise '&', and 'x' is float
// expect: `sd::cast<int32_t>\(x\)`
// expect-nvcc: bitwise_operator_needs_integer_operands<
#include <cstdint>
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto k = p.input<std::int32_t>("k");
  auto x = p.input<float>("x");
  auto m = p.output<std::int32_t>("m");
  m = sd::cast<std::int32_t>(k & x);
});
