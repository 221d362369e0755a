#pragma once
// Steps: the statements that are not elementwise assignments (copies,
// reductions and scans, matmuls, the user's own calls, collectives). Every step is a statement of kind
// stmt_kind::step with a step_code, its read and write regions and its stream; the passes see only its
// accesses, the backends own how it runs. A new step is a code and its row here, a front end in ops/ and a
// case in each backend. (Named "step", not "op": ir::op is the elementwise operator enum and a plan's `ops`
// are what it issues.)
//
// Reductions and scans read an elementwise expression (statement::root), so
// `s = sd::sum(x * y)` reads x and y once and writes no temp: the producer
// is fused into the step's input. Their target is statement::target.
#include <cstdint>

#include "../detail/string_view.hpp"
#include "dtype.hpp"
#include "reduce_op.hpp"

namespace streamdsl::ir {

// In the order of step_table's rows.
enum class step_code : std::uint8_t {
  copy,
  sum,
  min,
  max,
  mean,
  norm,
  argmax,
  inclusive_sum,
  exclusive_sum,
  matmul,
  call,
  host_call,
  all_reduce,
  reduce_scatter,
  all_gather,
  broadcast,
};

// How a step reads and writes.
enum class step_form : std::uint8_t {
  copy,       // one region read, one written
  reduction,  // an expression over a shape into a 0-d buffer
  scan,       // an expression over a shape into a region of that shape
  matmul,     // two rank-2 buffers read (statement::transposed says how), one written
  call,       // the user's own step: any regions read, any written (statement::event: which call)
  // One rank's part of an SPMD collective (ops/collective.hpp): one region
  // read (the source), one written (the target; the same region in place).
  // statement::matmul_mode holds its ir::reduce_op (collective_op_of),
  // statement::event a broadcast's root rank (collective_root_of).
  collective,
};

// "copy", "reduction", ...: what a step is, in timelines (backend/timeline.hpp).
constexpr detail::string_view name_of(step_form f) {
  switch (f) {
    case step_form::copy: return "copy";
    case step_form::reduction: return "reduction";
    case step_form::scan: return "scan";
    case step_form::matmul: return "matmul";
    case step_form::call: return "call";
    case step_form::collective: return "collective";
  }
  return "?";
}

// The result type of a reduction or scan from its input's type.
enum class step_result : std::uint8_t {
  none,      // a copy, a matmul (its operands' type: ops/matmul.hpp), a call, a collective
  summed,    // integers and bool sum to int64_t (as PyTorch); floating types keep theirs
  same,      // min, max: the input's type
  index,     // argmax: an int64_t element index
  floating,  // mean, norm: floating types keep theirs; integers need a cast (refused, as PyTorch)
};

struct step_info {
  step_code code;
  detail::string_view spelling;  // as the user writes it, for dumps and messages
  step_form form;
  step_result result;
};

// clang-format off
inline constexpr step_info step_table[] = {
    // code                       spelling              form                  result
    {step_code::copy,          "sd::copy",          step_form::copy,      step_result::none},  // sd::copy(dst, src)
    {step_code::sum,           "sd::sum",           step_form::reduction, step_result::summed},
    {step_code::min,           "sd::min",           step_form::reduction, step_result::same},
    {step_code::max,           "sd::max",           step_form::reduction, step_result::same},
    {step_code::mean,          "sd::mean",          step_form::reduction, step_result::floating},
    {step_code::norm,          "sd::norm",          step_form::reduction, step_result::floating},
    {step_code::argmax,        "sd::argmax",        step_form::reduction, step_result::index},
    {step_code::inclusive_sum, "sd::inclusive_sum", step_form::scan,      step_result::summed},
    {step_code::exclusive_sum, "sd::exclusive_sum", step_form::scan,      step_result::summed},
    {step_code::matmul,        "sd::matmul",        step_form::matmul,    step_result::none},  // c = sd::matmul(a, b)
    {step_code::call,          "p.call",            step_form::call,      step_result::none},  // p.call("f", sd::reads(x), sd::writes(y))
    {step_code::host_call,     "p.host_call",       step_form::call,      step_result::none},  // p.host_call("f", ...): on the CPU, host memory only
    {step_code::all_reduce,    "sd::all_reduce",    step_form::collective, step_result::none},  // y = sd::all_reduce(x, op)
    {step_code::reduce_scatter, "sd::reduce_scatter", step_form::collective, step_result::none},  // y = sd::reduce_scatter(x, op)
    {step_code::all_gather,    "sd::all_gather",    step_form::collective, step_result::none},  // y = sd::all_gather(x)
    {step_code::broadcast,     "sd::broadcast",     step_form::collective, step_result::none},  // y = sd::broadcast(x, root)
};
// clang-format on

constexpr const step_info& info(step_code c) { return step_table[static_cast<std::size_t>(c)]; }
constexpr bool reads_expression(step_code c) {
  return info(c).form == step_form::reduction || info(c).form == step_form::scan;
}

// A collective's reduce op and root, where its statement keeps them (any
// list of statements with matmul_mode and event; see step_form::collective).
constexpr bool is_collective(step_code c) { return info(c).form == step_form::collective; }
// Whether the collective combines the ranks' values (its reduce_op matters).
constexpr bool reduces(step_code c) { return c == step_code::all_reduce || c == step_code::reduce_scatter; }
template <class Statement>
constexpr reduce_op collective_op_of(const Statement& s) {
  return static_cast<reduce_op>(s.matmul_mode);
}
template <class Statement>
constexpr std::int32_t collective_root_of(const Statement& s) {
  return s.event;
}
// How many elements of its source a collective's target holds, as a
// multiple (times) or a fraction (divided) of the world's size: all_reduce
// and broadcast as many, reduce_scatter source / ranks (rank r keeps the
// r-th part), all_gather source * ranks (rank r's source at part r).
enum class collective_extent : std::uint8_t { same, divided, times };
constexpr collective_extent target_extent_of(step_code c) {
  return c == step_code::reduce_scatter ? collective_extent::divided
         : c == step_code::all_gather   ? collective_extent::times
                                        : collective_extent::same;
}
// Whether the collective may run in place (target region = source region):
// NCCL's in-place reduce_scatter and all_gather put one rank's part inside
// the other buffer, at an offset that depends on the rank, which a region
// known at compile time cannot say.
constexpr bool runs_in_place(step_code c) { return target_extent_of(c) == collective_extent::same; }

// Whether a program's statements (of any list with kind and code) hold a collective.
template <class Statements>
constexpr bool has_collective(const Statements& stmts) {
  for (const auto& s : stmts)
    if (s.kind == decltype(s.kind)::step && is_collective(s.code)) return true;
  return false;
}

// A matmul's mode (statement::matmul_mode): bit 0 a read transposed, bit 1 b
// read transposed, bit 2 float operands multiplied as TF32 on the tensor cores
// (sd::tf32; cuBLASLt's CUBLAS_COMPUTE_32F_FAST_TF32).
inline constexpr std::uint8_t transpose_a = 1, transpose_b = 2, matmul_tf32 = 4;

// An elementwise consumer folded into the matmul as cuBLASLt's epilogue
// (passes/matmul_epilogue.hpp): d = act(alpha * (a b) + bias), in that
// order. Bits 3-4 the activation, bit 5 a bias (a rank-1 buffer over c's
// columns: the read after the operands, ir::matmul_operands_of), bit 6
// alpha (statement::root: a param or literal node).
inline constexpr std::uint8_t matmul_relu = 8, matmul_gelu_tanh = 16, matmul_bias = 32, matmul_alpha = 64;
inline constexpr std::uint8_t matmul_epilogue_bits =
    matmul_relu | matmul_gelu_tanh | matmul_bias | matmul_alpha;

// The epilogue's name in cuBLASLt's terms (CUBLASLT_EPILOGUE_<name>), for the
// dump and the CUDA backend's choice: DEFAULT when only alpha is folded.
constexpr detail::string_view matmul_epilogue_name(std::uint8_t mode) {
  const bool bias = (mode & matmul_bias) != 0;
  if (mode & matmul_relu) return bias ? "RELU_BIAS" : "RELU";
  if (mode & matmul_gelu_tanh) return bias ? "GELU_BIAS" : "GELU";
  return bias ? "BIAS" : "DEFAULT";
}

// The type a matmul of operands of type `in` multiplies and adds in: float
// for the 16-bit and 8-bit float types (as cuBLAS's CUBLAS_COMPUTE_32F), else `in`.
constexpr dtype matmul_accumulation_type(dtype in) {
  return in == dtype::float16 || in == dtype::bfloat16 || is_fp8(in) ? dtype::float32 : in;
}
// Whether sd::matmul multiplies operands of this type (cuBLAS's floating types).
constexpr bool matmul_supports(dtype in) { return category_of(in) == dtype_category::floating; }
// The FP8 operand pairs (a, b) cuBLASLt multiplies on sm_90: e4m3 x e4m3,
// e4m3 x e5m2 and e5m2 x e4m3; not e5m2 x e5m2.
constexpr bool matmul_fp8_pair(dtype a, dtype b) {
  return is_fp8(a) && is_fp8(b) && !(a == dtype::float8_e5m2 && b == dtype::float8_e5m2);
}
// Whether cuBLASLt stores the product of FP8 operands a and b (a pair
// matmul_fp8_pair accepts) in `out` (cuBLASLt's FP8 table, sm_90): any
// non-FP8 type matmul_stores accepts; __nv_fp8_e4m3 for every pair;
// __nv_fp8_e5m2 only when an operand is __nv_fp8_e5m2.
constexpr bool matmul_fp8_output(dtype a, dtype b, dtype out) {
  if (out != dtype::float8_e5m2) return true;
  return a == dtype::float8_e5m2 || b == dtype::float8_e5m2;
}
// Whether a matmul of operands of type `in` stores its product in a buffer of
// type `out`: the operands' type, or float for the 16-bit float types (the
// pairs cuBLASLt computes; any other is a cast the user writes after it); FP8
// operands into __nv_bfloat16, __half, float or an FP8 type (which FP8 type:
// matmul_fp8_output).
constexpr bool matmul_stores(dtype in, dtype out) {
  if (is_fp8(in))
    return out == dtype::bfloat16 || out == dtype::float16 || out == dtype::float32 || is_fp8(out);
  return out == in || (out == dtype::float32 && matmul_accumulation_type(in) == dtype::float32);
}

// Whether a matmul of operands of type `in` into a product of type `out` may
// carry the epilogue `mode` (its ir::matmul_epilogue_bits). cuBLASLt's
// epilogues run for its real types with the bias in the product's type
// (CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE's default); double is left out (not
// measured); GELU only into a 16-bit product: cuBLASLt's GELU computes an
// approximate tanh (measured on the H200: 1.3e-5 relative error at x = -0.14,
// docs/concepts.md, "Matmul"), far above float's rounding, below bfloat16's
// and about __half's.
constexpr bool matmul_epilogue_supported(dtype in, dtype out, std::uint8_t mode) {
  // FP8: not folded (cuBLASLt's FP8 epilogues have their own bias types; not measured).
  if (!matmul_stores(in, out) || in == dtype::float64 || is_fp8(in)) return false;
  return (mode & matmul_gelu_tanh) == 0 || out == dtype::float16 || out == dtype::bfloat16;
}

// Whether a program's statements (of any list with kind and code) hold a matmul.
template <class Statements>
constexpr bool has_matmul(const Statements& stmts) {
  for (const auto& s : stmts)
    if (s.code == step_code::matmul && s.kind == decltype(s.kind)::step) return true;
  return false;
}

// The type a reduction or scan produces from an input of type `in`
// (step_result::floating of an integer type: the front end refuses it).
constexpr dtype step_result_type(step_code c, dtype in) {
  switch (info(c).result) {
    case step_result::none:
    case step_result::same:
    case step_result::floating: return in;
    case step_result::summed: return category_of(in) == dtype_category::floating ? in : dtype::int64;
    case step_result::index: return dtype::int64;
  }
  return in;
}

// The type a reduction or scan accumulates in (both backends): the 16-bit
// float types in float, integers and bool in int64_t (sums wrap around as
// int64_t arithmetic does) but uint64_t in itself (its sums have the same
// bits; its min and max need its order); float and double in themselves. Float sums
// accumulate in float, as CUB and PyTorch's CUDA sum do: they add in a tree
// (pairwise) order, whose rounding error grows with log2(n) rather than n,
// so a wider accumulator buys little and costs registers (docs/concepts.md,
// "Reductions and scans").
constexpr dtype accumulation_type(dtype in) {
  if (in == dtype::uint64) return dtype::uint64;  // int64_t would misorder values above INT64_MAX
  switch (category_of(in)) {
    case dtype_category::boolean:
    case dtype_category::integral: return dtype::int64;
    case dtype_category::floating: return in == dtype::float64 ? dtype::float64 : dtype::float32;
  }
  return in;
}

}  // namespace streamdsl::ir
