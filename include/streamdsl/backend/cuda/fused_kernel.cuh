#pragma once
// The __global__ templates fused kernels instantiate: fused_kernel for a
// kernel launched alone, segmented_kernel for a launch of several
// (passes/join_launches.hpp), each segment running the same loop
// (fused_body) over its own blocks. Their integer pack is a kernel's (or a
// launch's) encoding (kernel_encoding.hpp); everything below is
// resolved at compile time from the pack, so a kernel compiles to straight-line
// loads, arithmetic and stores. Each thread handles `vec` consecutive
// elements per step of a grid-stride loop with 16-byte loads and stores when
// every pointer is aligned from some element `head` < vec on (a chunk may
// start off a 16-byte boundary); the head, the tail and unaligned buffers
// take a scalar grid-stride loop.
//
// Compile time: the pack is decoded once into types (an expression tree per
// statement, a list of buffers), and the device helpers are templates on those
// small types, not on the pack: a helper templated on the pack carries all of
// it in its name, and nvcc's front end and NVVM pay for every character of
// every such name.
//
// Only nvcc's device pass (cicc, __CUDA_ARCH__ defined) compiles kernel
// bodies: the host pass (cudafe++, then the host compiler) needs of a kernel
// its signature, to launch it, and would parse the device helpers for nothing.
// They, and the kernel's body, are for the device pass alone.
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "../../ir/dtype.hpp"
#include "fast_divider.hpp"
#include "kernel_encoding.hpp"
#if defined(__CUDA_ARCH__)
#include "../element_ops.hpp"
#endif

namespace streamdsl::cuda_detail {

// How many elements a launch iterates and where its vector path starts.
struct launch_shape {
  long long n = 0;
  int aligned = 0;       // every moved pointer 16-byte aligned at element `head`: the vector path may be used
  int head = 0;          // elements before the first vector step (< vec, <= n; 0 unless aligned)
  long long cols = 0;    // a rank-2 kernel's row length (its rows and columns read element k's row or column)
  fast_divider by_cols;  // divides by cols (set with it; unused when cols is 0)
};

// Kernel arguments: one pointer per local buffer (at its region's first
// element), param values as bit patterns, the shape (one struct, so that the
// host lays it out without knowing the kernel: kernel_table.hpp).
template <int Buffers, int Params>
struct kernel_args {
  void* ptr[Buffers > 0 ? Buffers : 1];
  unsigned long long param_bits[Params > 0 ? Params : 1];
  launch_shape shape;
};

// A segment of a multi-segment launch (kernel_encoding.hpp): which body it
// runs, its blocks (a virtual grid of its own), where its pointers and
// params start in the launch's arrays, and its shape.
struct segment_entry {
  launch_shape shape;
  int body = 0;
  int blocks = 0;
  int ptr_base = 0;
  int param_base = 0;
};

// A multi-segment launch's arguments: per segment its first block (a table
// the block's segment is found in), its entry, and every segment's
// pointers and param bits in flat arrays. Passed __grid_constant__: indexed by
// a run-time segment, it is read where the launch put it, not copied to
// local memory.
template <int Segments, int Ptrs, int Params>
struct segmented_args {
  int first_block[Segments];
  segment_entry segment[Segments];
  void* ptr[Ptrs > 0 ? Ptrs : 1];
  unsigned long long param_bits[Params > 0 ? Params : 1];
};
// CUDA 12.1+ takes up to 32764 bytes of kernel parameters (Volta and later).
inline constexpr std::size_t max_kernel_param_bytes = 32764;

// Each thread takes `vec` consecutive elements per step, `Unroll` steps a
// grid stride apart per iteration. bench/tuning.cu measured the choices on an
// H200 (bench/results_tuning_2026-11-30.log): a grid with one step per thread
// reaches memcpy bandwidth (98-101%) whatever the unroll, while a capped
// grid-stride loop stays near 91%; so the executor launches a full grid and
// Unroll only matters past the grid's size limit.
inline constexpr int default_unroll = 1;

#if defined(__CUDA_ARCH__)
namespace element = ::streamdsl::detail::element;

template <int... Code>
struct kernel_code {
  static constexpr int code[] = {Code...};
  static constexpr pack_view pack{code};
};

template <int D>
using dtype_t = type_of<static_cast<dtype>(D)>;

// Per-thread values of local buffer B (element type T) for the current step.
// Every index into them is a compile-time constant (the step's elements are
// unrolled, the scalar loop uses slot 0), so they stay in registers.
template <int Vec, int B, class T>
struct cell_leaf {
  alignas(16) T value[Vec];
};
template <int Vec, class Indices, class... T>
struct cell_set;
template <int Vec, int... B, class... T>
struct cell_set<Vec, std::integer_sequence<int, B...>, T...> : cell_leaf<Vec, B, T>... {};

template <int B, class T, int Vec>
__device__ __forceinline__ T* cell(cell_leaf<Vec, B, T>& leaf) {
  return leaf.value;
}

template <class T>
__device__ __forceinline__ T from_bits(unsigned long long bits) {
  if constexpr (std::is_same_v<T, double>) {
    return __longlong_as_double(static_cast<long long>(bits));
  } else if constexpr (category_of(dtype_v<T>) == dtype_category::floating) {
    return element::convert<T>(__longlong_as_double(static_cast<long long>(bits)));
  } else {
    return element::convert<T>(static_cast<long long>(bits));
  }
}

// --- expression trees: each node type evaluates itself ----------------------

// Element of local buffer B (element type T); a broadcast buffer holds one value.
template <int R, int T, int B, bool Broadcast>
struct load_node {
  template <class Cells, class Args>
  __device__ __forceinline__ static dtype_t<R> eval(Cells& c, const Args&, int v) {
    return cell<B, dtype_t<T>>(c)[Broadcast ? 0 : v];
  }
};

// Param Q (bound type P).
template <int R, int P, int Q>
struct param_node {
  template <class Cells, class Args>
  __device__ __forceinline__ static dtype_t<R> eval(Cells&, const Args& args, int) {
    return element::convert<dtype_t<R>>(from_bits<dtype_t<P>>(args.param_bits[Q]));
  }
};

template <int R, unsigned long long Bits>
struct literal_node {
  template <class Cells, class Args>
  __device__ __forceinline__ static dtype_t<R> eval(Cells&, const Args&, int) {
    return from_bits<dtype_t<R>>(Bits);
  }
};

// An operand in arithmetic type M for compute type CT: rounded to CT first,
// as on the host, which only changes a value when CT is a 16-bit type (M is
// then float); otherwise one conversion, so that kernels of the common types
// carry no second one for cicc to inline away.
template <class CT, class M, class X>
__device__ __forceinline__ M operand_in(X x) {
  if constexpr (std::is_same_v<CT, M>)
    return element::convert<M>(x);
  else
    return element::convert<M>(element::convert<CT>(x));
}

// Every other op: operands A, B, C (unused ones void).
template <int Op, int R, int C, class A, class B, class Cc>
struct op_node {
  template <class Cells, class Args>
  __device__ __forceinline__ static dtype_t<R> eval(Cells& c, const Args& args, int v) {
    constexpr auto code = static_cast<ir::op>(Op);
    constexpr auto kind = ir::kind_of(code);
    using RT = dtype_t<R>;
    using CT = dtype_t<C>;
    using M = element::math_t<CT>;
    // Operands become the compute type first, then the arithmetic type, as on
    // the host: a float param, a literal or an int32_t with __half data is
    // rounded to __half before the operation (a no-op unless CT is 16-bit).
    if constexpr (kind == ir::op_kind::convert) {
      return element::convert<RT>(A::eval(c, args, v));
    } else if constexpr (kind == ir::op_kind::unary) {
      const M a = operand_in<CT, M>(A::eval(c, args, v));
      return element::convert<RT>(element::unary<M>(code, a));
    } else if constexpr (kind == ir::op_kind::arithmetic || kind == ir::op_kind::predicate) {
      const M a = operand_in<CT, M>(A::eval(c, args, v));
      const M b = operand_in<CT, M>(B::eval(c, args, v));
      if constexpr (kind == ir::op_kind::predicate)
        return element::predicate<M>(code, a, b);
      else
        return element::convert<RT>(element::arithmetic<M>(code, a, b));
    } else {
      static_assert(kind == ir::op_kind::select);
      const bool cond = element::convert<bool>(A::eval(c, args, v));
      return cond ? element::convert<RT>(B::eval(c, args, v)) : element::convert<RT>(Cc::eval(c, args, v));
    }
  }
};

// Statement: local buffer Target (element type T) = Tree.
template <int Target, int T, class Tree>
struct statement_node {
  template <class Cells, class Args>
  __device__ __forceinline__ static void run(Cells& c, const Args& args, int v) {
    cell<Target, dtype_t<T>>(c)[v] = Tree::eval(c, args, v);
  }
};

// Moves `Vec` elements between memory and a cell: 16-byte accesses when
// aligned, copied through a register word so the cell is never aliased.
// Streaming: those 16-byte accesses marked as touched once (ld/st.global.cs:
// evict first from the caches), for a row group's last pass (row_group.cuh).
template <class T, int Vec, bool Load, bool Aligned, bool Streaming = false>
__device__ __forceinline__ void move_step(T* cellv, T* mem) {
  constexpr int bytes = Vec * static_cast<int>(sizeof(T));
  if constexpr (Aligned && bytes % 16 == 0) {
#pragma unroll
    for (int w = 0; w < bytes / 16; ++w) {
      constexpr int per_word = 16 / static_cast<int>(sizeof(T));
      if constexpr (Load) {
        const uint4 word = Streaming ? __ldcs(reinterpret_cast<const uint4*>(mem) + w)
                                     : reinterpret_cast<const uint4*>(mem)[w];
        memcpy(cellv + w * per_word, &word, 16);
      } else {
        uint4 word;
        memcpy(&word, cellv + w * per_word, 16);
        if constexpr (Streaming)
          __stcs(reinterpret_cast<uint4*>(mem) + w, word);
        else
          reinterpret_cast<uint4*>(mem)[w] = word;
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < Vec; ++i) {
      if constexpr (Load)
        cellv[i] = mem[i];
      else
        mem[i] = cellv[i];
    }
  }
}

// Local buffer B: element type T, buffer_flag bits.
template <int B, int T, int Flags>
struct buffer_node {
  // Loads (or stores) the elements at `base` if the kernel needs it: Count =
  // vec for a full step, 1 for one element.
  template <bool Load, bool Aligned, int Count, class Cells, class Args>
  __device__ __forceinline__ static void move(Cells& c, const Args& args, long long base) {
    using E = dtype_t<T>;
    auto* mem = static_cast<E*>(args.ptr[B]);
    if constexpr ((Flags & buffer_flag::broadcast) != 0) {
      if constexpr (Load) cell<B, E>(c)[0] = mem[0];  // a 0-d value, read once
    } else if constexpr ((Flags & (buffer_flag::row | buffer_flag::column)) != 0) {
      // A row (element k % cols) or column (k / cols) of a rank-2 kernel
      // (ir/shape.hpp): one division per step, by multiplication with the
      // launch's magic number (fast_divider.hpp: no division routine), then
      // counted. Only kernels that read one pay it; the vector stays in cache.
      if constexpr (Load) {
        const long long cols = args.shape.cols;
        long long r =
            static_cast<long long>(args.shape.by_cols.quotient(static_cast<unsigned long long>(base)));
        long long j = base - r * cols;
        E* out = cell<B, E>(c);
#pragma unroll
        for (int v = 0; v < Count; ++v) {
          out[v] = mem[(Flags & buffer_flag::row) != 0 ? j : r];
          if (++j == cols) {
            j = 0;
            ++r;
          }
        }
      }
    } else if constexpr (Load ? (Flags & buffer_flag::load) != 0 : (Flags & buffer_flag::store) != 0) {
      move_step<E, Count, Load, Aligned>(cell<B, E>(c), mem + base);
    }
  }
};

template <class... Buffers>
struct buffer_list {
  template <bool Load, bool Aligned, int Count, class Cells, class Args>
  __device__ __forceinline__ static void move(Cells& c, const Args& args, long long base) {
    (Buffers::template move<Load, Aligned, Count>(c, args, base), ...);
  }
};

template <class... Statements>
struct statement_list {
  template <class Cells, class Args>
  __device__ __forceinline__ static void run(Cells& c, const Args& args, int v) {
    (Statements::run(c, args, v), ...);
  }
};

// --- decoding a pack into those types (class templates only: nothing here is
// emitted, and nothing is instantiated per element) ---------------------------

template <class KC, int Pos, ir::op Op = KC::pack.op(Pos), int Arity = ir::arity(Op)>
struct tree_at;
template <class KC, int Pos>
struct tree_of {  // the tree of the node at position Pos
  using type = typename tree_at<KC, Pos>::type;
};
template <class KC>
struct tree_of<KC, -1> {  // an operand the op does not have
  using type = void;
};
// Position of operand I of the node at Pos, -1 past its arity.
template <class KC, int Pos, int I, int Arity>
inline constexpr int operand_at = I < Arity ? KC::pack.operand(Pos, I) : -1;
template <class KC, int Pos, ir::op Op, int Arity>
struct tree_at {  // an op node
  using type = op_node<static_cast<int>(Op), static_cast<int>(KC::pack.type(Pos)),
                       static_cast<int>(KC::pack.compute(Pos)),
                       typename tree_of<KC, operand_at<KC, Pos, 0, Arity>>::type,
                       typename tree_of<KC, operand_at<KC, Pos, 1, Arity>>::type,
                       typename tree_of<KC, operand_at<KC, Pos, 2, Arity>>::type>;
};
template <class KC, int Pos>
struct tree_at<KC, Pos, ir::op::load, 0> {
  static constexpr int b = KC::pack.ref(Pos);
  using type = load_node<static_cast<int>(KC::pack.type(Pos)), static_cast<int>(KC::pack.buffer_type(b)), b,
                         (KC::pack.buffer_flags(b) & buffer_flag::broadcast) != 0>;
};
template <class KC, int Pos>
struct tree_at<KC, Pos, ir::op::param, 0> {
  static constexpr int q = KC::pack.ref(Pos);
  using type = param_node<static_cast<int>(KC::pack.type(Pos)), static_cast<int>(KC::pack.param_type(q)), q>;
};
template <class KC, int Pos>
struct tree_at<KC, Pos, ir::op::literal, 0> {
  using type = literal_node<static_cast<int>(KC::pack.type(Pos)), KC::pack.literal_bits(Pos)>;
};

template <class KC, int B>
using buffer_at = buffer_node<B, static_cast<int>(KC::pack.buffer_type(B)), KC::pack.buffer_flags(B)>;

template <class KC, int S>
using statement_at =
    statement_node<KC::pack.target(S), static_cast<int>(KC::pack.buffer_type(KC::pack.target(S))),
                   typename tree_of<KC, KC::pack.root(S)>::type>;

template <class KC, class Buffers = std::make_integer_sequence<int, KC::pack.buffer_count()>,
          class Statements = std::make_integer_sequence<int, KC::pack.statement_count()>>
struct kernel_types;
template <class KC, int... B, int... S>
struct kernel_types<KC, std::integer_sequence<int, B...>, std::integer_sequence<int, S...>> {
  static constexpr int vec = KC::pack.vec();
  template <int Vec>
  using cells = cell_set<Vec, std::integer_sequence<int, B...>, type_of<KC::pack.buffer_type(B)>...>;
  using buffers = buffer_list<buffer_at<KC, B>...>;
  using statements = statement_list<statement_at<KC, S>...>;
};

// --- the kernel ----------------------------------------------------------------

template <class Statements, class Cells, class Args, int... V>
__device__ __forceinline__ void run_step(Cells& c, const Args& args, std::integer_sequence<int, V...>) {
  (Statements::run(c, args, V), ...);
}

// Steps `U...` (a grid stride apart): all loads first, then the arithmetic,
// then all stores, so several 16-byte loads per thread are in flight. Steps
// touch disjoint elements, bound buffers never overlap (checked when
// binding) and two chunks of one buffer in a kernel are one local buffer or
// disjoint (chunks of one size), so the reordering is safe.
template <class Buffers, class Statements, class Cells, int Vec, class Args, int... U>
__device__ __forceinline__ void full_steps(const Args& args, long long base, long long step,
                                           std::integer_sequence<int, U...>) {
  Cells c[sizeof...(U)];
  (Buffers::template move<true, true, Vec>(c[U], args, base + U * step), ...);
  (run_step<Statements>(c[U], args, std::make_integer_sequence<int, Vec>{}), ...);
  (Buffers::template move<false, true, Vec>(c[U], args, base + U * step), ...);
}

// A fused kernel's loop over its elements, for `threads` threads of which
// this is `thread` (the grid, or a segment's blocks of a multi-segment
// launch). Templated on the decoded types, not on the pack (see above).
template <int Unroll, int Vec, class Buffers, class Statements, class Cells, class Args>
__device__ __forceinline__ void fused_body(const Args& args, const long long thread,
                                           const long long threads) {
  const long long head = args.shape.head;
  long long scalar_begin = 0;
  if (args.shape.aligned) {
    const long long step = threads * Vec;
    const long long full_end = head + (args.shape.n - head) / Vec * Vec;
    long long base = head + thread * Vec;
    if constexpr (Unroll > 1)
      for (; base + (Unroll - 1) * step < full_end; base += Unroll * step)
        full_steps<Buffers, Statements, Cells, Vec>(args, base, step,
                                                    std::make_integer_sequence<int, Unroll>{});
    for (; base < full_end; base += step)
      full_steps<Buffers, Statements, Cells, Vec>(args, base, step, std::integer_sequence<int, 0>{});
    scalar_begin = full_end;
  }
  // Unaligned buffers, and the head and tail of aligned ones (each fewer
  // than vec elements): one element per thread per step, the head's
  // elements [0, head) numbered first, then the tail's [scalar_begin, n),
  // in one loop (the statements are inlined once). Coalesced scalar accesses
  // are as fast as a vector path without 16-byte accesses, and compiling the
  // statements once more costs less than vec times more. The cells are the
  // vector path's (only element 0 is used, the rest is never touched and
  // takes no register), so each statement's evaluation is instantiated once
  // for both paths: 12% of cicc's time on the 200-statement benchmark.
  const long long scalar_count = head + (args.shape.n - scalar_begin);
  for (long long j = thread; j < scalar_count; j += threads) {
    const long long i = j < head ? j : scalar_begin + (j - head);
    Cells c;
    Buffers::template move<true, false, 1>(c, args, i);
    Statements::run(c, args, 0);
    Buffers::template move<false, false, 1>(c, args, i);
  }
}

// Body B of a launch's pack (kernel_encoding.hpp: a kernel's pack at its position).
template <class KC, int B>
struct body_code {
  static constexpr pack_view pack = KC::launch.body(B);
};

// Runs body B for the segment `e`: its pointers and params copied from the
// launch's arrays into a kernel's own arguments (indices known here, so they
// live in registers, and the loop reads no parameter memory).
template <int Unroll, class K, int Buffers, int Params, class Launch>
__device__ __forceinline__ void run_segment(const Launch& args, const segment_entry& e, long long thread,
                                            long long threads) {
  kernel_args<Buffers, Params> own;
#pragma unroll
  for (int b = 0; b < Buffers; ++b) own.ptr[b] = args.ptr[e.ptr_base + b];
#pragma unroll
  for (int q = 0; q < Params; ++q) own.param_bits[q] = args.param_bits[e.param_base + q];
  own.shape = e.shape;
  fused_body<Unroll, K::vec, typename K::buffers, typename K::statements, typename K::template cells<K::vec>>(
      own, thread, threads);
}

template <int Unroll, class KC, class Launch, int... B>
__device__ __forceinline__ void run_body(const Launch& args, const segment_entry& e, long long thread,
                                         long long threads, std::integer_sequence<int, B...>) {
  (void)((e.body == B &&
          (run_segment<Unroll, kernel_types<body_code<KC, B>>, body_code<KC, B>::pack.buffer_count(),
                       body_code<KC, B>::pack.param_count()>(args, e, thread, threads),
           true)) ||
         ...);
}

template <int... Code>
struct launch_code {
  static constexpr int code[] = {Code...};
  static constexpr launch_pack_view launch{code};
};

#endif  // defined(__CUDA_ARCH__)

// Buffers and Params repeat the pack's header: the host (which launches the
// kernel) gets its argument type without decoding the pack.
template <int Unroll, int Buffers, int Params, int... Code>
__global__ void fused_kernel(kernel_args<Buffers, Params> args) {
#if defined(__CUDA_ARCH__)
  using K = kernel_types<kernel_code<Code...>>;
  constexpr int vec = K::vec;
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  fused_body<Unroll, vec, typename K::buffers, typename K::statements, typename K::template cells<vec>>(
      args, thread, threads);
#else
  (void)args;
#endif
}

// A multi-segment launch (kernel_encoding.hpp's launch pack): each block
// finds its segment (the last whose first block is at most its own: a
// segment without blocks is never found) and runs that segment's body over
// the segment's blocks as its grid.
template <int Unroll, int Segments, int Ptrs, int Params, int... Code>
__global__ void segmented_kernel(const __grid_constant__ segmented_args<Segments, Ptrs, Params> args) {
#if defined(__CUDA_ARCH__)
  using KC = launch_code<Code...>;
  const int block = static_cast<int>(blockIdx.x);
  int lo = 0, hi = Segments - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (args.first_block[mid] <= block)
      lo = mid;
    else
      hi = mid - 1;
  }
  const segment_entry& e = args.segment[lo];
  const long long threads = static_cast<long long>(e.blocks) * blockDim.x;
  const long long thread = static_cast<long long>(block - args.first_block[lo]) * blockDim.x + threadIdx.x;
  run_body<Unroll, KC>(args, e, thread, threads, std::make_integer_sequence<int, KC::launch.body_count()>{});
#else
  (void)args;
#endif
}

}  // namespace streamdsl::cuda_detail
