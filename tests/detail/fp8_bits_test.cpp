// detail::fp8_bits: decoding against an independent formula for every one of
// the 256 bit patterns of each FP8 type, and float -> FP8 rounding (to nearest,
// ties to even, saturating to the largest finite value, as CUDA's
// __nv_cvt_float_to_fp8 with __NV_SATFINITE) at every tie, next to every tie,
// at saturation and underflow. With CUDA's headers (test_host_fp8_cuda), the
// encoder is also compared with CUDA's own host conversion over a sweep of
// float bit patterns.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <streamdsl/detail/fp8_bits.hpp>
#ifdef STREAMDSL_WITH_CUDA_HEADERS
#include <cuda_fp8.h>
#endif

namespace d = streamdsl::detail;

namespace {
// (-1)^s * 2^(e - bias) * (1 + m / 2^M), subnormals 2^(1 - bias) * (m / 2^M);
// e4m3: S.1111.111 is NaN, no infinity; e5m2: exponent 31 is inf (m = 0) or NaN.
double reference(unsigned bits, int exponent_bits) {
  const int mantissa_bits = 7 - exponent_bits, bias = (1 << (exponent_bits - 1)) - 1;
  const int s = (bits >> 7) & 1, e = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1),
            m = bits & ((1 << mantissa_bits) - 1);
  const double sign = s ? -1.0 : 1.0, scale = 1 << mantissa_bits;
  if (exponent_bits == 4 && (bits & 0x7f) == 0x7f) return NAN;
  if (exponent_bits == 5 && e == 31) return m == 0 ? sign * INFINITY : NAN;
  if (e == 0) return sign * std::ldexp(m / scale, 1 - bias);
  return sign * std::ldexp(1.0 + m / scale, e - bias);
}

void check_every_pattern(d::fp8_format f, int exponent_bits) {
  int wrong = 0, round_trip_wrong = 0;
  for (unsigned bits = 0; bits < 256; ++bits) {
    const float got = d::fp8_bits_to_float(static_cast<std::uint8_t>(bits), f);
    const double want = reference(bits, exponent_bits);
    if (std::isnan(want)) {
      wrong += !std::isnan(got);
      continue;
    }
    wrong += static_cast<double>(got) != want || std::signbit(got) != std::signbit(want);
    // Every finite value converts back to its own bits (-0 included).
    if (std::isfinite(want)) round_trip_wrong += d::float_to_fp8_bits(got, f) != bits;
  }
  CHECK(wrong == 0);
  CHECK(round_trip_wrong == 0);
}

// Between each pair of neighbouring non-negative finite values: the midpoint
// goes to the even one, a float just above it to the upper, just below to the lower.
void check_ties(d::fp8_format f) {
  int wrong = 0;
  for (unsigned lo = 0; lo < f.max_finite; ++lo) {
    const float a = d::fp8_bits_to_float(static_cast<std::uint8_t>(lo), f);
    const float b = d::fp8_bits_to_float(static_cast<std::uint8_t>(lo + 1), f);
    const float mid = (a + b) / 2;  // exact: both have a few significant bits
    const unsigned even = (lo % 2 == 0) ? lo : lo + 1;
    wrong += d::float_to_fp8_bits(mid, f) != even;
    wrong += d::float_to_fp8_bits(std::nextafter(mid, INFINITY), f) != lo + 1;
    wrong += d::float_to_fp8_bits(std::nextafter(mid, 0.0f), f) != lo;
    wrong += d::float_to_fp8_bits(-mid, f) != (even | 0x80u);  // the sign is symmetric
  }
  CHECK(wrong == 0);
}
}  // namespace

TEST_CASE("fp8 e4m3: every bit pattern decodes as the reference formula", "[detail][fp8]") {
  check_every_pattern(d::fp8_e4m3_format, 4);
  STATIC_REQUIRE(d::fp8_e4m3_bits_to_float(0x38) == 1.0f);
  STATIC_REQUIRE(d::fp8_e4m3_bits_to_float(0x7e) == 448.0f);     // the largest finite value
  STATIC_REQUIRE(d::fp8_e4m3_bits_to_float(0x01) == 0x1p-9f);    // the smallest subnormal
  STATIC_REQUIRE(d::fp8_e4m3_bits_to_float(0x07) == 0x1.cp-7f);  // the largest subnormal
  STATIC_REQUIRE(d::fp8_e4m3_bits_to_float(0x08) == 0x1p-6f);    // the smallest normal
  STATIC_REQUIRE(d::fp8_e4m3_bits_to_float(0xc4) == -3.0f);
  REQUIRE(std::isnan(d::fp8_e4m3_bits_to_float(0x7f)));
  REQUIRE(std::isnan(d::fp8_e4m3_bits_to_float(0xff)));
  REQUIRE(std::isfinite(d::fp8_e4m3_bits_to_float(0x78)));  // 256: e4m3 has no infinity
}

TEST_CASE("fp8 e5m2: every bit pattern decodes as the reference formula", "[detail][fp8]") {
  check_every_pattern(d::fp8_e5m2_format, 5);
  STATIC_REQUIRE(d::fp8_e5m2_bits_to_float(0x3c) == 1.0f);
  STATIC_REQUIRE(d::fp8_e5m2_bits_to_float(0x7b) == 57344.0f);
  STATIC_REQUIRE(d::fp8_e5m2_bits_to_float(0x01) == 0x1p-16f);
  STATIC_REQUIRE(d::fp8_e5m2_bits_to_float(0x7c) == INFINITY);
  STATIC_REQUIRE(d::fp8_e5m2_bits_to_float(0xfc) == -INFINITY);
  REQUIRE(std::isnan(d::fp8_e5m2_bits_to_float(0x7d)));
  REQUIRE(std::isnan(d::fp8_e5m2_bits_to_float(0xff)));
}

TEST_CASE("float -> fp8 rounds to nearest, ties to even", "[detail][fp8]") {
  check_ties(d::fp8_e4m3_format);
  check_ties(d::fp8_e5m2_format);
  // Named cases: 1.0625 lies halfway between 1 (0x38, even) and 1.125 (0x39).
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(1.0625f) == 0x38);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(1.1875f) == 0x3a);  // between 0x39 and 0x3a: to 0x3a
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(1.125f) == 0x3c);   // between 1 and 1.25: to 1
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(1.375f) == 0x3e);   // between 1.25 and 1.5: to 1.5
}

TEST_CASE("float -> fp8 saturates, keeps NaN and the sign of zero, underflows to zero", "[detail][fp8]") {
  // e4m3: 448 is the largest; 464, its midpoint with the next (unrepresentable)
  // step, rounds to even (448); everything above, and infinity, saturate.
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(448.0f) == 0x7e);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(464.0f) == 0x7e);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(465.0f) == 0x7e);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(1e30f) == 0x7e);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(INFINITY) == 0x7e);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(-INFINITY) == 0xfe);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(-3e38f) == 0xfe);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(NAN) == 0x7f);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(-NAN) == 0x7f);
  // e5m2: 61440 (halfway to what would be infinity) and above saturate.
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(57344.0f) == 0x7b);
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(61440.0f) == 0x7b);
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(1e30f) == 0x7b);
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(INFINITY) == 0x7b);
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(-INFINITY) == 0xfb);
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(NAN) == 0x7f);
  // Zero keeps its sign; half the smallest subnormal rounds to (even) zero,
  // anything above it to the smallest subnormal; float subnormals to zero.
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(0.0f) == 0x00);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(-0.0f) == 0x80);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(0x1p-10f) == 0x00);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(0x1.000002p-10f) == 0x01);
  STATIC_REQUIRE(d::float_to_fp8_e4m3_bits(-0x1p-10f) == 0x80);
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(0x1p-17f) == 0x00);
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(0x1.000002p-17f) == 0x01);
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(1e-40f) == 0x00);
  STATIC_REQUIRE(d::float_to_fp8_e5m2_bits(-1e-40f) == 0x80);
}

#ifdef STREAMDSL_WITH_CUDA_HEADERS
TEST_CASE("float -> fp8 matches CUDA's __nv_cvt_float_to_fp8 (satfinite) over a sweep of floats",
          "[detail][fp8][cuda_headers]") {
  int wrong_e4m3 = 0, wrong_e5m2 = 0;
  std::uint64_t checked = 0;
  for (std::uint64_t b = 0; b <= 0xffffffffu; b += 127) {  // every 127th pattern, both signs, NaN and inf
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    wrong_e4m3 += d::float_to_fp8_e4m3_bits(x) != __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
    wrong_e5m2 += d::float_to_fp8_e5m2_bits(x) != __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
    ++checked;
  }
  INFO(checked << " floats");
  CHECK(wrong_e4m3 == 0);
  CHECK(wrong_e5m2 == 0);
  // And the decoder against CUDA's conversion through __half.
  int wrong_decode = 0;
  for (unsigned bits = 0; bits < 256; ++bits) {
    const auto v = static_cast<__nv_fp8_storage_t>(bits);
    const float e4 = __half2float(__half(__nv_cvt_fp8_to_halfraw(v, __NV_E4M3)));
    const float e5 = __half2float(__half(__nv_cvt_fp8_to_halfraw(v, __NV_E5M2)));
    const float m4 = d::fp8_e4m3_bits_to_float(static_cast<std::uint8_t>(bits));
    const float m5 = d::fp8_e5m2_bits_to_float(static_cast<std::uint8_t>(bits));
    wrong_decode += !(std::isnan(e4) ? std::isnan(m4)
                                     : std::bit_cast<std::uint32_t>(e4) == std::bit_cast<std::uint32_t>(m4));
    wrong_decode += !(std::isnan(e5) ? std::isnan(m5)
                                     : std::bit_cast<std::uint32_t>(e5) == std::bit_cast<std::uint32_t>(m5));
  }
  CHECK(wrong_decode == 0);
}
#endif
