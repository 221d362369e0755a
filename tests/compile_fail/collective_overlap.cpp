// An all-reduce of g into its own first half: the target overlaps the source without being it.
// expect: collective_source_overlaps_target<
// expect: writes `g.chunk\(0, 2\)`, which overlaps its source `g` without being it
// expect-nvcc: collective_source_overlaps_target<
// expect-nvcc: a collective whose target overlaps its source without being it
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto g = p.inout<float>("g");
  g.chunk(0, 2) = sd::all_reduce(g, sd::reduce_op::sum);
});
