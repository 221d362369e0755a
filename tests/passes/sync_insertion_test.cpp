// sd::automatic: the scheduler inserts the fewest syncs that order every race.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

TEST_CASE("automatic: the seed without its event gets one record and one wait", "[sync_insertion]") {
  constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto z = p.output<float>("z");
    auto side = p.stream("side");
    sd::with_stream(side, [&] { y = x + 1; });
    z = y * 2;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.records("side") == 1);
  STATIC_REQUIRE(plan.waits("main") == 1);
  STATIC_REQUIRE(sd::dump(plan).contains("// inserted by sd::automatic"));
}

TEST_CASE("automatic: one wait covers several conflicts on one stream", "[sync_insertion]") {
  constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto c = p.output<float>("c");
    auto side = p.stream("side");
    sd::with_stream(side, [&] {
      a = x + 1;
      b = x + 2;
    });
    c = a + b;  // needs both: one wait for the later write covers the earlier
  });
  STATIC_REQUIRE(prog.plan().waits("main") == 1);
  STATIC_REQUIRE(prog.plan().records("side") == 1);
}

TEST_CASE("automatic: write-after-read and an already ordered pair", "[sync_insertion]") {
  constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto x = p.inout<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto side = p.stream("side");
    auto e = p.event("e");
    sd::with_stream(side, [&] { a = x * 2; });  // reads x
    x = x + 1;                                  // main writes x: WAR, needs a sync
    e.record();
    sd::with_stream(side, [&] {
      e.wait();
      b = x * 3;
    });  // user sync already orders it
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.waits("main") == 1);
  STATIC_REQUIRE(plan.waits("side") == 1);
  STATIC_REQUIRE(plan.records("side") == 1);
  STATIC_REQUIRE(plan.records("main") == 1);
  STATIC_REQUIRE([] {
    sd::builder bld;
    auto x = bld.inout<float>("x");
    auto side = bld.stream("side");
    sd::with_stream(side, [&] { x = x * 2; });
    x = x + 1;
    auto m = sd::passes::schedule(static_cast<sd::builder&&>(bld).ir(), sd::automatic);
    return sd::passes::find_race(sd::ir::view_of(m.ir)).buffer == -1;
  }());
}

TEST_CASE("unchecked: no analysis, no syncs", "[sync_insertion]") {
  constexpr auto prog = sd::program<sd::unchecked>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto z = p.output<float>("z");
    auto side = p.stream("side");
    sd::with_stream(side, [&] { y = x + 1; });
    z = y * 2;
  });
  STATIC_REQUIRE(prog.plan().sync_count() == 0);
}

TEST_CASE("automatic: a fan-in needs no wait that another wait of the group implies", "[sync_insertion]") {
  // z reads x (written on a) and y (written on b after b waited for x's write):
  // main's wait for b implies its wait for a.
  constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto in = p.input<float>("in");
    auto x = p.output<float>("x");
    auto y = p.output<float>("y");
    auto z = p.output<float>("z");
    auto a = p.stream("a");
    auto b = p.stream("b");
    auto e = p.event("e");
    sd::with_stream(a, [&] {
      x = in + 1;
      e.record();
    });
    sd::with_stream(b, [&] {
      e.wait();
      y = in * 2;
    });
    z = x + y;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.waits("main") == 1);
  STATIC_REQUIRE(plan.records("a") == 1);  // only the user's e, which b waits for
  STATIC_REQUIRE(plan.has_note("already implied by the waits next to it"));
}

TEST_CASE("checked: of two back-to-back waits, the one the other implies goes", "[sync_insertion]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto in = p.input<float>("in");
    auto x = p.output<float>("x");
    auto y = p.output<float>("y");
    auto z = p.output<float>("z");
    auto a = p.stream("a");
    auto b = p.stream("b");
    auto ea = p.event("ea");
    auto eb = p.event("eb");
    sd::with_stream(a, [&] {
      x = in + 1;
      ea.record();
    });
    sd::with_stream(b, [&] {
      ea.wait();
      y = in * 2;
      eb.record();
    });
    ea.wait();  // #5: implied by #6, which waits for b after b waited for ea
    eb.wait();  // #6
    z = x + y;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.waits("main") == 1);
  STATIC_REQUIRE(plan.has_note(
      "removed statement #5 `ea.wait()` on stream 'main': already implied by the waits next to it"));
}

TEST_CASE("automatic: inserted events never share a user event's name", "[sync_insertion]") {
  // The user's events take the names the generated events used to get ("wait_stream<id>",
  // "auto_sync<id>": ids 3 and 4 here); generated names now carry a "." that no user name can have.
  constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto z = p.output<float>("z");
    auto side = p.stream("side");
    auto e0 = p.event("wait_stream3");
    auto e1 = p.event("auto_sync4");
    auto e2 = p.event("e2");
    sd::with_stream(side, [&] { y = x + 1; });
    z = y * 2;                          // needs an inserted sync
    p.main_stream().wait_stream(side);  // a wait_stream event
    e0.record();
    e1.record();
    e2.record();
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.ir.events.size() == 5);
  for (std::size_t a = 0; a < plan.ir.events.size(); ++a)
    for (std::size_t b = a + 1; b < plan.ir.events.size(); ++b)
      REQUIRE(!(plan.ir.event_name(static_cast<std::int32_t>(a)) ==
                plan.ir.event_name(static_cast<std::int32_t>(b))));
  STATIC_REQUIRE(plan.event_id("wait_stream3") == 0);
  STATIC_REQUIRE(plan.event_id("auto_sync4") == 1);
}
