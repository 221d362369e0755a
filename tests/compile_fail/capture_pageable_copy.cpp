// A CUDA graph cannot hold a copy of pageable host memory (CUDA stages it
// synchronously and refuses it under capture): capturing such a program is
// a compile error saying to use pinned memory.
// needs: nvcc-only
// expect: sd::capture of a program that copies pageable host memory
// expect: declare the buffer sd::pinned and bind page-locked memory \(cudaMallocHost or cudaHostRegister\)
// expect-nvcc: sd::capture of a program that copies pageable host memory
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto prog = sd::program([](sd::builder& p) {
  auto h = p.input<float, sd::pageable>("h");
  auto d = p.temp<float>("d");
  auto y = p.output<float>("y");
  sd::copy(d, h);
  y = d * 2;
});

void capture(sd::cuda_executor& ex, const float* h, float* y, std::size_t n) {
  auto graph = sd::capture(ex, prog, sd::bind("h", h, n), sd::bind("y", y, n));
  graph.launch(ex.main_stream());
}
