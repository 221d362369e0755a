// Runs and graphs refer to the caller's resource, never own it: a temporary
// one would be used after it is destroyed.
// needs: cuda-headers
// expect: sd::workspace_from of a temporary resource
// expect: pass a named resource that outlives them
// expect-nvcc: sd::workspace_from of a temporary resource
#include <cstddef>
#include <streamdsl/backend/cuda/run_options.hpp>
#include <streamdsl/streamdsl.hpp>

struct pool {
  void* allocate(std::size_t bytes, cudaStream_t stream);
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream);
};

sd::workspace_allocator from_temporary() { return sd::workspace_from(pool{}); }
