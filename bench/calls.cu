// The user's own steps (p.call, issue 14): a hand-written kernel and a
// Thrust transform issued by bound callables, against the same kernel and
// the same Thrust call issued directly on a stream, in the same binary. Two
// sizes: 2^28 floats (bandwidth: the call should cost nothing) and 2^12
// floats (launch-bound: what the executor adds per run shows). The
// streamdsl versions run as run() and as a captured graph's replay. Each
// checks its result (a wrong one fails the benchmark). Times come from CUDA
// events (manual time); bench/report.py makes the table.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/transform.h>

#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

#include "bench_support.cuh"

namespace {

using bench::check;
using bench::device_buffer;
using bench::time_on;

__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = x[i] * 3.0f;
}
struct triple {
  __host__ __device__ float operator()(float v) const { return v * 3.0f; }
};

void issue_kernel(const float* x, float* y, std::size_t n, cudaStream_t s) {
  scale_kernel<<<bench::raw_blocks(), 256, 0, s>>>(x, y, static_cast<long long>(n));
}
void issue_thrust(const float* x, float* y, std::size_t n, cudaStream_t s) {
  thrust::transform(thrust::cuda::par_nosync.on(s), x, x + n, y, triple{});
}

constexpr auto one_call = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  p.call("scale", sd::reads(x), sd::writes(y));
});

bool tripled(const device_buffer& x, const device_buffer& y, std::size_t n) {
  std::vector<float> hx(n), hy(n);
  check(cudaDeviceSynchronize(), "sync");
  check(cudaMemcpy(hx.data(), x.ptr, n * sizeof(float), cudaMemcpyDeviceToHost), "read x");
  check(cudaMemcpy(hy.data(), y.ptr, n * sizeof(float), cudaMemcpyDeviceToHost), "read y");
  for (std::size_t i = 0; i < n; i += 1 + n / 4096)
    if (hy[i] != hx[i] * 3.0f) return false;
  return hy[n - 1] == hx[n - 1] * 3.0f;
}

__global__ void fill(float* x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    x[i] = static_cast<float>(i % 13) - 6.0f;
}

// Arg 0: elements; arg 1: 0 the user's kernel, 1 Thrust.
void bm_call_raw(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  device_buffer x(n), y(n);
  fill<<<bench::raw_blocks(), 256>>>(x.ptr, static_cast<long long>(n));
  check(cudaDeviceSynchronize(), "fill");  // the legacy stream does not order the non-blocking one below
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  const auto issue = state.range(1) == 0 ? issue_kernel : issue_thrust;
  time_on(state, s, 2.0 * n * sizeof(float), [&] { issue(x.ptr, y.ptr, n, s); });
  if (!tripled(x, y, n)) state.SkipWithError("wrong result");
  cudaStreamDestroy(s);
}

// Arg 2: 0 run(), 1 a captured graph replayed.
void bm_call_streamdsl(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  device_buffer x(n), y(n);
  fill<<<bench::raw_blocks(), 256>>>(x.ptr, static_cast<long long>(n));
  check(cudaDeviceSynchronize(), "fill");  // the legacy stream does not order the non-blocking one below
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  const auto issue = state.range(1) == 0 ? issue_kernel : issue_thrust;
  sd::cuda_executor ex(s);
  const sd::binding b[] = {sd::bind("x", static_cast<const float*>(x.ptr), n), sd::bind("y", y.ptr, n),
                           sd::bind_call("scale", [issue](sd::call_context& c) {
                             issue(c.read<float>(0).data(), c.write<float>(0).data(), c.read<float>(0).size(),
                                   c.stream());
                           })};
  if (state.range(2) != 0) {
    auto graph = sd::capture_bound(ex, one_call, sd::binding_list(b, 3));
    time_on(state, s, 2.0 * n * sizeof(float), [&] { graph.launch(s); });
  } else {
    time_on(state, s, 2.0 * n * sizeof(float), [&] { ex.run_bound(one_call, sd::binding_list(b, 3)); });
  }
  if (!tripled(x, y, n)) state.SkipWithError("wrong result");
  cudaStreamDestroy(s);
}

constexpr long long big = 1LL << 28, small = 1LL << 12;

}  // namespace

BENCHMARK(bm_call_raw)
    ->Args({big, 0})
    ->Args({big, 1})
    ->Args({small, 0})
    ->Args({small, 1})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_call_streamdsl)
    ->Args({big, 0, 0})
    ->Args({big, 0, 1})
    ->Args({big, 1, 0})
    ->Args({big, 1, 1})
    ->Args({small, 0, 0})
    ->Args({small, 0, 1})
    ->Args({small, 1, 0})
    ->Args({small, 1, 1})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
