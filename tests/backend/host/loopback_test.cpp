// Collectives on the host executor (backend/host/loopback.hpp): every rank
// a thread of an sd::loopback_world, with 2 and 4 ranks; every reduce op
// over every element type NCCL reduces that streamdsl has, in place and
// into another buffer, on chunks; reduce_scatter, all_gather, broadcast;
// a collective beside a chain on another stream (sd::automatic); and every
// run-time refusal, before anything runs, naming the buffer and the rank.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#ifdef STREAMDSL_HAS_HALF
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif
#include <streamdsl/backend/host/loopback.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

using bindings = std::vector<sd::binding>;

// Rank r's element i: small integers, exact in every type (2 and 4 ranks).
double value(int rank, std::size_t i) {
  return static_cast<double>((i % 5) + static_cast<std::size_t>(rank) + 1);
}

template <class T>
std::vector<T> rank_values(int rank, std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(static_cast<float>(value(rank, i)));
  return v;
}

// What op over ranks gives for element i, as the element type computes it
// (integers wrap: the product's low bits).
template <class T>
double expected(sd::reduce_op op, int ranks, std::size_t i) {
  std::int64_t sum = 0, prod = 1;
  double lo = value(0, i), hi = value(0, i);
  for (int r = 0; r < ranks; ++r) {
    const auto v = static_cast<std::int64_t>(value(r, i));
    sum += v;
    prod *= v;
    lo = std::min(lo, value(r, i));
    hi = std::max(hi, value(r, i));
  }
  switch (op) {
    case sd::reduce_op::sum: return static_cast<double>(sum);
    case sd::reduce_op::prod:
      if constexpr (std::is_integral_v<T>)
        return static_cast<double>(static_cast<T>(prod));  // modular (C++20)
      else
        return static_cast<double>(prod);
    case sd::reduce_op::min: return lo;
    case sd::reduce_op::max: return hi;
    case sd::reduce_op::avg: return static_cast<double>(sum) / ranks;
  }
  return 0;
}

template <class T>
double as_double(T v) {
  return static_cast<double>(static_cast<float>(v));
}

// Every reduce op in place (avg for floating types only), max into another
// buffer, on a chunk too, and the three other collectives.
template <class T, bool Floating>
constexpr auto every_op = sd::program([](sd::builder& p) {
  auto shard = p.domain("shard");
  auto all = p.domain("all");
  auto x = p.input<T>("x");
  auto s = p.inout<T>("s");
  auto m = p.inout<T>("m");
  auto lo = p.inout<T>("lo");
  auto hi = p.inout<T>("hi");
  auto av = p.inout<T>("av");
  auto y = p.output<T>("y");
  auto rs = p.output<T>("rs", shard);
  auto ag = p.output<T>("ag", all);
  auto b = p.inout<T>("b");
  auto bo = p.output<T>("bo");
  sd::all_reduce(s, sd::reduce_op::sum);
  sd::all_reduce(m, sd::reduce_op::prod);
  sd::all_reduce(lo.chunk(0, 2), sd::reduce_op::min);  // chunk 1 stays this rank's
  sd::all_reduce(lo.chunk(1, 2), sd::reduce_op::min);
  sd::all_reduce(hi, sd::reduce_op::max);
  if constexpr (Floating) sd::all_reduce(av, sd::reduce_op::avg);
  y = sd::all_reduce(x, sd::reduce_op::max);
  rs = sd::reduce_scatter(x, sd::reduce_op::sum);
  ag = sd::all_gather(x);
  sd::broadcast(b, 1);
  bo = sd::broadcast(x, 0);
});

template <class T>
void check_every_op(int ranks) {
  constexpr bool floating = !std::is_integral_v<T>;
  const std::size_t n = 20;  // divisible by 4
  std::vector<std::vector<T>> x(ranks), s(ranks), m(ranks), lo(ranks), hi(ranks), av(ranks), y(ranks),
      rs(ranks), ag(ranks), b(ranks), bo(ranks);
  for (int r = 0; r < ranks; ++r) {
    x[r] = s[r] = m[r] = lo[r] = hi[r] = av[r] = b[r] = rank_values<T>(r, n);
    y[r].assign(n, T(0.0f));
    bo[r].assign(n, T(0.0f));
    rs[r].assign(n / static_cast<std::size_t>(ranks), T(0.0f));
    ag[r].assign(n * static_cast<std::size_t>(ranks), T(0.0f));
  }
  sd::loopback_world world(ranks);
  world.run(every_op<T, floating>, [&](int r) {
    return bindings{sd::bind("x", x[r]),   sd::bind("s", s[r]),   sd::bind("m", m[r]),  sd::bind("lo", lo[r]),
                    sd::bind("hi", hi[r]), sd::bind("av", av[r]), sd::bind("y", y[r]),  sd::bind("rs", rs[r]),
                    sd::bind("ag", ag[r]), sd::bind("b", b[r]),   sd::bind("bo", bo[r])};
  });
  for (int r = 0; r < ranks; ++r)
    for (std::size_t i = 0; i < n; ++i) {
      INFO("rank " << r << " of " << ranks << ", element " << i);
      CHECK(as_double(s[r][i]) == expected<T>(sd::reduce_op::sum, ranks, i));
      CHECK(as_double(m[r][i]) == expected<T>(sd::reduce_op::prod, ranks, i));
      CHECK(as_double(lo[r][i]) == expected<T>(sd::reduce_op::min, ranks, i));
      CHECK(as_double(hi[r][i]) == expected<T>(sd::reduce_op::max, ranks, i));
      if constexpr (floating) CHECK(as_double(av[r][i]) == expected<T>(sd::reduce_op::avg, ranks, i));
      CHECK(as_double(y[r][i]) == expected<T>(sd::reduce_op::max, ranks, i));
      CHECK(as_double(b[r][i]) == value(1, i));
      CHECK(as_double(bo[r][i]) == value(0, i));
      CHECK(as_double(x[r][i]) == value(r, i));  // sources untouched
      for (int k = 0; k < ranks; ++k)
        CHECK(as_double(ag[r][static_cast<std::size_t>(k) * n + i]) == value(k, i));
    }
  const std::size_t part = n / static_cast<std::size_t>(ranks);
  for (int r = 0; r < ranks; ++r)
    for (std::size_t i = 0; i < part; ++i)
      CHECK(as_double(rs[r][i]) ==
            expected<T>(sd::reduce_op::sum, ranks, static_cast<std::size_t>(r) * part + i));
}

}  // namespace

TEMPLATE_TEST_CASE("loopback: every reduce op, in place and not, and every collective, on 2 and 4 ranks",
                   "[loopback][collective]", std::int8_t, std::uint8_t, std::int32_t, std::uint32_t,
                   std::int64_t, std::uint64_t, float, double) {
  check_every_op<TestType>(2);
  check_every_op<TestType>(4);
}

#ifdef STREAMDSL_HAS_HALF
TEMPLATE_TEST_CASE("loopback: the 16-bit float types", "[loopback][collective][half]", __half,
                   __nv_bfloat16) {
  check_every_op<TestType>(2);
  check_every_op<TestType>(4);
}
#endif

TEST_CASE("loopback: the 16-bit float types are refused without CUDA's headers, or tested with them",
          "[loopback][collective][half]") {
#ifdef STREAMDSL_HAS_HALF
  SUCCEED("tested above");
#else
  WARN("__half and __nv_bfloat16 collectives not tested: this build has no CUDA headers");
#endif
}

namespace {

// A data-parallel step: the gradient in buckets on main, each all-reduced on
// the comm stream as soon as it is written; sd::automatic orders them.
constexpr auto data_parallel = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto w = p.inout<float>("w");
  auto g = p.temp<float>("g");
  auto side = p.output<float>("side");
  auto comm = p.stream("comm");
  auto other = p.stream("other");
  constexpr int buckets = 4;
  for (int i = 0; i < buckets; ++i) {
    g.chunk(i, buckets) = x.chunk(i, buckets) * 2 + 1;
    sd::with_stream(comm, [&] { sd::all_reduce(g.chunk(i, buckets), sd::reduce_op::avg); });
  }
  sd::with_stream(other, [&] { side = sd::exp(x) * 0 + x * 3; });  // a chain beside the collectives
  w = w - g * 0.5f;
});

}  // namespace

TEST_CASE("loopback: bucketed all-reduce overlapped with a chain, synced by sd::automatic, under stress",
          "[loopback][collective][sync]") {
  const std::string plan = data_parallel.to_string();
  CHECK(plan.find("sd::all_reduce(g.chunk(3, 4), sd::reduce_op::avg);") != std::string::npos);
  for (int ranks : {2, 4}) {
    const std::size_t n = 64;
    std::vector<std::vector<float>> x(ranks), w(ranks), side(ranks);
    sd::host_options stressed;
    stressed.stress_mode = sd::stress{11};
    stressed.kernel_helpers = 0;
    sd::loopback_world world(ranks, stressed);
    for (int run = 0; run < 10; ++run) {
      for (int r = 0; r < ranks; ++r) {
        x[r] = rank_values<float>(r, n);
        w[r].assign(n, 100.0f);
        side[r].assign(n, -1.0f);
      }
      world.run(data_parallel, [&](int r) {
        return bindings{sd::bind("x", x[r]), sd::bind("w", w[r]), sd::bind("side", side[r])};
      });
      for (int r = 0; r < ranks; ++r)
        for (std::size_t i = 0; i < n; ++i) {
          double mean = 0;
          for (int k = 0; k < ranks; ++k) mean += (value(k, i) * 2 + 1) / ranks;
          INFO("run " << run << ", rank " << r << " of " << ranks << ", element " << i);
          REQUIRE(w[r][i] == static_cast<float>(100.0 - mean * 0.5));
          REQUIRE(side[r][i] == static_cast<float>(value(r, i) * 3));
        }
    }
  }
}

namespace {

constexpr auto scatter = sd::program([](sd::builder& p) {
  auto shard = p.domain("shard");
  auto x = p.input<float>("x");
  auto s = p.output<float>("s", shard);
  s = sd::reduce_scatter(x, sd::reduce_op::sum);
});
constexpr auto gather = sd::program([](sd::builder& p) {
  auto all = p.domain("all");
  auto x = p.input<float>("x");
  auto a = p.output<float>("a", all);
  a = sd::all_gather(x);
});
constexpr auto from_root_3 = sd::program([](sd::builder& p) {
  auto w = p.inout<float>("w");
  sd::broadcast(w, 3);
});
constexpr auto in_place = sd::program([](sd::builder& p) {
  auto g = p.inout<float>("g");
  sd::all_reduce(g, sd::reduce_op::sum);
});

template <class F>
std::string failure_of(F f) {
  try {
    f();
  } catch (const sd::binding_error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a binding_error: ") + e.what();
  }
  return "no error";
}

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("loopback: extents that the world's size refuses are binding errors naming buffer and rank",
          "[loopback][collective][errors]") {
  sd::loopback_world world(4);
  std::vector<std::vector<float>> x(4, std::vector<float>(10)), s(4, std::vector<float>(2)),
      a(4, std::vector<float>(30));
  // reduce_scatter: 10 elements over 4 ranks.
  auto message = failure_of([&] {
    world.run(scatter, [&](int r) { return bindings{sd::bind("x", x[r]), sd::bind("s", s[r])}; });
  });
  INFO(message);
  CHECK(has(message,
            "statement #0 `s = sd::reduce_scatter(x, sd::reduce_op::sum)` on stream 'main' on rank 0 of 4"));
  CHECK(has(message,
            "input buffer 'x' (float, domain 'n') holds 10 elements, which the world's 4 ranks cannot "
            "share equally"));
  // reduce_scatter: a target of the wrong size.
  std::vector<std::vector<float>> x12(4, std::vector<float>(12));
  message = failure_of([&] {
    world.run(scatter, [&](int r) { return bindings{sd::bind("x", x12[r]), sd::bind("s", s[r])}; });
  });
  CHECK(has(message,
            "output buffer 's' (float, domain 'shard') holds 2 elements, and sd::reduce_scatter gives "
            "each of 4 ranks 3 (12 / 4); bind it with 3 elements"));
  // all_gather: target != 4 * source.
  message = failure_of([&] {
    world.run(gather, [&](int r) { return bindings{sd::bind("x", x[r]), sd::bind("a", a[r])}; });
  });
  CHECK(has(message,
            "output buffer 'a' (float, domain 'all') holds 30 elements, and sd::all_gather gathers 4 "
            "ranks' 10 (40); bind it with 40 elements"));
  // broadcast: root 3 in a world of 2.
  sd::loopback_world pair(2);
  message = failure_of([&] { pair.run(from_root_3, [&](int r) { return bindings{sd::bind("w", x[r])}; }); });
  CHECK(has(message, "the root rank 3 is not a rank of a world of 2 (ranks 0 to 1)"));
  // A communicator of another size than the bindings were made for: an all_gather sized for 4 on 2 ranks.
  std::vector<std::vector<float>> a40(4, std::vector<float>(40));
  message = failure_of([&] {
    pair.run(gather, [&](int r) { return bindings{sd::bind("x", x[r]), sd::bind("a", a40[r])}; });
  });
  CHECK(has(message,
            "on rank 0 of 2: output buffer 'a' (float, domain 'all') holds 40 elements, and "
            "sd::all_gather gathers 2 ranks' 10 (20); bind it with 20 elements, or run on the "
            "communicator of the size the bindings were made for"));
  // Works with the right extents, after the failures (the world resets).
  std::vector<std::vector<float>> s3(4, std::vector<float>(3, -1.0f));
  for (int r = 0; r < 4; ++r) x12[r].assign(12, static_cast<float>(r + 1));
  world.run(scatter, [&](int r) { return bindings{sd::bind("x", x12[r]), sd::bind("s", s3[r])}; });
  for (int r = 0; r < 4; ++r)
    for (float v : s3[r]) CHECK(v == 10.0f);
}

TEST_CASE("loopback: extents that differ across ranks are refused on every rank before anything runs",
          "[loopback][collective][errors]") {
  sd::loopback_world world(2);
  std::vector<std::vector<float>> g = {std::vector<float>(8, 1.0f), std::vector<float>(6, 1.0f)};
  const auto message =
      failure_of([&] { world.run(in_place, [&](int r) { return bindings{sd::bind("g", g[r])}; }); });
  INFO(message);
  CHECK(has(message,
            "statement #0 `sd::all_reduce(g, sd::reduce_op::sum)` on stream 'main': inout buffer 'g' "
            "(float, domain 'n') is bound with 6 elements on rank 1 of 2 and 8 on rank 0"));
  for (const auto& v : g)
    for (float e : v) CHECK(e == 1.0f);  // nothing ran
}

TEST_CASE("loopback: a rank that fails releases the others; a run without a communicator is refused",
          "[loopback][collective][errors]") {
  sd::loopback_world world(2);
  std::vector<std::vector<float>> g(2, std::vector<float>(8, 1.0f));
  // Rank 1 binds nothing: its binding error is the one rethrown, rank 0 does not hang.
  auto message = failure_of([&] {
    world.run(in_place, [&](int r) { return r == 0 ? bindings{sd::bind("g", g[0])} : bindings{}; });
  });
  CHECK(has(message, "missing binding for inout buffer 'g'"));
  // A failure inside a rank's run (a call that throws) stops the other rank's collective wait.
  constexpr auto throwing = sd::program([](sd::builder& p) {
    auto g = p.inout<float>("g");
    p.call("fail", sd::reads(g), sd::writes(g));
    sd::all_reduce(g, sd::reduce_op::sum);
  });
  try {
    world.run(throwing, [&](int r) {
      return bindings{sd::bind("g", g[r]), sd::bind_call("fail", [r](sd::call_context&) {
                        if (r == 1) throw std::runtime_error("rank 1 fails");
                      })};
    });
    FAIL("no failure");
  } catch (const sd::collective_aborted& e) {
    FAIL(std::string("the aborted rank's error was rethrown: ") + e.what());
  } catch (const std::exception& e) {
    INFO(e.what());
    CHECK(has(e.what(), "p.call(\"fail\""));
  }
  // Next run works.
  world.run(in_place, [&](int r) { return bindings{sd::bind("g", g[r])}; });
  for (const auto& v : g)
    for (float e : v) CHECK(e == 2.0f);
  // No communicator: a binding error naming the collective.
  sd::host_executor alone;
  std::vector<float> one(8);
  message = failure_of([&] { alone.run(in_place, sd::bind("g", one)); });
  CHECK(has(message,
            "statement #0 `sd::all_reduce(g, sd::reduce_op::sum)` on stream 'main' is a collective, and "
            "this host executor has no communicator"));
}

TEST_CASE("loopback: two executors bound to one rank are refused, and nobody hangs",
          "[loopback][collective][errors]") {
  sd::loopback_world world(2);
  sd::host_executor a(sd::host_options{std::nullopt, 0}), b(sd::host_options{std::nullopt, 0});
  a.bind_communicator(world.communicator(0));
  b.bind_communicator(world.communicator(0));
  std::vector<std::vector<float>> g(2, std::vector<float>(4, 1.0f));
  const auto message = failure_of([&] {
    world.for_each_rank(
        [&](int r) { (r == 0 ? a : b).run(in_place, sd::bind("g", g[static_cast<std::size_t>(r)])); });
  });
  CHECK(has(message, "rank 0 of 2 started a run while another run of rank 0 waits for the other ranks"));
  // The world's own executors still run.
  world.run(in_place, [&](int r) { return bindings{sd::bind("g", g[r])}; });
  for (const auto& v : g)
    for (float e : v) CHECK(e == 2.0f);
}

TEST_CASE("loopback: one rank, and executors bound by hand on threads of the caller's",
          "[loopback][collective]") {
  sd::loopback_world one(1);
  std::vector<float> g(4, 3.0f);
  one.run(in_place, [&](int) { return bindings{sd::bind("g", g)}; });
  for (float e : g) CHECK(e == 3.0f);
  // The executors of a world, run by for_each_rank's threads with the plain run().
  sd::loopback_world world(2);
  std::vector<std::vector<float>> h(2, std::vector<float>(4, 2.0f));
  world.for_each_rank([&](int r) { world.executor(r).run(in_place, sd::bind("g", h[r])); });
  for (const auto& v : h)
    for (float e : v) CHECK(e == 4.0f);
  CHECK(world.executor(1).communicator() == &world.communicator(1));
  CHECK(world.communicator(1).rank() == 1);
  CHECK(world.communicator(1).size() == 2);
}
