#pragma once
// The value of an __nv_fp8_e4m3 or __nv_fp8_e5m2 from its bits, and the bits
// of a float rounded to one, without CUDA's cuda_fp8.h (which streamdsl does
// not include: see ir/dtype.hpp). Decoding is exact (every FP8 value is a
// float). Encoding rounds as CUDA's __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...)
// and the constructors __nv_fp8_e4m3(float) / __nv_fp8_e5m2(float) do (PTX
// cvt.rn.satfinite on sm_89 and later): to nearest, ties to even; a finite
// value beyond the largest finite one, and an infinity, saturate to it with
// their sign; NaN becomes 0x7f; the sign of zero is kept.
#include <bit>
#include <cstdint>

namespace streamdsl::detail {

struct fp8_format {
  int mantissa_bits;
  int bias;
  std::uint8_t max_finite;  // the largest finite value's bits (positive)
  bool ieee_specials;       // e5m2: an all-ones exponent is inf (mantissa 0) or NaN; e4m3: only 0x7f is NaN
};
// 4 exponent bits, 3 mantissa bits, bias 7: max 448, min subnormal 2^-9, no infinity.
inline constexpr fp8_format fp8_e4m3_format{3, 7, 0x7e, false};
// 5 exponent bits, 2 mantissa bits, bias 15: max 57344, min subnormal 2^-16.
inline constexpr fp8_format fp8_e5m2_format{2, 15, 0x7b, true};

constexpr float fp8_bits_to_float(std::uint8_t v, fp8_format f) {
  const std::uint32_t sign = static_cast<std::uint32_t>(v >> 7) << 31;
  const int m = f.mantissa_bits;
  const std::uint32_t magnitude = v & 0x7fu;
  const std::uint32_t exponent = magnitude >> m;
  const std::uint32_t mantissa = magnitude & ((1u << m) - 1);
  const std::uint32_t all_ones = (0x7fu >> m);
  if (!f.ieee_specials && magnitude == 0x7f) return std::bit_cast<float>(0x7fc00000u);  // NaN
  if (f.ieee_specials && exponent == all_ones)
    return std::bit_cast<float>(mantissa == 0 ? (sign | 0x7f800000u) : 0x7fc00000u);  // inf, NaN
  if (exponent == 0) {
    // mantissa * 2^(1 - bias - m): an exact product by a normal power of two.
    const float quantum = std::bit_cast<float>(static_cast<std::uint32_t>(127 + 1 - f.bias - m) << 23);
    const float value = static_cast<float>(mantissa) * quantum;
    return std::bit_cast<float>(sign | std::bit_cast<std::uint32_t>(value));
  }
  return std::bit_cast<float>(sign | (exponent - f.bias + 127) << 23 | mantissa << (23 - m));
}

constexpr std::uint8_t float_to_fp8_bits(float x, fp8_format f) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const std::uint8_t sign = static_cast<std::uint8_t>((bits >> 31) << 7);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return 0x7f;                  // NaN (its sign dropped, as CUDA)
  if (magnitude == 0x7f800000u) return sign | f.max_finite;  // inf saturates
  const int m = f.mantissa_bits;
  const int emin = 1 - f.bias;  // the smallest normal FP8 exponent
  // magnitude = s * 2^(e - 23), s of 24 bits (float subnormals: 23 and e = -126).
  const int biased = static_cast<int>(magnitude >> 23);
  const int e = biased == 0 ? -126 : biased - 127;
  const std::uint32_t s = (magnitude & 0x7fffffu) | (biased == 0 ? 0u : 0x800000u);
  // The FP8 quantum at this magnitude is 2^(max(e, emin) - m): drop `shift` bits of s.
  const int shift = (e > emin ? e : emin) - m - (e - 23);
  std::uint32_t r = 0;
  if (shift < 32) {
    r = s >> shift;
    const std::uint32_t rest = s & ((1u << shift) - 1);
    const std::uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (r & 1))) ++r;
  }
  // r quanta: a subnormal's bits are r; a normal's exponent field counts on
  // from there (a carry out of the mantissa moves to the next exponent).
  const std::uint32_t code = e < emin ? r : (static_cast<std::uint32_t>(e + f.bias) << m) + r - (1u << m);
  return static_cast<std::uint8_t>(sign | (code > f.max_finite ? f.max_finite : code));
}

constexpr float fp8_e4m3_bits_to_float(std::uint8_t v) { return fp8_bits_to_float(v, fp8_e4m3_format); }
constexpr float fp8_e5m2_bits_to_float(std::uint8_t v) { return fp8_bits_to_float(v, fp8_e5m2_format); }
constexpr std::uint8_t float_to_fp8_e4m3_bits(float x) { return float_to_fp8_bits(x, fp8_e4m3_format); }
constexpr std::uint8_t float_to_fp8_e5m2_bits(float x) { return float_to_fp8_bits(x, fp8_e5m2_format); }

}  // namespace streamdsl::detail
