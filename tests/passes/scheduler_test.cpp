// The scheduler end to end: the scenarios of the scheduler issue, each checked
// on its plan with STATIC_REQUIRE (kernels, records, waits, removed waits).
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {
template <class P>
constexpr bool dump_has(const P& program, std::string_view part) {
  return sd::dump(program.plan()).contains(part);
}
}  // namespace

TEST_CASE("producer and consumer across two streams", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
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
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 2);  // a dependency across streams through an event
  STATIC_REQUIRE(plan.records("side") == 1);
  STATIC_REQUIRE(plan.waits("main") == 1);
}

TEST_CASE("fan-out to two streams and join", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto out = p.output<float>("out");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    auto e1 = p.event("e1");
    auto e2 = p.event("e2");
    sd::with_stream(s1, [&] {
      a = x * 2;
      e1.record();
    });
    sd::with_stream(s2, [&] {
      b = x * 3;
      e2.record();
    });
    e1.wait();
    e2.wait();
    out = a + b;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 3);
  STATIC_REQUIRE(plan.waits("main") == 2);
  STATIC_REQUIRE(plan.edge_count(sd::sync_role::entry) == 2);
  STATIC_REQUIRE(plan.edge_count(sd::sync_role::exit) == 2);
}

TEST_CASE("diamond: main -> two streams -> main", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto t = p.output<float>("t");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto out = p.output<float>("out");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    auto top = p.event("top");
    auto e1 = p.event("e1");
    auto e2 = p.event("e2");
    t = x + 1;
    top.record();
    sd::with_stream(s1, [&] {
      top.wait();
      a = t * 2;
      e1.record();
    });
    sd::with_stream(s2, [&] {
      top.wait();
      b = t * 3;
      e2.record();
    });
    e1.wait();
    e2.wait();
    out = a + b;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 4);
  STATIC_REQUIRE(plan.records("main") == 1);
  STATIC_REQUIRE(plan.waits("s1") == 1);
  STATIC_REQUIRE(plan.waits("s2") == 1);
  STATIC_REQUIRE(plan.waits("main") == 2);
}

TEST_CASE("ping-pong between two streams", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.inout<float>("x");
    auto side = p.stream("side");
    auto ping = p.event("ping");
    auto pong = p.event("pong");
    x = x + 1;
    ping.record();
    sd::with_stream(side, [&] {
      ping.wait();
      x = x * 2;
      pong.record();
    });
    pong.wait();
    x = x - 3;
    ping.record();
    sd::with_stream(side, [&] {
      ping.wait();
      x = x * 4;
      pong.record();
    });
    pong.wait();
    x = x + 5;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 5);
  STATIC_REQUIRE(plan.records("main") == 2);
  STATIC_REQUIRE(plan.records("side") == 2);
  STATIC_REQUIRE(plan.waits("main") == 2);
  STATIC_REQUIRE(plan.waits("side") == 2);
}

TEST_CASE("four-stage pipeline over four streams", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto c = p.output<float>("c");
    auto d = p.output<float>("d");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    auto s3 = p.stream("s3");
    auto e1 = p.event("e1");
    auto e2 = p.event("e2");
    auto e3 = p.event("e3");
    a = x + 1;
    e1.record();
    sd::with_stream(s1, [&] {
      e1.wait();
      b = a * 2;
      e2.record();
    });
    sd::with_stream(s2, [&] {
      e2.wait();
      c = b - 3;
      e3.record();
    });
    sd::with_stream(s3, [&] {
      e3.wait();
      d = c / 4;
    });
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 4);
  STATIC_REQUIRE(plan.waits("s1") == 1);
  STATIC_REQUIRE(plan.waits("s2") == 1);
  STATIC_REQUIRE(plan.waits("s3") == 1);
  STATIC_REQUIRE(plan.edge_count(sd::sync_role::exit) == 3);  // main sees d at exit
}

TEST_CASE("an event re-recorded: the wait binds to the latest record", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto c = p.output<float>("c");
    auto side = p.stream("side");
    auto e = p.event("e");
    sd::with_stream(side, [&] {
      a = x + 1;
      e.record();
      b = x + 2;
      e.record();
    });
    e.wait();
    c = a + b;  // needs both: only correct because the wait binds to the second record
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.waits("main") == 1);
  STATIC_REQUIRE(plan.records("side") == 1);  // the first record is waited by nobody
  STATIC_REQUIRE(plan.has_note("dropped statement #1 `e.record()` on stream 'side': nothing waits for it"));
}

TEST_CASE("two streams waiting on the same event are both held back", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto t = p.output<float>("t");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    auto e = p.event("e");
    t = x * 2;
    e.record();
    sd::with_stream(s1, [&] {
      e.wait();
      a = t + 1;
    });
    sd::with_stream(s2, [&] {
      e.wait();
      b = t + 2;
    });
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.records("main") == 1);
  STATIC_REQUIRE(plan.waits("s1") == 1);
  STATIC_REQUIRE(plan.waits("s2") == 1);
}

TEST_CASE("wait_stream becomes a record and a wait", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto side = p.stream("side");
    sd::with_stream(side, [&] { a = x + 1; });
    p.main_stream().wait_stream(side);
    b = a * 2;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.records("side") == 1);
  STATIC_REQUIRE(plan.waits("main") == 1);
  STATIC_REQUIRE(dump_has(prog, "// main.wait_stream(side)"));
}

TEST_CASE("nested with_stream: the innermost scope wins", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto c = p.output<float>("c");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    sd::with_stream(s1, [&] {
      a = x + 1;
      sd::with_stream(s2, [&] { b = x + 2; });
      c = x + 3;
    });
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.statements("s1") == 2);
  STATIC_REQUIRE(plan.statements("s2") == 1);
  STATIC_REQUIRE(plan.statements("main") == 0);
}

TEST_CASE("three records on one stream, each waited once", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto c = p.output<float>("c");
    auto y = p.output<float>("y");
    auto side = p.stream("side");
    auto ea = p.event("ea");
    auto eb = p.event("eb");
    auto ec = p.event("ec");
    sd::with_stream(side, [&] {
      a = x + 1;
      ea.record();
      b = x + 2;
      eb.record();
      c = x + 3;
      ec.record();
    });
    ea.wait();
    y = a * 2;
    eb.wait();
    y = y + b;
    ec.wait();
    y = y + c;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.records("side") == 3);
  STATIC_REQUIRE(plan.waits("main") == 3);
  STATIC_REQUIRE(plan.kernel_count() == 6);
}

TEST_CASE("an inout mutated on a side stream and read on main", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto acc = p.inout<float>("acc");
    auto y = p.output<float>("y");
    auto side = p.stream("side");
    auto e = p.event("e");
    sd::with_stream(side, [&] {
      acc = acc * 2;
      e.record();
    });
    e.wait();
    y = acc + 1;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 2);
  STATIC_REQUIRE(plan.statements("side") == 1);  // inout work stays where the user put it
  STATIC_REQUIRE(plan.waits("main") == 1);
}

TEST_CASE("redundant waits are removed and the dump says so", "[scheduler]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto side = p.stream("side");
    auto e = p.event("e");
    sd::with_stream(side, [&] {
      a = x + 1;
      e.record();
    });
    e.wait();
    e.wait();  // already implied by the first wait
    b = a + 1;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.waits("main") == 1);
  STATIC_REQUIRE(plan.has_note("removed statement #3 `e.wait()` on stream 'main': already implied"));
}

TEST_CASE("fusion: four ops on one stream are one kernel", "[scheduler][fusion]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto c = p.output<float>("c");
    auto d = p.output<float>("d");
    a = x + 1;
    b = a * 2;
    c = x - 3;  // independent of a and b: horizontal fusion
    d = b + c;
  });
  STATIC_REQUIRE(prog.plan().kernel_count() == 1);
  constexpr auto unfused = sd::program<sd::no_fusion>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    a = x + 1;
    b = a * 2;
  });
  STATIC_REQUIRE(unfused.plan().kernel_count() == 2);
}

TEST_CASE("a domain change starts another kernel of the same launch; a dropped sync splits nothing",
          "[scheduler][fusion]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto m = p.domain("m");
    auto x = p.input<float>("x");
    auto u = p.input<float>("u", m);
    auto a = p.output<float>("a");
    auto b = p.output<float>("b", m);
    auto c = p.output<float>("c");
    auto e = p.event("e");
    a = x + 1;
    b = u * 2;   // another domain: another kernel, launched with the first
    c = a * 3;   // depends on #0: joins its kernel across the independent #1
    e.record();  // nothing waits: dropped, so ...
    c = c + 1;   // ... this joins too
  });
  STATIC_REQUIRE(prog.plan().kernel_count() == 2);
  STATIC_REQUIRE(prog.plan().launch_count() == 1);
  STATIC_REQUIRE(prog.plan().kernels[0].count == 3);
  STATIC_REQUIRE(prog.plan().has_note("regrouped out of program order"));
  constexpr auto separate = sd::program<sd::separate_launches>([](sd::builder& p) {
    auto m = p.domain("m");
    auto x = p.input<float>("x");
    auto u = p.input<float>("u", m);
    auto a = p.output<float>("a");
    auto b = p.output<float>("b", m);
    auto c = p.output<float>("c");
    a = x + 1;
    b = u * 2;
    c = a * 3;
  });
  STATIC_REQUIRE(separate.plan().kernel_count() == 3);
  STATIC_REQUIRE(separate.plan().launch_count() == 3);
}

// Three ops on each of two streams, then a join on main.
template <bool Temps>
constexpr auto two_chains() {
  return sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto out = p.output<float>("out");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    auto e1 = p.event("e1");
    auto e2 = p.event("e2");
    if constexpr (Temps) {
      auto a1 = p.temp<float>("a1");
      auto a2 = p.temp<float>("a2");
      auto a = p.temp<float>("a");
      auto b1 = p.temp<float>("b1");
      auto b2 = p.temp<float>("b2");
      auto b = p.temp<float>("b");
      sd::with_stream(s1, [&] {
        a1 = x * 2;
        a2 = a1 + 1;
        a = sd::relu(a2);
        e1.record();
      });
      sd::with_stream(s2, [&] {
        b1 = x * 3;
        b2 = b1 - 1;
        b = sd::abs(b2);
        e2.record();
      });
      e1.wait();
      e2.wait();
      out = a + b;
    } else {
      auto a1 = p.output<float>("a1");
      auto a2 = p.output<float>("a2");
      auto a = p.output<float>("a");
      auto b1 = p.output<float>("b1");
      auto b2 = p.output<float>("b2");
      auto b = p.output<float>("b");
      sd::with_stream(s1, [&] {
        a1 = x * 2;
        a2 = a1 + 1;
        a = sd::relu(a2);
        e1.record();
      });
      sd::with_stream(s2, [&] {
        b1 = x * 3;
        b2 = b1 - 1;
        b = sd::abs(b2);
        e2.record();
      });
      e1.wait();
      e2.wait();
      out = a + b;
    }
  });
}

TEST_CASE("two chains writing outputs plus a join: three kernels", "[scheduler][placement]") {
  constexpr auto prog = two_chains<false>();
  STATIC_REQUIRE(prog.plan().kernel_count() == 3);
  STATIC_REQUIRE(prog.plan().waits("main") == 2);
}

TEST_CASE("two chains of temps plus a join: one kernel, no syncs", "[scheduler][placement]") {
  constexpr auto prog = two_chains<true>();
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 1);
  STATIC_REQUIRE(plan.kernel_count("main") == 1);
  STATIC_REQUIRE(plan.sync_count() == 0);
  STATIC_REQUIRE(plan.slot_count() == 0);
  STATIC_REQUIRE(plan.storage_of("a") == sd::storage_register);
  STATIC_REQUIRE(plan.storage_of("b1") == sd::storage_register);
  STATIC_REQUIRE(plan.has_note("from stream 's1' into the kernel on 'main'"));
  STATIC_REQUIRE(plan.has_note("removed statement #"));
}

TEST_CASE("relaxed placement computes the seed's y and z in one kernel", "[scheduler][placement]") {
  constexpr auto body = [](sd::builder& p) {
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
  constexpr auto strict = sd::program(body);
  constexpr auto relaxed = sd::program<sd::relaxed>(body);
  STATIC_REQUIRE(strict.plan().kernel_count() == 2);
  STATIC_REQUIRE(relaxed.plan().kernel_count() == 1);
  STATIC_REQUIRE(relaxed.plan().statements("main") == 2);
  STATIC_REQUIRE(relaxed.plan().sync_count() == 0);
  STATIC_REQUIRE(relaxed.plan().has_note("moved `y = x + 1` from stream 'side'"));
}

// Issue 11.3: `t` moves from side into main's kernel; side then holds only
// its wait, which orders nothing any more, and main's record feeds only that.
constexpr auto side_emptied_by_placement = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto y = p.output<float>("y");
  auto t = p.temp<float>("t");
  auto side = p.stream("side");
  a = x + 1;
  sd::with_stream(side, [&] { t = a * 2; });
  y = t + 1;
};

TEST_CASE("a side stream emptied by placement keeps no syncs and no edges", "[scheduler][placement]") {
  constexpr auto prog = sd::program<sd::automatic>(side_emptied_by_placement);
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 1);
  STATIC_REQUIRE(plan.statements("main") == 3);
  STATIC_REQUIRE(plan.sync_count() == 0);
  STATIC_REQUIRE(plan.waits("side") == 0);
  STATIC_REQUIRE(plan.edge_count(sd::sync_role::entry) == 0);
  STATIC_REQUIRE(plan.edge_count(sd::sync_role::exit) == 0);
  STATIC_REQUIRE(plan.has_note("on stream 'side': nothing it ordered is left after moving work"));
}

TEST_CASE("user syncs of a side stream emptied by placement go too", "[scheduler][placement]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto y = p.output<float>("y");
    auto t = p.temp<float>("t");
    auto side = p.stream("side");
    auto e = p.event("e");
    auto f = p.event("f");
    a = x + 1;
    e.record();
    sd::with_stream(side, [&] {
      e.wait();
      t = a * 2;
      f.record();
    });
    f.wait();
    y = t + 1;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 1);
  STATIC_REQUIRE(plan.sync_count() == 0);
  STATIC_REQUIRE(plan.edge_count(sd::sync_role::entry) == 0);
  STATIC_REQUIRE(plan.edge_count(sd::sync_role::exit) == 0);
  STATIC_REQUIRE(plan.has_note("removed statement #2 `e.wait()` on stream 'side'"));
}

TEST_CASE("a wait on an emptied stream that relays an order is kept", "[scheduler][placement]") {
  // s1 -> side -> main: after `t` moves to main, side's wait for e is what
  // orders `a = x + 1` before main reads a (through f).
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto y = p.output<float>("y");
    auto t = p.temp<float>("t");
    auto s1 = p.stream("s1");
    auto side = p.stream("side");
    auto e = p.event("e");
    auto f = p.event("f");
    sd::with_stream(s1, [&] {
      a = x + 1;
      e.record();
    });
    sd::with_stream(side, [&] {
      e.wait();
      t = a * 2;
      f.record();
    });
    f.wait();
    y = t + a;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 2);
  STATIC_REQUIRE(plan.statements("side") == 0);
  STATIC_REQUIRE(plan.waits("side") == 1);
  STATIC_REQUIRE(plan.records("side") == 1);
  STATIC_REQUIRE(plan.waits("main") == 1);
}

TEST_CASE("sd::as_written moves nothing, temps included, and the dump says so", "[scheduler][placement]") {
  // The program of issue 11.3: under sd::automatic `t` moves into main's kernel.
  constexpr auto placed = sd::program<sd::automatic>(side_emptied_by_placement).plan();
  constexpr auto written = sd::program<sd::automatic | sd::as_written>(side_emptied_by_placement).plan();
  STATIC_REQUIRE(placed.statements("side") == 0);
  STATIC_REQUIRE(written.statements("side") == 1);
  STATIC_REQUIRE(written.statements("main") == 2);
  STATIC_REQUIRE(written.kernel_count() == 3);
  STATIC_REQUIRE(written.waits("side") == 1);
  STATIC_REQUIRE(written.waits("main") == 1);
  STATIC_REQUIRE(written.storage_of("t") == 0);  // a workspace slot: written on side, read on main
  STATIC_REQUIRE(!written.has_note("moved"));
  STATIC_REQUIRE(dump_has(sd::program<sd::automatic | sd::as_written>(side_emptied_by_placement),
                          "placement as written (sd::as_written): every statement runs on the stream it "
                          "was written on"));
  // Combined with other options: of two placement policies the later wins.
  STATIC_REQUIRE((sd::relaxed | sd::as_written).placement == sd::placement_policy::as_written);
  STATIC_REQUIRE((sd::as_written | sd::automatic).placement == sd::placement_policy::as_written);
  STATIC_REQUIRE((sd::as_written | sd::automatic).sync == sd::sync_policy::automatic);
}

TEST_CASE("sd::as_written on a program with no statement to place", "[scheduler][placement]") {
  // Its note comes on top of one per statement: the plan's bounds leave room for it.
  constexpr auto prog = sd::program<sd::as_written>([](sd::builder& p) {
    auto e = p.event("e");
    e.record();
  });
  STATIC_REQUIRE(prog.plan().note_count() == 2);
  STATIC_REQUIRE(prog.plan().kernel_count() == 0);
}

TEST_CASE("a temp read by two kernels stays in memory", "[scheduler][memory]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto t = p.temp<float>("t");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    auto e = p.event("e");
    t = x * 2;
    e.record();
    sd::with_stream(s1, [&] {
      e.wait();
      a = t + 1;
    });
    sd::with_stream(s2, [&] {
      e.wait();
      b = t + 2;
    });
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 3);
  STATIC_REQUIRE(plan.storage_of("t") == 0);
  STATIC_REQUIRE(plan.slot_count() == 1);
  constexpr std::size_t extents[] = {1000};
  STATIC_REQUIRE(plan.workspace_bytes(extents) == 4096);  // 4000 bytes, 256-aligned
}
