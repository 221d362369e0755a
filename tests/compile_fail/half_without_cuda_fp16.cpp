// A program that computes with __half, launched on the CUDA executor, needs
// cuda_fp16.h's definitions; streamdsl only declares __half (the header costs
// every translation unit a third of a second), and says which header to add.
// needs: nvcc-only
// expect: this program computes with __half: #include <cuda_fp16.h> in this file
// expect-nvcc: this program computes with __half: #include <cuda_fp16.h> in this file
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto halve = sd::program([](sd::builder& p) {
  auto x = p.input<__half>("x");
  auto y = p.output<__half>("y");
  y = x * 0.5;
});

void run(sd::cuda_executor& ex, sd::binding_list bindings) { ex.run(halve, bindings); }
