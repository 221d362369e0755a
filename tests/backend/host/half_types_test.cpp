// __half and __nv_bfloat16 compute in float and round each node's result to
// their type. g++ builds (STREAMDSL_WITH_CUDA_HEADERS and CUDA's include
// directory, no nvcc) run this on the host executor, nvcc builds on the GPU.
#include <catch2/catch.hpp>
#include <cmath>
#include <streamdsl/ir/dtype.hpp>
#ifdef STREAMDSL_HAS_HALF  // streamdsl only declares the 16-bit float types
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#include "../executor_under_test.hpp"
#include "host_test_support.hpp"

#ifndef STREAMDSL_HAS_HALF
#error "this test is built with STREAMDSL_WITH_CUDA_HEADERS and CUDA's include directory"
#endif

namespace {

constexpr auto halves = sd::program([](sd::builder& p) {
  auto h = p.input<__half>("h");
  auto b = p.input<__nv_bfloat16>("b");
  auto scale = p.param<__half>("scale");
  auto h2 = p.output<__half>("h2");
  auto b2 = p.output<__nv_bfloat16>("b2");
  auto f = p.output<float>("f");
  h2 = h * scale + 1;
  b2 = sd::relu(b - 1);
  f = h + sd::cast<float>(b) + sd::exp(h);
});

float h(float v) { return __half2float(__float2half(v)); }           // round to __half
float bf(float v) { return __bfloat162float(__float2bfloat16(v)); }  // round to __nv_bfloat16

}  // namespace

TEST_CASE("__half and __nv_bfloat16 compute in float and round per node", "[half]") {
  constexpr std::size_t n = 700;
  std::vector<__half> hs(n), h2(n);
  std::vector<__nv_bfloat16> bs(n), b2(n);
  std::vector<float> f(n);
  for (std::size_t i = 0; i < n; ++i) {
    hs[i] = __float2half(0.01f * static_cast<float>(i) - 2);
    bs[i] = __float2bfloat16(0.03f * static_cast<float>(i) - 5);
  }
  backend_test::executor ex;
  ex.run(halves, sd::bind("h", hs), sd::bind("b", bs), sd::bind("scale", __float2half(1.5f)),
         sd::bind("h2", h2), sd::bind("b2", b2), sd::bind("f", f));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float hv = __half2float(hs[i]), bv = __bfloat162float(bs[i]);
    wrong += __half2float(h2[i]) != h(h(hv * 1.5f) + 1);
    wrong += __bfloat162float(b2[i]) != bf(std::max(bf(bv - 1), 0.0f));
    // exp may differ by an ulp of float between host and device, which can
    // move h(exp) by one ulp of __half (2^-10 relative): allow that much there.
    const float want_f = (hv + bv) + h(std::exp(hv));
    const float slack = backend_test::on_gpu ? 1e-3f * (1 + std::fabs(want_f)) : 0.0f;
    wrong += !(std::fabs(f[i] - want_f) <= slack);
  }
  CHECK(wrong == 0);
}
