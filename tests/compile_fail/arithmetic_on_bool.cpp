// + on two bool buffers.
// expect: arithmetic_on_bool_operands<
// expect: the expression `a \+ b` in statement #0 on stream 'main' applies \+ to bool operands
// expect: `sd::cast<int32_t>\(a\)`
// expect-nvcc: arithmetic_on_bool_operands<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto a = p.input<bool>("a");
  auto b = p.input<bool>("b");
  auto c = p.output<bool>("c");
  c = a + b;
});
