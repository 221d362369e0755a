#pragma once
// For a compiled program, one launch function per kernel of its plan, built
// at compile time: each instantiates fused_kernel with that kernel's own
// pack, and nothing else is instantiated.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "../../detail/fixed_array.hpp"
#include "fused_kernel.cuh"
#include "kernel_encoding.hpp"

namespace streamdsl::cuda_detail {

// What a launch needs at run time, indexed by the plan's buffer, param and domain ids.
struct launch_context {
  void* const* buffer_ptrs = nullptr;              // per plan buffer (bound or workspace); null for registers
  const unsigned long long* param_bits = nullptr;  // per plan param
  const long long* extents = nullptr;              // per domain
  long long max_blocks = 0;                        // grid cap (the device's limit)
};

using launch_fn = cudaError_t (*)(const launch_context&, cudaStream_t);

// A kernel's encoding, computed once per kernel (each walk over the plan is
// paid by cudafe++, cicc and the host compiler alike).
template <class Program, std::size_t K>
struct kernel_pack {
  static constexpr plan_view plan = Program::plan();
  static constexpr kernel_shape shape = shape_of(plan, K);
  static constexpr int buffers = static_cast<int>(shape.buffers);
  static constexpr int params = static_cast<int>(shape.params);
  static constexpr encoded_kernel<shape.code_size, shape.buffers, shape.params> encoded =
      encode<shape.code_size, shape.buffers, shape.params>(plan, K);
};

inline constexpr int threads_per_block = 256;

template <class Program, std::size_t K, int Unroll, std::size_t... I>
cudaError_t launch_kernel(const launch_context& ctx, cudaStream_t stream, std::index_sequence<I...>) {
  using pack = kernel_pack<Program, K>;
  constexpr pack_view code{pack::encoded.code};
  constexpr int parts = pack::plan.kernels[K].parts;
  kernel_args<pack::buffers, pack::params> args{};
  // Where the buffers that move whole vectors (not registers, not broadcast
  // values) start, for the vector path's alignment.
  std::uintptr_t moved_at[pack::buffers > 0 ? pack::buffers : 1];
  std::size_t moved_size[pack::buffers > 0 ? pack::buffers : 1];
  std::size_t moved = 0;
  for (std::size_t b = 0; b < pack::shape.buffers; ++b) {
    const auto id = pack::encoded.buffer_ids[b];
    const auto& info = pack::plan.ir.buffers[id];
    auto* base = static_cast<char*>(ctx.buffer_ptrs[id]);
    const auto part = pack::encoded.buffer_parts[b];
    if (part != 0 && base != nullptr)  // a chunk: its first element
      base += ir::elements_of({id, part, parts}, static_cast<std::size_t>(ctx.extents[info.domain])).first *
              size_of(info.type);
    args.ptr[b] = base;
    const int flags = code.buffer_flags(static_cast<int>(b));
    if ((flags & (buffer_flag::load | buffer_flag::store)) != 0 && (flags & buffer_flag::broadcast) == 0) {
      moved_at[moved] = reinterpret_cast<std::uintptr_t>(base);
      moved_size[moved++] = size_of(info.type);
    }
  }
  if constexpr (pack::params > 0)
    for (std::size_t q = 0; q < pack::shape.params; ++q)
      args.param_bits[q] = ctx.param_bits[pack::encoded.param_ids[q]];
  const auto domain = pack::plan.kernels[K].domain;
  args.n = domain < 0 ? 1 : ctx.extents[domain] / parts;
  const int head = vector_head(moved_at, moved_size, moved, code.vec());
  args.aligned = head >= 0 && head <= args.n ? 1 : 0;
  args.head = args.aligned != 0 ? head : 0;
  if (args.n == 0) return cudaSuccess;
  const long long per_block = static_cast<long long>(threads_per_block) * code.vec();
  long long blocks = (args.n + per_block - 1) / per_block;
  if (blocks > ctx.max_blocks) blocks = ctx.max_blocks;
  // cudaLaunchKernel reports launch errors itself (no cudaGetLastError, which
  // would also pick up unrelated earlier errors).
  void* params[] = {&args};
  return cudaLaunchKernel(reinterpret_cast<const void*>(
                              &fused_kernel<Unroll, pack::buffers, pack::params, pack::encoded.code[I]...>),
                          dim3(static_cast<unsigned>(blocks)), dim3(threads_per_block), params, 0, stream);
}

template <class Program, std::size_t K, int Unroll = default_unroll>
cudaError_t launch(const launch_context& ctx, cudaStream_t stream) {
  return launch_kernel<Program, K, Unroll>(
      ctx, stream, std::make_index_sequence<kernel_pack<Program, K>::shape.code_size>{});
}

// CUDA's 16-bit float types are only declared by streamdsl (ir/dtype.hpp);
// kernels that compute with them need their definitions. T made dependent on
// Program, so that the check runs where a program is launched, after the
// user's includes.
template <class T, class Program>
struct dependent_type {
  using type = T;
};
template <class T, class Program>
concept defined_for = requires {
  sizeof(typename dependent_type<T, Program>::type);
};

template <class Program, std::size_t... K>
constexpr detail::fixed_array<launch_fn, sizeof...(K)> make_launchers(std::index_sequence<K...>) {
  static_assert(
      !Program::plan().uses_type(dtype::float16) || defined_for<__half, Program>,
      "streamdsl: this program computes with __half: #include <cuda_fp16.h> in this file (streamdsl "
      "only declares __half; its header costs every translation unit ~0.3 s under nvcc)");
  static_assert(
      !Program::plan().uses_type(dtype::bfloat16) || defined_for<__nv_bfloat16, Program>,
      "streamdsl: this program computes with __nv_bfloat16: #include <cuda_bf16.h> in this file "
      "(streamdsl only declares __nv_bfloat16; its header costs every translation unit ~0.3 s under nvcc)");
  return {&launch<Program, K>...};
}

// The launch function of every kernel of Program's plan, by kernel index.
template <class Program>
inline constexpr auto launchers =
    make_launchers<Program>(std::make_index_sequence<Program::plan().kernel_count()>{});

}  // namespace streamdsl::cuda_detail
