// The tutorial's code (docs/tutorial.md): every ```cpp block of the tutorial
// appears verbatim between the SNIPPET markers below (check_snippets.py
// enforces it), so the documentation always compiles and runs.
#include <catch2/catch.hpp>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

namespace tutorial {
// SNIPPET: seed
constexpr auto seed = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;   // runs on the side stream
    e.record();  // record on the side stream
  });
  e.wait();   // the main stream waits for e
  z = y * 2;  // consumer on the main stream
});
// END SNIPPET

// SNIPPET: static-checks
static_assert(seed.plan().kernel_count() == 2);
static_assert(seed.plan().records("side") == 1);
static_assert(seed.plan().waits("main") == 1);
static_assert(seed.plan().sequence("main").view() == "wait e, k1");
static_assert(seed.plan().wait_binds_to("main", 0).view() == "record e on side");
// END SNIPPET

// SNIPPET: automatic
constexpr auto auto_seed = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  sd::with_stream(side, [&] { y = x + 1; });
  z = y * 2;  // sd::automatic inserts the record and the wait
});
static_assert(auto_seed.plan().waits("main") == 1);
// END SNIPPET

// SNIPPET: temps
constexpr auto two_chains = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto out = p.output<float>("out");
  auto a = p.temp<float>("a");
  auto b = p.temp<float>("b");
  auto s1 = p.stream("s1");
  auto s2 = p.stream("s2");
  auto e1 = p.event("e1");
  auto e2 = p.event("e2");
  sd::with_stream(s1, [&] {
    a = sd::relu(x * 2 + 1);
    e1.record();
  });
  sd::with_stream(s2, [&] {
    b = sd::abs(x * 3 - 1);
    e2.record();
  });
  e1.wait();
  e2.wait();
  out = a + b;
});
// Temps belong to the compiler: both chains are computed inside the join's
// kernel, which reads x once; the syncs that guarded them are gone.
static_assert(two_chains.plan().kernel_count() == 1);
static_assert(two_chains.plan().sync_count() == 0);
// END SNIPPET

// SNIPPET: params
constexpr auto saxpy = sd::program([](sd::builder& p) {
  auto a = p.param<float>("a");
  auto x = p.input<float>("x");
  auto y = p.inout<float>("y");
  y = a * x + y;
});
// END SNIPPET
}  // namespace tutorial

TEST_CASE("tutorial: running the seed on the host executor", "[docs]") {
  using namespace tutorial;
  // SNIPPET: run-host
  std::vector<float> x = {1, 2, 3}, y(3), z(3);
  sd::host_executor ex;
  ex.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
  // y == {2, 3, 4}, z == {4, 6, 8}
  // END SNIPPET
  CHECK(y == std::vector<float>{2, 3, 4});
  CHECK(z == std::vector<float>{4, 6, 8});
}

TEST_CASE("tutorial: params and inouts", "[docs]") {
  using namespace tutorial;
  // SNIPPET: run-saxpy
  std::vector<float> x = {1, 2}, y = {10, 20};
  sd::host_executor ex;
  ex.run(saxpy, sd::bind("a", 2.0f), sd::bind("x", x), sd::bind("y", y));
  // y == {12, 24}
  // END SNIPPET
  CHECK(y == std::vector<float>{12, 24});
  std::vector<float> xs = {1}, ys = {1}, zs = {1};
  ex.run(auto_seed, sd::bind("x", xs), sd::bind("y", ys), sd::bind("z", zs));
  CHECK(zs[0] == 4);
  std::vector<float> out(2), in = {1, -1};
  ex.run(two_chains, sd::bind("x", in), sd::bind("out", out));
  CHECK(out[0] == 3 + 2);
  CHECK(out[1] == 0 + 4);
}
