// Executor semantics (streams, events, temps, 0-d buffers, params, inouts, automatic sync, fusion) on the
// CUDA executor: the host executor's test source, compiled by nvcc, where
// tests/backend/executor_under_test.hpp runs sd::cuda_executor.
#include "../host/host_executor_test.cpp"
