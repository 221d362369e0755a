// ! on an int32_t operand.
// expect: logical_operator_needs_bool_operands<
// expect: the expression `!k` in statement #0 on stream 'main' applies ! to an int32_t operand
// expect: `k == 0`
// expect-nvcc: logical_operator_needs_bool_operands<
#include <cstdint>
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto k = p.input<std::int32_t>("k");
  auto m = p.output<bool>("m");
  m = !k;
});
