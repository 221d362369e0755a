// Nested scopes: the inner statement runs on `inner` (the innermost scope
// wins) and reads t, which the outer scope writes on `outer`.
// expect: cross_stream_data_race<
// expect: race \(read-after-write\) on buffer 't'
// expect: statement #0 `t = x \+ 1` on stream 'outer' writes it and statement #1 `z = t \* 2` on stream 'inner' reads it
// expect: Fix: make 'inner' wait for 'outer' between #0 and #1
// expect-nvcc: cross_stream_data_race<
// expect-nvcc: nothing orders them
// expect: or build with sd::program<sd::automatic>\(\.\.\.\) to insert the sync
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto t = p.output<float>("t");
  auto z = p.output<float>("z");
  auto outer = p.stream("outer");
  auto inner = p.stream("inner");
  sd::with_stream(outer, [&] {
    t = x + 1;
    sd::with_stream(inner, [&] { z = t * 2; });
  });
});
