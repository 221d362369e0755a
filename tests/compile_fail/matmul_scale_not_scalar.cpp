// An FP8 matmul scaled by a buffer over a domain: scales are 0-d float buffers.
// needs: cuda-headers
// expect: matmul_scale_needs_a_0d_float_buffer<
// expect: scales an operand by 's' \(float, over domain 'm'\)
// expect: declare it with sd::scalar
// expect-nvcc: matmul_scale_needs_a_0d_float_buffer<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto a = p.input<__nv_fp8_e4m3>("a", m, k);
  auto w = p.input<__nv_fp8_e4m3>("w", m, k);
  auto s = p.input<float>("s", m);
  auto c = p.output<float>("c", m, m);
  c = sd::matmul(a, sd::transpose(w), sd::scales(s, s));
});
