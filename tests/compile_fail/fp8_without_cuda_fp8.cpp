// A program that computes with an FP8 type, launched on the CUDA executor,
// needs cuda_fp8.h's definitions; streamdsl only declares the FP8 types, and
// says which header to add.
// needs: nvcc-only
// expect: this program computes with an FP8 type: #include <cuda_fp8.h> in this file
// expect-nvcc: this program computes with an FP8 type: #include <cuda_fp8.h> in this file
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto quantize = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto q = p.output<__nv_fp8_e4m3>("q");
  q = sd::cast<__nv_fp8_e4m3>(x);
});

void run(sd::cuda_executor& ex, sd::binding_list bindings) { ex.run(quantize, bindings); }
