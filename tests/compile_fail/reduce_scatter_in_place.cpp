// sd::reduce_scatter written in place: its result is 1/ranks of its source.
// expect: collective_needs_a_target_buffer<
// expect: `sd::reduce_scatter\(g, sd::reduce_op::sum\)` on stream 'main' runs sd::reduce_scatter in place, but its result has 1/ranks of its source's elements
// expect-nvcc: collective_needs_a_target_buffer<
// expect-nvcc: sd::reduce_scatter or sd::all_gather written in place
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto g = p.inout<float>("g");
  sd::reduce_scatter(g, sd::reduce_op::sum);
});
