// The seed program without `e.wait()`: main reads y while side may still be
// writing it.
// expect: cross_stream_data_race<
// expect: race \(read-after-write\) on buffer 'y'
// expect: statement #0 `y = x \+ 1` on stream 'side' writes it and statement #2 `z = y \* 2` on stream 'main' reads it
// expect: Fix: call `e\.wait\(\)` on 'main' between #1 and #2, so that it binds to #1 `e\.record\(\)` on 'side'
// expect-nvcc: cross_stream_data_race<
// expect-nvcc: nothing orders them
// expect: or build with sd::program<sd::automatic>\(\.\.\.\) to insert the sync
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;
    e.record();
  });
  z = y * 2;
});
