#pragma once
// Reductions and scans along the last axis of a rank-2 expression
// (sd::sum(e, cols), sd::inclusive_sum(e, cols), ...; ir/shape.hpp): one
// block per row, blocks striding over the rows. A reduction's threads each
// fold the row's elements a block apart (coalesced loads, four in flight per
// thread), then the block's values are combined with cub::BlockReduce (warp
// shuffles); a scan walks its row in tiles of a block's width with
// cub::BlockScan and carries each tile's total into the next. The kernels
// are generic: the element values, the combination, the identity and the
// store are reductions.cuh's functors (expression_value, combine_t,
// argmax_op, reduce_identity, finish_store, scan_store), so the meaning is
// reduce_ops.hpp's, one place for both the whole-buffer (CUB) and the row
// steps. Sums add in a fixed order (each thread's elements in order, then a
// tree), which differs from the host's (reduce_ops.hpp): float results agree
// within the bound reductions_test.cu states; min, max, argmax and integer
// sums exactly. Included by reductions.cuh.
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

namespace streamdsl::cuda_detail {

inline constexpr int row_threads = 256;

// Row r of `rows` rows of `cols` values in(r * cols + j): store(r, total of
// the row's values combined with `op` from `identity`).
template <int Threads, class V, class In, class Op, class Store>
__global__ void __launch_bounds__(Threads)
    row_reduce_kernel(In in, Op op, V identity, Store store, long long rows, long long cols) {
#if defined(__CUDA_ARCH__)
  using block_reduce = cub::BlockReduce<V, Threads>;
  __shared__ typename block_reduce::TempStorage shared;
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const long long base = r * cols;
    V acc = identity;
    long long j = threadIdx.x;
    for (; j + 3 * Threads < cols; j += 4 * Threads) {
      const V a = in(base + j), b = in(base + j + Threads), c = in(base + j + 2 * Threads),
              d = in(base + j + 3 * Threads);
      acc = op(op(op(op(acc, a), b), c), d);
    }
    for (; j < cols; j += Threads) acc = op(acc, in(base + j));
    const V total = block_reduce(shared).Reduce(acc, op);
    if (threadIdx.x == 0) store(r, total);
    __syncthreads();  // `shared` is used again for the next row
  }
#else
  (void)in, (void)op, (void)identity, (void)store, (void)rows, (void)cols;
#endif
}

// Row r's inclusive (or exclusive) running sums of in(r * cols + j) in type
// A: store(r * cols + j, sum). The first element of a row is its value (an
// exclusive scan's 0), as on the host.
template <int Threads, bool Inclusive, class A, class In, class Store>
__global__ void __launch_bounds__(Threads)
    row_scan_kernel(In in, Store store, long long rows, long long cols) {
#if defined(__CUDA_ARCH__)
  using block_scan = cub::BlockScan<A, Threads>;
  __shared__ typename block_scan::TempStorage shared;
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const long long base = r * cols;
    A carry = A(0);
    for (long long t = 0; t < cols; t += Threads) {
      const long long j = t + threadIdx.x;
      const A v = j < cols ? in(base + j) : A(0);
      A part, tile;
      if constexpr (Inclusive)
        block_scan(shared).InclusiveSum(v, part, tile);
      else
        block_scan(shared).ExclusiveSum(v, part, tile);
      if (j < cols) store(base + j, t == 0 ? part : carry + part);
      carry = t == 0 ? tile : carry + tile;
      __syncthreads();  // `shared` is used again for the next tile
    }
  }
#else
  (void)in, (void)store, (void)rows, (void)cols;
#endif
}

// Blocks for `rows` rows: one each, at most the device's grid limit.
inline unsigned row_blocks(long long rows, long long max_blocks) {
  return static_cast<unsigned>(rows < max_blocks ? rows : max_blocks);
}

}  // namespace streamdsl::cuda_detail
