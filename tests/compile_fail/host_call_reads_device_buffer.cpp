// A host step (p.host_call) lists a device buffer: its callable runs on the
// CPU, which must not touch device memory; copy the data to a pinned buffer.
// expect: host_call_lists_device_memory<
// expect: statement #1 `p.host_call\("log", sd::reads\(loss\)\)` on stream 'main' reads the output buffer 'loss', which is in device memory
// expect: copy it to a pinned buffer first with `sd::copy\(h, loss\)`
// expect-nvcc: host_call_lists_device_memory<
// expect-nvcc: lists a device buffer or a temp; a host step runs on the CPU
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto loss = p.output<float>("loss");
  loss = x * x;
  p.host_call("log", sd::reads(loss));
});
