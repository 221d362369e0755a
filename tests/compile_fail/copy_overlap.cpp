// A copy whose source and destination are the same chunk.
// expect: copy_source_overlaps_destination<
// expect: copies `y.chunk\(1, 4\)` into `y.chunk\(1, 4\)`, and the two overlap
// expect-nvcc: copy_source_overlaps_destination<
// expect-nvcc: sd::copy\(dst, src\) whose source and destination overlap
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto y = p.inout<float>("y");
  sd::copy(y.chunk(1, 4), y.chunk(1, 4));
});
