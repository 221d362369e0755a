#pragma once
// What bindings.cpp (torch's side) calls in streamdsl_ops.cu (streamdsl's
// side): raw pointers to float tensors' data, their element count and the
// stream to run on. Each call only issues the work (asynchronous).
#include <cuda_runtime_api.h>

#include <cstddef>

namespace streamdsl_torch {

// y = x + 1 on a side stream, z = y * 2 on `stream` after it.
void seed(const float* x, float* y, float* z, std::size_t n, cudaStream_t stream);
// out = chain_a(xa) + chain_b(xb) (bench/workloads.cu's two-chains over two halves).
void two_chains(const float* xa, const float* xb, float* out, std::size_t n, cudaStream_t stream);

}  // namespace streamdsl_torch
