// << with a bool operand: shifts take integers only.
// expect: bitwise_operator_needs_integer_operands<
// expect: the expression `flags << 1` in statement #0 on stream 'main' needs integer operands for shift '<<', and 'flags' is bool
// expect: `sd::cast<int32_t>\(flags\)`
// expect-nvcc: bitwise_operator_needs_integer_operands<
#include <cstdint>
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto flags = p.input<bool>("flags");
  auto m = p.output<std::int32_t>("m");
  m = flags << 1;
});
