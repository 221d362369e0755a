// A resource's allocate and deallocate change it (RMM's are not const): a
// const reference to one cannot be used.
// needs: cuda-headers
// expect: sd::workspace_from of a const resource
// expect: pass the resource itself, not a const reference to it
// expect-nvcc: sd::workspace_from of a const resource
#include <cstddef>
#include <streamdsl/backend/cuda/run_options.hpp>
#include <streamdsl/streamdsl.hpp>

struct pool {
  void* allocate(std::size_t bytes, cudaStream_t stream);
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream);
};

sd::workspace_allocator from(const pool& p) { return sd::workspace_from(p); }
