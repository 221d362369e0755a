// A run records one timeline: a run given two would have to pick one silently.
// expect: run\(\) was given two timelines \(sd::record_timeline\); a run records one
// expect-nvcc: run\(\) was given two timelines
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto prog = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = x * 2;
});

void run(sd::host_executor& ex, const float* x, float* y, std::size_t n, sd::timeline& a, sd::timeline& b) {
  ex.run(prog, sd::bind("x", x, n), sd::bind("y", y, n), sd::record_timeline(a), sd::record_timeline(b));
}
