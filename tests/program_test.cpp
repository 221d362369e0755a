// The README's seed program: its plan as compile-time facts and as text.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

constexpr auto seed_body = [](sd::builder& p) {
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
};
constexpr auto seed = sd::program(seed_body);

constexpr bool dump_has(std::string_view part) { return sd::dump(seed.plan()).contains(part); }

// Position of `part` in the dump, for ordering facts.
constexpr std::size_t at(std::string_view part) { return sd::dump(seed.plan()).view().find(part); }

}  // namespace

TEST_CASE("seed: kernels, records and waits per stream", "[program][seed]") {
  constexpr auto plan = seed.plan();
  STATIC_REQUIRE(plan.kernel_count() == 2);
  STATIC_REQUIRE(plan.kernel_count("side") == 1);
  STATIC_REQUIRE(plan.kernel_count("main") == 1);
  STATIC_REQUIRE(plan.statements("side") == 1);
  STATIC_REQUIRE(plan.statements("main") == 1);
  STATIC_REQUIRE(plan.records("side") == 1);
  STATIC_REQUIRE(plan.waits("main") == 1);
  STATIC_REQUIRE(plan.records("main") == 0);
  STATIC_REQUIRE(plan.waits("side") == 0);
  STATIC_REQUIRE(plan.edge_count(sd::sync_role::entry) == 1);
  STATIC_REQUIRE(plan.edge_count(sd::sync_role::exit) == 1);
  STATIC_REQUIRE(plan.kernel_writing("y") != plan.kernel_writing("z"));
}

TEST_CASE("seed: the dump shows each stream's block in issue order", "[program][seed]") {
  STATIC_REQUIRE(dump_has("stream side:"));
  STATIC_REQUIRE(dump_has("stream main:"));
  // side: entry wait, then y = x + 1, then the record of e, then the exit record.
  STATIC_REQUIRE(at("stream side:") < at("wait main (entry edge)"));
  STATIC_REQUIRE(at("wait main (entry edge)") < at("y = x + 1;"));
  STATIC_REQUIRE(at("y = x + 1;") < at("record e\n"));
  STATIC_REQUIRE(at("record e\n") < at("record exit"));
  // main: the wait on e comes before z = y * 2, and main waits for side at exit.
  STATIC_REQUIRE(at("stream main:") < at("wait e (recorded on side)"));
  STATIC_REQUIRE(at("wait e (recorded on side)") < at("z = y * 2;"));
  STATIC_REQUIRE(at("z = y * 2;") < at("wait side (exit edge)"));
  STATIC_REQUIRE(at("stream main:") < at("stream side:"));
}

TEST_CASE("seed: to_string and to_dot at run time", "[program][seed]") {
  const std::string text = seed.to_string();
  CHECK(text.find("y = x + 1;") != std::string::npos);
  CHECK(text.find("record entry") != std::string::npos);
  const std::string dot = seed.to_dot();
  CHECK(dot.rfind("digraph streamdsl {", 0) == 0);
  CHECK(dot.find("cluster_1") != std::string::npos);
  CHECK(dot.find("style=dashed") != std::string::npos);
}

namespace {
using automatic_seed = decltype(sd::program<sd::automatic>(seed_body));
}  // namespace

TEST_CASE("a program's plan is frozen at the exact sizes of one run of the passes", "[program]") {
  // sd::program runs the passes once, into arrays bounded from the IR, then
  // keeps the plan at its exact sizes: the same sizes a run at run time gives.
  STATIC_REQUIRE(automatic_seed::sizes ==
                 sd::sizes_of(sd::passes::schedule(sd::build_ir(seed_body), sd::automatic)));
  STATIC_REQUIRE(
      sd::fits_within(automatic_seed::sizes, sd::bounds_of(sd::build_ir(seed_body), sd::automatic)));
  STATIC_REQUIRE(automatic_seed::plan().kernel_count() == 2);
  STATIC_REQUIRE(automatic_seed::storage.used == automatic_seed::sizes);
}

TEST_CASE("plan queries refuse names the plan does not have", "[program]") {
  const auto plan = seed.plan();  // at run time here; in a static_assert it is a compile error
  REQUIRE_THROWS_AS(plan.waits("mian"), sd::plan_error);
  REQUIRE_THROWS_AS(plan.kernel_count("sdie"), sd::plan_error);
  REQUIRE_THROWS_AS(plan.storage_of("w"), sd::plan_error);
  REQUIRE(plan.waits("main") == 1);
  REQUIRE(plan.stream_id("mian") == -1);
}
