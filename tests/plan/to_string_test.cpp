// The plan as text and as a Graphviz graph: params are listed, and the
// records of an event recorded more than once are numbered, so a reader sees
// which record each wait binds to.
#include <catch2/catch.hpp>

#include "programs.hpp"

namespace {
constexpr auto rerecorded = sd::program(plan_tests::rerecorded_body);
constexpr auto scaled = sd::program(plan_tests::scaled_body);

template <class P>
constexpr std::size_t at(const P& program, std::string_view part) {
  return sd::dump(program.plan()).view().find(part);
}
template <class P>
constexpr bool has(const P& program, std::string_view part) {
  return sd::dump(program.plan()).contains(part);
}
}  // namespace

TEST_CASE("the dump numbers the records of a re-recorded event and the waits bound to them", "[plan][dump]") {
  STATIC_REQUIRE(at(rerecorded, "    record e#1\n") < at(rerecorded, "    record e#2\n"));
  STATIC_REQUIRE(at(rerecorded, "    wait e#1 (recorded on side)\n") <
                 at(rerecorded, "    wait e#2 (recorded on side)\n"));
  STATIC_REQUIRE(!has(rerecorded, "wait e (recorded"));
  STATIC_REQUIRE(!has(rerecorded, "record e\n"));
}

TEST_CASE("the dump lists params as it lists buffers", "[plan][dump]") {
  STATIC_REQUIRE(has(scaled, "buffers:\n"));
  STATIC_REQUIRE(at(scaled, "buffers:\n") < at(scaled, "params:\n    param float alpha\n"));
  STATIC_REQUIRE(!has(rerecorded, "params:"));  // no params, no section
}

TEST_CASE("the whole dump of a program with a param, a wait_stream and a slot", "[plan][dump]") {
  const std::string text = scaled.to_string();
  CHECK(text ==
        "// streamdsl plan: 3 kernels, 2 syncs, 2 streams, 1 workspace slots\n"
        "stream main:\n"
        "    record entry\n"
        "    kernel k0 over n {\n"
        "      t = x * alpha;  // slot 0\n"
        "    }\n"
        "    record wait_stream.0  // for a wait_stream\n"
        "    kernel k2 over n {\n"
        "      z = t * 2;\n"
        "    }\n"
        "    wait side (exit edge)\n"
        "stream side:\n"
        "    wait main (entry edge)\n"
        "    wait wait_stream.0 (recorded on main)  // side.wait_stream(main)\n"
        "    kernel k1 over n {\n"
        "      y = t + 1;\n"
        "    }\n"
        "    record exit\n"
        "buffers:\n"
        "    input float x[n]\n"
        "    temp float t[n]  // workspace slot 0\n"
        "    output float y[n]\n"
        "    output float z[n]\n"
        "params:\n"
        "    param float alpha\n");
}

TEST_CASE("the graph labels carry the record numbers too", "[plan][dump]") {
  const std::string dot = rerecorded.to_dot();
  CHECK(dot.find("label=\"record e#2\"") != std::string::npos);
  CHECK(dot.find("label=\"wait e#2 (recorded on side)\"") != std::string::npos);
  CHECK(dot.find("label=\"record e\"") == std::string::npos);
}
