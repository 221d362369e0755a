#pragma once
// The meaning of each elementwise operation on one element, shared by every
// backend and by the test reference, so they agree bit for bit on integer
// and conversion edge cases (which C++ leaves undefined):
// - integer +, -, *, unary minus and abs wrap around (two's complement);
// - integer division by zero gives 0, and INT_MIN / -1 wraps to INT_MIN;
// - float -> integer conversion truncates toward zero, saturates at the
//   type's range and maps NaN to 0 (what CUDA's cvt.rzi does);
// - min and max of floats ignore a NaN operand (fmin/fmax), and order -0
//   below +0 (max(-0, +0) = +0, min(-0, +0) = -0, as IEEE 754-2019's
//   maximumNumber and minimumNumber; fmax leaves the sign of a zero result
//   unspecified, and the host's and the GPU's differ);
// - __half and __nv_bfloat16 compute in float and round the result;
// - + - * / of float and double round each operation (no fma contraction),
//   so the GPU matches the host bit for bit; transcendental functions differ
//   between host and device libraries by a few ulps.
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

template <class T>
STREAMDSL_HD constexpr T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <class T>
STREAMDSL_HD constexpr T wrap_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <class T>
STREAMDSL_HD constexpr T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

// Unary operation in type T (the node's compute type, already math_t).
template <class T>
STREAMDSL_HD T unary(ir::op code, T a) {
  if constexpr (std::is_same_v<T, bool>) {
    return code == ir::op::logical_not ? !a : a;  // abs, relu of bool: unchanged
  } else if constexpr (std::is_integral_v<T>) {
    switch (code) {
      case ir::op::neg: return wrap_sub(T(0), a);
      case ir::op::abs: return a < 0 ? wrap_sub(T(0), a) : a;
      case ir::op::relu: return a < 0 ? T(0) : a;
      default: return a;  // cast: conversion already done
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
    return code == ir::op::min ? (a && b) : (a || b);  // only min/max reach bool
  } else if constexpr (std::is_integral_v<T>) {
    switch (code) {
      case ir::op::add: return wrap_add(a, b);
      case ir::op::sub: return wrap_sub(a, b);
      case ir::op::mul: return wrap_mul(a, b);
      case ir::op::div:
        if (b == 0) return T(0);
        if (b == T(-1)) return wrap_sub(T(0), a);
        return a / b;
      case ir::op::min: return b < a ? b : a;
      case ir::op::max: return a < b ? b : a;
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
      default: return a;
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
