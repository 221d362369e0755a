#pragma once
// The one __global__ template every fused kernel instantiates. Its integer
// pack is a kernel's encoding (kernel_encoding.hpp); everything below is
// resolved at compile time from the pack, so a kernel compiles to straight-line
// loads, arithmetic and stores. Each thread handles `vec` consecutive
// elements per step of a grid-stride loop, with 16-byte loads and stores when
// every pointer is aligned, and a scalar path for the tail.
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "../../detail/element_ops.hpp"
#include "../../dsl/dtype.hpp"
#include "kernel_encoding.hpp"

namespace streamdsl::cuda_detail {

namespace element = ::streamdsl::detail::element;

template <int... Code>
struct kernel_code {
  static constexpr int code[] = {Code...};
  static constexpr int vec = code[0];
  static constexpr int buffers = code[1];
  static constexpr int params = code[2];
  static constexpr int statements = code[3];
  static constexpr int nodes = code[4];
  static constexpr int buffer_base = header_size;
  static constexpr int param_base = buffer_base + buffer_fields * buffers;
  static constexpr int statement_base = param_base + params;
  static constexpr int node_base = statement_base + statement_fields * statements;

  static constexpr int buffer_type(int b) { return code[buffer_base + buffer_fields * b]; }
  static constexpr int buffer_flags(int b) { return code[buffer_base + buffer_fields * b + 1]; }
  static constexpr int param_type(int q) { return code[param_base + q]; }
  static constexpr int target(int s) { return code[statement_base + statement_fields * s]; }
  static constexpr int root(int s) { return code[statement_base + statement_fields * s + 1]; }
  static constexpr int node(int n, int field) { return code[node_base + node_fields * n + field]; }
};

// Kernel arguments: one pointer per local buffer, param values as bit patterns.
template <int Buffers, int Params>
struct kernel_args {
  void* ptr[Buffers > 0 ? Buffers : 1];
  unsigned long long param_bits[Params > 0 ? Params : 1];
  long long n;
  int aligned;  // every pointer 16-byte aligned: the vector path may be used
};

template <class KC>
using args_of = kernel_args<KC::buffers, KC::params>;

template <class KC, int B>
using buffer_t = type_of<static_cast<dtype>(KC::buffer_type(B))>;

// Per-thread values of every local buffer for the current step: buffer B
// lives in cells<KC, B + 1>::value. Every index into them is a compile-time
// constant (the step's elements are unrolled, the tail runs one element at a
// time in slot 0), so they stay in registers.
template <class KC, int B>
struct cells : cells<KC, B - 1> {
  alignas(16) buffer_t<KC, B - 1> value[KC::vec];
};
template <class KC>
struct cells<KC, 0> {};

template <class KC, int B>
__device__ __forceinline__ buffer_t<KC, B>* cell(cells<KC, KC::buffers>& c) {
  return static_cast<cells<KC, B + 1>&>(c).value;
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

template <class KC, int N>
using node_t = type_of<static_cast<dtype>(KC::node(N, 1))>;

template <class KC, int N>
__device__ __forceinline__ node_t<KC, N> eval(cells<KC, KC::buffers>& c, const args_of<KC>& args, int v) {
  constexpr auto code = static_cast<ir::op>(KC::node(N, 0));
  using R = node_t<KC, N>;
  using C = type_of<static_cast<dtype>(KC::node(N, 2))>;
  using M = element::math_t<C>;
  if constexpr (code == ir::op::load) {
    constexpr int b = KC::node(N, 6);
    constexpr bool is_broadcast = (KC::buffer_flags(b) & buffer_flag::broadcast) != 0;
    return cell<KC, b>(c)[is_broadcast ? 0 : v];
  } else if constexpr (code == ir::op::param) {
    constexpr int q = KC::node(N, 6);
    using P = type_of<static_cast<dtype>(KC::param_type(q))>;
    return element::convert<R>(from_bits<P>(args.param_bits[q]));
  } else if constexpr (code == ir::op::literal) {
    constexpr unsigned long long bits = (static_cast<unsigned long long>(static_cast<unsigned>(KC::node(N, 7))) << 32) |
                                        static_cast<unsigned>(KC::node(N, 8));
    return from_bits<R>(bits);
  } else if constexpr (code == ir::op::cast) {
    return element::convert<R>(eval<KC, KC::node(N, 3)>(c, args, v));
  } else if constexpr (ir::arity(code) == 1) {
    const M a = element::convert<M>(eval<KC, KC::node(N, 3)>(c, args, v));
    return element::convert<R>(element::unary<M>(code, a));
  } else if constexpr (ir::arity(code) == 2) {
    const M a = element::convert<M>(eval<KC, KC::node(N, 3)>(c, args, v));
    const M b = element::convert<M>(eval<KC, KC::node(N, 4)>(c, args, v));
    if constexpr (code >= ir::op::lt && code <= ir::op::logical_or)
      return element::predicate<M>(code, a, b);
    else
      return element::convert<R>(element::arithmetic<M>(code, a, b));
  } else {
    const bool cond = element::convert<bool>(eval<KC, KC::node(N, 3)>(c, args, v));
    return cond ? element::convert<R>(eval<KC, KC::node(N, 4)>(c, args, v))
                : element::convert<R>(eval<KC, KC::node(N, 5)>(c, args, v));
  }
}

template <class KC, int S>
__device__ __forceinline__ void run_statements(cells<KC, KC::buffers>& c, const args_of<KC>& args, int v) {
  if constexpr (S < KC::statements) {
    cell<KC, KC::target(S)>(c)[v] = eval<KC, KC::root(S)>(c, args, v);
    run_statements<KC, S + 1>(c, args, v);
  }
}

template <class KC, int... V>
__device__ __forceinline__ void run_step(cells<KC, KC::buffers>& c, const args_of<KC>& args,
                                         std::integer_sequence<int, V...>) {
  (run_statements<KC, 0>(c, args, V), ...);
}

// Moves `Vec` elements between memory and a cell: 16-byte accesses when
// aligned, copied through a register word so the cell is never aliased.
template <class T, int Vec, bool Load, bool Aligned>
__device__ __forceinline__ void move_step(T* cellv, T* mem) {
  constexpr int bytes = Vec * static_cast<int>(sizeof(T));
  if constexpr (Aligned && bytes % 16 == 0) {
#pragma unroll
    for (int w = 0; w < bytes / 16; ++w) {
      constexpr int per_word = 16 / static_cast<int>(sizeof(T));
      if constexpr (Load) {
        const uint4 word = reinterpret_cast<const uint4*>(mem)[w];
        memcpy(cellv + w * per_word, &word, 16);
      } else {
        uint4 word;
        memcpy(&word, cellv + w * per_word, 16);
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

// Loads (or stores) every buffer that needs it for the elements at `base`:
// Count = vec for a full step, 1 for a tail element.
template <class KC, int B, bool Load, bool Aligned, int Count>
__device__ __forceinline__ void move_all(cells<KC, KC::buffers>& c, const args_of<KC>& args, long long base) {
  if constexpr (B < KC::buffers) {
    constexpr int flags = KC::buffer_flags(B);
    using T = buffer_t<KC, B>;
    auto* mem = static_cast<T*>(args.ptr[B]);
    if constexpr ((flags & buffer_flag::broadcast) != 0) {
      if constexpr (Load) cell<KC, B>(c)[0] = mem[0];  // a 0-d value, read once
    } else if constexpr (Load ? (flags & buffer_flag::load) != 0 : (flags & buffer_flag::store) != 0) {
      move_step<T, Count, Load, Aligned>(cell<KC, B>(c), mem + base);
    }
    move_all<KC, B + 1, Load, Aligned, Count>(c, args, base);
  }
}

// Steps `U...` (a grid stride apart): all loads first, then the arithmetic,
// then all stores, so several 16-byte loads per thread are in flight. Steps
// touch disjoint elements and bound buffers never overlap (checked when
// binding), so the reordering is safe.
template <class KC, bool Aligned, int... U>
__device__ __forceinline__ void full_steps(const args_of<KC>& args, long long base, long long step,
                                           std::integer_sequence<int, U...>) {
  cells<KC, KC::buffers> c[sizeof...(U)];
  (move_all<KC, 0, true, Aligned, KC::vec>(c[U], args, base + U * step), ...);
  (run_step<KC>(c[U], args, std::make_integer_sequence<int, KC::vec>{}), ...);
  (move_all<KC, 0, false, Aligned, KC::vec>(c[U], args, base + U * step), ...);
}

// Each thread takes `vec` consecutive elements per step, `Unroll` steps a
// grid stride apart per iteration. bench/tuning.cu measured the choices on an
// H200 (bench/results_tuning_2026-11-30.log): a grid with one step per thread
// reaches memcpy bandwidth (98-101%) whatever the unroll, while a capped
// grid-stride loop stays near 91%; so the executor launches a full grid and
// Unroll only matters past the grid's size limit.
inline constexpr int default_unroll = 1;

template <int Unroll, int... Code>
__global__ void fused_kernel(kernel_args<kernel_code<Code...>::buffers, kernel_code<Code...>::params> args) {
  using KC = kernel_code<Code...>;
  constexpr int vec = KC::vec;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x * vec;
  const long long full_end = args.n / vec * vec;
  long long base = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * vec;
  if (args.aligned) {
    for (; base + (Unroll - 1) * step < full_end; base += Unroll * step)
      full_steps<KC, true>(args, base, step, std::make_integer_sequence<int, Unroll>{});
    for (; base < full_end; base += step) full_steps<KC, true>(args, base, step, std::integer_sequence<int, 0>{});
  } else {
    for (; base < full_end; base += step) full_steps<KC, false>(args, base, step, std::integer_sequence<int, 0>{});
  }
  // The tail (fewer than vec elements): one element at a time.
  const long long tail = full_end + static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tail < args.n) {
    cells<KC, KC::buffers> c;
    move_all<KC, 0, true, false, 1>(c, args, tail);
    run_statements<KC, 0>(c, args, 0);
    move_all<KC, 0, false, false, 1>(c, args, tail);
  }
}

}  // namespace streamdsl::cuda_detail
