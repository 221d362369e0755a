// Expression templates: static types of expressions, and the IR they build.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>
#include <type_traits>

namespace {

template <class E>
using value_of = typename E::value_type;

constexpr auto all_ops = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto d = p.input<double>("d");
  auto i = p.input<std::int32_t>("i");
  auto alpha = p.param<float>("alpha");
  auto y = p.output<float>("y");
  auto w = p.output<double>("w");
  auto b = p.output<bool>("b");
  auto k = p.output<std::int64_t>("k");
  y = -x + x - x * x / (x + 1);
  y = sd::min(x, 2) + sd::max(x, alpha) + sd::abs(x) + sd::exp(x) + sd::log(x) + sd::sqrt(x);
  y = sd::rsqrt(x) + sd::sin(x) + sd::cos(x) + sd::tanh(x) + sd::sigmoid(x) + sd::relu(x);
  w = x * d;
  b = (x < 1) && (x <= 2) || !(x > 3) && (x >= 4) && (x == 5) && (x != 6);
  y = sd::where(x > 0, x, 0);
  y = sd::cast<float>(d * 2.5);
  k = i + std::int64_t{3};
  y *= alpha;
  y += i;
});

constexpr auto text = [] { return sd::dump(all_ops.plan()); };

}  // namespace

TEST_CASE("expression types follow the promotion rules", "[expr]") {
  sd::builder p;
  auto x = p.input<float>("x");
  auto d = p.input<double>("d");
  auto i = p.input<std::int32_t>("i");
  auto alpha = p.param<double>("alpha");
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(x + 1)>, float>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(x * 2.5)>, float>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(x * d)>, double>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(i * 2.5)>, float>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(i + 1)>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(x * alpha)>, float>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(x < 1)>, bool>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::exp(i))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::cast<double>(x))>, double>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::where(x > 0, x, 0))>, float>);
  CHECK(p.ir().ok());
}

TEST_CASE("every operator builds a statement that prints back", "[expr]") {
  constexpr auto plan = all_ops.plan();
  STATIC_REQUIRE(plan.kernel_count() == 1);  // one stream, one domain: one fused kernel
  STATIC_REQUIRE(plan.statements("main") == 10);
  STATIC_REQUIRE(text().contains("y = -x + x - x * x / (x + 1);"));
  STATIC_REQUIRE(text().contains("y = min(x, 2) + max(x, alpha) + abs(x) + exp(x) + log(x) + sqrt(x);"));
  STATIC_REQUIRE(text().contains("w = x * d;"));
  STATIC_REQUIRE(text().contains("b = x < 1 && x <= 2 || !(x > 3) && x >= 4 && x == 5 && x != 6;"));
  STATIC_REQUIRE(text().contains("y = where(x > 0, x, 0);"));
  STATIC_REQUIRE(text().contains("y = cast<float>(d * 2.5);"));
  STATIC_REQUIRE(text().contains("y = y * alpha;"));
}
