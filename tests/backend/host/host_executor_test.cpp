// Executors run plans with the meaning of docs/concepts.md: program order per
// stream, event and stream waits, entry and exit edges, temps in registers
// and workspace slots, 0-d buffers, params, several domains. One source: g++
// builds run it on the host executor, nvcc builds on the CUDA executor
// (tests/backend/cuda/semantics_test.cu).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <utility>

#include "../executor_under_test.hpp"
#include "host_test_support.hpp"
#include "test_programs.hpp"

using host_test::ramp;
using host_test::rerecorded;
using host_test::seed;

TEST_CASE("seed: y on the side stream, z on main after the wait", "[host][seed]") {
  const std::size_t n = GENERATE(std::size_t{1}, std::size_t{511}, std::size_t{512}, std::size_t{1000});
  const auto x = ramp<float>(n, -3.0f, 0.5f);
  std::vector<float> y(n, -1.0f), z(n, -1.0f);
  backend_test::executor ex;
  for (int repeat = 0; repeat < 2; ++repeat) {  // an executor runs any number of times
    ex.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += y[i] != x[i] + 1 || z[i] != (x[i] + 1) * 2;
    CHECK(wrong == 0);
  }
}

TEST_CASE("binding forms: span, const span, pointer and count, vectors", "[host][bindings]") {
  constexpr std::size_t n = 64;
  const auto x = ramp<float>(n, 0.0f, 1.0f);
  float y[n];
  std::vector<float> z(n);
  backend_test::executor ex;
  ex.run(seed, sd::bind("x", std::span<const float>(x)), sd::bind("y", y, n),
         sd::bind("z", std::span<float>(z)));
  CHECK(y[10] == 11.0f);
  CHECK(z[10] == 22.0f);
  float x_array[n];
  std::copy(x.begin(), x.end(), x_array);
  ex.run(seed, sd::bind("x", x_array), sd::bind("y", y),
         sd::bind("z", z));  // C arrays: the count is their size
  CHECK(z[20] == 42.0f);
  std::vector<sd::binding> list{sd::bind("x", x), sd::bind("y", std::span<float, n>(y)), sd::bind("z", z)};
  ex.run(seed, list);  // a list built at run time
  CHECK(z[63] == 128.0f);
}

TEST_CASE("empty domains run nothing and accept null pointers", "[host][bindings]") {
  backend_test::executor ex;
  ex.run(seed, sd::bind<const float>("x", nullptr, 0), sd::bind<float>("y", nullptr, 0),
         sd::bind<float>("z", nullptr, 0));
  SUCCEED("nothing to compute, nothing touched");
}

namespace {
constexpr auto accumulate = sd::program([](sd::builder& p) {
  auto x = p.input<double>("x");
  auto acc = p.inout<double>("acc");
  auto count = p.inout<std::int32_t>("count", sd::scalar);
  acc += x * 2;
  count += 1;
});
}  // namespace

TEST_CASE("inout buffers read their old contents and keep the result", "[host][inout]") {
  constexpr std::size_t n = 700;
  const auto x = ramp<double>(n, 1.0, 1.0);
  std::vector<double> acc(n, 0.5);
  std::int32_t count = 10;
  backend_test::executor ex;
  for (int r = 0; r < 3; ++r)
    ex.run(accumulate, sd::bind("x", x), sd::bind("acc", acc), sd::bind("count", &count, 1));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += acc[i] != 0.5 + 3 * 2 * x[i];
  CHECK(wrong == 0);
  CHECK(count == 13);
}

namespace {
// A 0-d input and a 0-d output computed from it on one stream; the 0-d
// result broadcast over a domain on another stream after a wait.
constexpr auto scalars = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto s0 = p.input<float>("s0", sd::scalar);
  auto alpha = p.param<float>("alpha");
  auto s1 = p.output<float>("s1", sd::scalar);
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto ready = p.event("ready");
  sd::with_stream(side, [&] {
    s1 = s0 * 2 + alpha;
    ready.record();
  });
  y = x * s0;  // main reads the 0-d input: broadcast
  ready.wait();
  z = x / s1 + 1;  // the 0-d result of the side stream: broadcast
});
}  // namespace

TEST_CASE("0-d buffers broadcast over a domain and are written by 0-d kernels", "[host][scalar]") {
  constexpr std::size_t n = 1500;
  const auto x = ramp<float>(n, 1.0f, 0.5f);
  const float s0 = 1.5f;
  float s1 = -1.0f;
  std::vector<float> y(n), z(n);
  backend_test::executor ex;
  ex.run(scalars, sd::bind("x", x), sd::bind("s0", &s0, 1), sd::bind("alpha", 0.25f), sd::bind("s1", &s1, 1),
         sd::bind("y", y), sd::bind("z", z));
  CHECK(s1 == 1.5f * 2 + 0.25f);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += y[i] != x[i] * 1.5f || z[i] != x[i] / s1 + 1;
  CHECK(wrong == 0);
}

namespace {
// t lives in a register (one kernel); u is read by a kernel on each stream,
// and v is written on side beside an output (so its kernel stays there) and
// read on main: both need workspace slots.
constexpr auto temps = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto t = p.temp<float>("t");
  auto u = p.temp<float>("u");
  auto v = p.temp<double>("v");
  auto y = p.output<float>("y");
  auto z = p.output<double>("z");
  auto w = p.output<float>("w");
  auto side = p.stream("side");
  auto split = p.event("split");
  auto done = p.event("done");
  t = x + 1;
  y = t * t;
  u = y - x;
  split.record();  // ends the kernel: u is read by a second kernel
  y = u * 2;
  sd::with_stream(side, [&] {
    split.wait();
    v = sd::cast<double>(x) * 3;
    w = u + 1;
    done.record();
  });
  done.wait();
  z = v + u;
});
}  // namespace

TEST_CASE("temps live in registers or workspace slots and hold their values", "[host][temps]") {
  constexpr auto plan = temps.plan();
  STATIC_REQUIRE(plan.storage_of("t") == sd::storage_register);
  STATIC_REQUIRE(plan.storage_of("u") >= 0);
  STATIC_REQUIRE(plan.storage_of("v") >= 0);
  constexpr std::size_t n = 1111;
  const auto x = ramp<float>(n, -2.0f, 0.125f);
  std::vector<float> y(n), w(n);
  std::vector<double> z(n);
  backend_test::executor ex;
  ex.run(temps, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z), sd::bind("w", w));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float t = x[i] + 1, u = t * t - x[i];
    wrong += y[i] != u * 2;
    wrong += w[i] != u + 1;
    wrong += z[i] != double(x[i]) * 3 + double(u);
  }
  CHECK(wrong == 0);
}

namespace {
constexpr auto nested = sd::program([](sd::builder& p) {
  auto x = p.input<std::int64_t>("x");
  auto y1 = p.output<std::int64_t>("y1");
  auto y2 = p.output<std::int64_t>("y2");
  auto y3 = p.output<std::int64_t>("y3");
  auto z = p.output<std::int64_t>("z");
  auto a = p.stream("a");
  auto b = p.stream("b");
  auto ea = p.event("ea");
  auto eb = p.event("eb");
  sd::with_stream(a, [&] {
    y1 = x + 1;
    sd::with_stream(b, [&] {  // the innermost scope wins
      y2 = x * 3;
      eb.record();
    });
    y3 = y1 - 1;  // back on a
    ea.record();
  });
  ea.wait();
  eb.wait();
  z = y1 + y2 + y3;
});
}  // namespace

TEST_CASE("nested stream scopes: the innermost stream runs the work", "[host][streams]") {
  constexpr auto plan = nested.plan();
  STATIC_REQUIRE(plan.statements("a") == 2);
  STATIC_REQUIRE(plan.statements("b") == 1);
  constexpr std::size_t n = 900;
  const auto x = ramp<std::int64_t>(n, -100, 7);
  std::vector<std::int64_t> y1(n), y2(n), y3(n), z(n);
  backend_test::executor ex;
  ex.run(nested, sd::bind("x", x), sd::bind("y1", y1), sd::bind("y2", y2), sd::bind("y3", y3),
         sd::bind("z", z));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += z[i] != (x[i] + 1) + x[i] * 3 + x[i];
  CHECK(wrong == 0);
}

namespace {
constexpr auto waits_for_stream = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto w = p.output<float>("w");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  sd::with_stream(side, [&] {
    y = x + 1;
    w = y * y;
  });
  p.main_stream().wait_stream(side);
  z = y + w;
});
}  // namespace

TEST_CASE("wait_stream: main waits for everything issued on side so far", "[host][streams]") {
  constexpr std::size_t n = 800;
  const auto x = ramp<float>(n, 0.0f, 0.25f);
  std::vector<float> y(n), w(n), z(n);
  backend_test::executor ex;
  ex.run(waits_for_stream, sd::bind("x", x), sd::bind("y", y), sd::bind("w", w), sd::bind("z", z));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += z[i] != (x[i] + 1) + (x[i] + 1) * (x[i] + 1);
  CHECK(wrong == 0);
}

TEST_CASE("a re-recorded event: each wait waits for the record it follows", "[host][events]") {
  constexpr std::size_t n = 600;
  const auto x = ramp<float>(n, 0.0f, 1.0f);
  std::vector<float> a(n), b(n), c(n, -1.0f), d(n);
  backend_test::executor ex;
  ex.run(rerecorded, sd::bind("x", x), sd::bind("a", a), sd::bind("b", b), sd::bind("c", c),
         sd::bind("d", d));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += d[i] != (x[i] + 5) + (x[i] + 1) * 2;
  CHECK(wrong == 0);
}

namespace {
// The seed without the wait, and a write-after-read: sd::automatic orders both.
constexpr auto automatic = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto w = p.inout<float>("w");
  auto side = p.stream("side");
  sd::with_stream(side, [&] { y = x + 1; });
  z = y * 2 + w;                               // reads y (side wrote it) and w
  sd::with_stream(side, [&] { w = x * 10; });  // overwrites w after main read it
});
}  // namespace

TEST_CASE("sd::automatic inserts the syncs a racy program needs", "[host][automatic]") {
  constexpr auto plan = automatic.plan();
  STATIC_REQUIRE(plan.waits("main") >= 1);
  STATIC_REQUIRE(plan.waits("side") >= 1);
  constexpr std::size_t n = 1024;
  const auto x = ramp<float>(n, 0.0f, 1.0f);
  std::vector<float> y(n, -1.0f), z(n), w(n, 3.0f);
  backend_test::executor ex;
  ex.run(automatic, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z), sd::bind("w", w));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += z[i] != (x[i] + 1) * 2 + 3.0f || w[i] != x[i] * 10;
  CHECK(wrong == 0);
}

namespace {
template <sd::options O>
constexpr auto chain = sd::program<O>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto t = p.temp<float>("t");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  t = x * 2;
  y = t + 1;
  z = sd::relu(y - 3) * t;
  y = y * y;
});
}  // namespace

TEST_CASE("fusion on and off give the same results", "[host][fusion]") {
  STATIC_REQUIRE(chain<sd::checked>.plan().kernel_count() == 1);
  STATIC_REQUIRE(chain<sd::no_fusion>.plan().kernel_count() == 4);
  constexpr std::size_t n = 1234;
  const auto x = ramp<float>(n, -5.0f, 0.01f);
  std::vector<float> y1(n), z1(n), y2(n), z2(n);
  backend_test::executor ex;
  ex.run(chain<sd::checked>, sd::bind("x", x), sd::bind("y", y1), sd::bind("z", z1));
  ex.run(chain<sd::no_fusion>, sd::bind("x", x), sd::bind("y", y2), sd::bind("z", z2));
  CHECK(y1 == y2);
  CHECK(z1 == z2);
  const float t = x[1000] * 2, y = t + 1;
  CHECK(z1[1000] == std::max(y - 3, 0.0f) * t);
  CHECK(y1[1000] == y * y);
}

namespace {
// Two chains of temps on two side streams joined on main: placement computes
// them inside main's kernel, sd::as_written keeps each on its stream.
template <sd::options O>
constexpr auto temp_chains = sd::program<O>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto out = p.output<float>("out");
  auto a1 = p.temp<float>("a1");
  auto a = p.temp<float>("a");
  auto b1 = p.temp<float>("b1");
  auto b = p.temp<float>("b");
  auto s1 = p.stream("s1");
  auto s2 = p.stream("s2");
  sd::with_stream(s1, [&] {
    a1 = x * 2;
    a = sd::relu(a1 + 1);
  });
  sd::with_stream(s2, [&] {
    b1 = x * 3;
    b = sd::abs(b1 - 1);
  });
  out = a + b;
});
}  // namespace

TEST_CASE("sd::as_written keeps every statement on its stream, with the same results", "[host][placement]") {
  constexpr auto placed = temp_chains<sd::automatic>.plan();
  constexpr auto written = temp_chains<sd::automatic | sd::as_written>.plan();
  STATIC_REQUIRE(placed.kernel_count() == 1);  // both chains moved into main's kernel
  STATIC_REQUIRE(placed.statements("main") == 5);
  STATIC_REQUIRE(written.kernel_count() == 3);
  STATIC_REQUIRE(written.statements("s1") == 2);
  STATIC_REQUIRE(written.statements("s2") == 2);
  STATIC_REQUIRE(written.statements("main") == 1);
  STATIC_REQUIRE(written.waits("main") == 2);
  STATIC_REQUIRE(!written.has_note("moved"));
  STATIC_REQUIRE(written.has_note("placement as written (sd::as_written)"));
  constexpr std::size_t n = 1500;
  const auto x = ramp<float>(n, -4.0f, 0.01f);
  std::vector<float> out1(n, -1.0f), out2(n, -1.0f);
  backend_test::executor ex;
  ex.run(temp_chains<sd::automatic>, sd::bind("x", x), sd::bind("out", out1));
  ex.run(temp_chains<sd::automatic | sd::as_written>, sd::bind("x", x), sd::bind("out", out2));
  CHECK(out1 == out2);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    wrong += out2[i] != std::max(x[i] * 2 + 1, 0.0f) + std::abs(x[i] * 3 - 1);
  CHECK(wrong == 0);
}

TEST_CASE("many streams: eight side streams joined on main", "[host][streams]") {
  STATIC_REQUIRE(host_test::many_streams.plan().stream_count() == 9);
  constexpr std::size_t n = 2000;
  const auto x = ramp<std::int32_t>(n, -1000, 1);
  std::vector<std::vector<std::int32_t>> y(8, std::vector<std::int32_t>(n));
  std::vector<std::int32_t> z(n);
  std::vector<sd::binding> list{sd::bind("x", x), sd::bind("z", z)};
  for (int k = 0; k < 8; ++k)
    list.push_back(sd::bind(host_test::buffer_names[k], y[static_cast<std::size_t>(k)]));
  backend_test::executor ex;
  ex.run(host_test::many_streams, list);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += z[i] != x[i] + x[i] * 28 + 28;  // sum of k and of x*k, k < 8
  CHECK(wrong == 0);
}

namespace {
constexpr auto two_domains = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto x = p.input<float>("x");
  auto u = p.input<float>("u", m);
  auto y = p.output<float>("y");
  auto v = p.output<float>("v", m);
  auto side = p.stream("side");
  y = x + 1;
  sd::with_stream(side, [&] { v = u * 2; });
  y = y * 3;
});
}  // namespace

TEST_CASE("buffers of two domains with different extents", "[host][domains]") {
  constexpr auto plan = two_domains.plan();
  STATIC_REQUIRE(plan.kernel_count() == 2);
  const auto x = ramp<float>(1025, 0.0f, 1.0f);
  const auto u = ramp<float>(37, 5.0f, 1.0f);
  std::vector<float> y(1025), v(37);
  backend_test::executor ex;
  ex.run(two_domains, sd::bind("x", x), sd::bind("u", u), sd::bind("y", y), sd::bind("v", v));
  CHECK(y[1024] == (1024.0f + 1) * 3);
  CHECK(v[36] == 41.0f * 2);
}

namespace {
// An optimizer-like step written tensor by tensor over two domains, with a
// temp, a double tensor and a 0-d value among them: one launch of
// independent kernels (statements #3 and #4 join #0's kernel across the
// others), then a launch after the 0-d value it reads.
constexpr int tensors = 3;
constexpr auto multi_tensor = sd::program([](sd::builder& p) {
  auto big = p.domain("big");
  auto small = p.domain("small");
  auto lr = p.param<float>("lr");
  auto wb = p.inouts<float>("wb", tensors, big);
  auto gb = p.inputs<float>("gb", tensors, big);
  auto ws = p.inouts<double>("ws", tensors, small);
  auto gs = p.inputs<double>("gs", tensors, small);
  auto t = p.temp<float>("t", big);
  auto norm = p.inout<float>("norm", sd::scalar);
  t = gb[0] * 2;  // #0
  for (int i = 0; i < tensors; ++i) {
    ws[i] = ws[i] - lr * gs[i];
    if (i > 0) wb[i] = wb[i] - lr * gb[i];
  }
  wb[0] = wb[0] - lr * t;  // joins #0's kernel
  norm = norm + 1;         // 0-d, independent
  wb[1] = wb[1] * norm;    // reads the 0-d value: the next launch
});
}  // namespace

TEST_CASE("kernels of two domains between syncs run as one launch with the program's meaning",
          "[host][domains][multi_tensor]") {
  constexpr auto plan = multi_tensor.plan();
  STATIC_REQUIRE(plan.launch_count() == 2);
  STATIC_REQUIRE(plan.kernels[0].segments > 2);
  STATIC_REQUIRE(plan.storage_of("t") == sd::storage_register);
  constexpr std::size_t nb = 4099, ns = 37;  // odd sizes: vector heads and tails
  std::vector<std::vector<float>> wb, gb;
  std::vector<std::vector<double>> ws, gs;
  for (int i = 0; i < tensors; ++i) {
    wb.push_back(ramp<float>(nb, 1.0f + static_cast<float>(i), 0.25f));
    gb.push_back(ramp<float>(nb, 0.5f, 0.125f * static_cast<float>(i + 1)));
    ws.push_back(ramp<double>(ns, 2.0 + i, 0.5));
    gs.push_back(ramp<double>(ns, -1.0, 0.25 * (i + 1)));
  }
  const auto wb0 = wb;
  const auto ws0 = ws;
  float norm = 2.0f;
  const float lr = 0.5f;
  // Members bound one by one ("wb[0]", ...): backend_test::executor copies
  // plain buffers to the device, not families.
  std::vector<std::string> names;
  names.reserve(4 * tensors);
  std::vector<sd::binding> bindings{sd::bind("lr", lr), sd::bind("norm", &norm, 1)};
  for (int i = 0; i < tensors; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const auto member = "[" + std::to_string(i) + "]";
    for (const char* family : {"wb", "gb", "ws", "gs"}) names.push_back(family + member);
    bindings.push_back(sd::bind(names[names.size() - 4], wb[k]));
    bindings.push_back(sd::bind(names[names.size() - 3], std::as_const(gb[k])));
    bindings.push_back(sd::bind(names[names.size() - 2], ws[k]));
    bindings.push_back(sd::bind(names[names.size() - 1], std::as_const(gs[k])));
  }
  backend_test::executor ex;
  ex.run(multi_tensor, bindings);
  CHECK(norm == 3.0f);
  std::size_t wrong = 0;
  for (int i = 0; i < tensors; ++i) {
    const auto k = static_cast<std::size_t>(i);
    for (std::size_t j = 0; j < nb; ++j) {
      float want = i == 0 ? wb0[k][j] - lr * (gb[k][j] * 2) : wb0[k][j] - lr * gb[k][j];
      if (i == 1) want = want * 3.0f;
      wrong += wb[k][j] != want;
    }
    for (std::size_t j = 0; j < ns; ++j) wrong += ws[k][j] != ws0[k][j] - static_cast<double>(lr) * gs[k][j];
  }
  CHECK(wrong == 0);
}
