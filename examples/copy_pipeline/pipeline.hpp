#pragma once
// The copy/compute pipeline of examples/copy_pipeline (workload 5): the
// program, shared by the example and the timeline tests
// (tests/backend/host/timeline_test.cpp, tests/backend/cuda/timeline_test.cu).
#include <streamdsl/streamdsl.hpp>

namespace copy_pipeline {

constexpr int chunks = 16;

// The 8-op chain of the bench's chain workload (bench/workloads.cu, K = 8),
// written as one expression: per chunk it is one kernel that reads the chunk
// once and writes it once. (Written as 8 statements through chunked temps it
// would be the same kernel: a temp used chunk by chunk, each chunk inside one
// kernel, lives in registers.)
template <class X>
constexpr auto chain8(const X& x) {
  auto v = x * 1.0001f;
  for (int k = 1; k < 7; ++k) v = k % 2 == 1 ? v + 0.5f : v * 0.999f;
  return v - 0.25f;
}

// h_in and h_out live in pinned host memory (cudaMallocHost on the GPU; any
// memory on the host executor); the copies move the chunks across.
constexpr auto pipeline = sd::program<sd::automatic>([](sd::builder& p) {
  auto h_in = p.input<float, sd::pinned>("h_in");
  auto h_out = p.output<float, sd::pinned>("h_out");
  auto d_in = p.temp<float>("d_in");
  auto d_out = p.temp<float>("d_out");
  auto h2d = p.stream("h2d");
  auto d2h = p.stream("d2h");
  for (int i = 0; i < chunks; ++i) {
    sd::with_stream(h2d, [&] { sd::copy(d_in.chunk(i, chunks), h_in.chunk(i, chunks)); });
    d_out.chunk(i, chunks) = chain8(d_in.chunk(i, chunks));  // one fused kernel per chunk, on main
    sd::with_stream(d2h, [&] { sd::copy(h_out.chunk(i, chunks), d_out.chunk(i, chunks)); });
  }
});

// Each chunk: a copy in, one fused kernel, a copy out.
static_assert(pipeline.plan().step_count() == 2 * chunks);
static_assert(pipeline.plan().kernel_count("main") == chunks);
static_assert(pipeline.plan().slot_count() == 2);  // d_in and d_out

inline float reference(float x) {
  float v = x * 1.0001f;
  for (int k = 1; k < 7; ++k) v = k % 2 == 1 ? v + 0.5f : v * 0.999f;
  return v - 0.25f;
}

}  // namespace copy_pipeline
