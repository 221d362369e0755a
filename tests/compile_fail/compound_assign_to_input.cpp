// `x += ...` on an input buffer is a write to it.
// expect: write_to_input_buffer<
// expect: statement #0 `x = x \+ 1` on stream 'main' writes the input buffer 'x'
// expect: p\.inout<float>\("x"\)
// expect-nvcc: write_to_input_buffer<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  x += 1;
  y = x;
});
