// A statement assigns to an input buffer.
// expect: write_to_input_buffer<
// expect: statement #1 `x = y \* 2` on stream 'main' writes the input buffer 'x'
// expect: p\.inout<float>\("x"\)
// expect-nvcc: write_to_input_buffer<
// expect-nvcc: inputs are read-only
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = x + 1;
  x = y * 2;
});
