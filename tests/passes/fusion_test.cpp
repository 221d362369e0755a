// fuse_runs alone, on a program's IR as built: runs of one stream and one
// domain with no sync between them become one kernel each.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

using sd::passes::fuse_runs;

constexpr auto partition_of(auto body, bool fuse = true) {
  const auto ir = sd::build_ir(body);
  return fuse_runs(sd::ir::view_of(ir), fuse);
}

// #0..#2 on main, one domain: one kernel of three statements.
constexpr auto chain = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto t = p.temp<float>("t");
  auto u = p.temp<float>("u");
  t = x + 1;  // #0
  u = t * 2;  // #1
  y = u - t;  // #2
};

}  // namespace

TEST_CASE("fusion: a chain on one stream is one kernel", "[passes][fusion]") {
  STATIC_REQUIRE(partition_of(chain).kernels.size() == 1);
  STATIC_REQUIRE(partition_of(chain).kernels[0].count == 3);
  STATIC_REQUIRE(partition_of(chain).issue_before[0] == 3);  // after the last statement
  STATIC_REQUIRE(partition_of(chain).kernel_of[2] == 0);
}

TEST_CASE("fusion: without fusion every statement is a kernel", "[passes][fusion]") {
  STATIC_REQUIRE(partition_of(chain, false).kernels.size() == 3);
  STATIC_REQUIRE(partition_of(chain, false).kernel_of[2] == 2);
}

TEST_CASE("fusion: a sync and a change of domain end a run", "[passes][fusion]") {
  constexpr auto split = [](sd::builder& p) {
    auto d = p.domain("d");
    auto x = p.input<float>("x");
    auto xd = p.input<float>("xd", d);
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto c = p.output<float>("c", d);
    auto e = p.event("e");
    a = x + 1;   // #0 kernel 0
    e.record();  // #1 ends the run
    b = x * 2;   // #2 kernel 1
    c = xd - 1;  // #3 kernel 2: another domain
  };
  STATIC_REQUIRE(partition_of(split).kernels.size() == 3);
  STATIC_REQUIRE(partition_of(split).issue_before[0] == 1);  // issued before the record
  STATIC_REQUIRE(partition_of(split).kernel_of[1] == -1);    // the record is no kernel
  STATIC_REQUIRE(partition_of(split).kernel_of[2] == 1);
  STATIC_REQUIRE(partition_of(split).kernel_of[3] == 2);
  STATIC_REQUIRE(partition_of(split).kernels[2].domain != partition_of(split).kernels[1].domain);
}

TEST_CASE("fusion: runs left open close in the order of their last statements", "[passes][fusion]") {
  constexpr auto interleaved = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto c = p.output<float>("c");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    sd::with_stream(s1, [&] { a = x + 1; });  // #0 s1
    b = x * 2;                                // #1 main
    sd::with_stream(s1, [&] { a = a + 3; });  // #2 s1: s1's run ends last but one
    sd::with_stream(s2, [&] { c = x - 1; });  // #3 s2
  };
  STATIC_REQUIRE(partition_of(interleaved).kernels.size() == 3);
  STATIC_REQUIRE(partition_of(interleaved).kernels[0].stream == 0);  // main: last statement #1
  STATIC_REQUIRE(partition_of(interleaved).kernels[1].stream == 1);  // s1: #2
  STATIC_REQUIRE(partition_of(interleaved).kernels[1].count == 2);
  STATIC_REQUIRE(partition_of(interleaved).kernels[2].stream == 2);  // s2: #3
}
