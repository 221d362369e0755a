// The matmul_streams example built by nvcc: runs on the GPU when one is
// present, its matmuls through cuBLASLt (the unit includes matmul.hpp and
// links streamdsl::cublas).
#include <streamdsl/backend/cuda/matmul.hpp>

#include "main.cpp"
