// sd::workspace_from(x) needs a resource with stream-ordered allocate and
// deallocate members (RMM's shape); anything else is one sentence that says
// what it needs, not a list of candidates.
// needs: cuda-headers
// expect: sd::workspace_from\(resource\) needs a resource with allocate\(std::size_t bytes, cudaStream_t stream\)
// expect-nvcc: sd::workspace_from\(resource\) needs a resource with allocate
#include <cstddef>
#include <streamdsl/backend/cuda/run_options.hpp>
#include <streamdsl/streamdsl.hpp>

struct pool {
  void* get(std::size_t bytes);  // not allocate/deallocate
};

sd::workspace_allocator from(pool& p) { return sd::workspace_from(p); }
