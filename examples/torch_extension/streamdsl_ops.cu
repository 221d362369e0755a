// The streamdsl side of the PyTorch extension: two programs and the functions
// bindings.cpp calls with torch's tensors' pointers and torch's current
// stream. This unit includes no torch header (nvcc compiles streamdsl alone,
// in C++20; bindings.cpp, compiled by the host compiler, holds the torch side).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

#include "streamdsl_ops.hpp"

namespace {

// The README's seed program: y on a side stream, z on main after a wait.
constexpr auto seed = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;
    e.record();
  });
  e.wait();
  z = y * 2;
});
static_assert(seed.plan().kernel_count() == 2);

// bench/workloads.cu's two-chains over two input halves: an 8-op chain of xa
// on s1, one of xb on s2, joined by an add on main; a and b are temps, so the
// plan is one kernel.
constexpr auto two_chains = sd::program([](sd::builder& p) {
  auto xa = p.input<float>("xa");
  auto xb = p.input<float>("xb");
  auto out = p.output<float>("out");
  auto a = p.temp<float>("a");
  auto b = p.temp<float>("b");
  auto s1 = p.stream("s1");
  auto s2 = p.stream("s2");
  auto e1 = p.event("e1");
  auto e2 = p.event("e2");
  sd::with_stream(s1, [&] {
    a = sd::relu(xa * 1.5f + 0.25f);
    a = sd::min(a * 0.75f - 0.125f, 4.0f);
    a = sd::abs(a) * 1.0001f + 0.5f;
    a = a * a * 0.5f;
    e1.record();
  });
  sd::with_stream(s2, [&] {
    b = sd::max(xb * 0.5f - 0.25f, -2.0f);
    b = sd::relu(b + 0.125f) * 1.25f;
    b = sd::abs(b - 0.5f) * 0.999f;
    b = b * 0.5f + xb;
    e2.record();
  });
  e1.wait();
  e2.wait();
  out = a + b;
});
static_assert(two_chains.plan().kernel_count() == 1);

// One executor per stream the caller runs on, its main stream that stream: a
// run is issued on torch's current stream, so it is ordered after the work
// torch queued there before the call and before the work queued after it, as
// a torch operator is; its side streams join that stream at the run's entry
// and exit. Torch's streams are few and live as long as the process.
sd::cuda_executor& executor_on(cudaStream_t stream) {
  struct entry {
    cudaStream_t stream;
    std::unique_ptr<sd::cuda_executor> executor;
  };
  static std::vector<entry> executors;
  for (auto& e : executors)
    if (e.stream == stream) return *e.executor;
  executors.push_back({stream, std::make_unique<sd::cuda_executor>(stream)});
  return *executors.back().executor;
}

}  // namespace

namespace streamdsl_torch {

void seed(const float* x, float* y, float* z, std::size_t n, cudaStream_t stream) {
  executor_on(stream).run(::seed, sd::bind("x", x, n), sd::bind("y", y, n), sd::bind("z", z, n));
}

void two_chains(const float* xa, const float* xb, float* out, std::size_t n, cudaStream_t stream) {
  executor_on(stream).run(::two_chains, sd::bind("xa", xa, n), sd::bind("xb", xb, n),
                          sd::bind("out", out, n));
}

}  // namespace streamdsl_torch
