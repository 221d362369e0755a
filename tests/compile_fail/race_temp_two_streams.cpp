// A temp written on two streams with nothing ordering the writes, then read
// on main: two races (right's write is not ordered before main's read either).
// expect: cross_stream_data_race<
// expect: 2 races; the first: race \(write-after-write\) on buffer 't'
// expect: statement #0 `t = x \+ 1` on stream 'left' writes it and statement #1 `t = x \* 2` on stream 'right' writes it
// expect: Fix: make 'right' wait for 'left' between #0 and #1
// expect-nvcc: cross_stream_data_race<
// expect-nvcc: nothing orders them
// expect: the other: 't' written by #1 on 'right', read by #2 on 'main'
// expect: or build with sd::program<sd::automatic>\(\.\.\.\) to insert the syncs
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto t = p.temp<float>("t");
  auto y = p.output<float>("y");
  auto left = p.stream("left");
  auto right = p.stream("right");
  sd::with_stream(left, [&] { t = x + 1; });
  sd::with_stream(right, [&] { t = x * 2; });
  y = t;
});
