#pragma once
// Element types, their names, and the promotion rules (docs/concepts.md, "Values and types"):
// buffers promote as usual, literal scalars are weak (they never widen a
// buffer's type), and 0-d values (params) sit between the two, as in PyTorch.
// Integers of every width, signed and unsigned: an unsigned type with a
// signed one of the same or a smaller width promotes to the next wider
// signed type (uint8_t + int8_t is int16_t, as in PyTorch); uint64_t has no
// wider signed type, and mixing it with a signed integer of equal strength
// is refused (PyTorch 2.x refuses it too).
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../detail/string_view.hpp"

// CUDA's 16-bit and 8-bit float types are element types under nvcc (and with
// STREAMDSL_WITH_CUDA_HEADERS under another compiler). They are only declared
// here: cuda_fp16.h, cuda_bf16.h and cuda_fp8.h cost every nvcc translation
// unit ~0.6 s (docs/benchmarks.md, "Compile time"), so a program that uses them
// includes them itself; the executors that need their definitions say so (CUDA)
// or include them (host executor).
#if defined(__CUDACC__) || defined(STREAMDSL_WITH_CUDA_HEADERS)
struct __half;
struct __nv_bfloat16;
struct __nv_fp8_e4m3;
struct __nv_fp8_e5m2;
#define STREAMDSL_HAS_HALF 1
#endif

namespace streamdsl {

// Integers in order of width, signed then unsigned; tests and the host
// executor's loop table index by the enumerator.
enum class dtype : std::uint8_t {
  boolean,
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64,
  float16,
  bfloat16,
  float8_e4m3,  // __nv_fp8_e4m3: 4 exponent bits, 3 mantissa bits, no infinity, max 448
  float8_e5m2,  // __nv_fp8_e5m2: 5 exponent bits, 2 mantissa bits, IEEE-like, max 57344
  float32,
  float64,
};
inline constexpr int dtype_count = static_cast<int>(dtype::float64) + 1;

enum class dtype_category : std::uint8_t { boolean, integral, floating };

// How strongly an operand's type takes part in promotion.
enum class strength : std::uint8_t { literal, scalar, tensor };

// One row per element type, in the enumerators' order.
struct dtype_info {
  dtype type;
  detail::string_view name;  // its C++ spelling
  std::size_t size;          // bytes
  dtype_category category;
  bool cuda_type;  // CUDA's own type: defined only by CUDA's headers (STREAMDSL_HAS_HALF)
  bool fp8;        // an 8-bit float: storage only; values convert (sd::cast), never compute
};

// clang-format off
inline constexpr dtype_info dtype_table[] = {
    // type               name              size category                   cuda   fp8
    {dtype::boolean,     "bool",            1, dtype_category::boolean,  false, false},
    {dtype::int8,        "int8_t",          1, dtype_category::integral, false, false},
    {dtype::int16,       "int16_t",         2, dtype_category::integral, false, false},
    {dtype::int32,       "int32_t",         4, dtype_category::integral, false, false},
    {dtype::int64,       "int64_t",         8, dtype_category::integral, false, false},
    {dtype::uint8,       "uint8_t",         1, dtype_category::integral, false, false},
    {dtype::uint16,      "uint16_t",        2, dtype_category::integral, false, false},
    {dtype::uint32,      "uint32_t",        4, dtype_category::integral, false, false},
    {dtype::uint64,      "uint64_t",        8, dtype_category::integral, false, false},
    {dtype::float16,     "__half",          2, dtype_category::floating, true,  false},
    {dtype::bfloat16,    "__nv_bfloat16",   2, dtype_category::floating, true,  false},
    {dtype::float8_e4m3, "__nv_fp8_e4m3",   1, dtype_category::floating, true,  true},
    {dtype::float8_e5m2, "__nv_fp8_e5m2",   1, dtype_category::floating, true,  true},
    {dtype::float32,     "float",           4, dtype_category::floating, false, false},
    {dtype::float64,     "double",          8, dtype_category::floating, false, false},
};
// clang-format on
static_assert(sizeof(dtype_table) / sizeof(dtype_table[0]) == dtype_count, "one row per dtype");

constexpr const dtype_info& info_of(dtype t) { return dtype_table[static_cast<std::size_t>(t)]; }
constexpr detail::string_view name_of(dtype t) { return info_of(t).name; }
constexpr std::size_t size_of(dtype t) { return info_of(t).size; }
constexpr dtype_category category_of(dtype t) { return info_of(t).category; }
// Whether the type is CUDA's (__half, __nv_bfloat16, the FP8 types): the host
// executor evaluates it only with CUDA's headers, a CUDA unit needs its header.
constexpr bool is_cuda_type(dtype t) { return info_of(t).cuda_type; }
// __nv_fp8_e4m3 and __nv_fp8_e5m2: sd::cast converts to and from them and
// sd::matmul multiplies them; no other operation takes them (as PyTorch).
constexpr bool is_fp8(dtype t) { return info_of(t).fp8; }

constexpr bool is_unsigned_integer(dtype t) { return t >= dtype::uint8 && t <= dtype::uint64; }
constexpr bool is_signed_integer(dtype t) { return t >= dtype::int8 && t <= dtype::int64; }

// __half and __nv_bfloat16 cannot represent each other, nor can uint64_t and
// a signed integer type (no wider signed type holds both); mixing them needs a
// cast. An FP8 type mixes with no other type (it only converts, sd::cast).
constexpr bool compatible(dtype a, dtype b) {
  if (a != b && (is_fp8(a) || is_fp8(b))) return false;
  if ((a == dtype::float16 && b == dtype::bfloat16) || (a == dtype::bfloat16 && b == dtype::float16))
    return false;
  return !((a == dtype::uint64 && is_signed_integer(b)) || (b == dtype::uint64 && is_signed_integer(a)));
}

// The signed integer type of `bytes` bytes (1, 2, 4 or 8).
constexpr dtype signed_integer_of_size(std::size_t bytes) {
  return bytes == 1 ? dtype::int8 : bytes == 2 ? dtype::int16 : bytes == 4 ? dtype::int32 : dtype::int64;
}

// Two integer types (compatible): the wider of two of one signedness; an
// unsigned type and a wider signed one: the signed one; otherwise the signed
// type of twice the unsigned one's width.
constexpr dtype promote_integers(dtype a, dtype b) {
  if (is_unsigned_integer(a) == is_unsigned_integer(b)) return size_of(a) >= size_of(b) ? a : b;
  const dtype u = is_unsigned_integer(a) ? a : b;
  const dtype s = is_unsigned_integer(a) ? b : a;
  return size_of(s) > size_of(u) ? s : signed_integer_of_size(2 * size_of(u));
}

// Floating types by precision (the 16-bit ones, which do not mix, alike).
constexpr int floating_rank(dtype t) { return t == dtype::float64 ? 2 : t == dtype::float32 ? 1 : 0; }

// Usual promotion between two operands of equal strength: the higher
// category wins (bool < integers < floating types), within one the wider
// type (integers: promote_integers). Incompatible types (which the front end
// reports) give the type a cast would go to: float for the two 16-bit
// floats (as PyTorch), int64_t for uint64_t with a signed integer.
constexpr dtype promote(dtype a, dtype b) {
  if (a == b) return a;
  if (!compatible(a, b)) return category_of(a) == dtype_category::integral ? dtype::int64 : dtype::float32;
  const auto ca = category_of(a), cb = category_of(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == dtype_category::integral) return promote_integers(a, b);
  return floating_rank(a) >= floating_rank(b) ? a : b;
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

// Whether two operands' types can combine: incompatible types can when
// they are integers and one operand is weaker (it takes the other's type;
// no promotion between them is needed).
constexpr bool combinable(typed a, typed b) {
  return compatible(a.type, b.type) ||
         (category_of(a.type) == dtype_category::integral && a.power != b.power);
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
struct dtype_traits<std::int8_t> {
  static constexpr dtype value = dtype::int8;
};
template <>
struct dtype_traits<std::int16_t> {
  static constexpr dtype value = dtype::int16;
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
struct dtype_traits<std::uint8_t> {
  static constexpr dtype value = dtype::uint8;
};
template <>
struct dtype_traits<std::uint16_t> {
  static constexpr dtype value = dtype::uint16;
};
template <>
struct dtype_traits<std::uint32_t> {
  static constexpr dtype value = dtype::uint32;
};
template <>
struct dtype_traits<std::uint64_t> {
  static constexpr dtype value = dtype::uint64;
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
template <>
struct dtype_traits<__nv_fp8_e4m3> {
  static constexpr dtype value = dtype::float8_e4m3;
};
template <>
struct dtype_traits<__nv_fp8_e5m2> {
  static constexpr dtype value = dtype::float8_e5m2;
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
struct fp8_e4m3_unavailable;
struct fp8_e5m2_unavailable;
template <dtype D>
struct type_of_impl;
template <>
struct type_of_impl<dtype::boolean> {
  using type = bool;
};
template <>
struct type_of_impl<dtype::int8> {
  using type = std::int8_t;
};
template <>
struct type_of_impl<dtype::int16> {
  using type = std::int16_t;
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
struct type_of_impl<dtype::uint8> {
  using type = std::uint8_t;
};
template <>
struct type_of_impl<dtype::uint16> {
  using type = std::uint16_t;
};
template <>
struct type_of_impl<dtype::uint32> {
  using type = std::uint32_t;
};
template <>
struct type_of_impl<dtype::uint64> {
  using type = std::uint64_t;
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
template <>
struct type_of_impl<dtype::float8_e4m3> {
  using type = __nv_fp8_e4m3;
};
template <>
struct type_of_impl<dtype::float8_e5m2> {
  using type = __nv_fp8_e5m2;
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
template <>
struct type_of_impl<dtype::float8_e4m3> {
  using type = fp8_e4m3_unavailable;
};
template <>
struct type_of_impl<dtype::float8_e5m2> {
  using type = fp8_e5m2_unavailable;
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
