// A CUDA unit that runs an all-reduce on the CUDA executor through the
// installed package's nccl component (streamdsl::nccl, linking NCCL::nccl).
// Built, not run: it needs nvcc and NCCL's header and library, no GPU.
#include <cuda_runtime.h>

#include <streamdsl/backend/cuda/collectives.hpp>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/nccl_communicator.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto summed = sd::program([](sd::builder& p) {
  auto g = p.output<float>("g");
  sd::all_reduce(g, sd::reduce_op::sum);
});

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 0;
  int device = 0;
  ncclComm_t comm = nullptr;
  if (ncclCommInitAll(&comm, 1, &device) != ncclSuccess) return 1;
  sd::nccl_communicator owned(comm);
  float* g = nullptr;
  cudaMalloc(&g, 8 * sizeof(float));
  sd::cuda_executor ex;
  ex.bind_communicator(owned);
  ex.run(summed, sd::bind("g", g, 8));
  const bool ok = cudaDeviceSynchronize() == cudaSuccess;
  cudaFree(g);
  return ok ? 0 : 1;
}
