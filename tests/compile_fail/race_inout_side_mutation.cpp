// An inout updated in place on a side stream and read on main without sync.
// expect: cross_stream_data_race<
// expect: race \(read-after-write\) on buffer 'state'
// expect: statement #0 `state = state \+ x` on stream 'side' writes it and statement #1 `out = state \* 2` on stream 'main' reads it
// expect: Fix: make 'main' wait for 'side' between #0 and #1
// expect-nvcc: cross_stream_data_race<
// expect-nvcc: nothing orders them
// expect: or build with sd::program<sd::automatic>\(\.\.\.\) to insert the sync
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto state = p.inout<float>("state");
  auto out = p.output<float>("out");
  auto side = p.stream("side");
  sd::with_stream(side, [&] { state += x; });
  out = state * 2;
});
