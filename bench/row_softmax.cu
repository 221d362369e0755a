// Workload 9's row softmax (issue 13): softmax along each row of a 4096 x
// 65536 float matrix (1 GiB), written as streamdsl statements (max along
// cols, exp(x - max), its sum along cols, the division), run() and as a
// captured graph's replay, against a hand-written CUDA row softmax in the same
// binary (one block per row, three passes over the row: max, sum of exp,
// write; the row's re-reads mostly hit L2 when few rows are in flight) and
// against the memcpy bound: two reads and one write of 1 GiB at
// cudaMemcpyAsync's device-to-device bandwidth measured in the same run (every
// benchmark's bytes_per_iter is those 3 GiB, so bench/report.py turns each time
// into a fraction of that bound). PyTorch's eager softmax and torch.compile on
// the same GPU come from bench/row_softmax_torch.py. Each streamdsl run checks
// its result against the raw kernel's (a wrong one fails the benchmark).
// Times come from CUDA events (manual time). Run with
// --benchmark_out_format=json; bench/report.py makes the table.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cub/block/block_reduce.cuh>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/backend/cuda/reductions.cuh>
#include <streamdsl/streamdsl.hpp>
#include <vector>

#include "bench_support.cuh"

namespace {

using bench::check;
using bench::device_buffer;
using bench::time_on;

constexpr std::size_t softmax_rows = 4096, softmax_cols = 65536;
constexpr std::size_t softmax_n = softmax_rows * softmax_cols;
// The bound's bytes: two reads and one write of the matrix.
constexpr double bound_bytes = 3.0 * softmax_n * sizeof(float);

// softmax(x) along each row = exp(x - max) / sum exp(x - max), as the user
// writes it (examples/row_softmax): the exponential is written twice and
// recomputed, so no matrix temp is stored.
// The three ops are one row group (passes/row_groups.hpp): one kernel, a
// block per row (backend/cuda/row_group.cuh), whose max and sum of exp(x -
// max) fold into one online pass (row_group.cuh's folds_into_max: two passes
// over each row); under sd::no_fusion they stay apart: two row reduction
// kernels and the division's kernel.
constexpr auto softmax_body = [](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, cols);
  auto y = p.output<float>("y", rows, cols);
  auto top = p.temp<float>("top", rows);
  auto total = p.temp<float>("total", rows);
  top = sd::max(x, cols);
  total = sd::sum(sd::exp(x - top), cols);
  y = sd::exp(x - top) / total;
};
constexpr auto row_softmax = sd::program(softmax_body);
constexpr auto row_softmax_apart = sd::program<sd::no_fusion>(softmax_body);
static_assert(row_softmax.plan().step_count() == 2);                   // max and sum along cols
static_assert(row_softmax.plan().kernel_count() == 1);                 // the division, fused with its exp
static_assert(sd::cuda_detail::group_count(row_softmax.plan()) == 1);  // all three: one row group
static_assert(sd::cuda_detail::group_count(row_softmax_apart.plan()) == 0);

// Values in [-2, 2.25]: multiples of 1/4 (no overflow in exp).
__global__ void fill(float* x, long long n, int salt) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    x[i] = static_cast<float>((i * 7 + salt) % 17) * 0.25f - 2.0f;
}

// The hand-written row softmax: a block per row (blocks striding over the
// rows), 16-byte loads (cols a multiple of 4, rows 16-byte aligned), four
// loads in flight per thread, cub::BlockReduce for the row's max and sum,
// the same expf and division as the statements.
constexpr int raw_threads = 1024;

struct max_op {
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
__device__ __forceinline__ float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
__device__ __forceinline__ float sum_exp4(float4 v, float m) {
  return expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
}

__global__ void __launch_bounds__(raw_threads)
    raw_row_softmax(const float* x, float* y, long long rows, int cols) {
  using block_reduce = cub::BlockReduce<float, raw_threads>;
  __shared__ typename block_reduce::TempStorage shared;
  __shared__ float row_max, row_sum;
  const int quads = cols / 4;
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const float4* in = reinterpret_cast<const float4*>(x + r * cols);
    float4* out = reinterpret_cast<float4*>(y + r * cols);
    // Pass 1: the row's max.
    float m = -INFINITY;
    int j = threadIdx.x;
    for (; j + 3 * raw_threads < quads; j += 4 * raw_threads) {
      const float4 a = in[j], b = in[j + raw_threads], c = in[j + 2 * raw_threads],
                   d = in[j + 3 * raw_threads];
      m = fmaxf(m, fmaxf(fmaxf(max4(a), max4(b)), fmaxf(max4(c), max4(d))));
    }
    for (; j < quads; j += raw_threads) m = fmaxf(m, max4(in[j]));
    m = block_reduce(shared).Reduce(m, max_op{});
    if (threadIdx.x == 0) row_max = m;
    __syncthreads();
    m = row_max;
    // Pass 2: the sum of exp(x - max).
    float s = 0;
    j = threadIdx.x;
    for (; j + 3 * raw_threads < quads; j += 4 * raw_threads) {
      const float4 a = in[j], b = in[j + raw_threads], c = in[j + 2 * raw_threads],
                   d = in[j + 3 * raw_threads];
      s += (sum_exp4(a, m) + sum_exp4(b, m)) + (sum_exp4(c, m) + sum_exp4(d, m));
    }
    for (; j < quads; j += raw_threads) s += sum_exp4(in[j], m);
    __syncthreads();  // `shared` is used again
    s = block_reduce(shared).Sum(s);
    if (threadIdx.x == 0) row_sum = s;
    __syncthreads();
    s = row_sum;
    // Pass 3: the row written.
    for (j = threadIdx.x; j < quads; j += raw_threads) {
      const float4 v = in[j];
      out[j] = make_float4(expf(v.x - m) / s, expf(v.y - m) / s, expf(v.z - m) / s, expf(v.w - m) / s);
    }
    __syncthreads();  // row_max and row_sum are written again for the next row
  }
}

// Asked once: the timed loop issues only the launch.
int sm_count() {
  static const int sms = [] {
    int device = 0, n = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device), "attribute");
    return n;
  }();
  return sms;
}

void raw_softmax(const float* x, float* y, int blocks_per_sm, cudaStream_t stream) {
  raw_row_softmax<<<sm_count() * blocks_per_sm, raw_threads, 0, stream>>>(
      x, y, static_cast<long long>(softmax_rows), static_cast<int>(softmax_cols));
  check(cudaGetLastError(), "raw_row_softmax");
}

struct matrix {
  device_buffer x{softmax_n}, y{softmax_n};
  matrix() {
    fill<<<bench::raw_blocks(), 256>>>(x.ptr, static_cast<long long>(softmax_n), 3);
    check(cudaDeviceSynchronize(), "fill");
  }
};

// Rows 0, 1, the middle and the last of `y` against the raw kernel's (the
// sums differ in order: a relative 1e-5), and each such row sums to 1.
bool matches_raw(const matrix& m) {
  device_buffer ref(softmax_n);
  raw_softmax(m.x.ptr, ref.ptr, 1, nullptr);
  check(cudaDeviceSynchronize(), "raw reference");
  std::vector<float> ours(softmax_cols), raw(softmax_cols);
  for (const std::size_t r : {std::size_t{0}, std::size_t{1}, softmax_rows / 2, softmax_rows - 1}) {
    check(cudaMemcpy(ours.data(), m.y.ptr + r * softmax_cols, softmax_cols * sizeof(float),
                     cudaMemcpyDeviceToHost),
          "read");
    check(cudaMemcpy(raw.data(), ref.ptr + r * softmax_cols, softmax_cols * sizeof(float),
                     cudaMemcpyDeviceToHost),
          "read");
    double total = 0;
    for (std::size_t j = 0; j < softmax_cols; ++j) {
      if (!(std::fabs(ours[j] - raw[j]) <= 1e-5f * std::fabs(raw[j]))) return false;
      total += ours[j];
    }
    if (std::fabs(total - 1.0) > 1e-3) return false;
  }
  return true;
}

// ---------------------------------------------------------------- the bound
// A device-to-device copy of the matrix: its bytes read and written give
// memcpy bandwidth (report.py divides the softmax bound's 3 GiB by it).
void bm_softmax_memcpy(benchmark::State& state) {
  device_buffer a(softmax_n), b(softmax_n);
  time_on(state, nullptr, 2.0 * softmax_n * sizeof(float), [&] {
    check(cudaMemcpyAsync(b.ptr, a.ptr, softmax_n * sizeof(float), cudaMemcpyDeviceToDevice, nullptr),
          "memcpy");
  });
}
BENCHMARK(bm_softmax_memcpy)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- raw CUDA
// Arg: blocks per SM (1: about 132 rows of 256 KB in flight on an H200,
// whose re-reads fit its 50 MB L2; 2: twice as many).
void bm_softmax_raw(benchmark::State& state) {
  const int blocks_per_sm = static_cast<int>(state.range(0));
  matrix m;
  time_on(state, nullptr, bound_bytes, [&] { raw_softmax(m.x.ptr, m.y.ptr, blocks_per_sm, nullptr); });
}
BENCHMARK(bm_softmax_raw)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- streamdsl
// Arg 0: run(); 1: a captured graph replayed.
template <const auto& Program>
void bm_softmax_streamdsl(benchmark::State& state) {
  const bool graph_replay = state.range(0) != 0;
  matrix m;
  sd::cuda_executor ex;
  const sd::binding b[] = {sd::bind("x", static_cast<const float*>(m.x.ptr), softmax_rows, softmax_cols),
                           sd::bind("y", m.y.ptr, softmax_rows, softmax_cols)};
  if (graph_replay) {
    auto graph = sd::capture_bound(ex, Program, sd::binding_list(b, 2));
    time_on(state, nullptr, bound_bytes, [&] { graph.launch(); });
  } else {
    time_on(state, nullptr, bound_bytes, [&] { ex.run_bound(Program, sd::binding_list(b, 2)); });
  }
  check(cudaDeviceSynchronize(), "sync");
  if (!matches_raw(m)) state.SkipWithError("softmax differs from the raw kernel's");
}
// The row group (one kernel), and the same ops apart (three kernels).
BENCHMARK_TEMPLATE(bm_softmax_streamdsl, row_softmax)
    ->Name("bm_softmax_streamdsl")
    ->Arg(0)
    ->Arg(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_softmax_streamdsl, row_softmax_apart)
    ->Name("bm_softmax_streamdsl_apart")
    ->Arg(0)
    ->Arg(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
