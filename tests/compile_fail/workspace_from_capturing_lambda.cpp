// sd::workspace_from(allocate, deallocate) keeps two function pointers: a
// lambda that captures has no function pointer; an allocator with state is
// an object with allocate and deallocate members.
// needs: cuda-headers
// expect: sd::workspace_from\(allocate, deallocate\) takes two functions or lambdas without captures
// expect: pass an object with allocate and deallocate members: sd::workspace_from\(resource\)
// expect-nvcc: takes two functions or lambdas without captures
#include <cstddef>
#include <streamdsl/backend/cuda/run_options.hpp>
#include <streamdsl/streamdsl.hpp>

void* arena_allocate(void* arena, std::size_t bytes, cudaStream_t stream);
void arena_free(void* arena, void* p, cudaStream_t stream);

sd::workspace_allocator from(void* arena) {
  return sd::workspace_from(
      [arena](std::size_t bytes, cudaStream_t s) { return arena_allocate(arena, bytes, s); },
      [arena](void* p, std::size_t, cudaStream_t s) { arena_free(arena, p, s); });
}
