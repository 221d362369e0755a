// side reads the inout `acc` while main overwrites it, unordered.
// expect: cross_stream_data_race<
// expect: race \(write-after-read\) on buffer 'acc'
// expect: statement #0 `copy = acc \* 1` on stream 'side' reads it and statement #1 `acc = x \* 2` on stream 'main' writes it
// expect: Fix: make 'main' wait for 'side' between #0 and #1, e\.g\. `main\.wait_stream\(side\)`
// expect-nvcc: cross_stream_data_race<
// expect-nvcc: nothing orders them
// expect: or build with sd::program<sd::automatic>\(\.\.\.\) to insert the sync
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto acc = p.inout<float>("acc");
  auto copy = p.output<float>("copy");
  auto side = p.stream("side");
  sd::with_stream(side, [&] { copy = acc * 1; });
  acc = x * 2;
});
