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
