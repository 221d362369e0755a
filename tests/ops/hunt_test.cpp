// Bug hunt on issue 12 (steps, chunks, spaces, families): programs built at
// run time and at compile time, run on the host executor (plain and stress)
// and compared with the sequential result worked out by hand.
#include <catch2/catch.hpp>
#include <numeric>
#include <span>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

namespace {

using sd::diag::error_kind;

std::vector<float> ramp(std::size_t n, float from = 0.0f) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}

template <class Body>
sd::plan_model schedule_of(Body body, sd::options o) {
  sd::builder b;
  body(b);
  return sd::passes::schedule(static_cast<sd::builder&&>(b).ir(), o);
}

// Runs `model` `runs` times on a plain and a stressed executor; `fill` binds
// fresh buffers and `check` compares them with the expected result.
template <class Fill, class Check>
void run_many(const sd::plan_model& model, Fill fill, Check check, int runs = 30) {
  REQUIRE(model.ir.ok());
  const auto plan = sd::view_of(model);
  sd::host_executor plain;
  {
    auto list = fill();
    plain.run(plan, list);
    check();
  }
  for (std::uint64_t seed = 1; seed <= static_cast<std::uint64_t>(runs); ++seed) {
    sd::host_executor stressed(sd::stress{seed});
    auto list = fill();
    stressed.run(plan, list);
    check();
  }
}

}  // namespace

TEST_CASE("hunt: chunked temps on several streams sharing slots", "[hunt]") {
  constexpr int K = 4;
  for (auto o : {sd::automatic, sd::automatic | sd::relaxed, sd::automatic | sd::no_fusion}) {
    auto model = schedule_of(
        [](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          auto a = p.temp<float>("a");
          auto b = p.temp<float>("b");
          auto c = p.temp<float>("c");
          auto s = p.streams("s", K);
          for (int i = 0; i < K; ++i)
            sd::with_stream(s[i], [&] { a.chunk(i, K) = x.chunk(i, K) + static_cast<float>(i); });
          b = a * 2;  // whole, main
          for (int i = 0; i < K; ++i)
            sd::with_stream(s[(i + 1) % K], [&] { c.chunk(i, K) = b.chunk(K - 1 - i, K) + 1; });
          y = c - 1;
        },
        o);
    INFO(model.ir.ok());
    const std::size_t n = 40;
    const auto x = ramp(n);
    std::vector<float> y;
    run_many(
        model,
        [&] {
          y.assign(n, -7.0f);
          return std::vector<sd::binding>{sd::bind("x", x), sd::bind("y", y)};
        },
        [&] {
          const std::size_t q = n / K;
          for (std::size_t e = 0; e < n; ++e) {
            const std::size_t i = e / q, j = e % q;
            const std::size_t src = (K - 1 - i) * q + j;
            const float a = x[src] + static_cast<float>(src / q);
            REQUIRE(y[e] == a * 2);
          }
        });
  }
}

TEST_CASE("hunt: copies between adjacent chunks of one buffer on many streams", "[hunt]") {
  constexpr int K = 8;
  auto model = schedule_of(
      [](sd::builder& p) {
        auto x = p.input<float>("x");
        auto y = p.inout<float>("y");
        auto s = p.streams("s", K);
        // shift right by one chunk: chunk i+1 <- chunk i, done from the end
        for (int i = K - 2; i >= 0; --i)
          sd::with_stream(s[i], [&] { sd::copy(y.chunk(i + 1, K), y.chunk(i, K)); });
        sd::copy(y.chunk(0, K), x.chunk(0, K));
        y.chunk(3, K) = y.chunk(3, K) + y.chunk(4, K);
      },
      sd::automatic);
  const std::size_t n = 64;
  const auto x = ramp(n, 1000.0f);
  const auto y0 = ramp(n);
  std::vector<float> y;
  run_many(
      model,
      [&] {
        y = y0;
        return std::vector<sd::binding>{sd::bind("x", x), sd::bind("y", y)};
      },
      [&] {
        std::vector<float> e = y0;
        const std::size_t q = n / K;
        for (int i = K - 2; i >= 0; --i)
          for (std::size_t j = 0; j < q; ++j) e[(i + 1) * q + j] = e[i * q + j];
        for (std::size_t j = 0; j < q; ++j) e[j] = x[j];
        for (std::size_t j = 0; j < q; ++j) e[3 * q + j] += e[4 * q + j];
        REQUIRE(y == e);
      });
}

TEST_CASE("hunt: chunks with 0-d broadcast operands", "[hunt]") {
  constexpr int K = 3;
  auto model = schedule_of(
      [](sd::builder& p) {
        auto x = p.input<float>("x");
        auto s = p.input<float>("s", sd::scalar);
        auto t0 = p.temp<float>("t0", sd::scalar);
        auto y = p.output<float>("y");
        auto lanes = p.streams("lane", K);
        t0 = s * 10;
        for (int i = 0; i < K; ++i)
          sd::with_stream(lanes[i], [&] { y.chunk(i, K) = x.chunk(i, K) * t0 + s + static_cast<float>(i); });
      },
      sd::automatic);
  const std::size_t n = 30;
  const auto x = ramp(n);
  std::vector<float> s{2.0f}, y;
  run_many(
      model,
      [&] {
        y.assign(n, -1.0f);
        return std::vector<sd::binding>{sd::bind("x", x), sd::bind("s", s), sd::bind("y", y)};
      },
      [&] {
        for (std::size_t e = 0; e < n; ++e) REQUIRE(y[e] == x[e] * 20 + 2 + static_cast<float>(e / 10));
      });
}

TEST_CASE("hunt: families with chunks", "[hunt]") {
  constexpr int F = 3, K = 2;
  auto model = schedule_of(
      [](sd::builder& p) {
        auto x = p.inputs<float>("x", F);
        auto y = p.outputs<float>("y", F);
        auto t = p.temps<float>("t", F);
        auto lanes = p.streams("lane", F);
        for (int f = 0; f < F; ++f)
          for (int i = 0; i < K; ++i)
            sd::with_stream(lanes[(f + i) % F],
                            [&] { sd::copy(t[f].chunk(i, K), x[f].chunk(K - 1 - i, K)); });
        for (int f = 0; f < F; ++f) y[f] = t[f] + static_cast<float>(f);
      },
      sd::automatic);
  const std::size_t n = 10;
  std::vector<std::vector<float>> x, y;
  for (int f = 0; f < F; ++f) x.push_back(ramp(n, 100.0f * f));
  run_many(
      model,
      [&] {
        y.assign(F, std::vector<float>(n, -1.0f));
        return std::vector<sd::binding>{sd::bind("x", x), sd::bind("y", y)};
      },
      [&] {
        for (int f = 0; f < F; ++f)
          for (std::size_t e = 0; e < n; ++e) {
            const std::size_t src = (e + n / 2) % n;
            REQUIRE(y[f][e] == x[f][src] + static_cast<float>(f));
          }
      });
}

TEST_CASE("hunt: relaxed placement next to steps", "[hunt]") {
  for (auto o : {sd::automatic, sd::automatic | sd::relaxed}) {
    auto model = schedule_of(
        [](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          auto z = p.output<float>("z");
          auto t = p.temp<float>("t");
          auto side = p.stream("side"), copier = p.stream("copier");
          sd::with_stream(side, [&] { t.chunk(0, 2) = x.chunk(0, 2) + 1; });
          sd::with_stream(side, [&] { t.chunk(1, 2) = x.chunk(1, 2) + 2; });
          sd::with_stream(copier, [&] { sd::copy(z.chunk(1, 2), t.chunk(0, 2)); });
          y.chunk(0, 2) = t.chunk(1, 2) * 3;
          sd::with_stream(side, [&] { y.chunk(1, 2) = x.chunk(0, 2) * 5; });
          z.chunk(0, 2) = y.chunk(1, 2) + t.chunk(0, 2);
        },
        o);
    const std::size_t n = 12, h = n / 2;
    const auto x = ramp(n);
    std::vector<float> y, z;
    run_many(
        model,
        [&] {
          y.assign(n, -1.0f);
          z.assign(n, -1.0f);
          return std::vector<sd::binding>{sd::bind("x", x), sd::bind("y", y), sd::bind("z", z)};
        },
        [&] {
          for (std::size_t j = 0; j < h; ++j) {
            const float t0 = x[j] + 1, t1 = x[h + j] + 2;
            REQUIRE(z[h + j] == t0);
            REQUIRE(y[j] == t1 * 3);
            REQUIRE(y[h + j] == x[j] * 5);
            REQUIRE(z[j] == x[j] * 5 + t0);
          }
        });
  }
}

TEST_CASE("hunt: elementwise statement over a chunk of another domain", "[hunt][bindings]") {
  auto model = schedule_of(
      [](sd::builder& p) {
        auto m = p.domain("m");
        auto x = p.input<float>("x");
        auto y = p.output<float>("y", m);
        y = x.chunk(1, 2) + 1;
      },
      sd::checked);
  INFO((model.ir.ok() ? std::string() : std::string(model.ir.errors[0].message.view())));
  if (!model.ir.ok()) return;  // a compile error is fine too
  const auto plan = sd::view_of(model);
  std::vector<float> x = ramp(8), y(4), y_bad(6, -1.0f);
  sd::host_executor ex;
  std::vector<sd::binding> good{sd::bind("x", x), sd::bind("y", y)};
  ex.run(plan, good);
  CHECK(y == std::vector<float>{5, 6, 7, 8});
  std::vector<sd::binding> bad{sd::bind("x", x), sd::bind("y", y_bad)};
  CHECK_THROWS_AS(ex.run(plan, bad), sd::binding_error);
}

TEST_CASE("hunt: elementwise statements across domains with chunks are compile errors", "[hunt][errors]") {
  auto kind = [](auto body) {
    sd::builder b;
    body(b);
    auto m = sd::passes::schedule(static_cast<sd::builder&&>(b).ir(), sd::checked);
    return m.ir.ok() ? error_kind::none : m.ir.errors[0].kind;
  };
  CHECK(kind([](sd::builder& p) {
          auto m = p.domain("m");
          auto x = p.input<float>("x", m);
          auto y = p.output<float>("y");
          y.chunk(0, 2) = x.chunk(0, 4);  // sizes might agree at run time: still refused
        }) == error_kind::domain_mismatch);
  CHECK(kind([](sd::builder& p) {
          auto m = p.domain("m");
          auto x = p.input<float>("x", m);
          auto y = p.output<float>("y");
          y.chunk(0, 2) = x.chunk(0, 2);
        }) == error_kind::domain_mismatch);
  CHECK(kind([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto s = p.output<float>("s", sd::scalar);
          s = x.chunk(0, 2);
        }) == error_kind::domain_mismatch);
  CHECK(kind([](sd::builder& p) {  // copies may cross domains
          auto m = p.domain("m");
          auto x = p.input<float>("x", m);
          auto t = p.temp<float>("t");
          auto y = p.output<float>("y");
          sd::copy(t.chunk(0, 2), x);
          sd::copy(t.chunk(1, 2), x);
          y = t;
        }) == error_kind::none);
}

// The same programs compiled (sd::program): the compiled loop table, not the
// run-time one.
namespace {
constexpr auto chunk_temps_body = [](sd::builder& p) {
  constexpr int K = 4;
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto a = p.temp<float>("a");
  auto b = p.temp<float>("b");
  auto c = p.temp<float>("c");
  auto s = p.streams("s", K);
  for (int i = 0; i < K; ++i)
    sd::with_stream(s[i], [&] { a.chunk(i, K) = x.chunk(i, K) + static_cast<float>(i); });
  b = a * 2;
  for (int i = 0; i < K; ++i)
    sd::with_stream(s[(i + 1) % K], [&] { c.chunk(i, K) = b.chunk(K - 1 - i, K) + 1; });
  y = c - 1;
};
constexpr auto broadcast_body = [](sd::builder& p) {
  constexpr int K = 3;
  auto x = p.input<float>("x");
  auto s = p.input<float>("s", sd::scalar);
  auto t0 = p.temp<float>("t0", sd::scalar);
  auto y = p.output<float>("y");
  auto lanes = p.streams("lane", K);
  t0 = s * 10;
  for (int i = 0; i < K; ++i)
    sd::with_stream(lanes[i], [&] { y.chunk(i, K) = x.chunk(i, K) * t0 + s + static_cast<float>(i); });
};
constexpr auto family_body = [](sd::builder& p) {
  constexpr int F = 3, K = 2;
  auto x = p.inputs<float, sd::pinned>("x", F);
  auto y = p.outputs<float>("y", F);
  auto t = p.temps<float>("t", F);
  auto lanes = p.streams("lane", F);
  for (int f = 0; f < F; ++f)
    for (int i = 0; i < K; ++i)
      sd::with_stream(lanes[(f + i) % F], [&] { sd::copy(t[f].chunk(i, K), x[f].chunk(K - 1 - i, K)); });
  for (int f = 0; f < F; ++f) y[f] = t[f] + static_cast<float>(f);
};
}  // namespace

TEST_CASE("hunt: compiled programs with chunks, broadcasts and families", "[hunt][compiled]") {
  constexpr auto p1 = sd::program<sd::automatic>(chunk_temps_body);
  constexpr auto p1r = sd::program<sd::automatic | sd::relaxed>(chunk_temps_body);
  constexpr auto p2 = sd::program<sd::automatic>(broadcast_body);
  constexpr auto p3 = sd::program<sd::automatic>(family_body);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    sd::host_executor ex = seed ? sd::host_executor(sd::stress{seed}) : sd::host_executor();
    {
      constexpr int K = 4;
      const std::size_t n = 40, q = n / K;
      const auto x = ramp(n);
      std::vector<float> y(n, -7.0f), y2(n, -7.0f);
      ex.run(p1, sd::bind("x", x), sd::bind("y", y));
      ex.run(p1r, sd::bind("x", x), sd::bind("y", y2));
      for (std::size_t e = 0; e < n; ++e) {
        const std::size_t i = e / q, j = e % q;
        const std::size_t src = (K - 1 - i) * q + j;
        REQUIRE(y[e] == (x[src] + static_cast<float>(src / q)) * 2);
        REQUIRE(y2[e] == y[e]);
      }
    }
    {
      const std::size_t n = 30;
      const auto x = ramp(n);
      std::vector<float> s{2.0f}, y(n, -1.0f);
      ex.run(p2, sd::bind("x", x), sd::bind("s", s), sd::bind("y", y));
      for (std::size_t e = 0; e < n; ++e) REQUIRE(y[e] == x[e] * 20 + 2 + static_cast<float>(e / 10));
    }
    {
      constexpr int F = 3;
      const std::size_t n = 10;
      std::vector<std::vector<float>> x, y(F, std::vector<float>(n, -1.0f));
      for (int f = 0; f < F; ++f) x.push_back(ramp(n, 100.0f * f));
      ex.run(p3, sd::bind("x", x), sd::bind("y", y));
      for (int f = 0; f < F; ++f)
        for (std::size_t e = 0; e < n; ++e) REQUIRE(y[f][e] == x[f][(e + n / 2) % n] + static_cast<float>(f));
    }
  }
}

TEST_CASE("hunt: empty buffers with chunks and copies", "[hunt][empty]") {
  auto model = schedule_of(
      [](sd::builder& p) {
        auto x = p.input<float>("x");
        auto y = p.output<float>("y");
        auto t = p.temp<float>("t");
        auto side = p.stream("side");
        for (int i = 0; i < 4; ++i)
          sd::with_stream(side, [&] { sd::copy(t.chunk(i, 4), x.chunk(3 - i, 4)); });
        y.chunk(0, 2) = t.chunk(1, 2) + 1;
        y.chunk(1, 2) = t.chunk(0, 2) + 1;
      },
      sd::automatic);
  std::vector<float> x, y;
  run_many(
      model,
      [&] {
        return std::vector<sd::binding>{sd::bind("x", x), sd::bind("y", y)};
      },
      [] {}, 3);
}

TEST_CASE("hunt: family members bound to overlapping memory", "[hunt][bindings]") {
  auto model = schedule_of(
      [](sd::builder& p) {
        auto x = p.inputs<float>("x", 2);
        auto y = p.outputs<float>("y", 2);
        sd::copy(y[0].chunk(0, 2), x[0].chunk(1, 2));
        sd::copy(y[0].chunk(1, 2), x[0].chunk(0, 2));
        y[1] = x[1] + 1;
      },
      sd::checked);
  REQUIRE(model.ir.ok());
  const auto plan = sd::view_of(model);
  std::vector<float> a(8, 1.0f), b(8, 2.0f);
  sd::host_executor ex;
  std::vector<std::span<float>> ys{std::span<float>(b), std::span<float>(b)};
  std::vector<std::span<const float>> xs{std::span<const float>(a), std::span<const float>(a)};
  std::vector<sd::binding> list{sd::bind("x", xs), sd::bind("y", ys)};
  CHECK_THROWS_AS(ex.run(plan, list), sd::binding_error);
  std::vector<std::span<const float>> xs2{std::span<const float>(a), std::span<const float>(b)};
  std::vector<std::span<float>> ys2{std::span<float>(b.data(), 8), std::span<float>(a.data(), 8)};
  std::vector<sd::binding> list2{sd::bind("x", xs2), sd::bind("y", ys2)};
  CHECK_THROWS_AS(ex.run(plan, list2), sd::binding_error);  // y[0] is x[1]
}

TEST_CASE("hunt: programs made only of copies, on side streams", "[hunt][steps-only]") {
  constexpr int K = 4;
  auto model = schedule_of(
      [](sd::builder& p) {
        auto x = p.input<float>("x");
        auto y = p.output<float>("y");
        auto z = p.output<float>("z");
        auto t = p.temp<float>("t");
        auto s = p.streams("s", K);
        for (int i = 0; i < K; ++i)
          sd::with_stream(s[i], [&] { sd::copy(t.chunk(i, K), x.chunk(K - 1 - i, K)); });
        for (int i = 0; i < K; ++i)
          sd::with_stream(s[(i + 2) % K], [&] { sd::copy(y.chunk(i, K), t.chunk(i, K)); });
        sd::with_stream(s[1], [&] { sd::copy(z, t); });
      },
      sd::automatic);
  const std::size_t n = 16, q = n / K;
  const auto x = ramp(n);
  std::vector<float> y, z;
  run_many(
      model,
      [&] {
        y.assign(n, -1.0f);
        z.assign(n, -1.0f);
        return std::vector<sd::binding>{sd::bind("x", x), sd::bind("y", y), sd::bind("z", z)};
      },
      [&] {
        for (std::size_t e = 0; e < n; ++e) {
          const std::size_t src = (K - 1 - e / q) * q + e % q;
          REQUIRE(y[e] == x[src]);
          REQUIRE(z[e] == x[src]);
        }
      });
}

TEST_CASE("hunt: copies between a chunk and a 0-d buffer", "[hunt][scalar-copy]") {
  auto model = schedule_of(
      [](sd::builder& p) {
        auto x = p.input<float>("x");
        auto s = p.input<float>("s", sd::scalar);
        auto r = p.output<float>("r", sd::scalar);
        auto t = p.temp<float>("t", sd::scalar);
        auto y = p.output<float>("y");
        auto side = p.stream("side");
        sd::with_stream(side, [&] { sd::copy(t, x.chunk(2, 4)); });
        sd::copy(y.chunk(1, 4), s);
        y.chunk(0, 4) = x.chunk(0, 4) + t;
        sd::with_stream(side, [&] { sd::copy(r, t); });
        y.chunk(2, 4) = t * 2;
        y.chunk(3, 4) = s * 3;
      },
      sd::automatic);
  const auto x = ramp(4, 10.0f);
  std::vector<float> s{5.0f}, r, y;
  run_many(
      model,
      [&] {
        r.assign(1, -1.0f);
        y.assign(4, -1.0f);
        return std::vector<sd::binding>{sd::bind("x", x), sd::bind("s", s), sd::bind("r", r),
                                        sd::bind("y", y)};
      },
      [&] {
        REQUIRE(r[0] == 12.0f);
        REQUIRE(y == std::vector<float>{22.0f, 5.0f, 24.0f, 15.0f});
      });
  // x of 8 elements: a quarter is 2 elements, not the one of a 0-d buffer.
  const auto plan = sd::view_of(model);
  const auto x8 = ramp(8);
  std::vector<float> y8(8);
  std::vector<sd::binding> bad{sd::bind("x", x8), sd::bind("s", s), sd::bind("r", r), sd::bind("y", y8)};
  sd::host_executor ex;
  CHECK_THROWS_AS(ex.run(plan, bad), sd::binding_error);
}

// Found by the hunt: chunks are "read and written like a buffer"
// (docs/concepts.md), but compound assignment (`y.chunk(i, k) += e`) did not
// compile on a chunk, only on a whole buffer.
TEST_CASE("chunk: compound assignment like a buffer's", "[hunt][ops][chunk]") {
  constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.inout<float>("y");
    auto side = p.stream("side");
    y.chunk(0, 4) += x.chunk(0, 4);
    y.chunk(1, 4) -= x.chunk(1, 4) * 2;
    sd::with_stream(side, [&] { y.chunk(2, 4) *= x.chunk(3, 4); });
    y.chunk(3, 4) /= 2;
  });
  const std::string text = prog.to_string();
  CHECK(text.find("y.chunk(0, 4) = y.chunk(0, 4) + x.chunk(0, 4);") != std::string::npos);
  CHECK(text.find("y.chunk(2, 4) = y.chunk(2, 4) * x.chunk(3, 4);") != std::string::npos);
  const auto x = ramp(8, 1.0f);
  std::vector<float> y;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    y = ramp(8, 10.0f);
    sd::host_executor ex = seed ? sd::host_executor(sd::stress{seed}) : sd::host_executor();
    ex.run(prog, sd::bind("x", x), sd::bind("y", y));
    CHECK(y == std::vector<float>{11, 13, 12 - 6, 13 - 8, 14 * 7, 15 * 8, 8, 8.5f});
  }
  // On an input, as on a whole input: write_to_input.
  CHECK(schedule_of(
            [](sd::builder& p) {
              auto x = p.input<float>("x");
              x.chunk(0, 2) += 1;
            },
            sd::checked)
            .ir.errors[0]
            .kind == error_kind::write_to_input);
}

// Found by the hunt: when a domain's buffers were bound to different extents,
// the chunk and copy checks still ran against the first buffer's extent, and
// named the others "bound to" a size they were not bound to (x[1], bound to 9
// elements, was reported "bound to 8 elements, not a multiple of 3", and each
// copy out of it as copying 2 elements).
TEST_CASE("bindings: disagreeing extents are reported alone, not through chunks and copies",
          "[hunt][bindings]") {
  auto model = schedule_of(
      [](sd::builder& p) {
        auto m = p.domain("m");
        auto x = p.inputs<float>("x", 2);
        auto t = p.temp<float>("t", m);
        auto y = p.output<float>("y", m);
        for (int i = 0; i < 3; ++i) sd::copy(t.chunk(i, 3), x[i % 2].chunk(i, 3));
        y = t;
      },
      sd::automatic);
  const auto plan = sd::view_of(model);
  std::vector<float> a(8), b(9), y(9);
  std::vector<std::span<const float>> xs{a, b};
  std::vector<sd::binding> list{sd::bind("x", xs), sd::bind("y", y)};
  sd::host_executor ex;
  std::string what;
  try {
    ex.run(plan, list);
  } catch (const sd::binding_error& e) {
    what = e.what();
  }
  INFO(what);
  CHECK(
      what.find(
          "buffers of domain 'n' must have one extent, but 'x[0]' is bound to 8 elements and 'x[1]' to 9") !=
      std::string::npos);
  CHECK(what.find("'x[1]' (float, domain 'n') is split into 3 chunks") == std::string::npos);
  CHECK(what.find("copies 2 elements") == std::string::npos);
  // Agreeing extents that are not a multiple of 3: the chunk checks speak.
  std::vector<float> a8(8), b8(8);
  std::vector<std::span<const float>> xs8{a8, b8};
  std::vector<sd::binding> list8{sd::bind("x", xs8), sd::bind("y", y)};
  CHECK_THROWS_WITH(ex.run(plan, list8), Catch::Matchers::Contains("is split into 3 chunks"));
}
