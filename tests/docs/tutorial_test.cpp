// The tutorial's code (docs/tutorial.md): every ```cpp block of the tutorial
// appears verbatim between the SNIPPET markers below (check_snippets.py
// enforces it), so the documentation always compiles and runs.
#include <catch2/catch.hpp>
#include <cmath>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/backend/host/loopback.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

namespace tutorial {
// SNIPPET: seed
constexpr auto seed = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;   // runs on the side stream
    e.record();  // record on the side stream
  });
  e.wait();   // the main stream waits for e
  z = y * 2;  // consumer on the main stream
});
// END SNIPPET

// SNIPPET: static-checks
static_assert(seed.plan().kernel_count() == 2);
static_assert(seed.plan().records("side") == 1);
static_assert(seed.plan().waits("main") == 1);
static_assert(seed.plan().sequence("main").view() == "wait e, k1");
static_assert(seed.plan().wait_binds_to("main", 0).view() == "record e on side");
// END SNIPPET

// SNIPPET: automatic
constexpr auto auto_seed = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  sd::with_stream(side, [&] { y = x + 1; });
  z = y * 2;  // sd::automatic inserts the record and the wait
});
static_assert(auto_seed.plan().waits("main") == 1);
// END SNIPPET

// SNIPPET: temps
constexpr auto two_chains = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto out = p.output<float>("out");
  auto a = p.temp<float>("a");
  auto b = p.temp<float>("b");
  auto s1 = p.stream("s1");
  auto s2 = p.stream("s2");
  auto e1 = p.event("e1");
  auto e2 = p.event("e2");
  sd::with_stream(s1, [&] {
    a = sd::relu(x * 2 + 1);
    e1.record();
  });
  sd::with_stream(s2, [&] {
    b = sd::abs(x * 3 - 1);
    e2.record();
  });
  e1.wait();
  e2.wait();
  out = a + b;
});
// Temps belong to the compiler: both chains are computed inside the join's
// kernel, which reads x once; the syncs that guarded them are gone.
static_assert(two_chains.plan().kernel_count() == 1);
static_assert(two_chains.plan().sync_count() == 0);
// END SNIPPET

// SNIPPET: params
constexpr auto saxpy = sd::program([](sd::builder& p) {
  auto a = p.param<float>("a");
  auto x = p.input<float>("x");
  auto y = p.inout<float>("y");
  y = a * x + y;
});
// END SNIPPET

// SNIPPET: pipeline
constexpr int chunks = 3;
constexpr auto pipeline = sd::program<sd::automatic>([](sd::builder& p) {
  auto h_in = p.input<float, sd::pinned>("h_in");  // pinned host memory, bound by the caller
  auto h_out = p.output<float, sd::pinned>("h_out");
  auto d_in = p.temp<float>("d_in");  // device memory, from the memory plan
  auto d_out = p.temp<float>("d_out");
  auto h2d = p.stream("h2d");
  auto d2h = p.stream("d2h");
  for (int i = 0; i < chunks; ++i) {
    sd::with_stream(h2d, [&] { sd::copy(d_in.chunk(i, chunks), h_in.chunk(i, chunks)); });
    d_out.chunk(i, chunks) = sd::relu(d_in.chunk(i, chunks) * 2 + 1);  // on main
    sd::with_stream(d2h, [&] { sd::copy(h_out.chunk(i, chunks), d_out.chunk(i, chunks)); });
  }
});
static_assert(pipeline.plan().step_count() == 2 * chunks);      // a copy in and out per chunk
static_assert(pipeline.plan().kernel_count("main") == chunks);  // a kernel per chunk
static_assert(pipeline.plan().slot_count() == 2);               // d_in and d_out
// END SNIPPET

// SNIPPET: reductions
constexpr auto normalise = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto w = p.input<float>("w");
  auto dot = p.output<float>("dot", sd::scalar);  // a 0-d buffer: one element
  auto z = p.output<float>("z");
  auto top = p.temp<float>("top", sd::scalar);
  dot = sd::sum(x * w);  // x * w is the sum's input: no temp is written
  top = sd::max(sd::abs(x));
  z = x / top;  // the 0-d result broadcasts, read on the device
});
static_assert(normalise.plan().step_count() == 2 && normalise.plan().kernel_count() == 1);
// END SNIPPET

// SNIPPET: softmax
constexpr auto softmax = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, cols);  // rank 2, row-major
  auto y = p.output<float>("y", rows, cols);
  auto top = p.temp<float>("top", rows);  // a column: one value per row
  auto total = p.temp<float>("total", rows);
  top = sd::max(x, cols);                   // along each row
  total = sd::sum(sd::exp(x - top), cols);  // top broadcasts along the row
  y = sd::exp(x - top) / total;
});
// END SNIPPET

// SNIPPET: matmul
constexpr auto layer = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", m, k);
  auto w = p.input<float>("w", k, cols);
  auto bias = p.input<float>("bias", cols);  // a row, broadcast down the rows
  auto h = p.output<float>("h", m, cols);
  auto v = p.input<float>("v");
  auto out = p.output<float>("out");
  auto t = p.temp<float>("t", m, cols);
  auto side = p.stream("side");
  t = sd::matmul(x, w);  // main: compute-bound
  h = sd::relu(t + bias);
  sd::with_stream(side, [&] { out = sd::tanh(v * 0.5f) * 2 + v; });  // side: memory-bound
});
static_assert(layer.plan().step_count() == 1);          // relu(t + bias) is folded into the matmul
static_assert(layer.plan().kernel_count("side") == 1);  // the chain is one kernel
static_assert(layer.plan().sync_count() == 0);          // independent: only the entry and exit edges
// END SNIPPET

// SNIPPET: data-parallel
constexpr auto dp_step = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");  // this rank's shard of the batch
  auto w = p.inout<float>("w");  // the weights, the same on every rank
  auto g = p.temp<float>("g");   // the gradient
  auto comm = p.stream("comm");
  constexpr int buckets = 4;
  for (int i = 0; i < buckets; ++i) {
    g.chunk(i, buckets) = (x.chunk(i, buckets) - w.chunk(i, buckets)) * 2;  // bucket i, on main
    sd::with_stream(comm, [&] { sd::all_reduce(g.chunk(i, buckets), sd::reduce_op::avg); });
  }
  w = w - g * 0.25f;  // the update, once every bucket is averaged
});
static_assert(dp_step.plan().step_count() == 4);  // the four all-reduces, on comm
static_assert(dp_step.plan().kernel_count() == 5);
// END SNIPPET

// PLAN: seed
const char* const seed_plan = R"(// streamdsl plan: 2 kernels, 2 syncs, 2 streams, 0 workspace slots
stream main:
    record entry
    wait e (recorded on side)
    kernel k1 over n {
      z = y * 2;
    }
    wait side (exit edge)
stream side:
    wait main (entry edge)
    kernel k0 over n {
      y = x + 1;
    }
    record e
    record exit
buffers:
    input float x[n]
    output float y[n]
    output float z[n]
)";
// END PLAN

// PLAN: pipeline
const char* const pipeline_plan =
    R"(// streamdsl plan: 3 kernels, 6 steps, 12 syncs, 3 streams, 2 workspace slots
stream main:
    record entry
    wait auto_sync.0 (recorded on h2d)  // inserted by sd::automatic
    kernel k0 over 1/3 of n {
      d_out.chunk(0, 3) = relu(d_in.chunk(0, 3) * 2 + 1);  // slot 1
    }
    record auto_sync.1  // inserted by sd::automatic
    wait auto_sync.2 (recorded on h2d)  // inserted by sd::automatic
    kernel k1 over 1/3 of n {
      d_out.chunk(1, 3) = relu(d_in.chunk(1, 3) * 2 + 1);  // slot 1
    }
    record auto_sync.3  // inserted by sd::automatic
    wait auto_sync.4 (recorded on h2d)  // inserted by sd::automatic
    kernel k2 over 1/3 of n {
      d_out.chunk(2, 3) = relu(d_in.chunk(2, 3) * 2 + 1);  // slot 1
    }
    record auto_sync.5  // inserted by sd::automatic
    wait h2d (exit edge)
    wait d2h (exit edge)
stream h2d:
    wait main (entry edge)
    sd::copy(d_in.chunk(0, 3), h_in.chunk(0, 3));
    record auto_sync.0  // inserted by sd::automatic
    sd::copy(d_in.chunk(1, 3), h_in.chunk(1, 3));
    record auto_sync.2  // inserted by sd::automatic
    sd::copy(d_in.chunk(2, 3), h_in.chunk(2, 3));
    record auto_sync.4  // inserted by sd::automatic
    record exit
stream d2h:
    wait main (entry edge)
    wait auto_sync.1 (recorded on main)  // inserted by sd::automatic
    sd::copy(h_out.chunk(0, 3), d_out.chunk(0, 3));
    wait auto_sync.3 (recorded on main)  // inserted by sd::automatic
    sd::copy(h_out.chunk(1, 3), d_out.chunk(1, 3));
    wait auto_sync.5 (recorded on main)  // inserted by sd::automatic
    sd::copy(h_out.chunk(2, 3), d_out.chunk(2, 3));
    record exit
buffers:
    pinned input float h_in[n]
    pinned output float h_out[n]
    temp float d_in[n]  // workspace slot 0
    temp float d_out[n]  // workspace slot 1
)";
// END PLAN

// PLAN: reductions
const char* const normalise_plan =
    R"(// streamdsl plan: 1 kernel, 2 steps, 0 syncs, 1 stream, 1 workspace slots
stream main:
    dot = sd::sum(x * w);
    top = sd::max(abs(x));
    kernel k0 over n {
      z = x / top;
    }
buffers:
    input float x[n]
    input float w[n]
    output float dot (0-d)
    output float z[n]
    temp float top (0-d)  // workspace slot 0
)";
// END PLAN

// PLAN: softmax
const char* const softmax_plan = R"(// streamdsl plan: 1 kernel, 2 steps, 0 syncs, 1 stream, 2 workspace slots
stream main:
    row group of 3 ops (one kernel on the GPU: a block per row, the ops in turn over it) {
      top = sd::max(x, cols);
      total = sd::sum(exp(x - top), cols);
      kernel k0 over (rows, cols) {
        y = exp(x - top) / total;
      }
    }
buffers:
    input float x[(rows, cols)]
    output float y[(rows, cols)]
    temp float top[rows]  // workspace slot 0
    temp float total[rows]  // workspace slot 1
)";
// END PLAN

// PLAN: matmul
const char* const layer_plan = R"(// streamdsl plan: 1 kernel, 1 step, 0 syncs, 2 streams, 0 workspace slots
stream main:
    record entry
    h = relu(sd::matmul(x, w) + bias)  [cuBLASLt epilogue RELU_BIAS];
    wait side (exit edge)
stream side:
    wait main (entry edge)
    kernel k0 over n {
      out = tanh(v * 0.5) * 2 + v;
    }
    record exit
buffers:
    input float x[(m, k)]
    input float w[(k, cols)]
    input float bias[cols]
    output float h[(m, cols)]
    input float v[n]
    output float out[n]
    temp float t[(m, cols)]  // registers only
notes:
    epilogue: statement #1 `h = relu(t + bias)` on stream 'main' is folded into statement #0 `t = sd::matmul(x, w)` on stream 'main' as cuBLASLt's epilogue RELU_BIAS (temp 't' is never stored)
)";
// END PLAN

// PLAN: data-parallel
const char* const dp_plan = R"(// streamdsl plan: 5 kernels, 4 steps, 10 syncs, 2 streams, 1 workspace slots
stream main:
    record entry
    kernel k0 over 1/4 of n {
      g.chunk(0, 4) = (x.chunk(0, 4) - w.chunk(0, 4)) * 2;  // slot 0
    }
    record auto_sync.0  // inserted by sd::automatic
    kernel k1 over 1/4 of n {
      g.chunk(1, 4) = (x.chunk(1, 4) - w.chunk(1, 4)) * 2;  // slot 0
    }
    record auto_sync.1  // inserted by sd::automatic
    kernel k2 over 1/4 of n {
      g.chunk(2, 4) = (x.chunk(2, 4) - w.chunk(2, 4)) * 2;  // slot 0
    }
    record auto_sync.2  // inserted by sd::automatic
    kernel k3 over 1/4 of n {
      g.chunk(3, 4) = (x.chunk(3, 4) - w.chunk(3, 4)) * 2;  // slot 0
    }
    record auto_sync.3  // inserted by sd::automatic
    wait auto_sync.4 (recorded on comm)  // inserted by sd::automatic
    kernel k4 over n {
      w = w - g * 0.25;
    }
    wait comm (exit edge)
stream comm:
    wait main (entry edge)
    wait auto_sync.0 (recorded on main)  // inserted by sd::automatic
    sd::all_reduce(g.chunk(0, 4), sd::reduce_op::avg);
    wait auto_sync.1 (recorded on main)  // inserted by sd::automatic
    sd::all_reduce(g.chunk(1, 4), sd::reduce_op::avg);
    wait auto_sync.2 (recorded on main)  // inserted by sd::automatic
    sd::all_reduce(g.chunk(2, 4), sd::reduce_op::avg);
    wait auto_sync.3 (recorded on main)  // inserted by sd::automatic
    sd::all_reduce(g.chunk(3, 4), sd::reduce_op::avg);
    record auto_sync.4  // inserted by sd::automatic
    record exit
buffers:
    input float x[n]
    inout float w[n]
    temp float g[n]  // workspace slot 0
)";
// END PLAN
}  // namespace tutorial

TEST_CASE("tutorial: the printed plans are the programs' plans", "[docs]") {
  using namespace tutorial;
  CHECK(std::string(seed.to_string()) == seed_plan);
  CHECK(std::string(pipeline.to_string()) == pipeline_plan);
  CHECK(std::string(normalise.to_string()) == normalise_plan);
  CHECK(std::string(softmax.to_string()) == softmax_plan);
  CHECK(std::string(layer.to_string()) == layer_plan);
  CHECK(std::string(dp_step.to_string()) == dp_plan);
}

TEST_CASE("tutorial: running the seed on the host executor", "[docs]") {
  using namespace tutorial;
  // SNIPPET: run-host
  std::vector<float> x = {1, 2, 3}, y(3), z(3);
  sd::host_executor ex;
  ex.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
  // y == {2, 3, 4}, z == {4, 6, 8}
  // END SNIPPET
  CHECK(y == std::vector<float>{2, 3, 4});
  CHECK(z == std::vector<float>{4, 6, 8});
}

TEST_CASE("tutorial: params and inouts", "[docs]") {
  using namespace tutorial;
  // SNIPPET: run-saxpy
  std::vector<float> x = {1, 2}, y = {10, 20};
  sd::host_executor ex;
  ex.run(saxpy, sd::bind("a", 2.0f), sd::bind("x", x), sd::bind("y", y));
  // y == {12, 24}
  // END SNIPPET
  CHECK(y == std::vector<float>{12, 24});
  std::vector<float> xs = {1}, ys = {1}, zs = {1};
  ex.run(auto_seed, sd::bind("x", xs), sd::bind("y", ys), sd::bind("z", zs));
  CHECK(zs[0] == 4);
  std::vector<float> out(2), in = {1, -1};
  ex.run(two_chains, sd::bind("x", in), sd::bind("out", out));
  CHECK(out[0] == 3 + 2);
  CHECK(out[1] == 0 + 4);
}

TEST_CASE("tutorial: the copy/compute pipeline", "[docs]") {
  using namespace tutorial;
  // SNIPPET: run-pipeline
  std::vector<float> h_in = {-3, -2, -1, 0, 1, 2}, h_out(6);  // on a GPU: cudaMallocHost memory
  sd::host_executor ex;
  ex.run(pipeline, sd::bind("h_in", h_in), sd::bind("h_out", h_out));
  // h_out == {0, 0, 0, 1, 3, 5}
  // END SNIPPET
  CHECK(h_out == std::vector<float>{0, 0, 0, 1, 3, 5});
  sd::host_executor stressed(sd::stress{3, 50});
  std::vector<float> big_in(3 * 1000), big_out(3 * 1000);
  for (std::size_t i = 0; i < big_in.size(); ++i) big_in[i] = static_cast<float>(i % 7) - 3;
  stressed.run(pipeline, sd::bind("h_in", big_in), sd::bind("h_out", big_out));
  for (std::size_t i = 0; i < big_in.size(); ++i) REQUIRE(big_out[i] == std::fmax(big_in[i] * 2 + 1, 0.0f));
}

TEST_CASE("tutorial: reductions", "[docs]") {
  using namespace tutorial;
  // SNIPPET: run-reductions
  std::vector<float> x = {1, -4, 2}, w = {1, 1, 2}, z(3), dot(1);
  std::vector<float> a = {0, 0, 1, 2, 3, 4}, y(6);  // 2 rows of 3
  sd::host_executor ex;
  ex.run(normalise, sd::bind("x", x), sd::bind("w", w), sd::bind("dot", dot), sd::bind("z", z));
  // dot == {1}, z == {0.25, -1, 0.5}
  ex.run(softmax, sd::bind("x", a, 2, 3), sd::bind("y", y, 2, 3));
  // each row of y sums to 1: y[0..2] == {1, 1, e} / (2 + e)
  // END SNIPPET
  CHECK(dot[0] == 1);
  CHECK(z == std::vector<float>{0.25f, -1, 0.5f});
  CHECK(y[0] == Approx(1 / (2 + std::exp(1.0f))));
  CHECK(y[2] == Approx(std::exp(1.0f) / (2 + std::exp(1.0f))));
  CHECK(y[3] + y[4] + y[5] == Approx(1));
}

TEST_CASE("tutorial: a matmul beside an elementwise chain", "[docs]") {
  using namespace tutorial;
  // SNIPPET: run-matmul
  std::vector<float> x = {1, 2, 3, 4}, w = {1, 0, 0, 1}, bias = {0, -10}, h(4);  // 2 x 2 each
  std::vector<float> v = {0, 1}, out(2);
  sd::host_executor ex;
  ex.run(layer, sd::bind("x", x, 2, 2), sd::bind("w", w, 2, 2), sd::bind("bias", bias),
         sd::bind("h", h, 2, 2), sd::bind("v", v), sd::bind("out", out));
  // h == {1, 0, 3, 0}
  // END SNIPPET
  CHECK(h == std::vector<float>{1, 0, 3, 0});
  CHECK(out[0] == 0);
  CHECK(out[1] == Approx(std::tanh(0.5f) * 2 + 1));
}

TEST_CASE("tutorial: a data-parallel step", "[docs]") {
  using namespace tutorial;
  // SNIPPET: run-data-parallel
  sd::loopback_world world(2);  // two ranks, a thread each
  std::vector<std::vector<float>> x = {{1, 2, 3, 4}, {3, 4, 5, 6}}, w(2, std::vector<float>(4, 0.0f));
  world.run(dp_step, [&](int r) {
    return std::vector<sd::binding>{sd::bind("x", x[r]), sd::bind("w", w[r])};
  });
  // w[0] == w[1] == {-1, -1.5, -2, -2.5}: g averaged over the ranks, (x0 + x1) - 2w
  // END SNIPPET
  for (const auto& rank : w) CHECK(rank == std::vector<float>{-1, -1.5f, -2, -2.5f});
}
