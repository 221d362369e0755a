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
//   - a kernel over P's rows runs its statements for element r on thread 0;
//   - a max of E followed by sum(exp(E - max), cols) (a softmax's:
//     folds_into_max) is one pass, an online fold of (max, sum) as
//     Inductor's softmax does (run_max_sum), storing both results.
// Inside a row, a member's moves know r (in_row): a value over P's rows or a
// 0-d one is loaded once per row into a register, a buffer over P's columns
// is read at the column; only matrix elements take r * cols + k.
// A __syncthreads follows every member: what it stored (a row's result, a
// matrix row) is visible to the block's threads in the next member, and the
// block reduction's shared storage is free again (a folded sum runs nothing
// and has none). The values and their order per thread differ from the
// separate row kernels only in the order float sums add (as between the row
// kernels and the host) and, for a folded sum, in the rounding of the
// rescaling factors (a relative few ulp per rescale). Included by
// reductions.cuh (a group has a reduction).
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <limits>
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
enum group_member_kind : int {
  reduction_member = 0,
  matrix_member = 1,
  rows_member = 2,
  max_sum_member = 3,  // a max with the next member's sum of exp(E - max) folded in (folds_into_max)
  folded_member = 4,   // that sum: computed and stored by the member before it
};
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

// A member's buffer moved within row r, as buffer_node::move moves it at
// flat index base + k (base = r * cols, k the column), without the flat
// index's division: a value per row (a buffer over P's rows: element r; a
// 0-d value) is loaded once per row into `row` (fetch) and copied into every
// element of the step's cell (a register: the copies cost nothing), and a
// buffer over P's columns is read at column k (16-byte loads where aligned:
// rows_aligned checks it too). Streaming (the group's last member, when it
// is a kernel over P): its matrix accesses evict first (move_step), so that
// the rows it writes, and the rows it reads for the last time, leave L2 to
// the rows in flight that earlier members' passes read again.
template <class Buffer, bool Streaming = false>
struct in_row;
template <int B, int T, int Flags, bool Streaming>
struct in_row<buffer_node<B, T, Flags>, Streaming> {
  using E = dtype_t<T>;
  static constexpr bool per_row = (Flags & (buffer_flag::broadcast | buffer_flag::column)) != 0;
  template <class Cells, class Args>
  __device__ __forceinline__ static void fetch(Cells& row, const Args& args, long long r) {
    if constexpr (per_row)
      cell<B, E>(row)[0] = static_cast<const E*>(args.ptr[B])[(Flags & buffer_flag::broadcast) != 0 ? 0 : r];
  }
  template <bool Load, bool Aligned, int Count, class Cells, class Args>
  __device__ __forceinline__ static void move(Cells& c, Cells& row, const Args& args, long long base,
                                              long long k) {
    if constexpr (per_row) {
      if constexpr (Load) {
#pragma unroll
        for (int v = 0; v < Count; ++v) cell<B, E>(c)[v] = cell<B, E>(row)[0];
      }
    } else if constexpr ((Flags & buffer_flag::row) != 0) {
      if constexpr (Load) move_step<E, Count, true, Aligned>(cell<B, E>(c), static_cast<E*>(args.ptr[B]) + k);
    } else if constexpr (Load ? (Flags & buffer_flag::load) != 0 : (Flags & buffer_flag::store) != 0) {
      move_step<E, Count, Load, Aligned, Streaming>(cell<B, E>(c), static_cast<E*>(args.ptr[B]) + base + k);
    }
  }
};
template <class List, bool Streaming = false>
struct row_moves;
template <class... Buffers, bool Streaming>
struct row_moves<buffer_list<Buffers...>, Streaming> {
  template <class Cells, class Args>
  __device__ __forceinline__ static void fetch(Cells& row, const Args& args, long long r) {
    (in_row<Buffers, Streaming>::fetch(row, args, r), ...);
  }
  template <bool Load, bool Aligned, int Count, class Cells, class Args>
  __device__ __forceinline__ static void move(Cells& c, Cells& row, const Args& args, long long base,
                                              long long k) {
    (in_row<Buffers, Streaming>::template move<Load, Aligned, Count>(c, row, args, base, k), ...);
  }
};

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
  using moves = row_moves<typename E::buffers>;
  using block_reduce = cub::BlockReduce<V, group_threads>;
  __shared__ typename block_reduce::TempStorage shared;
  const Op op{};
  V acc;
  if constexpr (arg)
    acc = V{LLONG_MAX, reduce_identity<ir::step_code::max, A>()};
  else
    acc = reduce_identity<code, A>();
  const long long base = r * cols;
  typename E::cells row;
  moves::fetch(row, args, r);
  long long tail = 0;
  if (aligned) {
    constexpr long long stride = static_cast<long long>(group_threads) * vec;
    const long long full = cols / vec * vec;
    long long k = static_cast<long long>(threadIdx.x) * vec;
    for (; k + 3 * stride < full; k += 4 * stride) {  // four vectors in flight
      typename E::cells c[4];
#pragma unroll
      for (int u = 0; u < 4; ++u)
        moves::template move<true, true, vec>(c[u], row, args, base, k + u * stride);
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int v = 0; v < vec; ++v)
          acc = op(acc, row_value<code, A, E>(c[u], args, v, base + k + u * stride + v));
    }
    for (; k < full; k += stride) {
      typename E::cells c;
      moves::template move<true, true, vec>(c, row, args, base, k);
#pragma unroll
      for (int v = 0; v < vec; ++v) acc = op(acc, row_value<code, A, E>(c, args, v, base + k + v));
    }
    tail = full;
  }
  for (long long k = tail + threadIdx.x; k < cols; k += group_threads) {
    typename E::cells c;
    moves::template move<true, false, 1>(c, row, args, base, k);
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

// The online fold of a max and the sum of exp(E - max) after it (a float
// or double A: folds_into_max): a pair (m, s), m the max so far (ignoring NaN,
// as max does) and s the sum of exp(x - ref(m)) over the elements so far,
// ref(m) = m, or 0 while m is -inf (then every element so far is -inf, whose
// exp(-inf - 0) is 0, or NaN). A larger m rescales s by exp(ref(old) -
// ref(new)), unless s is 0 (nothing yet: an empty pair's m is NaN). The sum
// is the one the separate members compute but for rounding (each rescaled
// term carries its factor's rounding): a NaN element, or a +inf one (exp(inf
// - inf)), makes it NaN, -inf elements add 0, and a row whose max is -inf
// (every element -inf or NaN) gets NaN, as exp(-inf - -inf) gives.
template <class A>
struct max_sum {
  A m;
  A s;
};
template <class A>
__device__ __forceinline__ A fold_ref(A m) {
  return m == -std::numeric_limits<A>::infinity() ? A(0) : m;
}
template <class A>
__device__ __forceinline__ A fold_exp(A x, A ref) {  // the sum's exp(E - top), top = ref
  return element::unary<A>(ir::op::exp, element::arithmetic<A>(ir::op::sub, x, ref));
}
template <class A>
__device__ __forceinline__ A rescaled(A s, A from, A to) {
  return s == A(0) ? A(0) : element::arithmetic<A>(ir::op::mul, s, fold_exp(fold_ref(from), fold_ref(to)));
}
template <class A>
struct max_sum_op {
  __device__ __forceinline__ max_sum<A> operator()(const max_sum<A>& a, const max_sum<A>& b) const {
    const A m = detail::reduce::combine(ir::step_code::max, a.m, b.m);
    return {m, element::arithmetic<A>(ir::op::add, rescaled(a.s, a.m, m), rescaled(b.s, b.m, m))};
  }
};
// Folds `count` values into the pair: their max first, then their terms
// against the new reference, the pair's s rescaled once.
template <class A, int Count>
__device__ __forceinline__ void fold_values(max_sum<A>& acc, const A (&x)[Count]) {
  A top = x[0];
#pragma unroll
  for (int i = 1; i < Count; ++i) top = detail::reduce::combine(ir::step_code::max, top, x[i]);
  const A m = detail::reduce::combine(ir::step_code::max, acc.m, top);
  const A ref = fold_ref(m);
  A s = rescaled(acc.s, acc.m, m);
#pragma unroll
  for (int i = 0; i < Count; ++i) s = element::arithmetic<A>(ir::op::add, s, fold_exp(x[i], ref));
  acc = {m, s};
}

// Member MC (a max) and the sum NC after it over row r, in one pass.
template <class MC, class NC, class Args>
__device__ __forceinline__ void run_max_sum(const Args& args, void* top_target, void* sum_target, long long r,
                                            long long cols, bool aligned) {
  using A = type_of<MC::accumulated>;
  constexpr int vec = expression_vec<MC>();
  using E = row_expression<MC, vec>;
  using moves = row_moves<typename E::buffers>;
  using block_reduce = cub::BlockReduce<max_sum<A>, group_threads>;
  __shared__ typename block_reduce::TempStorage shared;
  max_sum<A> acc{reduce_identity<ir::step_code::max, A>(), A(0)};
  const long long base = r * cols;
  typename E::cells row;
  moves::fetch(row, args, r);
  long long tail = 0;
  if (aligned) {
    constexpr long long stride = static_cast<long long>(group_threads) * vec;
    const long long full = cols / vec * vec;
    long long k = static_cast<long long>(threadIdx.x) * vec;
    for (; k + 3 * stride < full; k += 4 * stride) {  // four vectors in flight, folded as one
      typename E::cells c[4];
#pragma unroll
      for (int u = 0; u < 4; ++u)
        moves::template move<true, true, vec>(c[u], row, args, base, k + u * stride);
      A x[4 * vec];
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int v = 0; v < vec; ++v) x[u * vec + v] = element::convert<A>(E::tree::eval(c[u], args, v));
      fold_values(acc, x);
    }
    for (; k < full; k += stride) {
      typename E::cells c;
      moves::template move<true, true, vec>(c, row, args, base, k);
      A x[vec];
#pragma unroll
      for (int v = 0; v < vec; ++v) x[v] = element::convert<A>(E::tree::eval(c, args, v));
      fold_values(acc, x);
    }
    tail = full;
  }
  for (long long k = tail + threadIdx.x; k < cols; k += group_threads) {
    typename E::cells c;
    moves::template move<true, false, 1>(c, row, args, base, k);
    const A x[1] = {element::convert<A>(E::tree::eval(c, args, 0))};
    fold_values(acc, x);
  }
  const max_sum<A> total = block_reduce(shared).Reduce(acc, max_sum_op<A>{});
  if (threadIdx.x == 0) {
    using R = type_of<MC::result>;
    using T = type_of<MC::target>;
    using R2 = type_of<NC::result>;
    using T2 = type_of<NC::target>;
    row_store<ir::step_code::max, A, R, T>{static_cast<T*>(top_target), cols}(r, total.m);
    const A s =
        total.m == -std::numeric_limits<A>::infinity() ? std::numeric_limits<A>::quiet_NaN() : total.s;
    row_store<ir::step_code::sum, A, R2, T2>{static_cast<T2*>(sum_target), cols}(r, s);
  }
}

// Steps `U...` of a kernel over P within row r (fused_kernel.cuh's
// full_steps, with the moves of in_row).
template <class Moves, class Statements, class Cells, int Vec, class Args, int... U>
__device__ __forceinline__ void row_steps(const Args& args, Cells& row, long long base, long long k,
                                          long long step, std::integer_sequence<int, U...>) {
  Cells c[sizeof...(U)];
  (Moves::template move<true, true, Vec>(c[U], row, args, base, k + U * step), ...);
  (run_step<Statements>(c[U], args, std::make_integer_sequence<int, Vec>{}), ...);
  (Moves::template move<false, true, Vec>(c[U], row, args, base, k + U * step), ...);
}

// A kernel over P (row r's elements) or over P's rows (element r, thread 0);
// Last: the group's last member.
template <class MC, bool Last, class Args>
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
    using moves = row_moves<typename K::buffers, Last>;
    const long long base = r * cols;
    Cells row;
    moves::fetch(row, args, r);
    long long tail = 0;
    if (aligned) {
      constexpr long long stride = static_cast<long long>(group_threads) * vec;
      const long long full = cols / vec * vec;
      long long k = static_cast<long long>(threadIdx.x) * vec;
      for (; k + stride < full; k += 2 * stride)  // two vectors in flight
        row_steps<moves, typename K::statements, Cells, vec>(args, row, base, k, stride,
                                                             std::integer_sequence<int, 0, 1>{});
      for (; k < full; k += stride)
        row_steps<moves, typename K::statements, Cells, vec>(args, row, base, k, stride,
                                                             std::integer_sequence<int, 0>{});
      tail = full;
    }
    for (long long k = tail + threadIdx.x; k < cols; k += group_threads) {
      Cells c;
      moves::template move<true, false, 1>(c, row, args, base, k);
      K::statements::run(c, args, 0);
      moves::template move<false, false, 1>(c, row, args, base, k);
    }
  }
}

// Member M over row r, with its pointers and params copied from the group's
// arrays into a kernel's own arguments (indices known here: registers).
template <class GC, int M, class Group>
__device__ __forceinline__ void run_member(const Group& g, long long r, bool aligned) {
  using MC = member_code<GC, M>;
  if constexpr (MC::kind != folded_member) {
    kernel_args<MC::buffers, MC::params> own;
#pragma unroll
    for (int b = 0; b < MC::buffers; ++b) own.ptr[b] = g.ptr[MC::ptr_base + b];
#pragma unroll
    for (int q = 0; q < MC::params; ++q) own.param_bits[q] = g.param_bits[MC::param_base + q];
    own.shape = g.shape[M];
    if constexpr (MC::kind == reduction_member)
      run_reduction<MC>(own, g.target[M], r, g.cols, aligned);
    else if constexpr (MC::kind == max_sum_member)
      run_max_sum<MC, member_code<GC, M + 1>>(own, g.target[M], g.target[M + 1], r, g.cols, aligned);
    else
      run_kernel<MC, M + 1 == GC::code[0]>(own, r, g.cols, aligned);
    __syncthreads();
  }
}

// Each member over row r in turn, a __syncthreads after each (see above;
// a folded member has nothing left to run).
template <class GC, class Group, int... M>
__device__ __forceinline__ void run_members(const Group& g, long long r, bool aligned,
                                            std::integer_sequence<int, M...>) {
  (run_member<GC, M>(g, r, aligned), ...);
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

// Whether every pointer the member moves at its columns (a matrix, or a
// buffer over P's columns: not a 0-d value or one over P's rows) is 16-byte
// aligned at every row's start.
inline bool rows_aligned(const kernel_launch_info& info, void* const* ptr, long long cols) {
  const pack_view code{info.code};
  for (int b = 0; b < code.buffer_count(); ++b) {
    const int flags = code.buffer_flags(b);
    const bool columns = (flags & buffer_flag::row) != 0;  // read at column k in every row
    if (((flags & (buffer_flag::load | buffer_flag::store)) == 0 && !columns) ||
        (flags & (buffer_flag::broadcast | buffer_flag::column)) != 0)
      continue;
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

// Whether the sum at statement `sum` folds into the max at statement `top`
// before it in a group (run_max_sum: one pass over the row for both): the
// max of an expression E into a buffer t over the rows, then
// sum(exp(E - t), cols) with the same E (node for node), in float or
// double throughout (E, the max's accumulated, result and target types, the
// subtraction, the exponential and the sum's accumulation), E not reading t.
// A softmax written out (exp(x - max) / sum), or whose exponential is a
// matrix temp (passes/row_groups.hpp recomputes it inside the sum).
constexpr bool same_tree(const ir::program_view& p, std::int32_t a, std::int32_t b) {
  if (a == b) return true;
  if (a < 0 || b < 0) return false;
  const auto& x = p.nodes[static_cast<std::size_t>(a)];
  const auto& y = p.nodes[static_cast<std::size_t>(b)];
  if (x.code != y.code || x.type != y.type || x.compute != y.compute || x.ref != y.ref ||
      x.domain != y.domain || x.part != y.part || x.parts != y.parts)
    return false;
  // Literals by value; 0 (whose sign == cannot see) and NaN never match.
  if (x.code == ir::op::literal && !(x.fvalue == y.fvalue && x.fvalue != 0 && x.ivalue == y.ivalue))
    return false;
  return same_tree(p, x.a, y.a) && same_tree(p, x.b, y.b) && same_tree(p, x.c, y.c);
}
constexpr bool tree_loads(const ir::program_view& p, std::int32_t n, std::int32_t buffer) {
  if (n < 0) return false;
  const auto& x = p.nodes[static_cast<std::size_t>(n)];
  if (x.code == ir::op::load && x.ref == buffer) return true;
  return tree_loads(p, x.a, buffer) || tree_loads(p, x.b, buffer) || tree_loads(p, x.c, buffer);
}
constexpr bool folds_into_max(const ir::program_view& p, std::int32_t top, std::int32_t sum) {
  const auto& mx = p.stmts[static_cast<std::size_t>(top)];
  const auto& sm = p.stmts[static_cast<std::size_t>(sum)];
  if (mx.kind != ir::stmt_kind::step || sm.kind != ir::stmt_kind::step || mx.code != ir::step_code::max ||
      sm.code != ir::step_code::sum)
    return false;
  const auto mt = ir::step_types_of(p, mx), st = ir::step_types_of(p, sm);
  const dtype a = mt.accumulated;
  if ((a != dtype::float32 && a != dtype::float64) || mt.result != a || mt.target != a ||
      st.accumulated != a || p.nodes[static_cast<std::size_t>(mx.root)].type != a)
    return false;
  const auto& e = p.nodes[static_cast<std::size_t>(sm.root)];
  if (e.code != ir::op::exp || e.type != a || e.compute != a || e.a < 0) return false;
  const auto& d = p.nodes[static_cast<std::size_t>(e.a)];
  if (d.code != ir::op::sub || d.type != a || d.compute != a || d.a < 0 || d.b < 0) return false;
  const auto& t = p.nodes[static_cast<std::size_t>(d.b)];
  const auto& target = ir::target_of(p, mx);
  return ir::is_whole(target) && t.code == ir::op::load && t.ref == target.buffer && t.type == a &&
         t.parts == 1 && same_tree(p, mx.root, d.a) && !tree_loads(p, mx.root, target.buffer);
}

// Each member's kind in the group whose first op is `first`: a max whose next
// member is a sum folding into it (folds_into_max) becomes max_sum_member,
// that sum folded_member.
template <int Members>
struct group_kinds {
  int kind[Members] = {};
};
template <int Members>
constexpr group_kinds<Members> kinds_of(const plan_view& plan, std::size_t first,
                                        const member_record* const* m) {
  group_kinds<Members> out{};
  for (int i = 0; i < Members; ++i) out.kind[i] = m[i]->kind;
  for (int i = 0; i + 1 < Members; ++i) {
    const auto& a = plan.ops[first + static_cast<std::size_t>(i)];
    const auto& b = plan.ops[first + static_cast<std::size_t>(i) + 1];
    if (out.kind[i] == reduction_member && out.kind[i + 1] == reduction_member &&
        folds_into_max(plan.ir, a.stmt, b.stmt)) {
      out.kind[i] = max_sum_member;
      out.kind[i + 1] = folded_member;
    }
  }
  return out;
}

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
constexpr encoded_group<Size, Members> encode_group(const member_record* const* m, const int* kinds) {
  encoded_group<Size, Members> out{};
  out.code[0] = Members;
  int at = 1 + Members, ptr = 0, param = 0;
  for (int i = 0; i < Members; ++i) {
    out.code[1 + i] = at;
    const int fields[member_fields] = {kinds[i],     m[i]->step,   m[i]->accumulated,
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
  static constexpr group_kinds<members> kinds = kinds_of<members>(Program::plan(), Op, records);
  static constexpr encoded_group<layout.code_size, members> encoded =
      encode_group<layout.code_size, members>(records, kinds.kind);
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
