// FP8 on the GPU (sd::cuda_executor) against the host executor:
// - sd::cast to and from __nv_fp8_e4m3 / __nv_fp8_e5m2 in fused kernels
//   (PTX cvt.rn.satfinite) agrees bit for bit with the host's conversion
//   (detail/fp8_bits.hpp, itself checked against CUDA's __nv_cvt_float_to_fp8);
// - FP8 matmuls through cuBLASLt (e4m3 x e4m3 into __nv_bfloat16, e4m3 x e5m2
//   into float, e5m2 x e4m3 into __half) with per-tensor device scales;
// - a quantized linear layer whose activation scale is computed on the device
//   (amax / 448) and read by the matmul step with no host round trip;
// - cuBLASLt's FP8 requirements (k a multiple of 16, 16-byte rows and
//   pointers) are sd::binding_errors before launch;
// - FP8 products (sd::output_scale, sd::output_amax: cuBLASLt's D scale and
//   amax) against the host executor (bound below, check_linear_out).
//
// The bound for matmuls: both results are compared with the exact product of
// the FP8 values (computed in double, times sa * sb). The host executor adds
// in float in k order: |host - ref| <= (k + 2) 2^-24 S + u_c |ref|, S = sa sb
// sum_p |a_ip w_jp| and u_c c's unit roundoff (bf16 2^-8, half 2^-11, float
// 2^-24). Hopper's FP8 tensor cores add the products of one MMA with fewer
// bits than float (about 14 significant bits, DeepSeek-V3 report, section
// 3.3.2); cuBLASLt without CUBLASLT_MATMUL_DESC_FAST_ACCUM promotes the
// partial sums to float between MMAs. A first bound of 2^-12 S was missed on
// the H200 (session 12: up to 2.17 x 2^-12 S, at m 33, n 32, k 160), so the
// GPU bound is |gpu - ref| <= 2^-10 S + u_c |ref| (plus the float bound),
// fp8_mma_bound below. A wrong layout, transpose or scale misses it by orders
// of magnitude.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/matmul.hpp>
#include <streamdsl/backend/cuda/reductions.cuh>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/detail/fp8_bits.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

#include "../fp8_test_support.hpp"
#include "device_buffer.hpp"

using gpu_test::device_buffer;

// What Hopper's FP8 MMAs may add to a product's error, relative to S (above).
constexpr double fp8_mma_bound = 0x1p-10;

namespace {

namespace d = streamdsl::detail;
using namespace fp8_test;  // tests/backend/fp8_test_support.hpp

template <class C>
constexpr double unit_roundoff() {
  if constexpr (std::is_same_v<C, __half>)
    return 0x1p-11;
  else if constexpr (std::is_same_v<C, __nv_bfloat16>)
    return 0x1p-8;
  else
    return 0x1p-24;
}

constexpr auto quantize = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto s = p.input<float>("s", sd::scalar);
  auto q4 = p.output<e4m3>("q4");
  auto q5 = p.output<e5m2>("q5");
  auto back = p.output<float>("back");
  auto hb = p.output<__nv_bfloat16>("hb");
  auto sel = p.output<e4m3>("sel");
  q4 = sd::cast<e4m3>(x * s);
  q5 = sd::cast<e5m2>(x);
  back = sd::cast<float>(q4);
  hb = sd::cast<__nv_bfloat16>(q5);
  sel = sd::where(x > 0, q4, 0);  // selecting FP8 values is no arithmetic: allowed
});

}  // namespace

TEST_CASE("sd::cast to and from FP8 on the GPU matches the host bit for bit", "[cuda][fp8]") {
  // Every tie of e4m3 and e5m2 and the floats beside it, both signs, and the specials.
  std::vector<float> x;
  for (const auto f : {d::fp8_e4m3_format, d::fp8_e5m2_format})
    for (unsigned lo = 0; lo < f.max_finite; ++lo) {
      const float a = d::fp8_bits_to_float(static_cast<std::uint8_t>(lo), f);
      const float b = d::fp8_bits_to_float(static_cast<std::uint8_t>(lo + 1), f);
      const float mid = (a + b) / 2;
      for (float v : {a, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) {
        x.push_back(v);
        x.push_back(-v);
      }
    }
  for (float v : {448.0f, 464.0f, 465.0f, 61440.0f, 1e30f, INFINITY, -INFINITY, NAN, -0.0f, 1e-40f})
    x.push_back(v);
  const std::size_t n = x.size();
  const float s = 1.0f;
  std::vector<e4m3> q4(n);
  std::vector<e5m2> q5(n);
  std::vector<float> back(n);
  std::vector<__nv_bfloat16> hb(n);
  std::vector<e4m3> sel(n);
  sd::host_executor hx;
  hx.run(quantize, sd::bind("x", x), sd::bind("s", &s, 1), sd::bind("q4", q4), sd::bind("q5", q5),
         sd::bind("back", back), sd::bind("hb", hb), sd::bind("sel", sel));

  device_buffer<float> dx(x), ds(std::vector<float>{s}), dback(n);
  device_buffer<e4m3> dq4(n), dsel(n);
  device_buffer<e5m2> dq5(n);
  device_buffer<__nv_bfloat16> dhb(n);
  sd::cuda_executor ex;
  ex.run(quantize, sd::bind("x", dx.cget(), n), sd::bind("s", ds.cget(), 1), sd::bind("q4", dq4.get(), n),
         sd::bind("q5", dq5.get(), n), sd::bind("back", dback.get(), n), sd::bind("hb", dhb.get(), n),
         sd::bind("sel", dsel.get(), n));
  const auto g4 = dq4.download();
  const auto g5 = dq5.download();
  const auto gback = dback.download();
  const auto ghb = dhb.download();
  const auto gsel = dsel.download();
  int wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    // Bit for bit; a NaN may differ in sign or payload (both are NaN).
    const auto same = [](auto g, auto h) {
      return bits(g) == bits(h) || (std::isnan(value(g)) && std::isnan(value(h)));
    };
    wrong += !same(g4[i], q4[i]);
    wrong += !same(g5[i], q5[i]);
    wrong += std::bit_cast<std::uint32_t>(gback[i]) != std::bit_cast<std::uint32_t>(back[i]) &&
             !(std::isnan(gback[i]) && std::isnan(back[i]));
    const float a = __bfloat162float(ghb[i]), b = __bfloat162float(hb[i]);
    wrong += a != b && !(std::isnan(a) && std::isnan(b));
    wrong += !same(gsel[i], sel[i]);
  }
  CHECK(wrong == 0);
}

namespace {

// The random FP8 operands' largest magnitude.
constexpr float operand_max = 64;

template <class A, class B, class C>
void check_linear(std::size_t M, std::size_t N, std::size_t K) {
  INFO("m " << M << ", n " << N << ", k " << K);
  std::mt19937 rng(static_cast<unsigned>(M * 31 + N * 7 + K));
  const auto a = random_fp8<A>(M * K, rng, operand_max);
  const auto w = random_fp8<B>(N * K, rng, operand_max);
  const float sa = 0.0625f, sw = 0.375f;
  std::vector<C> host(M * N);
  sd::host_executor hx;
  hx.run(fp8_linear<A, B, C>, sd::bind("a", a, M, K), sd::bind("w", w, N, K), sd::bind("sa", &sa, 1),
         sd::bind("sw", &sw, 1), sd::bind("c", host, M, N));
  device_buffer<A> da(a);
  device_buffer<B> dw(w);
  device_buffer<float> dsa(std::vector<float>{sa}), dsw(std::vector<float>{sw});
  device_buffer<C> dc(M * N);
  sd::cuda_executor ex;
  ex.run(fp8_linear<A, B, C>, sd::bind("a", da.cget(), M, K), sd::bind("w", dw.cget(), N, K),
         sd::bind("sa", dsa.cget(), 1), sd::bind("sw", dsw.cget(), 1), sd::bind("c", dc.get(), M, N));
  const auto gpu = dc.download();
  const double uc = unit_roundoff<C>(), scale = static_cast<double>(sa) * sw;
  int host_wrong = 0, gpu_wrong = 0;
  double worst = 0;  // the GPU's largest error, relative to its bound
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const auto dot = exact_dot_of(a, w, i, j, K);
      const double ref = dot.sum * scale, mag = dot.magnitude * scale;
      const double host_bound = static_cast<double>(K + 2) * 0x1p-24 * mag * (1 + uc) + uc * std::fabs(ref);
      const double gpu_bound = host_bound + fp8_mma_bound * mag;
      host_wrong += !(std::fabs(widen(host[i * N + j]) - ref) <= host_bound);
      const double err = std::fabs(widen(gpu[i * N + j]) - ref);
      gpu_wrong += !(err <= gpu_bound);
      if (gpu_bound > 0 && err / gpu_bound > worst) worst = err / gpu_bound;
    }
  INFO("largest GPU error / bound: " << worst);
  CHECK(host_wrong == 0);
  CHECK(gpu_wrong == 0);
}

}  // namespace

TEST_CASE("FP8 matmuls with device scales on the GPU agree with the host executor", "[cuda][fp8][matmul]") {
  check_linear<e4m3, e4m3, __nv_bfloat16>(64, 64, 64);
  check_linear<e4m3, e4m3, __nv_bfloat16>(17, 48, 96);
  check_linear<e4m3, e4m3, float>(128, 256, 4096);
  check_linear<e4m3, e5m2, float>(33, 32, 160);
  check_linear<e5m2, e4m3, __half>(40, 64, 64);
  check_linear<e4m3, e4m3, float>(0, 16, 16);  // no rows
  check_linear<e4m3, e4m3, float>(5, 16, 0);   // k = 0: zeros
}

namespace {

// A quantized linear layer: the activation's scale computed on the device.
constexpr auto quantized_layer = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("cols");
  auto x = p.input<float>("x", m, k);
  auto w = p.input<e4m3>("w", n, k);
  auto sw = p.input<float>("sw", sd::scalar);
  auto amax = p.temp<float>("amax", sd::scalar);
  auto sx = p.temp<float>("sx", sd::scalar);
  auto xq = p.temp<e4m3>("xq", m, k);
  auto y = p.output<__nv_bfloat16>("y", m, n);
  amax = sd::max(sd::abs(x));
  sx = amax / 448;
  xq = sd::cast<e4m3>(x / sx);
  y = sd::matmul(xq, sd::transpose(w), sd::scales(sx, sw));
});

}  // namespace

TEST_CASE("a quantized layer: amax scale on the device, FP8 matmul, against the host",
          "[cuda][fp8][matmul][sanitize]") {
  constexpr std::size_t M = 96, N = 128, K = 256;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> x(M * K);
  for (auto& v : x) v = normal(rng);
  const auto w = random_fp8<e4m3>(N * K, rng, operand_max);
  const float sw = 0.01f;
  std::vector<__nv_bfloat16> host(M * N);
  sd::host_executor hx;
  hx.run(quantized_layer, sd::bind("x", x, M, K), sd::bind("w", w, N, K), sd::bind("sw", &sw, 1),
         sd::bind("y", host, M, N));
  device_buffer<float> dx(x), dsw(std::vector<float>{sw});
  device_buffer<e4m3> dw(w);
  device_buffer<__nv_bfloat16> dy(M * N);
  sd::cuda_executor ex;
  ex.run(quantized_layer, sd::bind("x", dx.cget(), M, K), sd::bind("w", dw.cget(), N, K),
         sd::bind("sw", dsw.cget(), 1), sd::bind("y", dy.get(), M, N));
  const auto gpu = dy.download();
  // Both quantize x identically (max, a division and the cast are exact
  // or correctly rounded on both), so the GPU's product may differ from the
  // host's by the two backends' bounds: 2^-10 S + 2 u_bf16 |y| + float terms.
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  const float sx = amax / 448;
  int wrong = 0;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double mag = 0;
      for (std::size_t p = 0; p < K; ++p)
        mag += std::fabs(static_cast<double>(value(__nv_fp8_e4m3(x[i * K + p] / sx))) * value(w[j * K + p]));
      mag *= static_cast<double>(sx) * sw;
      const double h = widen(host[i * N + j]), g = widen(gpu[i * N + j]);
      const double bound = (fp8_mma_bound + 2 * (K + 2) * 0x1p-24) * mag + 2 * 0x1p-8 * std::fabs(h) + 1e-30;
      wrong += !(std::fabs(g - h) <= bound);
    }
  CHECK(wrong == 0);
}

TEST_CASE("cuBLASLt's FP8 requirements are binding errors before launch", "[cuda][fp8][matmul]") {
  sd::cuda_executor ex;
  const float one = 1.0f;
  device_buffer<float> ds(std::vector<float>{one});
  device_buffer<e4m3> da(64 * 64 + 16), dw(64 * 64 + 16);
  device_buffer<__nv_bfloat16> dc(64 * 64 + 16);
  const auto run = [&](std::size_t m, std::size_t n, std::size_t k, std::size_t offset) {
    ex.run(fp8_linear<e4m3, e4m3, __nv_bfloat16>, sd::bind("a", da.cget() + offset, m, k),
           sd::bind("w", dw.cget(), n, k), sd::bind("sa", ds.cget(), 1), sd::bind("sw", ds.cget(), 1),
           sd::bind("c", dc.get(), m, n));
  };
  REQUIRE_NOTHROW(run(8, 16, 32, 0));
  CHECK_THROWS_AS(run(8, 16, 24, 0), sd::binding_error);
  CHECK_THROWS_WITH(run(8, 16, 24, 0),
                    Catch::Matchers::Contains("FP8 matmul") && Catch::Matchers::Contains("multiple of 16"));
  CHECK_THROWS_AS(run(8, 12, 32, 0), sd::binding_error);
  CHECK_THROWS_WITH(run(8, 12, 32, 0), Catch::Matchers::Contains("multiple of 16 bytes"));
  CHECK_THROWS_AS(run(8, 16, 32, 8), sd::binding_error);
  CHECK_THROWS_WITH(run(8, 16, 32, 8), Catch::Matchers::Contains("16-byte aligned"));
  REQUIRE_NOTHROW(run(8, 16, 32, 0));  // the executor still runs after a refused binding
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
}

namespace {

// FP8 products. Both executors compute v = sa sw (a w^T) in float (error at
// most the bounds of check_linear: e_host = (k + 2) 2^-24 S on the host,
// e_gpu = e_host + 2^-10 S on the GPU, S = sa sw sum |a w|), multiply it by
// sc and round to nearest with saturation. Rounding is monotonic, so each
// element of c must lie between the FP8 roundings of x - e and x + e, x = sc
// ref the exact scaled value and e = sc e_backend + 2^-23 |x| (the product by
// sc): at most one FP8 step from the correctly rounded value, and exactly the
// saturated value where x is beyond the largest finite one. The amax is the
// max of |v| over the elements, 1-Lipschitz in the largest error: |am - max
// |ref|| <= the largest e_backend (plus float rounding of the max, none).
template <class A, class B, class C>
void check_linear_out(std::size_t M, std::size_t N, std::size_t K, float sc) {
  INFO("m " << M << ", n " << N << ", k " << K << ", sc " << sc);
  std::mt19937 rng(static_cast<unsigned>(M * 31 + N * 7 + K + 3));
  const auto a = random_fp8<A>(M * K, rng, operand_max);
  const auto w = random_fp8<B>(N * K, rng, operand_max);
  const float sa = 0.0625f, sw = 0.375f;
  std::vector<C> host(M * N);
  float host_amax = -1;
  sd::host_executor hx;
  hx.run(fp8_linear_out<A, B, C>, sd::bind("a", a, M, K), sd::bind("w", w, N, K), sd::bind("sa", &sa, 1),
         sd::bind("sw", &sw, 1), sd::bind("sc", &sc, 1), sd::bind("am", &host_amax, 1),
         sd::bind("c", host, M, N));
  device_buffer<A> da(a);
  device_buffer<B> dw(w);
  device_buffer<float> dsa(std::vector<float>{sa}), dsw(std::vector<float>{sw}), dsc(std::vector<float>{sc}),
      dam(std::vector<float>{-1.0f});
  device_buffer<C> dc(M * N);
  sd::cuda_executor ex;
  ex.run(fp8_linear_out<A, B, C>, sd::bind("a", da.cget(), M, K), sd::bind("w", dw.cget(), N, K),
         sd::bind("sa", dsa.cget(), 1), sd::bind("sw", dsw.cget(), 1), sd::bind("sc", dsc.cget(), 1),
         sd::bind("am", dam.get(), 1), sd::bind("c", dc.get(), M, N));
  const auto gpu = dc.download();
  const float gpu_amax = dam.download()[0];
  const auto format = std::is_same_v<C, e4m3> ? d::fp8_e4m3_format : d::fp8_e5m2_format;
  const auto rounded = [&](double x) {  // the FP8 value of x, rounded as the conversion does
    return d::fp8_bits_to_float(d::float_to_fp8_bits(static_cast<float>(x), format), format);
  };
  const auto within = [&](float got, double x, double e) {
    const float lo = rounded(std::nextafter(static_cast<float>(x - e), -INFINITY));
    const float hi = rounded(std::nextafter(static_cast<float>(x + e), INFINITY));
    return lo <= got && got <= hi;
  };
  const double scale = static_cast<double>(sa) * sw;
  int host_wrong = 0, gpu_wrong = 0, saturated = 0;
  double ref_amax = 0, host_e_max = 0, gpu_e_max = 0;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const auto dot = exact_dot_of(a, w, i, j, K);
      const double ref = dot.sum * scale, mag = dot.magnitude * scale;
      ref_amax = std::max(ref_amax, std::fabs(ref));
      const double host_e = static_cast<double>(K + 2) * 0x1p-24 * mag;
      const double gpu_e = host_e + fp8_mma_bound * mag;
      host_e_max = std::max(host_e_max, host_e);
      gpu_e_max = std::max(gpu_e_max, gpu_e);
      const double x = sc * ref;
      const double slack = 0x1p-23 * std::fabs(x);
      host_wrong += !within(value(host[i * N + j]), x, sc * host_e + slack);
      gpu_wrong += !within(value(gpu[i * N + j]), x, sc * gpu_e + slack);
      saturated +=
          bits(gpu[i * N + j]) == format.max_finite || bits(gpu[i * N + j]) == (0x80 | format.max_finite);
    }
  INFO("saturated elements on the GPU: " << saturated << "; amax host " << host_amax << ", GPU " << gpu_amax
                                         << ", exact " << ref_amax);
  CHECK(host_wrong == 0);
  CHECK(gpu_wrong == 0);
  CHECK(std::fabs(host_amax - ref_amax) <= host_e_max);
  CHECK(std::fabs(gpu_amax - ref_amax) <= gpu_e_max);
}

}  // namespace

TEST_CASE("FP8 products with an output scale and amax on the GPU agree with the host executor",
          "[cuda][fp8][matmul]") {
  check_linear_out<e4m3, e4m3, e4m3>(64, 64, 64, 1.0f);
  check_linear_out<e4m3, e4m3, e4m3>(17, 48, 96, 4.0f);  // many saturate at 448
  check_linear_out<e4m3, e5m2, e5m2>(33, 32, 160, 0.5f);
  check_linear_out<e5m2, e4m3, e4m3>(40, 64, 64, 0.25f);
  check_linear_out<e4m3, e4m3, e4m3>(128, 256, 4096, 0.125f);
  check_linear_out<e4m3, e4m3, e4m3>(0, 16, 16, 1.0f);  // no rows: amax 0
  check_linear_out<e4m3, e4m3, e4m3>(5, 16, 0, 1.0f);   // k = 0: zeros, amax 0
}

TEST_CASE("an FP8 product's output scale and amax are checked when bound", "[cuda][fp8][matmul]") {
  sd::cuda_executor ex;
  device_buffer<float> ds(std::vector<float>(8, 1.0f)), dam(8);
  device_buffer<e4m3> da(64 * 64), dw(64 * 64), dc(64 * 64);
  const auto run = [&](std::size_t n, std::size_t sc_offset, std::size_t am_offset) {
    ex.run(fp8_linear_out<e4m3, e4m3, e4m3>, sd::bind("a", da.cget(), 8, 32), sd::bind("w", dw.cget(), n, 32),
           sd::bind("sa", ds.cget(), 1), sd::bind("sw", ds.cget(), 1),
           sd::bind("sc", ds.cget() + sc_offset, 1), sd::bind("am", dam.get() + am_offset, 1),
           sd::bind("c", dc.get(), 8, n));
  };
  REQUIRE_NOTHROW(run(16, 0, 0));
  CHECK_THROWS_WITH(run(8, 0, 0), Catch::Matchers::Contains("multiple of 16 bytes"));  // 8 FP8 elements a row
  CHECK_THROWS_WITH(run(16, 1, 0), Catch::Matchers::Contains("16-byte aligned"));
  CHECK_THROWS_WITH(run(16, 0, 2), Catch::Matchers::Contains("16-byte aligned"));
  REQUIRE_NOTHROW(run(16, 0, 0));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
}
