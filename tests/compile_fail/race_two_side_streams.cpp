// Two side streams: `consumer` reads what `producer` writes, and nothing
// orders them (both only wait for main at entry).
// expect: cross_stream_data_race<
// expect: race \(read-after-write\) on buffer 'y'
// expect: statement #0 `y = x \+ 1` on stream 'producer' writes it and statement #1 `z = y \* 2` on stream 'consumer' reads it
// expect: Fix: make 'consumer' wait for 'producer' between #0 and #1
// expect-nvcc: cross_stream_data_race<
// expect-nvcc: nothing orders them
// expect: or build with sd::program<sd::automatic>\(\.\.\.\) to insert the sync
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto producer = p.stream("producer");
  auto consumer = p.stream("consumer");
  sd::with_stream(producer, [&] { y = x + 1; });
  sd::with_stream(consumer, [&] { z = y * 2; });
});
