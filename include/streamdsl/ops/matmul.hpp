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

// FP8 matmuls (__nv_fp8_e4m3, __nv_fp8_e5m2 operands; not both e5m2):
// `c = sd::matmul(a, sd::transpose(w), sd::scales(sa, sw))` computes
// c = (sa * sw) * (a w^T), products of the FP8 values added in float and
// rounded once to c's type (__nv_bfloat16, __half or float). sa and sw are
// 0-d float buffers read on the device when the step runs (cuBLASLt's
// CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER): the step reads them, so races,
// syncs and the memory plan see them, and a scale computed by an earlier
// statement (an amax reduction, say) needs no host round trip. Without
// sd::scales both are 1. cuBLASLt's FP8 kernels take only its "TN" layout,
// which in streamdsl's row-major terms is a stored (m, k) and w stored
// (n, k) read transposed (a linear layer's weight); any other layout is a
// compile error saying which buffer to store transposed. When bound, k and n
// must be multiples of 16 and every operand 16-byte aligned (cuBLASLt's FP8
// requirements; the CUDA executor throws sd::binding_error before launch).
template <detail::whole_buffer_handle SA, detail::whole_buffer_handle SB>
constexpr detail::matmul_scales scales(const SA& sa, const SB& sb) {
  return {detail::builder_access::state_of(sa), sa.id(), sb.id()};
}

// FP8 products (__nv_fp8_e4m3 for any FP8 pair; __nv_fp8_e5m2 only when an
// operand is __nv_fp8_e5m2, as cuBLASLt): the product in float, times the
// output scale, rounded to c's type with saturation to its largest finite
// value (448, 57344), as cuBLASLt's CUBLASLT_MATMUL_DESC_D_SCALE_POINTER:
//   c8 = sd::matmul(a, sd::transpose(w), sd::scales(sa, sw, sd::output_scale(sc), sd::output_amax(am)))
// computes c8 = sat(sc * (sa * sw) * (a w^T)) and am = max |(sa * sw) * (a w^T)|
// (before the output scale, cuBLASLt's CUBLASLT_MATMUL_DESC_AMAX_D_POINTER; a
// NaN element makes am NaN on the host). sc is a 0-d float buffer the step
// reads, am one it writes (so races, syncs and the memory plan see both).
// Both are optional: without sd::output_scale the scale is 1 (cuBLASLt's
// default); an FP8 product needs no sd::scales at all (every scale 1). Either
// given for a product that is not FP8 is a compile error.
struct output_scale_t {
  detail::builder_state* state;
  std::int32_t buffer;
};
struct output_amax_t {
  detail::builder_state* state;
  std::int32_t buffer;
};
template <detail::whole_buffer_handle S>
constexpr output_scale_t output_scale(const S& s) {
  return {detail::builder_access::state_of(s), s.id()};
}
template <detail::whole_buffer_handle S>
constexpr output_amax_t output_amax(const S& s) {
  return {detail::builder_access::state_of(s), s.id()};
}
template <detail::whole_buffer_handle SA, detail::whole_buffer_handle SB>
constexpr detail::matmul_scales scales(const SA& sa, const SB& sb, output_scale_t d) {
  return {detail::builder_access::state_of(sa), sa.id(), sb.id(), d.buffer};
}
template <detail::whole_buffer_handle SA, detail::whole_buffer_handle SB>
constexpr detail::matmul_scales scales(const SA& sa, const SB& sb, output_amax_t amax) {
  return {detail::builder_access::state_of(sa), sa.id(), sb.id(), -1, amax.buffer};
}
template <detail::whole_buffer_handle SA, detail::whole_buffer_handle SB>
constexpr detail::matmul_scales scales(const SA& sa, const SB& sb, output_scale_t d, output_amax_t amax) {
  return {detail::builder_access::state_of(sa), sa.id(), sb.id(), d.buffer, amax.buffer};
}

template <detail::matmul_operand_like A, detail::matmul_operand_like B>
constexpr detail::matmul_value matmul(const A& a, const B& b, detail::matmul_scales s) {
  auto v = matmul(a, b);
  v.scale_a = s.a;
  v.scale_b = s.b;
  v.scale_d = s.d;
  v.amax_d = s.amax;
  return v;
}

}  // namespace streamdsl
