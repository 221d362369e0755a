// An FP8 product in __nv_fp8_e5m2 of two __nv_fp8_e4m3 operands: cuBLASLt
// stores an e5m2 product only when an operand is e5m2.
// needs: cuda-headers
// expect: fp8_matmul_e5m2_product_needs_an_e5m2_operand<
// expect: stores the product of 'a' \(__nv_fp8_e4m3\) and 'w' \(__nv_fp8_e4m3\) in 'c' \(__nv_fp8_e5m2\)
// expect: declare 'c' as __nv_fp8_e4m3
// expect-nvcc: fp8_matmul_e5m2_product_needs_an_e5m2_operand<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto a = p.input<__nv_fp8_e4m3>("a", m, k);
  auto w = p.input<__nv_fp8_e4m3>("w", m, k);
  auto sc = p.input<float>("sc", sd::scalar);
  auto c = p.output<__nv_fp8_e5m2>("c", m, m);
  c = sd::matmul(a, sd::transpose(w), sd::scales(sc, sc, sd::output_scale(sc)));
});
