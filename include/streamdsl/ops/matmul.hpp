#pragma once
// Matrix products of rank-2 buffers, on the current stream:
// `c = sd::matmul(a, b)` with a over (m, k), b over (k, n) and c over (m, n)
// (ir/shape.hpp); `sd::transpose(x)` reads a rank-2 buffer transposed (no
// copy: the backend reads it the other way). The inner domain k is checked
// at compile time, the extents when the program is bound. One floating type
// for a, b and c's value (float, double, __half, __nv_bfloat16, as cuBLAS);
// the 16-bit float types multiply and add in float
// (ir::matmul_accumulation_type). A step (ir/step.hpp): the passes order it
// like any statement; the host executor runs it as loops
// (backend/host/matmul.hpp), each element's products added in k order, the
// CUDA executor as one cublasLtMatmul (backend/cuda/matmul.hpp).
#include <concepts>

#include "../dsl/expr.hpp"

namespace streamdsl {

namespace detail {
// A buffer handle (not a chunk: rank-2 buffers have none).
template <class B>
concept whole_buffer_handle = requires(const B& b) {
  { b.id() } -> std::same_as<std::int32_t>;
  { builder_access::state_of(b) } -> std::same_as<builder_state*>;
};
template <whole_buffer_handle B>
constexpr matmul_operand matmul_operand_of(const B& b) {
  return {builder_access::state_of(b), b.id(), false};
}
constexpr matmul_operand matmul_operand_of(const matmul_operand& o) { return o; }
template <class X>
concept matmul_operand_like = whole_buffer_handle<X> || std::same_as<X, matmul_operand>;
}  // namespace detail

// A rank-2 buffer read transposed by sd::matmul.
template <detail::whole_buffer_handle B>
constexpr detail::matmul_operand transpose(const B& b) {
  return {detail::builder_access::state_of(b), b.id(), true};
}

template <detail::matmul_operand_like A, detail::matmul_operand_like B>
constexpr detail::matmul_value matmul(const A& a, const B& b) {
  const auto x = detail::matmul_operand_of(a);
  return {x.state, x, detail::matmul_operand_of(b)};
}

// `c = sd::matmul(a, b, sd::tf32)`: float operands rounded to TF32 (10-bit
// mantissa) on the tensor cores and added in float, as cuBLASLt's
// CUBLAS_COMPUTE_32F_FAST_TF32 (faster on the tensor cores; each operand
// accurate to about 2^-11 relative instead of 2^-24); float operands only. The host executor
// multiplies in full float: its results are at least as accurate.
struct tf32_t {
  explicit constexpr tf32_t() = default;
};
inline constexpr tf32_t tf32{};

template <detail::matmul_operand_like A, detail::matmul_operand_like B>
constexpr detail::matmul_value matmul(const A& a, const B& b, tf32_t) {
  auto v = matmul(a, b);
  v.tf32 = true;
  return v;
}

}  // namespace streamdsl
