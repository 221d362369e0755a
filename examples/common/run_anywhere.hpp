#pragma once
// Runs a program on the GPU when this is a CUDA build and a device is present
// (host vectors are copied to device memory and back), otherwise on the host
// executor. Examples use it so one source runs everywhere.
#include <cstdio>
#include <span>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>
#if defined(__CUDACC__)
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#endif

namespace example {

// Returns where the program ran.
template <class Program>
const char* run_anywhere(const Program& program, std::span<const sd::binding> host) {
#if defined(__CUDACC__)
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    std::vector<sd::binding> device;
    std::vector<void*> memory;
    for (const auto& b : host) {
      if (b.is_param() || b.is_call()) {  // values and callables travel as they are
        device.push_back(b);
        continue;
      }
      const std::size_t bytes = b.size() * sd::size_of(b.type());
      void* d = nullptr;
      sd::cuda_detail::check(cudaMalloc(&d, bytes > 0 ? bytes : 1), "cudaMalloc");
      sd::cuda_detail::check(cudaMemcpy(d, b.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
      memory.push_back(d);
      device.push_back(b.is_matrix() ? sd::binding::matrix(b.name(), b.type(), d, b.size(), b.read_only(),
                                                           b.rows(), b.cols())
                                     : sd::binding::buffer(b.name(), b.type(), d, b.size(), b.read_only()));
    }
    sd::cuda_executor executor;
    executor.run_bound(program, device);
    sd::cuda_detail::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    std::size_t k = 0;
    for (const auto& b : host) {
      if (b.is_param() || b.is_call()) continue;
      if (!b.read_only())
        sd::cuda_detail::check(
            cudaMemcpy(b.mutable_data(), memory[k], b.size() * sd::size_of(b.type()), cudaMemcpyDeviceToHost),
            "cudaMemcpy");
      cudaFree(memory[k++]);
    }
    return "the GPU (sd::cuda_executor)";
  }
  cudaGetLastError();  // no device: clear the error and fall back
#endif
  sd::host_executor executor;
  executor.run(program.plan(), host);
  return "the CPU (sd::host_executor)";
}

}  // namespace example
