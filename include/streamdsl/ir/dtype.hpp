#pragma once
// Element types, their names, and the promotion rules (docs/concepts.md, "Values and types"):
// buffers promote as usual, literal scalars are weak (they never widen a
// buffer's type), and 0-d values (params) sit between the two, as in PyTorch.
#include <cstdint>
#include <type_traits>

#include "../detail/string_view.hpp"

// CUDA's 16-bit float types are element types under nvcc (and with
// STREAMDSL_WITH_CUDA_HEADERS under another compiler). They are only declared
// here: cuda_fp16.h and cuda_bf16.h cost every nvcc translation unit ~0.6 s
// (docs/benchmarks.md, "Compile time"), so a program that uses them includes
// them itself; the executors that need their definitions say so (CUDA) or
// include them (host executor).
#if defined(__CUDACC__) || defined(STREAMDSL_WITH_CUDA_HEADERS)
struct __half;
struct __nv_bfloat16;
#define STREAMDSL_HAS_HALF 1
#endif

namespace streamdsl {

enum class dtype : std::uint8_t { boolean, int32, int64, float16, bfloat16, float32, float64 };

enum class dtype_category : std::uint8_t { boolean, integral, floating };

// How strongly an operand's type takes part in promotion.
enum class strength : std::uint8_t { literal, scalar, tensor };

constexpr detail::string_view name_of(dtype t) {
  switch (t) {
    case dtype::boolean: return "bool";
    case dtype::int32: return "int32_t";
    case dtype::int64: return "int64_t";
    case dtype::float16: return "__half";
    case dtype::bfloat16: return "__nv_bfloat16";
    case dtype::float32: return "float";
    case dtype::float64: return "double";
  }
  return "?";
}

constexpr std::size_t size_of(dtype t) {
  switch (t) {
    case dtype::boolean: return 1;
    case dtype::float16:
    case dtype::bfloat16: return 2;
    case dtype::int32:
    case dtype::float32: return 4;
    case dtype::int64:
    case dtype::float64: return 8;
  }
  return 0;
}

constexpr dtype_category category_of(dtype t) {
  switch (t) {
    case dtype::boolean: return dtype_category::boolean;
    case dtype::int32:
    case dtype::int64: return dtype_category::integral;
    default: return dtype_category::floating;
  }
}

// __half and __nv_bfloat16 cannot represent each other; mixing them needs a cast.
constexpr bool compatible(dtype a, dtype b) {
  return !((a == dtype::float16 && b == dtype::bfloat16) || (a == dtype::bfloat16 && b == dtype::float16));
}

constexpr int rank_of(dtype t) {
  switch (t) {
    case dtype::boolean: return 0;
    case dtype::int32: return 1;
    case dtype::int64: return 2;
    case dtype::float16:
    case dtype::bfloat16: return 3;
    case dtype::float32: return 4;
    case dtype::float64: return 5;
  }
  return 0;
}

// Usual promotion between two operands of equal strength.
constexpr dtype promote(dtype a, dtype b) {
  if (a == b) return a;
  if (!compatible(a, b)) return dtype::float32;
  return rank_of(a) >= rank_of(b) ? a : b;
}

struct typed {
  dtype type;
  strength power;
  friend constexpr bool operator==(typed, typed) = default;
};

constexpr dtype default_of(dtype_category c) {
  return c == dtype_category::floating ? dtype::float32
                                       : (c == dtype_category::integral ? dtype::int64 : dtype::boolean);
}

// Result type of a binary elementwise operation.
constexpr typed combine(typed a, typed b) {
  const auto strongest = a.power > b.power ? a.power : b.power;
  const auto ca = category_of(a.type), cb = category_of(b.type);
  if (ca == cb) {
    if (a.power == b.power) return {promote(a.type, b.type), strongest};
    return {a.power > b.power ? a.type : b.type, strongest};
  }
  const typed hi = ca > cb ? a : b;
  const typed lo = ca > cb ? b : a;
  if (hi.power >= lo.power) return {hi.type, strongest};
  // A weaker operand of a higher category: a literal takes the category's
  // default type (int32 buffer * 2.5 is float), a 0-d value keeps its own.
  if (hi.power == strength::literal) return {default_of(category_of(hi.type)), strongest};
  return {hi.type, strongest};
}

// Whether a value of type `from` may be stored in a buffer of type `to`
// without an explicit sd::cast.
constexpr bool assignable(dtype to, dtype from) { return compatible(to, from) && promote(to, from) == to; }

template <class T>
struct dtype_traits;
template <>
struct dtype_traits<bool> {
  static constexpr dtype value = dtype::boolean;
};
template <>
struct dtype_traits<std::int32_t> {
  static constexpr dtype value = dtype::int32;
};
template <>
struct dtype_traits<std::int64_t> {
  static constexpr dtype value = dtype::int64;
};
template <>
struct dtype_traits<float> {
  static constexpr dtype value = dtype::float32;
};
template <>
struct dtype_traits<double> {
  static constexpr dtype value = dtype::float64;
};
#ifdef STREAMDSL_HAS_HALF
template <>
struct dtype_traits<__half> {
  static constexpr dtype value = dtype::float16;
};
template <>
struct dtype_traits<__nv_bfloat16> {
  static constexpr dtype value = dtype::bfloat16;
};
#endif

template <class T>
concept element_type = requires {
  dtype_traits<std::remove_cv_t<T>>::value;
};

template <class T>
inline constexpr dtype dtype_v = dtype_traits<std::remove_cv_t<T>>::value;

namespace detail {
struct half_unavailable;  // __half without CUDA headers
struct bfloat16_unavailable;
template <dtype D>
struct type_of_impl;
template <>
struct type_of_impl<dtype::boolean> {
  using type = bool;
};
template <>
struct type_of_impl<dtype::int32> {
  using type = std::int32_t;
};
template <>
struct type_of_impl<dtype::int64> {
  using type = std::int64_t;
};
template <>
struct type_of_impl<dtype::float32> {
  using type = float;
};
template <>
struct type_of_impl<dtype::float64> {
  using type = double;
};
#ifdef STREAMDSL_HAS_HALF
template <>
struct type_of_impl<dtype::float16> {
  using type = __half;
};
template <>
struct type_of_impl<dtype::bfloat16> {
  using type = __nv_bfloat16;
};
#else
template <>
struct type_of_impl<dtype::float16> {
  using type = half_unavailable;
};
template <>
struct type_of_impl<dtype::bfloat16> {
  using type = bfloat16_unavailable;
};
#endif
}  // namespace detail

template <dtype D>
using type_of = typename detail::type_of_impl<D>::type;

// C++ type of a literal scalar in an expression.
template <class T>
concept literal_scalar = std::is_arithmetic_v<T>;

template <literal_scalar T>
constexpr dtype literal_dtype() {
  if constexpr (std::is_same_v<T, bool>)
    return dtype::boolean;
  else if constexpr (std::is_floating_point_v<T>)
    return sizeof(T) <= 4 ? dtype::float32 : dtype::float64;
  else
    return sizeof(T) <= 4 ? dtype::int32 : dtype::int64;
}

}  // namespace streamdsl
