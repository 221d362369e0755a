// Unary minus on a bool buffer.
// expect: arithmetic_on_bool_operands<
// expect: the expression `-a` in statement #0 on stream 'main' negates a bool
// expect: `!a` for logical not
// expect-nvcc: arithmetic_on_bool_operands<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto a = p.input<bool>("a");
  auto c = p.output<bool>("c");
  c = -a;
});
