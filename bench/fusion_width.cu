// How wide a fused loop may be: the measurement behind
// passes::max_fused_buffers (passes/split_wide_runs.hpp). K tensors of 2^22
// floats, each updated by an Adam-like step over its own 4 buffers (3 read
// and written, 1 read: 28 bytes per element), on one stream, three ways:
//   loop      one domain under sd::separate_launches: one kernel whose loop
//             touches all 4K buffers per element (fusion as it was)
//   segments  each tensor in its own domain of the same extent: one launch of
//             K kernels, a segment each (the multi-tensor layout)
//   default   one domain, default options: one loop while 4K <= the limit,
//             else the run split into pieces launched together
// Bandwidth is reported per variant (bytes_per_second; 28 * K * 2^22 bytes);
// docs/benchmarks.md compares them with bm_width_memcpy.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

#include "bench_support.cuh"

namespace {

using bench::check;
using bench::time_on;

constexpr std::size_t n = std::size_t{1} << 22;
constexpr const char* domain_names[] = {"d0", "d1", "d2",  "d3",  "d4",  "d5",  "d6",  "d7",
                                        "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15"};
constexpr const char* w_names[] = {"w0", "w1", "w2",  "w3",  "w4",  "w5",  "w6",  "w7",
                                   "w8", "w9", "w10", "w11", "w12", "w13", "w14", "w15"};
constexpr const char* m_names[] = {"m0", "m1", "m2",  "m3",  "m4",  "m5",  "m6",  "m7",
                                   "m8", "m9", "m10", "m11", "m12", "m13", "m14", "m15"};
constexpr const char* v_names[] = {"v0", "v1", "v2",  "v3",  "v4",  "v5",  "v6",  "v7",
                                   "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15"};
constexpr const char* g_names[] = {"g0", "g1", "g2",  "g3",  "g4",  "g5",  "g6",  "g7",
                                   "g8", "g9", "g10", "g11", "g12", "g13", "g14", "g15"};

// K tensors; each in its own domain when Domains, else all in one.
template <int K, bool Domains>
constexpr auto width_lambda() {
  return [](sd::builder& p) {
    const sd::domain one{};  // the default domain
    auto b1 = p.param<float>("b1");
    auto b2 = p.param<float>("b2");
    auto lr = p.param<float>("lr");
    auto eps = p.param<float>("eps");
    for (int t = 0; t < K; ++t) {
      const sd::domain d = Domains && t > 0 ? p.domain(domain_names[t]) : one;
      auto w = p.inout<float>(w_names[t], d);
      auto m = p.inout<float>(m_names[t], d);
      auto v = p.inout<float>(v_names[t], d);
      auto g = p.input<float>(g_names[t], d);
      m = b1 * m + (1.0f - b1) * g;
      v = b2 * v + (1.0f - b2) * g * g;
      w = w - lr * m / (sd::sqrt(v) + eps);
    }
  };
}

template <int K>
struct width_state {
  bench::device_buffer all{4 * K * n};  // w, m, v, g per tensor, n floats each
  float* buffer(int i) const { return all.ptr + static_cast<std::size_t>(i) * n; }
  width_state() {
    std::vector<float> h(n);
    for (int i = 0; i < 4 * K; ++i) {
      for (std::size_t j = 0; j < n; ++j)
        h[j] = 0.001f + static_cast<float>((j * 2654435761u + i) % 1000) / 1000;
      check(cudaMemcpy(buffer(i), h.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
  }
  std::vector<sd::binding> bindings() const {
    std::vector<sd::binding> out{sd::bind("b1", 0.9f), sd::bind("b2", 0.999f), sd::bind("lr", 1e-3f),
                                 sd::bind("eps", 1e-8f)};
    for (int t = 0; t < K; ++t) {
      out.push_back(sd::bind(w_names[t], buffer(4 * t), n));
      out.push_back(sd::bind(m_names[t], buffer(4 * t + 1), n));
      out.push_back(sd::bind(v_names[t], buffer(4 * t + 2), n));
      out.push_back(sd::bind(g_names[t], static_cast<const float*>(buffer(4 * t + 3)), n));
    }
    return out;
  }
  // Tensor t's w after one step from the starting state, computed on the host.
  bool check_one_step(int t) const {
    std::vector<float> w(n);
    for (std::size_t j = 0; j < n; ++j) {
      const auto h = [&](int i) {
        return 0.001f +
               static_cast<float>((j * 2654435761u + static_cast<unsigned>(4 * t + i)) % 1000) / 1000;
      };
      float mm = 0.9f * h(1) + (1.0f - 0.9f) * h(3);
      float vv = 0.999f * h(2) + (1.0f - 0.999f) * h(3) * h(3);
      w[j] = h(0) - 1e-3f * mm / (std::sqrt(vv) + 1e-8f);
    }
    std::vector<float> got(n);
    check(cudaMemcpy(got.data(), buffer(4 * t), n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (std::size_t j = 0; j < n; ++j)
      if (!(std::fabs(got[j] - w[j]) <= 1e-5f * (1 + std::fabs(w[j])))) return false;
    return true;
  }
};

void bm_width_memcpy(benchmark::State& state) {
  constexpr std::size_t bytes = std::size_t{1} << 30;
  bench::device_buffer a(bytes / 4), b(bytes / 4);
  time_on(state, nullptr, 2.0 * bytes,
          [&] { check(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice, nullptr), "memcpy"); });
}
BENCHMARK(bm_width_memcpy)->UseManualTime()->Unit(benchmark::kMillisecond);

template <const auto& Program, int K>
void bm_width(benchmark::State& state) {
  width_state<K> s;
  const auto b = s.bindings();
  sd::cuda_executor ex;
  ex.run_bound(Program, b);
  check(cudaDeviceSynchronize(), "sync");
  if (!s.check_one_step(0) || !s.check_one_step(K - 1)) state.SkipWithError("wrong results");
  state.counters["kernels"] = static_cast<double>(Program.plan().kernel_count());
  state.counters["launches"] = static_cast<double>(Program.plan().launch_count());
  time_on(state, nullptr, 28.0 * K * n, [&] { ex.run_bound(Program, b); });
}

#define STREAMDSL_WIDTH(K)                                                                \
  constexpr auto loop_##K = sd::program<sd::separate_launches>(width_lambda<K, false>()); \
  constexpr auto segments_##K = sd::program(width_lambda<K, true>());                     \
  constexpr auto default_##K = sd::program(width_lambda<K, false>());                     \
  BENCHMARK(bm_width<loop_##K, K>)                                                        \
      ->Name("bm_width_loop_" #K)                                                         \
      ->UseManualTime()                                                                   \
      ->Unit(benchmark::kMillisecond);                                                    \
  BENCHMARK(bm_width<segments_##K, K>)                                                    \
      ->Name("bm_width_segments_" #K)                                                     \
      ->UseManualTime()                                                                   \
      ->Unit(benchmark::kMillisecond);                                                    \
  BENCHMARK(bm_width<default_##K, K>)                                                     \
      ->Name("bm_width_default_" #K)                                                      \
      ->UseManualTime()                                                                   \
      ->Unit(benchmark::kMillisecond);

STREAMDSL_WIDTH(1)
STREAMDSL_WIDTH(2)
STREAMDSL_WIDTH(3)
STREAMDSL_WIDTH(4)
STREAMDSL_WIDTH(6)
STREAMDSL_WIDTH(8)
STREAMDSL_WIDTH(12)
STREAMDSL_WIDTH(16)

}  // namespace

BENCHMARK_MAIN();
