// The CUDA executor on a GPU: results of fused kernels, streams and events,
// graph mode, binding errors. Tagged [sanitize] tests are small enough for
// compute-sanitizer (scripts/gpu.sh runs them under memcheck, racecheck and
// synccheck).
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/backend/cuda/device_bindings.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "device_buffer.hpp"

using gpu_test::device_buffer;

namespace {

std::vector<float> random_floats(std::size_t n, unsigned seed, float lo = -4.f, float hi = 4.f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

constexpr auto seed_body = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;
    e.record();
  });
  e.wait();
  z = y * 2;
};
constexpr auto seed = sd::program(seed_body);
constexpr auto seed_relaxed = sd::program<sd::relaxed>(seed_body);

template <class P>
void check_seed(const P& program, std::size_t n, std::size_t offset = 0) {
  const auto xs = random_floats(n + offset, 1);
  device_buffer<float> x(xs), y(n + offset), z(n + offset);
  sd::cuda_executor ex;
  ex.run(program, sd::bind("x", x.cget() + offset, n), sd::bind("y", y.get() + offset, n),
         sd::bind("z", z.get() + offset, n));
  const auto ys = y.download(), zs = z.download();
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(ys[i + offset] == xs[i + offset] + 1.0f);
    REQUIRE(zs[i + offset] == (xs[i + offset] + 1.0f) * 2.0f);
  }
}

}  // namespace

TEST_CASE("seed on the GPU: two streams, an event", "[cuda][sanitize]") { check_seed(seed, 1000); }

TEST_CASE("seed under relaxed placement: one kernel, same results", "[cuda][sanitize]") {
  STATIC_REQUIRE(seed_relaxed.plan().kernel_count() == 1);
  check_seed(seed_relaxed, 1000);
}

TEST_CASE("vector path, scalar tail and unaligned pointers", "[cuda]") {
  check_seed(seed, std::size_t{1} << 20);        // vectorised body
  check_seed(seed, (std::size_t{1} << 20) + 3);  // and a tail
  check_seed(seed, 4097, 1);                     // pointers 4 bytes off 16: 3 scalar, then vectors
  check_seed(seed, 1);
}

TEST_CASE("every operator on the GPU matches the host's element semantics", "[cuda][sanitize]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto d = p.input<double>("d");
    auto i = p.input<std::int32_t>("i");
    auto alpha = p.param<float>("alpha");
    auto arith = p.output<float>("arith");
    auto trans = p.output<float>("trans");
    auto wide = p.output<double>("wide");
    auto logic = p.output<bool>("logic");
    auto ints = p.output<std::int64_t>("ints");
    auto picked = p.output<float>("picked");
    auto narrowed = p.output<std::int32_t>("narrowed");
    arith = -x + x * alpha - x / (x + 10) + sd::min(x, 1) + sd::max(x, alpha) + sd::abs(x) + sd::relu(x);
    trans = sd::exp(x * 0.1f) + sd::log(sd::abs(x) + 1) + sd::sqrt(sd::abs(x)) + sd::rsqrt(sd::abs(x) + 1) +
            sd::sin(x) + sd::cos(x) + sd::tanh(x) + sd::sigmoid(x);
    wide = x * d + d / 3;
    logic = (x < 1) && (x <= 2) || !(x > 3) && (x >= -1) && (x != 0);
    ints = i * std::int64_t{3} + i / 7 - i;
    picked = sd::where(x > 0, x, alpha);
    narrowed = sd::cast<std::int32_t>(x * 1000.0f);
  });
  const std::size_t n = 4099;
  const auto xs = random_floats(n, 7);
  std::vector<double> ds(n);
  std::vector<std::int32_t> is(n);
  for (std::size_t k = 0; k < n; ++k) {
    ds[k] = xs[k] * 0.5 + 0.25;
    is[k] = static_cast<std::int32_t>(k * 7919 % 20001) - 10000;
  }
  device_buffer<float> x(xs), arith(n), trans(n), picked(n);
  device_buffer<double> d(ds), wide(n);
  device_buffer<std::int32_t> i(is), narrowed(n);
  device_buffer<bool> logic(n);
  device_buffer<std::int64_t> ints(n);
  sd::cuda_executor ex;
  const float alpha = 0.75f;
  ex.run(prog, sd::bind("x", x.cget(), n), sd::bind("d", d.cget(), n), sd::bind("i", i.cget(), n),
         sd::bind("alpha", alpha), sd::bind("arith", arith.get(), n), sd::bind("trans", trans.get(), n),
         sd::bind("wide", wide.get(), n), sd::bind("logic", logic.get(), n), sd::bind("ints", ints.get(), n),
         sd::bind("picked", picked.get(), n), sd::bind("narrowed", narrowed.get(), n));
  const auto a = arith.download(), t = trans.download(), p = picked.download();
  const auto w = wide.download();
  const auto l = logic.download();
  const auto in = ints.download();
  const auto nw = narrowed.download();
  for (std::size_t k = 0; k < n; ++k) {
    const float v = xs[k];
    const float expect_arith = -v + v * alpha - v / (v + 10) + std::fmin(v, 1.f) + std::fmax(v, alpha) +
                               std::fabs(v) + (v > 0 ? v : 0.f);
    REQUIRE(a[k] == Approx(expect_arith).epsilon(1e-6).margin(1e-6));
    const float expect_trans = std::exp(v * 0.1f) + std::log(std::fabs(v) + 1) + std::sqrt(std::fabs(v)) +
                               1 / std::sqrt(std::fabs(v) + 1) + std::sin(v) + std::cos(v) + std::tanh(v) +
                               1 / (1 + std::exp(-v));
    REQUIRE(t[k] == Approx(expect_trans).epsilon(1e-5).margin(1e-5));  // device transcendentals: a few ulps
    REQUIRE(w[k] == static_cast<double>(v) * ds[k] + ds[k] / 3);
    const bool expect_logic = ((v < 1) && (v <= 2)) || (!(v > 3) && (v >= -1) && (v != 0));
    REQUIRE(l[k] == expect_logic);
    const std::int64_t iv = is[k];
    REQUIRE(in[k] == iv * 3 + iv / 7 - iv);
    REQUIRE(p[k] == (v > 0 ? v : alpha));
    REQUIRE(nw[k] == static_cast<std::int32_t>(v * 1000.0f));
  }
}

TEST_CASE("two chains of temps on two streams become one kernel with the same results", "[cuda][sanitize]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto out = p.output<float>("out");
    auto a = p.temp<float>("a");
    auto b = p.temp<float>("b");
    auto s1 = p.stream("s1");
    auto s2 = p.stream("s2");
    auto e1 = p.event("e1");
    auto e2 = p.event("e2");
    sd::with_stream(s1, [&] {
      a = x * 2;
      a = a + 1;
      e1.record();
    });
    sd::with_stream(s2, [&] {
      b = x * 3;
      b = b - 1;
      e2.record();
    });
    e1.wait();
    e2.wait();
    out = a + b;
  });
  STATIC_REQUIRE(prog.plan().kernel_count() == 1);
  const std::size_t n = 10007;
  const auto xs = random_floats(n, 3);
  device_buffer<float> x(xs), out(n);
  sd::cuda_executor ex;
  ex.run(prog, sd::bind("x", x.cget(), n), sd::bind("out", out.get(), n));
  const auto o = out.download();
  for (std::size_t k = 0; k < n; ++k) REQUIRE(o[k] == (xs[k] * 2 + 1) + (xs[k] * 3 - 1));
}

TEST_CASE("temps in workspace slots, inouts, 0-d buffers and automatic syncs", "[cuda][sanitize]") {
  constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto s = p.input<float>("s", sd::scalar);
    auto acc = p.inout<float>("acc");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto t = p.temp<float>("t");
    auto side = p.stream("side");
    t = x * s;                                  // main
    sd::with_stream(side, [&] { a = t + 1; });  // side reads t: a sync is inserted
    b = t * 3;                                  // main reads t too: t is in a slot
    acc = acc + t;                              // inout on main
  });
  STATIC_REQUIRE(prog.plan().slot_count() == 1);
  const std::size_t n = 5000;
  const auto xs = random_floats(n, 11);
  const auto accs = random_floats(n, 12);
  const std::vector<float> ss{1.5f};
  device_buffer<float> x(xs), sc(ss), acc(accs), a(n), b(n);
  sd::cuda_executor ex;
  ex.run(prog, sd::bind("x", x.cget(), n), sd::bind("s", sc.cget(), 1), sd::bind("acc", acc.get(), n),
         sd::bind("a", a.get(), n), sd::bind("b", b.get(), n));
  const auto av = a.download(), bv = b.download(), cv = acc.download();
  for (std::size_t k = 0; k < n; ++k) {
    const float t = xs[k] * 1.5f;
    REQUIRE(av[k] == t + 1);
    REQUIRE(bv[k] == t * 3);
    REQUIRE(cv[k] == accs[k] + t);
  }
}

TEST_CASE("two slots bound to one stream stay correct", "[cuda][sanitize]") {
  cudaStream_t shared;
  gpu_test::check(cudaStreamCreateWithFlags(&shared, cudaStreamNonBlocking), "stream");
  const std::size_t n = 3000;
  const auto xs = random_floats(n, 5);
  device_buffer<float> x(xs), y(n), z(n);
  {
    sd::cuda_executor ex(shared);
    ex.bind_stream("side", shared);
    ex.run(seed, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("z", z.get(), n));
  }
  const auto zs = z.download();
  for (std::size_t k = 0; k < n; ++k) REQUIRE(zs[k] == (xs[k] + 1) * 2);
  cudaStreamDestroy(shared);
}

TEST_CASE("graph mode: one launch, and rebinding updates the graph in place", "[cuda][sanitize]") {
  const std::size_t n = 2048;
  const auto xs = random_floats(n, 21), xs2 = random_floats(n, 22);
  device_buffer<float> x(xs), y(n), z(n), x2(xs2), y2(n), z2(n);
  sd::cuda_executor ex;
  auto graph =
      sd::capture(ex, seed, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("z", z.get(), n));
  graph.launch();
  auto zs = z.download();
  for (std::size_t k = 0; k < n; ++k) REQUIRE(zs[k] == (xs[k] + 1) * 2);
  graph.rebind(sd::bind("x", x2.cget(), n), sd::bind("y", y2.get(), n), sd::bind("z", z2.get(), n));
  graph.launch();
  CHECK(graph.instantiations() == 1);
  CHECK(graph.updates() == 1);
  const auto zs2 = z2.download();
  for (std::size_t k = 0; k < n; ++k) REQUIRE(zs2[k] == (xs2[k] + 1) * 2);
}

TEST_CASE("a program issued inside the caller's own stream capture", "[cuda][sanitize]") {
  const std::size_t n = 1024;
  const auto xs = random_floats(n, 31);
  device_buffer<float> x(xs), y(n), z(n);
  cudaStream_t s;
  gpu_test::check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  sd::cuda_executor ex(s);
  gpu_test::check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "begin capture");
  ex.run(seed, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("z", z.get(), n));
  cudaGraph_t g;
  gpu_test::check(cudaStreamEndCapture(s, &g), "end capture");
  cudaGraphExec_t exec;
  gpu_test::check(cudaGraphInstantiate(&exec, g, 0), "instantiate");
  gpu_test::check(cudaGraphLaunch(exec, s), "launch");
  const auto zs = z.download();
  for (std::size_t k = 0; k < n; ++k) REQUIRE(zs[k] == (xs[k] + 1) * 2);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
}

TEST_CASE("binding errors are thrown before anything is launched", "[cuda][sanitize]") {
  const std::size_t n = 256;
  device_buffer<float> x(random_floats(n, 41)), z(n);
  const std::vector<float> poison(n, -7.f);
  z.upload(poison);
  std::vector<float> host_y(n, -7.f);  // host memory: the GPU cannot write it
  sd::cuda_executor ex;
  REQUIRE_THROWS_WITH(
      ex.run(seed, sd::bind("x", x.cget(), n), sd::bind("y", host_y.data(), n), sd::bind("z", z.get(), n)),
      Catch::Contains("buffer 'y'") && Catch::Contains("host memory"));
  REQUIRE_THROWS_WITH(ex.run(seed, sd::bind("x", x.cget(), n), sd::bind("z", z.get(), n)),
                      Catch::Contains("'y'"));
  const auto zs = z.download();
  for (auto v : zs) REQUIRE(v == -7.f);  // untouched
  for (auto v : host_y) REQUIRE(v == -7.f);
}

TEST_CASE("thrust::device_vector and cuda::std::span bindings", "[cuda][sanitize]") {
  const std::size_t n = 777;
  const auto xs = random_floats(n, 51);
  thrust::device_vector<float> x(xs.begin(), xs.end()), y(n);
  device_buffer<float> z(n);
  sd::cuda_executor ex;
  ex.run(seed, sd::bind("x", std::as_const(x)), sd::bind("y", y),
         sd::bind("z", cuda::std::span<float>(z.get(), n)));
  const auto zs = z.download();
  for (std::size_t k = 0; k < n; ++k) REQUIRE(zs[k] == (xs[k] + 1) * 2);
}

namespace {
// The graph's type is never spelt out: nvcc's host code cannot name a
// program's lambda type outside a template.
template <class Graph>
std::vector<Graph> vector_of(Graph&& graph) {
  static_assert(std::is_nothrow_move_constructible_v<Graph>);
  static_assert(std::is_nothrow_move_assignable_v<Graph>);
  static_assert(!std::is_copy_constructible_v<Graph> && !std::is_copy_assignable_v<Graph>);
  std::vector<Graph> graphs;
  graphs.push_back(std::move(graph));  // move construction
  return graphs;
}
}  // namespace

TEST_CASE("a captured graph is movable: the graph it moves to launches, the moved-from one refuses",
          "[cuda][sanitize]") {
  const std::size_t n = 1500;
  const auto xs = random_floats(n, 61), xs2 = random_floats(n, 62);
  device_buffer<float> x(xs), y(n), z(n), x2(xs2), y2(n), z2(n);
  sd::cuda_executor ex;
  auto first =
      sd::capture(ex, seed, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("z", z.get(), n));
  auto graphs = vector_of(std::move(first));
  REQUIRE_THROWS_WITH(first.launch(), Catch::Contains("moved from"));
  graphs.front().launch();
  auto zs = z.download();
  for (std::size_t k = 0; k < n; ++k) REQUIRE(zs[k] == (xs[k] + 1) * 2);
  auto second = sd::capture(ex, seed, sd::bind("x", x2.cget(), n), sd::bind("y", y2.get(), n),
                            sd::bind("z", z2.get(), n));
  graphs.front() = std::move(second);  // move assignment: the first graph is destroyed
  REQUIRE_THROWS_WITH(second.rebind(sd::bind("x", x.cget(), n)), Catch::Contains("moved from"));
  graphs.front().launch();
  const auto zs2 = z2.download();
  for (std::size_t k = 0; k < n; ++k) REQUIRE(zs2[k] == (xs2[k] + 1) * 2);
  CHECK(graphs.front().instantiations() == 1);
}

namespace {
// Three double temps in workspace slots over a bool domain: the workspace is
// 24 bytes per element, 12 times the bound memory.
constexpr auto wide_temps = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<bool>("x");
  auto y = p.output<bool>("y");
  auto z = p.output<bool>("z");
  auto t1 = p.temp<double>("t1");
  auto t2 = p.temp<double>("t2");
  auto t3 = p.temp<double>("t3");
  auto side = p.stream("side");
  t1 = sd::cast<double>(x);
  t2 = t1 + 1;
  t3 = t2 * 2;
  sd::with_stream(side, [&] { y = t1 + t2 + t3 > 4; });
  z = t1 + t2 + t3 < 4;
});
}  // namespace

TEST_CASE("a workspace the GPU cannot hold is a cuda_error naming the temps and the bytes", "[cuda]") {
  STATIC_REQUIRE(wide_temps.plan().slot_count() == 3);
  std::size_t free_bytes = 0, total_bytes = 0;
  gpu_test::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  // x, y, z take 3/8 of the free memory; the temps would need 3 times all of it.
  const std::size_t n = free_bytes / 8 / 256 * 256;
  device_buffer<bool> x(n), y(n), z(n);
  gpu_test::check(cudaMemset(y.get(), 0x5a, n), "poison y");
  gpu_test::check(cudaMemset(z.get(), 0x5a, n), "poison z");
  const std::size_t asked = 24 * n;  // n a multiple of 256: no slot padding
  const auto message =
      "for the workspace of " + std::to_string(asked) + " bytes for the temps 't1', 't2', 't3'";
  sd::cuda_executor ex;
  auto run = [&] {
    ex.run(wide_temps, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("z", z.get(), n));
  };
  REQUIRE_THROWS_AS(run(), sd::cuda_error);
  REQUIRE_THROWS_WITH(run(), Catch::Contains("cudaMallocFromPoolAsync failed: cudaErrorMemoryAllocation") &&
                                 Catch::Contains(message));
  REQUIRE_THROWS_WITH(
      sd::capture(ex, wide_temps, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n),
                  sd::bind("z", z.get(), n)),
      Catch::Contains("cudaMalloc failed: cudaErrorMemoryAllocation") && Catch::Contains(message));
  gpu_test::check(cudaDeviceSynchronize(), "sync");
  std::vector<unsigned char> head(4096);
  for (bool* out : {y.get(), z.get()}) {
    gpu_test::check(cudaMemcpy(head.data(), out, head.size(), cudaMemcpyDeviceToHost), "download");
    for (auto v : head) REQUIRE(v == 0x5a);  // nothing ran
  }
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("a graph whose capture throws in its constructor leaks neither its stream nor its workspace",
          "[cuda]") {
  // The side slot bound to the legacy default stream cannot join the capture:
  // issuing fails after the graph made its capture stream and its workspace
  // (t in a slot: the same shape as the test of workspace slots above).
  constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto t = p.temp<float>("t");
    auto side = p.stream("side");
    t = x * 2;
    sd::with_stream(side, [&] { a = t + 1; });
    b = t * 3;
  });
  STATIC_REQUIRE(prog.plan().slot_count() == 1);
  const std::size_t n = std::size_t{64} << 20;  // a 256 MiB workspace
  device_buffer<float> x(n), a(n), b(n);
  sd::cuda_executor ex;
  ex.bind_stream("side", cudaStreamLegacy);
  auto capture = [&] {
    (void)sd::capture(ex, prog, sd::bind("x", x.cget(), n), sd::bind("a", a.get(), n),
                      sd::bind("b", b.get(), n));
  };
  REQUIRE_THROWS_AS(capture(), sd::cuda_error);
  (void)cudaGetLastError();
  gpu_test::check(cudaDeviceSynchronize(), "sync");
  std::size_t free_before = 0, free_after = 0, total = 0;
  gpu_test::check(cudaMemGetInfo(&free_before, &total), "cudaMemGetInfo");
  for (int i = 0; i < 40; ++i) REQUIRE_THROWS_AS(capture(), sd::cuda_error);  // 10 GiB if each leaked
  (void)cudaGetLastError();
  gpu_test::check(cudaDeviceSynchronize(), "sync");
  gpu_test::check(cudaMemGetInfo(&free_after, &total), "cudaMemGetInfo");
  CHECK(free_before - free_after < (std::size_t{1} << 30));
  // A failed constructor throws binding errors the same way (after its stream exists).
  REQUIRE_THROWS_AS(sd::capture(ex, prog, sd::bind("x", x.cget(), n)), sd::binding_error);
}

TEST_CASE("bind_stream refuses the main slot and says how to set the main stream", "[cuda][sanitize]") {
  sd::cuda_executor ex;
  REQUIRE_THROWS_AS(ex.bind_stream("main", nullptr), sd::error);
  REQUIRE_THROWS_WITH(
      ex.bind_stream("main", nullptr),
      Catch::Contains("bind_stream(\"main\", ...)") &&
          Catch::Contains("pass that stream to the constructor (sd::cuda_executor ex(stream))"));
  ex.bind_stream("side", nullptr);  // other names are matched when a program runs
  const std::size_t n = 300;
  const auto xs = random_floats(n, 71);
  device_buffer<float> x(xs), y(n), z(n);
  ex.run(seed, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("z", z.get(), n));
  const auto zs = z.download();
  for (std::size_t k = 0; k < n; ++k) REQUIRE(zs[k] == (xs[k] + 1) * 2);
}

TEST_CASE("a rebind that throws keeps the graph's previous bindings and workspace", "[cuda][rebind]") {
  // The rebind needs a larger workspace, then its capture fails (the side slot
  // bound to the legacy default stream cannot join it): the graph must still
  // replay its previous bindings, with the workspace its nodes use.
  constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto t = p.temp<float>("t");
    auto side = p.stream("side");
    t = x * 2;
    sd::with_stream(side, [&] { a = t + 1; });
    b = t * 3;
  });
  STATIC_REQUIRE(prog.plan().slot_count() == 1);
  const std::size_t small = std::size_t{1} << 16, big = std::size_t{1} << 22;
  std::vector<float> hx(small);
  for (std::size_t i = 0; i < small; ++i) hx[i] = static_cast<float>(i % 1000) - 500.0f;
  device_buffer<float> x(hx), a(small), b(small), x2(big), a2(big), b2(big);
  sd::cuda_executor ex;
  auto graph = sd::capture(ex, prog, sd::bind("x", x.cget(), small), sd::bind("a", a.get(), small),
                           sd::bind("b", b.get(), small));
  ex.bind_stream("side", cudaStreamLegacy);
  REQUIRE_THROWS_AS(
      graph.rebind(sd::bind("x", x2.cget(), big), sd::bind("a", a2.get(), big), sd::bind("b", b2.get(), big)),
      sd::cuda_error);
  (void)cudaGetLastError();
  graph.launch();
  const auto ha = a.download(), hb = b.download();
  for (std::size_t i = 0; i < small; ++i) {
    const float t = hx[i] * 2.0f;
    REQUIRE(ha[i] == t + 1.0f);
    REQUIRE(hb[i] == t * 3.0f);
  }
  CHECK(graph.instantiations() == 1);
}
