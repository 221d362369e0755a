// lower_to_ops alone: kernels, records and waits in one issue order, framed
// by the entry edges (side streams wait for main) and the exit edges (main
// waits for each side stream), only for streams that have work.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

using sd::op_kind;
using sd::sync_role;

struct ops {
  std::size_t size = 0;
  op_kind kind[12]{};
  sync_role role[12]{};
  std::int32_t stream[12]{}, kernel[12]{}, waits_for[12]{}, stmt[12]{};
  std::size_t bound = 0;
};

constexpr ops lower(auto body) {
  sd::plan_model m;
  m.ir = sd::build_ir(body);
  sd::passes::lower_wait_stream(m.ir);
  const auto parts = sd::passes::fuse_runs(sd::ir::view_of(m.ir));
  sd::passes::lower_to_ops(m, parts);
  ops o;
  o.size = m.ops.size();
  for (std::size_t i = 0; i < m.ops.size() && i < 12; ++i) {
    o.kind[i] = m.ops[i].kind;
    o.role[i] = m.ops[i].role;
    o.stream[i] = m.ops[i].stream;
    o.kernel[i] = m.ops[i].kernel;
    o.waits_for[i] = m.ops[i].waits_for;
    o.stmt[i] = m.ops[i].stmt;
  }
  o.bound = sd::passes::lower_to_ops_bound(sd::sizes_of(m.ir)).ops;
  return o;
}

// #0 y = x + 1 on side; #1 e.record() on side; #2 e.wait() on main; #3 z = y * 2.
constexpr auto side_then_main = [](sd::builder& p) {
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

}  // namespace

TEST_CASE("lower_to_ops: kernels and syncs in issue order between the entry and exit edges",
          "[passes][lower_to_ops]") {
  constexpr auto o = lower(side_then_main);
  STATIC_REQUIRE(o.size == 8);
  // Entry: main records, side waits for it.
  STATIC_REQUIRE((o.kind[0] == op_kind::record && o.role[0] == sync_role::entry && o.stream[0] == 0));
  STATIC_REQUIRE((o.kind[1] == op_kind::wait && o.role[1] == sync_role::entry && o.stream[1] == 1));
  STATIC_REQUIRE(o.waits_for[1] == 0);
  // The program: side's kernel, its record, main's wait bound to that record op, main's kernel.
  STATIC_REQUIRE((o.kind[2] == op_kind::kernel && o.stream[2] == 1 && o.kernel[2] == 0));
  STATIC_REQUIRE((o.kind[3] == op_kind::record && o.role[3] == sync_role::user && o.stmt[3] == 1));
  STATIC_REQUIRE((o.kind[4] == op_kind::wait && o.role[4] == sync_role::user && o.stmt[4] == 2));
  STATIC_REQUIRE(o.waits_for[4] == 3);
  STATIC_REQUIRE((o.kind[5] == op_kind::kernel && o.stream[5] == 0 && o.kernel[5] == 1));
  // Exit: side records, main waits for it.
  STATIC_REQUIRE((o.kind[6] == op_kind::record && o.role[6] == sync_role::exit && o.stream[6] == 1));
  STATIC_REQUIRE((o.kind[7] == op_kind::wait && o.role[7] == sync_role::exit && o.stream[7] == 0));
  STATIC_REQUIRE(o.waits_for[7] == 6);
  STATIC_REQUIRE(o.size <= o.bound);
}

TEST_CASE("lower_to_ops: a wait_stream's sync keeps its role", "[passes][lower_to_ops]") {
  constexpr auto o = lower([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto z = p.output<float>("z");
    auto side = p.stream("side");
    sd::with_stream(side, [&] { y = x + 1; });
    p.main_stream().wait_stream(side);
    z = y * 2;
  });
  STATIC_REQUIRE((o.kind[3] == op_kind::record && o.role[3] == sync_role::wait_stream));
  STATIC_REQUIRE((o.kind[4] == op_kind::wait && o.role[4] == sync_role::wait_stream && o.waits_for[4] == 3));
}

TEST_CASE("lower_to_ops: streams without work get no entry or exit edges", "[passes][lower_to_ops]") {
  constexpr auto o = lower([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto idle = p.stream("idle");
    (void)idle;
    y = x + 1;
  });
  STATIC_REQUIRE(o.size == 1);
  STATIC_REQUIRE((o.kind[0] == op_kind::kernel && o.stream[0] == 0));
}
