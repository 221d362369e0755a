// Every elementwise operator and dtype, edge cases and params on the CUDA executor: the host executor's test
// source, compiled by nvcc, where tests/backend/executor_under_test.hpp runs sd::cuda_executor.
#include "../host/operators_test.cpp"
