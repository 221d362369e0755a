// An FP8 matmul of two __nv_fp8_e5m2 operands: cuBLASLt has no such kernel.
// needs: cuda-headers
// expect: fp8_matmul_types_unsupported<
// expect: multiplies 'a' \(__nv_fp8_e5m2\) by 'w' \(__nv_fp8_e5m2\); cuBLASLt multiplies __nv_fp8_e4m3
// expect-nvcc: fp8_matmul_types_unsupported<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto a = p.input<__nv_fp8_e5m2>("a", m, k);
  auto w = p.input<__nv_fp8_e5m2>("w", m, k);
  auto c = p.output<float>("c", m, m);
  c = sd::matmul(a, sd::transpose(w));
});
