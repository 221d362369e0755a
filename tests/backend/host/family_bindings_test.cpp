// Binding families (p.inputs<T>("x", k)) and buffers in host memory spaces on
// the host executor: a family binds from one container of spans, of
// containers, of (pointer, extent) pairs or of pointers with one extent; a
// member binds alone as "x[i]"; a family bound with the wrong number of
// members is a binding_error naming the family, before anything runs. The
// host executor cannot tell memory spaces apart: it accepts any memory.
#include <array>
#include <catch2/catch.hpp>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <streamdsl/backend/host/host_executor.hpp>
#include <string>
#include <utility>
#include <vector>

#include "host_test_support.hpp"

namespace {

using Catch::Matchers::Contains;

constexpr int k = 3;
constexpr std::size_t n = 16;
constexpr float untouched = -5.0f;

constexpr auto program = sd::program([](sd::builder& p) {
  auto x = p.inputs<float>("x", k);
  auto y = p.outputs<float>("y", k);
  auto scale = p.input<float, sd::pinned>("scale_h");  // bound, never read by a statement
  auto lanes = p.streams("lane", k);
  for (int i = 0; i < k; ++i) sd::with_stream(lanes[i], [&] { y[i] = x[i] * static_cast<float>(i + 1); });
  (void)scale;
});

struct fixture {
  std::vector<std::vector<float>> x;
  std::vector<std::vector<float>> y;
  std::vector<float> scale_h = std::vector<float>(n, 1.0f);
  fixture() {
    for (int i = 0; i < k; ++i) {
      x.push_back(host_test::ramp<float>(n, static_cast<float>(i), 1.0f));
      y.emplace_back(n, untouched);
    }
  }
  bool outputs_untouched() const {
    for (const auto& v : y)
      for (float e : v)
        if (e != untouched) return false;
    return true;
  }
  bool outputs_right() const {
    for (int i = 0; i < k; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (y[static_cast<std::size_t>(i)][j] !=
            x[static_cast<std::size_t>(i)][j] * static_cast<float>(i + 1))
          return false;
    return true;
  }
};

std::string error_of(const std::vector<sd::binding>& bindings) {
  sd::host_executor ex;
  try {
    ex.run(program, bindings);
  } catch (const sd::binding_error& e) {
    return e.what();
  }
  return {};
}

void expect_error(const fixture& f, const std::vector<sd::binding>& bindings,
                  std::initializer_list<std::string> parts) {
  const auto message = error_of(bindings);
  INFO("message: " << message);
  REQUIRE(!message.empty());
  for (const auto& part : parts) CHECK_THAT(message, Contains(part));
  CHECK(f.outputs_untouched());
}

}  // namespace

TEST_CASE("a family binds from a container of containers, spans, pairs or pointers",
          "[host][bindings][family]") {
  sd::host_executor ex;
  SECTION("containers (named), spans (a temporary container of them is fine)") {
    fixture f;
    std::vector<std::span<float>> ys(f.y.begin(), f.y.end());
    ex.run(program, sd::bind("x", f.x), sd::bind("y", ys), sd::bind("scale_h", f.scale_h));
    CHECK(f.outputs_right());
  }
  SECTION("(pointer, extent) pairs and a C array of const spans") {
    fixture f;
    std::span<const float> xs[k] = {f.x[0], f.x[1], f.x[2]};
    std::vector<std::pair<float*, std::size_t>> ys;
    for (auto& v : f.y) ys.emplace_back(v.data(), v.size());
    ex.run(program, sd::bind("x", xs), sd::bind("y", ys), sd::bind("scale_h", f.scale_h));
    CHECK(f.outputs_right());
  }
  SECTION("pointers with one extent, and a temporary span of a std::vector of vectors") {
    fixture f;
    std::array<const float*, k> xs{f.x[0].data(), f.x[1].data(), f.x[2].data()};
    ex.run(program, sd::bind("x", xs, n), sd::bind("y", std::span(f.y)), sd::bind("scale_h", f.scale_h));
    CHECK(f.outputs_right());
  }
  SECTION("members one by one, as x[i]") {
    fixture f;
    ex.run(program, sd::bind("x", f.x), sd::bind("y[0]", f.y[0]), sd::bind("y[1]", f.y[1]),
           sd::bind("y[2]", f.y[2]), sd::bind("scale_h", f.scale_h));
    CHECK(f.outputs_right());
  }
}

TEST_CASE("a family bound with the wrong number of members is an error naming the family",
          "[host][bindings][family]") {
  fixture f;
  std::vector<std::span<float>> two(f.y.begin(), f.y.begin() + 2);
  expect_error(f, {sd::bind("x", f.x), sd::bind("y", two), sd::bind("scale_h", f.scale_h)},
               {"bad binding: output buffer family 'y' (3 members, float, domain 'n') is bound to 2 members; "
                "bind exactly one span (or pointer and extent) per member, y[0] to y[2], in order"});
  std::vector<std::vector<float>> four(4, std::vector<float>(n));
  expect_error(f, {sd::bind("x", four), sd::bind("y", f.y), sd::bind("scale_h", f.scale_h)},
               {"input buffer family 'x' (3 members, float, domain 'n') is bound to 4 members"});
}

TEST_CASE("a missing family is one line; a missing member is named", "[host][bindings][family]") {
  fixture f;
  expect_error(f, {sd::bind("x", f.x), sd::bind("scale_h", f.scale_h)},
               {"bad binding: missing binding for output buffer family 'y' (3 members, float, domain 'n')"});
  const auto message = error_of({sd::bind("x", f.x), sd::bind("scale_h", f.scale_h)});
  CHECK_THAT(message, !Contains("y[0]"));
  expect_error(f,
               {sd::bind("x", f.x), sd::bind("y[0]", f.y[0]), sd::bind("y[2]", f.y[2]),
                sd::bind("scale_h", f.scale_h)},
               {"bad binding: missing binding for output buffer 'y[1]' (float, domain 'n')"});
  expect_error(f, {sd::bind("x", f.x), sd::bind("y", f.y)},
               {"missing binding for input buffer 'scale_h' (float, domain 'n', pinned host memory)"});
}

TEST_CASE("members of one domain agree in extent; the message names the member", "[host][bindings][family]") {
  fixture f;
  std::vector<float> shorter(n - 1);
  std::vector<std::span<const float>> xs{f.x[0], shorter, f.x[2]};
  expect_error(
      f, {sd::bind("x", xs), sd::bind("y", f.y), sd::bind("scale_h", f.scale_h)},
      {"buffers of domain 'n' must have one extent, but 'x[0]' is bound to 16 elements and 'x[1]' to 15"});
}

TEST_CASE("per-member problems name the member; whole-family ones the family", "[host][bindings][family]") {
  fixture f;
  std::vector<std::pair<float*, std::size_t>> ys{{f.y[0].data(), n}, {nullptr, n}, {f.y[2].data(), n}};
  expect_error(f, {sd::bind("x", f.x), sd::bind("y", ys), sd::bind("scale_h", f.scale_h)},
               {"output buffer 'y[1]' (float, domain 'n') is bound to a null pointer with 16 elements"});
  std::vector<std::vector<double>> xd(k, std::vector<double>(n));
  expect_error(f, {sd::bind("x", xd), sd::bind("y", f.y), sd::bind("scale_h", f.scale_h)},
               {"input buffer family 'x' (3 members, float, domain 'n') is bound to double data; bind float "
                "elements"});
  const auto& frozen = f.y;
  expect_error(
      f, {sd::bind("x", f.x), sd::bind("y", frozen), sd::bind("scale_h", f.scale_h)},
      {"output buffer family 'y' (3 members, float, domain 'n') is bound to read-only (const) memory"});
  std::vector<std::span<float>> aliased{f.y[0], f.y[0], f.y[2]};
  expect_error(f, {sd::bind("x", f.x), sd::bind("y", aliased), sd::bind("scale_h", f.scale_h)},
               {"buffers 'y[0]' and 'y[1]' overlap in memory"});
}

TEST_CASE("families and single buffers are not interchangeable; a member is bound once",
          "[host][bindings][family]") {
  fixture f;
  expect_error(
      f, {sd::bind("x", f.x[0]), sd::bind("y", f.y), sd::bind("scale_h", f.scale_h)},
      {"input buffer family 'x' (3 members, float, domain 'n') is bound to one buffer's memory; bind "
       "one piece of memory per member: sd::bind(\"x\", members)",
       "sd::bind(\"x[0]\", ...)"});
  std::vector<std::vector<float>> one{f.scale_h};
  expect_error(
      f, {sd::bind("x", f.x), sd::bind("y", f.y), sd::bind("scale_h", one)},
      {"input buffer 'scale_h' (float, domain 'n', pinned host memory) is a single buffer, but is bound "
       "to a family of 1 member; bind its memory with sd::bind(\"scale_h\", data)"});
  expect_error(
      f, {sd::bind("x", f.x), sd::bind("y", f.y), sd::bind("y[1]", f.y[1]), sd::bind("scale_h", f.scale_h)},
      {"'y[1]' is bound more than once (alone and in its family's binding)"});
  expect_error(
      f, {sd::bind("x[2]", f.x[2]), sd::bind("x", f.x), sd::bind("y", f.y), sd::bind("scale_h", f.scale_h)},
      {"'x[2]' is bound more than once"});
  expect_error(
      f, {sd::bind("x", f.x), sd::bind("y", f.y), sd::bind("z", f.x), sd::bind("scale_h", f.scale_h)},
      {"unknown name 'z': the program has no buffer family called that (it binds 'x' (a family of 3), "
       "'y' (a family of 3), 'scale_h')"});
}

TEST_CASE("a temp family cannot be bound", "[host][bindings][family]") {
  constexpr auto with_temps = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto t = p.temps<float>("t", 2);
    auto y = p.output<float>("y");
    t[0] = x + 1;
    t[1] = x * 2;
    y = t[0] + t[1];
  });
  std::vector<float> x(n, 1.0f), y(n);
  std::vector<std::vector<float>> t(2, std::vector<float>(n));
  sd::host_executor ex;
  ex.run(with_temps, sd::bind("x", x), sd::bind("y", y));
  CHECK(y[3] == 4.0f);
  CHECK_THROWS_WITH(ex.run(with_temps, sd::bind("x", x), sd::bind("y", y), sd::bind("t", t)),
                    Contains("temp buffer family 't' (2 members, float, domain 'n') is a temp family of the "
                             "program"));
}

TEST_CASE("the host executor accepts any memory for any space", "[host][bindings][spaces]") {
  constexpr auto spaces = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto pinned_in = p.input<float, sd::pinned>("pinned_in");
    auto pageable_out = p.output<float, sd::pageable>("pageable_out");
    auto y = p.output<float>("y");
    y = x + 1;
    (void)pinned_in, (void)pageable_out;
  });
  std::vector<float> x(n, 1.0f), y(n), a(n), b(n);
  sd::host_executor ex;
  ex.run(spaces, sd::bind("x", x), sd::bind("y", y), sd::bind("pinned_in", a), sd::bind("pageable_out", b));
  CHECK(y[0] == 2.0f);
}

// An executor that knows its plan passes binding_checks_of(plan): a plan
// without families or regions skips those checks, and must report exactly
// what every check reports (a family binding to such a plan included).
TEST_CASE("binding checks chosen from the plan report as all checks", "[host][bindings][family]") {
  constexpr auto plain = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto s = p.input<float>("s");
    auto y = p.output<float>("y");
    y = x * 2 + s;
  });
  constexpr auto chunked = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    y.chunk(0, 2) = x.chunk(0, 2) + 1;
    y.chunk(1, 2) = x.chunk(1, 2) + 1;
  });
  constexpr auto copying = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    sd::copy(y, x);
  });
  constexpr sd::plan_view plain_plan = plain.plan();
  constexpr sd::binding_checks plain_checks = sd::binding_checks_of(plain_plan);
  STATIC_REQUIRE(!plain_checks.families);
  STATIC_REQUIRE(!plain_checks.regions);
  STATIC_REQUIRE(sd::binding_checks_of(program.plan()).families);
  STATIC_REQUIRE(!sd::binding_checks_of(program.plan()).regions);
  STATIC_REQUIRE(!sd::binding_checks_of(chunked.plan()).families);
  STATIC_REQUIRE(sd::binding_checks_of(chunked.plan()).regions);
  STATIC_REQUIRE(sd::binding_checks_of(copying.plan()).regions);

  std::vector<float> x(n, 1.0f), y(n);
  std::vector<std::vector<float>> members{x, x};
  const auto report = [&](auto resolve, const std::vector<sd::binding>& given) {
    try {
      resolve(sd::binding_list(given.data(), given.size()));
    } catch (const sd::binding_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const auto all = [&](sd::binding_list b) { sd::resolve_bindings(plain_plan, b); };
  const auto chosen = [&](sd::binding_list b) { sd::resolve_bindings<plain_checks>(plain_plan, b); };
  const std::vector<std::vector<sd::binding>> cases{
      {sd::bind("x", members), sd::bind("s", x), sd::bind("y", y)},
      {sd::bind("x", x), sd::bind("s", x), sd::bind("y", y), sd::bind("z", members)},
      {sd::bind("x", x), sd::bind("y", y)},
      {sd::bind("x", x), sd::bind("s", x), sd::bind("y", y)}};
  for (const auto& given : cases) CHECK(report(chosen, given) == report(all, given));
  CHECK_THAT(
      report(chosen, std::vector<sd::binding>{sd::bind("x", members), sd::bind("s", x), sd::bind("y", y)}),
      Contains("input buffer 'x' (float, domain 'n') is a single buffer, but is bound to a family of 2 "
               "members"));
  CHECK_THAT(report(chosen, std::vector<sd::binding>{sd::bind("x", x), sd::bind("s", x), sd::bind("y", y),
                                                     sd::bind("z", members)}),
             Contains("unknown name 'z': the program has no buffer family called that"));
  CHECK_THAT(report(chosen, std::vector<sd::binding>{sd::bind("x", x), sd::bind("y", y)}),
             Contains("missing binding for input buffer 's'"));
  CHECK(report(chosen, cases[3]) == "accepted");
}
