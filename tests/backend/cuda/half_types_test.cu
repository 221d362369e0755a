// __half and __nv_bfloat16 on the CUDA executor: the host executor's test source, compiled by
// nvcc, where tests/backend/executor_under_test.hpp runs sd::cuda_executor.
#include "../host/half_types_test.cpp"
