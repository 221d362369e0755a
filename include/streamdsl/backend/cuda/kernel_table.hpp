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

// How many elements a launch iterates and where its vector path starts.
struct launch_shape {
  long long n = 0;
  int aligned = 0;
  int head = 0;
};

// Sets `ptr`, one pointer per local buffer of the kernel `code` (plan
// buffer ids[b], chunk parts_of[b] of `parts` of `domain`): a chunk's at its
// first element. Not a template, so nvcc's front ends see it once for all
// kernels; and it reads nothing of the plan at run time (indexing a plan's
// arrays there makes nvcc emit the whole plan).
inline launch_shape lay_out_launch(const launch_context& ctx, pack_view code, const int* ids,
                                   const int* parts_of, int domain, int parts, void** ptr) {
  // A kernel has one shape: a chunk's buffer is over the kernel's domain.
  const auto extent = domain < 0 ? std::size_t{1} : static_cast<std::size_t>(ctx.extents[domain]);
  unsigned heads = all_heads(code.vec());
  for (int b = 0; b < code.buffer_count(); ++b) {
    const auto element = size_of(code.buffer_type(b));
    auto* base = static_cast<char*>(ctx.buffer_ptrs[ids[b]]);
    if (parts_of[b] != 0 && base != nullptr)
      base += ir::elements_of({ids[b], parts_of[b], parts}, extent).first * element;
    ptr[b] = base;
    // Registers and broadcast values take no part in the vector path.
    const int flags = code.buffer_flags(b);
    if ((flags & (buffer_flag::load | buffer_flag::store)) != 0 && (flags & buffer_flag::broadcast) == 0)
      heads &= vector_heads(reinterpret_cast<std::uintptr_t>(base), element, code.vec());
  }
  launch_shape out;
  out.n = static_cast<long long>(extent) / parts;
  const int head = first_head(heads);
  out.aligned = head >= 0 && head <= out.n ? 1 : 0;
  out.head = out.aligned != 0 ? head : 0;
  return out;
}

template <class Program, std::size_t K, int Unroll, std::size_t... I>
cudaError_t launch_kernel(const launch_context& ctx, cudaStream_t stream, std::index_sequence<I...>) {
  using pack = kernel_pack<Program, K>;
  kernel_args<pack::buffers, pack::params> args{};
  const auto launched =
      lay_out_launch(ctx, pack_view{pack::encoded.code}, pack::encoded.buffer_ids, pack::encoded.buffer_parts,
                     pack::shape.domain, pack::shape.parts, args.ptr);
  args.n = launched.n;
  args.aligned = launched.aligned;
  args.head = launched.head;
  if constexpr (pack::params > 0)
    for (std::size_t q = 0; q < pack::shape.params; ++q)
      args.param_bits[q] = ctx.param_bits[pack::encoded.param_ids[q]];
  constexpr pack_view code{pack::encoded.code};
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
