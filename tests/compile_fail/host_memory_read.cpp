// An elementwise statement reads a buffer declared in pinned host memory:
// kernels run on the device, so the buffer must be copied first.
// expect: host_memory_in_elementwise_statement<
// expect: statement #1 `y = x \+ h_in \* 2` on stream 'main' reads the input buffer 'h_in', which is in pinned host memory
// expect: copy it to a device buffer first with `sd::copy\(d, h_in\)`
// expect-nvcc: host_memory_in_elementwise_statement<
// expect-nvcc: reads or writes a buffer in host memory; copy it to a device buffer first
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto h_in = p.input<float, sd::pinned>("h_in");
  auto y = p.output<float>("y");
  y = x * 2;
  y = x + h_in * 2;
});
