// A captured graph's events and workspace are part of the graph (event nodes,
// pointers in its kernels' parameters): rebind changes bindings only.
// needs: nvcc-only
// expect: rebind takes bindings only
// expect: capture a new graph \(sd::capture\) to change them
// expect-nvcc: rebind takes bindings only
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto prog = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = x * 2;
});

void rebind(sd::cuda_executor& ex, const float* x, float* y, std::size_t n, cudaEvent_t ready) {
  auto graph = sd::capture(ex, prog, sd::bind("x", x, n), sd::bind("y", y, n), sd::after(ready));
  graph.rebind(sd::bind("x", x, n), sd::bind("y", y, n), sd::after(ready));
}
