#pragma once
// What the GPU benchmark binaries share: error checks, device buffers, the
// raw kernels' grid, and CUDA-event timing of one iteration's work.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace bench {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

struct device_buffer {
  float* ptr = nullptr;
  std::size_t n = 0;
  explicit device_buffer(std::size_t count) : n(count) {
    check(cudaMalloc(&ptr, n * sizeof(float)), "cudaMalloc");
    check(cudaMemset(ptr, 0, n * sizeof(float)), "cudaMemset");
  }
  ~device_buffer() { cudaFree(ptr); }
  device_buffer(const device_buffer&) = delete;
};

// The grid of the raw grid-stride kernels: 8 blocks of 256 threads per SM.
inline int raw_blocks() {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms * 8;
}

// Times `body` (which issues work on `stream`) with CUDA events, per iteration.
template <class F>
void time_on(benchmark::State& state, cudaStream_t stream, double bytes, F&& body) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  body();  // warm-up (first-launch costs)
  check(cudaStreamSynchronize(stream), "sync");
  for (auto _ : state) {
    check(cudaEventRecord(start, stream), "record");
    body();
    check(cudaEventRecord(stop, stream), "record");
    check(cudaEventSynchronize(stop), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    state.SetIterationTime(ms / 1e3);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
  state.counters["bytes_per_iter"] = bytes;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

}  // namespace bench
