// && on float operands.
// expect: logical_operator_needs_bool_operands<
// expect: the expression `x && w` in statement #0 on stream 'main' applies && to a float operand
// expect: `\(x != 0\)`
// expect-nvcc: logical_operator_needs_bool_operands<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto w = p.input<float>("w");
  auto m = p.output<bool>("m");
  m = x && w;
});
