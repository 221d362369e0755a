// A chunk index outside 0 .. k - 1.
// expect: invalid_chunk<
// expect: takes `x.chunk\(4, 4\)`, but a chunk is one of k >= 1 equal parts, numbered 0 to k - 1
// expect-nvcc: invalid_chunk<
// expect-nvcc: x.chunk\(i, k\) needs 0 <= i < k and a buffer over a domain
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  for (int i = 1; i <= 4; ++i) y.chunk(i - 1, 4) = x.chunk(i, 4) * 2;  // off by one
});
