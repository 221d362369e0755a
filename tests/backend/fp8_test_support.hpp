#pragma once
// What the host executor's FP8 test (host/fp8_test.cpp, g++ with CUDA's
// headers) and the GPU's (cuda/fp8_test.cu, nvcc) share: an FP8 value's bits
// and its float value, random finite FP8 values, and the scaled FP8 linear
// layer both run.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <streamdsl/detail/fp8_bits.hpp>
#include <streamdsl/streamdsl.hpp>
#include <type_traits>
#include <vector>

namespace fp8_test {

using e4m3 = __nv_fp8_e4m3;
using e5m2 = __nv_fp8_e5m2;

template <class F>
std::uint8_t bits(F v) {
  return std::bit_cast<std::uint8_t>(v);
}
template <class F>
F from_bits(std::uint8_t b) {
  return std::bit_cast<F>(b);
}
// An FP8 value as float (exact), from its bits.
template <class F>
float value(F v) {
  namespace d = streamdsl::detail;
  return std::is_same_v<F, e4m3> ? d::fp8_e4m3_bits_to_float(bits(v)) : d::fp8_e5m2_bits_to_float(bits(v));
}
// A matmul's result (float, __half or __nv_bfloat16) as float (exact).
template <class C>
float widen(C v) {
  return static_cast<float>(v);
}

// Random finite FP8 values (no NaN, no inf), none larger in magnitude than max_abs.
template <class F>
std::vector<F> random_fp8(std::size_t count, std::mt19937& rng,
                          float max_abs = std::numeric_limits<float>::infinity()) {
  std::vector<F> out(count);
  std::uniform_int_distribution<int> pick(0, 255);
  for (auto& v : out) {
    std::uint8_t b;
    do b = static_cast<std::uint8_t>(pick(rng));
    while (!std::isfinite(value(from_bits<F>(b))) || std::fabs(value(from_bits<F>(b))) > max_abs);
    v = from_bits<F>(b);
  }
  return out;
}

// Row i of a (m, k) times row j of w (n, k): the products (exact in float)
// added in float in k order, as the host executor adds them.
template <class A, class B>
float float_dot(const std::vector<A>& a, const std::vector<B>& w, std::size_t i, std::size_t j,
                std::size_t k) {
  float sum = 0;
  for (std::size_t p = 0; p < k; ++p) sum += value(a[i * k + p]) * value(w[j * k + p]);
  return sum;
}
// The same sum exact (in double, for the k of the tests), and the sum of the products' magnitudes.
struct exact_dot {
  double sum = 0, magnitude = 0;
};
template <class A, class B>
exact_dot exact_dot_of(const std::vector<A>& a, const std::vector<B>& w, std::size_t i, std::size_t j,
                       std::size_t k) {
  exact_dot d;
  for (std::size_t p = 0; p < k; ++p) {
    const double v = static_cast<double>(value(a[i * k + p])) * value(w[j * k + p]);
    d.sum += v;
    d.magnitude += std::fabs(v);
  }
  return d;
}

// c = (sa * sw) * (a w^T): a (m, k), w (n, k) read transposed (cuBLASLt's TN layout).
template <class A, class B, class C>
constexpr auto fp8_linear = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("cols");
  auto a = p.input<A>("a", m, k);
  auto w = p.input<B>("w", n, k);
  auto sa = p.input<float>("sa", sd::scalar);
  auto sw = p.input<float>("sw", sd::scalar);
  auto c = p.output<C>("c", m, n);
  c = sd::matmul(a, sd::transpose(w), sd::scales(sa, sw));
});

// An FP8 product: c = sat(sc * (sa * sw) * (a w^T)) in C (an FP8 type),
// am = max |(sa * sw) * (a w^T)| (before sc).
template <class A, class B, class C>
constexpr auto fp8_linear_out = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("cols");
  auto a = p.input<A>("a", m, k);
  auto w = p.input<B>("w", n, k);
  auto sa = p.input<float>("sa", sd::scalar);
  auto sw = p.input<float>("sw", sd::scalar);
  auto sc = p.input<float>("sc", sd::scalar);
  auto am = p.output<float>("am", sd::scalar);
  auto c = p.output<C>("c", m, n);
  c = sd::matmul(a, sd::transpose(w), sd::scales(sa, sw, sd::output_scale(sc), sd::output_amax(am)));
});

}  // namespace fp8_test
