// Rank-2 buffers (ir/shape.hpp): product domains, broadcasting of rows,
// columns and 0-d values, reductions and scans along the last axis, their
// errors and binding checks, and the host executor's results against loops
// written out here.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

#include "first_error.hpp"

namespace {

using sd::diag::error_kind;

using op_test::first_error;
using op_test::first_message;

// y = a * col + row - s: a matrix, a column over rows, a row over cols, a 0-d value.
constexpr auto broadcast = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto a = p.input<float>("a", rows, cols);
  auto col = p.input<float>("col", rows);
  auto row = p.input<float>("row", cols);
  auto s = p.input<float>("s", sd::scalar);
  auto y = p.output<float>("y", rows, cols);
  y = a * col + row - s;
});

TEST_CASE("a rank-2 buffer is over a product domain of its rows and columns", "[rank2]") {
  constexpr auto v = broadcast.plan().ir;
  STATIC_REQUIRE(v.domains.size() == 4);  // n, rows, cols, (rows, cols)
  STATIC_REQUIRE(sd::ir::is_product(v.domains[3]));
  STATIC_REQUIRE(v.domains[3].outer == 1);
  STATIC_REQUIRE(v.domains[3].inner == 2);
  STATIC_REQUIRE(v.buffers[0].domain == 3);
  STATIC_REQUIRE(v.domain_name(3) == sd::detail::string_view("(rows, cols)"));
  STATIC_REQUIRE(broadcast.plan().kernel_count() == 1);
  STATIC_REQUIRE(broadcast.plan().kernels[0].domain == 3);
}

TEST_CASE("broadcast_of reads rows, columns and 0-d values by domain", "[rank2]") {
  constexpr auto d = broadcast.plan().ir.domains;
  using sd::ir::load_index;
  STATIC_REQUIRE(sd::ir::broadcast_of(d, 3, 3) == load_index::same);
  STATIC_REQUIRE(sd::ir::broadcast_of(d, -1, 3) == load_index::scalar);
  STATIC_REQUIRE(sd::ir::broadcast_of(d, 2, 3) == load_index::row_vector);
  STATIC_REQUIRE(sd::ir::broadcast_of(d, 1, 3) == load_index::column_vector);
  STATIC_REQUIRE(sd::ir::broadcast_of(d, 0, 3) == load_index::none);
  STATIC_REQUIRE(sd::ir::broadcast_of(d, 3, 2) == load_index::none);  // a matrix is no row
  STATIC_REQUIRE(sd::ir::broadcast_shape(d, 1, 3) == 3);
  STATIC_REQUIRE(sd::ir::broadcast_shape(d, 3, 2) == 3);
  STATIC_REQUIRE(sd::ir::broadcast_shape(d, 1, 2) ==
                 sd::ir::no_shape);  // a column and a row: no outer product
}

TEST_CASE("a square matrix reads a vector over its one domain as a row, as PyTorch", "[rank2]") {
  constexpr auto square = sd::program([](sd::builder& p) {
    auto n = p.domain("k");
    auto a = p.input<float>("a", n, n);
    auto v = p.input<float>("v", n);
    auto y = p.output<float>("y", n, n);
    y = a + v;
  });
  std::vector<float> a = {1, 2, 3, 4}, v = {10, 20}, y(4);
  sd::host_executor ex;
  ex.run(square, sd::bind("a", a, 2, 2), sd::bind("v", v), sd::bind("y", y, 2, 2));
  CHECK(y == std::vector<float>{11, 22, 13, 24});
}

TEST_CASE("the host executor broadcasts rows, columns and 0-d values", "[rank2]") {
  const std::size_t R = 3, C = 700;  // a row crosses the host's 512-element blocks
  std::vector<float> a(R * C), col(R), row(C), y(R * C);
  for (std::size_t i = 0; i < R * C; ++i) a[i] = static_cast<float>(i % 17) - 8;
  for (std::size_t i = 0; i < R; ++i) col[i] = static_cast<float>(i + 1);
  for (std::size_t j = 0; j < C; ++j) row[j] = static_cast<float>(j % 5) * 0.5f;
  float s = 0.25f;
  sd::host_executor ex;
  ex.run(broadcast, sd::bind("a", a, R, C), sd::bind("col", col), sd::bind("row", row), sd::bind("s", &s, 1),
         sd::bind("y", y.data(), R, C));
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) REQUIRE(y[i * C + j] == a[i * C + j] * col[i] + row[j] - s);
}

TEST_CASE("a row or a column is stored into every row or column of a matrix", "[rank2]") {
  constexpr auto spread = sd::program([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto col = p.input<int>("col", rows);
    auto row = p.input<int>("row", cols);
    auto by_row = p.output<int>("by_row", rows, cols);
    auto by_col = p.output<int>("by_col", rows, cols);
    by_row = row;
    by_col = col * 2;
  });
  std::vector<int> col = {1, 2}, row = {7, 8, 9}, by_row(6), by_col(6);
  sd::host_executor ex;
  ex.run(spread, sd::bind("col", col), sd::bind("row", row), sd::bind("by_row", by_row, 2, 3),
         sd::bind("by_col", by_col, 2, 3));
  CHECK(by_row == std::vector<int>{7, 8, 9, 7, 8, 9});
  CHECK(by_col == std::vector<int>{2, 2, 2, 4, 4, 4});
}

// Softmax and layer norm along the last axis, as a user writes them.
constexpr auto softmax = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, cols);
  auto y = p.output<float>("y", rows, cols);
  auto m = p.temp<float>("m", rows);
  auto e = p.temp<float>("e", rows, cols);
  auto s = p.temp<float>("s", rows);
  m = sd::max(x, cols);
  e = sd::exp(x - m);
  s = sd::sum(e, cols);
  y = e / s;
});

TEST_CASE("a row softmax along the last axis", "[rank2]") {
  STATIC_REQUIRE(softmax.plan().ir.stmts[0].axis == 2);
  const std::size_t R = 4, C = 1500;
  std::vector<float> x(R * C), y(R * C);
  for (std::size_t i = 0; i < R * C; ++i) x[i] = std::sin(static_cast<float>(i)) * 5;
  sd::host_executor ex;
  ex.run(softmax, sd::bind("x", x, R, C), sd::bind("y", y, R, C));
  for (std::size_t i = 0; i < R; ++i) {
    float m = x[i * C];
    for (std::size_t j = 0; j < C; ++j) m = std::fmax(m, x[i * C + j]);
    double s = 0, total = 0;
    for (std::size_t j = 0; j < C; ++j) s += std::exp(static_cast<double>(x[i * C + j] - m));
    for (std::size_t j = 0; j < C; ++j) {
      REQUIRE(y[i * C + j] == Approx(std::exp(static_cast<double>(x[i * C + j] - m)) / s).epsilon(1e-5));
      total += y[i * C + j];
    }
    REQUIRE(total == Approx(1).epsilon(1e-5));
  }
}

TEST_CASE("every reduction and scan along the last axis, row by row", "[rank2]") {
  constexpr auto along = sd::program([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto x = p.input<std::int32_t>("x", rows, cols);
    auto f = p.input<double>("f", rows, cols);
    auto sum = p.output<std::int64_t>("sum", rows);
    auto lo = p.output<std::int32_t>("lo", rows);
    auto hi = p.output<std::int32_t>("hi", rows);
    auto at = p.output<std::int64_t>("at", rows);
    auto mean = p.output<double>("mean", rows);
    auto norm = p.output<double>("norm", rows);
    auto inc = p.output<std::int64_t>("inc", rows, cols);
    auto exc = p.output<std::int64_t>("exc", rows, cols);
    auto total = p.output<std::int64_t>("total", sd::scalar);
    sum = sd::sum(x, cols);
    lo = sd::min(x, cols);
    hi = sd::max(x, cols);
    at = sd::argmax(x, cols);
    mean = sd::mean(f, cols);
    norm = sd::norm(f, cols);
    inc = sd::inclusive_sum(x, cols);
    exc = sd::exclusive_sum(x, cols);
    total = sd::sum(x);  // no axis: all of it
  });
  const std::size_t R = 3, C = 1100;
  std::vector<std::int32_t> x(R * C), lo(R), hi(R);
  std::vector<double> f(R * C), mean(R), norm(R);
  std::vector<std::int64_t> sum(R), at(R), inc(R * C), exc(R * C);
  std::int64_t total = 0;
  for (std::size_t i = 0; i < R * C; ++i) {
    x[i] = static_cast<std::int32_t>((i * 7919) % 1000) - 500;
    f[i] = static_cast<double>(x[i]) / 8;
  }
  sd::host_executor ex;
  ex.run(along, sd::bind("x", x, R, C), sd::bind("f", f, R, C), sd::bind("sum", sum), sd::bind("lo", lo),
         sd::bind("hi", hi), sd::bind("at", at), sd::bind("mean", mean), sd::bind("norm", norm),
         sd::bind("inc", inc, R, C), sd::bind("exc", exc, R, C), sd::bind("total", &total, 1));
  std::int64_t all = 0;
  for (std::size_t i = 0; i < R; ++i) {
    std::int64_t s = 0;
    std::int32_t l = x[i * C], h = x[i * C];
    std::int64_t best = 0;
    double fs = 0, sq = 0;
    for (std::size_t j = 0; j < C; ++j) {
      const auto v = x[i * C + j];
      REQUIRE(exc[i * C + j] == s);
      s += v;
      REQUIRE(inc[i * C + j] == s);
      l = v < l ? v : l;
      if (v > h) {
        h = v;
        best = static_cast<std::int64_t>(j);
      }
      fs += f[i * C + j];
      sq += f[i * C + j] * f[i * C + j];
    }
    all += s;
    CHECK(sum[i] == s);
    CHECK(lo[i] == l);
    CHECK(hi[i] == h);
    CHECK(at[i] == best);
    CHECK(mean[i] == Approx(fs / C));
    CHECK(norm[i] == Approx(std::sqrt(sq)));
  }
  CHECK(total == all);
}

TEST_CASE("a row reduction may read its target as a column: each row reads its own value first", "[rank2]") {
  constexpr auto matvec = sd::program([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto a = p.input<float>("a", rows, cols);
    auto v = p.inout<float>("v", rows);
    v = sd::sum(a * v, cols);  // v[i] = v[i] * (a[i][0] + ... + a[i][C-1]), up to rounding order
  });
  const std::size_t R = 300, C = 7;  // many rows per host block
  std::vector<float> a(R * C), v(R), expected(R);
  for (std::size_t i = 0; i < R * C; ++i) a[i] = static_cast<float>(i % 5);
  for (std::size_t i = 0; i < R; ++i) {
    v[i] = static_cast<float>(i % 3) + 1;
    float s = 0;
    for (std::size_t j = 0; j < C; ++j) s += a[i * C + j] * v[i];
    expected[i] = s;
  }
  sd::host_executor ex;
  ex.run(matvec, sd::bind("a", a, R, C), sd::bind("v", v));
  CHECK(v == expected);  // small integers: exact in any order
}

TEST_CASE("reductions along an axis of rows of no columns, and of no rows", "[rank2]") {
  constexpr auto sums = sd::program([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto x = p.input<float>("x", rows, cols);
    auto s = p.output<float>("s", rows);
    auto m = p.output<float>("m", rows);
    s = sd::sum(x, cols);
    m = sd::mean(x, cols);
  });
  std::vector<float> x, s = {5, 5}, m = {5, 5};
  sd::host_executor ex;
  ex.run(sums, sd::bind("x", x, 2, 0), sd::bind("s", s), sd::bind("m", m));
  CHECK(s == std::vector<float>{0, 0});
  CHECK(std::isnan(m[0]));
  CHECK(std::isnan(m[1]));

  constexpr auto maxes = sd::program([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto x = p.input<float>("x", rows, cols);
    auto hi = p.output<float>("hi", rows);
    hi = sd::max(x, cols);
  });
  std::vector<float> hi;
  ex.run(maxes, sd::bind("x", x, 0, 4), sd::bind("hi", hi));  // no rows: nothing to reduce, no error
  std::vector<float> two(2);
  try {
    ex.run(maxes, sd::bind("x", x, 2, 0), sd::bind("hi", two));
    FAIL("rows of nothing have no max");
  } catch (const sd::binding_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("reduces no elements (domain 'cols' is bound to 0 elements)"));
  }
}

TEST_CASE("binding a rank-2 buffer needs its rows and columns, which agree with its domains", "[rank2]") {
  std::vector<float> a(6), col(2), row(3), y(6), wrong_row(4);
  float s = 1;
  sd::host_executor ex;
  auto message = [&](auto... bindings) -> std::string {
    try {
      ex.run(broadcast, bindings...);
    } catch (const sd::binding_error& e) {
      return e.what();
    }
    return {};
  };
  CHECK_THAT(
      message(sd::bind("a", a), sd::bind("col", col), sd::bind("row", row), sd::bind("s", &s, 1),
              sd::bind("y", y, 2, 3)),
      Catch::Contains("input buffer 'a' (float, domain '(rows, cols)') is bound to 6 elements without its "
                      "shape; bind a rank-2 buffer with its rows and columns: sd::bind(\"a\", data, rows, "
                      "cols)"));
  CHECK_THAT(
      message(sd::bind("a", a, 2, 3), sd::bind("col", col, 1, 2), sd::bind("row", row), sd::bind("s", &s, 1),
              sd::bind("y", y, 2, 3)),
      Catch::Contains("'col' (float, domain 'rows') is bound with 1 rows and 2 columns, but it is not a "
                      "rank-2 buffer"));
  CHECK_THAT(message(sd::bind("a", a, 3, 3), sd::bind("col", col), sd::bind("row", row), sd::bind("s", &s, 1),
                     sd::bind("y", y, 2, 3)),
             Catch::Contains("is bound to 6 elements as 3 rows of 3 (9 elements)"));
  CHECK_THAT(message(sd::bind("a", a, 2, 3), sd::bind("col", col), sd::bind("row", wrong_row),
                     sd::bind("s", &s, 1), sd::bind("y", y, 2, 3)),
             Catch::Contains(
                 "buffers of domain 'cols' must have one extent, but 'a' is bound to 3 (its columns) and "
                 "'row' to 4"));
  CHECK_THAT(message(sd::bind("a", a, 2, 3), sd::bind("col", col), sd::bind("row", row), sd::bind("s", &s, 1),
                     sd::bind("y", y, 3, 2)),
             Catch::Contains(
                 "buffers of domain 'rows' must have one extent, but 'a' is bound to 2 (its rows) and 'y' "
                 "to 3 (its rows)"));
}

TEST_CASE("misuse of rank-2 shapes is a named compile error", "[rank2]") {
  // a column and a row do not broadcast to each other (no outer product)
  CHECK(first_error([](sd::builder& p) {
          auto rows = p.domain("rows");
          auto cols = p.domain("cols");
          auto c = p.input<float>("c", rows);
          auto r = p.input<float>("r", cols);
          auto y = p.output<float>("y", rows, cols);
          y = c + r;
        }) == error_kind::domain_mismatch);
  // a matrix into a vector
  CHECK(first_error([](sd::builder& p) {
          auto rows = p.domain("rows");
          auto cols = p.domain("cols");
          auto a = p.input<float>("a", rows, cols);
          auto y = p.output<float>("y", cols);
          y = a;
        }) == error_kind::domain_mismatch);
  // a vector of another domain into a matrix
  CHECK(first_error([](sd::builder& p) {
          auto rows = p.domain("rows");
          auto cols = p.domain("cols");
          auto v = p.input<float>("v");
          auto y = p.output<float>("y", rows, cols);
          y = v;
        }) == error_kind::domain_mismatch);
  // chunks of a rank-2 buffer
  CHECK(first_error([](sd::builder& p) {
          auto rows = p.domain("rows");
          auto cols = p.domain("cols");
          auto a = p.input<float>("a", rows, cols);
          auto y = p.output<float>("y", rows, cols);
          y.chunk(0, 2) = a.chunk(0, 2);
        }) == error_kind::invalid_chunk);
  // along the first axis, along an axis of a rank-1 expression
  CHECK(first_error([](sd::builder& p) {
          auto rows = p.domain("rows");
          auto cols = p.domain("cols");
          auto a = p.input<float>("a", rows, cols);
          auto m = p.output<float>("m", cols);
          m = sd::max(a, rows);
        }) == error_kind::reduction_axis_not_last);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto m = p.output<float>("m", sd::scalar);
          m = sd::sum(x, sd::domain{});
        }) == error_kind::reduction_axis_not_last);
  // a row reduction into a 0-d buffer, into the columns' domain, a row scan into a column
  CHECK(first_error([](sd::builder& p) {
          auto rows = p.domain("rows");
          auto cols = p.domain("cols");
          auto a = p.input<float>("a", rows, cols);
          auto m = p.output<float>("m", sd::scalar);
          m = sd::sum(a, cols);
        }) == error_kind::row_reduction_target_not_a_column);
  CHECK(first_error([](sd::builder& p) {
          auto rows = p.domain("rows");
          auto cols = p.domain("cols");
          auto a = p.input<float>("a", rows, cols);
          auto m = p.output<float>("m", cols);
          m = sd::sum(a, cols);
        }) == error_kind::row_reduction_target_not_a_column);
  CHECK(first_error([](sd::builder& p) {
          auto rows = p.domain("rows");
          auto cols = p.domain("cols");
          auto a = p.input<float>("a", rows, cols);
          auto m = p.output<float>("m", rows);
          m = sd::inclusive_sum(a, cols);
        }) == error_kind::domain_mismatch);
  // a square matrix's row reduction reading its result as a row; as a column it is fine
  CHECK(first_error([](sd::builder& p) {
          auto k = p.domain("k");
          auto a = p.input<float>("a", k, k);
          auto v = p.inout<float>("v", k);
          v = sd::sum(a * v, k);
        }) == error_kind::row_reduction_reads_its_target);
  CHECK(first_error([](sd::builder& p) {
          auto rows = p.domain("rows");
          auto cols = p.domain("cols");
          auto a = p.input<float>("a", rows, cols);
          auto v = p.inout<float>("v", rows);
          v = sd::sum(a * v, cols);
        }) == error_kind::none);
  // whole-buffer reduction of a matrix into a 0-d buffer is fine
  CHECK(first_error([](sd::builder& p) {
          auto rows = p.domain("rows");
          auto cols = p.domain("cols");
          auto a = p.input<float>("a", rows, cols);
          auto m = p.output<float>("m", sd::scalar);
          m = sd::sum(a * 2);
        }) == error_kind::none);
}

TEST_CASE("the messages of rank-2 misuse name the buffers, the domains and the fix", "[rank2]") {
  CHECK_THAT(
      first_message([](sd::builder& p) {
        auto rows = p.domain("rows");
        auto cols = p.domain("cols");
        auto a = p.input<float>("a", rows, cols);
        auto m = p.output<float>("m", cols);
        m = sd::max(a, rows);
      }),
      Catch::Contains("statement #0 `m = sd::max(a, rows)` on stream 'main' runs sd::max along domain "
                      "'rows', but its expression is over domain '(rows, cols)', whose last axis is "
                      "'cols'; a reduction or scan along an axis runs along the last one (each row), so "
                      "write `sd::max(..., cols)`"));
  CHECK_THAT(
      first_message([](sd::builder& p) {
        auto rows = p.domain("rows");
        auto cols = p.domain("cols");
        auto a = p.input<float>("a", rows, cols);
        auto m = p.output<float>("m", sd::scalar);
        m = sd::sum(a, cols);
      }),
      Catch::Contains("to one value, a column over domain 'rows', and stores it in 'm', a 0-d buffer; "
                      "declare it over the rows' domain, e.g. "
                      "p.temp<float>(\"m\", rows), or reduce all of it into a 0-d buffer with `sd::sum(...)` "
                      "and no axis"));
  CHECK_THAT(first_message([](sd::builder& p) {
               auto rows = p.domain("rows");
               auto cols = p.domain("cols");
               auto c = p.input<float>("c", rows);
               auto r = p.input<float>("r", cols);
               auto y = p.output<float>("y", rows, cols);
               y = c + r;
             }),
             Catch::Contains("combines `c` over domain 'rows' with `r` over domain 'cols'"));
}

}  // namespace
