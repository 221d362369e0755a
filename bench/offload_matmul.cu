// Workload 6 with matmul layers (issue 14): activation offload and prefetch
// behind compute-heavy layers. Forward: `layers` bf16 matmuls on main, each
// an (m, k) by (k, n) product (8192 x 16384 by 16384 x 8192, ~2.5 ms) whose
// 128 MB output goes to pinned host memory on stream `offload` while the next
// layer computes (the last layer's stays on the device). Backward: a matmul
// per layer, last layer first, reading that layer's activation (an (m, n) by
// (n, k) product); each activation comes back on stream `prefetch` while the
// step before it computes, one step ahead. PCIe moves 128 MB in ~2.3 ms each
// way, so every transfer can hide behind a matmul.
//
// The figure is the share of transfer time hidden:
//   (serial - overlapped) / (serial - compute only)
// where `serial` is the same program with its copies on main and `compute
// only` the program with no copies (the activations stay on the device). A
// raw version (cuBLASLt + cudaMemcpyAsync + events on three streams) runs
// the overlapped schedule in the same binary. Goal: >= 90% hidden.
// Each variant checks one element of each backward product against a CPU
// dot product over the bf16 operands (a wrong result fails the benchmark).
#include <benchmark/benchmark.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/matmul.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

#include "bench_support.cuh"
#include "cublaslt_raw.cuh"

namespace workload6 {
using bf16 = __nv_bfloat16;
constexpr int layers = 4;
enum mode : int { compute_only = 0, serial = 1, overlapped = 2 };

// Outside the anonymous namespace: a template variable's lambda
// (-Wsubobject-linkage otherwise).
template <int Mode>
inline constexpr auto offload_layers = sd::program<sd::automatic>([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("cols");
  auto x = p.input<bf16>("x", m, k);
  auto w = p.inputs<bf16>("w", layers, k, n);
  auto v = p.inputs<bf16>("v", layers, n, k);
  auto g = p.outputs<bf16>("g", layers, m, k);
  auto act = p.temps<bf16>("act", layers, m, n);
  auto host = p.outputs<bf16, sd::pinned>("h", layers - 1, m, n);
  auto back = p.temps<bf16>("back", layers - 1, m, n);
  auto offload = p.stream("offload");
  auto prefetch = p.stream("prefetch");
  // Overlapped: the copies on their own streams; else on main.
  auto offload_on = Mode == overlapped ? offload : p.main_stream();
  auto prefetch_on = Mode == overlapped ? prefetch : p.main_stream();

  for (int l = 0; l < layers; ++l) {
    act[l] = sd::matmul(x, w[l]);
    if (Mode != compute_only && l < layers - 1) {
      sd::with_stream(offload_on, [&] { sd::copy(host[l], act[l]); });
    }
  }
  for (int l = layers - 1; l >= 0; --l) {
    // Bring back the activation the next step reads while this one computes.
    if (Mode != compute_only && l >= 1) {
      if (Mode == overlapped) prefetch.wait_stream(p.main_stream());
      sd::with_stream(prefetch_on, [&] { sd::copy(back[l - 1], host[l - 1]); });
    }
    if (Mode == compute_only || l == layers - 1)
      g[l] = sd::matmul(act[l], v[l]);
    else
      g[l] = sd::matmul(back[l], v[l]);
  }
});
}  // namespace workload6

namespace {
using bench::check;
using workload6::bf16;
using workload6::layers;
constexpr long long m = 8192, k = 16384, n = 8192;
constexpr std::size_t lt_workspace = std::size_t{32} << 20;

__global__ void fill_bf16(bf16* x, long long count, int salt) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x)
    x[i] = __float2bfloat16(static_cast<float>((i * 7 + salt) % 9 - 4) * 0.125f);
}

struct device_bytes {
  void* ptr = nullptr;
  explicit device_bytes(std::size_t bytes) { check(cudaMalloc(&ptr, bytes), "cudaMalloc"); }
  ~device_bytes() { cudaFree(ptr); }
  device_bytes(const device_bytes&) = delete;
};
struct pinned_bytes {
  void* ptr = nullptr;
  explicit pinned_bytes(std::size_t bytes) { check(cudaMallocHost(&ptr, bytes), "cudaMallocHost"); }
  ~pinned_bytes() { cudaFreeHost(ptr); }
  pinned_bytes(const pinned_bytes&) = delete;
};

// The operands (filled once) and the outputs of every variant.
struct operands {
  device_bytes x{sizeof(bf16) * m * k};
  device_bytes w{sizeof(bf16) * layers * k * n};
  device_bytes v{sizeof(bf16) * layers * n * k};
  device_bytes g{sizeof(bf16) * layers * m * k};
  pinned_bytes host{sizeof(bf16) * (layers - 1) * m * n};
  operands() {
    fill_bf16<<<bench::raw_blocks(), 256>>>(x_of(), m * k, 1);
    fill_bf16<<<bench::raw_blocks(), 256>>>(static_cast<bf16*>(w.ptr), layers * k * n, 2);
    fill_bf16<<<bench::raw_blocks(), 256>>>(static_cast<bf16*>(v.ptr), layers * n * k, 3);
    check(cudaDeviceSynchronize(), "fill");
  }
  bf16* x_of() const { return static_cast<bf16*>(x.ptr); }
  bf16* w_of(int l) const { return static_cast<bf16*>(w.ptr) + l * k * n; }
  bf16* v_of(int l) const { return static_cast<bf16*>(v.ptr) + l * n * k; }
  bf16* g_of(int l) const { return static_cast<bf16*>(g.ptr) + l * m * k; }
  bf16* host_of(int l) const { return static_cast<bf16*>(host.ptr) + l * m * n; }
  void poison() const { check(cudaMemset(g.ptr, 0xff, sizeof(bf16) * layers * m * k), "poison"); }

  // g[l][row][col] = sum_j act[l][row][j] v[l][j][col], act[l] = x . w[l]
  // (rounded to bf16, as the device stores it), against the CPU (relative 2e-2).
  bool right(int l, long long row, long long col) const {
    std::vector<bf16> x_row(k), w_l(static_cast<std::size_t>(k * n)), v_col(n);
    bf16 got;
    check(cudaDeviceSynchronize(), "sync");
    check(cudaMemcpy(x_row.data(), x_of() + row * k, k * sizeof(bf16), cudaMemcpyDeviceToHost), "x");
    check(cudaMemcpy(w_l.data(), w_of(l), w_l.size() * sizeof(bf16), cudaMemcpyDeviceToHost), "w");
    check(cudaMemcpy2D(v_col.data(), sizeof(bf16), v_of(l) + col, k * sizeof(bf16), sizeof(bf16), n,
                       cudaMemcpyDeviceToHost),
          "v");
    check(cudaMemcpy(&got, g_of(l) + row * k + col, sizeof(bf16), cudaMemcpyDeviceToHost), "g");
    std::vector<double> act(static_cast<std::size_t>(n), 0.0);
    for (long long i = 0; i < k; ++i) {
      const double xi = __bfloat162float(x_row[i]);
      for (long long j = 0; j < n; ++j) act[j] += xi * __bfloat162float(w_l[i * n + j]);
    }
    double want = 0, scale = 0;
    for (long long j = 0; j < n; ++j) {
      const double a = __bfloat162float(__float2bfloat16(static_cast<float>(act[j])));
      const double t = a * __bfloat162float(v_col[j]);
      want += t;
      scale += std::fabs(t);
    }
    return std::isfinite(__bfloat162float(got)) &&
           std::fabs(__bfloat162float(got) - want) <= 2e-2 * scale + 1e-2;
  }
  bool all_right() const {
    return right(0, 1, 2) && right(layers - 1, m - 1, k - 1) && right(1, m / 2, k / 3);
  }
};

std::vector<sd::binding> bind_all(const operands& o) {
  std::vector<sd::binding> bound;
  const auto M = static_cast<std::size_t>(m), K = static_cast<std::size_t>(k),
             N = static_cast<std::size_t>(n);
  bound.push_back(sd::bind("x", o.x_of(), M, K));
  for (int l = 0; l < layers; ++l) {
    const std::string at = "[" + std::to_string(l) + "]";
    bound.push_back(sd::bind("w" + at, o.w_of(l), K, N));
    bound.push_back(sd::bind("v" + at, o.v_of(l), N, K));
    bound.push_back(sd::bind("g" + at, o.g_of(l), M, K));
    if (l < layers - 1) bound.push_back(sd::bind("h" + at, o.host_of(l), M, N));
  }
  return bound;
}

double flops() { return 2.0 * layers * (2.0 * m * n * k); }

// Arg: workload6::mode.
template <int Mode>
void bm_streamdsl(benchmark::State& state) {
  const operands o;
  cudaStream_t main = nullptr;
  check(cudaStreamCreateWithFlags(&main, cudaStreamNonBlocking), "stream");
  {
    sd::cuda_executor ex(main);
    const auto bound = bind_all(o);  // compute_only declares the host buffers too, unused
    const sd::binding_list list(bound.data(), bound.size());
    o.poison();
    bench::time_on(state, main, 0, [&] { ex.run_bound(workload6::offload_layers<Mode>, list); });
    if (!o.all_right()) state.SkipWithError("wrong result");
  }
  state.counters["TFLOPs"] =
      benchmark::Counter(flops() * state.iterations() / 1e12, benchmark::Counter::kIsRate);
  cudaStreamDestroy(main);
}

// The overlapped schedule by hand: the same matmuls through cuBLASLt, the
// activations in device buffers of their own, copies on two side streams
// ordered by events.
void bm_raw_overlapped(benchmark::State& state) {
  const operands o;
  bench::lt_handle lt;
  const bench::raw_matmul forward(lt.h, CUDA_R_16BF, m, n, k, lt_workspace);
  const bench::raw_matmul backward(lt.h, CUDA_R_16BF, m, k, n, lt_workspace);
  device_bytes ws(lt_workspace);
  device_bytes act(sizeof(bf16) * layers * m * n);
  const auto act_of = [&](int l) { return static_cast<bf16*>(act.ptr) + l * m * n; };
  cudaStream_t main = nullptr, offload = nullptr, prefetch = nullptr;
  check(cudaStreamCreateWithFlags(&main, cudaStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&offload, cudaStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&prefetch, cudaStreamNonBlocking), "stream");
  cudaEvent_t computed[layers], offloaded[layers], fetched[layers], stepped[layers], done_off, done_pre;
  for (auto* set : {computed, offloaded, fetched, stepped})
    for (int l = 0; l < layers; ++l)
      check(cudaEventCreateWithFlags(&set[l], cudaEventDisableTiming), "event");
  check(cudaEventCreateWithFlags(&done_off, cudaEventDisableTiming), "event");
  check(cudaEventCreateWithFlags(&done_pre, cudaEventDisableTiming), "event");
  const std::size_t act_bytes = sizeof(bf16) * m * n;
  o.poison();
  bench::time_on(state, main, 0, [&] {
    // Side streams start after what main did before (the previous iteration).
    check(cudaEventRecord(stepped[0], main), "record");
    check(cudaStreamWaitEvent(offload, stepped[0], 0), "wait");
    check(cudaStreamWaitEvent(prefetch, stepped[0], 0), "wait");
    for (int l = 0; l < layers; ++l) {
      forward.issue(o.x_of(), o.w_of(l), act_of(l), ws.ptr, lt_workspace, main);
      if (l < layers - 1) {
        check(cudaEventRecord(computed[l], main), "record");
        check(cudaStreamWaitEvent(offload, computed[l], 0), "wait");
        check(cudaMemcpyAsync(o.host_of(l), act_of(l), act_bytes, cudaMemcpyDeviceToHost, offload), "d2h");
        check(cudaEventRecord(offloaded[l], offload), "record");
      }
    }
    for (int l = layers - 1; l >= 0; --l) {
      if (l >= 1) {
        check(cudaEventRecord(stepped[l], main), "record");
        check(cudaStreamWaitEvent(prefetch, stepped[l], 0), "wait");
        check(cudaStreamWaitEvent(prefetch, offloaded[l - 1], 0), "wait");
        // Back into the activation's own buffer: the plan's slots may do the same.
        check(cudaMemcpyAsync(act_of(l - 1), o.host_of(l - 1), act_bytes, cudaMemcpyHostToDevice, prefetch),
              "h2d");
        check(cudaEventRecord(fetched[l - 1], prefetch), "record");
      }
      if (l < layers - 1) check(cudaStreamWaitEvent(main, fetched[l], 0), "wait");
      backward.issue(act_of(l), o.v_of(l), o.g_of(l), ws.ptr, lt_workspace, main);
    }
    check(cudaEventRecord(done_off, offload), "record");
    check(cudaEventRecord(done_pre, prefetch), "record");
    check(cudaStreamWaitEvent(main, done_off, 0), "wait");
    check(cudaStreamWaitEvent(main, done_pre, 0), "wait");
  });
  if (!o.all_right()) state.SkipWithError("wrong result");
  state.counters["TFLOPs"] =
      benchmark::Counter(flops() * state.iterations() / 1e12, benchmark::Counter::kIsRate);
  for (auto* set : {computed, offloaded, fetched, stepped})
    for (int l = 0; l < layers; ++l) cudaEventDestroy(set[l]);
  cudaEventDestroy(done_off);
  cudaEventDestroy(done_pre);
  cudaStreamDestroy(prefetch);
  cudaStreamDestroy(offload);
  cudaStreamDestroy(main);
}
}  // namespace

BENCHMARK(bm_streamdsl<workload6::compute_only>)
    ->Name("w6_matmul/compute_only")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_streamdsl<workload6::serial>)
    ->Name("w6_matmul/serial")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_streamdsl<workload6::overlapped>)
    ->Name("w6_matmul/streamdsl")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_raw_overlapped)->Name("w6_matmul/raw")->UseManualTime()->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  std::printf("%s", workload6::offload_layers<workload6::overlapped>.to_string().c_str());
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
