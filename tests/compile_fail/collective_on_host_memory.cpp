// A collective over a buffer in pinned host memory: NCCL reads and writes GPU memory.
// expect: collective_on_host_memory<
// expect: `sd::all_reduce\(h, sd::reduce_op::sum\)` on stream 'main' reads the inout buffer 'h', which is in pinned host memory
// expect-nvcc: collective_on_host_memory<
// expect-nvcc: a collective reads or writes host memory
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto h = p.inout<float, sd::pinned>("h");
  sd::all_reduce(h, sd::reduce_op::sum);
});
