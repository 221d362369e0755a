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
//
// Epilogues (bm_epilogue): relu(a b + bias) with the consumer folded into
// the matmul (passes/matmul_epilogue.hpp: cuBLASLt's RELU_BIAS), the same
// program under sd::no_fusion (the matmul, then a kernel reading its product
// back), and a raw cublasLtMatmul with the RELU_BIAS epilogue, float and
// __nv_bfloat16. The raw calls are bench/cublaslt_raw.cuh's, the one raw
// baseline of the matmul benchmarks.
//
// FP8 (bm_matmul_fp8): `c = sd::matmul(a, sd::transpose(w), sd::scales(sa, sw))`
// with __nv_fp8_e4m3 operands, a bf16 product and device scales, 4096^3 and
// 8192^3, against a raw cublasLtMatmul with the same descriptors (TN layout,
// CUBLAS_COMPUTE_32F, the same scale pointers, the same workspace limit). The
// operands are multiples of 1/4 in [-2, 2] (exact in e4m3) and the scales
// powers of two; the products must agree with the raw call's within 8 bf16
// units in the last place of the largest element (same_values).
// bm_matmul_fp8_out: the same into an e4m3 product with an output scale and
// its amax (sd::output_scale, sd::output_amax; cuBLASLt's D scale and amax
// pointers), each element within one e4m3 step of the raw call's and the
// amax within 1e-3 of it.
#include <benchmark/benchmark.h>
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
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
#include "cublaslt_raw.cuh"

namespace matmul_bench {

using bench::check;
using bench::time_on;

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
  else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>)
    return CUDA_R_8F_E4M3;
  else
    return CUDA_R_32F;
}

// The raw baseline (bench/cublaslt_raw.cuh) for row-major n x n matrices,
// with its own handle and the workspace its algorithm needs under the same
// limit as streamdsl's.
template <class T>
struct raw_call {
  bench::lt_handle lt;
  bench::raw_matmul mm;
  typed_buffer<char> workspace;
  explicit raw_call(long long n, bench::raw_options o = {})
      : mm(lt.h, data_type<T>(), n, n, n, sd::cuda_detail::matmul_workspace_limit, o),
        workspace(std::max<std::size_t>(mm.workspace_needed(), 1)) {}
  void run(const T* a, const T* b, T* c, cudaStream_t s) const {
    mm.issue(a, b, c, workspace.ptr, mm.workspace_needed(), s);
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
bool same_values(const T* got_ptr, const T* want_ptr, std::size_t count) {
  check(cudaDeviceSynchronize(), "sync");
  std::vector<T> got(count), want(count);
  check(cudaMemcpy(got.data(), got_ptr, count * sizeof(T), cudaMemcpyDeviceToHost), "read");
  check(cudaMemcpy(want.data(), want_ptr, count * sizeof(T), cudaMemcpyDeviceToHost), "read");
  if constexpr (std::is_same_v<T, float>) {
    return std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0;
  } else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) {
    // An FP8 product: each element at most one e4m3 step (2^-3 relative, 2^-9 below the normals) away.
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double g = host_value(got[i]), w = host_value(want[i]);
      if (!(std::fabs(g - w) <= 0x1p-3 * std::fabs(w) + 0x1p-9)) return false;
    }
    return true;
  } else {
    const double ulp = std::is_same_v<T, __half> ? 0x1p-10 : 0x1p-7;
    double largest = 0;
    for (const T& w : want) largest = std::max(largest, std::fabs(host_value(w)));
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!(std::fabs(host_value(got[i]) - host_value(want[i])) <= 8 * ulp * largest)) return false;
    return true;
  }
}
template <class T>
bool same_as_raw(const operands<T>& in) {
  typed_buffer<T> ref(in.n * in.n);
  raw_call<T>(static_cast<long long>(in.n)).run(in.a.ptr, in.b.ptr, ref.ptr, nullptr);
  return same_values(in.c.ptr, ref.ptr, in.n * in.n);
}

void set_flops(benchmark::State& state, std::size_t n) {
  state.counters["flops_per_iter"] =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
}

template <class T>
void raw(benchmark::State& state, std::size_t n, bool tf32 = false) {
  operands<T> in(n);
  bench::raw_options o;
  o.tf32 = tf32;
  const raw_call<T> mm(static_cast<long long>(n), o);
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

// FP8: c (C: bf16 here) = (sa sw) a wᵀ, a (n, n) and w (n, n) e4m3, w read transposed.
template <class C>
constexpr auto fp8_linear = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = p.input<__nv_fp8_e4m3>("a", m, k);
  auto w = p.input<__nv_fp8_e4m3>("w", n, k);
  auto sa = p.input<float>("sa", sd::scalar);
  auto sw = p.input<float>("sw", sd::scalar);
  auto c = p.output<C>("c", m, n);
  c = sd::matmul(a, sd::transpose(w), sd::scales(sa, sw));
});

// An FP8 product: c8 = sat(sc (sa sw) a wᵀ) in e4m3, and its amax, as
// Transformer Engine's forward GEMMs write them.
constexpr auto fp8_linear_out = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = p.input<__nv_fp8_e4m3>("a", m, k);
  auto w = p.input<__nv_fp8_e4m3>("w", n, k);
  auto sa = p.input<float>("sa", sd::scalar);
  auto sw = p.input<float>("sw", sd::scalar);
  auto sc = p.input<float>("sc", sd::scalar);
  auto am = p.output<float>("am", sd::scalar);
  auto c = p.output<__nv_fp8_e4m3>("c", m, n);
  c = sd::matmul(a, sd::transpose(w), sd::scales(sa, sw, sd::output_scale(sc), sd::output_amax(am)));
});
template <class C>
constexpr const auto& fp8_program() {
  if constexpr (std::is_same_v<C, __nv_fp8_e4m3>)
    return fp8_linear_out;
  else
    return fp8_linear<C>;
}

// mode: 0 raw cublasLtMatmul, 1 streamdsl run(), 2 a captured graph replayed.
// (A template, as ours(): the graph's type is named in a dependent context.)
template <class C>
void fp8_case(benchmark::State& state, std::size_t n, int mode) {
  typed_buffer<__nv_fp8_e4m3> a(n * n), w(n * n);
  typed_buffer<C> c(n * n), want(n * n);
  constexpr bool fp8_out = std::is_same_v<C, __nv_fp8_e4m3>;
  // sa at 0, sw at 4, an FP8 product's scale at 8, the raw call's amax at 12
  // and ours at 16: cuBLASLt wants each 16-byte aligned.
  typed_buffer<float> scales(20);
  fill<<<bench::raw_blocks(), 256>>>(a.ptr, static_cast<long long>(n * n), 1);
  fill<<<bench::raw_blocks(), 256>>>(w.ptr, static_cast<long long>(n * n), 5);
  const float host_scales[20] = {0.5f, 0, 0, 0, 0.25f, 0, 0, 0, 0.125f, 0, 0, 0, -1, 0, 0, 0, -1, 0, 0, 0};
  check(cudaMemcpy(scales.ptr, host_scales, sizeof host_scales, cudaMemcpyHostToDevice), "scales");
  check(cudaMemset(c.ptr, 0xff, n * n * sizeof(C)), "cudaMemset");
  check(cudaDeviceSynchronize(), "fill");
  bench::lt_handle lt;
  bench::raw_options o;
  o.fp8 = true;
  o.c_type = data_type<C>();
  o.scale_a = scales.ptr;
  o.scale_b = scales.ptr + 4;
  if constexpr (fp8_out) {
    o.scale_d = scales.ptr + 8;
    o.amax_d = scales.ptr + 12;
  }
  const auto ln = static_cast<long long>(n);
  const bench::raw_matmul raw(lt.h, CUDA_R_8F_E4M3, ln, ln, ln, sd::cuda_detail::matmul_workspace_limit, o);
  typed_buffer<char> workspace(std::max<std::size_t>(raw.workspace_needed(), 1));
  const auto raw_run = [&](C* out) {
    raw.issue(a.ptr, w.ptr, out, workspace.ptr, raw.workspace_needed(), nullptr);
  };
  // A raw call that fails (session 12: scales 4 bytes apart gave
  // CUBLAS_STATUS_NOT_SUPPORTED) is reported instead of ending the whole binary.
  try {
    raw_run(want.ptr);
  } catch (const std::exception& e) {
    state.SkipWithError((std::string("the raw FP8 baseline failed: ") + e.what()).c_str());
    return;
  }
  const double bytes = static_cast<double>(n * n) * (2.0 + sizeof(C));  // two FP8 operands in, c out
  if (mode == 0) {
    time_on(state, nullptr, bytes, [&] { raw_run(c.ptr); });
  } else {
    sd::cuda_executor ex;
    const sd::binding b[] = {sd::bind("a", static_cast<const __nv_fp8_e4m3*>(a.ptr), n, n),
                             sd::bind("w", static_cast<const __nv_fp8_e4m3*>(w.ptr), n, n),
                             sd::bind("sa", static_cast<const float*>(scales.ptr), 1),
                             sd::bind("sw", static_cast<const float*>(scales.ptr + 4), 1),
                             sd::bind("c", c.ptr, n, n),
                             sd::bind("sc", static_cast<const float*>(scales.ptr + 8), 1),
                             sd::bind("am", scales.ptr + 16, 1)};
    const std::size_t count = fp8_out ? 7 : 5;
    static constexpr const auto& prog = fp8_program<C>();
    if (mode == 2) {
      auto graph = sd::capture_bound(ex, prog, sd::binding_list(b, count));
      time_on(state, nullptr, bytes, erased_launch{&launch_graph<decltype(graph)>, &graph});
    } else {
      time_on(state, nullptr, bytes, [&] { ex.run_bound(prog, sd::binding_list(b, count)); });
    }
  }
  set_flops(state, n);
  if (!same_values(c.ptr, want.ptr, n * n))
    state.SkipWithError("the FP8 product differs from the raw call's");
  if constexpr (fp8_out) {
    float amax[20];
    check(cudaMemcpy(amax, scales.ptr, sizeof amax, cudaMemcpyDeviceToHost), "amax");
    if (mode != 0 && !(std::fabs(amax[16] - amax[12]) <= 1e-3f * amax[12]))
      state.SkipWithError("the FP8 product's amax differs from the raw call's");
  }
}

// Arg 0: n; arg 1: 0 raw cublasLtMatmul, 1 streamdsl run(), 2 a captured graph replayed.
void bm_matmul_fp8(benchmark::State& state) {
  fp8_case<__nv_bfloat16>(state, static_cast<std::size_t>(state.range(0)), static_cast<int>(state.range(1)));
}
BENCHMARK(bm_matmul_fp8)
    ->ArgsProduct({{4096, 8192}, {0, 1, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
// The same into an e4m3 product with an output scale and its amax.
void bm_matmul_fp8_out(benchmark::State& state) {
  fp8_case<__nv_fp8_e4m3>(state, static_cast<std::size_t>(state.range(0)), static_cast<int>(state.range(1)));
}
BENCHMARK(bm_matmul_fp8_out)
    ->ArgsProduct({{4096, 8192}, {0, 1, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// relu(a b + bias): folded into the matmul by default, a separate kernel
// under sd::no_fusion.
template <class T, sd::options O>
constexpr auto dense_relu = sd::program<O>([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = p.input<T>("a", m, k);
  auto b = p.input<T>("b", k, n);
  auto bias = p.input<T>("bias", n);
  auto t = p.temp<T>("t", m, n);
  auto c = p.output<T>("c", m, n);
  t = sd::matmul(a, b);
  c = sd::relu(t + bias);
});
static_assert(dense_relu<float, sd::options{}>.plan().kernel_count() == 0, "the consumer is folded");
static_assert(dense_relu<float, sd::no_fusion>.plan().kernel_count() == 1, "a kernel after the matmul");

// Arg 0: n; arg 1: 0 float, 1 __nv_bfloat16; arg 2: 0 folded, 1 sd::no_fusion,
// 2 raw cublasLtMatmul with CUBLASLT_EPILOGUE_RELU_BIAS. Each checks its c
// against the raw call's (same_values).
template <class T>
void epilogue_case(benchmark::State& state, std::size_t n, int mode) {
  operands<T> in(n);
  typed_buffer<T> bias(n), want(n * n);
  fill<<<bench::raw_blocks(), 256>>>(bias.ptr, static_cast<long long>(n), 3);
  bench::raw_options o;
  o.epilogue = CUBLASLT_EPILOGUE_RELU_BIAS;
  o.bias = bias.ptr;
  const raw_call<T> raw(static_cast<long long>(n), o);
  raw.run(in.a.ptr, in.b.ptr, want.ptr, nullptr);
  const double bytes = in.bytes() + static_cast<double>(n) * sizeof(T);
  if (mode == 2) {
    time_on(state, nullptr, bytes, [&] { raw.run(in.a.ptr, in.b.ptr, in.c.ptr, nullptr); });
  } else {
    sd::cuda_executor ex;
    const sd::binding bs[] = {sd::bind("a", static_cast<const T*>(in.a.ptr), n, n),
                              sd::bind("b", static_cast<const T*>(in.b.ptr), n, n),
                              sd::bind("bias", static_cast<const T*>(bias.ptr), n),
                              sd::bind("c", in.c.ptr, n, n)};
    if (mode == 0)
      time_on(state, nullptr, bytes,
              [&] { ex.run_bound(dense_relu<T, sd::options{}>, sd::binding_list(bs, 4)); });
    else
      time_on(state, nullptr, bytes,
              [&] { ex.run_bound(dense_relu<T, sd::no_fusion>, sd::binding_list(bs, 4)); });
  }
  set_flops(state, n);
  if (!same_values(in.c.ptr, want.ptr, n * n))
    state.SkipWithError("relu(a b + bias) differs from the raw call's");
}
void bm_epilogue(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const int mode = static_cast<int>(state.range(2));
  if (state.range(1) == 0)
    epilogue_case<float>(state, n, mode);
  else
    epilogue_case<__nv_bfloat16>(state, n, mode);
}
BENCHMARK(bm_epilogue)
    ->ArgsProduct({{4096, 8192}, {0, 1}, {0, 1, 2}})
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
    std::printf(
        "\nFP8 e4m3 x e4m3 -> bf16, and -> e4m3 with an output scale and amax, device scales: streamdsl vs "
        "raw "
        "cublasLtMatmul (speed ratio):\n");
    for (const char* out : {"", "_out"})
      for (const long n : {4096L, 8192L}) {
        const std::string args = std::string("bm_matmul_fp8") + out + "/" + std::to_string(n) + "/";
        const char* label = *out ? "fp8->e4m3" : "fp8->bf16";
        const double base = find(args + "0");
        for (int mode = 1; mode < 3; ++mode) {
          const double time = find(args + std::to_string(mode));
          if (base <= 0 || time <= 0) {
            std::printf("  %ld^3 %s %-6s: missing\n", n, label, mode == 2 ? "graph" : "run()");
            continue;
          }
          std::printf("  %ld^3 %s %-6s: %.3fx (raw %.3f ms, %.0f TFLOP/s)%s\n", n, label,
                      mode == 2 ? "graph" : "run()", base / time, base,
                      2.0 * n * n * n / (base * 1e-3) / 1e12, base / time >= 0.97 ? "" : "  (below 0.97x)");
        }
      }
    std::printf(
        "\nrelu(a b + bias): folded (RELU_BIAS epilogue) against sd::no_fusion (matmul + kernel) and raw "
        "cuBLASLt with the epilogue (time ratios):\n");
    for (const long n : {4096L, 8192L})
      for (int t = 0; t < 2; ++t) {
        const std::string args = "bm_epilogue/" + std::to_string(n) + "/" + std::to_string(t) + "/";
        const double folded = find(args + "0"), apart = find(args + "1"), raw = find(args + "2");
        if (folded <= 0 || apart <= 0 || raw <= 0) {
          std::printf("  %ld^3 %-5s: missing\n", n, t ? "bf16" : "float");
          continue;
        }
        std::printf(
            "  %ld^3 %-5s: folded %.3f ms, apart %.3f ms (%.3fx faster folded), raw %.3f ms (%.3fx raw's "
            "speed)\n",
            n, t ? "bf16" : "float", folded, apart, apart / folded, raw, raw / folded);
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
