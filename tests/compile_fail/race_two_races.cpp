// Two races, each needing its own sync (main reads what s1 and s2 write):
// one message reports both, the first in full and the other briefly, so
// that both can be fixed in one go.
// expect: cross_stream_data_race<
// expect: 2 races; the first: race \(read-after-write\) on buffer 'a': statement #0 `a = x \+ 1` on stream 's1' writes it and statement #2 `c = a \+ b` on stream 'main' reads it
// expect: Fix: make 'main' wait for 's1' between #0 and #2
// expect: the other: 'b' written by #1 on 's2', read by #2 on 'main'
// expect: or build with sd::program<sd::automatic>\(\.\.\.\) to insert the syncs
// expect-nvcc: cross_stream_data_race<
// expect-nvcc: nothing orders them
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto b = p.output<float>("b");
  auto c = p.output<float>("c");
  auto s1 = p.stream("s1");
  auto s2 = p.stream("s2");
  sd::with_stream(s1, [&] { a = x + 1; });
  sd::with_stream(s2, [&] { b = x * 2; });
  c = a + b;
});
