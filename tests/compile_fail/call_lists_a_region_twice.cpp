// p.call whose sd::writes lists a buffer and a chunk of it: the callable
// would get two overlapping regions to write.
// expect: call_lists_a_region_twice<
// expect: statement #0 `p.call\("fill", sd::writes\(y, y.chunk\(1, 4\)\)\)` on stream 'main' lists `y.chunk\(1, 4\)` in sd::writes
// expect: list each region once
// expect-nvcc: call_lists_a_region_twice<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto y = p.output<float>("y");
  p.call("fill", sd::writes(y, y.chunk(1, 4)));
});
