// Workload 10 of docs/benchmarks.md, a data-parallel step: each rank computes
// an elementwise chain (a stand-in for a backward pass) over its shard of
// 2^26 floats (256 MiB) in 8 buckets, and all-reduces each bucket (sum, in
// place) through NCCL. Overlapped, bucket i's all-reduce runs on stream
// "comm" while bucket i + 1 is computed on main; back to back, the same
// statements run on main alone. Both as streamdsl programs run by
// sd::cuda_executor_group (one executor per visible GPU), and both written by
// hand with raw NCCL calls, kernels, streams and events in this binary. The
// chain alone and the all-reduces alone are the two phases; the share of the
// shorter one that overlap hides is (back to back - overlapped) /
// min(compute, communication) (bench/report.py prints it from the JSON).
// Every GPU visible is a rank; on one GPU the communicator has one rank and
// NCCL's kernels still run (no data crosses a link), and the figures are
// reported as 1-rank. Times are CUDA events around one step, the slowest
// rank's. Every variant's result is checked against a host reference.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <streamdsl/backend/cuda/collectives.hpp>
#include <streamdsl/backend/cuda/executor_group.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

#include "bench_support.cuh"

namespace {

using bench::check;

void nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}

constexpr std::size_t shard = std::size_t{1} << 26;  // floats per rank: 256 MiB
constexpr int buckets = 8;
constexpr std::size_t bucket = shard / buckets;

// ---------------------------------------------------------------- the programs
// The chain, one expression (one kernel per bucket): heavy enough to take
// about as long as the all-reduce of its bucket between two GPUs over NVLink.
template <class X>
constexpr auto chain(const X& x) {
  auto v = x * 0.5f;
  for (int k = 0; k < 6; ++k) v = sd::tanh(v) * 0.75f + x * 0.125f;
  return v;
}
float chain_reference(float x) {
  float v = x * 0.5f;
  for (int k = 0; k < 6; ++k) v = std::tanh(v) * 0.75f + x * 0.125f;
  return v;
}

// Overlapped when Overlap: bucket i's all-reduce on stream "comm" beside
// bucket i + 1's chain on main.
template <bool Overlap>
constexpr auto step_lambda() {
  return [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto g = p.output<float>("g");
    auto comm = p.stream("comm");
    for (int i = 0; i < buckets; ++i) {
      g.chunk(i, buckets) = chain(x.chunk(i, buckets));
      if constexpr (Overlap)
        sd::with_stream(comm, [&] { sd::all_reduce(g.chunk(i, buckets), sd::reduce_op::sum); });
      else
        sd::all_reduce(g.chunk(i, buckets), sd::reduce_op::sum);
    }
  };
}
constexpr auto overlapped = sd::program<sd::automatic>(step_lambda<true>());
constexpr auto back_to_back = sd::program<sd::automatic>(step_lambda<false>());
// The compute phase alone.
constexpr auto compute_only = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto g = p.output<float>("g");
  for (int i = 0; i < buckets; ++i) g.chunk(i, buckets) = chain(x.chunk(i, buckets));
});

static_assert(overlapped.plan().kernel_count("main") == buckets);
static_assert(back_to_back.plan().kernel_count("main") == buckets);

// ---------------------------------------------------------------- the ranks
// Per rank: its shard x (rank-dependent values), its result g, the group's
// executors and communicators, and raw streams and events for the hand-written
// versions.
struct world {
  sd::cuda_executor_group group;
  std::vector<float*> x, g;
  std::vector<cudaStream_t> comm_streams;
  std::vector<std::vector<cudaEvent_t>> computed, reduced;
  std::vector<cudaEvent_t> start, stop, joined;

  world() {
    const int n = group.size();
    x.resize(n);
    g.resize(n);
    comm_streams.resize(n);
    computed.assign(n, std::vector<cudaEvent_t>(buckets));
    reduced.assign(n, std::vector<cudaEvent_t>(buckets));
    start.resize(n);
    stop.resize(n);
    joined.resize(n);
    std::vector<float> host(shard);
    for (int r = 0; r < n; ++r) {
      check(cudaSetDevice(group.device(r)), "cudaSetDevice");
      check(cudaMalloc(&x[r], shard * sizeof(float)), "cudaMalloc");
      check(cudaMalloc(&g[r], shard * sizeof(float)), "cudaMalloc");
      for (std::size_t i = 0; i < shard; ++i) host[i] = input_at(r, i);
      check(cudaMemcpy(x[r], host.data(), shard * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
      check(cudaStreamCreateWithFlags(&comm_streams[r], cudaStreamNonBlocking), "stream");
      for (int b = 0; b < buckets; ++b) {
        check(cudaEventCreateWithFlags(&computed[r][b], cudaEventDisableTiming), "event");
        check(cudaEventCreateWithFlags(&reduced[r][b], cudaEventDisableTiming), "event");
      }
      check(cudaEventCreate(&start[r]), "event");
      check(cudaEventCreate(&stop[r]), "event");
      check(cudaEventCreateWithFlags(&joined[r], cudaEventDisableTiming), "event");
    }
  }
  ~world() {
    for (int r = 0; r < group.size(); ++r) {
      cudaSetDevice(group.device(r));
      cudaDeviceSynchronize();
      cudaFree(x[r]);
      cudaFree(g[r]);
      for (int b = 0; b < buckets; ++b) {
        cudaEventDestroy(computed[r][b]);
        cudaEventDestroy(reduced[r][b]);
      }
      cudaEventDestroy(start[r]);
      cudaEventDestroy(stop[r]);
      cudaEventDestroy(joined[r]);
      cudaStreamDestroy(comm_streams[r]);
    }
  }
  // Made once and never destroyed: no CUDA or NCCL teardown runs during the
  // process's static destruction, after the runtime may be gone.
  static world& get() {
    static world* w = new world;
    return *w;
  }
  int size() const { return const_cast<world*>(this)->group.size(); }

  static float input_at(int rank, std::size_t i) {
    return static_cast<float>(static_cast<int>(i % 2001) - 1000) * 0.002f + 0.25f * static_cast<float>(rank);
  }

  std::vector<sd::binding> bindings(int r) const {
    return {sd::bind("x", static_cast<const float*>(x[r]), shard), sd::bind("g", g[r], shard)};
  }

  // NaN everywhere, so an element no variant wrote fails the check.
  void poison() {
    for (int r = 0; r < size(); ++r) {
      check(cudaSetDevice(group.device(r)), "cudaSetDevice");
      check(cudaMemset(g[r], 0xff, shard * sizeof(float)), "cudaMemset");
    }
  }

  // Checks g on every rank: the sum over ranks of the chain of their inputs
  // (or, with `reduced` false, the rank's own chain) at 4096 places.
  bool right(bool summed) {
    std::vector<float> got(1);
    for (int r = 0; r < size(); ++r) {
      check(cudaSetDevice(group.device(r)), "cudaSetDevice");
      for (std::size_t i = 0; i < shard; i += shard / 4096 + 7) {
        check(cudaMemcpy(got.data(), g[r] + i, sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
        double want = 0;
        if (summed)
          for (int q = 0; q < size(); ++q) want += chain_reference(input_at(q, i));
        else
          want = chain_reference(input_at(r, i));
        if (!(std::fabs(got[0] - want) <= 1e-5 * (1 + std::fabs(want)) * size())) return false;
      }
    }
    return true;
  }

  // Times `body` (which issues one step on every rank) with events on every
  // rank's main stream; the iteration's time is the slowest rank's.
  template <class F>
  void time(benchmark::State& state, F&& body) {
    body();  // warm-up: first launches, NCCL's first-call setup, the plans' preparation
    synchronize();
    for (auto _ : state) {
      for (int r = 0; r < size(); ++r) {
        check(cudaSetDevice(group.device(r)), "cudaSetDevice");
        check(cudaEventRecord(start[r], group.stream(r)), "record");
      }
      body();
      float slowest = 0;
      for (int r = 0; r < size(); ++r) {
        check(cudaSetDevice(group.device(r)), "cudaSetDevice");
        check(cudaEventRecord(stop[r], group.stream(r)), "record");
      }
      for (int r = 0; r < size(); ++r) {
        check(cudaEventSynchronize(stop[r]), "sync");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start[r], stop[r]), "elapsed");
        slowest = std::max(slowest, ms);
      }
      state.SetIterationTime(slowest / 1e3);
    }
    state.counters["ranks"] = size();
    state.counters["bytes_per_rank"] = static_cast<double>(shard * sizeof(float));
  }
  void synchronize() {
    for (int r = 0; r < size(); ++r) {
      check(cudaSetDevice(group.device(r)), "cudaSetDevice");
      check(cudaDeviceSynchronize(), "sync");
    }
  }
};

void finish(benchmark::State& state, world& w, bool summed) {
  w.synchronize();
  if (!w.right(summed)) state.SkipWithError("results differ from the reference");
}

// ---------------------------------------------------------------- streamdsl
template <const auto& Program, bool Summed>
void bm_streamdsl(benchmark::State& state) {
  world& w = world::get();
  w.poison();
  w.time(state, [&] { w.group.run(Program, [&](int r) { return w.bindings(r); }); });
  finish(state, w, Summed);
}

// ---------------------------------------------------------------- raw
__global__ void raw_chain(const float* x, float* y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const float xi = x[i];
    float v = xi * 0.5f;
    for (int k = 0; k < 6; ++k) v = tanhf(v) * 0.75f + xi * 0.125f;
    y[i] = v;
  }
}

enum class raw_mode { overlapped, back_to_back, compute_only, comm_only };

// One thread issues every rank's work; each bucket's all-reduces of all ranks
// are one NCCL group (as NCCL asks of one thread driving several GPUs). The
// comm stream waits for its bucket's kernel; main waits for the last
// all-reduce at the end.
template <raw_mode Mode>
void bm_raw(benchmark::State& state) {
  world& w = world::get();
  const int blocks = bench::raw_blocks();
  const auto issue = [&] {
    for (int b = 0; b < buckets; ++b) {
      for (int r = 0; r < w.size(); ++r) {
        check(cudaSetDevice(w.group.device(r)), "cudaSetDevice");
        cudaStream_t main = w.group.stream(r);
        if (Mode != raw_mode::comm_only)
          raw_chain<<<blocks, 256, 0, main>>>(w.x[r] + b * bucket, w.g[r] + b * bucket, bucket);
        if (Mode == raw_mode::overlapped) {
          check(cudaEventRecord(w.computed[r][b], main), "record");
          check(cudaStreamWaitEvent(w.comm_streams[r], w.computed[r][b], 0), "wait");
        }
      }
      if (Mode == raw_mode::compute_only) continue;
      nccl(ncclGroupStart(), "ncclGroupStart");
      for (int r = 0; r < w.size(); ++r) {
        cudaStream_t s = Mode == raw_mode::overlapped ? w.comm_streams[r] : w.group.stream(r);
        nccl(ncclAllReduce(w.g[r] + b * bucket, w.g[r] + b * bucket, bucket, ncclFloat32, ncclSum,
                           w.group.communicator(r), s),
             "ncclAllReduce");
      }
      nccl(ncclGroupEnd(), "ncclGroupEnd");
    }
    if (Mode == raw_mode::overlapped)
      for (int r = 0; r < w.size(); ++r) {
        check(cudaSetDevice(w.group.device(r)), "cudaSetDevice");
        check(cudaEventRecord(w.joined[r], w.comm_streams[r]), "record");
        check(cudaStreamWaitEvent(w.group.stream(r), w.joined[r], 0), "wait");
      }
  };
  if (Mode == raw_mode::comm_only) {
    // The all-reduces alone over the chain's results (computed once, then
    // summed again at each iteration: the values grow, unchecked).
    w.time(state, issue);
    return;
  }
  w.poison();
  w.time(state, issue);
  finish(state, w, Mode != raw_mode::compute_only);
}

}  // namespace

BENCHMARK(bm_streamdsl<compute_only, false>)
    ->Name("w10_data_parallel/compute_only")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_raw<raw_mode::comm_only>)
    ->Name("w10_data_parallel/communication_only")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_streamdsl<back_to_back, true>)
    ->Name("w10_data_parallel/back_to_back")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_streamdsl<overlapped, true>)
    ->Name("w10_data_parallel/streamdsl")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_raw<raw_mode::compute_only>)
    ->Name("w10_data_parallel/raw_compute_only")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_raw<raw_mode::back_to_back>)
    ->Name("w10_data_parallel/raw_back_to_back")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_raw<raw_mode::overlapped>)
    ->Name("w10_data_parallel/raw")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  std::printf("%s", overlapped.to_string().c_str());
  std::printf("ranks: %d (every visible GPU)\n", world::get().size());
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("ranks", std::to_string(world::get().size()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
