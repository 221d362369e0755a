#pragma once
// For a compiled program with reductions or scans, one function per step op
// of its plan, in op order: a reduction's or scan's issues it through CUB
// (reductions.cuh), a copy's is null (the executor issues copies itself).
// CUB's headers cost every nvcc unit ~3 s (0.75 s to 3.7 s for an empty
// file), so the executor does not include them: a unit whose program has a
// reduction or scan includes <streamdsl/backend/cuda/reductions.cuh>, and a
// static_assert says so where such a program is run without it.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "../../detail/fixed_array.hpp"
#include "kernel_table.hpp"
#include "step_encoding.hpp"

namespace streamdsl::cuda_detail {

// Issues a reduction or scan on `stream`, with `temp_bytes` of CUB's
// temporary storage at `temp`; with `query` set, issues nothing and sets
// `temp_bytes` to what the step needs for these extents (CUB's query; 0 for
// a step along rows, row_kernels.cuh, whose `temp` may then be null).
using step_fn = cudaError_t (*)(const launch_context& ctx, cudaStream_t stream, void* temp,
                                std::size_t& temp_bytes, bool query);

// Defined by reductions.cuh.
struct reductions_header;
template <class Program, std::size_t Stmt>
struct reduce_step;

template <class Program, std::size_t Stmt,
          bool Reduces = ir::reads_expression(Program::plan().ir.stmts[Stmt].code) &&
                         defined_for<reductions_header, Program>>
struct step_fn_of {
  static constexpr step_fn value = &reduce_step<Program, Stmt>::issue;
};
template <class Program, std::size_t Stmt>
struct step_fn_of<Program, Stmt, false> {
  static constexpr step_fn value = nullptr;
};

template <class Program, std::size_t... J>
constexpr detail::fixed_array<step_fn, sizeof...(J)> make_step_fns(std::index_sequence<J...>) {
  static_assert(defined_for<reductions_header, Program>,
                "streamdsl: this program has a reduction or scan (sd::sum, sd::min, sd::max, sd::mean, "
                "sd::norm, sd::argmax, sd::inclusive_sum, sd::exclusive_sum), which the CUDA executor runs "
                "through CUB: #include <streamdsl/backend/cuda/reductions.cuh> in this file (CUB's headers "
                "cost a translation unit ~3 s under nvcc, so units without reductions do not include them)");
  constexpr plan_view plan = Program::plan();
  return {step_fn_of<Program, step_statement(plan, J)>::value...};
}

// Per step op of Program's plan (in op order), its function; only plans
// with reductions or scans instantiate this.
template <class Program>
inline constexpr auto step_fns =
    make_step_fns<Program>(std::make_index_sequence<Program::plan().step_count()>{});

// Row groups (passes/row_groups.hpp): the plan's groups in op order, each
// launched as one kernel by row_group.cuh (which reductions.cuh includes: a
// group has a reduction).
using group_fn = cudaError_t (*)(const launch_context& ctx, cudaStream_t stream);

constexpr std::size_t group_count(const plan_view& p) {
  std::size_t n = 0;
  for (const auto& op : p.ops) n += op.group > 1;
  return n;
}

// The first op of group g.
constexpr std::size_t group_op(const plan_view& p, std::size_t g) {
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    if (p.ops[i].group > 1 && g-- == 0) return i;
  return 0;
}

// Defined by row_group.cuh.
template <class Program, std::size_t G>
struct group_fn_of;

template <class Program, std::size_t... G>
constexpr detail::fixed_array<group_fn, sizeof...(G)> make_group_fns(std::index_sequence<G...>) {
  return {group_fn_of<Program, G>::value...};
}

template <class Program>
inline constexpr auto group_fns =
    make_group_fns<Program>(std::make_index_sequence<group_count(Program::plan())>{});

}  // namespace streamdsl::cuda_detail
