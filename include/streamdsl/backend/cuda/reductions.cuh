#pragma once
// Reductions and scans on the GPU (ir/step.hpp; their meaning is
// backend/reduce_ops.hpp, shared with the host executor): each step is one
// cub::DeviceReduce::Reduce or cub::DeviceScan call on its slot's stream,
// instantiated only for the steps a plan has (step_table.hpp). Include this
// header in a unit whose program has a reduction or scan (it includes CUB,
// ~3 s of nvcc per unit: units without reductions do not pay it).
//
// The step's input is its expression (statement::root). A plain load of a
// buffer already in the accumulation type hands CUB the pointer (CUB loads it
// in 16-byte vectors: memcpy bandwidth); any other expression (x * y, a
// conversion, a broadcast 0-d value) is a transform iterator over a counting
// iterator whose functor evaluates the expression tree decoded from its pack
// (step_encoding.hpp) with fused_kernel.cuh's node types. The result goes
// through an output functor on the device (finish: mean divides by n, norm
// takes the square root; then accumulated -> result -> target type), so
// nothing waits on the host. argmax reduces (index, value) pairs with
// reduce_ops' `replaces`, ties to the lower index: a commutative operator, so
// CUB's order of combination cannot change it (CUB's own ArgMax keeps the
// first of equal values but orders -0 and +0 as equal and NaN arbitrarily).
// CUB's temporary storage is queried when the extents are bound and carved
// from the run's workspace (cuda_executor.hpp): no allocation per run, and a
// captured graph replays the same storage.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <climits>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <type_traits>
#include <utility>

#include "../reduce_ops.hpp"
#include "fused_kernel.cuh"
#include "row_kernels.cuh"
#include "step_table.hpp"

namespace streamdsl::cuda_detail {

struct reductions_header {};

// argmax's running value: the best element so far and its index.
template <class A>
struct index_value {
  long long index;
  A value;
};

// The identity of min and max over the accumulation type: NaN for floats
// (min and max ignore NaN), the far end of the range for integers. An empty
// input never reaches them (the bindings check refuses it).
template <ir::step_code Code, class A>
__host__ __device__ A reduce_identity() {
  if constexpr (Code == ir::step_code::min || Code == ir::step_code::max) {
    if constexpr (std::is_floating_point_v<A>)
      return static_cast<A>(__builtin_nan(""));
    else if constexpr (std::is_unsigned_v<A>)  // uint64_t
      return Code == ir::step_code::min ? static_cast<A>(~A(0)) : A(0);
    else
      return Code == ir::step_code::min ? static_cast<A>(LLONG_MAX) : static_cast<A>(LLONG_MIN);
  } else {
    return A(0);
  }
}

// reduce_ops' combine; for the sums (sum, mean, norm, the scans) it is an
// addition, spelled cuda::std::plus so that CUB picks its tuning for
// additions of primitive types (on the H200 a scan with an operator of its
// own ran at 0.82x of cub::DeviceScan::InclusiveSum).
template <ir::step_code Code, class A>
struct combine_op {
  __host__ __device__ A operator()(A a, A b) const { return detail::reduce::combine(Code, a, b); }
};
template <ir::step_code Code, class A>
using combine_t = std::conditional_t<Code == ir::step_code::min || Code == ir::step_code::max,
                                     combine_op<Code, A>, ::cuda::std::plus<A>>;

// The pair of the lower index replaced by the other if that one is larger
// (reduce_ops' order: NaN ignored, -0 below +0): the same result in any order.
template <class A>
struct argmax_op {
  __host__ __device__ index_value<A> operator()(const index_value<A>& a, const index_value<A>& b) const {
    const bool a_first = a.index <= b.index;
    const index_value<A>& first = a_first ? a : b;
    const index_value<A>& second = a_first ? b : a;
    return detail::reduce::replaces(second.value, first.value) ? second : first;
  }
};

#if defined(__CUDA_ARCH__)
// The decoded expression of a step pack (one statement, target -1).
template <class KC, class Buffers = std::make_integer_sequence<int, KC::pack.buffer_count()>>
struct expression_types;
template <class KC, int... B>
struct expression_types<KC, std::integer_sequence<int, B...>> {
  using cells = cell_set<1, std::integer_sequence<int, B...>, type_of<KC::pack.buffer_type(B)>...>;
  using buffers = buffer_list<buffer_at<KC, B>...>;
  using tree = typename tree_of<KC, KC::pack.root(0)>::type;
};
#endif

// The step's input at element i, in the accumulation type A (squared for
// norm; with its index for argmax). Templated on the pack, as fused_kernel:
// the decoding happens in the device pass only.
template <class A, ir::step_code Code, int Buffers, int Params, int... Pack>
struct expression_value {
  using value_type = std::conditional_t<Code == ir::step_code::argmax, index_value<A>, A>;
  kernel_args<Buffers, Params> args;
  __host__ __device__ value_type operator()(long long i) const {
#if defined(__CUDA_ARCH__)
    using K = expression_types<kernel_code<Pack...>>;
    typename K::cells c;
    K::buffers::template move<true, false, 1>(c, args, i);
    const A v = element::convert<A>(K::tree::eval(c, args, 0));
    if constexpr (Code == ir::step_code::argmax)
      return {i, v};
    else
      return detail::reduce::input(Code, v);
#else
    (void)i;
    return value_type{};
#endif
  }
};

// The finished result of n elements, stored as R then T.
template <ir::step_code Code, class A, class R, class T>
struct finish_store {
  long long n;
  __host__ __device__ T operator()(A acc) const {
#if defined(__CUDA_ARCH__)
    return element::convert<T>(element::convert<R>(detail::reduce::finish(Code, acc, n)));
#else
    (void)acc;
    return T{};
#endif
  }
};
template <class A, class T>
struct index_store {
  __host__ __device__ T operator()(const index_value<A>& best) const {
#if defined(__CUDA_ARCH__)
    return element::convert<T>(static_cast<long long>(best.index));
#else
    (void)best;
    return T{};
#endif
  }
};
template <class A, class R, class T>
struct scan_store {
  __host__ __device__ T operator()(A acc) const {
#if defined(__CUDA_ARCH__)
    return element::convert<T>(element::convert<R>(acc));
#else
    (void)acc;
    return T{};
#endif
  }
};

// Along rows (row_kernels.cuh): row r's result, finished over the row's n
// elements, at target[r]; argmax's index counted from the row's start.
template <ir::step_code Code, class A, class R, class T>
struct row_store {
  T* target;
  long long n;
  __host__ __device__ void operator()(long long r, A acc) const {
    target[r] = finish_store<Code, A, R, T>{n}(acc);
  }
};
template <class A, class T>
struct row_index_store {
  T* target;
  long long n;
  __host__ __device__ void operator()(long long r, const index_value<A>& best) const {
#if defined(__CUDA_ARCH__)
    target[r] = element::convert<T>(best.index == LLONG_MAX ? 0LL : best.index - r * n);
#else
    (void)r, (void)best;
#endif
  }
};
// A row scan's element i.
template <class A, class R, class T>
struct row_scan_store {
  T* target;
  __host__ __device__ void operator()(long long i, A acc) const { target[i] = scan_store<A, R, T>{}(acc); }
};

// A step along rows: `rows` rows of `cols` elements of `in`, results into `target`.
template <ir::step_code Code, class A, class R, class T, class In>
cudaError_t rows_into(In in, void* target, long long rows, long long cols, long long max_blocks,
                      cudaStream_t s) {
  if (rows == 0) return cudaSuccess;
  constexpr int threads = row_threads;
  const dim3 grid(row_blocks(rows, max_blocks)), block(threads);
  T* out = static_cast<T*>(target);
  if constexpr (Code == ir::step_code::inclusive_sum || Code == ir::step_code::exclusive_sum) {
    if (cols == 0) return cudaSuccess;
    row_scan_kernel<threads, Code == ir::step_code::inclusive_sum, A>
        <<<grid, block, 0, s>>>(in, row_scan_store<A, R, T>{out}, rows, cols);
  } else if constexpr (Code == ir::step_code::argmax) {
    const index_value<A> init{LLONG_MAX, reduce_identity<ir::step_code::max, A>()};
    row_reduce_kernel<threads>
        <<<grid, block, 0, s>>>(in, argmax_op<A>{}, init, row_index_store<A, T>{out, cols}, rows, cols);
  } else {
    row_reduce_kernel<threads><<<grid, block, 0, s>>>(in, combine_t<Code, A>{}, reduce_identity<Code, A>(),
                                                      row_store<Code, A, R, T>{out, cols}, rows, cols);
  }
  return cudaGetLastError();
}

// A step's pack and types, computed once per step.
template <class Program, std::size_t Stmt>
struct step_pack {
  static constexpr plan_view plan = Program::plan();
  static constexpr ir::step_code code = plan.ir.stmts[Stmt].code;
  static constexpr bool scan = ir::info(code).form == ir::step_form::scan;
  static constexpr std::int32_t root = plan.ir.stmts[Stmt].root;
  static constexpr ir::step_shape step_shape = ir::shape_of_step(plan.ir, plan.ir.stmts[Stmt]);
  static constexpr ir::step_types types = ir::step_types_of(plan.ir, plan.ir.stmts[Stmt]);
  static constexpr ir::region target = ir::target_of(plan.ir, plan.ir.stmts[Stmt]);
  static constexpr kernel_shape shape = expression_shape(plan, root, step_shape);
  static constexpr int buffers = static_cast<int>(shape.buffers);
  static constexpr int params = static_cast<int>(shape.params);
  static constexpr encoded_kernel<shape.code_size, shape.buffers, shape.params> encoded =
      encode_expression<shape.code_size, shape.buffers, shape.params>(plan, root, step_shape.domain);
  static constexpr kernel_launch_info info{encoded.code,      encoded.buffer_ids, encoded.buffer_parts,
                                           encoded.param_ids, shape.domain,       shape.parts,
                                           shape.inner};
  static constexpr bool plain = code != ir::step_code::norm && code != ir::step_code::argmax &&
                                plain_load(plan, root, types.accumulated, step_shape.domain);
  // Along the last axis (statement::axis): the rows' and the columns' domains.
  static constexpr std::int32_t axis = plan.ir.stmts[Stmt].axis;
  static constexpr std::int32_t outer =
      axis < 0 ? -1 : plan.ir.domains[static_cast<std::size_t>(step_shape.domain)].outer;
};

// CUB's calls for one step, by form; `in` is a pointer or an iterator.
template <ir::step_code Code, class A, class R, class T, class In>
cudaError_t reduce_into(void* temp, std::size_t& bytes, In in, void* target, long long n, cudaStream_t s) {
  if constexpr (Code == ir::step_code::argmax) {
    const index_value<A> init{LLONG_MAX, reduce_identity<ir::step_code::max, A>()};
    auto out = thrust::make_transform_output_iterator(static_cast<T*>(target), index_store<A, T>{});
    return cub::DeviceReduce::Reduce(temp, bytes, in, out, n, argmax_op<A>{}, init, s);
  } else if constexpr ((Code == ir::step_code::sum || Code == ir::step_code::min ||
                        Code == ir::step_code::max) &&
                       std::is_same_v<A, R> && std::is_same_v<A, T>) {
    return cub::DeviceReduce::Reduce(temp, bytes, in, static_cast<T*>(target), n, combine_t<Code, A>{},
                                     reduce_identity<Code, A>(), s);
  } else {
    auto out =
        thrust::make_transform_output_iterator(static_cast<T*>(target), finish_store<Code, A, R, T>{n});
    return cub::DeviceReduce::Reduce(temp, bytes, in, out, n, combine_t<Code, A>{},
                                     reduce_identity<Code, A>(), s);
  }
}

template <ir::step_code Code, class A, class R, class T, class Out, class In>
cudaError_t scan_into(void* temp, std::size_t& bytes, In in, Out out, long long n, cudaStream_t s) {
  if constexpr (Code == ir::step_code::inclusive_sum)
    return cub::DeviceScan::InclusiveScan(temp, bytes, in, out, combine_t<Code, A>{}, n, s);
  else
    return cub::DeviceScan::ExclusiveScan(temp, bytes, in, out, combine_t<Code, A>{}, A(0), n, s);
}

template <ir::step_code Code, class A, class R, class T, class In>
cudaError_t scan_to(void* temp, std::size_t& bytes, In in, void* target, long long n, cudaStream_t s) {
  if (n == 0 && temp != nullptr) return cudaSuccess;  // nothing to write
  if constexpr (std::is_same_v<A,
                               T>)  // then R is A too (scans keep the accumulated type but for 16-bit floats)
    return scan_into<Code, A, R, T>(temp, bytes, in, static_cast<T*>(target), n, s);
  else
    return scan_into<Code, A, R, T>(
        temp, bytes, in,
        thrust::make_transform_output_iterator(static_cast<T*>(target), scan_store<A, R, T>{}), n, s);
}

template <class Program, std::size_t Stmt>
struct reduce_step {
  using pack = step_pack<Program, Stmt>;
  static cudaError_t issue(const launch_context& ctx, cudaStream_t stream, void* temp, std::size_t& bytes,
                           bool query) {
    if constexpr (pack::axis >= 0) {  // along rows: no CUB storage
      if (query) {
        bytes = 0;
        return cudaSuccess;
      }
    }
    return issue_with(ctx, stream, query ? nullptr : temp, bytes,
                      std::make_index_sequence<pack::shape.code_size>{});
  }
  template <std::size_t... I>
  static cudaError_t issue_with(const launch_context& ctx, cudaStream_t stream, void* temp,
                                std::size_t& bytes, std::index_sequence<I...>) {
    constexpr ir::step_code code = pack::code;
    using A = type_of<pack::types.accumulated>;
    using R = type_of<pack::types.result>;
    using T = type_of<pack::types.target>;
    using F = expression_value<A, code, pack::buffers, pack::params, pack::encoded.code[I]...>;
    F f{};
    bind_kernel(ctx, pack::info, f.args.ptr, f.args.param_bits, f.args.shape);
    const long long n = f.args.shape.n;
    // A reduction's target is a 0-d buffer; a scan's a region of its shape.
    char* target = static_cast<char*>(ctx.buffer_ptrs[pack::target.buffer]);
    if constexpr (pack::axis >= 0) {  // a column of results, or a matrix of running sums
      (void)temp, (void)bytes, (void)n;
      return rows_into<code, A, R, T>(f, target, ctx.extents[pack::outer], ctx.extents[pack::axis],
                                      ctx.max_blocks, stream);
    } else {
      if constexpr (pack::scan) {
        if (pack::target.part != 0 && target != nullptr)
          target += static_cast<std::size_t>(pack::target.part) * static_cast<std::size_t>(n) * sizeof(T);
      }
      const auto run = [&](auto in) {
        if constexpr (pack::scan)
          return scan_to<code, A, R, T>(temp, bytes, in, target, n, stream);
        else
          return reduce_into<code, A, R, T>(temp, bytes, in, target, n, stream);
      };
      if constexpr (pack::plain)
        return run(static_cast<const A*>(f.args.ptr[0]));
      else
        return run(thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), f));
    }
  }
};

}  // namespace streamdsl::cuda_detail

// Row groups use reductions.cuh's operators and stores.
#include "row_group.cuh"
