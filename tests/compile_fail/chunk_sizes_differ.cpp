// Chunks of different sizes of one domain in one expression.
// expect: elementwise_chunk_sizes_differ<
// expect: combines `x.chunk\(0, 2\)`, 1/2 of domain 'n', with `x.chunk\(1, 4\)`, 1/4 of it
// expect-nvcc: elementwise_chunk_sizes_differ<
// expect-nvcc: an elementwise statement combines chunks of different sizes of one domain
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y.chunk(0, 2) = x.chunk(0, 2) + x.chunk(1, 4);
});
