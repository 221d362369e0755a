// An all-reduce of float elements into a double buffer: a collective converts nothing.
// expect: collective_source_and_target_differ<
// expect: `total = sd::all_reduce\(g, sd::reduce_op::sum\)` on stream 'main' reads float elements of `g` into `total`, which holds double
// expect-nvcc: collective_source_and_target_differ<
// expect-nvcc: a collective between buffers of different element types or sizes
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto g = p.input<float>("g");
  auto total = p.output<double>("total");
  total = sd::all_reduce(g, sd::reduce_op::sum);
});
