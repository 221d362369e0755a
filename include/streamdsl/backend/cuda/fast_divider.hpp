#pragma once
// Division by a divisor fixed for a launch (a rank-2 kernel's row length),
// without the GPU's division routine: a 64-bit integer division is a
// software sequence of dozens of instructions with branches, paid per step of
// a bandwidth-bound kernel (and per element in a row kernel's expression);
// a multiply-high, an add and two shifts replace it. Granlund and
// Montgomery's method for unsigned N-bit dividends ("Division by Invariant
// Integers using Multiplication", 1994, Figure 4.1; Hacker's Delight 10-8),
// with N = 64: for a divisor d >= 1, l = ceil(log2 d) and
// m = floor(2^64 (2^l - d) / d) + 1, every n < 2^64 gives
// n / d = (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0), t = mulhi(m, n).
// The magic number is computed on the host when a launch is bound
// (kernel_table.hpp's bind_kernel), as CUTLASS's FastDivmod does for 32 bits.
// Plain C++ apart from the device's multiply-high: the arithmetic is tested
// with g++ (tests/backend/cuda/kernel_encoding_test.cpp).
#if defined(__CUDACC__)
#define STREAMDSL_DIVIDER_HD __host__ __device__
#else
#define STREAMDSL_DIVIDER_HD
#endif

namespace streamdsl::cuda_detail {

// The high 64 bits of the 128-bit product a * b.
STREAMDSL_DIVIDER_HD inline unsigned long long mul_high(unsigned long long a, unsigned long long b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  const unsigned long long a_lo = a & 0xffffffffull, a_hi = a >> 32;
  const unsigned long long b_lo = b & 0xffffffffull, b_hi = b >> 32;
  const unsigned long long lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  // At most 2^64 - 1: (2^32 - 1)^2 + 2 (2^32 - 1).
  const unsigned long long cross = (lo_lo >> 32) + (hi_lo & 0xffffffffull) + lo_hi;
  return hi_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

// n / d for a d fixed in advance (1 <= d < 2^63, as extents are).
struct fast_divider {
  unsigned long long magic = 1;  // the default divides by 1
  unsigned shift1 = 0, shift2 = 0;

  static constexpr fast_divider of(unsigned long long d) {
    unsigned l = 0;
    while (l < 63 && (1ull << l) < d) ++l;
    // floor(2^64 x / d) for x = 2^l - d < d, by long division (no 128-bit type).
    unsigned long long rem = (1ull << l) - d, q = 0;
    for (int bit = 0; bit < 64; ++bit) {
      rem <<= 1;  // rem < d < 2^63: no overflow
      q <<= 1;
      if (rem >= d) {
        rem -= d;
        q |= 1;
      }
    }
    fast_divider f;
    f.magic = q + 1;
    f.shift1 = l > 0 ? 1u : 0u;
    f.shift2 = l > 0 ? l - 1 : 0u;
    return f;
  }

  STREAMDSL_DIVIDER_HD unsigned long long quotient(unsigned long long n) const {
    const unsigned long long t = mul_high(magic, n);
    return (t + ((n - t) >> shift1)) >> shift2;  // t <= n: no overflow
  }
};

}  // namespace streamdsl::cuda_detail

#undef STREAMDSL_DIVIDER_HD
