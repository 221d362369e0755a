// Matmuls through cuBLASLt (issue 14): `c = sd::matmul(a, b)` on the CUDA
// executor (backend/cuda/matmul.hpp) against a raw cublasLtMatmul in the
// same binary, square 4096^3 and 8192^3, float (full precision, no TF32),
// __nv_bfloat16 and __half (float accumulation, stored in their type). The
// raw call is set up as a user of cuBLASLt would: the same row-major to
// column-major swap (c^T = b^T a^T), the heuristic's best algorithm for a
// workspace of at most 32 MiB, that workspace allocated once. The streamdsl
// version runs as run() and as a captured graph's replay; the goal is at
// least 0.97x the raw call's speed. The operands are multiples of 1/4 in
// [-2, 2], so every partial sum is exact in float (at most 2^15 in steps of
// 1/16): float products must have the same bits, whatever algorithm either
// picks, the 16-bit ones agree within a few units in the last place
// (same_as_raw), and a difference fails the benchmark. Times come from CUDA events (manual
// time); bench/report.py makes the table.
#include <benchmark/benchmark.h>
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/backend/cuda/matmul.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench_support.cuh"

namespace matmul_bench {

using bench::check;
using bench::time_on;

void check_lt(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cublasLtGetStatusName(s));
}

// TF32: float operands on the tensor cores (sd::tf32).
template <class T, bool TF32 = false>
constexpr auto square = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = p.input<T>("a", m, k);
  auto b = p.input<T>("b", k, n);
  auto c = p.output<T>("c", m, n);
  if constexpr (TF32)
    c = sd::matmul(a, b, sd::tf32);
  else
    c = sd::matmul(a, b);
});

template <class T>
struct typed_buffer {
  T* ptr = nullptr;
  std::size_t n = 0;
  explicit typed_buffer(std::size_t count) : n(count) {
    check(cudaMalloc(&ptr, n * sizeof(T)), "cudaMalloc");
  }
  ~typed_buffer() { cudaFree(ptr); }
  typed_buffer(const typed_buffer&) = delete;
};

// Multiples of 1/4 in [-2, 2].
template <class T>
__global__ void fill(T* x, long long n, int salt) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    x[i] = T(static_cast<float>((i * 7 + salt) % 17) * 0.25f - 2.0f);
}

template <class T>
cudaDataType_t data_type() {
  if constexpr (std::is_same_v<T, __half>)
    return CUDA_R_16F;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return CUDA_R_16BF;
  else
    return CUDA_R_32F;
}

// A raw cuBLASLt product of row-major n x n matrices, c = a b: computed as
// c^T = b^T a^T in column-major terms, where each row-major matrix already
// is its transpose (no op), with the heuristic's best algorithm.
template <class T>
struct raw_matmul {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t layout = nullptr;  // A, B, C and D alike: n x n, ld n
  cublasLtMatmulAlgo_t algo{};
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;

  explicit raw_matmul(long long n, bool tf32 = false) {
    check_lt(cublasLtCreate(&handle), "cublasLtCreate");
    check_lt(
        cublasLtMatmulDescCreate(&op, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F),
        "cublasLtMatmulDescCreate");
    const cublasOperation_t no = CUBLAS_OP_N;
    check_lt(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &no, sizeof no), "transa");
    check_lt(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &no, sizeof no), "transb");
    check_lt(cublasLtMatrixLayoutCreate(&layout, data_type<T>(), static_cast<std::uint64_t>(n),
                                        static_cast<std::uint64_t>(n), n),
             "cublasLtMatrixLayoutCreate");
    cublasLtMatmulPreference_t pref = nullptr;
    check_lt(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    const std::uint64_t limit = sd::cuda_detail::matmul_workspace_limit;  // the same limit as streamdsl's
    check_lt(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &limit,
                                                  sizeof limit),
             "workspace limit");
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    check_lt(
        cublasLtMatmulAlgoGetHeuristic(handle, op, layout, layout, layout, layout, pref, 1, &result, &found),
        "cublasLtMatmulAlgoGetHeuristic");
    cublasLtMatmulPreferenceDestroy(pref);
    if (found == 0) throw std::runtime_error("cuBLASLt has no algorithm");
    algo = result.algo;
    workspace_bytes = result.workspaceSize;
    check(cudaMalloc(&workspace, workspace_bytes > 0 ? workspace_bytes : 1), "cudaMalloc workspace");
  }
  ~raw_matmul() {
    cudaFree(workspace);
    cublasLtMatrixLayoutDestroy(layout);
    cublasLtMatmulDescDestroy(op);
    cublasLtDestroy(handle);
  }
  raw_matmul(const raw_matmul&) = delete;

  void run(const T* a, const T* b, T* c, cudaStream_t s) const {
    const float one = 1.0f, zero = 0.0f;
    check_lt(cublasLtMatmul(handle, op, &one, b, layout, a, layout, &zero, c, layout, c, layout, &algo,
                            workspace, workspace_bytes, s),
             "cublasLtMatmul");
  }
};

template <class T>
struct operands {
  std::size_t n;
  typed_buffer<T> a, b, c;
  explicit operands(std::size_t size) : n(size), a(n * n), b(n * n), c(n * n) {
    fill<<<bench::raw_blocks(), 256>>>(a.ptr, static_cast<long long>(n * n), 1);
    fill<<<bench::raw_blocks(), 256>>>(b.ptr, static_cast<long long>(n * n), 5);
    check(cudaMemset(c.ptr, 0xff, n * n * sizeof(T)), "cudaMemset");
    check(cudaDeviceSynchronize(), "fill");
  }
  double bytes() const { return 3.0 * static_cast<double>(n * n) * sizeof(T); }
};

template <class T>
double host_value(T x) {
  if constexpr (std::is_same_v<T, __half>)
    return static_cast<double>(__half2float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return static_cast<double>(__bfloat162float(x));
  else
    return static_cast<double>(x);
}

// Whether c holds the raw call's product of the same operands: the same bits
// for float (every partial sum is exact, in any order); for the 16-bit types
// within 8 units of their last place of the largest element, in case an
// algorithm reduces split-K partial sums in the output type (rounded there,
// in an order atomics may change), still far below what a wrong product
// (a transpose, a layout) would be off by.
template <class T>
bool same_as_raw(const operands<T>& in) {
  typed_buffer<T> ref(in.n * in.n);
  raw_matmul<T>(static_cast<long long>(in.n)).run(in.a.ptr, in.b.ptr, ref.ptr, nullptr);
  check(cudaDeviceSynchronize(), "sync");
  std::vector<T> got(in.n * in.n), want(in.n * in.n);
  check(cudaMemcpy(got.data(), in.c.ptr, got.size() * sizeof(T), cudaMemcpyDeviceToHost), "read");
  check(cudaMemcpy(want.data(), ref.ptr, want.size() * sizeof(T), cudaMemcpyDeviceToHost), "read");
  if constexpr (std::is_same_v<T, float>) {
    return std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0;
  } else {
    const double ulp = std::is_same_v<T, __half> ? 0x1p-10 : 0x1p-7;
    double largest = 0;
    for (const T& w : want) largest = std::max(largest, std::fabs(host_value(w)));
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!(std::fabs(host_value(got[i]) - host_value(want[i])) <= 8 * ulp * largest)) return false;
    return true;
  }
}

void set_flops(benchmark::State& state, std::size_t n) {
  state.counters["flops_per_iter"] =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
}

template <class T>
void raw(benchmark::State& state, std::size_t n, bool tf32 = false) {
  operands<T> in(n);
  const raw_matmul<T> mm(static_cast<long long>(n), tf32);
  time_on(state, nullptr, in.bytes(), [&] { mm.run(in.a.ptr, in.b.ptr, in.c.ptr, nullptr); });
  set_flops(state, n);
}

// A graph's launch as a call that holds no object of the graph's type (a
// lambda capturing it would: g++'s -Wsubobject-linkage refuses that in a
// template under nvcc, whose front end names the anonymous namespace).
struct erased_launch {
  void (*launch)(void*);
  void* graph;
  void operator()() const { launch(graph); }
};
template <class G>
void launch_graph(void* g) {
  static_cast<G*>(g)->launch();
}

template <class T, bool TF32 = false>
void ours(benchmark::State& state, std::size_t n, bool graph_replay) {
  operands<T> in(n);
  sd::cuda_executor ex;
  const sd::binding b[] = {sd::bind("a", static_cast<const T*>(in.a.ptr), n, n),
                           sd::bind("b", static_cast<const T*>(in.b.ptr), n, n),
                           sd::bind("c", in.c.ptr, n, n)};
  if (graph_replay) {
    auto graph = sd::capture_bound(ex, square<T, TF32>, sd::binding_list(b, 3));
    time_on(state, nullptr, in.bytes(), erased_launch{&launch_graph<decltype(graph)>, &graph});
  } else {
    time_on(state, nullptr, in.bytes(), [&] { ex.run_bound(square<T, TF32>, sd::binding_list(b, 3)); });
  }
  set_flops(state, n);
  if (!same_as_raw(in)) state.SkipWithError("the product differs from the raw call's");
}

// Arg 0: n; arg 1: 0 float, 1 __nv_bfloat16, 2 __half, 3 float as TF32.
// (TF32 gives float's bits here: the operands are exact in TF32.)
void bm_matmul_raw(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  switch (state.range(1)) {
    case 0: raw<float>(state, n); break;
    case 1: raw<__nv_bfloat16>(state, n); break;
    case 2: raw<__half>(state, n); break;
    default: raw<float>(state, n, true); break;
  }
}
BENCHMARK(bm_matmul_raw)
    ->ArgsProduct({{4096, 8192}, {0, 1, 2, 3}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Args as bm_matmul_raw's; arg 2: 0 run(), 1 a captured graph replayed.
void bm_matmul_streamdsl(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const bool graph_replay = state.range(2) != 0;
  switch (state.range(1)) {
    case 0: ours<float>(state, n, graph_replay); break;
    case 1: ours<__nv_bfloat16>(state, n, graph_replay); break;
    case 2: ours<__half>(state, n, graph_replay); break;
    default: ours<float, true>(state, n, graph_replay); break;
  }
}
BENCHMARK(bm_matmul_streamdsl)
    ->ArgsProduct({{4096, 8192}, {0, 1, 2, 3}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// The console output, then each streamdsl case's speed relative to the raw
// call's (raw time / streamdsl time; the median with repetitions).
class ratio_reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      if (r.error_occurred) continue;
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      times_.push_back({r.run_name.function_name + "/" + r.run_name.args, r.GetAdjustedRealTime()});
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    const char* types[] = {"float", "bf16", "fp16", "tf32"};
    std::printf("\nstreamdsl vs raw cublasLtMatmul (speed ratio, goal >= 0.97x):\n");
    for (const long n : {4096L, 8192L})
      for (int t = 0; t < 4; ++t) {
        const std::string args = std::to_string(n) + "/" + std::to_string(t);
        const double base = find("bm_matmul_raw/" + args);
        for (int mode = 0; mode < 2; ++mode) {
          const double time = find("bm_matmul_streamdsl/" + args + "/" + std::to_string(mode));
          if (base <= 0 || time <= 0) {
            std::printf("  %ld^3 %-5s %-6s: missing\n", n, types[t], mode ? "graph" : "run()");
            continue;
          }
          std::printf("  %ld^3 %-5s %-6s: %.3fx%s\n", n, types[t], mode ? "graph" : "run()", base / time,
                      base / time >= 0.97 ? "" : "  (below 0.97x)");
        }
      }
  }

 private:
  double find(const std::string& name) const {
    double t = 0;
    for (const auto& e : times_)
      if (e.first == name) t = e.second;
    return t;
  }
  std::vector<std::pair<std::string, double>> times_;
};

}  // namespace matmul_bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  matmul_bench::ratio_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
