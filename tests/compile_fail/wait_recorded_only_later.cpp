// The wait comes before the only record in program order: a wait binds to
// the latest *preceding* record, so there is nothing to wait for.
// expect: wait_on_event_before_any_record<
// expect: statement #0 `done\.wait\(\)` on stream 'main' waits on event 'done' with no done\.record\(\) before it in program order
// expect: binds to the latest record that precedes it
// expect-nvcc: wait_on_event_before_any_record<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto done = p.event("done");
  done.wait();
  z = y * 2;
  sd::with_stream(side, [&] {
    y = x + 1;
    done.record();
  });
});
