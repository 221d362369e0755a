// remove_redundant_waits alone: waits that happens-before already implies go,
// and so do records nothing waits for.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

constexpr sd::plan_model without_redundant_waits(auto body) {
  sd::plan_model m;
  m.ir = sd::build_ir(body);
  sd::passes::lower_wait_stream(m.ir);
  sd::passes::remove_redundant_waits(m);
  return m;
}

struct outcome {
  std::size_t waits = 0, records = 0, notes = 0;
  std::int32_t first_main_wait_on = -1;  // the stream of the record main's first wait binds to
};

constexpr outcome outcome_of(auto body) {
  const auto m = without_redundant_waits(body);
  outcome o;
  o.notes = m.pending_notes.size();
  for (const auto& s : m.ir.stmts) {
    o.waits += s.kind == sd::ir::stmt_kind::wait ? 1 : 0;
    o.records += s.kind == sd::ir::stmt_kind::record ? 1 : 0;
    if (s.kind == sd::ir::stmt_kind::wait && s.stream == 0 && o.first_main_wait_on < 0)
      o.first_main_wait_on = m.ir.stmts[static_cast<std::size_t>(s.binds)].stream;
  }
  return o;
}

}  // namespace

TEST_CASE("redundant waits: a wait implied by an earlier one goes, with its record",
          "[passes][redundant_waits]") {
  constexpr auto twice = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto side = p.stream("side");
    auto e = p.event("e");
    auto f = p.event("f");
    sd::with_stream(side, [&] {
      a = x + 1;
      f.record();  // e, recorded after it, covers it
      e.record();
    });
    e.wait();
    b = a * 2;
    f.wait();  // implied by e's wait
    b = b + a;
  };
  constexpr auto m = outcome_of(twice);
  STATIC_REQUIRE(m.waits == 1);
  STATIC_REQUIRE(m.records == 1);
  STATIC_REQUIRE(m.notes == 2);  // the wait removed, the user record dropped
}

TEST_CASE("redundant waits: in a group, a later wait can imply an earlier one", "[passes][redundant_waits]") {
  // s2 waits for s1, then main waits for both back to back: s2's record
  // already covers s1's, so main's wait for s1 is the one that goes.
  constexpr auto fan_in = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto c = p.output<float>("c");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    auto e1 = p.event("e1");
    auto e2 = p.event("e2");
    sd::with_stream(s1, [&] {
      a = x + 1;
      e1.record();
    });
    sd::with_stream(s2, [&] {
      e1.wait();
      b = a * 2;
      e2.record();
    });
    e1.wait();
    e2.wait();
    c = a + b;
  };
  constexpr auto m = outcome_of(fan_in);
  STATIC_REQUIRE(m.waits == 2);               // s2's, and main's for e2
  STATIC_REQUIRE(m.first_main_wait_on == 2);  // bound to s2's record
}

TEST_CASE("redundant waits: a join of independent streams keeps every wait", "[passes][redundant_waits]") {
  constexpr auto join = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto c = p.output<float>("c");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    auto e1 = p.event("e1");
    auto e2 = p.event("e2");
    sd::with_stream(s1, [&] {
      a = x + 1;
      e1.record();
    });
    sd::with_stream(s2, [&] {
      b = x + 2;
      e2.record();
    });
    e1.wait();
    e2.wait();
    c = a + b;
  };
  constexpr auto m = outcome_of(join);
  STATIC_REQUIRE(m.waits == 2);
  STATIC_REQUIRE(m.records == 2);
  STATIC_REQUIRE(m.notes == 0);
}
