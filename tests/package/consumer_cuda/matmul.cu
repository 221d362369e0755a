// A CUDA unit that runs a matmul on the CUDA executor through the installed
// package's cublas component (streamdsl::cublas, linking CUDA::cublasLt).
// Built, not run: it needs nvcc and the CUDA libraries, no GPU.
#include <cuda_runtime.h>

#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/matmul.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto product = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = p.input<float>("a", m, k);
  auto b = p.input<float>("b", k, n);
  auto c = p.output<float>("c", m, n);
  c = sd::matmul(a, b);
});

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 0;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cudaMalloc(&a, 6 * sizeof(float));
  cudaMalloc(&b, 12 * sizeof(float));
  cudaMalloc(&c, 8 * sizeof(float));
  sd::cuda_executor ex;
  ex.run(product, sd::bind("a", static_cast<const float*>(a), 2, 3),
         sd::bind("b", static_cast<const float*>(b), 3, 4), sd::bind("c", c, 2, 4));
  const bool ok = cudaDeviceSynchronize() == cudaSuccess;
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return ok ? 0 : 1;
}
