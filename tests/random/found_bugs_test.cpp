// Minimal reproducers of bugs the random-program tester found, kept as
// regression tests once fixed.
#include <catch2/catch.hpp>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

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
  REQUIRE(!b.ir().errors.empty());
  CHECK(b.ir().errors[0].kind == sd::diag::error_kind::domain_mismatch);
  CHECK(b.ir().errors[0].message.contains("combines `x > 0` over domain 'n' with `w` over domain 'm'"));
}

namespace {
// A register temp whose column reused the freed input column of the
// instruction computing it, under another type (found by the random tester,
// seed 658): the host executor wrote the temp over its own input.
constexpr auto column_reuse = sd::program([](sd::builder& p) {
  auto c = p.inout<std::int64_t>("c");
  auto t = p.temp<double>("t");
  t = sd::cast<double>(sd::abs(c) / 1.0);
  c = sd::cast<std::int64_t>(t);
});
}  // namespace

TEST_CASE("found: a register temp does not overwrite its own input column", "[random][found]") {
  std::vector<std::int64_t> c = {-5, -721, 3};
  sd::host_executor ex;
  ex.run(column_reuse, sd::bind("c", c));
  CHECK(c == std::vector<std::int64_t>{5, 721, 3});
}
