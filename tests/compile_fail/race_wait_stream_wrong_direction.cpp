// side.wait_stream(main) makes side wait for main; the consumer on main
// needed the opposite: main.wait_stream(side).
// expect: cross_stream_data_race<
// expect: race \(read-after-write\) on buffer 'y'
// expect: statement #0 `y = x \+ 1` on stream 'side' writes it and statement #2 `z = y \* 2` on stream 'main' reads it
// expect: \(#1 `side\.wait_stream\(main\)` waits the other way\)
// expect: e\.g\. `main\.wait_stream\(side\)`
// expect-nvcc: cross_stream_data_race<
// expect-nvcc: nothing orders them
// expect: or build with sd::program<sd::automatic>\(\.\.\.\) to insert the sync
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto main = p.main_stream();
  auto side = p.stream("side");
  sd::with_stream(side, [&] { y = x + 1; });
  side.wait_stream(main);
  z = y * 2;
});
