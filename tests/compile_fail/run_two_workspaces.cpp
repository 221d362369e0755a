// The temps of a run live in one workspace: a run given both the caller's
// allocator and the caller's buffer would have to pick one silently.
// needs: nvcc-only
// expect: run\(\) was given two workspaces \(sd::workspace_from, sd::workspace_in\)
// expect-nvcc: run\(\) was given two workspaces
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto prog = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = x * 2;
});

struct pool {
  void* allocate(std::size_t bytes, cudaStream_t stream);
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream);
};

void run(sd::cuda_executor& ex, const float* x, float* y, std::size_t n, pool& mr, void* buffer,
         std::size_t bytes) {
  ex.run(prog, sd::bind("x", x, n), sd::bind("y", y, n), sd::workspace_from(mr),
         sd::workspace_in(buffer, bytes));
}
