#pragma once
// The value of a __half or __nv_bfloat16 from its bits, without CUDA's
// cuda_fp16.h / cuda_bf16.h (which streamdsl does not include: see
// ir/dtype.hpp). Exact: every 16-bit float is a float.
#include <bit>
#include <cstdint>

namespace streamdsl::detail {

// IEEE binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
constexpr float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h >> 15) << 31;
  std::uint32_t exponent = (h >> 10) & 0x1f;
  std::uint32_t mantissa = h & 0x3ff;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | mantissa << 13);  // inf, nan
  if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);  // +-0
    exponent = 127 - 15 + 1;                               // a subnormal: normalise it
    while ((mantissa & 0x400) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    return std::bit_cast<float>(sign | exponent << 23 | (mantissa & 0x3ff) << 13);
  }
  return std::bit_cast<float>(sign | (exponent + 127 - 15) << 23 | mantissa << 13);
}

// bfloat16: the top half of a float.
constexpr float bfloat16_bits_to_float(std::uint16_t b) {
  return std::bit_cast<float>(std::uint32_t{b} << 16);
}

}  // namespace streamdsl::detail
