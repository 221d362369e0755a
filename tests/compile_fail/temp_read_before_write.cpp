// `t += x` on a temp nothing wrote yet reads a value that does not exist (on
// the GPU a register temp has no memory to load from).
// expect: temp_read_before_any_write<
// expect: statement #0 `t = t \+ x` on stream 'main' reads the temp buffer 't' before any statement writes it
// expect: p\.inout<float>\("t"\)
// expect-nvcc: temp_read_before_any_write<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto t = p.temp<float>("t");
  t += x;
  y = t * 2;
});
