// plan_view's queries: which record a wait binds to, and one stream's
// sequence of kernels, records and waits.
#include <catch2/catch.hpp>

#include "programs.hpp"

namespace {
constexpr auto rerecorded = sd::program(plan_tests::rerecorded_body);
constexpr auto scaled = sd::program(plan_tests::scaled_body);
}  // namespace

TEST_CASE("the sequence of a stream lists its kernels, records and waits in issue order", "[plan]") {
  constexpr auto plan = rerecorded.plan();
  STATIC_REQUIRE(plan.sequence("side").view() == "k0, record e#1, k1, record e#2");
  STATIC_REQUIRE(plan.sequence("main").view() == "wait e#1, k2, wait e#2, k3");
}

TEST_CASE("each wait names the record it binds to", "[plan]") {
  constexpr auto plan = rerecorded.plan();
  STATIC_REQUIRE(plan.wait_binds_to("main", 0).view() == "record e#1 on side");
  STATIC_REQUIRE(plan.wait_binds_to("main", 1).view() == "record e#2 on side");
}

TEST_CASE("an event recorded once is not numbered", "[plan]") {
  constexpr auto seed = sd::program(plan_tests::seed_body);
  STATIC_REQUIRE(seed.plan().sequence("side").view() == "k0, record e");
  STATIC_REQUIRE(seed.plan().sequence("main").view() == "wait e, k1");
  STATIC_REQUIRE(seed.plan().wait_binds_to("main", 0).view() == "record e on side");
}

TEST_CASE("a wait_stream shows as a record and a wait of its own event", "[plan]") {
  constexpr auto plan = scaled.plan();
  STATIC_REQUIRE(plan.sequence("main").view() == "k0, record wait_stream.0, k2");
  STATIC_REQUIRE(plan.sequence("side").view() == "wait wait_stream.0, k1");
  STATIC_REQUIRE(plan.wait_binds_to("side", 0).view() == "record wait_stream.0 on main");
}

TEST_CASE("record numbers follow the records of each event in issue order", "[plan]") {
  constexpr auto plan = rerecorded.plan();
  // ops: side's and main's entry edges, then the program's syncs and kernels.
  constexpr auto check = [] {
    const auto p = rerecorded.plan();
    const auto numbers = p.record_numbers();
    int records = 0;
    for (std::size_t i = 0; i < p.ops.size(); ++i) {
      const auto& op = p.ops[i];
      if (op.kind == sd::op_kind::kernel || sd::plan_view::is_edge(op)) {
        if (numbers[i] != 0) return false;
        continue;
      }
      if (op.kind == sd::op_kind::record && numbers[i] != ++records) return false;
      if (op.kind == sd::op_kind::wait && numbers[i] != numbers[static_cast<std::size_t>(op.waits_for)])
        return false;
    }
    return records == 2;
  };
  STATIC_REQUIRE(check());
  STATIC_REQUIRE(plan.records("side") == 2);
}

TEST_CASE("plan queries refuse a stream or a wait the plan does not have", "[plan]") {
  const auto plan = rerecorded.plan();  // at run time here; in a static_assert it is a compile error
  REQUIRE_THROWS_AS(plan.sequence("sdie"), sd::plan_error);
  REQUIRE_THROWS_AS(plan.wait_binds_to("sdie", 0), sd::plan_error);
  REQUIRE_THROWS_WITH(plan.wait_binds_to("main", 2),
                      Catch::Contains("wait 2 on stream 'main', which has 2 waits"));
  REQUIRE_THROWS_AS(plan.wait_binds_to("side", 0), sd::plan_error);
}
