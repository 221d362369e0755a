// Expression templates: static types of expressions, and the IR they build.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
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

TEST_CASE("the types of %, fmod, pow, the rounding and transcendental functions and the bitwise operators",
          "[expr]") {
  sd::builder p;
  auto x = p.input<float>("x");
  auto d = p.input<double>("d");
  auto i = p.input<std::int32_t>("i");
  auto l = p.input<std::int64_t>("l");
  auto b = p.input<bool>("b");
  auto s = p.param<std::int64_t>("s");
  // % keeps the integers' common type; a literal is weak
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(i % 3)>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(i % l)>, std::int64_t>);
  STATIC_REQUIRE(
      std::is_same_v<value_of<decltype(i % s)>, std::int32_t>);  // a 0-d value is weaker than a buffer
  STATIC_REQUIRE(std::is_same_v<decltype(s % 2), sd::expr<std::int64_t, sd::strength::scalar>>);
  // fmod and pow: the operands' common type, integers included
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::fmod(x, d))>, double>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::fmod(i, 4))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::pow(x, 2))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::pow(i, 2))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::pow(i, 0.5))>, float>);
  // floor, ceil, round of an integer are the integer
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::floor(x))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::ceil(d))>, double>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::round(i))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::floor(l))>, std::int64_t>);
  // the transcendentals of integers are float
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::erf(i))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::gelu(x))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::gelu_tanh(d))>, double>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::exp2(l))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(sd::log1p(x))>, float>);
  // bitwise: integers, or bools (logical); shifts keep the common type
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(i & 0xff)>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(i | l)>, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(b ^ b)>, bool>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(b & i)>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(~b)>, bool>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(~l)>, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(l << 3)>, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<value_of<decltype(i >> l)>, std::int64_t>);
  CHECK(p.ir().ok());
}

namespace {
struct reported {
  sd::diag::error_kind kind = sd::diag::error_kind::none;
  std::string message;
};
// The first error the front end reports for the statements `f` writes.
template <class F>
reported first_error(F f) {
  sd::builder p;
  auto x = p.input<float>("x");
  auto i = p.input<std::int32_t>("i");
  auto b = p.input<bool>("b");
  auto y = p.output<float>("y");
  f(x, i, b, y);
  if (p.ir().ok()) return {};
  const auto& e = p.ir().errors[0];
  return {e.kind, std::string(e.message.view().data(), e.message.view().size())};
}
}  // namespace

TEST_CASE("bitwise operators, shifts and % refuse the operand types they do not take", "[expr]") {
  using Catch::Matchers::Contains;
  using sd::diag::error_kind;
  const auto float_and = first_error([](auto x, auto i, auto, auto y) { y = sd::cast<float>(i & x); });
  CHECK(float_and.kind == error_kind::bitwise_on_non_integer);
  CHECK_THAT(float_and.message,
             Contains("needs integer or bool operands for bitwise '&', and 'x' is float; cast "
                      "it first, e.g. `sd::cast<int32_t>(x)`"));
  const auto float_rem = first_error([](auto x, auto i, auto, auto y) { y = x % i; });
  CHECK(float_rem.kind == error_kind::remainder_of_non_integer);
  CHECK_THAT(float_rem.message,
             Contains("needs integer operands for '%', and 'x' is float; for the remainder of "
                      "floats write `sd::fmod(x, i)`"));
  const auto literal_rem = first_error([](auto, auto i, auto, auto y) { y = i % 2.5; });
  CHECK(literal_rem.kind == error_kind::remainder_of_non_integer);
  CHECK_THAT(literal_rem.message, Contains("'2.5' is double"));
  const auto bool_rem = first_error([](auto, auto, auto b, auto y) { y = sd::cast<float>(b % b); });
  CHECK(bool_rem.kind == error_kind::remainder_of_non_integer);
  CHECK_THAT(bool_rem.message, Contains("'b' is bool; cast it first"));
  const auto bool_shift = first_error([](auto, auto i, auto b, auto y) { y = sd::cast<float>(i << b); });
  CHECK(bool_shift.kind == error_kind::bitwise_on_non_integer);
  CHECK_THAT(bool_shift.message, Contains("needs integer operands for shift '<<', and 'b' is bool"));
  const auto float_not = first_error([](auto x, auto, auto, auto y) { y = ~x; });
  CHECK(float_not.kind == error_kind::bitwise_on_non_integer);
  CHECK_THAT(float_not.message, Contains("the expression `~x`"));
  const auto fine = first_error(
      [](auto, auto i, auto b, auto y) { y = sd::cast<float>((i & b) | (b ^ b) | ~b | (i % 3 << 2) >> i); });
  CHECK(fine.kind == error_kind::none);
}
