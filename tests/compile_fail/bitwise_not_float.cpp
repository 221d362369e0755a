// ~ of a double.
// expect: bitwise_operator_needs_integer_operands<
// expect: the expression `~d` in statement #0 on stream 'main' needs integer or bool operands for bitwise '~', and 'd' is double
// expect-nvcc: bitwise_operator_needs_integer_operands<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto d = p.input<double>("d");
  auto y = p.output<double>("y");
  y = ~d;
});
