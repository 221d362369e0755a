// A host step (p.host_call) writes a temp: temps live in the executor's
// device workspace, which a host function must not touch; write a pinned
// buffer and copy it to the device after the host step.
// expect: host_call_lists_device_memory<
// expect: statement #0 `p.host_call\("fill", sd::writes\(t\)\)` on stream 'main' writes the temp buffer 't', which is in device memory
// expect: write a pinned buffer h \(e.g. p.output<float, sd::pinned>\("h"\)\) in the host step and copy it to 't' after it with `sd::copy\(t, h\)`
// expect-nvcc: host_call_lists_device_memory<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto y = p.output<float>("y");
  auto t = p.temp<float>("t");
  p.host_call("fill", sd::writes(t));
  y = t * 2;
});
