// side and main both write y with nothing ordering them: the final value
// depends on timing.
// expect: cross_stream_data_race<
// expect: race \(write-after-write\) on buffer 'y'
// expect: statement #0 `y = x \+ 1` on stream 'side' writes it and statement #1 `y = x \* 2` on stream 'main' writes it
// expect: Fix: make 'main' wait for 'side' between #0 and #1
// expect-nvcc: cross_stream_data_race<
// expect-nvcc: nothing orders them
// expect: or build with sd::program<sd::automatic>\(\.\.\.\) to insert the sync
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto side = p.stream("side");
  sd::with_stream(side, [&] { y = x + 1; });
  y = x * 2;
});
