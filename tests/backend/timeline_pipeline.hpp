#pragma once
// The copy/compute pipeline of examples/copy_pipeline (each chunk copied in on
// stream h2d, computed on main, copied out on d2h), as the host and GPU
// timeline tests run it, and the checks of its trace that hold on both
// executors.
#include <catch2/catch.hpp>
#include <sstream>
#include <streamdsl/streamdsl.hpp>
#include <string>

#include "../../examples/copy_pipeline/pipeline.hpp"
#include "trace_json.hpp"

namespace timeline_test {

using copy_pipeline::chunks;
using copy_pipeline::pipeline;
using copy_pipeline::reference;

// The trace of one run of `pipeline` over `n` floats, read back from its
// JSON, with the checks that hold on any executor: a lane per stream named
// after it, each slice on its op's lane with its kind, the copies' bytes,
// names from the plan's text, and a stream's slices one after another.
inline trace_json::trace check_pipeline_trace(const sd::timeline& t, std::size_t n) {
  std::ostringstream json;
  sd::write_chrome_trace(json, t);
  const trace_json::trace trace = trace_json::read_trace(json.str());
  const auto plan = pipeline.plan();
  const int main = plan.stream_id("main"), h2d = plan.stream_id("h2d"), d2h = plan.stream_id("d2h");
  REQUIRE(trace.lanes.size() == 3);
  CHECK(trace.lanes.at(main) == "main");
  CHECK(trace.lanes.at(h2d) == "h2d");
  CHECK(trace.lanes.at(d2h) == "d2h");
  REQUIRE(trace.slices.size() == 3 * chunks);  // a copy in, a kernel, a copy out per chunk
  std::size_t copies_in = 0, kernels = 0, copies_out = 0;
  const double chunk_bytes = static_cast<double>(n / chunks * sizeof(float));
  for (const auto& s : trace.slices) {
    INFO(s.name << " on lane " << s.tid);
    CHECK(s.ts >= 0);
    CHECK(s.dur >= 0);
    CHECK(s.ts + s.dur <= static_cast<double>(t.run_ns()) / 1000 + 0.001);
    if (s.tid == main) {
      CHECK(s.kind == "kernel");
      CHECK(s.name.rfind('k', 0) == 0);
      CHECK(s.name.find("d_out.chunk(") != std::string::npos);
      ++kernels;
    } else {
      CHECK(s.kind == "copy");
      CHECK(s.bytes == chunk_bytes);
      CHECK(s.name.rfind("sd::copy(", 0) == 0);
      if (s.tid == h2d) ++copies_in;
      if (s.tid == d2h) ++copies_out;
    }
  }
  CHECK(kernels == chunks);
  CHECK(copies_in == chunks);
  CHECK(copies_out == chunks);
  // The first chunk's copy, named as the plan prints it.
  bool named = false;
  for (const auto& s : trace.slices)
    named = named || s.name == "sd::copy(d_in.chunk(0, 16), h_in.chunk(0, 16))";
  CHECK(named);
  // A stream runs its ops in order: its slices do not overlap (slices come in
  // op order, which is each stream's issue order).
  for (int lane : {main, h2d, d2h}) {
    double previous_end = 0;
    for (const auto& s : trace.slices) {
      if (s.tid != lane) continue;
      INFO(s.name);
      CHECK(s.ts + 0.001 >= previous_end);
      previous_end = s.ts + s.dur;
    }
  }
  return trace;
}

// Copy slices that share time with a kernel slice on main.
inline std::size_t copies_overlapping_compute(const trace_json::trace& trace) {
  std::size_t count = 0;
  for (const auto& c : trace.slices) {
    if (c.kind != "copy") continue;
    bool overlaps = false;
    for (const auto& k : trace.slices)
      overlaps = overlaps || (k.kind == "kernel" && trace_json::overlap(c, k));
    count += overlaps;
  }
  return count;
}

}  // namespace timeline_test
