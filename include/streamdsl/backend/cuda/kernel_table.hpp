#pragma once
// For a compiled program, one launch function per kernel of its plan, built
// at compile time: each instantiates fused_kernel with that kernel's own
// pack, and nothing else is instantiated.
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <utility>

#include "fused_kernel.cuh"
#include "kernel_encoding.hpp"

namespace streamdsl::cuda_detail {

// What a launch needs at run time, indexed by the plan's buffer, param and domain ids.
struct launch_context {
  void* const* buffer_ptrs = nullptr;                 // per plan buffer (bound or workspace); null for registers
  const unsigned long long* param_bits = nullptr;     // per plan param
  const long long* extents = nullptr;                 // per domain
  long long max_blocks = 0;                           // grid cap (the device's limit)
};

using launch_fn = cudaError_t (*)(const launch_context&, cudaStream_t);

template <class Program, std::size_t K>
struct kernel_pack {
  static constexpr plan_view plan = Program::plan();
  static constexpr std::size_t size = encoded_size(plan, K);
  static constexpr std::array<int, size> code = encode<size>(plan, K);
  static constexpr std::size_t buffer_count = static_cast<std::size_t>(code[1]);
  static constexpr std::size_t param_count = static_cast<std::size_t>(code[2]);
  // Local buffer and param index -> plan id.
  static constexpr auto buffer_ids = [] {
    std::array<int, buffer_count> ids{};
    const auto l = locals_of(plan, K);
    for (std::size_t i = 0; i < buffer_count; ++i) ids[i] = l.buffers[i];
    return ids;
  }();
  static constexpr auto param_ids = [] {
    std::array<int, param_count> ids{};
    const auto l = locals_of(plan, K);
    if constexpr (param_count > 0)
      for (std::size_t i = 0; i < param_count; ++i) ids[i] = l.params[i];
    return ids;
  }();
};

inline constexpr int threads_per_block = 256;

template <class Program, std::size_t K, int Unroll, std::size_t... I>
cudaError_t launch_kernel(const launch_context& ctx, cudaStream_t stream, std::index_sequence<I...>) {
  using pack = kernel_pack<Program, K>;
  using KC = kernel_code<pack::code[I]...>;
  args_of<KC> args{};
  bool aligned = true;
  for (std::size_t b = 0; b < pack::buffer_count; ++b) {
    args.ptr[b] = ctx.buffer_ptrs[pack::buffer_ids[b]];
    aligned = aligned && reinterpret_cast<std::uintptr_t>(args.ptr[b]) % 16 == 0;
  }
  if constexpr (pack::param_count > 0)
    for (std::size_t q = 0; q < pack::param_count; ++q) args.param_bits[q] = ctx.param_bits[pack::param_ids[q]];
  const auto domain = pack::plan.kernels[K].domain;
  args.n = domain < 0 ? 1 : ctx.extents[domain];
  args.aligned = aligned ? 1 : 0;
  if (args.n == 0) return cudaSuccess;
  const long long per_block = static_cast<long long>(threads_per_block) * KC::vec;
  long long blocks = (args.n + per_block - 1) / per_block;
  if (blocks > ctx.max_blocks) blocks = ctx.max_blocks;
  // cudaLaunchKernel reports launch errors itself (no cudaGetLastError, which
  // would also pick up unrelated earlier errors).
  void* params[] = {&args};
  return cudaLaunchKernel(reinterpret_cast<const void*>(&fused_kernel<Unroll, pack::code[I]...>),
                          dim3(static_cast<unsigned>(blocks)), dim3(threads_per_block), params, 0, stream);
}

template <class Program, std::size_t K, int Unroll = default_unroll>
cudaError_t launch(const launch_context& ctx, cudaStream_t stream) {
  return launch_kernel<Program, K, Unroll>(ctx, stream, std::make_index_sequence<kernel_pack<Program, K>::size>{});
}

template <class Program, std::size_t... K>
constexpr std::array<launch_fn, sizeof...(K)> make_launchers(std::index_sequence<K...>) {
  return {&launch<Program, K>...};
}

// The launch function of every kernel of Program's plan, by kernel index.
template <class Program>
inline constexpr auto launchers =
    make_launchers<Program>(std::make_index_sequence<Program::plan().kernel_count()>{});

}  // namespace streamdsl::cuda_detail
