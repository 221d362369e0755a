// The GPU workloads of docs/benchmarks.md: streamdsl against raw CUDA written
// here, and fused kernels against cudaMemcpyAsync bandwidth. Times come from
// CUDA events (manual time); bytes/s are over the bytes each workload must
// move. Run with --benchmark_format=json (scripts/gpu.sh does).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

#include "bench_support.cuh"

namespace {

using bench::check;
using bench::device_buffer;
using bench::raw_blocks;
using bench::time_on;

constexpr std::size_t big_n = std::size_t{1} << 28;

// ---------------------------------------------------------------- baseline
void bm_memcpy(benchmark::State& state) {
  device_buffer a(big_n), b(big_n);
  time_on(state, nullptr, 2.0 * big_n * sizeof(float), [&] {
    check(cudaMemcpyAsync(b.ptr, a.ptr, big_n * sizeof(float), cudaMemcpyDeviceToDevice, nullptr), "memcpy");
  });
}
BENCHMARK(bm_memcpy)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- raw CUDA kernels
__global__ void raw_add1(const float* x, float* y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = x[i] + 1.0f;
}
__global__ void raw_mul2(const float* y, float* z, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    z[i] = y[i] * 2.0f;
}
__global__ void raw_seed_fused(const float* x, float* y, float* z, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const float v = x[i] + 1.0f;
    y[i] = v;
    z[i] = v * 2.0f;
  }
}

// ---------------------------------------------------------------- 1. seed
constexpr auto seed_body = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;
    e.record();
  });
  e.wait();
  z = y * 2;
};
constexpr auto seed = sd::program(seed_body);
constexpr auto seed_relaxed = sd::program<sd::relaxed>(seed_body);
static_assert(seed_relaxed.plan().kernel_count() == 1);

void bm_seed_streamdsl(benchmark::State& state) {
  device_buffer x(big_n), y(big_n), z(big_n);
  sd::cuda_executor ex;
  time_on(state, nullptr, 4.0 * big_n * sizeof(float), [&] {
    ex.run(seed, sd::bind("x", static_cast<const float*>(x.ptr), big_n), sd::bind("y", y.ptr, big_n),
           sd::bind("z", z.ptr, big_n));
  });
}
BENCHMARK(bm_seed_streamdsl)->UseManualTime()->Unit(benchmark::kMillisecond);

void bm_seed_relaxed_streamdsl(benchmark::State& state) {
  device_buffer x(big_n), y(big_n), z(big_n);
  sd::cuda_executor ex;
  time_on(state, nullptr, 3.0 * big_n * sizeof(float), [&] {
    ex.run(seed_relaxed, sd::bind("x", static_cast<const float*>(x.ptr), big_n), sd::bind("y", y.ptr, big_n),
           sd::bind("z", z.ptr, big_n));
  });
}
BENCHMARK(bm_seed_relaxed_streamdsl)->UseManualTime()->Unit(benchmark::kMillisecond);

void bm_seed_raw(benchmark::State& state) {
  device_buffer x(big_n), y(big_n), z(big_n);
  cudaStream_t side;
  cudaEvent_t entry, e, exit_event;
  check(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), "stream");
  cudaEventCreateWithFlags(&entry, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&exit_event, cudaEventDisableTiming);
  const int blocks = raw_blocks();
  time_on(state, nullptr, 4.0 * big_n * sizeof(float), [&] {
    cudaEventRecord(entry, nullptr);
    cudaStreamWaitEvent(side, entry, 0);
    raw_add1<<<blocks, 256, 0, side>>>(x.ptr, y.ptr, big_n);
    cudaEventRecord(e, side);
    cudaStreamWaitEvent(nullptr, e, 0);
    raw_mul2<<<blocks, 256, 0, nullptr>>>(y.ptr, z.ptr, big_n);
  });
  cudaStreamDestroy(side);
}
BENCHMARK(bm_seed_raw)->UseManualTime()->Unit(benchmark::kMillisecond);

void bm_seed_raw_fused(benchmark::State& state) {
  device_buffer x(big_n), y(big_n), z(big_n);
  const int blocks = raw_blocks();
  time_on(state, nullptr, 3.0 * big_n * sizeof(float),
          [&] { raw_seed_fused<<<blocks, 256>>>(x.ptr, y.ptr, z.ptr, big_n); });
}
BENCHMARK(bm_seed_raw_fused)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- 2. chain
// K chained elementwise ops, one stream; the values between ops are temps, so
// fused the chain reads x once and writes y once.
template <int K>
constexpr auto chain_lambda() {
  return [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    sd::temp<float> t[] = {p.temp<float>("t0"), p.temp<float>("t1"), p.temp<float>("t2"), p.temp<float>("t3"),
                           p.temp<float>("t4"), p.temp<float>("t5"), p.temp<float>("t6")};
    t[0] = x * 1.0001f;
    for (int k = 1; k < K - 1; ++k) {
      if (k % 2 == 1)
        t[k] = t[k - 1] + 0.5f;
      else
        t[k] = t[k - 1] * 0.999f;
    }
    y = t[K - 2] - 0.25f;
  };
}

template <int K>
inline constexpr auto chain_fused = sd::program(chain_lambda<K>());
template <int K>
inline constexpr auto chain_unfused = sd::program<sd::no_fusion>(chain_lambda<K>());

__global__ void raw_affine(const float* in, float* out, float mul, float add, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i] * mul + add;
}

template <int K>
__global__ void raw_chain_fused(const float* x, float* y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float v = x[i] * 1.0001f;
#pragma unroll
    for (int k = 1; k < K - 1; ++k) v = (k % 2 == 1) ? v + 0.5f : v * 0.999f;
    y[i] = v - 0.25f;
  }
}

template <int K>
void bm_chain_streamdsl(benchmark::State& state) {
  static_assert(chain_fused<K>.plan().kernel_count() == 1);
  device_buffer x(big_n), y(big_n);
  sd::cuda_executor ex;
  time_on(state, nullptr, 2.0 * big_n * sizeof(float), [&] {
    ex.run(chain_fused<K>, sd::bind("x", static_cast<const float*>(x.ptr), big_n),
           sd::bind("y", y.ptr, big_n));
  });
}

// One kernel per op: every temp goes through memory.
template <int K>
void bm_chain_streamdsl_unfused(benchmark::State& state) {
  static_assert(chain_unfused<K>.plan().kernel_count() == K);
  device_buffer x(big_n), y(big_n);
  sd::cuda_executor ex;
  time_on(state, nullptr, 2.0 * K * big_n * sizeof(float), [&] {
    ex.run(chain_unfused<K>, sd::bind("x", static_cast<const float*>(x.ptr), big_n),
           sd::bind("y", y.ptr, big_n));
  });
}

template <int K>
void bm_chain_raw_fused(benchmark::State& state) {
  device_buffer x(big_n), y(big_n);
  const int blocks = raw_blocks();
  time_on(state, nullptr, 2.0 * big_n * sizeof(float),
          [&] { raw_chain_fused<K><<<blocks, 256>>>(x.ptr, y.ptr, big_n); });
}

template <int K>
void bm_chain_raw_unfused(benchmark::State& state) {
  device_buffer x(big_n), y(big_n), t(big_n);
  const int blocks = raw_blocks();
  time_on(state, nullptr, 2.0 * K * big_n * sizeof(float), [&] {
    raw_affine<<<blocks, 256>>>(x.ptr, t.ptr, 1.0001f, 0.f, big_n);
    for (int k = 1; k < K - 1; ++k)
      raw_affine<<<blocks, 256>>>(t.ptr, t.ptr, k % 2 == 1 ? 1.f : 0.999f, k % 2 == 1 ? 0.5f : 0.f, big_n);
    raw_affine<<<blocks, 256>>>(t.ptr, y.ptr, 1.f, -0.25f, big_n);
  });
}

BENCHMARK(bm_chain_streamdsl<2>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_chain_streamdsl<4>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_chain_streamdsl<8>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_chain_streamdsl_unfused<8>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_chain_raw_fused<2>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_chain_raw_fused<4>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_chain_raw_fused<8>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_chain_raw_unfused<8>)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- 3. two-chains
// Two independent 8-op chains on two streams, joined by an add on main: as
// written, both chains read x; in the halves variant (the peers' scripts, and
// bench/torch_compare.py's), a = chain_a(xa) and b = chain_b(xb) over two
// inputs of 2^27 floats each.
constexpr auto chain_a_statements = [](auto& a, const auto& x) {
  a = sd::relu(x * 1.5f + 0.25f);
  a = sd::min(a * 0.75f - 0.125f, 4.0f);
  a = sd::abs(a) * 1.0001f + 0.5f;
  a = a * a * 0.5f;
};
constexpr auto chain_b_statements = [](auto& b, const auto& x) {
  b = sd::max(x * 0.5f - 0.25f, -2.0f);
  b = sd::relu(b + 0.125f) * 1.25f;
  b = sd::abs(b - 0.5f) * 0.999f;
  b = b * 0.5f + x;
};

template <bool Temps, bool Halves>
constexpr auto two_chains_lambda() {
  return [](sd::builder& p) {
    auto xa = p.input<float>(Halves ? "xa" : "x");
    auto xb = Halves ? p.input<float>("xb") : xa;
    auto out = p.output<float>("out");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    auto e1 = p.event("e1");
    auto e2 = p.event("e2");
    auto make = [&](const char* name) {
      if constexpr (Temps)
        return p.temp<float>(name);
      else
        return p.output<float>(name);
    };
    auto a = make("a");
    auto b = make("b");
    sd::with_stream(s1, [&] {
      chain_a_statements(a, xa);
      e1.record();
    });
    sd::with_stream(s2, [&] {
      chain_b_statements(b, xb);
      e2.record();
    });
    e1.wait();
    e2.wait();
    out = a + b;
  };
}
constexpr auto two_chains_temps = sd::program(two_chains_lambda<true, false>());
constexpr auto two_chains_outputs = sd::program(two_chains_lambda<false, false>());
constexpr auto two_chains_halves = sd::program(two_chains_lambda<true, true>());
// As torch.compile does (it drops the streams): under sd::relaxed the chains
// writing outputs move into the join, one kernel writing a, b and out.
constexpr auto two_chains_outputs_relaxed = sd::program<sd::relaxed>(two_chains_lambda<false, false>());
static_assert(two_chains_outputs_relaxed.plan().kernel_count() == 1);
static_assert(two_chains_temps.plan().kernel_count() == 1);
static_assert(two_chains_halves.plan().kernel_count() == 1);

__global__ void raw_chain_a(const float* x, float* a, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float v = fmaxf(x[i] * 1.5f + 0.25f, 0.f);
    v = fminf(v * 0.75f - 0.125f, 4.0f);
    v = fabsf(v) * 1.0001f + 0.5f;
    a[i] = v * v * 0.5f;
  }
}
__global__ void raw_chain_b(const float* x, float* b, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const float xi = x[i];
    float v = fmaxf(xi * 0.5f - 0.25f, -2.0f);
    v = fmaxf(v + 0.125f, 0.f) * 1.25f;
    v = fabsf(v - 0.5f) * 0.999f;
    b[i] = v * 0.5f + xi;
  }
}
__global__ void raw_join(const float* a, const float* b, float* out, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = a[i] + b[i];
}

void bm_two_chains_streamdsl(benchmark::State& state) {
  device_buffer x(big_n), out(big_n);
  sd::cuda_executor ex;
  time_on(state, nullptr, 2.0 * big_n * sizeof(float), [&] {
    ex.run(two_chains_temps, sd::bind("x", static_cast<const float*>(x.ptr), big_n),
           sd::bind("out", out.ptr, big_n));
  });
}
BENCHMARK(bm_two_chains_streamdsl)->UseManualTime()->Unit(benchmark::kMillisecond);

void bm_two_chains_outputs_streamdsl(benchmark::State& state) {
  device_buffer x(big_n), a(big_n), b(big_n), out(big_n);
  sd::cuda_executor ex;
  time_on(state, nullptr, 7.0 * big_n * sizeof(float), [&] {
    ex.run(two_chains_outputs, sd::bind("x", static_cast<const float*>(x.ptr), big_n),
           sd::bind("a", a.ptr, big_n), sd::bind("b", b.ptr, big_n), sd::bind("out", out.ptr, big_n));
  });
}
BENCHMARK(bm_two_chains_outputs_streamdsl)->UseManualTime()->Unit(benchmark::kMillisecond);

void bm_two_chains_outputs_relaxed_streamdsl(benchmark::State& state) {
  device_buffer x(big_n), a(big_n), b(big_n), out(big_n);
  sd::cuda_executor ex;
  time_on(state, nullptr, 4.0 * big_n * sizeof(float), [&] {
    ex.run(two_chains_outputs_relaxed, sd::bind("x", static_cast<const float*>(x.ptr), big_n),
           sd::bind("a", a.ptr, big_n), sd::bind("b", b.ptr, big_n), sd::bind("out", out.ptr, big_n));
  });
}
BENCHMARK(bm_two_chains_outputs_relaxed_streamdsl)->UseManualTime()->Unit(benchmark::kMillisecond);

constexpr std::size_t half_n = big_n / 2;

void bm_two_chains_halves_streamdsl(benchmark::State& state) {
  device_buffer xa(half_n), xb(half_n), out(half_n);
  sd::cuda_executor ex;
  time_on(state, nullptr, 3.0 * half_n * sizeof(float), [&] {
    ex.run(two_chains_halves, sd::bind("xa", static_cast<const float*>(xa.ptr), half_n),
           sd::bind("xb", static_cast<const float*>(xb.ptr), half_n), sd::bind("out", out.ptr, half_n));
  });
}
BENCHMARK(bm_two_chains_halves_streamdsl)->UseManualTime()->Unit(benchmark::kMillisecond);

// Raw CUDA as a careful user writes it: each chain hand-fused on its stream, a
// join on main; chain a reads xa, chain b reads xb (the same buffer as written,
// two halves in the halves variant).
void two_chains_raw(benchmark::State& state, const float* xa, const float* xb, std::size_t n) {
  device_buffer a(n), b(n), out(n);
  cudaStream_t s1, s2;
  cudaEvent_t entry, e1, e2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&entry, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&e1, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&e2, cudaEventDisableTiming);
  const int blocks = raw_blocks();
  const auto len = static_cast<long long>(n);
  time_on(state, nullptr, 7.0 * static_cast<double>(n) * sizeof(float), [&] {
    cudaEventRecord(entry, nullptr);
    cudaStreamWaitEvent(s1, entry, 0);
    cudaStreamWaitEvent(s2, entry, 0);
    raw_chain_a<<<blocks, 256, 0, s1>>>(xa, a.ptr, len);
    cudaEventRecord(e1, s1);
    raw_chain_b<<<blocks, 256, 0, s2>>>(xb, b.ptr, len);
    cudaEventRecord(e2, s2);
    cudaStreamWaitEvent(nullptr, e1, 0);
    cudaStreamWaitEvent(nullptr, e2, 0);
    raw_join<<<blocks, 256>>>(a.ptr, b.ptr, out.ptr, len);
  });
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

void bm_two_chains_raw(benchmark::State& state) {
  device_buffer x(big_n);
  two_chains_raw(state, x.ptr, x.ptr, big_n);
}
BENCHMARK(bm_two_chains_raw)->UseManualTime()->Unit(benchmark::kMillisecond);

void bm_two_chains_halves_raw(benchmark::State& state) {
  device_buffer xa(half_n), xb(half_n);
  two_chains_raw(state, xa.ptr, xb.ptr, half_n);
}
BENCHMARK(bm_two_chains_halves_raw)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- 4. small-ops
// 64 independent 4-op chains on 64K floats, spread over 4 streams: launch-bound.
constexpr int small_chains = 64;
constexpr std::size_t small_n = std::size_t{1} << 16;

struct small_names {
  char x[small_chains][8]{};
  char y[small_chains][8]{};
  char t[small_chains][8]{};
  constexpr small_names() {
    for (int i = 0; i < small_chains; ++i) {
      x[i][0] = 'x', y[i][0] = 'y', t[i][0] = 't';
      for (auto* row : {x[i], y[i], t[i]}) {
        row[1] = static_cast<char>('0' + i / 10);
        row[2] = static_cast<char>('0' + i % 10);
      }
    }
  }
};
inline constexpr small_names names{};

constexpr auto small_ops = sd::program([](sd::builder& p) {
  sd::stream streams[] = {p.main_stream(), p.stream("s1"), p.stream("s2"), p.stream("s3")};
  for (int i = 0; i < small_chains; ++i) {
    auto x = p.input<float>(names.x[i]);
    auto y = p.output<float>(names.y[i]);
    auto t = p.temp<float>(names.t[i]);
    sd::with_stream(streams[i % 4], [&] {
      t = x * 2.0f;
      t = t + 1.0f;
      t = sd::relu(t);
      y = t * 0.5f;
    });
  }
});
// Each stream's 16 chains (48 buffers: x, y and the register temp t, each a
// value per element in flight) are one launch of four kernels of 4
// independent chains (passes/split_wide_runs.hpp: at most 16 buffers a loop).
static_assert(small_ops.plan().launch_count() == 4);
static_assert(small_ops.plan().kernel_count() == 16);

struct small_buffers {
  std::vector<float*> x, y;
  small_buffers() {
    for (int i = 0; i < small_chains; ++i) {
      float *a, *b;
      check(cudaMalloc(&a, small_n * sizeof(float)), "cudaMalloc");
      check(cudaMalloc(&b, small_n * sizeof(float)), "cudaMalloc");
      cudaMemset(a, 0, small_n * sizeof(float));
      x.push_back(a);
      y.push_back(b);
    }
  }
  ~small_buffers() {
    for (auto* p : x) cudaFree(p);
    for (auto* p : y) cudaFree(p);
  }
  std::vector<sd::binding> bindings() const {
    std::vector<sd::binding> out;
    for (int i = 0; i < small_chains; ++i) {
      out.push_back(sd::bind(names.x[i], static_cast<const float*>(x[static_cast<std::size_t>(i)]), small_n));
      out.push_back(sd::bind(names.y[i], y[static_cast<std::size_t>(i)], small_n));
    }
    return out;
  }
};

void bm_small_ops_streamdsl(benchmark::State& state) {
  small_buffers buf;
  const auto bindings = buf.bindings();
  sd::cuda_executor ex;
  time_on(state, nullptr, 2.0 * small_chains * small_n * sizeof(float),
          [&] { ex.run_bound(small_ops, bindings); });
}
BENCHMARK(bm_small_ops_streamdsl)->UseManualTime()->Unit(benchmark::kMicrosecond);

void bm_small_ops_streamdsl_graph(benchmark::State& state) {
  small_buffers buf;
  const auto bindings = buf.bindings();
  sd::cuda_executor ex;
  auto graph = sd::capture_bound(ex, small_ops, bindings);
  time_on(state, nullptr, 2.0 * small_chains * small_n * sizeof(float), [&] { graph.launch(); });
}
BENCHMARK(bm_small_ops_streamdsl_graph)->UseManualTime()->Unit(benchmark::kMicrosecond);

// Raw CUDA: the same work unfused, one kernel per op, on 4 streams, captured into a graph.
__global__ void raw_small_op(const float* in, float* out, int which, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const float v = in[i];
    out[i] = which == 0 ? v * 2.0f : which == 1 ? v + 1.0f : which == 2 ? fmaxf(v, 0.f) : v * 0.5f;
  }
}

void issue_small_raw(const small_buffers& buf, float* const* tmp, cudaStream_t* streams,
                     cudaEvent_t* events) {
  const int blocks = static_cast<int>((small_n + 255) / 256);
  cudaEventRecord(events[0], streams[0]);
  for (int s = 1; s < 4; ++s) cudaStreamWaitEvent(streams[s], events[0], 0);
  for (int i = 0; i < small_chains; ++i) {
    cudaStream_t s = streams[i % 4];
    float* t = tmp[i];
    raw_small_op<<<blocks, 256, 0, s>>>(buf.x[static_cast<std::size_t>(i)], t, 0, small_n);
    raw_small_op<<<blocks, 256, 0, s>>>(t, t, 1, small_n);
    raw_small_op<<<blocks, 256, 0, s>>>(t, t, 2, small_n);
    raw_small_op<<<blocks, 256, 0, s>>>(t, buf.y[static_cast<std::size_t>(i)], 3, small_n);
  }
  for (int s = 1; s < 4; ++s) {
    cudaEventRecord(events[s], streams[s]);
    cudaStreamWaitEvent(streams[0], events[s], 0);
  }
}

void bm_small_ops_raw(benchmark::State& state) {
  small_buffers buf;
  std::vector<float*> tmp(small_chains);
  for (auto& t : tmp) check(cudaMalloc(&t, small_n * sizeof(float)), "cudaMalloc");
  cudaStream_t streams[4];
  cudaEvent_t events[4];
  check(cudaStreamCreateWithFlags(&streams[0], cudaStreamNonBlocking), "stream");
  for (int s = 1; s < 4; ++s) cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking);
  for (auto& e : events) cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  const bool graph_mode = state.range(0) != 0;
  cudaGraphExec_t exec = nullptr;
  if (graph_mode) {
    cudaGraph_t g;
    check(cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeThreadLocal), "capture");
    issue_small_raw(buf, tmp.data(), streams, events);
    check(cudaStreamEndCapture(streams[0], &g), "end capture");
    check(cudaGraphInstantiate(&exec, g, 0), "instantiate");
    cudaGraphDestroy(g);
  }
  time_on(state, streams[0], 2.0 * small_chains * small_n * sizeof(float), [&] {
    if (graph_mode)
      cudaGraphLaunch(exec, streams[0]);
    else
      issue_small_raw(buf, tmp.data(), streams, events);
  });
  if (exec) cudaGraphExecDestroy(exec);
  for (auto t : tmp) cudaFree(t);
}
BENCHMARK(bm_small_ops_raw)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------- host overhead
// Host time to issue the seed: streamdsl's run() against the raw CUDA calls it
// makes (3 records, 3 waits, 2 launches). Rounds of 256 runs of each,
// interleaved so both see the same machine; the medians and their ratio are
// reported as counters. The GPU work is tiny, so issue time dominates.
void bm_host_overhead(benchmark::State& state) {
  device_buffer x(1024), y(1024), z(1024);
  sd::cuda_executor ex;
  const sd::binding b[] = {sd::bind("x", static_cast<const float*>(x.ptr), 1024), sd::bind("y", y.ptr, 1024),
                           sd::bind("z", z.ptr, 1024)};
  cudaStream_t side;
  cudaEvent_t entry, e, exit_event;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&entry, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&exit_event, cudaEventDisableTiming);
  auto raw = [&] {
    cudaEventRecord(entry, nullptr);
    cudaStreamWaitEvent(side, entry, 0);
    raw_add1<<<1, 256, 0, side>>>(x.ptr, y.ptr, 1024);
    cudaEventRecord(e, side);
    cudaStreamWaitEvent(nullptr, e, 0);
    raw_mul2<<<1, 256, 0, nullptr>>>(y.ptr, z.ptr, 1024);
    cudaEventRecord(exit_event, side);
    cudaStreamWaitEvent(nullptr, exit_event, 0);
  };
  auto ours = [&] { ex.run_bound(seed, b); };
  auto per_run_us = [](auto&& body) {
    constexpr int runs = 256;
    cudaDeviceSynchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) body();
    const auto t1 = std::chrono::steady_clock::now();
    cudaDeviceSynchronize();
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
  cudaStreamDestroy(side);
}
BENCHMARK(bm_host_overhead)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
