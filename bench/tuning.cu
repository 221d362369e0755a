// Tuning the fused kernel's launch shape on the GPU: steps in flight per
// thread (Unroll) and the grid cap, on streaming workloads, as a fraction of
// cudaMemcpyAsync bandwidth measured in the same run (median of 30).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <streamdsl/backend/cuda/kernel_table.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

namespace {

constexpr std::size_t n = std::size_t{1} << 28;

constexpr auto chain2 = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto t = p.temp<float>("t");
  t = x * 1.0001f;
  y = t - 0.25f;
});

constexpr auto seed_one = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  y = x + 1;
  z = y * 2;
});

template <class F>
float median_ms(F&& body) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  body();
  cudaDeviceSynchronize();
  std::vector<float> times;
  for (int i = 0; i < 30; ++i) {
    cudaEventRecord(a);
    body();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return times[times.size() / 2];
}

// The program's type is deduced from the argument (nvcc's host pass cannot
// spell a lambda-based type with decltype inside a function).
template <int Unroll, class P>
void variant(const P&, const char* name, void** ptrs, int max_blocks, double bytes, double memcpy_bw) {
  const long long extents[] = {static_cast<long long>(n)};
  sd::cuda_detail::launch_context ctx{ptrs, nullptr, extents, max_blocks};
  const float ms = median_ms([&] { sd::cuda_detail::kernel_entry<P, 0, Unroll>::launch(ctx, nullptr); });
  const double bw = bytes / (ms * 1e-3);
  std::printf("%-10s unroll=%d max_blocks=%7d  %.3f ms  %.3f TB/s  %.1f%% of memcpy\n", name, Unroll,
              max_blocks, ms, bw / 1e12, 100 * bw / memcpy_bw);
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float *x, *y, *z;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&y, n * 4);
  cudaMalloc(&z, n * 4);
  cudaMemset(x, 0, n * 4);
  const float copy_ms = median_ms([&] { cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice); });
  const double memcpy_bw = 2.0 * n * 4 / (copy_ms * 1e-3);
  std::printf("memcpy: %.3f ms, %.3f TB/s, %d SMs\n", copy_ms, memcpy_bw / 1e12, sms);
  // chain2's plan buffers: x, y, t (t in registers); seed_one's: x, y, z.
  void* chain_ptrs[] = {x, y, nullptr};
  void* seed_ptrs[] = {x, y, z};
  const int caps[] = {sms * 4, sms * 8, sms * 16, 1 << 30};
  for (int cap : caps) {
    variant<1>(chain2, "chain2", chain_ptrs, cap, 2.0 * n * 4, memcpy_bw);
    variant<2>(chain2, "chain2", chain_ptrs, cap, 2.0 * n * 4, memcpy_bw);
    variant<4>(chain2, "chain2", chain_ptrs, cap, 2.0 * n * 4, memcpy_bw);
  }
  for (int cap : caps) {
    variant<1>(seed_one, "seed_one", seed_ptrs, cap, 3.0 * n * 4, memcpy_bw);
    variant<2>(seed_one, "seed_one", seed_ptrs, cap, 3.0 * n * 4, memcpy_bw);
    variant<4>(seed_one, "seed_one", seed_ptrs, cap, 3.0 * n * 4, memcpy_bw);
  }
  return 0;
}
