#pragma once
// The host executor's inner loops: one small function per (operation, element
// type), each running one operation over one block of elements with the
// per-element meaning of backend/element_ops.hpp. A kernel is a list of
// instructions that point at these functions, so evaluating a block costs
// one indirect call per expression node, not one per element.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "../../ir/dtype.hpp"
#ifdef STREAMDSL_HAS_HALF  // the host executor computes with them: it needs their definitions
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#endif

#include "../../detail/text.hpp"
#include "../../diag/error.hpp"
#include "../../ir/dtype.hpp"
#include "../../ir/expr_node.hpp"
#include "../element_ops.hpp"

namespace streamdsl::host_detail {

// Elements per block: small enough that a kernel's live columns stay in the
// L1/L2 cache, large enough that the per-instruction call is amortised.
inline constexpr std::size_t block_elements = 512;
inline constexpr std::size_t column_bytes = block_elements * 8;  // widest element: 8 bytes

// Where an instruction's operand lives for the block being evaluated: a
// column of the thread's scratch, or a caller or workspace buffer (element 0
// at `base`; the block starts at element `start`).
struct operand {
  bool in_memory = false;
  dtype type = dtype::float32;
  std::int32_t column = -1;
  std::byte* base = nullptr;

  friend bool operator==(const operand&, const operand&) = default;
};

struct block {
  std::byte* scratch;
  std::size_t start;  // first element of the block in the kernel's domain
  std::size_t count;  // elements in this block (<= block_elements)
};

struct instruction;
using loop_fn = void (*)(const instruction&, const block&);

struct instruction {
  loop_fn run = nullptr;
  ir::op code = ir::op::literal;  // for the loops that take the operation at run time
  operand out, a, b, c;
  alignas(8) unsigned char value[8]{};  // fill: the constant, as bytes of out.type
};

template <class T>
inline T* at(const operand& o, const block& blk) {
  if (o.in_memory) return reinterpret_cast<T*>(o.base) + blk.start;
  return reinterpret_cast<T*>(blk.scratch + static_cast<std::size_t>(o.column) * column_bytes);
}

namespace element = detail::element;

// --- leaves ------------------------------------------------------------------
template <class T>
void fill_loop(const instruction& in, const block& blk) {
  T v;
  std::memcpy(&v, in.value, sizeof(T));
  T* out = at<T>(in.out, blk);
  for (std::size_t i = 0; i < blk.count; ++i) out[i] = v;
}

// A 0-d buffer read in a kernel over a domain: its one element, broadcast.
template <class T>
void broadcast_loop(const instruction& in, const block& blk) {
  const T v = *reinterpret_cast<const T*>(in.a.base);
  T* out = at<T>(in.out, blk);
  for (std::size_t i = 0; i < blk.count; ++i) out[i] = v;
}

// A row or column of a rank-2 shape read in a kernel over it (ir/shape.hpp):
// element k of the kernel reads element k % cols (a row, Row) or k / cols (a
// column) of the vector; `value` holds cols. Counted, not divided, per element.
template <class T, bool Row>
void gather_loop(const instruction& in, const block& blk) {
  std::size_t cols;
  std::memcpy(&cols, in.value, sizeof cols);
  const T* a = reinterpret_cast<const T*>(in.a.base);
  T* out = at<T>(in.out, blk);
  std::size_t row = blk.start / cols, col = blk.start % cols;  // a block has elements, so cols > 0
  for (std::size_t i = 0; i < blk.count; ++i) {
    out[i] = a[Row ? col : row];
    if (++col == cols) {
      col = 0;
      ++row;
    }
  }
}

template <class To, class From>
void convert_loop(const instruction& in, const block& blk) {
  const From* a = at<From>(in.a, blk);
  To* out = at<To>(in.out, blk);
  for (std::size_t i = 0; i < blk.count; ++i) out[i] = element::convert<To>(a[i]);
}

// --- operations in type T (the node's compute type) ---------------------------
// The 16-bit float types compute in float and round the result (math_t).
template <ir::op Code, class T>
void unary_loop(const instruction& in, const block& blk) {
  using M = element::math_t<T>;
  const T* a = at<T>(in.a, blk);
  T* out = at<T>(in.out, blk);
  for (std::size_t i = 0; i < blk.count; ++i)
    out[i] = element::convert<T>(element::unary<M>(Code, element::convert<M>(a[i])));
}

template <ir::op Code, class T>
void arithmetic_loop(const instruction& in, const block& blk) {
  using M = element::math_t<T>;
  const T* a = at<T>(in.a, blk);
  const T* b = at<T>(in.b, blk);
  T* out = at<T>(in.out, blk);
  for (std::size_t i = 0; i < blk.count; ++i)
    out[i] = element::convert<T>(
        element::arithmetic<M>(Code, element::convert<M>(a[i]), element::convert<M>(b[i])));
}

template <ir::op Code, class T>
void predicate_loop(const instruction& in, const block& blk) {
  using M = element::math_t<T>;
  const T* a = at<T>(in.a, blk);
  const T* b = at<T>(in.b, blk);
  bool* out = at<bool>(in.out, blk);
  for (std::size_t i = 0; i < blk.count; ++i)
    out[i] = element::predicate<M>(Code, element::convert<M>(a[i]), element::convert<M>(b[i]));
}

// Combinations the front end never produces (exp computed in int32_t, %
// in float: plans built by hand) still evaluate correctly, with the
// operation chosen per element.
template <class T>
void unary_any_loop(const instruction& in, const block& blk) {
  using M = element::math_t<T>;
  const T* a = at<T>(in.a, blk);
  T* out = at<T>(in.out, blk);
  for (std::size_t i = 0; i < blk.count; ++i)
    out[i] = element::convert<T>(element::unary<M>(in.code, element::convert<M>(a[i])));
}

template <class T>
void arithmetic_any_loop(const instruction& in, const block& blk) {
  using M = element::math_t<T>;
  const T* a = at<T>(in.a, blk);
  const T* b = at<T>(in.b, blk);
  T* out = at<T>(in.out, blk);
  for (std::size_t i = 0; i < blk.count; ++i)
    out[i] = element::convert<T>(
        element::arithmetic<M>(in.code, element::convert<M>(a[i]), element::convert<M>(b[i])));
}

template <class T>
void predicate_any_loop(const instruction& in, const block& blk) {
  using M = element::math_t<T>;
  const T* a = at<T>(in.a, blk);
  const T* b = at<T>(in.b, blk);
  bool* out = at<bool>(in.out, blk);
  for (std::size_t i = 0; i < blk.count; ++i)
    out[i] = element::predicate<M>(in.code, element::convert<M>(a[i]), element::convert<M>(b[i]));
}

template <class T>
void where_loop(const instruction& in, const block& blk) {
  const bool* c = at<bool>(in.a, blk);
  const T* a = at<T>(in.b, blk);
  const T* b = at<T>(in.c, blk);
  T* out = at<T>(in.out, blk);
  for (std::size_t i = 0; i < blk.count; ++i) out[i] = c[i] ? a[i] : b[i];
}

// --- which loop an instruction runs ---------------------------------------------
enum class loop_kind : std::uint8_t {
  fill,
  broadcast,
  gather_row,
  gather_column,
  convert,
  where,
  unary,
  arithmetic,
  predicate
};

// What the kernel compiler asks for; a compiled program instantiates only the
// loops its plan can ask for (loop_table.hpp), a plan built at run time gets
// them from any_loop.
struct loop_key {
  loop_kind kind = loop_kind::fill;
  ir::op code = ir::op::literal;  // unary, arithmetic, predicate: the operation
  dtype type = dtype::float32;    // element type (convert: of the result)
  dtype from = dtype::float32;    // convert: of the operand; otherwise = type

  friend constexpr bool operator==(const loop_key&, const loop_key&) = default;
};

constexpr loop_key fill_key(dtype t) { return {loop_kind::fill, ir::op::literal, t, t}; }
constexpr loop_key broadcast_key(dtype t) { return {loop_kind::broadcast, ir::op::literal, t, t}; }
constexpr loop_key gather_key(dtype t, bool row) {
  return {row ? loop_kind::gather_row : loop_kind::gather_column, ir::op::literal, t, t};
}
constexpr loop_key convert_key(dtype to, dtype from) {
  return {loop_kind::convert, ir::op::literal, to, from};
}
constexpr loop_key where_key(dtype t) { return {loop_kind::where, ir::op::literal, t, t}; }
constexpr loop_key unary_key(ir::op code, dtype t) { return {loop_kind::unary, code, t, t}; }
constexpr loop_key arithmetic_key(ir::op code, dtype t) { return {loop_kind::arithmetic, code, t, t}; }
constexpr loop_key predicate_key(ir::op code, dtype t) { return {loop_kind::predicate, code, t, t}; }

using loop_finder = loop_fn (*)(const loop_key&);

// How the host evaluates an op node (not a leaf), read by the kernel compiler
// and by loops_of alike so that they agree on the loops: operand i is
// converted to operand_type(n, i), the op's loop (operation_key; a cast has
// none, converting is its operation) produces produced_type(n), and that is
// converted to the node's type.
constexpr dtype operand_type(const ir::expr_node& n, int i) {
  return ir::kind_of(n.code) == ir::op_kind::select && i == 0 ? dtype::boolean : n.compute;
}
constexpr dtype produced_type(const ir::expr_node& n) {
  return ir::is_predicate(n.code) ? dtype::boolean : n.compute;
}
constexpr bool has_operation_loop(ir::op code) {
  const auto k = ir::kind_of(code);
  return k == ir::op_kind::unary || k == ir::op_kind::arithmetic || k == ir::op_kind::predicate ||
         k == ir::op_kind::select;
}
constexpr loop_key operation_key(const ir::expr_node& n) {
  switch (ir::kind_of(n.code)) {
    case ir::op_kind::unary: return unary_key(n.code, n.compute);
    case ir::op_kind::arithmetic: return arithmetic_key(n.code, n.compute);
    case ir::op_kind::predicate: return predicate_key(n.code, n.compute);
    case ir::op_kind::select: return where_key(n.compute);
    default: return fill_key(n.type);  // leaves and casts have no operation loop
  }
}

// Loops that only move values (fill, broadcast, where, a copy) move them as
// unsigned integers of the same size: bit for bit what moving the typed value
// does, with one instantiation per size instead of one per type.
template <std::size_t Bytes>
struct bits_of;
template <>
struct bits_of<1> {
  using type = std::uint8_t;
};
template <>
struct bits_of<2> {
  using type = std::uint16_t;
};
template <>
struct bits_of<4> {
  using type = std::uint32_t;
};
template <>
struct bits_of<8> {
  using type = std::uint64_t;
};

// The loop for key K, for a program whose plan is known at compile time: the
// operation is a template argument, whatever the type (element::unary and
// friends give every combination its meaning).
template <loop_key K>
constexpr loop_fn loop_for() {
  using T = type_of<K.type>;  // ir/dtype.hpp (the 16-bit floats need CUDA's headers)
  using bits = typename bits_of<sizeof(T)>::type;
  if constexpr (K.kind == loop_kind::fill)
    return &fill_loop<bits>;
  else if constexpr (K.kind == loop_kind::broadcast)
    return &broadcast_loop<bits>;
  else if constexpr (K.kind == loop_kind::gather_row || K.kind == loop_kind::gather_column)
    return &gather_loop<bits, K.kind == loop_kind::gather_row>;
  else if constexpr (K.kind == loop_kind::where)
    return &where_loop<bits>;
  else if constexpr (K.kind == loop_kind::convert && K.type == K.from)
    return &convert_loop<bits, bits>;
  else if constexpr (K.kind == loop_kind::convert)
    return &convert_loop<T, type_of<K.from>>;
  else if constexpr (K.kind == loop_kind::unary)
    return &unary_loop<K.code, T>;
  else if constexpr (K.kind == loop_kind::arithmetic)
    return &arithmetic_loop<K.code, T>;
  else
    return &predicate_loop<K.code, T>;
}

// --- choosing a loop (for plans built at run time) ---------------------------------
// Function templates (the `class = void` is only that), so that a unit
// instantiates the loops of every op in every type only when it runs a plan
// built at run time (host_executor::run(plan_view, ...)), never for a
// compiled program, whose loops program_loops finds (loop_table.hpp).
[[noreturn, gnu::cold, gnu::noinline]] inline void needs_cuda_headers(const char* what, dtype t) {
  detail::text msg;
  msg << "streamdsl host executor: " << what << name_of(t) << " needs CUDA's headers on the host";
  throw error(msg.view());
}
template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<C++ type of t>{}). The 16-bit float types exist only with
// CUDA's headers; executors check for them before they build a kernel.
template <class F>
loop_fn with_type(dtype t, F&& f) {
  switch (t) {
    case dtype::boolean: return f(type_tag<bool>{});
    case dtype::int8: return f(type_tag<std::int8_t>{});
    case dtype::int16: return f(type_tag<std::int16_t>{});
    case dtype::int32: return f(type_tag<std::int32_t>{});
    case dtype::int64: return f(type_tag<std::int64_t>{});
    case dtype::uint8: return f(type_tag<std::uint8_t>{});
    case dtype::uint16: return f(type_tag<std::uint16_t>{});
    case dtype::uint32: return f(type_tag<std::uint32_t>{});
    case dtype::uint64: return f(type_tag<std::uint64_t>{});
    case dtype::float32: return f(type_tag<float>{});
    case dtype::float64: return f(type_tag<double>{});
#ifdef STREAMDSL_HAS_HALF
    case dtype::float16: return f(type_tag<__half>{});
    case dtype::bfloat16: return f(type_tag<__nv_bfloat16>{});
    case dtype::float8_e4m3: return f(type_tag<__nv_fp8_e4m3>{});
    case dtype::float8_e5m2: return f(type_tag<__nv_fp8_e5m2>{});
#else
    case dtype::float16:
    case dtype::bfloat16:
    case dtype::float8_e4m3:
    case dtype::float8_e5m2: break;
#endif
  }
  needs_cuda_headers("element type ", t);
}

template <class = void>
loop_fn fill_fn(dtype t) {
  return with_type(
      t, []<class T>(type_tag<T>) -> loop_fn { return &fill_loop<typename bits_of<sizeof(T)>::type>; });
}
template <class = void>
loop_fn broadcast_fn(dtype t) {
  return with_type(
      t, []<class T>(type_tag<T>) -> loop_fn { return &broadcast_loop<typename bits_of<sizeof(T)>::type>; });
}
template <class = void>
loop_fn gather_fn(dtype t, bool row) {
  return with_type(t, [row]<class T>(type_tag<T>) -> loop_fn {
    using bits = typename bits_of<sizeof(T)>::type;
    return row ? &gather_loop<bits, true> : &gather_loop<bits, false>;
  });
}
template <class = void>
loop_fn convert_fn(dtype to, dtype from) {
  return with_type(to, [from]<class To>(type_tag<To>) -> loop_fn {
    return with_type(from, []<class From>(type_tag<From>) -> loop_fn {
      using bits = typename bits_of<sizeof(To)>::type;
      if constexpr (std::is_same_v<To, From>)
        return &convert_loop<bits, bits>;
      else
        return &convert_loop<To, From>;
    });
  });
}
template <class = void>
loop_fn where_fn(dtype t) {
  return with_type(
      t, []<class T>(type_tag<T>) -> loop_fn { return &where_loop<typename bits_of<sizeof(T)>::type>; });
}

// The loop of op Code specialised for type T, where the front end computes
// Code in T's category (ir::computes_in, from the op's table row); nullptr
// elsewhere, where the per-element loops above serve.
template <ir::op Code, class T>
constexpr loop_fn specialised_loop() {
  constexpr auto kind = ir::kind_of(Code);
  if constexpr (!ir::computes_in(Code, category_of(dtype_v<T>)))
    return nullptr;
  else if constexpr (kind == ir::op_kind::unary)
    return &unary_loop<Code, T>;
  else if constexpr (kind == ir::op_kind::arithmetic)
    return &arithmetic_loop<Code, T>;
  else if constexpr (kind == ir::op_kind::predicate)
    return &predicate_loop<Code, T>;
  else
    return nullptr;
}

// One row of the op table per entry: adding an op adds no code here.
template <class T, std::size_t... I>
loop_fn specialised_loop_of(ir::op code, std::index_sequence<I...>) {
  static constexpr loop_fn loops[] = {specialised_loop<static_cast<ir::op>(I), T>()...};
  return loops[static_cast<std::size_t>(code)];
}

// The loop of an operation (unary, arithmetic or predicate) in type t.
template <class = void>
loop_fn operation_fn(ir::op code, dtype t) {
  return with_type(t, [code]<class T>(type_tag<T>) -> loop_fn {
    if (const loop_fn f = specialised_loop_of<T>(code, std::make_index_sequence<ir::op_count>{})) return f;
    switch (ir::kind_of(code)) {
      case ir::op_kind::unary: return &unary_any_loop<T>;
      case ir::op_kind::arithmetic: return &arithmetic_any_loop<T>;
      default: return &predicate_any_loop<T>;
    }
  });
}

// Every loop, chosen at run time: for plans built at run time.
template <class = void>
loop_fn any_loop(const loop_key& k) {
  switch (k.kind) {
    case loop_kind::fill: return fill_fn<>(k.type);
    case loop_kind::broadcast: return broadcast_fn<>(k.type);
    case loop_kind::gather_row:
    case loop_kind::gather_column: return gather_fn<>(k.type, k.kind == loop_kind::gather_row);
    case loop_kind::convert: return convert_fn<>(k.type, k.from);
    case loop_kind::where: return where_fn<>(k.type);
    case loop_kind::unary:
    case loop_kind::arithmetic:
    case loop_kind::predicate: return operation_fn<>(k.code, k.type);
  }
  return nullptr;
}

}  // namespace streamdsl::host_detail
