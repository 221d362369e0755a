#pragma once
// A row group (passes/row_groups.hpp) as one kernel: reductions along the
// last axis of a product domain P and kernels over P or its rows, run in
// turn over each row by one block of group_threads threads, blocks striding
// over the rows, a grid of at most one block per SM (so that the rows in
// flight, 132 rows of 256 KB for a 65536-float row on an H200, mostly stay in
// L2 between the passes: the matrix comes from DRAM about once). Per row:
//   - a reduction is one pass over the row: each thread folds its elements
//     (16-byte loads where every pointer it moves is aligned at every row's
//     start, four vectors in flight, then a scalar tail), cub::BlockReduce
//     combines them and thread 0 finishes and stores the row's result
//     (reductions.cuh's row_store, so its meaning is the row kernels'; the
//     column is tiny and later members read it where it lies, from L1);
//   - a kernel over P is one pass over the row: its statements per element,
//     16-byte loads and stores where aligned (fused_kernel.cuh's full_steps),
//     then a scalar tail;
//   - a kernel over P's rows runs its statements for element r on thread 0.
// A __syncthreads follows every member: what it stored (a row's result, a
// matrix row) is visible to the block's threads in the next member, and the
// block reduction's shared storage is free again. The values and their
// order per thread differ from the separate row kernels only in the order
// float sums add (as between the row kernels and the host). Included by
// reductions.cuh (a group has a reduction).
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <utility>

#include "fused_kernel.cuh"
#include "kernel_table.hpp"
#include "reductions.cuh"  // its operators and stores (it includes this header at its end)
#include "step_table.hpp"

namespace streamdsl::cuda_detail {

inline constexpr int group_threads = 1024;

// A group's encoding, the kernel's template arguments (integers only: a
// type of the program's would name its lambda in nvcc's host stub): the
// member count M, each member's position, then per member a record of
// member_fields integers (its kind, step code, accumulated, result and target
// types, buffer and param counts, first pointer and param in the group's
// flat arrays) followed by its pack (kernel_encoding.hpp: a kernel's, or a
// reduction's expression as step_encoding.hpp encodes it).
enum group_member_kind : int { reduction_member = 0, matrix_member = 1, rows_member = 2 };
inline constexpr int member_fields = 9;

// A group's arguments: every member's pointers and params in flat arrays,
// per member its shape (bind_kernel's) and a reduction's target.
template <int Members, int Ptrs, int Params>
struct group_args {
  void* ptr[Ptrs > 0 ? Ptrs : 1];
  unsigned long long param_bits[Params > 0 ? Params : 1];
  launch_shape shape[Members];
  void* target[Members];
  long long rows;
  long long cols;
  int aligned;  // every pointer a pass moves is 16-byte aligned at every row's start
};

#if defined(__CUDA_ARCH__)
template <int... Code>
struct group_code {
  static constexpr int code[] = {Code...};
};

// Member M of a group: its record's fields and its pack (a kernel_code's
// interface for fused_kernel.cuh's decoders).
template <class GC, int M>
struct member_code {
  static constexpr int at = GC::code[1 + M];
  static constexpr int kind = GC::code[at];
  static constexpr auto step = static_cast<ir::step_code>(GC::code[at + 1]);
  static constexpr dtype accumulated = static_cast<dtype>(GC::code[at + 2]);
  static constexpr dtype result = static_cast<dtype>(GC::code[at + 3]);
  static constexpr dtype target = static_cast<dtype>(GC::code[at + 4]);
  static constexpr int buffers = GC::code[at + 5];
  static constexpr int params = GC::code[at + 6];
  static constexpr int ptr_base = GC::code[at + 7];
  static constexpr int param_base = GC::code[at + 8];
  static constexpr pack_view pack{GC::code + at + member_fields};
};

// A reduction's expression decoded with Vec elements per cell.
template <class KC, int Vec, class Buffers = std::make_integer_sequence<int, KC::pack.buffer_count()>>
struct row_expression;
template <class KC, int Vec, int... B>
struct row_expression<KC, Vec, std::integer_sequence<int, B...>> {
  using cells = cell_set<Vec, std::integer_sequence<int, B...>, type_of<KC::pack.buffer_type(B)>...>;
  using buffers = buffer_list<buffer_at<KC, B>...>;
  using tree = typename tree_of<KC, KC::pack.root(0)>::type;
};

// 16 bytes of the smallest element type the expression loads (at most 8).
template <class KC>
constexpr int expression_vec() {
  std::size_t smallest = 16;
  for (int b = 0; b < KC::pack.buffer_count(); ++b) {
    const auto s = size_of(KC::pack.buffer_type(b));
    if (s < smallest) smallest = s;
  }
  return vector_width(smallest);
}

template <ir::step_code Code, class A, class E, class Cells, class Args>
__device__ __forceinline__ auto row_value(Cells& c, const Args& args, int v, long long i) {
  const A x = element::convert<A>(E::tree::eval(c, args, v));
  if constexpr (Code == ir::step_code::argmax)
    return index_value<A>{i, x};
  else
    return detail::reduce::input(Code, x);
}

// A reduction over row r: each thread folds its elements, the block
// combines them, thread 0 finishes and stores.
template <class MC, class Args>
__device__ __forceinline__ void run_reduction(const Args& args, void* target, long long r, long long cols,
                                              bool aligned) {
  constexpr ir::step_code code = MC::step;
  using A = type_of<MC::accumulated>;
  using R = type_of<MC::result>;
  using T = type_of<MC::target>;
  constexpr bool arg = code == ir::step_code::argmax;
  using V = std::conditional_t<arg, index_value<A>, A>;
  using Op = std::conditional_t<arg, argmax_op<A>, combine_t<code, A>>;
  constexpr int vec = expression_vec<MC>();
  using E = row_expression<MC, vec>;
  using block_reduce = cub::BlockReduce<V, group_threads>;
  __shared__ typename block_reduce::TempStorage shared;
  const Op op{};
  V acc;
  if constexpr (arg)
    acc = V{LLONG_MAX, reduce_identity<ir::step_code::max, A>()};
  else
    acc = reduce_identity<code, A>();
  const long long base = r * cols;
  long long tail = 0;
  if (aligned) {
    constexpr long long stride = static_cast<long long>(group_threads) * vec;
    const long long full = cols / vec * vec;
    long long k = static_cast<long long>(threadIdx.x) * vec;
    for (; k + 3 * stride < full; k += 4 * stride) {  // four vectors in flight
      typename E::cells c[4];
#pragma unroll
      for (int u = 0; u < 4; ++u)
        E::buffers::template move<true, true, vec>(c[u], args, base + k + u * stride);
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int v = 0; v < vec; ++v)
          acc = op(acc, row_value<code, A, E>(c[u], args, v, base + k + u * stride + v));
    }
    for (; k < full; k += stride) {
      typename E::cells c;
      E::buffers::template move<true, true, vec>(c, args, base + k);
#pragma unroll
      for (int v = 0; v < vec; ++v) acc = op(acc, row_value<code, A, E>(c, args, v, base + k + v));
    }
    tail = full;
  }
  for (long long k = tail + threadIdx.x; k < cols; k += group_threads) {
    typename E::cells c;
    E::buffers::template move<true, false, 1>(c, args, base + k);
    acc = op(acc, row_value<code, A, E>(c, args, 0, base + k));
  }
  const V total = block_reduce(shared).Reduce(acc, op);
  if (threadIdx.x == 0) {
    if constexpr (arg)
      row_index_store<A, T>{static_cast<T*>(target), cols}(r, total);
    else
      row_store<code, A, R, T>{static_cast<T*>(target), cols}(r, total);
  }
}

// A kernel over P (row r's elements) or over P's rows (element r, thread 0).
template <class MC, class Args>
__device__ __forceinline__ void run_kernel(const Args& args, long long r, long long cols, bool aligned) {
  using K = kernel_types<MC>;
  constexpr int vec = K::vec;
  using Cells = typename K::template cells<vec>;
  if constexpr (MC::kind == rows_member) {
    if (threadIdx.x == 0) {
      Cells c;
      K::buffers::template move<true, false, 1>(c, args, r);
      K::statements::run(c, args, 0);
      K::buffers::template move<false, false, 1>(c, args, r);
    }
  } else {
    const long long base = r * cols;
    long long tail = 0;
    if (aligned) {
      constexpr long long stride = static_cast<long long>(group_threads) * vec;
      const long long full = cols / vec * vec;
      long long k = static_cast<long long>(threadIdx.x) * vec;
      for (; k + stride < full; k += 2 * stride)  // two vectors in flight
        full_steps<typename K::buffers, typename K::statements, Cells, vec>(
            args, base + k, stride, std::integer_sequence<int, 0, 1>{});
      for (; k < full; k += stride)
        full_steps<typename K::buffers, typename K::statements, Cells, vec>(args, base + k, stride,
                                                                            std::integer_sequence<int, 0>{});
      tail = full;
    }
    for (long long k = tail + threadIdx.x; k < cols; k += group_threads) {
      Cells c;
      K::buffers::template move<true, false, 1>(c, args, base + k);
      K::statements::run(c, args, 0);
      K::buffers::template move<false, false, 1>(c, args, base + k);
    }
  }
}

// Member M over row r, with its pointers and params copied from the group's
// arrays into a kernel's own arguments (indices known here: registers).
template <class GC, int M, class Group>
__device__ __forceinline__ void run_member(const Group& g, long long r, bool aligned) {
  using MC = member_code<GC, M>;
  kernel_args<MC::buffers, MC::params> own;
#pragma unroll
  for (int b = 0; b < MC::buffers; ++b) own.ptr[b] = g.ptr[MC::ptr_base + b];
#pragma unroll
  for (int q = 0; q < MC::params; ++q) own.param_bits[q] = g.param_bits[MC::param_base + q];
  own.shape = g.shape[M];
  if constexpr (MC::kind == reduction_member)
    run_reduction<MC>(own, g.target[M], r, g.cols, aligned);
  else
    run_kernel<MC>(own, r, g.cols, aligned);
}

// Each member over row r in turn, a __syncthreads after each (see above).
template <class GC, class Group, int... M>
__device__ __forceinline__ void run_members(const Group& g, long long r, bool aligned,
                                            std::integer_sequence<int, M...>) {
  ((run_member<GC, M>(g, r, aligned), __syncthreads()), ...);
}
#endif  // defined(__CUDA_ARCH__)

template <int Members, int Ptrs, int Params, int... Code>
__global__ void __launch_bounds__(group_threads)
    row_group_kernel(const __grid_constant__ group_args<Members, Ptrs, Params> args) {
#if defined(__CUDA_ARCH__)
  using GC = group_code<Code...>;
  const bool aligned = args.aligned != 0;
  for (long long r = blockIdx.x; r < args.rows; r += gridDim.x)
    run_members<GC>(args, r, aligned, std::make_integer_sequence<int, Members>{});
#else
  (void)args;
#endif
}

// Whether every pointer the member moves (not a broadcast, row or column)
// is 16-byte aligned at every row's start.
inline bool rows_aligned(const kernel_launch_info& info, void* const* ptr, long long cols) {
  const pack_view code{info.code};
  for (int b = 0; b < code.buffer_count(); ++b) {
    const int flags = code.buffer_flags(b);
    if ((flags & (buffer_flag::load | buffer_flag::store)) == 0 || (flags & gathered) != 0) continue;
    const auto size = static_cast<long long>(size_of(code.buffer_type(b)));
    if (reinterpret_cast<std::uintptr_t>(ptr[b]) % 16 != 0 || cols * size % 16 != 0) return false;
  }
  return true;
}

// What the group's encoding needs of each member (op Op of Program's plan).
struct member_record {
  int kind = 0;
  int step = 0;
  int accumulated = 0, result = 0, target = 0;
  int buffers = 0, params = 0;
  const int* code = nullptr;
  int size = 0;
  const kernel_launch_info* info = nullptr;
  int target_buffer = -1;
  std::int32_t product = -1;  // its product domain (-1: a kernel over the rows)
};
template <class Program, std::size_t Op, op_kind Kind = Program::plan().ops[Op].kind>
struct group_member;
template <class Program, std::size_t Op>
struct group_member<Program, Op, op_kind::step> {
  using pack = step_pack<Program, static_cast<std::size_t>(Program::plan().ops[Op].stmt)>;
  static constexpr member_record record{reduction_member,
                                        static_cast<int>(pack::code),
                                        static_cast<int>(pack::types.accumulated),
                                        static_cast<int>(pack::types.result),
                                        static_cast<int>(pack::types.target),
                                        pack::buffers,
                                        pack::params,
                                        pack::encoded.code,
                                        static_cast<int>(pack::shape.code_size),
                                        &pack::info,
                                        pack::target.buffer,
                                        pack::step_shape.domain};
};
template <class Program, std::size_t Op>
struct group_member<Program, Op, op_kind::kernel> {
  using pack = kernel_pack<Program, static_cast<std::size_t>(Program::plan().ops[Op].kernel)>;
  static constexpr bool rows = pack::shape.inner < 0;  // over P's rows: a plain domain
  static constexpr member_record record{rows ? rows_member : matrix_member,
                                        0,
                                        0,
                                        0,
                                        0,
                                        pack::buffers,
                                        pack::params,
                                        pack::encoded.code,
                                        static_cast<int>(pack::shape.code_size),
                                        &pack::info,
                                        -1,
                                        rows ? -1 : pack::shape.domain};
};

template <int Members>
struct group_layout {
  int code_size = 0;
  int ptrs = 0;
  int params = 0;
  std::int32_t product = -1;
};
template <int Members>
constexpr group_layout<Members> lay_out_group(const member_record* const* m) {
  group_layout<Members> l;
  l.code_size = 1 + Members;
  for (int i = 0; i < Members; ++i) {
    l.code_size += member_fields + m[i]->size;
    l.ptrs += m[i]->buffers;
    l.params += m[i]->params;
    if (l.product < 0) l.product = m[i]->product;
  }
  return l;
}
template <int Size, int Members>
struct encoded_group {
  int code[Size] = {};
};
template <int Size, int Members>
constexpr encoded_group<Size, Members> encode_group(const member_record* const* m) {
  encoded_group<Size, Members> out{};
  out.code[0] = Members;
  int at = 1 + Members, ptr = 0, param = 0;
  for (int i = 0; i < Members; ++i) {
    out.code[1 + i] = at;
    const int fields[member_fields] = {m[i]->kind,   m[i]->step,   m[i]->accumulated,
                                       m[i]->result, m[i]->target, m[i]->buffers,
                                       m[i]->params, ptr,          param};
    for (int f = 0; f < member_fields; ++f) out.code[at + f] = fields[f];
    for (int c = 0; c < m[i]->size; ++c) out.code[at + member_fields + c] = m[i]->code[c];
    at += member_fields + m[i]->size;
    ptr += m[i]->buffers;
    param += m[i]->params;
  }
  return out;
}

// The group whose first op is Op: its encoding, computed once.
template <class Program, std::size_t Op,
          class M = std::make_index_sequence<static_cast<std::size_t>(Program::plan().ops[Op].group)>>
struct group_pack;
template <class Program, std::size_t Op, std::size_t... M>
struct group_pack<Program, Op, std::index_sequence<M...>> {
  static constexpr int members = static_cast<int>(sizeof...(M));
  static constexpr const member_record* records[] = {&group_member<Program, Op + M>::record...};
  static constexpr group_layout<members> layout = lay_out_group<members>(records);
  static constexpr encoded_group<layout.code_size, members> encoded =
      encode_group<layout.code_size, members>(records);
  static constexpr std::int32_t outer =
      Program::plan().ir.domains[static_cast<std::size_t>(layout.product)].outer;
  static constexpr std::int32_t inner =
      Program::plan().ir.domains[static_cast<std::size_t>(layout.product)].inner;
  using args = group_args<members, layout.ptrs, layout.params>;
};

#if defined(__CUDA_ARCH__)
long long bind_group(const launch_context& ctx, const member_record* const* records, int members, void** ptr,
                     unsigned long long* param_bits, launch_shape* shape, void** target, int outer, int inner,
                     long long& rows, long long& cols, int& aligned);
#else
// Binds every member as a kernel alone (bind_kernel) into the group's flat
// arrays, sets the rows, the columns and whether the vector paths may run;
// returns the grid's blocks (one per SM at most; 0: no row).
inline long long bind_group(const launch_context& ctx, const member_record* const* records, int members,
                            void** ptr, unsigned long long* param_bits, launch_shape* shape, void** target,
                            int outer, int inner, long long& rows, long long& cols, int& aligned) {
  rows = ctx.extents[outer];
  cols = ctx.extents[inner];
  bool all = true;
  for (int m = 0; m < members; ++m) {
    const auto& r = *records[m];
    bind_kernel(ctx, *r.info, ptr, param_bits, shape[m]);
    target[m] = r.target_buffer >= 0 ? ctx.buffer_ptrs[r.target_buffer] : nullptr;
    if (r.kind != rows_member) all = rows_aligned(*r.info, ptr, cols) && all;
    ptr += r.buffers;
    param_bits += r.params;
  }
  aligned = all ? 1 : 0;
  long long blocks = ctx.sm_count > 0 ? ctx.sm_count : ctx.max_blocks;
  if (blocks > rows) blocks = rows;
  if (blocks > ctx.max_blocks) blocks = ctx.max_blocks;
  return blocks;
}
#endif

template <class Program, std::size_t Op,
          class I =
              std::make_index_sequence<static_cast<std::size_t>(group_pack<Program, Op>::layout.code_size)>>
struct row_group_entry;
template <class Program, std::size_t Op, std::size_t... I>
struct row_group_entry<Program, Op, std::index_sequence<I...>> {
  using pack = group_pack<Program, Op>;
  static cudaError_t launch(const launch_context& ctx, cudaStream_t stream) {
    typename pack::args args{};
    const long long blocks =
        bind_group(ctx, pack::records, pack::members, args.ptr, args.param_bits, args.shape, args.target,
                   pack::outer, pack::inner, args.rows, args.cols, args.aligned);
    if (blocks <= 0) return cudaSuccess;
    void* params[] = {&args};
    return cudaLaunchKernel(
        reinterpret_cast<const void*>(&row_group_kernel<pack::members, pack::layout.ptrs, pack::layout.params,
                                                        pack::encoded.code[I]...>),
        dim3(static_cast<unsigned>(blocks)), dim3(group_threads), params, 0, stream);
  }
};

template <class Program, std::size_t G>
struct group_fn_of {
  static constexpr group_fn value = &row_group_entry<Program, group_op(Program::plan(), G)>::launch;
};

}  // namespace streamdsl::cuda_detail
