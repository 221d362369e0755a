// sd::output_scale for a product that is not FP8: cuBLASLt's D scale (and
// amax) apply to an FP8 product only.
// needs: cuda-headers
// expect: matmul_output_scale_needs_an_fp8_product<
// expect: passes sd::output_scale\(sc\) for a product 'c' of type __nv_bfloat16
// expect: declare 'c' as one, or drop sd::output_scale
// expect-nvcc: matmul_output_scale_needs_an_fp8_product<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto a = p.input<__nv_fp8_e4m3>("a", m, k);
  auto w = p.input<__nv_fp8_e4m3>("w", m, k);
  auto sa = p.input<float>("sa", sd::scalar);
  auto sc = p.input<float>("sc", sd::scalar);
  auto c = p.output<__nv_bfloat16>("c", m, m);
  c = sd::matmul(a, sd::transpose(w), sd::scales(sa, sa, sd::output_scale(sc)));
});
