// An FP8 matmul whose second operand is not read transposed: cuBLASLt's FP8
// kernels take only its TN layout, `sd::matmul(a, sd::transpose(w))`.
// needs: cuda-headers
// expect: fp8_matmul_needs_b_read_transposed<
// expect: multiplies FP8 matrices as `sd::matmul\(a, w\)`
// expect: store 'w' as \(n, k\)
// expect-nvcc: fp8_matmul_needs_b_read_transposed<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto a = p.input<__nv_fp8_e4m3>("a", m, k);
  auto w = p.input<__nv_fp8_e4m3>("w", k, m);
  auto c = p.output<__nv_bfloat16>("c", m, m);
  c = sd::matmul(a, w);
});
