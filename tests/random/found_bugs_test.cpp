// Minimal reproducers of bugs the random-program tester found, kept as
// regression tests once fixed.
#include <catch2/catch.hpp>

#include <streamdsl/streamdsl.hpp>

namespace {

// builder_state::where passed a domain where join_domain expects a node:
// where(c, 1.0f, 2.0f) read nodes[-1] (not a constant expression, so the
// program did not compile; out of bounds at run time), and a condition over
// another domain than the branches was not reported.
constexpr auto where_of_literals = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = sd::where(x > 0, 1.0f, 2.0f);
});

}  // namespace

TEST_CASE("found: where with two literal branches compiles", "[random][found]") {
  STATIC_REQUIRE(where_of_literals.plan().kernel_count() == 1);
}

TEST_CASE("found: where checks the condition's domain against the branches'", "[random][found]") {
  sd::builder b;
  auto m = b.domain("m");
  auto w = b.input<float>("w", m);
  auto x = b.input<float>("x");
  auto z = b.output<float>("z", m);
  z = sd::where(x > 0, w, w);  // condition over n, branches over m
  REQUIRE(!b.ir.errors.empty());
  CHECK(b.ir.errors[0].kind == sd::diag::error_kind::domain_mismatch);
  CHECK(b.ir.errors[0].message.contains("combines 'x > 0' over domain 'n' with 'w' over domain 'm'"));
}
