// Run timelines on the GPU (sd::record_timeline: CUDA events around each
// kernel and step, read once the run has ended) and their Chrome-trace JSON:
// the copy/compute pipeline's trace has a lane per stream with the plan's
// names, and its kernels run while the next chunk's copy comes in.
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/streamdsl.hpp>

#include "../timeline_pipeline.hpp"
#include "device_buffer.hpp"

using timeline_test::chunks;
using timeline_test::pipeline;

namespace {

// Page-locked host memory: the pipeline's h_in and h_out are sd::pinned.
class pinned_floats {
 public:
  explicit pinned_floats(std::size_t n) : n_(n) {
    void* p = nullptr;
    gpu_test::check(cudaMallocHost(&p, n * sizeof(float)), "cudaMallocHost");
    data_ = static_cast<float*>(p);
  }
  ~pinned_floats() { cudaFreeHost(data_); }
  pinned_floats(const pinned_floats&) = delete;
  pinned_floats& operator=(const pinned_floats&) = delete;
  float* data() { return data_; }
  float& operator[](std::size_t i) { return data_[i]; }

 private:
  float* data_ = nullptr;
  std::size_t n_;
};

}  // namespace

TEST_CASE("a GPU timeline of the copy pipeline has a lane per stream and kernels overlapping copies",
          "[gpu][timeline]") {
  // 4 MB chunks: a copy over PCIe takes about a hundred microseconds, a
  // kernel a few; chunk i's kernel runs while h2d brings chunk i + 1 in.
  constexpr std::size_t n = std::size_t{chunks} * (1u << 20);
  pinned_floats in(n), out(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 1000) * 0.25f - 100.0f;
  sd::cuda_executor ex;
  sd::timeline t;
  for (int round = 0; round < 2; ++round) {  // the second run reuses the timing events
    for (std::size_t i = 0; i < n; ++i) out[i] = -1.0f;
    ex.run(pipeline, sd::bind("h_in", static_cast<const float*>(in.data()), n),
           sd::bind("h_out", out.data(), n), sd::record_timeline(t));
    // run() has waited for the run's end: the results are there without a synchronisation.
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < n; ++i)
      mismatches += std::fabs(out[i] - timeline_test::reference(in[i])) > 1e-4f * (1 + std::fabs(out[i]));
    REQUIRE(mismatches == 0);
    CHECK(t.clock() == "CUDA events (sd::cuda_executor)");
    const auto trace = timeline_test::check_pipeline_trace(t, n);
    const auto overlapping = timeline_test::copies_overlapping_compute(trace);
    INFO(overlapping << " of " << 2 * chunks << " copies overlap a kernel");
    CHECK(overlapping > 0);
  }
  // Without the option nothing is timed and t keeps the last timed run.
  const auto last = t.run_ns();
  ex.run(pipeline, sd::bind("h_in", static_cast<const float*>(in.data()), n),
         sd::bind("h_out", out.data(), n));
  gpu_test::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  CHECK(t.run_ns() == last);
  CHECK(t.slices().size() == 3 * chunks);
}

TEST_CASE("a GPU timeline of a run given a binding list names its kernel by the plan", "[gpu][timeline]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    y = x * 2;
  });
  constexpr std::size_t n = 1 << 20;
  gpu_test::device_buffer<float> x(std::vector<float>(n, 1.5f)), y(n);
  const sd::binding list[] = {sd::bind("x", static_cast<const float*>(x.get()), n),
                              sd::bind("y", y.get(), n)};
  sd::cuda_executor ex;
  sd::timeline t;
  ex.run(prog, list, sd::record_timeline(t));
  REQUIRE(t.slices().size() == 1);
  CHECK(t.slices()[0].kind == "kernel");
  CHECK(t.slices()[0].name == "k0: y = x * 2");
  CHECK(t.slices()[0].duration_ns > 0);
  CHECK(t.run_ns() >= t.slices()[0].start_ns + t.slices()[0].duration_ns);
  CHECK(y.download()[n - 1] == 3.0f);
}
