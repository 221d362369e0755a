// Matmul concurrency (issue 14, workloads 7 and 7b), streamdsl against raw
// cuBLASLt calls (bench/cublaslt_raw.cuh) in the same binary.
//
// 7b: 64 independent bf16 matmuls of one shape (512^3, 1024^3, 256x4096x1024)
//     spread over 4 streams. Plain calls on one stream are bound by the host's
//     launch cost; a CUDA graph over 4 streams is not. Goals: streamdsl's graph
//     >= 2x the plain one-stream calls at 512^3 and 1024^3, and no slower than
//     a raw 4-stream graph.
// 7:  a full-GPU bf16 8192^3 matmul beside an 8-op elementwise chain over 2^28
//     floats on another stream. Both need every SM, so overlap gains little:
//     the goal is that the plan is never more than 3% slower than the two back
//     to back; an SM-partitioned raw variant (cuBLASLt's SM-count target) is
//     reported beside plain overlap.
// Each variant checks one product element against a CPU dot product (a
// wrong result fails the benchmark). Times from CUDA events.
#include <benchmark/benchmark.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/backend/cuda/matmul.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

#include "bench_support.cuh"
#include "cublaslt_raw.cuh"

// Outside the anonymous namespace: the benchmark template below captures a
// graph of this program in a lambda (g++'s -Wsubobject-linkage otherwise).
namespace workload7 {
using bf16 = __nv_bfloat16;
// Overlap: the chain on a side stream beside main's matmul; else both on
// main, back to back (the same kernels: the fair baseline for the plan).
template <bool Overlap>
inline constexpr auto beside = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("cols");
  auto a = p.input<bf16>("a", m, k);
  auto b = p.input<bf16>("b", k, n);
  auto c = p.output<bf16>("c", m, n);
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto side = p.stream("side");
  auto t = p.temps<float>("t", 7);
  const auto chain = [&] {
    t[0] = x * 1.0001f;
    for (int i = 1; i < 7; ++i) {
      if (i % 2 == 1)
        t[i] = t[i - 1] + 0.5f;
      else
        t[i] = t[i - 1] * 0.999f;
    }
    y = t[6] - 0.25f;
  };
  if constexpr (Overlap) {
    side.wait_stream(p.main_stream());
    sd::with_stream(side, chain);
  } else {
    chain();
  }
  c = sd::matmul(a, b);
  if constexpr (Overlap) p.main_stream().wait_stream(side);
});

}  // namespace workload7

namespace {

using bench::check;
using bench::time_on;
using bf16 = __nv_bfloat16;

constexpr int count = 64, lanes = 4;
constexpr std::size_t lt_workspace = std::size_t{32} << 20;

struct bytes_buffer {
  void* ptr = nullptr;
  explicit bytes_buffer(std::size_t bytes) {
    check(cudaMalloc(&ptr, bytes), "cudaMalloc");
    check(cudaMemset(ptr, 0, bytes), "cudaMemset");
  }
  ~bytes_buffer() { cudaFree(ptr); }
  bytes_buffer(const bytes_buffer&) = delete;
};

__global__ void fill_bf16(bf16* x, long long n, int salt) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    x[i] = __float2bfloat16(static_cast<float>((i * 7 + salt) % 9 - 4) * 0.125f);
}

// The shapes of 7b: m, n, k.
struct shape {
  long long m, n, k;
};
constexpr shape shapes[] = {{512, 512, 512}, {1024, 1024, 1024}, {256, 4096, 1024}};

// `many` matrices of each operand, one allocation each.
struct operands {
  shape s;
  int many;
  bytes_buffer a, b, c;
  explicit operands(shape sh, int matrices = count)
      : s(sh),
        many(matrices),
        a(sizeof(bf16) * matrices * sh.m * sh.k),
        b(sizeof(bf16) * matrices * sh.k * sh.n),
        c(sizeof(bf16) * matrices * sh.m * sh.n) {
    fill_bf16<<<bench::raw_blocks(), 256>>>(static_cast<bf16*>(a.ptr), matrices * sh.m * sh.k, 1);
    fill_bf16<<<bench::raw_blocks(), 256>>>(static_cast<bf16*>(b.ptr), matrices * sh.k * sh.n, 2);
    check(cudaDeviceSynchronize(), "fill");
  }
  const bf16* a_of(int i) const { return static_cast<const bf16*>(a.ptr) + i * s.m * s.k; }
  const bf16* b_of(int i) const { return static_cast<const bf16*>(b.ptr) + i * s.k * s.n; }
  bf16* c_of(int i) const { return static_cast<bf16*>(c.ptr) + i * s.m * s.n; }
  // c[i][row][col] against a dot product on the CPU (bf16 output: relative 1e-2).
  bool right(int i, long long row, long long col) const {
    std::vector<bf16> a_row(s.k), b_col(s.k);
    bf16 got;
    check(cudaDeviceSynchronize(), "sync");
    check(cudaMemcpy(a_row.data(), a_of(i) + row * s.k, s.k * sizeof(bf16), cudaMemcpyDeviceToHost), "a");
    check(cudaMemcpy2D(b_col.data(), sizeof(bf16), b_of(i) + col, s.n * sizeof(bf16), sizeof(bf16), s.k,
                       cudaMemcpyDeviceToHost),
          "b");
    check(cudaMemcpy(&got, c_of(i) + row * s.n + col, sizeof(bf16), cudaMemcpyDeviceToHost), "c");
    double want = 0, scale = 0;
    for (long long p = 0; p < s.k; ++p) {
      const double t = static_cast<double>(__bfloat162float(a_row[p])) * __bfloat162float(b_col[p]);
      want += t;
      scale += std::fabs(t);
    }
    return std::fabs(__bfloat162float(got) - want) <= 1e-2 * scale + 1e-3;
  }
  bool all_right() const {
    return right(0, 0, 0) && right(many - 1, s.m - 1, s.n - 1) && right(many / 2, s.m / 3, s.n / 2);
  }
  double flops() const { return 2.0 * many * s.m * s.n * s.k; }
};

// ------------------------------------------------------------------ 7b
// By default the 64 products are one batch (passes/batch_matmuls.hpp): one
// strided-batched cublasLtMatmul when bound contiguously, as bind_all does;
// `independent_apart` (sd::no_batching) keeps a call per product on its stream.
constexpr auto independent_body = [](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("cols");
  auto a = p.inputs<bf16>("a", count, m, k);
  auto b = p.inputs<bf16>("b", count, k, n);
  auto c = p.outputs<bf16>("c", count, m, n);
  auto s = p.streams("s", lanes);
  for (int i = 0; i < lanes; ++i) s[i].wait_stream(p.main_stream());
  for (int i = 0; i < count; ++i) sd::with_stream(s[i % lanes], [&] { c[i] = sd::matmul(a[i], b[i]); });
  for (int i = 0; i < lanes; ++i) p.main_stream().wait_stream(s[i]);
};
constexpr auto independent = sd::program(independent_body);
constexpr auto independent_apart = sd::program<sd::no_batching>(independent_body);
static_assert(independent.plan().step_count() == 1 && independent_apart.plan().step_count() == count);

std::vector<sd::binding> bind_all(const operands& o) {
  std::vector<sd::binding> bound;
  const auto rows = static_cast<std::size_t>(o.s.m), inner = static_cast<std::size_t>(o.s.k),
             cols = static_cast<std::size_t>(o.s.n);
  for (int i = 0; i < count; ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    bound.push_back(sd::bind("a" + at, o.a_of(i), rows, inner));
    bound.push_back(sd::bind("b" + at, o.b_of(i), inner, cols));
    bound.push_back(sd::bind("c" + at, o.c_of(i), rows, cols));
  }
  return bound;
}

// Arg 0: shape; arg 1: 0 plain calls on one stream, 1 plain calls on 4
// streams, 2 a graph of the calls on 4 streams, 3 one strided-batched call
// (the 64 products are contiguous here, matrix i at i * m * k: what a
// batched lowering of the plan could issue when its buffers are laid out so).
void bm_7b_raw(benchmark::State& state) {
  const operands o(shapes[state.range(0)]);
  bench::lt_handle lt;
  const bench::raw_matmul mm(lt.h, CUDA_R_16BF, o.s.m, o.s.n, o.s.k, lt_workspace);
  bytes_buffer ws(lanes * lt_workspace);
  const auto ws_of = [&](int lane) { return static_cast<char*>(ws.ptr) + lane * lt_workspace; };
  cudaStream_t main = nullptr, side[lanes];
  cudaEvent_t fork = nullptr, joins[lanes];
  check(cudaStreamCreateWithFlags(&main, cudaStreamNonBlocking), "stream");
  check(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming), "event");
  for (int l = 0; l < lanes; ++l) {
    check(cudaStreamCreateWithFlags(&side[l], cudaStreamNonBlocking), "stream");
    check(cudaEventCreateWithFlags(&joins[l], cudaEventDisableTiming), "event");
  }
  const auto on_lanes = [&] {
    check(cudaEventRecord(fork, main), "record");
    for (int l = 0; l < lanes; ++l) check(cudaStreamWaitEvent(side[l], fork, 0), "wait");
    for (int i = 0; i < count; ++i)
      mm.issue(o.a_of(i), o.b_of(i), o.c_of(i), ws_of(i % lanes), lt_workspace, side[i % lanes]);
    for (int l = 0; l < lanes; ++l) {
      check(cudaEventRecord(joins[l], side[l]), "record");
      check(cudaStreamWaitEvent(main, joins[l], 0), "wait");
    }
  };
  const auto variant = state.range(1);
  if (variant == 3) {
    bench::raw_options batched;
    batched.batch = count;
    const bench::raw_matmul all(lt.h, CUDA_R_16BF, o.s.m, o.s.n, o.s.k, lt_workspace, batched);
    time_on(state, main, 0,
            [&] { all.issue(o.a_of(0), o.b_of(0), o.c_of(0), ws_of(0), lt_workspace, main); });
  } else if (variant == 0) {
    time_on(state, main, 0, [&] {
      for (int i = 0; i < count; ++i) mm.issue(o.a_of(i), o.b_of(i), o.c_of(i), ws_of(0), lt_workspace, main);
    });
  } else if (variant == 1) {
    time_on(state, main, 0, on_lanes);
  } else {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    check(cudaStreamBeginCapture(main, cudaStreamCaptureModeThreadLocal), "capture");
    on_lanes();
    check(cudaStreamEndCapture(main, &graph), "end capture");
    check(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
    time_on(state, main, 0, [&] { check(cudaGraphLaunch(exec, main), "launch"); });
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  if (!o.all_right()) state.SkipWithError("wrong result");
  state.counters["TFLOPs"] =
      benchmark::Counter(o.flops() * state.iterations() / 1e12, benchmark::Counter::kIsRate);
  for (int l = 0; l < lanes; ++l) {
    cudaEventDestroy(joins[l]);
    cudaStreamDestroy(side[l]);
  }
  cudaEventDestroy(fork);
  cudaStreamDestroy(main);
}

// Arg 0: shape; arg 1: 0 run(), 1 a captured graph replayed; arg 2: 0 the
// batched plan (one strided-batched call), 1 sd::no_batching (a call per
// product over 4 streams).
template <class Program>
void run_7b_streamdsl(benchmark::State& state, const Program& program, const operands& o, cudaStream_t main) {
  sd::cuda_executor ex(main);
  const auto bound = bind_all(o);
  const sd::binding_list list(bound.data(), bound.size());
  if (state.range(1) != 0) {
    auto graph = sd::capture_bound(ex, program, list);
    time_on(state, main, 0, [&] { graph.launch(main); });
  } else {
    time_on(state, main, 0, [&] { ex.run_bound(program, list); });
  }
  if (!o.all_right()) state.SkipWithError("wrong result");
}

void bm_7b_streamdsl(benchmark::State& state) {
  const operands o(shapes[state.range(0)]);
  cudaStream_t main = nullptr;
  check(cudaStreamCreateWithFlags(&main, cudaStreamNonBlocking), "stream");
  if (state.range(2) == 0)
    run_7b_streamdsl(state, independent, o, main);
  else
    run_7b_streamdsl(state, independent_apart, o, main);
  state.counters["TFLOPs"] =
      benchmark::Counter(o.flops() * state.iterations() / 1e12, benchmark::Counter::kIsRate);
  cudaStreamDestroy(main);
}

// ------------------------------------------------------------------- 7
constexpr long long chain_n = 1LL << 28;
constexpr long long big = 8192;

// The 8-op chain of bench/workloads.cu (workload 2), written out.
__global__ void raw_chain8(const float* x, float* y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float v = x[i] * 1.0001f;
#pragma unroll
    for (int k = 1; k < 7; ++k) v = (k % 2 == 1) ? v + 0.5f : v * 0.999f;
    y[i] = v - 0.25f;
  }
}

bool chain_right(const bench::device_buffer& x, const bench::device_buffer& y) {
  std::vector<float> hx(4096), hy(4096);
  check(cudaDeviceSynchronize(), "sync");
  const long long at = chain_n - 4096;  // the end: the chain ran over all of x
  check(cudaMemcpy(hx.data(), x.ptr + at, sizeof(float) * 4096, cudaMemcpyDeviceToHost), "x");
  check(cudaMemcpy(hy.data(), y.ptr + at, sizeof(float) * 4096, cudaMemcpyDeviceToHost), "y");
  for (std::size_t i = 0; i < hx.size(); ++i) {
    float v = hx[i] * 1.0001f;
    for (int k = 1; k < 7; ++k) v = (k % 2 == 1) ? v + 0.5f : v * 0.999f;
    if (std::fabs(hy[i] - (v - 0.25f)) > 1e-5f * (1 + std::fabs(v))) return false;
  }
  return true;
}

__global__ void fill_chain(float* x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    x[i] = static_cast<float>(i % 13) - 6.0f;
}

// Arg: 0 back to back on one stream, 1 plain overlap on two streams, 2 as 1
// with the matmul's SM-count target leaving a quarter of the SMs to the chain.
void bm_7_raw(benchmark::State& state) {
  const operands o(shape{big, big, big}, 1);
  bench::device_buffer x(chain_n), y(chain_n);
  fill_chain<<<bench::raw_blocks(), 256>>>(x.ptr, chain_n);
  check(cudaDeviceSynchronize(), "fill");  // the legacy stream does not order the non-blocking ones below
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "device");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SMs");
  bench::lt_handle lt;
  bench::raw_options sm_target;
  sm_target.sm_count_target = state.range(0) == 2 ? sms - sms / 4 : 0;
  const bench::raw_matmul mm(lt.h, CUDA_R_16BF, big, big, big, lt_workspace, sm_target);
  bytes_buffer ws(lt_workspace);
  cudaStream_t main = nullptr, side = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  check(cudaStreamCreateWithFlags(&main, cudaStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), "stream");
  check(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming), "event");
  check(cudaEventCreateWithFlags(&join, cudaEventDisableTiming), "event");
  const bool overlap = state.range(0) != 0;
  time_on(state, main, 0, [&] {
    cudaStream_t chain_stream = main;
    if (overlap) {
      check(cudaEventRecord(fork, main), "record");
      check(cudaStreamWaitEvent(side, fork, 0), "wait");
      chain_stream = side;
    }
    raw_chain8<<<bench::raw_blocks(), 256, 0, chain_stream>>>(x.ptr, y.ptr, chain_n);
    mm.issue(o.a_of(0), o.b_of(0), o.c_of(0), ws.ptr, lt_workspace, main);
    if (overlap) {
      check(cudaEventRecord(join, side), "record");
      check(cudaStreamWaitEvent(main, join, 0), "wait");
    }
  });
  if (!o.all_right() || !chain_right(x, y)) state.SkipWithError("wrong result");
  cudaEventDestroy(join);
  cudaEventDestroy(fork);
  cudaStreamDestroy(side);
  cudaStreamDestroy(main);
}

// Overlap: as beside; arg: 0 run(), 1 a captured graph replayed.
template <bool Overlap>
void bm_7_streamdsl(benchmark::State& state) {
  const operands o(shape{big, big, big}, 1);
  bench::device_buffer x(chain_n), y(chain_n);
  fill_chain<<<bench::raw_blocks(), 256>>>(x.ptr, chain_n);
  check(cudaDeviceSynchronize(), "fill");  // the legacy stream does not order the non-blocking ones below
  cudaStream_t main = nullptr;
  check(cudaStreamCreateWithFlags(&main, cudaStreamNonBlocking), "stream");
  {
    sd::cuda_executor ex(main);
    const auto n = static_cast<std::size_t>(big), xn = static_cast<std::size_t>(chain_n);
    const sd::binding b[] = {sd::bind("a", o.a_of(0), n, n), sd::bind("b", o.b_of(0), n, n),
                             sd::bind("c", o.c_of(0), n, n),
                             sd::bind("x", static_cast<const float*>(x.ptr), xn), sd::bind("y", y.ptr, xn)};
    const sd::binding_list list(b, 5);
    if (state.range(0) != 0) {
      auto graph = sd::capture_bound(ex, workload7::beside<Overlap>, list);
      time_on(state, main, 0, [&] { graph.launch(main); });
    } else {
      time_on(state, main, 0, [&] { ex.run_bound(workload7::beside<Overlap>, list); });
    }
    if (!o.all_right() || !chain_right(x, y)) state.SkipWithError("wrong result");
  }
  cudaStreamDestroy(main);
}

}  // namespace

BENCHMARK(bm_7b_raw)->ArgsProduct({{0, 1, 2}, {0, 1, 2, 3}})->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_7b_streamdsl)
    ->ArgsProduct({{0, 1, 2}, {0, 1}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_7_raw)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_7_streamdsl<true>)->DenseRange(0, 1)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_7_streamdsl<false>)->DenseRange(0, 1)->UseManualTime()->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
