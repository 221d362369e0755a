// % with a float operand: sd::fmod is the remainder of floats.
// expect: remainder_needs_integer_operands<
// expect: the expression `x % 2` in statement #0 on stream 'main' needs integer operands for '%', and 'x' is float
// expect: `sd::fmod\(x, 2\)`
// expect-nvcc: remainder_needs_integer_operands<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = x % 2;
});
