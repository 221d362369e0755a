// main waits on e before side re-records it: the wait binds to the first
// record (after a), so the later write of y is not ordered before z = y * 3.
// expect: cross_stream_data_race<
// expect: race \(read-after-write\) on buffer 'y'
// expect: statement #3 `y = x \* 2` on stream 'side' writes it and statement #5 `z = y \* 3` on stream 'main' reads it
// expect: Fix: call `e\.wait\(\)` on 'main' between #4 and #5, so that it binds to #4 `e\.record\(\)` on 'side'
// expect: the e\.wait\(\) at #2 binds to the earlier record #1
// expect-nvcc: cross_stream_data_race<
// expect-nvcc: nothing orders them
// expect: or build with sd::program<sd::automatic>\(\.\.\.\) to insert the sync
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    a = x + 1;
    e.record();
  });
  e.wait();
  sd::with_stream(side, [&] {
    y = x * 2;
    e.record();
  });
  z = y * 3;
});
