// Workload 9 (issue 13): reductions and scans over 2^28 floats, streamdsl
// (reductions.cuh: CUB) against raw CUB calls in the same binary, and
// against cudaMemcpyAsync device-to-device bandwidth counting the bytes each
// must move (a reduction reads its inputs; a scan reads and writes). Each
// streamdsl workload runs as run() and as a captured graph's replay, and
// checks its result against the raw call's (a wrong one fails the benchmark).
// Times come from CUDA events (manual time). Run with
// --benchmark_out_format=json; bench/report.py makes the table.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cmath>
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

constexpr std::size_t big_n = std::size_t{1} << 28;

constexpr auto sum_x = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto s = p.output<float>("s", sd::scalar);
  s = sd::sum(x);
});
constexpr auto sum_xy = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.input<float>("y");
  auto s = p.output<float>("s", sd::scalar);
  s = sd::sum(x * y);
});
constexpr auto scan_x = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto c = p.output<float>("c");
  c = sd::inclusive_sum(x);
});

// Small multiples of 1/4 (sums stay well conditioned).
__global__ void fill(float* x, long long n, int salt) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    x[i] = static_cast<float>((i * 7 + salt) % 17) * 0.25f - 2.0f;
}
__global__ void multiply(const float* x, const float* y, float* xy, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    xy[i] = x[i] * y[i];
}

struct inputs {
  device_buffer x{big_n}, y{big_n};
  inputs() {
    fill<<<bench::raw_blocks(), 256>>>(x.ptr, static_cast<long long>(big_n), 1);
    fill<<<bench::raw_blocks(), 256>>>(y.ptr, static_cast<long long>(big_n), 5);
    check(cudaDeviceSynchronize(), "fill");
  }
};

float read_scalar(const float* d) {
  float h = 0;
  check(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost), "read");
  return h;
}

// A reduction's result against the raw call's: the two sum in different
// orders, within 2 * log2(n) * eps * sum|x| (sum|x| < 2 n here).
bool close(float ours, float raw) {
  const double bound = 2 * 28 * 1.2e-7 * 2.0 * static_cast<double>(big_n);
  return std::fabs(static_cast<double>(ours) - raw) <= bound;
}

// Raw CUB: its temporary storage allocated once, outside the timing.
struct cub_storage {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  void resize(std::size_t b) {
    bytes = b;
    check(cudaMalloc(&ptr, b ? b : 1), "cudaMalloc");
  }
  ~cub_storage() { cudaFree(ptr); }
};

float raw_sum(const float* x, float* out, std::size_t n) {
  cub_storage t;
  check(cub::DeviceReduce::Sum(nullptr, t.bytes, x, out, static_cast<int>(n)), "query");
  t.resize(t.bytes);
  check(cub::DeviceReduce::Sum(t.ptr, t.bytes, x, out, static_cast<int>(n)), "sum");
  return read_scalar(out);
}

// ---------------------------------------------------------------- baseline
void bm_reduce_memcpy(benchmark::State& state) {
  device_buffer a(big_n), b(big_n);
  time_on(state, nullptr, 2.0 * big_n * sizeof(float), [&] {
    check(cudaMemcpyAsync(b.ptr, a.ptr, big_n * sizeof(float), cudaMemcpyDeviceToDevice, nullptr), "memcpy");
  });
}
BENCHMARK(bm_reduce_memcpy)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- sum(x)
void bm_sum_raw_cub(benchmark::State& state) {
  inputs in;
  device_buffer out(1);
  cub_storage t;
  check(cub::DeviceReduce::Sum(nullptr, t.bytes, in.x.ptr, out.ptr, static_cast<int>(big_n)), "query");
  t.resize(t.bytes);
  time_on(state, nullptr, 1.0 * big_n * sizeof(float), [&] {
    check(cub::DeviceReduce::Sum(t.ptr, t.bytes, in.x.ptr, out.ptr, static_cast<int>(big_n)), "sum");
  });
}
BENCHMARK(bm_sum_raw_cub)->UseManualTime()->Unit(benchmark::kMillisecond);

void bm_sum_streamdsl(benchmark::State& state) {
  const bool graph_replay = state.range(0) != 0;
  inputs in;
  device_buffer out(1), ref(1);
  sd::cuda_executor ex;
  const sd::binding b[] = {sd::bind("x", static_cast<const float*>(in.x.ptr), big_n),
                           sd::bind("s", out.ptr, 1)};
  if (graph_replay) {
    auto graph = sd::capture_bound(ex, sum_x, sd::binding_list(b, 2));
    time_on(state, nullptr, 1.0 * big_n * sizeof(float), [&] { graph.launch(); });
  } else {
    time_on(state, nullptr, 1.0 * big_n * sizeof(float),
            [&] { ex.run_bound(sum_x, sd::binding_list(b, 2)); });
  }
  if (!close(read_scalar(out.ptr), raw_sum(in.x.ptr, ref.ptr, big_n))) state.SkipWithError("wrong sum");
}
// Arg 0: run(); 1: a captured graph replayed.
BENCHMARK(bm_sum_streamdsl)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- sum(x * y)
void bm_dot_streamdsl(benchmark::State& state) {
  const bool graph_replay = state.range(0) != 0;
  inputs in;
  device_buffer out(1), ref(1);
  sd::cuda_executor ex;
  const sd::binding b[] = {sd::bind("x", static_cast<const float*>(in.x.ptr), big_n),
                           sd::bind("y", static_cast<const float*>(in.y.ptr), big_n),
                           sd::bind("s", out.ptr, 1)};
  if (graph_replay) {
    auto graph = sd::capture_bound(ex, sum_xy, sd::binding_list(b, 3));
    time_on(state, nullptr, 2.0 * big_n * sizeof(float), [&] { graph.launch(); });
  } else {
    time_on(state, nullptr, 2.0 * big_n * sizeof(float),
            [&] { ex.run_bound(sum_xy, sd::binding_list(b, 3)); });
  }
  {
    device_buffer xy(big_n);
    multiply<<<bench::raw_blocks(), 256>>>(in.x.ptr, in.y.ptr, xy.ptr, static_cast<long long>(big_n));
    if (!close(read_scalar(out.ptr), raw_sum(xy.ptr, ref.ptr, big_n)))
      state.SkipWithError("wrong sum(x * y)");
  }
}
// Arg 0: run(); 1: a captured graph replayed.
BENCHMARK(bm_dot_streamdsl)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- inclusive_sum(x)
void bm_scan_raw_cub(benchmark::State& state) {
  inputs in;
  device_buffer out(big_n);
  cub_storage t;
  check(cub::DeviceScan::InclusiveSum(nullptr, t.bytes, in.x.ptr, out.ptr, static_cast<int>(big_n)), "query");
  t.resize(t.bytes);
  time_on(state, nullptr, 2.0 * big_n * sizeof(float), [&] {
    check(cub::DeviceScan::InclusiveSum(t.ptr, t.bytes, in.x.ptr, out.ptr, static_cast<int>(big_n)), "scan");
  });
}
BENCHMARK(bm_scan_raw_cub)->UseManualTime()->Unit(benchmark::kMillisecond);

void bm_scan_streamdsl(benchmark::State& state) {
  const bool graph_replay = state.range(0) != 0;
  inputs in;
  device_buffer out(big_n), ref(big_n);
  sd::cuda_executor ex;
  const sd::binding b[] = {sd::bind("x", static_cast<const float*>(in.x.ptr), big_n),
                           sd::bind("c", out.ptr, big_n)};
  if (graph_replay) {
    auto graph = sd::capture_bound(ex, scan_x, sd::binding_list(b, 2));
    time_on(state, nullptr, 2.0 * big_n * sizeof(float), [&] { graph.launch(); });
  } else {
    time_on(state, nullptr, 2.0 * big_n * sizeof(float),
            [&] { ex.run_bound(scan_x, sd::binding_list(b, 2)); });
  }
  // Against raw CUB at a few places: the last prefix sums every element.
  cub_storage t;
  check(cub::DeviceScan::InclusiveSum(nullptr, t.bytes, in.x.ptr, ref.ptr, static_cast<int>(big_n)), "query");
  t.resize(t.bytes);
  check(cub::DeviceScan::InclusiveSum(t.ptr, t.bytes, in.x.ptr, ref.ptr, static_cast<int>(big_n)), "scan");
  for (std::size_t i : {std::size_t{0}, big_n / 3, big_n - 1})
    if (!close(read_scalar(out.ptr + i), read_scalar(ref.ptr + i))) state.SkipWithError("wrong scan");
}
// Arg 0: run(); 1: a captured graph replayed.
BENCHMARK(bm_scan_streamdsl)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
