// A captured graph is launched whole (cudaGraphLaunch): its ops are not timed
// one by one, so a timeline is an option of run() only.
// needs: nvcc-only
// expect: sd::capture with sd::record_timeline
// expect: record the timeline of a run instead \(ex.run\(prog, ..., sd::record_timeline\(t\)\)\)
// expect-nvcc: sd::capture with sd::record_timeline
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto prog = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = x * 2;
});

void capture(sd::cuda_executor& ex, const float* x, float* y, std::size_t n, sd::timeline& t) {
  auto graph = sd::capture(ex, prog, sd::bind("x", x, n), sd::bind("y", y, n), sd::record_timeline(t));
  graph.launch();
}
