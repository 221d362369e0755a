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

namespace {

// A float param, a literal and an int32_t buffer with __half data: each is
// rounded to __half first (the operation's type), then the operation runs in
// float. 1.0004 rounds to 1 as a __half; 2049 + 2k is odd, above 2048, where
// __half holds only even integers.
constexpr auto mixed_half = sd::program([](sd::builder& p) {
  auto x = p.input<__half>("x");
  auto i = p.input<std::int32_t>("i");
  auto s = p.param<float>("s");
  auto by_param = p.output<__half>("by_param");
  auto by_literal = p.output<__half>("by_literal");
  auto plus_int = p.output<__half>("plus_int");
  by_param = x * s;
  by_literal = x * 1.0004;
  plus_int = x + i;
});

}  // namespace

TEST_CASE("a float param, a literal or an int32_t with __half data is rounded to __half first", "[half]") {
  constexpr std::size_t n = 2048;
  std::vector<__half> x(n), by_param(n), by_literal(n), plus_int(n);
  std::vector<std::int32_t> i(n);
  for (std::size_t k = 0; k < n; ++k) {
    x[k] = __float2half(static_cast<float>(k));
    i[k] = 2049 + 2 * static_cast<std::int32_t>(k);
  }
  backend_test::executor ex;
  ex.run(mixed_half, sd::bind("x", x), sd::bind("i", i), sd::bind("s", 1.0004f),
         sd::bind("by_param", by_param), sd::bind("by_literal", by_literal), sd::bind("plus_int", plus_int));
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const float xv = __half2float(x[k]);
    wrong += __half2float(by_param[k]) != h(xv * h(1.0004f));
    wrong += __half2float(by_literal[k]) != h(xv * h(1.0004f));
    wrong += __half2float(plus_int[k]) != h(xv + h(static_cast<float>(i[k])));
  }
  CHECK(wrong == 0);
}

namespace {
// Issue 13's ops on the 16-bit types, and the narrow integers with them.
constexpr auto half_ops = sd::program([](sd::builder& p) {
  auto h = p.input<__half>("h");
  auto b = p.input<__nv_bfloat16>("b");
  auto i8 = p.input<std::int8_t>("i8");
  auto fl = p.output<__half>("fl");
  auto ro = p.output<__nv_bfloat16>("ro");
  auto fm = p.output<__half>("fm");
  auto ge = p.output<__half>("ge");
  auto pw = p.output<__nv_bfloat16>("pw");
  auto mixed = p.output<__half>("mixed");
  fl = sd::floor(h) + sd::ceil(h);
  ro = sd::round(b);
  fm = sd::fmod(h, 0.75f);
  ge = sd::gelu(h);
  pw = sd::pow(b, 2);
  mixed = h + i8;  // int8_t with __half: __half, as in PyTorch
});
}  // namespace

TEST_CASE("floor, ceil, round, fmod exactly and gelu, pow within an ulp on __half and __nv_bfloat16",
          "[half]") {
  constexpr std::size_t n = 700;
  std::vector<__half> hs(n), fl(n), fm(n), ge(n), mixed(n);
  std::vector<__nv_bfloat16> bs(n), ro(n), pw(n);
  std::vector<std::int8_t> i8(n);
  for (std::size_t i = 0; i < n; ++i) {
    hs[i] = __float2half(0.25f * static_cast<float>(i) / 7 - 12);  // halves and quarters among them
    bs[i] = __float2bfloat16(0.5f * static_cast<float>(i % 61) - 15);
    i8[i] = static_cast<std::int8_t>(static_cast<int>(i % 256) - 128);
  }
  backend_test::executor ex;
  ex.run(half_ops, sd::bind("h", hs), sd::bind("b", bs), sd::bind("i8", i8), sd::bind("fl", fl),
         sd::bind("ro", ro), sd::bind("fm", fm), sd::bind("ge", ge), sd::bind("pw", pw),
         sd::bind("mixed", mixed));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float hv = __half2float(hs[i]), bv = __bfloat162float(bs[i]);
    wrong += __half2float(fl[i]) != h(std::floor(hv) + std::ceil(hv));
    wrong += __bfloat162float(ro[i]) != std::rint(bv);  // half to even: -14.5 -> -14
    wrong += __half2float(fm[i]) != h(std::fmod(hv, 0.75f));
    // gelu and pow compute in float and round to the 16-bit type: the device's float result may
    // differ by an ulp of float, which can move the rounded value by one ulp of its type
    const float want_ge = h(0.5f * hv * (1 + std::erf(hv * 0.70710678f)));
    wrong += !(std::fabs(__half2float(ge[i]) - want_ge) <=
               (backend_test::on_gpu ? 1e-3f * (1 + std::fabs(want_ge)) : 0));
    const float want_pw = bf(bv * bv);
    wrong += !(std::fabs(__bfloat162float(pw[i]) - want_pw) <=
               (backend_test::on_gpu ? 8e-3f * std::fabs(want_pw) : 0));
    wrong += __half2float(mixed[i]) != h(hv + h(static_cast<float>(i8[i])));
  }
  CHECK(wrong == 0);
}
