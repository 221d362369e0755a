// Issue 17's workload, the everyday multi-tensor program: one Adam step over
// 64 float tensors, 32 of 2^22 elements (domain "big") and 32 of 2^12
// ("small"), alternating in program order, each
//   m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g*g;  p = p - lr*(m/bc1)/(sqrt(v/bc2)+eps)
// reading p, g, m, v and writing p, m, v: 28 bytes per element, the limit
// against which every variant is reported (bytes over cudaMemcpyAsync's
// device-to-device bandwidth, measured in the same run).
//
// Variants: the streamdsl program on one stream (one multi-segment launch)
// and on four (tensor t on stream t % 4), plain runs and graph replay, and
// the one-stream program under sd::separate_launches (a launch per kernel:
// the plan before join_launches); raw CUDA written here, one
// launch per tensor on one stream (what a plan of one kernel per tensor
// costs) and one multi-tensor launch (a table of (tensor, chunk) blocks, as
// PyTorch's multi_tensor_apply does). Every variant's result after one step
// from the same state is checked against the multi-tensor kernel's.
// PyTorch's fused Adam and torch.compile run beside this in
// bench/torch_adam.py (scripts/gpu.sh runs both).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

#include "bench_support.cuh"

namespace {

using bench::check;
using bench::time_on;

constexpr int pairs = 32;  // 32 big and 32 small tensors
constexpr std::size_t big_n = std::size_t{1} << 22;
constexpr std::size_t small_n = std::size_t{1} << 12;
constexpr double adam_bytes = 28.0 * pairs * static_cast<double>(big_n + small_n);

// Adam's constants at step 3 (bias corrections 1 - b^t precomputed, as the
// optimizers do on the host).
struct adam_hyper {
  float b1 = 0.9f, b2 = 0.999f, lr = 1e-3f, eps = 1e-8f;
  float bc1 = 1.0f - 0.9f * 0.9f * 0.9f;
  float bc2 = 1.0f - 0.999f * 0.999f * 0.999f;
};

// ---------------------------------------------------------------- the program
template <int Streams>
constexpr auto adam_lambda() {
  return [](sd::builder& p) {
    auto big = p.domain("big");
    auto small = p.domain("small");
    auto p_big = p.inouts<float>("p_big", pairs, big);
    auto m_big = p.inouts<float>("m_big", pairs, big);
    auto v_big = p.inouts<float>("v_big", pairs, big);
    auto g_big = p.inputs<float>("g_big", pairs, big);
    auto p_small = p.inouts<float>("p_small", pairs, small);
    auto m_small = p.inouts<float>("m_small", pairs, small);
    auto v_small = p.inouts<float>("v_small", pairs, small);
    auto g_small = p.inputs<float>("g_small", pairs, small);
    auto b1 = p.param<float>("b1");
    auto b2 = p.param<float>("b2");
    auto lr = p.param<float>("lr");
    auto eps = p.param<float>("eps");
    auto bc1 = p.param<float>("bc1");
    auto bc2 = p.param<float>("bc2");
    const sd::stream streams[] = {p.main_stream(), Streams > 1 ? p.stream("s1") : p.main_stream(),
                                  Streams > 2 ? p.stream("s2") : p.main_stream(),
                                  Streams > 3 ? p.stream("s3") : p.main_stream()};
    auto adam = [&](auto w, auto m, auto v, auto g) {
      m = b1 * m + (1.0f - b1) * g;
      v = b2 * v + (1.0f - b2) * g * g;
      w = w - lr * (m / bc1) / (sd::sqrt(v / bc2) + eps);
    };
    for (int i = 0; i < pairs; ++i)
      for (int j = 0; j < 2; ++j)
        sd::with_stream(streams[(2 * i + j) % Streams], [&] {
          if (j == 0)
            adam(p_big[i], m_big[i], v_big[i], g_big[i]);
          else
            adam(p_small[i], m_small[i], v_small[i], g_small[i]);
        });
    for (int s = 1; s < Streams; ++s) streams[0].wait_stream(streams[s]);
  };
}

constexpr auto adam_1 = sd::program(adam_lambda<1>());
constexpr auto adam_4 = sd::program(adam_lambda<4>());
// The one-stream program's plan before its kernels are joined into one
// launch (sd::separate_launches): 64 launches, the cost rule's other side.
constexpr auto adam_1_separate = sd::program<sd::separate_launches>(adam_lambda<1>());

// ---------------------------------------------------------------- the state
// All tensors in one allocation per role, tensor t of each role at offset[t].
struct adam_state {
  std::vector<std::size_t> offset, size;  // per tensor, in program order (big, small, big, ...)
  std::size_t total = 0;
  float *p = nullptr, *m = nullptr, *v = nullptr, *g = nullptr;
  adam_state() {
    for (int t = 0; t < 2 * pairs; ++t) {
      offset.push_back(total);
      size.push_back(t % 2 == 0 ? big_n : small_n);
      total += size.back();
    }
    for (float** a : {&p, &m, &v, &g}) check(cudaMalloc(a, total * sizeof(float)), "cudaMalloc");
    reset();
  }
  ~adam_state() {
    for (float* a : {p, m, v, g}) cudaFree(a);
  }
  adam_state(const adam_state&) = delete;
  // The same starting state for every variant (m and v > 0, so sqrt is defined).
  void reset() {
    std::vector<float> h(total);
    auto fill = [&](float* d, float scale, float shift) {
      for (std::size_t i = 0; i < total; ++i)
        h[i] = shift + scale * static_cast<float>((i * 2654435761u) % 1000) / 1000;
      check(cudaMemcpy(d, h.data(), total * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    };
    fill(p, 2.0f, -1.0f);
    fill(m, 0.1f, 0.0f);
    fill(v, 0.01f, 0.001f);
    fill(g, 1.0f, -0.5f);
  }
  std::vector<float> weights() const {
    std::vector<float> h(total);
    check(cudaMemcpy(h.data(), p, total * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return h;
  }
  // The family bindings: members in order, big ones from even tensors.
  std::vector<sd::binding> bindings(const adam_hyper& h) const {
    std::vector<sd::binding> out;
    auto family = [&](const char* name, float* base, int parity) {
      std::vector<float*> members;
      for (int t = parity; t < 2 * pairs; t += 2)
        members.push_back(base + offset[static_cast<std::size_t>(t)]);
      out.push_back(sd::bind(name, members, parity == 0 ? big_n : small_n));
    };
    auto inputs = [&](const char* name, const float* base, int parity) {
      std::vector<const float*> members;
      for (int t = parity; t < 2 * pairs; t += 2)
        members.push_back(base + offset[static_cast<std::size_t>(t)]);
      out.push_back(sd::bind(name, members, parity == 0 ? big_n : small_n));
    };
    family("p_big", p, 0);
    family("m_big", m, 0);
    family("v_big", v, 0);
    inputs("g_big", g, 0);
    family("p_small", p, 1);
    family("m_small", m, 1);
    family("v_small", v, 1);
    inputs("g_small", g, 1);
    out.push_back(sd::bind("b1", h.b1));
    out.push_back(sd::bind("b2", h.b2));
    out.push_back(sd::bind("lr", h.lr));
    out.push_back(sd::bind("eps", h.eps));
    out.push_back(sd::bind("bc1", h.bc1));
    out.push_back(sd::bind("bc2", h.bc2));
    return out;
  }
};

// ---------------------------------------------------------------- raw CUDA
__device__ __forceinline__ void adam_element(float& w, float& m, float& v, float g, const adam_hyper& h) {
  m = h.b1 * m + (1.0f - h.b1) * g;
  v = h.b2 * v + (1.0f - h.b2) * g * g;
  w = w - h.lr * (m / h.bc1) / (sqrtf(v / h.bc2) + h.eps);
}

__device__ __forceinline__ void adam_vector(float4* w, float4* m, float4* v, const float4* g, std::size_t i,
                                            const adam_hyper& h) {
  float4 a = w[i], b = m[i], c = v[i];
  const float4 d = g[i];
  adam_element(a.x, b.x, c.x, d.x, h);
  adam_element(a.y, b.y, c.y, d.y, h);
  adam_element(a.z, b.z, c.z, d.z, h);
  adam_element(a.w, b.w, c.w, d.w, h);
  w[i] = a;
  m[i] = b;
  v[i] = c;
}

// One tensor, grid-stride over float4s (sizes here are multiples of 4).
__global__ void adam_one_tensor(float* w, float* m, float* v, const float* g, std::size_t n, adam_hyper h) {
  const std::size_t n4 = n / 4;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n4;
       i += std::size_t{gridDim.x} * blockDim.x)
    adam_vector(reinterpret_cast<float4*>(w), reinterpret_cast<float4*>(m), reinterpret_cast<float4*>(v),
                reinterpret_cast<const float4*>(g), i, h);
}

// multi_tensor_apply's shape: each block takes one chunk of one tensor.
constexpr int mt_threads = 256;
constexpr std::size_t mt_chunk = mt_threads * 4 * 4;  // 4 float4s a thread
struct block_task {
  std::uint32_t tensor;
  std::uint32_t start;  // element
};
struct tensor_ref {
  float *w, *m, *v;
  const float* g;
  std::size_t n;
};

__global__ void adam_multi_tensor(const tensor_ref* tensors, const block_task* tasks, adam_hyper h) {
  const block_task task = tasks[blockIdx.x];
  const tensor_ref t = tensors[task.tensor];
  const std::size_t end4 = min(t.n, task.start + mt_chunk) / 4;
  for (std::size_t i = task.start / 4 + threadIdx.x; i < end4; i += mt_threads)
    adam_vector(reinterpret_cast<float4*>(t.w), reinterpret_cast<float4*>(t.m),
                reinterpret_cast<float4*>(t.v), reinterpret_cast<const float4*>(t.g), i, h);
}

struct multi_tensor_launch {
  tensor_ref* tensors = nullptr;
  block_task* tasks = nullptr;
  int blocks = 0;
  explicit multi_tensor_launch(const adam_state& s) {
    std::vector<tensor_ref> refs;
    std::vector<block_task> list;
    for (std::size_t t = 0; t < s.size.size(); ++t) {
      const auto o = s.offset[t];
      refs.push_back({s.p + o, s.m + o, s.v + o, s.g + o, s.size[t]});
      for (std::size_t start = 0; start < s.size[t]; start += mt_chunk)
        list.push_back({static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(start)});
    }
    blocks = static_cast<int>(list.size());
    check(cudaMalloc(&tensors, refs.size() * sizeof(tensor_ref)), "cudaMalloc");
    check(cudaMalloc(&tasks, list.size() * sizeof(block_task)), "cudaMalloc");
    check(cudaMemcpy(tensors, refs.data(), refs.size() * sizeof(tensor_ref), cudaMemcpyHostToDevice), "copy");
    check(cudaMemcpy(tasks, list.data(), list.size() * sizeof(block_task), cudaMemcpyHostToDevice), "copy");
  }
  ~multi_tensor_launch() {
    cudaFree(tensors);
    cudaFree(tasks);
  }
  multi_tensor_launch(const multi_tensor_launch&) = delete;
  void operator()(const adam_hyper& h, cudaStream_t stream = nullptr) const {
    adam_multi_tensor<<<blocks, mt_threads, 0, stream>>>(tensors, tasks, h);
  }
};

void per_tensor_launches(const adam_state& s, const adam_hyper& h) {
  for (std::size_t t = 0; t < s.size.size(); ++t) {
    const auto o = s.offset[t];
    const auto n4 = static_cast<int>(s.size[t] / 4);
    const int blocks = std::min((n4 + 255) / 256, bench::raw_blocks());
    adam_one_tensor<<<blocks, 256>>>(s.p + o, s.m + o, s.v + o, s.g + o, s.size[t], h);
  }
}

// ---------------------------------------------------------------- checks
// The weights after one step of a variant from the starting state, against
// the multi-tensor kernel's (the same float operations in the same order;
// a fused kernel may contract them differently, hence a tolerance).
template <class Step>
void check_one_step(benchmark::State& state, adam_state& s, Step&& step) {
  const adam_hyper h;
  s.reset();
  multi_tensor_launch{s}(h);
  check(cudaDeviceSynchronize(), "sync");
  const auto want = s.weights();
  s.reset();
  step();
  check(cudaDeviceSynchronize(), "sync");
  const auto got = s.weights();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-5f * (1.0f + std::fabs(want[i])))) ++bad;
  if (bad != 0) state.SkipWithError(("wrong results: " + std::to_string(bad) + " weights differ").c_str());
  s.reset();
}

// ---------------------------------------------------------------- benchmarks
void bm_adam_memcpy(benchmark::State& state) {
  // The bandwidth reference: 1 GiB device to device (bytes read + written).
  constexpr std::size_t n = std::size_t{1} << 28;
  bench::device_buffer a(n), b(n);
  time_on(state, nullptr, 2.0 * n * sizeof(float), [&] {
    check(cudaMemcpyAsync(b.ptr, a.ptr, n * sizeof(float), cudaMemcpyDeviceToDevice, nullptr), "memcpy");
  });
}
BENCHMARK(bm_adam_memcpy)->UseManualTime()->Unit(benchmark::kMillisecond);

// The multi-tensor kernel's step against the same arithmetic on the host.
void check_against_host(benchmark::State& state, adam_state& s) {
  const adam_hyper h;
  s.reset();
  auto copy_out = [&](const float* d) {
    std::vector<float> out(s.total);
    check(cudaMemcpy(out.data(), d, s.total * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return out;
  };
  auto w = copy_out(s.p), m = copy_out(s.m), v = copy_out(s.v);
  const auto g = copy_out(s.g);
  multi_tensor_launch{s}(h);
  check(cudaDeviceSynchronize(), "sync");
  const auto got = s.weights();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < s.total; ++i) {
    m[i] = h.b1 * m[i] + (1.0f - h.b1) * g[i];
    v[i] = h.b2 * v[i] + (1.0f - h.b2) * g[i] * g[i];
    w[i] = w[i] - h.lr * (m[i] / h.bc1) / (std::sqrt(v[i] / h.bc2) + h.eps);
    if (!(std::fabs(got[i] - w[i]) <= 1e-5f * (1.0f + std::fabs(w[i])))) ++bad;
  }
  if (bad != 0) state.SkipWithError(("wrong results: " + std::to_string(bad) + " weights differ").c_str());
  s.reset();
}

void bm_adam_raw_multi_tensor(benchmark::State& state) {
  adam_state s;
  check_against_host(state, s);
  const multi_tensor_launch launch(s);
  const adam_hyper h;
  time_on(state, nullptr, adam_bytes, [&] { launch(h); });
}
BENCHMARK(bm_adam_raw_multi_tensor)->UseManualTime()->Unit(benchmark::kMillisecond);

void bm_adam_raw_per_tensor(benchmark::State& state) {
  adam_state s;
  const adam_hyper h;
  check_one_step(state, s, [&] { per_tensor_launches(s, h); });
  time_on(state, nullptr, adam_bytes, [&] { per_tensor_launches(s, h); });
}
BENCHMARK(bm_adam_raw_per_tensor)->UseManualTime()->Unit(benchmark::kMillisecond);

template <const auto& Program>
void bm_adam_streamdsl(benchmark::State& state) {
  adam_state s;
  const auto b = s.bindings(adam_hyper{});
  sd::cuda_executor ex;
  check_one_step(state, s, [&] { ex.run_bound(Program, b); });
  state.counters["kernels"] = static_cast<double>(Program.plan().kernel_count());
  state.counters["launches"] = static_cast<double>(Program.plan().launch_count());
  time_on(state, nullptr, adam_bytes, [&] { ex.run_bound(Program, b); });
}
BENCHMARK(bm_adam_streamdsl<adam_1>)
    ->Name("bm_adam_streamdsl_1_stream")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_adam_streamdsl<adam_1_separate>)
    ->Name("bm_adam_streamdsl_1_stream_separate_launches")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_adam_streamdsl<adam_4>)
    ->Name("bm_adam_streamdsl_4_streams")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

template <const auto& Program>
void bm_adam_streamdsl_graph(benchmark::State& state) {
  adam_state s;
  const auto b = s.bindings(adam_hyper{});
  sd::cuda_executor ex;
  auto graph = sd::capture_bound(ex, Program, b);
  check_one_step(state, s, [&] { graph.launch(); });
  state.counters["kernels"] = static_cast<double>(Program.plan().kernel_count());
  state.counters["launches"] = static_cast<double>(Program.plan().launch_count());
  time_on(state, nullptr, adam_bytes, [&] { graph.launch(); });
}
BENCHMARK(bm_adam_streamdsl_graph<adam_1>)
    ->Name("bm_adam_streamdsl_graph_1_stream")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_adam_streamdsl_graph<adam_1_separate>)
    ->Name("bm_adam_streamdsl_graph_1_stream_separate_launches")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_adam_streamdsl_graph<adam_4>)
    ->Name("bm_adam_streamdsl_graph_4_streams")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
