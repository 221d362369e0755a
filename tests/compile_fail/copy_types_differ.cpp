// A copy between buffers of different element types.
// expect: copy_source_and_destination_differ<
// expect: `sd::copy\(d, h\)` on stream 'main' copies float elements of `h` into `d`, which holds double
// expect-nvcc: copy_source_and_destination_differ<
// expect-nvcc: sd::copy\(dst, src\) between different element types or sizes
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto h = p.input<float>("h");
  auto d = p.temp<double>("d");
  auto y = p.output<double>("y");
  sd::copy(d, h);
  y = d * 2;
});
