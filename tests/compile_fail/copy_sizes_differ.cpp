// A copy between chunks of one domain split into different numbers of parts.
// expect: copy_source_and_destination_differ<
// expect: copies `x.chunk\(1, 4\)`, 1/4 of its domain, into `y.chunk\(0, 2\)`, 1/2 of the same domain
// expect-nvcc: copy_source_and_destination_differ<
// expect-nvcc: sd::copy\(dst, src\) between different element types or sizes
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  sd::copy(y.chunk(0, 2), x.chunk(1, 4));
});
