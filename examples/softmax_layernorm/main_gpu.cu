// The softmax and layer-norm example built by nvcc: runs on the GPU when one
// is present. A unit whose program reduces includes CUB's part of the CUDA
// executor (the others do not pay for CUB's headers).
#include <streamdsl/backend/cuda/reductions.cuh>

#include "main.cpp"
