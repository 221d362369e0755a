// An event that is waited on but never recorded.
// expect: wait_on_event_before_any_record<
// expect: statement #0 `ready\.wait\(\)` on stream 'main' waits on event 'ready' with no ready\.record\(\) before it
// expect: call ready\.record\(\) on the producing stream
// expect-nvcc: wait_on_event_before_any_record<
// expect-nvcc: no record of it earlier in the program
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto ready = p.event("ready");
  ready.wait();
  y = x + 1;
});
