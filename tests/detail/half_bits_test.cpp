// detail::half_bits_to_float / bfloat16_bits_to_float against an independent
// formula, for every one of the 65536 bit patterns.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <streamdsl/detail/half_bits.hpp>

using streamdsl::detail::bfloat16_bits_to_float;
using streamdsl::detail::half_bits_to_float;

namespace {
// (-1)^s * 2^(e - 15) * (1 + m / 1024), subnormals 2^-14 * (m / 1024).
double half_reference(unsigned bits) {
  const int s = (bits >> 15) & 1, e = (bits >> 10) & 0x1f, m = bits & 0x3ff;
  const double sign = s ? -1.0 : 1.0;
  if (e == 0x1f) return m == 0 ? sign * INFINITY : NAN;
  if (e == 0) return sign * std::ldexp(m / 1024.0, -14);
  return sign * std::ldexp(1.0 + m / 1024.0, e - 15);
}
}  // namespace

TEST_CASE("half_bits_to_float: known values", "[detail][half]") {
  STATIC_REQUIRE(half_bits_to_float(0x3c00) == 1.0f);
  STATIC_REQUIRE(half_bits_to_float(0xc000) == -2.0f);
  STATIC_REQUIRE(half_bits_to_float(0x7bff) == 65504.0f);
  STATIC_REQUIRE(half_bits_to_float(0x0001) == 0x1p-24f);      // smallest subnormal
  STATIC_REQUIRE(half_bits_to_float(0x03ff) == 0x1.ff8p-15f);  // largest subnormal
  STATIC_REQUIRE(half_bits_to_float(0x7c00) == INFINITY);
  STATIC_REQUIRE(bfloat16_bits_to_float(0x3f80) == 1.0f);
  STATIC_REQUIRE(bfloat16_bits_to_float(0xc0a0) == -5.0f);
  REQUIRE(std::signbit(half_bits_to_float(0x8000)));
  REQUIRE(half_bits_to_float(0x8000) == 0.0f);
  REQUIRE(std::isnan(half_bits_to_float(0x7e00)));
  REQUIRE(std::isnan(bfloat16_bits_to_float(0x7fc0)));
}

TEST_CASE("half_bits_to_float: every bit pattern", "[detail][half]") {
  int mismatches = 0;
  for (unsigned bits = 0; bits < 65536; ++bits) {
    const float got = half_bits_to_float(static_cast<std::uint16_t>(bits));
    const double want = half_reference(bits);
    const bool same =
        std::isnan(want) ? std::isnan(got) : (got == want && std::signbit(got) == std::signbit(want));
    mismatches += same ? 0 : 1;
  }
  REQUIRE(mismatches == 0);
}

TEST_CASE("bfloat16_bits_to_float: the top half of a float", "[detail][half]") {
  int mismatches = 0;
  for (unsigned bits = 0; bits < 65536; ++bits) {
    const std::uint32_t wide = bits << 16;
    float want;
    std::memcpy(&want, &wide, 4);
    const float got = bfloat16_bits_to_float(static_cast<std::uint16_t>(bits));
    mismatches += std::memcmp(&got, &want, 4) == 0 ? 0 : 1;
  }
  REQUIRE(mismatches == 0);
}
