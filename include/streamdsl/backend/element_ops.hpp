#pragma once
// The meaning of each elementwise operation on one element, shared by every
// backend and by the test reference, so they agree bit for bit on integer
// and conversion edge cases (which C++ leaves undefined):
// - integer +, -, *, unary minus and abs wrap around (two's complement);
// - integer division by zero gives 0, and INT_MIN / -1 wraps to INT_MIN;
// - integer % (and sd::fmod of integers) is C++'s truncated remainder (the
//   sign of the dividend; PyTorch's % of integers takes the divisor's sign),
//   x % 0 gives 0 and INT_MIN % -1 gives 0, as the division's rules;
// - sd::pow of integers multiplies (wrapping) by repeated squaring; a
//   negative exponent gives 1 for a base of 1, +-1 for -1 and 0 otherwise
//   (PyTorch's rule for integer tensors);
// - shifts: a << b and a >> b with 0 <= b < the width of the compute type
//   are C++'s (<< in unsigned arithmetic, so it wraps; >> of a negative
//   value is arithmetic, as C++20 defines it); with b < 0 or b >= the
//   width, which C++ leaves undefined, a << b is 0 and a >> b is what an
//   endless shift gives: -1 for a negative a, else 0 (PyTorch's rule);
// - ~ of an integer flips its bits; ~, &, |, ^ of bools are logical (!, &&,
//   ||, !=), as in PyTorch;
// - floor, ceil and round of an integer are the integer; round of a float
//   rounds half to even (2.5 -> 2, as PyTorch and rint);
// - float -> integer conversion truncates toward zero, saturates at the
//   type's range and maps NaN to 0 (what CUDA's cvt.rzi does);
// - min and max of floats ignore a NaN operand (fmin/fmax), and order -0
//   below +0 (max(-0, +0) = +0, min(-0, +0) = -0, as IEEE 754-2019's
//   maximumNumber and minimumNumber; fmax leaves the sign of a zero result
//   unspecified, and the host's and the GPU's differ);
// - __half and __nv_bfloat16 compute in float and round the result;
// - + - * / of float and double round each operation (no fma contraction),
//   so the GPU matches the host bit for bit; transcendental functions differ
//   between host and device libraries by a few ulps (exp, log, sin, cos,
//   tanh, sigmoid, erf, gelu, gelu_tanh, exp2, log1p, pow: the bounds are in
//   docs/concepts.md, "Values and types"); floor, ceil, round and fmod are
//   exact, so they match bit for bit.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../ir/expr_node.hpp"

#if defined(__CUDACC__)
#define STREAMDSL_HD __host__ __device__
#else
#define STREAMDSL_HD
#endif

namespace streamdsl::detail::element {

template <class T>
inline constexpr bool is_half_like_v = !std::is_arithmetic_v<T>;  // __half, __nv_bfloat16

// The type arithmetic is done in: float for the 16-bit float types.
template <class T>
using math_t = std::conditional_t<is_half_like_v<T>, float, T>;

template <class To, class From>
STREAMDSL_HD constexpr To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_half_like_v<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (is_half_like_v<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (v != v) return To(0);
    constexpr auto lo = std::numeric_limits<To>::min();
    constexpr auto hi = std::numeric_limits<To>::max();
    if (v <= static_cast<From>(lo)) return lo;
    if (v >= static_cast<From>(hi)) return hi;
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);  // widening, int -> float, or integer narrowing (wraps)
  }
}

// Integer arithmetic that wraps: done in an unsigned type at least as wide
// as unsigned int (8- and 16-bit operands would otherwise promote to int,
// where a product can overflow).
template <class T>
using wrap_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T>
STREAMDSL_HD constexpr T wrap_add(T a, T b) {
  using U = wrap_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <class T>
STREAMDSL_HD constexpr T wrap_sub(T a, T b) {
  using U = wrap_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <class T>
STREAMDSL_HD constexpr T wrap_mul(T a, T b) {
  using U = wrap_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

template <class T>
STREAMDSL_HD constexpr bool is_negative(T a) {
  if constexpr (std::is_signed_v<T>)
    return a < T(0);
  else
    return false;
}

// Integer division and remainder: x / 0 and x % 0 are 0; INT_MIN / -1
// wraps, INT_MIN % -1 is 0 (C++ leaves all four undefined).
template <class T>
STREAMDSL_HD constexpr T wrap_div(T a, T b) {
  if (b == T(0)) return T(0);
  if constexpr (std::is_signed_v<T>)
    if (b == T(-1)) return wrap_sub(T(0), a);
  return static_cast<T>(a / b);
}
template <class T>
STREAMDSL_HD constexpr T wrap_rem(T a, T b) {
  if (b == T(0)) return T(0);
  if constexpr (std::is_signed_v<T>)
    if (b == T(-1)) return T(0);
  return static_cast<T>(a % b);
}

// a to the power b by repeated squaring, wrapping; negative exponents as
// PyTorch's integer pow.
template <class T>
STREAMDSL_HD constexpr T wrap_pow(T base, T exponent) {
  if (is_negative(exponent)) {
    if (base == T(1)) return T(1);
    if (is_negative(base) && base == T(-1)) return (exponent & T(1)) != T(0) ? T(-1) : T(1);
    return T(0);
  }
  using U = wrap_t<T>;
  U result = 1, b = static_cast<U>(base), e = static_cast<U>(exponent);
  while (e != 0) {
    if ((e & 1u) != 0) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
    e >>= 1;
  }
  return static_cast<T>(result);
}

// Shifts by b outside [0, width) are defined (see the header comment).
template <class T>
STREAMDSL_HD constexpr bool shift_out_of_range(T b) {
  return is_negative(b) || static_cast<wrap_t<T>>(b) >= sizeof(T) * 8;
}
template <class T>
STREAMDSL_HD constexpr T shift_left(T a, T b) {
  if (shift_out_of_range(b)) return T(0);
  return static_cast<T>(static_cast<wrap_t<T>>(a) << static_cast<int>(b));
}
template <class T>
STREAMDSL_HD constexpr T shift_right(T a, T b) {
  if (shift_out_of_range(b)) return is_negative(a) ? T(-1) : T(0);
  return static_cast<T>(a >> static_cast<int>(b));
}

// Unary operation in type T (the node's compute type, already math_t).
template <class T>
STREAMDSL_HD T unary(ir::op code, T a) {
  if constexpr (std::is_same_v<T, bool>) {
    // ! and ~ negate; abs, relu, floor, ceil, round of a bool are the bool itself
    return code == ir::op::logical_not || code == ir::op::bit_not ? !a : a;
  } else if constexpr (std::is_integral_v<T>) {
    switch (code) {
      case ir::op::neg: return wrap_sub(T(0), a);
      case ir::op::abs: return is_negative(a) ? wrap_sub(T(0), a) : a;
      case ir::op::relu: return is_negative(a) ? T(0) : a;
      case ir::op::bit_not: return static_cast<T>(~a);
      default: return a;  // floor, ceil, round: the integer itself; cast: conversion already done
    }
  } else {
    switch (code) {
      case ir::op::neg: return -a;
      case ir::op::abs: return std::fabs(a);
      case ir::op::exp: return std::exp(a);
      case ir::op::log: return std::log(a);
      case ir::op::sqrt: return std::sqrt(a);
      case ir::op::rsqrt: return T(1) / std::sqrt(a);
      case ir::op::sin: return std::sin(a);
      case ir::op::cos: return std::cos(a);
      case ir::op::tanh: return std::tanh(a);
      case ir::op::sigmoid: return T(1) / (T(1) + std::exp(-a));
      case ir::op::relu: return a > T(0) ? a : T(0);  // relu(NaN) = 0, relu(-0) = 0
      case ir::op::floor: return std::floor(a);
      case ir::op::ceil: return std::ceil(a);
      case ir::op::round: return std::rint(a);  // half to even in the default rounding mode
      case ir::op::erf: return std::erf(a);
      case ir::op::gelu: return T(0.5) * a * (T(1) + std::erf(a * T(0.70710678118654752440)));  // x / sqrt(2)
      case ir::op::gelu_tanh: {  // sqrt(2 / pi) (x + 0.044715 x^3), as cuBLASLt's GELU epilogue
        const T inner = T(0.79788456080286535588) * (a + T(0.044715) * a * a * a);
        return T(0.5) * a * (T(1) + std::tanh(inner));
      }
      case ir::op::exp2: return std::exp2(a);
      case ir::op::log1p: return std::log1p(a);
      default: return a;
    }
  }
}

// min and max of floats: a NaN operand is ignored, -0 is below +0.
template <class T>
STREAMDSL_HD T float_min(T a, T b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return b < a ? b : a;
}
template <class T>
STREAMDSL_HD T float_max(T a, T b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a < b ? b : a;
}

// Arithmetic and min/max in type T.
template <class T>
STREAMDSL_HD T arithmetic(ir::op code, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (code) {  // only min/max and the bitwise operators reach bool
      case ir::op::min:
      case ir::op::bit_and: return a && b;
      case ir::op::bit_xor: return a != b;
      default: return a || b;
    }
  } else if constexpr (std::is_integral_v<T>) {
    switch (code) {
      case ir::op::add: return wrap_add(a, b);
      case ir::op::sub: return wrap_sub(a, b);
      case ir::op::mul: return wrap_mul(a, b);
      case ir::op::div: return wrap_div(a, b);
      case ir::op::mod:
      case ir::op::fmod: return wrap_rem(a, b);
      case ir::op::pow: return wrap_pow(a, b);
      case ir::op::min: return b < a ? b : a;
      case ir::op::max: return a < b ? b : a;
      case ir::op::bit_and: return static_cast<T>(a & b);
      case ir::op::bit_or: return static_cast<T>(a | b);
      case ir::op::bit_xor: return static_cast<T>(a ^ b);
      case ir::op::shl: return shift_left(a, b);
      case ir::op::shr: return shift_right(a, b);
      default: return a;
    }
  } else {
#if defined(__CUDA_ARCH__)
    // Round each operation on its own: nvcc would otherwise contract a * b + c
    // into one fma and results would differ from the host's in the last bit.
    // min and max: the GPU's min/max instructions already ignore a NaN and
    // order -0 below +0, in one instruction (the host spells it out below).
    if constexpr (std::is_same_v<T, float>) {
      switch (code) {
        case ir::op::add: return __fadd_rn(a, b);
        case ir::op::sub: return __fsub_rn(a, b);
        case ir::op::mul: return __fmul_rn(a, b);
        case ir::op::min: return fminf(a, b);
        case ir::op::max: return fmaxf(a, b);
        default: break;
      }
    } else if constexpr (std::is_same_v<T, double>) {
      switch (code) {
        case ir::op::add: return __dadd_rn(a, b);
        case ir::op::sub: return __dsub_rn(a, b);
        case ir::op::mul: return __dmul_rn(a, b);
        case ir::op::min: return fmin(a, b);
        case ir::op::max: return fmax(a, b);
        default: break;
      }
    }
#endif
    switch (code) {
      case ir::op::add: return a + b;
      case ir::op::sub: return a - b;
      case ir::op::mul: return a * b;
      case ir::op::div: return a / b;
      case ir::op::min: return float_min(a, b);
      case ir::op::max: return float_max(a, b);
      case ir::op::mod:  // % of floats is refused by the front end: sd::fmod
      case ir::op::fmod: return std::fmod(a, b);
      case ir::op::pow: return std::pow(a, b);
      default: return a;  // the bitwise operators never reach floats
    }
  }
}

// Comparisons and logical operators, operands in type T.
template <class T>
STREAMDSL_HD bool predicate(ir::op code, T a, T b) {
  switch (code) {
    case ir::op::lt: return a < b;
    case ir::op::le: return a <= b;
    case ir::op::gt: return a > b;
    case ir::op::ge: return a >= b;
    case ir::op::eq: return a == b;
    case ir::op::ne: return a != b;
    case ir::op::logical_and: return static_cast<bool>(a) && static_cast<bool>(b);
    case ir::op::logical_or: return static_cast<bool>(a) || static_cast<bool>(b);
    default: return false;
  }
}

}  // namespace streamdsl::detail::element
