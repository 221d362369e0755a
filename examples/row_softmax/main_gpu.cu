// The row softmax and layer-norm example built by nvcc: runs on the GPU when
// one is present (kernels reading rows and columns, reductions along the last
// axis one block per row). A unit whose program reduces includes CUB's part
// of the CUDA executor (the others do not pay for CUB's headers).
#include <streamdsl/backend/cuda/reductions.cuh>

#include "main.cpp"
