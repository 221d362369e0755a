// p.call listing an input in sd::writes: inputs are read-only, for calls too.
// expect: write_to_input_buffer<
// expect: statement #0 `p.call\("scale", sd::reads\(x\), sd::writes\(x\)\)` on stream 'main' writes the input buffer 'x'
// expect-nvcc: write_to_input_buffer<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  p.call("scale", sd::reads(x), sd::writes(x));
});
