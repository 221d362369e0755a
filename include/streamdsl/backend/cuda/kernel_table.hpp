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

// What the launch of one kernel reads of its encoding (kernel_pack's data).
struct kernel_launch_info {
  const int* code;          // the pack
  const int* buffer_ids;    // per local buffer: its plan buffer
  const int* buffer_parts;  // per local buffer: its chunk (0: the whole buffer)
  const int* param_ids;     // per local param: its plan param
  int domain;               // the kernel's domain (-1: one element)
  int parts;                // chunks of the domain the kernel iterates one of
};

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
  static constexpr kernel_launch_info info{encoded.code,      encoded.buffer_ids, encoded.buffer_parts,
                                           encoded.param_ids, shape.domain,       shape.parts};
};

inline constexpr int threads_per_block = 256;

#if defined(__CUDA_ARCH__)
// Declared for nvcc's device pass (which compiles no host code), defined for the host pass.
cudaError_t launch_fused(const launch_context& ctx, cudaStream_t stream, const kernel_launch_info& kernel,
                         void** ptr, unsigned long long* param_bits, launch_shape& shape, void* args,
                         const void* entry);
#else
// Launches the kernel `entry` whose arguments `args` (a kernel_args) hold
// `ptr`, `param_bits` and `shape`: sets one pointer per local buffer (plan
// buffer kernel.buffer_ids[b], chunk buffer_parts[b] of `parts` of `domain`;
// a chunk's at its first element), the params and the shape. Not a template,
// so that nvcc's front ends see it once for all kernels, and each kernel adds
// only a call of it (hence the pointers into `args`, which a template would
// find itself); and it reads nothing of the plan at run time (indexing a
// plan's arrays there makes nvcc emit the whole plan).
inline cudaError_t launch_fused(const launch_context& ctx, cudaStream_t stream,
                                const kernel_launch_info& kernel, void** ptr, unsigned long long* param_bits,
                                launch_shape& shape, void* args, const void* entry) {
  const pack_view code{kernel.code};
  // A kernel has one shape: a chunk's buffer is over the kernel's domain.
  const auto extent =
      kernel.domain < 0 ? std::size_t{1} : static_cast<std::size_t>(ctx.extents[kernel.domain]);
  unsigned heads = all_heads(code.vec());
  for (int b = 0; b < code.buffer_count(); ++b) {
    const auto element = size_of(code.buffer_type(b));
    auto* base = static_cast<char*>(ctx.buffer_ptrs[kernel.buffer_ids[b]]);
    if (kernel.buffer_parts[b] != 0 && base != nullptr)
      base += ir::elements_of({kernel.buffer_ids[b], kernel.buffer_parts[b], kernel.parts}, extent).first *
              element;
    ptr[b] = base;
    // Registers and broadcast values take no part in the vector path.
    const int flags = code.buffer_flags(b);
    if ((flags & (buffer_flag::load | buffer_flag::store)) != 0 && (flags & buffer_flag::broadcast) == 0)
      heads &= vector_heads(reinterpret_cast<std::uintptr_t>(base), element, code.vec());
  }
  for (int q = 0; q < code.param_count(); ++q) param_bits[q] = ctx.param_bits[kernel.param_ids[q]];
  shape.n = static_cast<long long>(extent) / kernel.parts;
  const int head = first_head(heads);
  shape.aligned = head >= 0 && head <= shape.n ? 1 : 0;
  shape.head = shape.aligned != 0 ? head : 0;
  if (shape.n == 0) return cudaSuccess;
  const long long per_block = static_cast<long long>(threads_per_block) * code.vec();
  long long blocks = (shape.n + per_block - 1) / per_block;
  if (blocks > ctx.max_blocks) blocks = ctx.max_blocks;
  // cudaLaunchKernel reports launch errors itself (no cudaGetLastError, which
  // would also pick up unrelated earlier errors).
  void* params[] = {args};
  return cudaLaunchKernel(entry, dim3(static_cast<unsigned>(blocks)), dim3(threads_per_block), params, 0,
                          stream);
}
#endif  // !defined(__CUDA_ARCH__)

// Kernel K of Program with `Unroll` steps per iteration: the function that
// launches it is all a kernel adds to the host code (its pack's integers,
// I..., are template arguments of fused_kernel).
template <class Program, std::size_t K, int Unroll,
          class I = std::make_index_sequence<kernel_pack<Program, K>::shape.code_size>>
struct kernel_entry;
template <class Program, std::size_t K, int Unroll, std::size_t... I>
struct kernel_entry<Program, K, Unroll, std::index_sequence<I...>> {
  static cudaError_t launch(const launch_context& ctx, cudaStream_t stream) {
    using pack = kernel_pack<Program, K>;
    kernel_args<pack::buffers, pack::params> args{};
    return launch_fused(ctx, stream, pack::info, args.ptr, args.param_bits, args.shape, &args,
                        reinterpret_cast<const void*>(
                            &fused_kernel<Unroll, pack::buffers, pack::params, pack::encoded.code[I]...>));
  }
};

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
  return {&kernel_entry<Program, K, default_unroll>::launch...};
}

// The launch function of every kernel of Program's plan, by kernel index.
template <class Program>
inline constexpr auto launchers =
    make_launchers<Program>(std::make_index_sequence<Program::plan().kernel_count()>{});

}  // namespace streamdsl::cuda_detail
