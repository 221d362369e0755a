// happens_before and find_race, each run alone on a program's IR.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

using sd::passes::happens_before;

// Statement indices below are the program's own (program order).
constexpr auto pipeline = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto b = p.output<float>("b");
  auto s1 = p.stream("s1");
  auto e = p.event("e");
  sd::with_stream(s1, [&] {
    a = x + 1;   // #0
    e.record();  // #1
  });
  b = x * 2;  // #2 (main, concurrent with #0)
  e.wait();   // #3
  b = a + b;  // #4 (after #0 through e)
};

constexpr bool ordered(auto program, int a, int b) {
  const auto ir = sd::build_ir(program);
  return happens_before(ir.stmts, ir.streams.size()).ordered(a, b);
}

}  // namespace

TEST_CASE("happens_before: program order, event edges, transitivity", "[passes][happens_before]") {
  STATIC_REQUIRE(ordered(pipeline, 0, 1));   // program order on s1
  STATIC_REQUIRE(ordered(pipeline, 2, 4));   // program order on main
  STATIC_REQUIRE(ordered(pipeline, 0, 4));   // through the event
  STATIC_REQUIRE(!ordered(pipeline, 0, 2));  // before the wait: concurrent
  STATIC_REQUIRE(!ordered(pipeline, 2, 0));
  STATIC_REQUIRE(!ordered(pipeline, 4, 0));  // never backwards
}

TEST_CASE("happens_before: a wait binds to the latest preceding record", "[passes][happens_before]") {
  constexpr auto rerecord = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto c = p.output<float>("c");
    auto s1 = p.stream("s1");
    auto e = p.event("e");
    sd::with_stream(s1, [&] {
      e.record();  // #0
      a = x + 1;   // #1
      e.record();  // #2 (rebinds e)
      c = x + 2;   // #3 (after the second record)
    });
    e.wait();  // #4 binds to #2
    auto y = p.output<float>("y");
    y = a * 2;  // #5
    (void)y;
  };
  STATIC_REQUIRE(ordered(rerecord, 1, 5));
  STATIC_REQUIRE(!ordered(rerecord, 3, 5));
  STATIC_REQUIRE(sd::build_ir(rerecord).stmts[4].binds == 2);
}

TEST_CASE("happens_before: wait_stream orders everything issued so far", "[passes][happens_before]") {
  constexpr auto ws = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto s1 = p.stream("s1");
    sd::with_stream(s1, [&] { a = x + 1; });  // #0
    p.main_stream().wait_stream(s1);          // #1
    b = a * 2;                                // #2
  };
  STATIC_REQUIRE(ordered(ws, 0, 2));
}

TEST_CASE("find_race: reports the first unordered conflict", "[passes][races]") {
  constexpr auto racy = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto z = p.output<float>("z");
    auto side = p.stream("side");
    sd::with_stream(side, [&] { y = x + 1; });
    z = y * 2;
  };
  constexpr auto r = [] {
    const auto ir = sd::build_ir(racy);
    return sd::passes::find_race(sd::ir::view_of(ir));
  }();
  STATIC_REQUIRE(r.buffer == 1);  // y
  STATIC_REQUIRE(r.first == 0);
  STATIC_REQUIRE(r.second == 1);
  STATIC_REQUIRE(r.first_writes);
  STATIC_REQUIRE(!r.second_writes);
  STATIC_REQUIRE([] {
    const auto ir = sd::build_ir(racy);
    const auto v = sd::ir::view_of(ir);
    return sd::passes::describe_race(v, sd::passes::find_race(v))
        .contains("race (read-after-write) on buffer 'y'");
  }());
  STATIC_REQUIRE(sd::passes::find_race(sd::ir::view_of(sd::build_ir(pipeline))).buffer == -1);
}

namespace {
template <class F>
constexpr std::size_t race_count(F body) {
  const auto ir = sd::build_ir(body);
  return sd::passes::find_races(sd::ir::view_of(ir)).size();
}
template <class F>
constexpr bool races_message_has(F body, std::string_view part) {
  const auto ir = sd::build_ir(body);
  const auto v = sd::ir::view_of(ir);
  const auto t = sd::passes::describe_races(v, sd::passes::find_races(v));
  return t.size() <= sd::diag::message_capacity && t.contains(part);
}

// Main reads what s1 and s2 write: two missing waits.
constexpr auto fan_in = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto b = p.output<float>("b");
  auto c = p.output<float>("c");
  auto s1 = p.stream("s1");
  auto s2 = p.stream("s2");
  sd::with_stream(s1, [&] { a = x + 1; });
  sd::with_stream(s2, [&] { b = x * 2; });
  c = a + b;
};
}  // namespace

TEST_CASE("find_races: every race, each needing its own sync", "[passes][races]") {
  STATIC_REQUIRE(race_count(fan_in) == 2);
  STATIC_REQUIRE(races_message_has(fan_in, "2 races; the first: race (read-after-write) on buffer 'a'"));
  STATIC_REQUIRE(races_message_has(fan_in, "the other: 'b' written by #1 on 's2', read by #2 on 'main'"));
  STATIC_REQUIRE(race_count(pipeline) == 0);
}

TEST_CASE("find_races: one missing wait is one race, however many statements it leaves unordered",
          "[passes][races]") {
  // Three reads of y on main: one wait before the first orders all three.
  constexpr auto reads = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto c = p.output<float>("c");
    auto side = p.stream("side");
    sd::with_stream(side, [&] { y = x + 1; });
    a = y * 2;
    b = y * 3;
    c = y + a;
  };
  STATIC_REQUIRE(race_count(reads) == 1);
  // left's write reaches main through right once right waits for left: two
  // races (left/right, right/main), not three.
  constexpr auto chain = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto t = p.temp<float>("t");
    auto y = p.output<float>("y");
    auto left = p.stream("left");
    auto right = p.stream("right");
    sd::with_stream(left, [&] { t = x + 1; });
    sd::with_stream(right, [&] { t = x * 2; });
    y = t;
  };
  STATIC_REQUIRE(race_count(chain) == 2);
}

TEST_CASE("find_races: more races than the message holds are counted", "[passes][races]") {
  // Thirty rounds of a write on s1 and one on main: each write races with the one before it.
  constexpr auto ping_pong = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto s1 = p.stream("s1");
    for (int i = 0; i < 30; ++i) {
      sd::with_stream(s1, [&] { a = x + 1; });
      a = x * 2;
    }
  };
  STATIC_REQUIRE(race_count(ping_pong) == 59);
  STATIC_REQUIRE(races_message_has(ping_pong, "59 races; the first: race (write-after-write) on buffer 'a'"));
  STATIC_REQUIRE(races_message_has(ping_pong, "'a' written by #1 on 'main', written by #2 on 's1'; "));
  STATIC_REQUIRE(races_message_has(ping_pong, " more; or use sd::program<sd::automatic>(...)"));
}

TEST_CASE("find_races: when no other race fits, the message counts them without an empty list",
          "[passes][races]") {
  // Long names: the first race in full leaves no room for the second, which
  // is counted. The message read "...; the other: and 1 more; or use ...".
  constexpr auto long_names = [](sd::builder& p) {
    auto side = p.stream("a_rather_long_side_stream_name_for_testing");
    auto x0 = p.input<float>("buffer_with_a_long_name_number_0_in");
    auto y0 = p.output<float>("buffer_with_a_long_name_number_0");
    auto z0 = p.output<float>("buffer_with_a_long_name_number_0_out");
    auto x1 = p.input<float>("buffer_with_a_long_name_number_1_in");
    auto y1 = p.output<float>("buffer_with_a_long_name_number_1");
    auto z1 = p.output<float>("buffer_with_a_long_name_number_1_out");
    sd::with_stream(side, [&] { y0 = x0 + 1; });
    z0 = y0 * 2;
    sd::with_stream(side, [&] { y1 = x1 + 1; });
    z1 = y1 * 2;
  };
  STATIC_REQUIRE(race_count(long_names) == 2);
  STATIC_REQUIRE(races_message_has(long_names, "2 races; the first: race (read-after-write)"));
  STATIC_REQUIRE(races_message_has(long_names, "#1; and 1 more; or use sd::program<sd::automatic>(...)"));
  STATIC_REQUIRE(!races_message_has(long_names, ": and 1 more"));
}
