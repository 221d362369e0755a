// Chunks of a rank-2 buffer are refused.
// expect: invalid_chunk<
// expect: takes `a.chunk\(0, 2\)`, but 'a' is a rank-2 buffer
// expect-nvcc: invalid_chunk<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto a = p.input<float>("a", rows, cols);
  auto y = p.output<float>("y", rows, cols);
  y = a.chunk(0, 2);
});
