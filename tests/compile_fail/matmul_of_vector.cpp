// sd::matmul of a rank-1 buffer: matmul multiplies rank-2 buffers.
// expect: matmul_needs_rank2_buffers<
// expect: statement #0 `c = sd::matmul\(a, x\)` on stream 'main' multiplies 'x', a buffer over domain 'm' \(rank 1\)
// expect: p.input<float>\("x", rows, cols\)
// expect-nvcc: matmul_needs_rank2_buffers<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto a = p.input<float>("a", m, m);
  auto x = p.input<float>("x", m);
  auto c = p.output<float>("c", m, m);
  c = sd::matmul(a, x);
});
