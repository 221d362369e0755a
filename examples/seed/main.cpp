// The README's seed program: y on a side stream, z on main after a wait.
// Prints the plan the compiler made of it, runs it on the GPU when there is
// one (the CUDA build, example_seed_gpu) or on the CPU with the host executor,
// and checks the results against plain C++.
#include <cstdio>
#include <utility>
#include <vector>

#include "../common/run_anywhere.hpp"

constexpr auto seed = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;   // runs on the side stream
    e.record();  // record on the side stream
  });
  e.wait();   // the main stream waits for e
  z = y * 2;  // consumer on the main stream
});

static_assert(seed.plan().kernel_count() == 2);

int main() {
#if defined(__CUDACC__)
  std::printf("== seed (nvcc build) ==\n%s", seed.to_string().c_str());
#else
  std::printf("== seed ==\n%s", seed.to_string().c_str());
#endif

  constexpr std::size_t n = 1000;
  std::vector<float> x(n), y(n), z(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = 0.5f * static_cast<float>(i);

  const sd::binding bindings[] = {sd::bind("x", std::as_const(x)), sd::bind("y", y), sd::bind("z", z)};
  const char* where = example::run_anywhere(seed, bindings);

  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float want_y = x[i] + 1, want_z = want_y * 2;
    mismatches += y[i] != want_y || z[i] != want_z;
  }
  std::printf("\nran on %s, n = %zu\n", where, n);
  for (std::size_t i = 0; i < 4; ++i)
    std::printf("  x[%zu] = %-6g y[%zu] = %-6g z[%zu] = %g\n", i, x[i], i, y[i], i, z[i]);
  std::printf("results %s the reference (%zu mismatches)\n", mismatches == 0 ? "match" : "DO NOT match",
              mismatches);
  return mismatches == 0 ? 0 : 1;
}
