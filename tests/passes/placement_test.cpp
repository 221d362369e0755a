// place_work and move_statements alone: work that only feeds one kernel on
// another stream moves into it, and every wait stays bound to its record.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

struct outcome {
  std::size_t side_assigns = 0, waits = 0, notes = 0;
};

constexpr outcome placed(auto body, sd::options o) {
  sd::plan_model m;
  m.ir = sd::build_ir(body);
  sd::passes::lower_wait_stream(m.ir);
  sd::passes::place_work(m, o);
  outcome r;
  r.notes = m.pending_notes.size();
  for (const auto& s : m.ir.stmts) {
    r.side_assigns += s.kind == sd::ir::stmt_kind::assign && s.stream == 1 ? 1 : 0;
    r.waits += s.kind == sd::ir::stmt_kind::wait ? 1 : 0;
  }
  return r;
}

// A temp computed on side and read only on main, ordered by e.
constexpr auto temp_on_side = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto t = p.temp<float>("t");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    t = x + 1;
    e.record();
  });
  e.wait();
  y = t * 2;
};

// The same with an output: strict placement leaves it where it is.
constexpr auto output_on_side = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto a = p.output<float>("a");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    a = x + 1;
    e.record();
  });
  e.wait();
  y = a * 2;
};

}  // namespace

TEST_CASE("placement: a temp's producer moves into its consumer, the sync goes", "[passes][placement]") {
  STATIC_REQUIRE(placed(temp_on_side, sd::checked).side_assigns == 0);
  STATIC_REQUIRE(placed(temp_on_side, sd::checked).waits == 0);
  STATIC_REQUIRE(placed(temp_on_side, sd::checked).notes == 2);  // moved, and the wait removed
}

TEST_CASE("placement: outputs stay under strict and move under relaxed", "[passes][placement]") {
  STATIC_REQUIRE(placed(output_on_side, sd::checked).side_assigns == 1);
  STATIC_REQUIRE(placed(output_on_side, sd::checked).waits == 1);
  constexpr sd::options relaxed = [] {
    sd::options o = sd::checked;
    o.placement = sd::placement_policy::relaxed;
    return o;
  }();
  STATIC_REQUIRE(placed(output_on_side, relaxed).side_assigns == 0);
}

TEST_CASE("placement: unchecked programs are left as written", "[passes][placement]") {
  STATIC_REQUIRE(placed(temp_on_side, sd::unchecked).side_assigns == 1);
}

TEST_CASE("move_statements keeps waits bound to their records", "[passes][placement]") {
  // #0 side: a = x + 1; #1 side: e.record(); #2 main: e.wait(); #3 main: y = a * 2
  // Moving #0 before #3 onto main: the wait (now #1) binds to the record (now #0).
  STATIC_REQUIRE([] {
    auto ir = sd::build_ir(output_on_side);
    sd::passes::move_statements(ir.stmts, {0}, 3, 0);
    const auto& s = ir.stmts;
    return s.size() == 4 && s[0].kind == sd::ir::stmt_kind::record && s[1].kind == sd::ir::stmt_kind::wait &&
           s[1].binds == 0 && s[2].kind == sd::ir::stmt_kind::assign && s[2].stream == 0 &&
           s[3].kind == sd::ir::stmt_kind::assign;
  }());
}
