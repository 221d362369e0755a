// The torch side of the extension: checks the tensors, allocates the outputs
// with torch (its caching allocator, on the current stream) and calls the
// streamdsl programs on torch.cuda.current_stream().
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

#include <vector>

#include "streamdsl_ops.hpp"

namespace {

void check_input(const torch::Tensor& t, const char* name) {
  TORCH_CHECK(t.is_cuda(), name, " must be a CUDA tensor");
  TORCH_CHECK(t.scalar_type() == torch::kFloat32, name, " must be float32");
  TORCH_CHECK(t.is_contiguous(), name, " must be contiguous");
}

std::vector<torch::Tensor> seed(const torch::Tensor& x) {
  check_input(x, "x");
  const c10::cuda::CUDAGuard device(x.device());
  auto y = torch::empty_like(x);
  auto z = torch::empty_like(x);
  streamdsl_torch::seed(x.data_ptr<float>(), y.data_ptr<float>(), z.data_ptr<float>(),
                        static_cast<std::size_t>(x.numel()), at::cuda::getCurrentCUDAStream().stream());
  return {y, z};
}

torch::Tensor two_chains(const torch::Tensor& xa, const torch::Tensor& xb) {
  check_input(xa, "xa");
  check_input(xb, "xb");
  TORCH_CHECK(xa.sizes() == xb.sizes(), "xa and xb must have the same shape");
  TORCH_CHECK(xa.device() == xb.device(), "xa and xb must be on the same device");
  const c10::cuda::CUDAGuard device(xa.device());
  auto out = torch::empty_like(xa);
  streamdsl_torch::two_chains(xa.data_ptr<float>(), xb.data_ptr<float>(), out.data_ptr<float>(),
                              static_cast<std::size_t>(xa.numel()),
                              at::cuda::getCurrentCUDAStream().stream());
  return out;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "streamdsl programs on torch tensors, run on torch.cuda.current_stream()";
  m.def("seed", &seed, "y = x + 1 (side stream), z = y * 2: returns [y, z]");
  m.def("two_chains", &two_chains,
        "out = chain_a(xa) + chain_b(xb), as bench/workloads.cu's two-chains halves");
}
