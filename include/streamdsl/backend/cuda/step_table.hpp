#pragma once
// For a compiled program with reductions or scans, one function per step op
// of its plan, in op order: a reduction's or scan's issues it through CUB
// (reductions.cuh), a copy's is null (the executor issues copies itself).
// CUB's headers cost every nvcc unit ~3 s (0.75 s to 3.7 s for an empty
// file), so the executor does not include them: a unit whose program has a
// reduction or scan includes <streamdsl/backend/cuda/reductions.cuh>, and a
// static_assert says so where such a program is run without it. The same
// for matmuls (cuBLASLt, matmul.hpp), below.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "../../detail/fixed_array.hpp"
#include "cuda_handles.hpp"
#include "kernel_table.hpp"
#include "step_encoding.hpp"

// NCCL's communicator (ncclComm_t is a pointer to it), declared as nccl.h does.
struct ncclComm;

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

// ---------------------------------------------------------------- matmuls
// A matmul step runs through cuBLASLt (matmul.hpp), whose header the executor
// does not include either (units without matmuls neither parse cublasLt.h nor
// link the library): a unit whose program has a matmul includes
// <streamdsl/backend/cuda/matmul.hpp>, and a static_assert says so where such
// a program is run without it. What the executor keeps of cuBLASLt is behind
// these two interfaces, which matmul.hpp implements.

// The executor's cuBLASLt state: one handle, made by the first program with a
// matmul that it prepares, destroyed with the executor.
struct matmul_library {
  virtual ~matmul_library() = default;
};

// Where a step failed: the call, and its status's name and text (static
// strings: cudaGetErrorName's, cublasLtGetStatusName's); `cuda` is set when
// the failure was a CUDA runtime call's.
struct step_failure {
  const char* call = "";
  const char* name = "";
  const char* text = "";
  cudaError_t cuda = cudaSuccess;
};

// A matmul step prepared for one set of extents and operand alignments:
// cuBLASLt's descriptors, layouts and the heuristic's algorithm, made when
// the program is bound (not per run), and what its algorithm needs of
// cuBLASLt's workspace.
struct prepared_matmul {
  virtual ~prepared_matmul() = default;
  // Issues the product on `stream`, reading and writing the plan's buffers at
  // `ptrs` (a folded epilogue's alpha param among `params`, as the kernels
  // get them), with `workspace_bytes` of workspace at `workspace` (256-byte
  // aligned; null when none is needed); false, with `failure` set, if a call
  // failed.
  virtual bool issue(void* const* ptrs, const unsigned long long* params, cudaStream_t stream,
                     void* workspace, step_failure& failure) const = 0;
  std::size_t workspace_bytes = 0;
};

struct delete_owned {
  template <class T>
  int operator()(T* p) const noexcept {
    delete p;
    return 0;
  }
};
using owned_matmul_library = unique_handle<matmul_library*, delete_owned>;
using owned_matmul = unique_handle<prepared_matmul*, delete_owned>;

// Prepares the matmul of statement `stmt` of `plan` for the bound extents and
// buffer pointers (`ptrs`, null for temps, which live in the workspace's
// 256-byte aligned slots), making the executor's handle in `library` if it
// has none; `held` is what the step had before, kept when nothing it depends
// on changed. Throws sd::error (naming the statement) if cuBLASLt fails or
// has no algorithm for it.
using prepare_matmul_fn = void (*)(owned_matmul_library& library, owned_matmul& held, const plan_view& plan,
                                   std::size_t stmt, const long long* extents, void* const* ptrs);

// Defined by matmul.hpp.
struct matmul_header;
template <class Program>
struct matmul_entry;

// Whether a plan issues matmuls.
constexpr bool has_matmul_steps(const plan_view& p) {
  for (const auto& op : p.ops)
    if (op.kind == op_kind::step &&
        p.ir.stmts[static_cast<std::size_t>(op.stmt)].code == ir::step_code::matmul)
      return true;
  return false;
}

template <class Program>
constexpr prepare_matmul_fn make_matmul_prepare() {
  static_assert(defined_for<matmul_header, Program>,
                "streamdsl: this program has a matmul (sd::matmul), which the CUDA executor runs through "
                "cuBLASLt: #include <streamdsl/backend/cuda/matmul.hpp> in this file and link "
                "streamdsl::cublas (CUDA::cublasLt); units without matmuls do not include cublasLt.h");
  if constexpr (defined_for<matmul_header, Program>)
    return &matmul_entry<Program>::prepare;
  else
    return nullptr;
}

// Only plans with matmuls instantiate this.
template <class Program>
inline constexpr prepare_matmul_fn matmul_prepare = make_matmul_prepare<Program>();

// ------------------------------------------------------------ collectives
// A collective step runs through NCCL (collectives.hpp), whose header the
// executor does not include either (units without collectives neither parse
// nccl.h nor link the library): a unit whose program has a collective
// includes <streamdsl/backend/cuda/collectives.hpp> and links streamdsl::nccl,
// and a static_assert says so where such a program is run without it. The
// executor holds the caller's communicator as NCCL's opaque pointer.

// A collective as issued: its regions as a buffer and a byte offset, the
// element type and count NCCL is given (the count per rank: the whole
// region for all_reduce and broadcast, the received part for
// reduce_scatter, the sent part for all_gather), the reduction and the root.
struct collective_args {
  ir::step_code code = ir::step_code::copy;
  dtype type = dtype::float32;
  ir::reduce_op op = ir::reduce_op::sum;
  int root = 0;
  std::int32_t dst = -1, src = -1;  // plan buffers
  std::size_t dst_offset = 0, src_offset = 0, count = 0;
};

// Issues `c` on `stream` over `comm` (ncclComm_t) with this issue's buffer
// pointers; false, with `failure` set, if NCCL refused it.
using collective_fn = bool (*)(const collective_args& c, void* const* ptrs, ncclComm* comm,
                               cudaStream_t stream, step_failure& failure);
// The communicator's size (ncclCommCount), rank (ncclCommUserRank) and
// device (ncclCommCuDevice).
using communicator_query_fn = void (*)(ncclComm* comm, int& size, int& rank, int& device);
// Gathers `count` values of every rank (`mine`, host memory) into `all`
// (host, size * count) through one ncclAllGather on `stream`, and waits for it.
using communicator_gather_fn = void (*)(ncclComm* comm, cudaStream_t stream, const long long* mine,
                                        long long* all, std::size_t count);

// Defined by collectives.hpp.
struct collectives_header;
template <class Program>
struct collective_entry;

// Whether a plan issues collectives.
constexpr bool has_collective_steps(const plan_view& p) {
  for (const auto& op : p.ops)
    if (op.kind == op_kind::step &&
        ir::info(p.ir.stmts[static_cast<std::size_t>(op.stmt)].code).form == ir::step_form::collective)
      return true;
  return false;
}

struct collective_fns {
  collective_fn issue = nullptr;
  communicator_query_fn query = nullptr;
  communicator_gather_fn gather = nullptr;
};

template <class Program>
constexpr collective_fns make_collective_fns() {
  static_assert(defined_for<collectives_header, Program>,
                "streamdsl: this program has a collective (sd::all_reduce, sd::reduce_scatter, "
                "sd::all_gather, sd::broadcast), which the CUDA executor runs through NCCL: #include "
                "<streamdsl/backend/cuda/collectives.hpp> in this file and link streamdsl::nccl; units "
                "without collectives do not include nccl.h");
  if constexpr (defined_for<collectives_header, Program>)
    return {&collective_entry<Program>::issue, &collective_entry<Program>::query,
            &collective_entry<Program>::gather};
  else
    return {};
}

// Only plans with collectives instantiate this.
template <class Program>
inline constexpr collective_fns collectives_of = make_collective_fns<Program>();

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
