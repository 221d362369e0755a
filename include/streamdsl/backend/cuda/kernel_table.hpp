#pragma once
// For a compiled program, one launch function per launch of its plan, built
// at compile time: a kernel launched alone instantiates fused_kernel with its
// own pack, a launch of several segments (passes/join_launches.hpp)
// segmented_kernel with its segments' packs, and nothing else is
// instantiated.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "../../detail/fixed_array.hpp"
#include "../../passes/join_launches.hpp"
#include "fused_kernel.cuh"
#include "kernel_encoding.hpp"

namespace streamdsl::cuda_detail {

// What a launch needs at run time, indexed by the plan's buffer, param and domain ids.
struct launch_context {
  void* const* buffer_ptrs = nullptr;              // per plan buffer (bound or workspace); null for registers
  const unsigned long long* param_bits = nullptr;  // per plan param
  const long long* extents = nullptr;              // per domain
  long long max_blocks = 0;                        // grid cap (the device's limit)
  long long sm_count = 0;                          // the device's SMs (a row group's grid; 0: unknown)
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
  int inner;                // a rank-2 domain's columns' domain (-1: not rank 2)
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
                                           encoded.param_ids, shape.domain,       shape.parts,
                                           shape.inner};
};

inline constexpr int threads_per_block = 256;

// What the launch of a multi-segment launch reads (launch_pack's data): per
// segment its kernel's launch info, body, and first pointer and param in the
// launch's arrays.
struct segmented_launch_info {
  int segments;
  const kernel_launch_info* kernels;
  const int* body;
  const int* ptr_base;
  const int* param_base;
};

#if defined(__CUDA_ARCH__)
// Declared for nvcc's device pass (which compiles no host code), defined for the host pass.
long long bind_kernel(const launch_context& ctx, const kernel_launch_info& kernel, void** ptr,
                      unsigned long long* param_bits, launch_shape& shape);
cudaError_t launch_fused(const launch_context& ctx, cudaStream_t stream, const kernel_launch_info& kernel,
                         void** ptr, unsigned long long* param_bits, launch_shape& shape, void* args,
                         const void* entry);
cudaError_t launch_segmented(const launch_context& ctx, cudaStream_t stream,
                             const segmented_launch_info& launch, int* first_block, segment_entry* segment,
                             void** ptr, unsigned long long* param_bits, void* args, const void* entry);
#else
// Sets one pointer per local buffer of `kernel` (plan buffer
// kernel.buffer_ids[b], chunk buffer_parts[b] of `parts` of `domain`; a
// chunk's at its first element), its params and its shape; returns the
// blocks it wants (one step per thread; 0 when it has no element).
inline long long bind_kernel(const launch_context& ctx, const kernel_launch_info& kernel, void** ptr,
                             unsigned long long* param_bits, launch_shape& shape) {
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
    // Registers, broadcast values, rows and columns take no part in the vector path.
    const int flags = code.buffer_flags(b);
    if ((flags & (buffer_flag::load | buffer_flag::store)) != 0 && (flags & gathered) == 0)
      heads &= vector_heads(reinterpret_cast<std::uintptr_t>(base), element, code.vec());
  }
  for (int q = 0; q < code.param_count(); ++q) param_bits[q] = ctx.param_bits[kernel.param_ids[q]];
  shape.n = static_cast<long long>(extent) / kernel.parts;
  shape.cols = kernel.inner < 0 ? 0 : ctx.extents[kernel.inner];
  shape.by_cols =
      shape.cols > 0 ? fast_divider::of(static_cast<unsigned long long>(shape.cols)) : fast_divider{};
  const int head = first_head(heads);
  shape.aligned = head >= 0 && head <= shape.n ? 1 : 0;
  shape.head = shape.aligned != 0 ? head : 0;
  const long long per_block = static_cast<long long>(threads_per_block) * code.vec();
  return (shape.n + per_block - 1) / per_block;
}

// Launches the kernel `entry` whose arguments `args` (a kernel_args) hold
// `ptr`, `param_bits` and `shape` (set by bind_kernel). Not a template,
// so that nvcc's front ends see it once for all kernels, and each kernel adds
// only a call of it (hence the pointers into `args`, which a template would
// find itself); and it reads nothing of the plan at run time (indexing a
// plan's arrays there makes nvcc emit the whole plan).
inline cudaError_t launch_fused(const launch_context& ctx, cudaStream_t stream,
                                const kernel_launch_info& kernel, void** ptr, unsigned long long* param_bits,
                                launch_shape& shape, void* args, const void* entry) {
  long long blocks = bind_kernel(ctx, kernel, ptr, param_bits, shape);
  if (shape.n == 0) return cudaSuccess;
  if (blocks > ctx.max_blocks) blocks = ctx.max_blocks;
  // cudaLaunchKernel reports launch errors itself (no cudaGetLastError, which
  // would also pick up unrelated earlier errors).
  void* params[] = {args};
  return cudaLaunchKernel(entry, dim3(static_cast<unsigned>(blocks)), dim3(threads_per_block), params, 0,
                          stream);
}

// Fills a multi-segment launch's arguments (a segmented_args' `first_block`,
// `segment`, `ptr` and `param_bits`): binds each segment as a kernel alone,
// into its range of the flat arrays, and gives it the blocks it would have
// alone (fit_blocks scales them down past the grid's limit). Returns the
// grid's blocks (0: every segment is empty).
inline long long lay_out_segments(const launch_context& ctx, const segmented_launch_info& launch,
                                  int* first_block, segment_entry* segment, void** ptr,
                                  unsigned long long* param_bits) {
  long long blocks[passes::max_launch_segments];
  for (int s = 0; s < launch.segments; ++s) {
    auto& e = segment[s];
    e.body = launch.body[s];
    e.ptr_base = launch.ptr_base[s];
    e.param_base = launch.param_base[s];
    blocks[s] = bind_kernel(ctx, launch.kernels[s], ptr + e.ptr_base, param_bits + e.param_base, e.shape);
  }
  const long long total = fit_blocks(blocks, launch.segments, ctx.max_blocks);
  long long first = 0;
  for (int s = 0; s < launch.segments; ++s) {
    first_block[s] = static_cast<int>(first);
    segment[s].blocks = static_cast<int>(blocks[s]);
    first += blocks[s];
  }
  return total;
}

// Launches the multi-segment kernel `entry` whose arguments `args` (a
// segmented_args) hold `first_block`, `segment`, `ptr` and `param_bits`.
// Not a template, for launch_fused's reasons.
inline cudaError_t launch_segmented(const launch_context& ctx, cudaStream_t stream,
                                    const segmented_launch_info& launch, int* first_block,
                                    segment_entry* segment, void** ptr, unsigned long long* param_bits,
                                    void* args, const void* entry) {
  const long long total = lay_out_segments(ctx, launch, first_block, segment, ptr, param_bits);
  if (total == 0) return cudaSuccess;  // every segment empty
  void* params[] = {args};
  return cudaLaunchKernel(entry, dim3(static_cast<unsigned>(total)), dim3(threads_per_block), params, 0,
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

// A multi-segment launch's encoding (kernel_encoding.hpp), from its
// segments' kernel packs: computed once per launch.
template <class Program, std::size_t K, class S = std::make_index_sequence<Program::plan().segments_of(K)>>
struct launch_pack;
template <class Program, std::size_t K, std::size_t... S>
struct launch_pack<Program, K, std::index_sequence<S...>> {
  static constexpr int segments = static_cast<int>(sizeof...(S));
  static constexpr segment_code codes[] = {
      {kernel_pack<Program, K + S>::encoded.code, kernel_pack<Program, K + S>::shape.code_size,
       kernel_pack<Program, K + S>::buffers, kernel_pack<Program, K + S>::params}...};
  static constexpr launch_layout<sizeof...(S)> layout = lay_out_launch(codes);
  static constexpr encoded_launch<layout.code_size> encoded = encode_launch<layout.code_size>(codes, layout);
  static constexpr kernel_launch_info kernels[] = {kernel_pack<Program, K + S>::info...};
  static constexpr segmented_launch_info info{segments, kernels, layout.body_of, layout.ptr_base,
                                              layout.param_base};
  static_assert(segments <= passes::max_launch_segments, "a launch has at most max_launch_segments segments");
  using args = segmented_args<segments, layout.ptrs, layout.params>;
  // Past CUDA's parameter limit (64 segments of many buffers each), the
  // segments are launched one after another instead.
  static constexpr bool fits = sizeof(args) <= max_kernel_param_bytes;
};

// The launch of kernels [K, K + segments) of Program as one grid: only
// launches of two or more segments instantiate it (a kernel launched alone
// is kernel_entry's, as before launches were joined).
template <class Program, std::size_t K, int Unroll,
          class I = std::make_index_sequence<launch_pack<Program, K>::layout.code_size>>
struct launch_entry;
template <class Program, std::size_t K, int Unroll, std::size_t... I>
struct launch_entry<Program, K, Unroll, std::index_sequence<I...>> {
  using pack = launch_pack<Program, K>;
  static cudaError_t launch(const launch_context& ctx, cudaStream_t stream) {
    if constexpr (pack::fits) {
      typename pack::args args{};
      return launch_segmented(
          ctx, stream, pack::info, args.first_block, args.segment, args.ptr, args.param_bits, &args,
          reinterpret_cast<const void*>(&segmented_kernel<Unroll, pack::segments, pack::layout.ptrs,
                                                          pack::layout.params, pack::encoded.code[I]...>));
    } else {
      return launch_each(ctx, stream, std::make_index_sequence<pack::segments>{});
    }
  }
  template <std::size_t... S>
  static cudaError_t launch_each(const launch_context& ctx, cudaStream_t stream, std::index_sequence<S...>) {
    cudaError_t status = cudaSuccess;
    (void)((status = kernel_entry<Program, K + S, Unroll>::launch(ctx, stream), status == cudaSuccess) &&
           ...);
    return status;
  }
};

// A kernel op's launch function: a kernel alone or a launch of segments;
// none for a kernel that is a later segment of a launch (no op names it).
// Segments is read from the kernel's shape (computed anyway): reading the
// plan here raised nvcc's peak memory on the 200-statement benchmark by 14%
// (547 to 625 MB), as kernel_shape says.
template <class Program, std::size_t K, int Segments = kernel_pack<Program, K>::shape.segments>
struct launcher_of {
  static constexpr launch_fn value = &launch_entry<Program, K, default_unroll>::launch;
};
template <class Program, std::size_t K>
struct launcher_of<Program, K, 1> {
  static constexpr launch_fn value = &kernel_entry<Program, K, default_unroll>::launch;
};
template <class Program, std::size_t K>
struct launcher_of<Program, K, 0> {
  static constexpr launch_fn value = nullptr;
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
  static_assert(
      !(Program::plan().uses_type(dtype::float8_e4m3) || Program::plan().uses_type(dtype::float8_e5m2)) ||
          defined_for<__nv_fp8_e4m3, Program>,
      "streamdsl: this program computes with an FP8 type: #include <cuda_fp8.h> in this file "
      "(streamdsl only declares __nv_fp8_e4m3 and __nv_fp8_e5m2)");
  return {launcher_of<Program, K>::value...};
}

// The launch function of every kernel op of Program's plan, by the kernel it
// names (a launch's first).
template <class Program>
inline constexpr auto launchers =
    make_launchers<Program>(std::make_index_sequence<Program::plan().kernel_count()>{});

}  // namespace streamdsl::cuda_detail
