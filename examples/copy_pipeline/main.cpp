// Workload 5, the copy/compute pipeline: the input lies in host memory; each
// of 16 chunks is copied in on stream h2d, put through the 8-op chain of the
// bench's chain workload on main, and copied out on stream d2h. Under
// sd::automatic the compiler orders each chunk's three steps itself, so on a
// GPU chunk i's chain runs while chunk i+1 comes in and chunk i-1 goes out.
// Prints the plan, runs it on the GPU (example_copy_pipeline_gpu, host buffers
// pinned) or on the CPU (plainly and in stress mode), and checks the results.
//
//   example_copy_pipeline_gpu --trace pipeline.json --floats-per-chunk 1048576
//
// writes the plain run's timeline as Chrome-trace JSON (open it in
// ui.perfetto.dev or chrome://tracing; scripts/trace_to_png.py draws it).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "../common/host_buffers.hpp"
#include "pipeline.hpp"

namespace {

using copy_pipeline::chunks;
using copy_pipeline::pipeline;
using copy_pipeline::reference;

// The run's timeline into `path` as Chrome-trace JSON.
bool write_trace(const char* path, const sd::timeline& t) {
  std::FILE* f = std::fopen(path, "w");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot write %s\n", path);
    return false;
  }
  const auto json = sd::chrome_trace(t);
  const bool written = std::fwrite(json.view().data(), 1, json.size(), f) == json.size();
  return std::fclose(f) == 0 && written;
}

}  // namespace

int main(int argc, char** argv) {
  const char* trace_path = nullptr;
  std::size_t per_chunk = 4096;  // floats per chunk
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--trace") == 0 && a + 1 < argc) {
      trace_path = argv[++a];
    } else if (std::strcmp(argv[a], "--floats-per-chunk") == 0 && a + 1 < argc) {
      per_chunk = std::strtoull(argv[++a], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: %s [--trace FILE.json] [--floats-per-chunk N]\n", argv[0]);
      return 2;
    }
  }
#if defined(__CUDACC__)
  std::printf("== copy pipeline (nvcc build) ==\n%s", pipeline.to_string().c_str());
#else
  std::printf("== copy pipeline ==\n%s", pipeline.to_string().c_str());
#endif

  const std::size_t n = std::size_t{chunks} * per_chunk;
  example::host_array<float> h_in(n), h_out(n);
  for (std::size_t i = 0; i < n; ++i) h_in[i] = static_cast<float>(i % 1000) * 0.25f - 100.0f;

  const sd::binding bindings[] = {sd::bind("h_in", std::as_const(h_in).span()),
                                  sd::bind("h_out", h_out.span())};
  const sd::stress stress{7, 50};  // random delays before every operation
  bool all_match = true;
  for (const bool stressed : {false, true}) {
    if (stressed && example::gpu_present()) break;  // stress mode is the host executor's
    for (std::size_t i = 0; i < n; ++i) h_out[i] = -1.0f;
    sd::timeline timing;  // recorded for the plain run when --trace is given
    const char* where =
        example::run_in_place(pipeline, bindings, {"h_in", "h_out"}, stressed ? &stress : nullptr,
                              trace_path != nullptr && !stressed ? &timing : nullptr);
    if (trace_path != nullptr && !stressed) {
      if (!write_trace(trace_path, timing)) return 1;
      std::printf("\nwrote the run's timeline to %s (%zu slices, %.1f us)\n", trace_path,
                  timing.slices().size(), static_cast<double>(timing.run_ns()) / 1000);
    }
    std::size_t mismatches = 0;
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double err = std::fabs(h_out[i] - reference(h_in[i])) / (1 + std::fabs(reference(h_in[i])));
      worst = err > worst ? err : worst;
      mismatches += err > 1e-6;
    }
    std::printf("\nran on %s, %d chunks of %zu floats, host buffers %s\n", where, chunks, n / chunks,
                h_in.pinned() ? "pinned (cudaMallocHost)" : "in plain memory");
    for (std::size_t i = 0; i < 3; ++i)
      std::printf("  h_in[%zu] = %-8g h_out[%zu] = %g\n", i, h_in[i], i, h_out[i]);
    std::printf("results %s the reference (%zu mismatches, largest relative error %.2g)\n",
                mismatches == 0 ? "match" : "DO NOT match", mismatches, worst);
    all_match = all_match && mismatches == 0;
  }
  return all_match ? 0 : 1;
}
