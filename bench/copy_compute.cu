// Workload 5 of docs/benchmarks.md, the copy/compute pipeline: 1 GiB of
// floats in pinned host memory, copied in by chunks on stream h2d, each chunk
// put through the chain workload's 8-op chain on main, copied out on stream
// d2h. At 16 and 64 chunks: the streamdsl plan (plain runs and graph replay)
// against a raw CUDA pipeline written here with the same chunks, streams and
// events, and both against the same work serialised on one stream. Also the
// copy engines alone (the floor), the host time per run of the plan against
// the raw calls, and a check of every run's results. Times come from CUDA
// events; bytes/s are over the bytes that cross PCIe (in and out).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

#include "bench_support.cuh"

namespace {

using bench::check;
using bench::device_buffer;
using bench::raw_blocks;
using bench::time_on;

constexpr std::size_t big_n = std::size_t{1} << 28;  // 1 GiB of floats
constexpr double pcie_bytes = 2.0 * big_n * sizeof(float);

// ---------------------------------------------------------------- the programs
// The chain workload's 8 ops (workloads.cu, chain K = 8) as one expression: a
// chunk's chain is one statement, hence one kernel that reads and writes the
// chunk once. (As 8 statements through chunked temps it would be the same
// kernel: a temp used chunk by chunk, each chunk in one kernel, stays in
// registers.)
template <class X>
constexpr auto chain8(const X& x) {
  auto v = x * 1.0001f;
  for (int k = 1; k < 7; ++k) v = k % 2 == 1 ? v + 0.5f : v * 0.999f;
  return v - 0.25f;
}

float chain8_reference(float x) {
  float v = x * 1.0001f;
  for (int k = 1; k < 7; ++k) v = k % 2 == 1 ? v + 0.5f : v * 0.999f;
  return v - 0.25f;
}

template <int K>
constexpr auto pipeline_lambda() {
  return [](sd::builder& p) {
    auto h_in = p.input<float, sd::pinned>("h_in");
    auto h_out = p.output<float, sd::pinned>("h_out");
    auto d_in = p.temp<float>("d_in");
    auto d_out = p.temp<float>("d_out");
    auto h2d = p.stream("h2d");
    auto d2h = p.stream("d2h");
    for (int i = 0; i < K; ++i) {
      sd::with_stream(h2d, [&] { sd::copy(d_in.chunk(i, K), h_in.chunk(i, K)); });
      d_out.chunk(i, K) = chain8(d_in.chunk(i, K));
      sd::with_stream(d2h, [&] { sd::copy(h_out.chunk(i, K), d_out.chunk(i, K)); });
    }
  };
}
template <int K>
inline constexpr auto pipeline = sd::program<sd::automatic>(pipeline_lambda<K>());

// The same work on main alone: copy in, the chain, copy out.
constexpr auto serial = sd::program([](sd::builder& p) {
  auto h_in = p.input<float, sd::pinned>("h_in");
  auto h_out = p.output<float, sd::pinned>("h_out");
  auto d_in = p.temp<float>("d_in");
  auto d_out = p.temp<float>("d_out");
  sd::copy(d_in, h_in);
  d_out = chain8(d_in);
  sd::copy(h_out, d_out);
});

template <int K>
constexpr bool pipeline_shape() {
  constexpr auto plan = pipeline<K>.plan();
  // Per chunk: a copy in, one kernel, a copy out; main waits for its chunk's
  // copy in, d2h for its chunk's kernel, and nothing waits for another chunk.
  return plan.step_count() == 2 * K && plan.kernel_count("main") == K && plan.waits("main") == K &&
         plan.waits("d2h") == K && plan.waits("h2d") == 0 && plan.slot_count() == 2;
}
static_assert(pipeline_shape<16>() && pipeline_shape<64>());
static_assert(serial.plan().kernel_count() == 1 && serial.plan().step_count() == 2);

// ---------------------------------------------------------------- host data
// Pinned input and output, allocated and filled once for every benchmark.
struct pinned_data {
  float* in = nullptr;
  float* out = nullptr;
  pinned_data() {
    check(cudaMallocHost(&in, big_n * sizeof(float)), "cudaMallocHost");
    check(cudaMallocHost(&out, big_n * sizeof(float)), "cudaMallocHost");
    for (std::size_t i = 0; i < big_n; ++i) in[i] = static_cast<float>(i % 1000) * 0.25f - 100.0f;
  }
  ~pinned_data() {
    cudaFreeHost(in);
    cudaFreeHost(out);
  }
  static pinned_data& get() {
    static pinned_data d;
    return d;
  }
  // NaN everywhere, so an element the run did not write fails the check.
  void clear_out() { std::memset(out, 0xff, big_n * sizeof(float)); }
};

// Benchmarks whose results were wrong: main() fails when there are any (the
// JSON of a run with repetitions keeps only aggregates, which leave errors out).
std::vector<std::string>& wrong_results() {
  static std::vector<std::string> names;
  return names;
}

// Checks out = chain8(in) at 2^16 elements spread over every chunk and at the
// last element; a failure marks the benchmark as failed.
void check_results(benchmark::State& state, const std::string& name, const float* in, const float* out,
                   std::size_t n) {
  std::size_t bad = 0;
  auto check_at = [&](std::size_t i) {
    const float want = chain8_reference(in[i]);
    const double err = std::fabs(static_cast<double>(out[i]) - want) / (1 + std::fabs(want));
    bad += !(err <= 1e-6);  // NaN (unwritten) counts
  };
  const std::size_t stride = n / 65536 + 1;
  for (std::size_t i = 0; i < n; i += stride) check_at(i);
  check_at(n - 1);
  state.counters["mismatches"] = static_cast<double>(bad);
  if (bad > 0) {
    state.SkipWithError("results differ from the reference");
    wrong_results().push_back(name);
  }
}

// ---------------------------------------------------------------- raw CUDA
__global__ void raw_chain8(const float* x, float* y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float v = x[i] * 1.0001f;
#pragma unroll
    for (int k = 1; k < 7; ++k) v = (k % 2 == 1) ? v + 0.5f : v * 0.999f;
    y[i] = v - 0.25f;
  }
}

// The pipeline as a careful user writes it: compute on `main`, a copy stream
// each way, an event per chunk each way, and the side streams joined to main
// at both ends (as the plan's entry and exit edges do).
struct raw_pipeline {
  int chunks;
  int grid = raw_blocks();  // blocks per launch at most
  cudaStream_t h2d = nullptr, d2h = nullptr;
  cudaEvent_t entry = nullptr, h2d_done = nullptr, d2h_done = nullptr;
  std::vector<cudaEvent_t> copied_in, computed;

  explicit raw_pipeline(int k)
      : chunks(k), copied_in(static_cast<std::size_t>(k)), computed(copied_in.size()) {
    check(cudaStreamCreateWithFlags(&h2d, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check(cudaStreamCreateWithFlags(&d2h, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    for (auto* e : {&entry, &h2d_done, &d2h_done})
      check(cudaEventCreateWithFlags(e, cudaEventDisableTiming), "cudaEventCreate");
    for (auto& e : copied_in) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    for (auto& e : computed) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  }
  ~raw_pipeline() {
    for (auto e : copied_in) cudaEventDestroy(e);
    for (auto e : computed) cudaEventDestroy(e);
    for (auto e : {entry, h2d_done, d2h_done}) cudaEventDestroy(e);
    cudaStreamDestroy(h2d);
    cudaStreamDestroy(d2h);
  }
  raw_pipeline(const raw_pipeline&) = delete;

  void issue(const float* h_in, float* h_out, float* d_in, float* d_out, std::size_t n, cudaStream_t main) {
    const std::size_t c = n / static_cast<std::size_t>(chunks);
    const int blocks =
        static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(grid), (c + 255) / 256));
    cudaEventRecord(entry, main);
    cudaStreamWaitEvent(h2d, entry, 0);
    cudaStreamWaitEvent(d2h, entry, 0);
    for (std::size_t i = 0; i < static_cast<std::size_t>(chunks); ++i) {
      const std::size_t first = i * c;
      cudaMemcpyAsync(d_in + first, h_in + first, c * sizeof(float), cudaMemcpyHostToDevice, h2d);
      cudaEventRecord(copied_in[i], h2d);
      cudaStreamWaitEvent(main, copied_in[i], 0);
      raw_chain8<<<blocks, 256, 0, main>>>(d_in + first, d_out + first, static_cast<long long>(c));
      cudaEventRecord(computed[i], main);
      cudaStreamWaitEvent(d2h, computed[i], 0);
      cudaMemcpyAsync(h_out + first, d_out + first, c * sizeof(float), cudaMemcpyDeviceToHost, d2h);
    }
    cudaEventRecord(h2d_done, h2d);
    cudaEventRecord(d2h_done, d2h);
    cudaStreamWaitEvent(main, h2d_done, 0);
    cudaStreamWaitEvent(main, d2h_done, 0);
  }
};

// ---------------------------------------------------------------- the copy engines alone
// 1 GiB host to device, device to host, and both at once on two streams: the
// pipeline can be no faster than the last.
void bm_copy_engines(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));  // 0 in, 1 out, 2 both at once
  auto& h = pinned_data::get();
  device_buffer d_in(big_n), d_out(big_n);
  cudaStream_t other;
  cudaEvent_t fork, join;
  check(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  const std::size_t bytes = big_n * sizeof(float);
  time_on(state, nullptr, which == 2 ? pcie_bytes : pcie_bytes / 2, [&] {
    if (which == 0) check(cudaMemcpyAsync(d_in.ptr, h.in, bytes, cudaMemcpyHostToDevice, nullptr), "memcpy");
    if (which == 1)
      check(cudaMemcpyAsync(h.out, d_out.ptr, bytes, cudaMemcpyDeviceToHost, nullptr), "memcpy");
    if (which == 2) {
      cudaEventRecord(fork, nullptr);
      cudaStreamWaitEvent(other, fork, 0);
      check(cudaMemcpyAsync(d_in.ptr, h.in, bytes, cudaMemcpyHostToDevice, nullptr), "memcpy");
      check(cudaMemcpyAsync(h.out, d_out.ptr, bytes, cudaMemcpyDeviceToHost, other), "memcpy");
      cudaEventRecord(join, other);
      cudaStreamWaitEvent(nullptr, join, 0);
    }
  });
  cudaEventDestroy(fork);
  cudaEventDestroy(join);
  cudaStreamDestroy(other);
}
BENCHMARK(bm_copy_engines)->Arg(0)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- serial
void bm_copy_compute_serial_raw(benchmark::State& state) {
  auto& h = pinned_data::get();
  h.clear_out();
  device_buffer d_in(big_n), d_out(big_n);
  const int blocks = raw_blocks();
  time_on(state, nullptr, pcie_bytes, [&] {
    cudaMemcpyAsync(d_in.ptr, h.in, big_n * sizeof(float), cudaMemcpyHostToDevice, nullptr);
    raw_chain8<<<blocks, 256>>>(d_in.ptr, d_out.ptr, static_cast<long long>(big_n));
    cudaMemcpyAsync(h.out, d_out.ptr, big_n * sizeof(float), cudaMemcpyDeviceToHost, nullptr);
  });
  check(cudaDeviceSynchronize(), "sync");
  check_results(state, "bm_copy_compute_serial_raw", h.in, h.out, big_n);
}
BENCHMARK(bm_copy_compute_serial_raw)->UseManualTime()->Unit(benchmark::kMillisecond);

void bm_copy_compute_serial_streamdsl(benchmark::State& state) {
  auto& h = pinned_data::get();
  h.clear_out();
  sd::cuda_executor ex;
  const sd::binding b[] = {sd::bind("h_in", static_cast<const float*>(h.in), big_n),
                           sd::bind("h_out", h.out, big_n)};
  time_on(state, nullptr, pcie_bytes, [&] { ex.run_bound(serial, b); });
  check(cudaDeviceSynchronize(), "sync");
  check_results(state, "bm_copy_compute_serial_streamdsl", h.in, h.out, big_n);
}
BENCHMARK(bm_copy_compute_serial_streamdsl)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- pipelined
template <int K>
void bm_copy_compute_raw(benchmark::State& state) {
  auto& h = pinned_data::get();
  h.clear_out();
  device_buffer d_in(big_n), d_out(big_n);
  raw_pipeline raw(K);
  time_on(state, nullptr, pcie_bytes, [&] { raw.issue(h.in, h.out, d_in.ptr, d_out.ptr, big_n, nullptr); });
  check(cudaDeviceSynchronize(), "sync");
  check_results(state, "bm_copy_compute_raw<" + std::to_string(K) + ">", h.in, h.out, big_n);
}

// Plain runs take their 2 GiB workspace (d_in, d_out) from the device's
// default memory pool with cudaMallocAsync each run; by default the pool
// hands memory back to the driver at every synchronisation. Range 1 keeps it
// in the pool (release threshold raised for this benchmark only), so the two
// show what the default costs.
template <int K>
void bm_copy_compute_streamdsl(benchmark::State& state) {
  const bool keep_pool = state.range(0) != 0;
  auto& h = pinned_data::get();
  h.clear_out();
  int device = 0;
  cudaMemPool_t pool = nullptr;
  std::uint64_t threshold = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
  check(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
        "cudaMemPoolGetAttribute");
  if (keep_pool) {
    std::uint64_t keep = UINT64_MAX;
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
  }
  {
    sd::cuda_executor ex;
    const sd::binding b[] = {sd::bind("h_in", static_cast<const float*>(h.in), big_n),
                             sd::bind("h_out", h.out, big_n)};
    time_on(state, nullptr, pcie_bytes, [&] { ex.run_bound(pipeline<K>, b); });
    check(cudaDeviceSynchronize(), "sync");
  }
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
        "cudaMemPoolSetAttribute");
  check(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo");
  check_results(state,
                "bm_copy_compute_streamdsl<" + std::to_string(K) + ">/" + std::to_string(state.range(0)),
                h.in, h.out, big_n);
}

// Graph replay: one cudaGraphLaunch per run; the graph owns its workspace.
template <int K>
void bm_copy_compute_streamdsl_graph(benchmark::State& state) {
  auto& h = pinned_data::get();
  h.clear_out();
  sd::cuda_executor ex;
  const sd::binding b[] = {sd::bind("h_in", static_cast<const float*>(h.in), big_n),
                           sd::bind("h_out", h.out, big_n)};
  auto graph = sd::capture_bound(ex, pipeline<K>, b);
  time_on(state, nullptr, pcie_bytes, [&] { graph.launch(); });
  check(cudaDeviceSynchronize(), "sync");
  check_results(state, "bm_copy_compute_streamdsl_graph<" + std::to_string(K) + ">", h.in, h.out, big_n);
}

BENCHMARK(bm_copy_compute_raw<16>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_copy_compute_streamdsl<16>)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_copy_compute_streamdsl_graph<16>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_copy_compute_raw<64>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_copy_compute_streamdsl<64>)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_copy_compute_streamdsl_graph<64>)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- host time per run
// Host time to issue the pipeline: run() against the raw calls of
// raw_pipeline, on 1024 floats per chunk so that issue time dominates (the
// GPU finishes each run sooner than the host issues it). Rounds of 1024 / K
// runs of each, interleaved, 41 rounds; the medians and their ratio are
// counters. The plan's run also allocates and frees its workspace
// (cudaMallocAsync, cudaFreeAsync): a cost of the plan, counted.
template <int K>
void bm_copy_compute_host_overhead(benchmark::State& state) {
  constexpr std::size_t n = std::size_t{K} * 1024;
  float *h_in = nullptr, *h_out = nullptr;
  check(cudaMallocHost(&h_in, n * sizeof(float)), "cudaMallocHost");
  check(cudaMallocHost(&h_out, n * sizeof(float)), "cudaMallocHost");
  for (std::size_t i = 0; i < n; ++i) h_in[i] = static_cast<float>(i % 1000) * 0.25f - 100.0f;
  device_buffer d_in(n), d_out(n);
  raw_pipeline raw_calls(K);
  sd::cuda_executor ex;
  const sd::binding b[] = {sd::bind("h_in", static_cast<const float*>(h_in), n), sd::bind("h_out", h_out, n)};
  auto ours = [&] { ex.run_bound(pipeline<K>, b); };
  auto raw = [&] { raw_calls.issue(h_in, h_out, d_in.ptr, d_out.ptr, n, nullptr); };
  auto per_run_us = [](auto&& body) {
    constexpr int runs = 1024 / K;
    check(cudaDeviceSynchronize(), "sync");
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) body();
    const auto t1 = std::chrono::steady_clock::now();
    check(cudaDeviceSynchronize(), "sync");
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / runs;
  };
  ours();
  raw();
  std::vector<double> a, r;
  for (auto _ : state) {
    for (int round = 0; round < 41; ++round) {
      a.push_back(per_run_us(ours));
      r.push_back(per_run_us(raw));
    }
  }
  std::sort(a.begin(), a.end());
  std::sort(r.begin(), r.end());
  state.counters["ours_us"] = a[a.size() / 2];
  state.counters["raw_us"] = r[r.size() / 2];
  state.counters["ratio"] = a[a.size() / 2] / r[r.size() / 2];
  // Both wrote h_out; check the last run's results.
  std::memset(h_out, 0xff, n * sizeof(float));
  ours();
  check(cudaDeviceSynchronize(), "sync");
  check_results(state, "bm_copy_compute_host_overhead<" + std::to_string(K) + ">", h_in, h_out, n);
  cudaFreeHost(h_in);
  cudaFreeHost(h_out);
}
BENCHMARK(bm_copy_compute_host_overhead<16>)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_copy_compute_host_overhead<64>)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (wrong_results().empty()) return 0;
  std::fprintf(stderr, "bench_copy_compute: %zu runs computed wrong results:\n", wrong_results().size());
  for (const auto& name : wrong_results()) std::fprintf(stderr, "  %s\n", name.c_str());
  return 1;
}
