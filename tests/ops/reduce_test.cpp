// Reductions and scans (ops/reduce.hpp, ops/scan.hpp): the step statement
// with its expression, its types and errors, ordering across streams, and
// the host executor's results at the edge cases reduce_ops.hpp defines.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

namespace {

using sd::diag::error_kind;

template <class Body>
error_kind first_error(Body body, sd::options o = sd::checked) {
  sd::builder b;
  body(b);
  if (!b.ir().ok()) return b.ir().errors[0].kind;
  const auto m = sd::passes::schedule(static_cast<sd::builder&&>(b).ir(), o);
  return m.ir.ok() ? error_kind::none : m.ir.errors[0].kind;
}

constexpr auto dot = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.input<float>("y");
  auto s = p.output<float>("s", sd::scalar);
  s = sd::sum(x * y);
});

// One reduction of each kind over x, each into its own 0-d output.
template <class T, class Sum, class Mean>
constexpr auto all_reductions = [](sd::builder& p) {
  auto x = p.input<T>("x");
  auto s = p.output<Sum>("s", sd::scalar);
  auto lo = p.output<T>("lo", sd::scalar);
  auto hi = p.output<T>("hi", sd::scalar);
  auto i = p.output<std::int64_t>("i", sd::scalar);
  s = sd::sum(x);
  lo = sd::min(x);
  hi = sd::max(x);
  i = sd::argmax(x);
  if constexpr (!std::is_integral_v<T>) {
    auto m = p.output<Mean>("m", sd::scalar);
    auto r = p.output<Mean>("r", sd::scalar);
    m = sd::mean(x);
    r = sd::norm(x);
  }
};
constexpr auto reductions_f = sd::program(all_reductions<float, float, float>);
constexpr auto reductions_d = sd::program(all_reductions<double, double, double>);
constexpr auto reductions_i = sd::program(all_reductions<std::int32_t, std::int64_t, double>);

template <class T>
struct results {
  T lo{}, hi{};
  std::int64_t i = -1;
};

}  // namespace

TEST_CASE("a reduction is a step that reads its expression: sum(x * y) writes no temp", "[ops][reduce]") {
  constexpr auto plan = dot.plan();
  STATIC_REQUIRE(plan.step_count() == 1);
  STATIC_REQUIRE(plan.kernel_count() == 0);
  STATIC_REQUIRE(plan.ir.buffers.size() == 3);
  const std::string text = dot.to_string().c_str();
  CHECK(text.find("s = sd::sum(x * y);") != std::string::npos);
  std::vector<float> x{1, 2, 3, 4}, y{5, 6, 7, 8};
  float s = -1;
  sd::host_executor ex;
  ex.run(dot, sd::bind("x", x), sd::bind("y", y), sd::bind("s", &s, 1));
  CHECK(s == 70.f);
}

TEST_CASE("result types: integer sums are int64_t, argmax an int64_t index, min and max keep the type",
          "[ops][reduce]") {
  sd::builder p;
  auto k = p.input<std::int32_t>("k");
  auto b = p.input<bool>("b");
  auto s = p.output<std::int64_t>("s", sd::scalar);
  auto c = p.output<std::int64_t>("c", sd::scalar);
  auto m = p.output<std::int32_t>("m", sd::scalar);
  s = sd::sum(k);
  c = sd::sum(b);  // counts the true elements
  m = sd::max(k);
  CHECK(p.ir().ok());
  CHECK(sd::ir::step_result_type(sd::ir::step_code::sum, sd::dtype::int32) == sd::dtype::int64);
  CHECK(sd::ir::step_result_type(sd::ir::step_code::sum, sd::dtype::float32) == sd::dtype::float32);
  CHECK(sd::ir::step_result_type(sd::ir::step_code::argmax, sd::dtype::float64) == sd::dtype::int64);
  CHECK(sd::ir::accumulation_type(sd::dtype::float16) == sd::dtype::float32);
  CHECK(sd::ir::accumulation_type(sd::dtype::boolean) == sd::dtype::int64);
}

TEST_CASE("reduction misuse is a named error", "[ops][reduce]") {
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto t = p.output<float>("t");
          t = sd::sum(x);
        }) == error_kind::reduction_target_not_scalar);
  CHECK(first_error([](sd::builder& p) {
          auto k = p.input<std::int64_t>("k");
          auto r = p.output<double>("r", sd::scalar);
          r = sd::norm(k);
        }) == error_kind::reduction_needs_floating);
  CHECK(first_error([](sd::builder& p) {
          auto k = p.input<std::int32_t>("k");
          auto s = p.output<std::int32_t>("s", sd::scalar);
          s = sd::sum(k);
        }) == error_kind::narrowing_assignment);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto s = p.input<float>("s", sd::scalar);
          s = sd::sum(x);
        }) == error_kind::write_to_input);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto t = p.temp<float>("t");
          auto s = p.output<float>("s", sd::scalar);
          s = sd::sum(t + x);
        }) == error_kind::temp_read_before_write);
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto x = p.input<float>("x");
          auto y = p.output<float>("y", m);
          y = sd::exclusive_sum(x);
        }) == error_kind::domain_mismatch);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          y.chunk(0, 2) = sd::inclusive_sum(x);
        }) == error_kind::chunk_mismatch);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float, sd::pinned>("x");
          auto s = p.output<float>("s", sd::scalar);
          s = sd::sum(x);
        }) == error_kind::host_memory_in_expression);
}

TEST_CASE("a reduction or scan of a buffer in host memory: the advice declares a device buffer of its shape",
          "[ops][reduce]") {
  // p.temp<float> alone is over the default domain: a copy from or to the
  // 0-d buffer would not fit, nor would the reduction's result.
  auto message = [](auto body) {
    sd::builder b;
    body(b);
    REQUIRE(!b.ir().ok());
    return std::string(b.ir().errors[0].message.view());
  };
  const auto written = message([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto s = p.output<float, sd::pinned>("s", sd::scalar);
    s = sd::sum(x);
  });
  CHECK(written.find("reductions and scans run on the device") != std::string::npos);
  CHECK(written.find("write a device buffer (e.g. p.temp<float>(\"d\", sd::scalar)) and copy it with "
                     "`sd::copy(s, d)`") != std::string::npos);
  const auto read = message([](sd::builder& p) {
    auto a = p.input<double, sd::pinned>("a", sd::scalar);
    auto y = p.output<double>("y");
    y = sd::inclusive_sum(a);
  });
  CHECK(read.find("(d: e.g. p.temp<double>(\"d\", sd::scalar)) and use d") != std::string::npos);
  const auto other_domain = message([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto x = p.input<float, sd::pageable>("x", rows);
    auto y = p.output<float>("y", rows);
    y = sd::exclusive_sum(x);
  });
  CHECK(other_domain.find("(d: e.g. p.temp<float>(\"d\", rows)) and use d") != std::string::npos);
}

TEST_CASE("a reduction on a side stream read on main races unless ordered", "[ops][reduce]") {
  auto body = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto s = p.temp<float>("s", sd::scalar);
    auto z = p.output<float>("z");
    auto side = p.stream("side");
    sd::with_stream(side, [&] { s = sd::sum(x); });
    z = x / s;
  };
  CHECK(first_error(body) == error_kind::race);
  CHECK(first_error(body, sd::automatic) == error_kind::none);
}

TEST_CASE("reductions on the host executor: values, NaN, signed zeros, ties", "[ops][reduce][host]") {
  sd::host_executor ex;
  SECTION("float") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> x{3, nan, -0.f, 7, 0.f, 7, -2};
    float s = 0, m = 0, r = 0;
    results<float> q;
    ex.run(reductions_f, sd::bind("x", x), sd::bind("s", &s, 1), sd::bind("lo", &q.lo, 1),
           sd::bind("hi", &q.hi, 1), sd::bind("i", &q.i, 1), sd::bind("m", &m, 1), sd::bind("r", &r, 1));
    CHECK(std::isnan(s));  // a sum sees the NaN
    CHECK(q.lo == -2.f);   // min and max ignore it
    CHECK(q.hi == 7.f);
    CHECK(q.i == 3);  // the first 7
    CHECK(std::isnan(m));
    CHECK(std::isnan(r));
  }
  SECTION("signed zeros: max(-0, +0) is +0 and argmax points at it") {
    std::vector<float> x{-0.f, 0.f, -0.f};
    float s = 1, m = 0, r = 0;
    results<float> q;
    ex.run(reductions_f, sd::bind("x", x), sd::bind("s", &s, 1), sd::bind("lo", &q.lo, 1),
           sd::bind("hi", &q.hi, 1), sd::bind("i", &q.i, 1), sd::bind("m", &m, 1), sd::bind("r", &r, 1));
    CHECK(!std::signbit(q.hi));
    CHECK(std::signbit(q.lo));
    CHECK(q.i == 1);
    CHECK(r == 0.f);
  }
  SECTION("all NaN: min and max are NaN, argmax 0") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> x{nan, nan};
    double s = 0, m = 0, r = 0;
    results<double> q;
    ex.run(reductions_d, sd::bind("x", x), sd::bind("s", &s, 1), sd::bind("lo", &q.lo, 1),
           sd::bind("hi", &q.hi, 1), sd::bind("i", &q.i, 1), sd::bind("m", &m, 1), sd::bind("r", &r, 1));
    CHECK(std::isnan(q.lo));
    CHECK(std::isnan(q.hi));
    CHECK(q.i == 0);
  }
  SECTION("double over several summation blocks: mean and norm") {
    std::vector<double> x(5000);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = static_cast<double>(k % 10) - 4.5;
    double s = 0, m = 0, r = 0;
    results<double> q;
    ex.run(reductions_d, sd::bind("x", x), sd::bind("s", &s, 1), sd::bind("lo", &q.lo, 1),
           sd::bind("hi", &q.hi, 1), sd::bind("i", &q.i, 1), sd::bind("m", &m, 1), sd::bind("r", &r, 1));
    CHECK(s == 0.0);
    CHECK(m == 0.0);
    CHECK(r == Approx(std::sqrt(5000 * 8.25)).epsilon(1e-12));
    CHECK(q.lo == -4.5);
    CHECK(q.hi == 4.5);
    CHECK(q.i == 9);
  }
  SECTION("int32_t: the sum is int64_t and does not overflow int32_t") {
    std::vector<std::int32_t> x(3, std::numeric_limits<std::int32_t>::max());
    x.push_back(-5);
    std::int64_t s = 0;
    results<std::int32_t> q;
    ex.run(reductions_i, sd::bind("x", x), sd::bind("s", &s, 1), sd::bind("lo", &q.lo, 1),
           sd::bind("hi", &q.hi, 1), sd::bind("i", &q.i, 1));
    CHECK(s == 3LL * std::numeric_limits<std::int32_t>::max() - 5);
    CHECK(q.lo == -5);
    CHECK(q.hi == std::numeric_limits<std::int32_t>::max());
    CHECK(q.i == 0);
  }
}

TEST_CASE("an empty input: sum 0 and mean NaN; min, max and argmax refused before anything runs",
          "[ops][reduce][host]") {
  constexpr auto sums = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto s = p.output<float>("s", sd::scalar);
    auto m = p.output<float>("m", sd::scalar);
    s = sd::sum(x);
    m = sd::mean(x);
  });
  sd::host_executor ex;
  std::vector<float> none;
  float s = 5, m = 5;
  ex.run(sums, sd::bind("x", none), sd::bind("s", &s, 1), sd::bind("m", &m, 1));
  CHECK(s == 0.f);
  CHECK(std::isnan(m));
  float lo = 5, hi = 5, r = 5;
  std::int64_t i = 5;
  try {
    ex.run(reductions_f, sd::bind("x", none), sd::bind("s", &s, 1), sd::bind("lo", &lo, 1),
           sd::bind("hi", &hi, 1), sd::bind("i", &i, 1), sd::bind("m", &m, 1), sd::bind("r", &r, 1));
    FAIL("no binding_error");
  } catch (const sd::binding_error& e) {
    const std::string what = e.what();
    CHECK(what.find("`lo = sd::min(x)` reduces no elements") != std::string::npos);
    CHECK(what.find("`i = sd::argmax(x)` reduces no elements") != std::string::npos);
  }
  CHECK(lo == 5.f);  // nothing ran
  CHECK(s == 0.f);
}

TEST_CASE("a chunk emptied by a domain shorter than its chunk count: only the extent is reported",
          "[ops][reduce][host]") {
  // One element in two chunks: the chunk check names the extent; min of the
  // empty chunk is not also reported as a domain "bound to 0 elements".
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto lo = p.output<float>("lo", sd::scalar);
    lo = sd::min(x.chunk(1, 2));
  });
  std::vector<float> x{1};
  float lo = 5;
  sd::host_executor ex;
  try {
    ex.run(prog, sd::bind("x", x), sd::bind("lo", &lo, 1));
    FAIL("no binding_error");
  } catch (const sd::binding_error& e) {
    const std::string what = e.what();
    CHECK(what.find("is bound to 1 elements, not a multiple of 2") != std::string::npos);
    CHECK(what.find("bound to 0 elements") == std::string::npos);
  }
  CHECK(lo == 5.f);
}

TEST_CASE("reductions of chunks, of a broadcast value, and a consumer of the result", "[ops][reduce][host]") {
  constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.input<float>("a", sd::scalar);
    auto half = p.output<float>("half", sd::scalar);
    auto one = p.output<float>("one", sd::scalar);
    auto s = p.temp<float>("s", sd::scalar);
    auto z = p.output<float>("z");
    auto side = p.stream("side");
    sd::with_stream(side, [&] { half = sd::sum(x.chunk(1, 2)); });
    one = sd::sum(a * 2);  // a 0-d expression: one element
    s = sd::max(sd::abs(x));
    z = x / s;  // reads the device scalar; no host sync
  });
  std::vector<float> x{1, -8, 2, 4}, z(4);
  float a = 1.5f, half = 0, one = 0;
  sd::host_executor ex;
  ex.run(prog, sd::bind("x", x), sd::bind("a", &a, 1), sd::bind("half", &half, 1), sd::bind("one", &one, 1),
         sd::bind("z", z));
  CHECK(half == 6.f);
  CHECK(one == 3.f);
  CHECK(z == std::vector<float>{0.125f, -1.f, 0.25f, 0.5f});
}

TEST_CASE("scans on the host executor: inclusive, exclusive, chunks, integer widening", "[ops][scan][host]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto k = p.input<std::int32_t>("k");
    auto inc = p.output<float>("inc");
    auto exc = p.output<double>("exc");
    auto part = p.output<float>("part");
    auto wide = p.output<std::int64_t>("wide");
    inc = sd::inclusive_sum(x);
    exc = sd::exclusive_sum(x * 2);
    part.chunk(0, 2) = sd::inclusive_sum(x.chunk(1, 2));
    part.chunk(1, 2) = sd::exclusive_sum(x.chunk(0, 2));
    wide = sd::inclusive_sum(k);
  });
  const std::string text = prog.to_string().c_str();
  CHECK(text.find("part.chunk(0, 2) = sd::inclusive_sum(x.chunk(1, 2));") != std::string::npos);
  std::vector<float> x{1, 2, 3, 4, 5, 6}, inc(6), part(6);
  std::vector<double> exc(6);
  std::vector<std::int32_t> k{2000000000, 2000000000, -1, 0, 0, 0};
  std::vector<std::int64_t> wide(6);
  sd::host_executor ex;
  ex.run(prog, sd::bind("x", x), sd::bind("k", k), sd::bind("inc", inc), sd::bind("exc", exc),
         sd::bind("part", part), sd::bind("wide", wide));
  CHECK(inc == std::vector<float>{1, 3, 6, 10, 15, 21});
  CHECK(exc == std::vector<double>{0, 2, 6, 12, 20, 30});
  CHECK(part == std::vector<float>{4, 9, 15, 0, 1, 3});
  CHECK(wide ==
        std::vector<std::int64_t>{2000000000, 4000000000, 3999999999, 3999999999, 3999999999, 3999999999});
  // Longer than a block (512 elements), and the first element kept as is (-0 stays -0).
  std::vector<float> big(1500, 1.f), big_inc(1500);
  big[0] = -0.f;
  constexpr auto one_scan = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    y = sd::inclusive_sum(x);
  });
  ex.run(one_scan, sd::bind("x", big), sd::bind("y", big_inc));
  CHECK(std::signbit(big_inc[0]));
  CHECK(big_inc[1499] == 1499.f);
}

TEST_CASE("reductions of narrow and unsigned integers: sums are int64_t, uint64_t keeps its order",
          "[ops][reduce][host]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto b = p.input<std::int8_t>("b");
    auto u = p.input<std::uint64_t>("u");
    auto s = p.output<std::int64_t>("s", sd::scalar);
    auto hi = p.output<std::uint64_t>("hi", sd::scalar);
    auto lo = p.output<std::uint64_t>("lo", sd::scalar);
    auto at = p.output<std::int64_t>("at", sd::scalar);
    s = sd::sum(b);
    hi = sd::max(u);
    lo = sd::min(u);
    at = sd::argmax(u);
  });
  std::vector<std::int8_t> b{100, 100, 100, -128};
  std::vector<std::uint64_t> u{5, 0xFFFFFFFFFFFFFFF0ULL, 0x8000000000000000ULL, 7};
  std::int64_t s = 0, at = -1;
  std::uint64_t hi = 0, lo = 1;
  sd::host_executor ex;
  ex.run(prog, sd::bind("b", b), sd::bind("u", u), sd::bind("s", &s, 1), sd::bind("hi", &hi, 1),
         sd::bind("lo", &lo, 1), sd::bind("at", &at, 1));
  CHECK(s == 172);  // no int8_t wrap-around
  CHECK(hi == 0xFFFFFFFFFFFFFFF0ULL);
  CHECK(lo == 5);
  CHECK(at == 1);
}
