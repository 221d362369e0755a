// lower_wait_stream alone: s.wait_stream(t) becomes a record on t and a wait
// on s at the same point, and the user's own waits stay bound.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

using sd::ir::stmt_kind;

// #0 a = x + 1 on s1; #1 e.record() on s1; #2 main.wait_stream(s1);
// #3 e.wait() on main (binds #1); #4 b = a * 2 on main.
constexpr auto user_program = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto b = p.output<float>("b");
  auto s1 = p.stream("s1");
  auto e = p.event("e");
  sd::with_stream(s1, [&] {
    a = x + 1;
    e.record();
  });
  p.main_stream().wait_stream(s1);
  e.wait();
  b = a * 2;
};

struct lowered {
  std::size_t stmts = 0, events = 0, wait_streams = 0;
  stmt_kind kind[8]{};
  std::int32_t stream[8]{}, event[8]{}, binds[8]{}, origin[8]{};
  sd::ir::event_role role[4]{};
  std::size_t bound_stmts = 0, bound_events = 0;
};

constexpr lowered lower(auto body) {
  auto ir = sd::build_ir(body);
  const auto bound = sd::passes::lower_wait_stream_bound(sd::sizes_of(ir), ir);
  sd::passes::lower_wait_stream(ir);
  lowered l;
  l.stmts = ir.stmts.size();
  l.events = ir.events.size();
  for (std::size_t i = 0; i < ir.stmts.size() && i < 8; ++i) {
    const auto& s = ir.stmts[i];
    l.wait_streams += s.kind == stmt_kind::wait_stream ? 1 : 0;
    l.kind[i] = s.kind;
    l.stream[i] = s.stream;
    l.event[i] = s.event;
    l.binds[i] = s.binds;
    l.origin[i] = s.origin;
  }
  for (std::size_t e = 0; e < ir.events.size() && e < 4; ++e) l.role[e] = ir.events[e].role;
  l.bound_stmts = bound.stmts;
  l.bound_events = bound.events;
  return l;
}

}  // namespace

TEST_CASE("lower_wait_stream: a wait_stream becomes a record on the stream waited for and a wait",
          "[passes][lower_wait_stream]") {
  constexpr auto l = lower(user_program);
  STATIC_REQUIRE(l.wait_streams == 0);
  STATIC_REQUIRE(l.stmts == 6);
  STATIC_REQUIRE(l.events == 2);
  STATIC_REQUIRE(l.role[0] == sd::ir::event_role::user);
  STATIC_REQUIRE(l.role[1] == sd::ir::event_role::wait_stream);
  // #2 became a record of the new event on s1, then main's wait bound to it;
  // both keep the user's index #2.
  STATIC_REQUIRE(l.kind[2] == stmt_kind::record);
  STATIC_REQUIRE(l.stream[2] == 1);
  STATIC_REQUIRE(l.event[2] == 1);
  STATIC_REQUIRE(l.origin[2] == 2);
  STATIC_REQUIRE(l.kind[3] == stmt_kind::wait);
  STATIC_REQUIRE(l.stream[3] == 0);
  STATIC_REQUIRE(l.event[3] == 1);
  STATIC_REQUIRE(l.binds[3] == 2);
  STATIC_REQUIRE(l.origin[3] == 2);
}

TEST_CASE("lower_wait_stream: the user's waits stay bound to their records", "[passes][lower_wait_stream]") {
  constexpr auto l = lower(user_program);
  STATIC_REQUIRE(l.kind[4] == stmt_kind::wait);
  STATIC_REQUIRE(l.event[4] == 0);
  STATIC_REQUIRE(l.binds[4] == 1);  // e.record(), not moved
  STATIC_REQUIRE(l.kind[5] == stmt_kind::assign);
  STATIC_REQUIRE(l.origin[5] == 4);
}

TEST_CASE("lower_wait_stream: its growth bound holds what it adds", "[passes][lower_wait_stream]") {
  constexpr auto l = lower(user_program);
  STATIC_REQUIRE(l.bound_stmts == l.stmts);  // 5 written, one more per wait_stream
  STATIC_REQUIRE(l.bound_events == l.events);
}

TEST_CASE("lower_wait_stream: a program without wait_stream is left as it is",
          "[passes][lower_wait_stream]") {
  constexpr auto l = lower([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    y = x + 1;
  });
  STATIC_REQUIRE(l.stmts == 1);
  STATIC_REQUIRE(l.events == 0);
  STATIC_REQUIRE(l.kind[0] == stmt_kind::assign);
}
