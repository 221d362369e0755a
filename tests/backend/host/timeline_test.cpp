// Run timelines on the host executor (sd::record_timeline, backend/timeline.hpp)
// and their Chrome-trace JSON (backend/chrome_trace.hpp): the copy/compute
// pipeline's trace has a lane per stream, the plan's names on its slices, and
// copies on h2d and d2h that run while main computes.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <streamdsl/backend/host/host_executor.hpp>
#include <utility>
#include <vector>

#include "../timeline_pipeline.hpp"

using timeline_test::chunks;
using timeline_test::pipeline;

namespace {

struct pipeline_data {
  explicit pipeline_data(std::size_t n) : in(n), out(n, -1.0f) {
    for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 1000) * 0.25f - 100.0f;
  }
  bool matches() const {
    for (std::size_t i = 0; i < in.size(); ++i)
      if (std::fabs(out[i] - timeline_test::reference(in[i])) > 1e-4f * (1 + std::fabs(out[i]))) return false;
    return true;
  }
  std::vector<float> in, out;
};

}  // namespace

TEST_CASE("a timeline of the copy pipeline has a lane per stream and copies overlapping compute",
          "[host][timeline]") {
  // While main computes chunk i, d2h copies chunk i - 1 out (it waits only for
  // that chunk's kernel) and h2d copies chunks in ahead (they wait for
  // nothing): each stream's thread runs its ops, side by side. On a machine
  // whose cores are all busy the scheduler may still run one thread's copy
  // before the other's kernel, so a run may show no overlap; across runs an
  // executor that runs streams concurrently shows it, one that ran them one
  // after the other never would.
  constexpr std::size_t n = std::size_t{chunks} * (1u << 17);  // 512 KB chunks
  pipeline_data data(n);
  sd::host_options options;
  options.kernel_helpers = 0;  // each kernel on main's thread alone: the copies' threads have the other cores
  sd::host_executor ex(options);
  sd::timeline t;
  std::size_t overlapping = 0;
  int runs = 0;
  while (overlapping == 0 && runs < 10) {
    ex.run(pipeline, sd::bind("h_in", std::as_const(data.in)), sd::bind("h_out", data.out),
           sd::record_timeline(t));
    ++runs;
    REQUIRE(data.matches());
    CHECK(t.clock() == "steady clock (sd::host_executor)");
    const auto trace = timeline_test::check_pipeline_trace(t, n);
    overlapping = timeline_test::copies_overlapping_compute(trace);
  }
  INFO(overlapping << " of " << 2 * chunks << " copies overlap a kernel in run " << runs);
  CHECK(overlapping > 0);
}

TEST_CASE("a timeline holds the last run recorded into it; runs without one record nothing",
          "[host][timeline]") {
  constexpr std::size_t n = std::size_t{chunks} * 64;
  pipeline_data data(n);
  sd::host_executor ex;
  sd::timeline t;
  const sd::binding list[] = {sd::bind("h_in", std::as_const(data.in)), sd::bind("h_out", data.out)};
  ex.run(pipeline, list, sd::record_timeline(t));
  REQUIRE(t.slices().size() == 3 * chunks);
  const auto first_run_ns = t.run_ns();
  CHECK(first_run_ns > 0);
  ex.run(pipeline, list);  // no option: t keeps the first run
  CHECK(t.slices().size() == 3 * chunks);
  CHECK(t.run_ns() == first_run_ns);
  ex.run(pipeline.plan(), list, sd::record_timeline(t));  // a plan_view (any plan) times the same way
  CHECK(t.slices().size() == 3 * chunks);
  CHECK(data.matches());
  timeline_test::check_pipeline_trace(t, n);
}

TEST_CASE("a timeline names reductions and calls by the plan's text, quotes escaped in the JSON",
          "[host][timeline]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<double>("x");
    auto s = p.output<double>("s", sd::scalar);
    auto y = p.output<double>("y");
    s = sd::sum(x * x);
    p.call("negate", sd::reads(x), sd::writes(y));
  });
  std::vector<double> x{1, 2, 3}, y(3);
  double s = 0;
  sd::host_executor ex;
  sd::timeline t;
  ex.run(prog, sd::bind("x", std::as_const(x)), sd::bind("s", &s, 1), sd::bind("y", y),
         sd::bind_call("negate",
                       [](sd::call_context& c) {
                         const auto in = c.read<double>(0);
                         auto out = c.write<double>(0);
                         for (std::size_t i = 0; i < in.size(); ++i) out[i] = -in[i];
                       }),
         sd::record_timeline(t));
  CHECK(s == 14);
  CHECK(y[2] == -3);
  REQUIRE(t.slices().size() == 2);
  CHECK(t.slices()[0].kind == "reduction");
  CHECK(t.slices()[0].name == "s = sd::sum(x * x)");
  CHECK(t.slices()[1].kind == "call");
  std::ostringstream json;
  sd::write_chrome_trace(json, t);
  CHECK(json.str().find(R"j("name":"p.call(\"negate\", sd::reads(x), sd::writes(y))")j") !=
        std::string::npos);
  const auto trace = trace_json::read_trace(json.str());
  REQUIRE(trace.slices.size() == 2);
  CHECK(trace.slices[1].name == R"j(p.call("negate", sd::reads(x), sd::writes(y)))j");
}

TEST_CASE("the timeline example of docs/timeline.md runs and writes a trace", "[host][timeline][docs]") {
  constexpr std::size_t n = std::size_t{chunks} * 1024;
  pipeline_data data(n);
  const auto& in = data.in;
  auto& out = data.out;
  {
    // SNIPPET: timeline
    sd::host_executor ex;  // or sd::cuda_executor: the same option
    sd::timeline t;
    ex.run(pipeline, sd::bind("h_in", std::as_const(in)), sd::bind("h_out", out), sd::record_timeline(t));
    for (const sd::timeline_slice& s : t.slices())
      std::printf("%-4s %-6s %9.1f us %8.1f us  %s\n", t.streams()[s.stream].c_str(), s.kind.data(),
                  static_cast<double>(s.start_ns) / 1000, static_cast<double>(s.duration_ns) / 1000,
                  s.name.c_str());
    std::ofstream file("pipeline.json");
    sd::write_chrome_trace(file, t);  // or: file << sd::chrome_trace(t);
    // END SNIPPET
  }
  CHECK(data.matches());
  std::ifstream back("pipeline.json");
  std::stringstream json;
  json << back.rdbuf();
  const auto trace = trace_json::read_trace(json.str());
  CHECK(trace.slices.size() == 3 * chunks);
  CHECK(trace.lanes.size() == 3);
}
