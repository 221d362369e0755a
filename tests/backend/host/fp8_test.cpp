// __nv_fp8_e4m3 and __nv_fp8_e5m2 on the host executor (g++ with CUDA's headers):
// sd::cast to and from FP8 rounds as CUDA's __nv_cvt_float_to_fp8 with
// __NV_SATFINITE (detail/fp8_bits.hpp, tested in tests/detail/fp8_bits_test.cpp);
// FP8 matmuls with per-tensor scales match loops written out here bit for bit
// (products exact in float, added in k order, the sum times sa * sb rounded
// once to c's type); and every misuse is a named error.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/detail/fp8_bits.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

#ifndef STREAMDSL_HAS_HALF
#error "this test is built with STREAMDSL_WITH_CUDA_HEADERS and CUDA's include directory"
#endif

#include "../../ops/first_error.hpp"
#include "../fp8_test_support.hpp"

namespace {

namespace d = streamdsl::detail;
using namespace fp8_test;  // tests/backend/fp8_test_support.hpp
using sd::diag::error_kind;

// Quantizing an activation and reading FP8 back, as a program would.
constexpr auto quantize = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto h = p.input<__half>("h");
  auto s = p.input<float>("s", sd::scalar);
  auto q4 = p.output<e4m3>("q4");
  auto q5 = p.output<e5m2>("q5");
  auto back = p.output<float>("back");
  auto hb = p.output<__nv_bfloat16>("hb");
  auto sel = p.output<e4m3>("sel");
  q4 = sd::cast<e4m3>(x * s);
  q5 = sd::cast<e5m2>(h);
  back = sd::cast<float>(q4);
  hb = sd::cast<__nv_bfloat16>(q5);
  sel = sd::where(x > 0, q4, 0);  // selecting FP8 values is no arithmetic: allowed
});

}  // namespace

TEST_CASE("sd::cast to and from FP8 rounds as CUDA's satfinite conversion", "[fp8]") {
  // Values around every tie of e4m3, beyond its largest value, NaN, inf, -0.
  std::vector<float> x;
  for (unsigned lo = 0; lo < 0x7e; ++lo) {
    const float a = d::fp8_e4m3_bits_to_float(static_cast<std::uint8_t>(lo));
    const float b = d::fp8_e4m3_bits_to_float(static_cast<std::uint8_t>(lo + 1));
    const float mid = (a + b) / 2;
    for (float v : {a, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      x.push_back(v);
      x.push_back(-v);
    }
  }
  for (float v : {448.0f, 464.0f, 465.0f, 1e6f, INFINITY, -INFINITY, NAN, -0.0f}) x.push_back(v);
  const std::size_t n = x.size();
  std::vector<__half> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = __float2half(x[i] * 128);  // beyond e5m2's range at the top
  std::vector<e4m3> q4(n);
  std::vector<e5m2> q5(n);
  std::vector<float> back(n);
  std::vector<__nv_bfloat16> hb(n);
  std::vector<e4m3> sel(n);
  float s = 1.0f;
  sd::host_executor ex;
  ex.run(quantize, sd::bind("x", x), sd::bind("h", h), sd::bind("s", &s, 1), sd::bind("q4", q4),
         sd::bind("q5", q5), sd::bind("back", back), sd::bind("hb", hb), sd::bind("sel", sel));
  int wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += bits(q4[i]) != d::float_to_fp8_e4m3_bits(x[i]);
    wrong += bits(q4[i]) != __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E4M3);
    wrong += bits(q5[i]) != d::float_to_fp8_e5m2_bits(__half2float(h[i]));
    const float want_back = d::fp8_e4m3_bits_to_float(bits(q4[i]));
    wrong += !(std::isnan(want_back) ? std::isnan(back[i]) : back[i] == want_back);
    const float want_hb = d::fp8_e5m2_bits_to_float(bits(q5[i]));  // exact in bfloat16
    const float got_hb = __bfloat162float(hb[i]);
    wrong += !(std::isnan(want_hb) ? std::isnan(got_hb) : got_hb == want_hb);
    wrong += bits(sel[i]) != (x[i] > 0 ? bits(q4[i]) : 0);
  }
  CHECK(wrong == 0);
  // A scale applied before the cast: 3 * 150 = 450 saturates to 448.
  s = 150.0f;
  x.assign(n, 3.0f);
  ex.run(quantize, sd::bind("x", x), sd::bind("h", h), sd::bind("s", &s, 1), sd::bind("q4", q4),
         sd::bind("q5", q5), sd::bind("back", back), sd::bind("hb", hb), sd::bind("sel", sel));
  CHECK(back[0] == 448.0f);
}

namespace {

template <class C>
C round_to(float v) {
  if constexpr (std::is_same_v<C, float>)
    return v;
  else if constexpr (std::is_same_v<C, __half>)
    return __float2half_rn(v);
  else
    return __float2bfloat16_rn(v);
}
template <class A, class B, class C>
void check_fp8_matmul(std::size_t M, std::size_t N, std::size_t K) {
  std::mt19937 rng(static_cast<unsigned>(M * 131 + N * 7 + K));
  const auto a = random_fp8<A>(M * K, rng);
  const auto w = random_fp8<B>(N * K, rng);
  float sa = 0.0625f, sw = 0.375f;
  std::vector<C> c(M * N);
  sd::host_executor ex;
  ex.run(fp8_linear<A, B, C>, sd::bind("a", a, M, K), sd::bind("w", w, N, K), sd::bind("sa", &sa, 1),
         sd::bind("sw", &sw, 1), sd::bind("c", c, M, N));
  int wrong = 0;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const float sum = float_dot(a, w, i, j, K);
      const float want = widen(round_to<C>(sum * (sa * sw)));
      const float got = widen(c[i * N + j]);
      wrong += !(got == want || (std::isnan(got) && std::isnan(want)));
    }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("FP8 matmuls with scales match loops written out (host executor)", "[fp8][matmul]") {
  check_fp8_matmul<e4m3, e4m3, __nv_bfloat16>(24, 32, 48);
  check_fp8_matmul<e4m3, e5m2, float>(17, 16, 32);
  check_fp8_matmul<e5m2, e4m3, __half>(5, 48, 16);
  check_fp8_matmul<e4m3, e4m3, float>(0, 16, 16);  // empty
  check_fp8_matmul<e4m3, e4m3, float>(3, 16, 0);   // k = 0: zeros
}

TEST_CASE("an FP8 matmul's plan: the scales are reads, shown in the dump", "[fp8][matmul]") {
  constexpr auto& prog = fp8_linear<e4m3, e5m2, __nv_bfloat16>;
  constexpr auto v = prog.plan().ir;
  STATIC_REQUIRE(v.stmts.size() == 1);
  STATIC_REQUIRE(v.stmts[0].reads_count == 4);  // a, w, sa, sw
  STATIC_REQUIRE(v.stmts[0].scale_a >= 0);
  CHECK_THAT(prog.to_string(), Catch::Contains("c = sd::matmul(a, sd::transpose(w), sd::scales(sa, sw));"));
}

TEST_CASE("FP8 misuse is a named compile error", "[fp8]") {
  using op_test::first_error;
  using op_test::first_message;
  const auto linear = [](auto a_tag, auto b_tag, auto c_tag, bool ta, bool tb) {
    using A = typename decltype(a_tag)::type;
    using B = typename decltype(b_tag)::type;
    using C = typename decltype(c_tag)::type;
    return [=](sd::builder& p) {
      auto m = p.domain("m");
      auto k = p.domain("k");
      auto a = ta ? p.input<A>("a", k, m) : p.input<A>("a", m, k);
      auto w = tb ? p.input<B>("w", m, k) : p.input<B>("w", k, m);
      auto c = p.output<C>("c", m, m);
      if (ta && tb) c = sd::matmul(sd::transpose(a), sd::transpose(w));
      if (ta && !tb) c = sd::matmul(sd::transpose(a), w);
      if (!ta && tb) c = sd::matmul(a, sd::transpose(w));
      if (!ta && !tb) c = sd::matmul(a, w);
    };
  };
  const auto t = []<class T>() { return std::type_identity<T>{}; };
  CHECK(first_error(linear(t.operator()<e4m3>(), t.operator()<e4m3>(), t.operator()<float>(), false, true)) ==
        error_kind::none);
  CHECK(first_error(linear(t.operator()<e5m2>(), t.operator()<e4m3>(), t.operator()<__half>(), false,
                           true)) == error_kind::none);
  CHECK(first_error(linear(t.operator()<e5m2>(), t.operator()<e5m2>(), t.operator()<float>(), false, true)) ==
        error_kind::matmul_fp8_types);
  CHECK(first_error(linear(t.operator()<e4m3>(), t.operator()<float>(), t.operator()<float>(), false,
                           true)) == error_kind::matmul_fp8_types);
  // FP8 products: e4m3 of any pair, e5m2 only with an e5m2 operand (cuBLASLt's table).
  CHECK(first_error(linear(t.operator()<e4m3>(), t.operator()<e4m3>(), t.operator()<e4m3>(), false, true)) ==
        error_kind::none);
  CHECK(first_error(linear(t.operator()<e4m3>(), t.operator()<e5m2>(), t.operator()<e5m2>(), false, true)) ==
        error_kind::none);
  CHECK(first_error(linear(t.operator()<e5m2>(), t.operator()<e4m3>(), t.operator()<e4m3>(), false, true)) ==
        error_kind::none);
  CHECK(first_error(linear(t.operator()<e4m3>(), t.operator()<e4m3>(), t.operator()<e5m2>(), false, true)) ==
        error_kind::matmul_fp8_output);
  CHECK_THAT(
      first_message(linear(t.operator()<e4m3>(), t.operator()<e4m3>(), t.operator()<e5m2>(), false, true)),
      Catch::Contains(
          "stores the product of 'a' (__nv_fp8_e4m3) and 'w' (__nv_fp8_e4m3) in 'c' (__nv_fp8_e5m2)"));
  CHECK(first_error(linear(t.operator()<float>(), t.operator()<float>(), t.operator()<e4m3>(), false,
                           true)) == error_kind::matmul_type_unsupported);
  CHECK(first_error(linear(t.operator()<e4m3>(), t.operator()<e4m3>(), t.operator()<float>(), false,
                           false)) == error_kind::matmul_fp8_layout);
  CHECK(first_error(linear(t.operator()<e4m3>(), t.operator()<e4m3>(), t.operator()<float>(), true, true)) ==
        error_kind::matmul_fp8_layout);
  CHECK(first_error(linear(t.operator()<e4m3>(), t.operator()<e4m3>(), t.operator()<float>(), true, false)) ==
        error_kind::matmul_fp8_layout);
  CHECK_THAT(
      first_message(linear(t.operator()<e4m3>(), t.operator()<e4m3>(), t.operator()<float>(), false, false)),
      Catch::Contains("store 'w' as (n, k)") && Catch::Contains("sd::transpose(w_t)"));
  CHECK_THAT(
      first_message(linear(t.operator()<e5m2>(), t.operator()<e5m2>(), t.operator()<float>(), false, true)),
      Catch::Contains("multiplies 'a' (__nv_fp8_e5m2) by 'w' (__nv_fp8_e5m2)"));

  const auto scaled = [](auto scale_tag, bool scalar, bool fp8) {
    using S = typename decltype(scale_tag)::type;
    return [=](sd::builder& p) {
      auto m = p.domain("m");
      auto k = p.domain("k");
      auto a8 = p.input<e4m3>("a8", m, k);
      auto a = p.input<float>("a", m, k);
      auto s = scalar ? p.input<S>("s", sd::scalar) : p.input<S>("s", m);
      auto one = p.input<float>("one", sd::scalar);
      auto c = p.output<float>("c", m, m);
      if (fp8) c = sd::matmul(a8, sd::transpose(a8), sd::scales(s, one));
      if (!fp8) c = sd::matmul(a, sd::transpose(a), sd::scales(s, one));
    };
  };
  CHECK(first_error(scaled(t.operator()<float>(), true, true)) == error_kind::none);
  CHECK(first_error(scaled(t.operator()<float>(), false, true)) == error_kind::matmul_scale);
  CHECK(first_error(scaled(t.operator()<double>(), true, true)) == error_kind::matmul_scale);
  CHECK(first_error(scaled(t.operator()<float>(), true, false)) == error_kind::matmul_scale);

  // Arithmetic, math and reductions of FP8 values: refused, as PyTorch does.
  CHECK(first_error([](sd::builder& p) {
          auto q = p.input<e4m3>("q");
          auto y = p.output<float>("y");
          y = sd::cast<float>(q * 2);
        }) == error_kind::arithmetic_on_fp8);
  CHECK(first_error([](sd::builder& p) {
          auto q = p.input<e5m2>("q");
          auto y = p.output<e5m2>("y");
          y = -q;
        }) == error_kind::arithmetic_on_fp8);
  CHECK(first_error([](sd::builder& p) {
          auto q = p.input<e4m3>("q");
          auto y = p.output<float>("y");
          y = sd::cast<float>(sd::exp(q));
        }) == error_kind::arithmetic_on_fp8);
  CHECK(first_error([](sd::builder& p) {
          auto q = p.input<e4m3>("q");
          auto s = p.output<float>("s", sd::scalar);
          s = sd::sum(q);
        }) == error_kind::arithmetic_on_fp8);
  CHECK(first_error([](sd::builder& p) {
          auto q = p.input<e4m3>("q");
          auto y = p.output<float>("y");
          y = q;  // FP8 converts only explicitly
        }) == error_kind::narrowing_assignment);
  CHECK(first_error([](sd::builder& p) {
          auto q = p.input<e4m3>("q");
          auto y = p.output<e4m3>("y");
          auto z = p.output<float>("z");
          y = q;                   // a copy: fine
          z = sd::cast<float>(q);  // a conversion: fine
        }) == error_kind::none);
  CHECK_THAT(first_message([](sd::builder& p) {
               auto q = p.input<e4m3>("q");
               auto y = p.output<float>("y");
               y = sd::cast<float>(q * 2);
             }),
             Catch::Contains("FP8 values only convert") && Catch::Contains("sd::cast<float>(q)"));

  // A scale written on another stream with nothing ordering it: a race the checker sees.
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto k = p.domain("k");
          auto a = p.input<e4m3>("a", m, k);
          auto x = p.input<float>("x", sd::scalar);
          auto s = p.temp<float>("s", sd::scalar);
          auto c = p.output<float>("c", m, m);
          auto side = p.stream("side");
          sd::with_stream(side, [&] { s = x * 2; });
          c = sd::matmul(a, sd::transpose(a), sd::scales(s, s));
        }) == error_kind::race);
}

namespace {
// The activation's scale computed on a side stream, the matmul on main:
// sd::automatic orders them through the scale, which the matmul step reads.
constexpr auto side_scale = sd::program<sd::automatic>([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("cols");
  auto x = p.input<float>("x", m, k);
  auto w = p.input<e4m3>("w", n, k);
  auto sw = p.input<float>("sw", sd::scalar);
  auto amax = p.temp<float>("amax", sd::scalar);
  auto sx = p.temp<float>("sx", sd::scalar);
  auto xq = p.temp<e4m3>("xq", m, k);
  auto y = p.output<float>("y", m, n);
  auto side = p.stream("side");
  sd::with_stream(side, [&] {
    amax = sd::max(sd::abs(x));
    sx = amax / 448;
  });
  xq = sd::cast<e4m3>(x / sx);
  y = sd::matmul(xq, sd::transpose(w), sd::scales(sx, sw));
});
}  // namespace

TEST_CASE("a scale written on another stream is ordered before the FP8 matmul reading it", "[fp8][matmul]") {
  STATIC_REQUIRE(side_scale.plan().sync_count() >= 1);
  constexpr std::size_t M = 8, N = 16, K = 32;
  std::vector<float> x(M * K);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 23) - 11) * 0.37f;
  std::mt19937 rng(3);
  const auto w = random_fp8<e4m3>(N * K, rng);
  const float sw = 0.5f;
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  const float sx = amax / 448;
  std::vector<float> want(M * N);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      float sum = 0;
      for (std::size_t p = 0; p < K; ++p)
        sum += d::fp8_e4m3_bits_to_float(d::float_to_fp8_e4m3_bits(x[i * K + p] / sx)) * value(w[j * K + p]);
      want[i * N + j] = sum * (sx * sw);
    }
  sd::host_executor ex(sd::stress{11});
  for (int run = 0; run < 10; ++run) {
    std::vector<float> y(M * N, -1.0f);
    ex.run(side_scale, sd::bind("x", x, M, K), sd::bind("w", w, N, K), sd::bind("sw", &sw, 1),
           sd::bind("y", y, M, N));
    CHECK(y == want);
  }
}

namespace {

// The host's FP8 product, written out: the float value as an FP8 matmul into
// float computes it, times sc, converted with saturation (detail/fp8_bits.hpp).
template <class A, class B, class C>
void check_fp8_product(std::size_t M, std::size_t N, std::size_t K, float sa, float sw, float sc,
                       float max_abs = INFINITY) {
  INFO("m " << M << ", n " << N << ", k " << K << ", sc " << sc);
  std::mt19937 rng(static_cast<unsigned>(M * 131 + N * 7 + K + 1));
  const auto a = random_fp8<A>(M * K, rng, max_abs);
  const auto w = random_fp8<B>(N * K, rng, max_abs);
  std::vector<C> c(M * N);
  float am = -1.0f;
  sd::host_executor ex;
  ex.run(fp8_linear_out<A, B, C>, sd::bind("a", a, M, K), sd::bind("w", w, N, K), sd::bind("sa", &sa, 1),
         sd::bind("sw", &sw, 1), sd::bind("sc", &sc, 1), sd::bind("am", &am, 1), sd::bind("c", c, M, N));
  const auto format = std::is_same_v<C, e4m3> ? d::fp8_e4m3_format : d::fp8_e5m2_format;
  int wrong = 0;
  float want_amax = 0;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const float sum = float_dot(a, w, i, j, K);
      const float v = sum * (sa * sw);
      want_amax = std::max(want_amax, std::fabs(v));
      wrong += bits(c[i * N + j]) != d::float_to_fp8_bits(v * sc, format);
    }
  CHECK(wrong == 0);
  CHECK(am == want_amax);
}

}  // namespace

TEST_CASE("FP8 products: output scale, saturation and amax (host executor)", "[fp8][matmul]") {
  check_fp8_product<e4m3, e4m3, e4m3>(24, 32, 48, 0.0625f, 0.375f, 0.5f, 16);
  check_fp8_product<e4m3, e5m2, e5m2>(17, 16, 32, 0.0625f, 0.375f, 2.0f, 64);
  check_fp8_product<e5m2, e4m3, e4m3>(5, 48, 16, 1.0f, 1.0f, 0.125f, 8);
  check_fp8_product<e4m3, e5m2, e4m3>(9, 16, 64, 1.0f, 1.0f, 1.0f);  // large values: many saturate
  check_fp8_product<e4m3, e4m3, e4m3>(0, 16, 16, 1.0f, 1.0f, 1.0f);  // empty: amax 0
  check_fp8_product<e4m3, e4m3, e4m3>(3, 16, 0, 1.0f, 1.0f, 1.0f);   // k = 0: zeros, amax 0

  // Saturation at the largest finite value, both signs, and amax before the output scale.
  constexpr std::size_t M = 2, N = 16, K = 16;
  std::vector<e4m3> a(M * K, from_bits<e4m3>(0x7e));                     // 448
  for (std::size_t p = 0; p < K; ++p) a[K + p] = from_bits<e4m3>(0xfe);  // row 1: -448
  std::vector<e4m3> w(N * K, from_bits<e4m3>(0x38));                     // 1
  float sa = 1, sw = 1, sc = 0.25f, am = 0;
  std::vector<e4m3> c(M * N);
  sd::host_executor ex;
  // c = sat(sc * sa * sw * (a w^T)) of a and the given w into the given c, am its amax.
  const auto run = [&](const auto& weights, auto& product) {
    using B = typename std::remove_cvref_t<decltype(weights)>::value_type;
    using C = typename std::remove_cvref_t<decltype(product)>::value_type;
    ex.run(fp8_linear_out<e4m3, B, C>, sd::bind("a", a, M, K), sd::bind("w", weights, N, K),
           sd::bind("sa", &sa, 1), sd::bind("sw", &sw, 1), sd::bind("sc", &sc, 1), sd::bind("am", &am, 1),
           sd::bind("c", product, M, N));
  };
  run(w, c);
  CHECK(am == 448.0f * 16);   // before the output scale: 7168
  CHECK(bits(c[0]) == 0x7e);  // 7168 / 4 = 1792 saturates to 448
  CHECK(bits(c[N]) == 0xfe);  // -448
  sc = 1.0f / 16;
  run(w, c);
  CHECK(value(c[0]) == 448.0f);  // exactly in range
  CHECK(value(c[N]) == -448.0f);
  // e5m2: saturates at 57344.
  std::vector<e5m2> w5(N * K, from_bits<e5m2>(0x7b));  // 57344
  std::vector<e5m2> c5(M * N);
  sc = 1.0f;
  run(w5, c5);
  CHECK(bits(c5[0]) == 0x7b);
  CHECK(bits(c5[N]) == 0xfb);
  CHECK(am == 448.0f * 57344.0f * 16);
  // A NaN scale: every element NaN, and the amax NaN.
  sa = NAN;
  run(w, c);
  CHECK(std::isnan(am));
  CHECK(std::isnan(value(c[0])));
}

namespace {
// An FP8 product with neither an output scale nor an amax (scale 1), and one with only an amax.
constexpr auto fp8_plain_out = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("cols");
  auto a = p.input<e4m3>("a", m, k);
  auto w = p.input<e4m3>("w", n, k);
  auto sa = p.input<float>("sa", sd::scalar);
  auto am = p.output<float>("am", sd::scalar);
  auto c = p.output<e4m3>("c", m, n);
  auto c2 = p.output<e4m3>("c2", m, n);
  c = sd::matmul(a, sd::transpose(w));
  c2 = sd::matmul(a, sd::transpose(w), sd::scales(sa, sa, sd::output_amax(am)));
});
}  // namespace

TEST_CASE("an FP8 product without an output scale has scale 1", "[fp8][matmul]") {
  constexpr auto v = fp8_plain_out.plan().ir;
  STATIC_REQUIRE(v.stmts[0].reads_count == 2);
  STATIC_REQUIRE(v.stmts[0].writes_count == 1);
  constexpr std::size_t M = 4, N = 16, K = 32;
  std::mt19937 rng(5);
  const auto a = random_fp8<e4m3>(M * K, rng, 4);
  const auto w = random_fp8<e4m3>(N * K, rng, 4);
  float sa = 0.5f, am = -1;
  std::vector<e4m3> c(M * N), c2(M * N);
  sd::host_executor ex;
  ex.run(fp8_plain_out, sd::bind("a", a, M, K), sd::bind("w", w, N, K), sd::bind("sa", &sa, 1),
         sd::bind("am", &am, 1), sd::bind("c", c, M, N), sd::bind("c2", c2, M, N));
  int wrong = 0;
  float want_amax = 0;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const float sum = float_dot(a, w, i, j, K);
      wrong += bits(c[i * N + j]) != d::float_to_fp8_e4m3_bits(sum);
      wrong += bits(c2[i * N + j]) != d::float_to_fp8_e4m3_bits(sum * 0.25f);
      want_amax = std::max(want_amax, std::fabs(sum * 0.25f));
    }
  CHECK(wrong == 0);
  CHECK(am == want_amax);
}

TEST_CASE("an FP8 product's plan: the output scale a read, the amax a write", "[fp8][matmul]") {
  constexpr auto& prog = fp8_linear_out<e4m3, e4m3, e4m3>;
  constexpr auto v = prog.plan().ir;
  STATIC_REQUIRE(v.stmts.size() == 1);
  STATIC_REQUIRE(v.stmts[0].reads_count == 5);   // a, w, sa, sw, sc
  STATIC_REQUIRE(v.stmts[0].writes_count == 2);  // c, am
  STATIC_REQUIRE(sd::ir::matmul_batch_size(v.stmts[0]) == 1);
  STATIC_REQUIRE(v.stmts[0].scale_d >= 0);
  STATIC_REQUIRE(v.stmts[0].amax_d >= 0);
  STATIC_REQUIRE(sd::ir::matmul_operands_of(v, v.stmts[0]).b == 1);  // w, found before the scales
  STATIC_REQUIRE(!sd::ir::matmul_batchable(v, v.stmts[0]));
  CHECK_THAT(prog.to_string(), Catch::Contains("c = sd::matmul(a, sd::transpose(w), sd::scales(sa, sw, "
                                               "sd::output_scale(sc), sd::output_amax(am)));"));
}

TEST_CASE("FP8 product misuse is a named compile error", "[fp8][matmul]") {
  using op_test::first_error;
  using op_test::first_message;
  // c_tag: the product's type; scale_0d / amax_0d: whether sc / am are 0-d;
  // amax_kind: 0 a temp, 1 an input, 2 the output scale itself.
  const auto product = [](auto c_tag, bool scale_0d, bool amax_0d, int amax_kind) {
    using C = typename decltype(c_tag)::type;
    return [=](sd::builder& p) {
      auto m = p.domain("m");
      auto k = p.domain("k");
      auto a = p.input<e4m3>("a", m, k);
      auto sa = p.input<float>("sa", sd::scalar);
      auto sc = scale_0d ? p.input<float>("sc", sd::scalar) : p.input<float>("sc", m);
      auto c = p.output<C>("c", m, m);
      const auto store = [&](const auto& am) {
        c = sd::matmul(a, sd::transpose(a), sd::scales(sa, sa, sd::output_scale(sc), sd::output_amax(am)));
      };
      if (amax_kind == 1)
        store(p.input<float>("am", sd::scalar));
      else if (amax_kind == 2) {  // one inout buffer as the output scale and the amax
        auto io = p.inout<float>("io", sd::scalar);
        c = sd::matmul(a, sd::transpose(a), sd::scales(sa, sa, sd::output_scale(io), sd::output_amax(io)));
      } else if (amax_0d)
        store(p.temp<float>("am", sd::scalar));
      else
        store(p.temp<float>("am", m));
    };
  };
  const auto t = []<class T>() { return std::type_identity<T>{}; };
  CHECK(first_error(product(t.operator()<e4m3>(), true, true, 0)) == error_kind::none);
  CHECK(first_error(product(t.operator()<__nv_bfloat16>(), true, true, 0)) ==
        error_kind::matmul_output_scale);
  CHECK(first_error(product(t.operator()<float>(), true, true, 0)) == error_kind::matmul_output_scale);
  CHECK(first_error(product(t.operator()<e4m3>(), false, true, 0)) == error_kind::matmul_output_scale);
  CHECK(first_error(product(t.operator()<e4m3>(), true, false, 0)) == error_kind::matmul_output_scale);
  CHECK(first_error(product(t.operator()<e4m3>(), true, true, 1)) == error_kind::write_to_input);
  CHECK(first_error(product(t.operator()<e4m3>(), true, true, 2)) == error_kind::matmul_output_scale);
  CHECK_THAT(first_message(product(t.operator()<__nv_bfloat16>(), true, true, 0)),
             Catch::Contains("passes sd::output_scale(sc) for a product 'c' of type __nv_bfloat16"));
  CHECK_THAT(first_message(product(t.operator()<e4m3>(), true, false, 0)),
             Catch::Contains("an FP8 product's amax is a 0-d float buffer"));
  CHECK_THAT(first_message(product(t.operator()<e4m3>(), true, true, 2)),
             Catch::Contains("writes its amax into 'io', which it also reads as a scale"));
  // The amax read on another stream with nothing ordering it after the matmul: a race.
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto k = p.domain("k");
          auto a = p.input<e4m3>("a", m, k);
          auto one = p.input<float>("one", sd::scalar);
          auto am = p.temp<float>("am", sd::scalar);
          auto y = p.output<float>("y", sd::scalar);
          auto c = p.output<e4m3>("c", m, m);
          auto side = p.stream("side");
          c = sd::matmul(a, sd::transpose(a), sd::scales(one, one, sd::output_amax(am)));
          sd::with_stream(side, [&] { y = am * 2; });
        }) == error_kind::race);
  // ... and the amax written on another stream while the matmul writes it: a race too.
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto k = p.domain("k");
          auto a = p.input<e4m3>("a", m, k);
          auto one = p.input<float>("one", sd::scalar);
          auto am = p.output<float>("am", sd::scalar);
          auto c = p.output<e4m3>("c", m, m);
          auto side = p.stream("side");
          sd::with_stream(side, [&] { am = one * 2; });
          c = sd::matmul(a, sd::transpose(a), sd::scales(one, one, sd::output_amax(am)));
        }) == error_kind::race);
}

namespace {
// Delayed scaling as Transformer Engine does it: the amax the matmul writes
// read on a side stream (the next step's scale), ordered by sd::automatic.
constexpr auto amax_consumer = sd::program<sd::automatic>([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("cols");
  auto a = p.input<e4m3>("a", m, k);
  auto w = p.input<e4m3>("w", n, k);
  auto sa = p.input<float>("sa", sd::scalar);
  auto sc = p.input<float>("sc", sd::scalar);
  auto am = p.temp<float>("am", sd::scalar);
  auto next = p.output<float>("next", sd::scalar);
  auto c = p.output<e4m3>("c", m, n);
  auto side = p.stream("side");
  c = sd::matmul(a, sd::transpose(w), sd::scales(sa, sa, sd::output_scale(sc), sd::output_amax(am)));
  sd::with_stream(side, [&] { next = 448 / am; });
});
}  // namespace

TEST_CASE("the amax an FP8 matmul writes is ordered before a side stream reading it", "[fp8][matmul]") {
  STATIC_REQUIRE(amax_consumer.plan().sync_count() >= 1);
  constexpr std::size_t M = 8, N = 16, K = 32;
  std::mt19937 rng(9);
  const auto a = random_fp8<e4m3>(M * K, rng, 16);
  const auto w = random_fp8<e4m3>(N * K, rng, 16);
  const float sa = 0.5f, sc = 0.125f;
  float want_amax = 0;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const float sum = float_dot(a, w, i, j, K);
      want_amax = std::max(want_amax, std::fabs(sum * 0.25f));
    }
  sd::host_executor ex(sd::stress{13});
  for (int run = 0; run < 10; ++run) {
    float next = -1;
    std::vector<e4m3> c(M * N);
    ex.run(amax_consumer, sd::bind("a", a, M, K), sd::bind("w", w, N, K), sd::bind("sa", &sa, 1),
           sd::bind("sc", &sc, 1), sd::bind("next", &next, 1), sd::bind("c", c, M, N));
    CHECK(next == 448 / want_amax);
  }
}
