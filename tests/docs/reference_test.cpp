// The API reference's code (docs/reference.md): every ```cpp block of the
// reference appears verbatim between the SNIPPET markers below
// (check_snippets.py enforces it), so each example compiles, and those that
// run on the host executor run here with their results checked.
// SNIPPET: ref-headers
#include <streamdsl/backend/host/host_executor.hpp>  // sd::host_executor (POSIX threads)
#include <streamdsl/backend/host/loopback.hpp>       // sd::loopback_world (collectives over in-process ranks)
#include <streamdsl/streamdsl.hpp>                   // the language, the passes, the plan, timelines
// END SNIPPET
#include <catch2/catch.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace reference {

// SNIPPET: ref-program
constexpr auto scale = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = x * 2;
});
static_assert(scale.plan().kernel_count() == 1);
static_assert(scale.policy == sd::checked);
// END SNIPPET

// SNIPPET: ref-options
constexpr auto rewrite = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  sd::with_stream(side, [&] { y = x + 1; });
  z = y * 2;  // a race under sd::checked: y is written on side
};
constexpr auto synced = sd::program<sd::automatic>(rewrite);
constexpr auto moved = sd::program<sd::automatic | sd::relaxed>(rewrite);
constexpr auto apart = sd::program<sd::automatic | sd::no_fusion>(rewrite);
static_assert(synced.plan().waits("main") == 1);
static_assert(moved.plan().sync_count() == 0 && moved.plan().kernel_count() == 1);
static_assert(apart.plan().kernel_count() == 2);
static_assert((sd::automatic | sd::relaxed) ==
              sd::options{sd::sync_policy::automatic, sd::placement_policy::relaxed});
// END SNIPPET

// SNIPPET: ref-declarations
constexpr auto declarations = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");                       // device memory, domain "n"
  auto h = p.output<float, sd::pinned>("h");          // pinned host memory, domain "n"
  auto y = p.output<double>("y");                     // written by the program
  auto acc = p.inout<float>("acc");                   // read and written
  auto t = p.temp<float>("t");                        // the compiler's: workspace or registers
  auto alpha = p.param<float>("alpha");               // a host value bound at run time
  auto total = p.output<float>("total", sd::scalar);  // 0-d: one element
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto a = p.input<float>("a", rows, cols);  // rank 2, row-major
  auto col = p.output<float>("col", rows);   // a column over a's rows
  t = alpha * x;
  acc += t;
  y = t * 2.5;  // a weak literal: float * 2.5 stays float, stored widened
  total = sd::sum(x);
  col = sd::sum(a, cols);
  sd::copy(h, x);  // host memory is reached by copies only
});
static_assert(declarations.plan().storage_of("t") == sd::storage_register);
static_assert(declarations.plan().storage_of("x") == sd::storage_bound);
// END SNIPPET

// SNIPPET: ref-families
constexpr auto families = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.inputs<float>("x", 4);  // x[0] ... x[3]
  auto y = p.outputs<float>("y", 4);
  auto s = p.streams("s", 2);  // s[0], s[1]
  for (int i = 0; i < x.size(); ++i) sd::with_stream(s[i % 2], [&] { y[i] = x[i] * 2; });
});
static_assert(families.plan().stream_count() == 3);  // main, s[0], s[1]
// END SNIPPET

// SNIPPET: ref-streams
constexpr auto streams = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto b = p.output<float>("b");
  auto c = p.output<float>("c");
  auto s1 = p.stream("s1");
  auto s2 = p.stream("s2");
  auto done = p.event("done");
  sd::with_stream(s1, [&] {
    a = x + 1;                                // on s1
    sd::with_stream(s2, [&] { b = x * 3; });  // on s2: the innermost scope wins
    done.record();                            // records s1's work so far
  });
  done.wait();                      // main waits for that record
  p.main_stream().wait_stream(s2);  // and for everything issued on s2
  c = a + b;
});
// a wait_stream is a record on s2 and a wait on main, named wait_stream.1 in the plan
static_assert(streams.plan().sequence("main").view() == "wait done, wait wait_stream.1, k2");
// END SNIPPET

// SNIPPET: ref-rerecord
constexpr auto rerecord = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto b = p.output<float>("b");
  auto c = p.output<float>("c");
  auto d = p.output<float>("d");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    a = x + 1;
    e.record();  // e#1
  });
  e.wait();  // binds to e#1: main waits for a
  c = a * 2;
  sd::with_stream(side, [&] {
    b = x + 2;
    e.record();  // e#2: re-recording rebinds the event
  });
  e.wait();  // binds to e#2: main waits for b
  d = b + c;
});
static_assert(rerecord.plan().wait_binds_to("main", 0).view() == "record e#1 on side");
static_assert(rerecord.plan().wait_binds_to("main", 1).view() == "record e#2 on side");
static_assert(rerecord.plan().sequence("side").view() == "k0, record e#1, k1, record e#2");
// END SNIPPET

// SNIPPET: ref-elementwise
constexpr auto elementwise = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto i = p.input<std::int32_t>("i");
  auto y = p.output<float>("y");
  auto k = p.output<std::int32_t>("k");
  auto m = p.output<bool>("m");
  y = sd::where(x > 0, sd::exp(-x), sd::sigmoid(x)) + sd::pow(x, 2);
  y += sd::cast<float>(i);  // int32 into float needs no cast; shown for the syntax
  k = (i << 2) % 7 & ~i;
  k = sd::cast<std::int32_t>(sd::round(x));  // float into int32 does
  m = !(x < 1) && i != 0;
});
// END SNIPPET

// SNIPPET: ref-chunks
constexpr auto chunks = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto s = p.stream("s");
  y.chunk(0, 2) = x.chunk(0, 2) * 2;                               // main
  sd::with_stream(s, [&] { y.chunk(1, 2) = x.chunk(1, 2) * 2; });  // no race: disjoint
});
static_assert(chunks.plan().kernel_count() == 2);
// END SNIPPET

// SNIPPET: ref-copy
constexpr auto copies = sd::program<sd::automatic>([](sd::builder& p) {
  auto h_in = p.input<float, sd::pinned>("h_in");
  auto h_out = p.output<float, sd::pinned>("h_out");
  auto d = p.temp<float>("d");
  auto h2d = p.stream("h2d");
  sd::with_stream(h2d, [&] { sd::copy(d, h_in); });  // host to device
  d = d * 2;                                         // main, after the copy
  sd::copy(h_out, d);                                // device to host
});
static_assert(copies.plan().step_count() == 2);
// END SNIPPET

// SNIPPET: ref-reductions
constexpr auto reductions = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto w = p.input<float>("w");
  auto dot = p.output<float>("dot", sd::scalar);
  auto lo = p.output<float>("lo", sd::scalar);
  auto avg = p.output<float>("avg", sd::scalar);
  auto l2 = p.output<float>("l2", sd::scalar);
  auto at = p.output<std::int64_t>("at", sd::scalar);
  auto z = p.output<float>("z");
  auto big = p.temp<float>("big", sd::scalar);
  dot = sd::sum(x * w);  // x * w is the reduction's input: no temp is written
  lo = sd::min(x);
  avg = sd::mean(x);
  l2 = sd::norm(x);
  at = sd::argmax(x);
  big = sd::max(sd::abs(x));
  z = x / big;  // a 0-d buffer broadcasts, read on the device
});
static_assert(reductions.plan().step_count() == 6);
// END SNIPPET

// SNIPPET: ref-scans
constexpr auto scans = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<std::int32_t>("x");
  auto a = p.input<float>("a", rows, cols);
  auto inc = p.output<std::int64_t>("inc");  // integers sum to int64_t
  auto exc = p.output<std::int64_t>("exc");
  auto run = p.output<float>("run", rows, cols);
  inc = sd::inclusive_sum(x);
  exc = sd::exclusive_sum(x);
  run = sd::inclusive_sum(a, cols);  // along each row
});
// END SNIPPET

// SNIPPET: ref-matmul
constexpr auto matmuls = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", m, k);
  auto w = p.input<float>("w", k, cols);
  auto v = p.input<float>("v", cols, k);
  auto bias = p.input<float>("bias", cols);
  auto c = p.output<float>("c", m, cols);
  auto d = p.output<float>("d", m, cols);
  auto t = p.temp<float>("t", m, cols);
  c = sd::matmul(x, sd::transpose(v), sd::tf32);  // x v^T, on TF32 tensor cores (GPU)
  t = sd::matmul(x, w);
  d = sd::relu(t + bias);  // folded into the matmul: cuBLASLt's RELU_BIAS epilogue
});
static_assert(matmuls.plan().step_count() == 2 && matmuls.plan().kernel_count() == 0);
static_assert(matmuls.plan().has_note("epilogue"));
// END SNIPPET

// SNIPPET: ref-call
constexpr auto with_call = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto t = p.temp<float>("t");
  t = x + 1;
  p.call("square", sd::reads(t), sd::writes(y));  // the user's own step, bound at run time
});
static_assert(with_call.plan().step_count() == 1);
// END SNIPPET

// SNIPPET: ref-collectives
constexpr auto averaged = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto g = p.output<float>("g");
  auto comm = p.stream("comm");
  g = x * 2;
  sd::with_stream(comm, [&] {  // each half averaged across the ranks
    for (int i = 0; i < 2; ++i) sd::all_reduce(g.chunk(i, 2), sd::reduce_op::avg);
  });
});
// END SNIPPET

// SNIPPET: ref-host-call
constexpr auto with_host_step = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto h = p.output<float, sd::pinned>("h");
  auto t = p.temp<float>("t");
  t = x * 2;
  sd::copy(h, t);                    // to pinned host memory
  p.host_call("log", sd::reads(h));  // then, in stream order, on the CPU
});
static_assert(with_host_step.plan().step_count() == 2);
// END SNIPPET

// SNIPPET: ref-param
constexpr auto shift = sd::program([](sd::builder& p) {
  auto a = p.param<double>("a");
  auto x = p.input<double>("x");
  auto y = p.output<double>("y");
  y = x + a;
});
// END SNIPPET

// SNIPPET: ref-queries
constexpr auto seed = sd::program([](sd::builder& p) {
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
});
constexpr sd::plan_view plan = seed.plan();
static_assert(plan.stream_count() == 2);
static_assert(plan.kernel_count() == 2 && plan.kernel_count("side") == 1);
static_assert(plan.launch_count() == 2 && plan.step_count() == 0);
static_assert(plan.statements("main") == 1);
static_assert(plan.records("side") == 1 && plan.waits("main") == 1);
static_assert(plan.sync_count() == 2);  // user records and waits; edges not counted
static_assert(plan.edge_count(sd::sync_role::entry) == 1 && plan.edge_count(sd::sync_role::exit) == 1);
static_assert(plan.sequence("side").view() == "k0, record e");
static_assert(plan.wait_binds_to("main", 0).view() == "record e on side");
static_assert(plan.kernel_writing("z") == 1);
static_assert(plan.storage_of("y") == sd::storage_bound && plan.slot_count() == 0);
static_assert(plan.uses_type(sd::dtype::float32) && !plan.uses_type(sd::dtype::float64));
static_assert(plan.note_count() == 0 && !plan.has_note("moved"));
static_assert(plan.stream_id("side") == 1 && plan.buffer_id("w") == -1);
// END SNIPPET

// SNIPPET: ref-workspace-bytes
constexpr auto staged = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto t = p.temp<float>("t");
  auto side = p.stream("side");
  auto e = p.event("e");
  t = sd::exp(x);
  e.record();
  sd::with_stream(side, [&] {
    e.wait();
    y = t + 1;
  });
  z = t - 1;  // t is read by two kernels: it is stored, in a workspace slot
});
static_assert(staged.plan().storage_of("t") == 0 && staged.plan().slot_count() == 1);
constexpr std::size_t extents[] = {1000};                            // per domain: "n" = 1000 elements
static_assert(staged.plan().workspace_bytes({extents, 1}) == 4096);  // 4000 rounded up to 256-byte slots
// END SNIPPET

}  // namespace reference

using namespace reference;

TEST_CASE("reference: a program runs on the host executor", "[docs]") {
  // SNIPPET: ref-run
  std::vector<float> x = {1, 2, 3}, y(3);
  sd::host_executor ex;
  ex.run(scale, sd::bind("x", x), sd::bind("y", y));
  // y == {2, 4, 6}
  // END SNIPPET
  CHECK(y == std::vector<float>{2, 4, 6});
}

TEST_CASE("reference: the forms of sd::bind", "[docs]") {
  // SNIPPET: ref-bind
  std::vector<float> x = {1, 2, 3, 4};
  float y[4];
  sd::host_executor ex;
  ex.run(scale, sd::bind("x", x.data(), x.size()), sd::bind("y", y));  // pointer and count; C array
  ex.run(scale, sd::bind("x", std::as_const(x)), sd::bind("y", y));    // container; const: read-only

  std::vector<float> a(6, 1.0f), w(6, 1.0f), bias = {0.5f, -9.0f}, c(4), d(4);
  ex.run(matmuls, sd::bind("x", std::as_const(a), 2, 3),  // rank 2: rows, cols
         sd::bind("w", std::as_const(w), 3, 2), sd::bind("v", std::as_const(w), 2, 3),
         sd::bind("bias", std::as_const(bias)), sd::bind("c", c, 2, 2), sd::bind("d", d, 2, 2));
  // c == {3, 3, 3, 3}, d == {3.5, 0, 3.5, 0}

  std::vector<sd::binding> list = {sd::bind("x", x), sd::bind("y", y)};  // bindings in a container
  ex.run(scale, list);
  // END SNIPPET
  CHECK(y[3] == 8);
  CHECK(c == std::vector<float>{3, 3, 3, 3});
  CHECK(d == std::vector<float>{3.5f, 0, 3.5f, 0});
}

TEST_CASE("reference: families and params bind by name", "[docs]") {
  // SNIPPET: ref-bind-family
  std::vector<std::vector<float>> x(4, std::vector<float>(8, 1.0f)), y(4, std::vector<float>(8));
  sd::host_executor ex;
  ex.run(families, sd::bind("x", x), sd::bind("y", y));  // one container, a member per element
  ex.run(families, sd::bind("x", x), sd::bind("y[0]", y[0]), sd::bind("y[1]", y[1]), sd::bind("y[2]", y[2]),
         sd::bind("y[3]", y[3]));  // or members one by one

  std::vector<double> v = {1, 2}, w(2);
  ex.run(shift, sd::bind("a", 0.5), sd::bind("x", v), sd::bind("y", w));  // a param: its own type
  // w == {1.5, 2.5}
  // END SNIPPET
  CHECK(y[3][7] == 2);
  CHECK(w == std::vector<double>{1.5, 2.5});
  CHECK_THROWS_AS(ex.run(shift, sd::bind("a", 0.5f), sd::bind("x", v), sd::bind("y", w)), sd::binding_error);
}

TEST_CASE("reference: a user's step bound with sd::bind_call", "[docs]") {
  // SNIPPET: ref-bind-call
  std::vector<float> x = {1, 2, 3}, y(3);
  sd::host_executor ex;
  ex.run(with_call, sd::bind("x", x), sd::bind("y", y), sd::bind_call("square", [](sd::call_context& c) {
           auto in = c.read<float>(0);    // sd::reads(t): a region_span<const float>
           auto out = c.write<float>(0);  // sd::writes(y)
           for (std::size_t i = 0; i < out.size(); ++i) out[i] = in[i] * in[i];
           // on the CUDA executor: my_kernel<<<grid, block, 0, c.stream()>>>(in.data(), ...)
         }));
  // y == {4, 9, 16}
  // END SNIPPET
  CHECK(y == std::vector<float>{4, 9, 16});
}

TEST_CASE("reference: a host step sees what the copy before it wrote", "[docs]") {
  std::vector<float> x = {1, 2, 3}, h(3), seen;
  sd::host_executor ex;
  ex.run(with_host_step, sd::bind("x", x), sd::bind("h", h), sd::bind_call("log", [&](sd::call_context& c) {
           CHECK_FALSE(c.on_gpu());
           auto in = c.read<float>(0);
           seen.assign(in.begin(), in.end());
         }));
  CHECK(seen == std::vector<float>{2, 4, 6});
}

TEST_CASE("reference: collectives over loopback ranks", "[docs]") {
  // SNIPPET: ref-loopback
  sd::loopback_world world(2);  // two ranks, a thread each
  std::vector<std::vector<float>> x = {{1, 2}, {3, 4}}, g(2, std::vector<float>(2));
  world.run(averaged, [&](int r) {
    return std::vector<sd::binding>{sd::bind("x", x[r]), sd::bind("g", g[r])};
  });
  // g[0] == g[1] == {4, 6}
  // END SNIPPET
  CHECK(g[0] == std::vector<float>{4, 6});
  CHECK(g[1] == std::vector<float>{4, 6});
}

TEST_CASE("reference: host executor options", "[docs]") {
  // SNIPPET: ref-host-options
  sd::host_executor plain;                         // a thread per stream slot with work
  sd::host_executor stressed(sd::stress{42, 50});  // random delays up to 50 us before each op
  sd::host_options o;
  o.kernel_helpers = 0;  // large kernels run on their stream's thread alone
  sd::host_executor single(o);
  std::vector<float> x = {1, 2}, y(2), z(2);
  stressed.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
  // z == {4, 6}, whatever the delays
  // END SNIPPET
  CHECK(z == std::vector<float>{4, 6});
  plain.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
  single.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
  CHECK(z == std::vector<float>{4, 6});
}

TEST_CASE("reference: timelines and Chrome traces", "[docs]") {
  // SNIPPET: ref-timeline
  std::vector<float> x(1024, 1.0f), y(1024), z(1024);
  sd::host_executor ex;
  sd::timeline t;
  ex.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z), sd::record_timeline(t));
  // t.slices(): k0 on lane "side", k1 on lane "main", each with start_ns and duration_ns
  std::ostringstream json;
  sd::write_chrome_trace(json, t);  // or: std::ofstream("run.json") << sd::chrome_trace(t);
  // END SNIPPET
  REQUIRE(t.slices().size() == 2);
  CHECK(t.streams()[0].view() == "main");
  CHECK(t.slices()[0].kind == "kernel");
  CHECK(json.str().find("\"traceEvents\"") != std::string::npos);
  CHECK(t.run_ns() >= t.slices()[1].start_ns);
}

TEST_CASE("reference: binding errors are thrown before anything runs", "[docs]") {
  // SNIPPET: ref-binding-error
  std::vector<float> x = {1, 2, 3}, y(2);
  sd::host_executor ex;
  try {
    ex.run(scale, sd::bind("x", x), sd::bind("y", y));
  } catch (const sd::binding_error& e) {
    // e.what(): "... buffers of domain 'n' must have one extent, but 'x' is bound to 3
    // elements and 'y' to 2"; y is untouched
  }
  // END SNIPPET
  CHECK_THROWS_AS(ex.run(scale, sd::bind("x", x), sd::bind("y", y)), sd::binding_error);
  CHECK_THROWS_WITH(ex.run(scale, sd::bind("x", x), sd::bind("y", y)),
                    Catch::Contains("buffers of domain 'n' must have one extent, but 'x' is bound to 3 "
                                    "elements and 'y' to 2"));
}

TEST_CASE("reference: the plan as text and as a graph", "[docs]") {
  // SNIPPET: ref-dump
  std::string text = seed.to_string();  // or std::puts(seed.to_string().c_str()), std::cout << ...
  std::string dot = seed.to_dot();      // Graphviz: dot -Tsvg
  // END SNIPPET
  CHECK(text.rfind("// streamdsl plan: 2 kernels, 2 syncs, 2 streams", 0) == 0);
  CHECK(dot.find("digraph") != std::string::npos);
}

TEST_CASE("reference: a program built at run time", "[docs]") {
  // SNIPPET: ref-runtime
  sd::builder b;
  auto x = b.input<float>("x");
  auto y = b.output<float>("y");
  y = x * 2;
  sd::plan_model model = sd::passes::schedule(std::move(b).ir(), sd::automatic);
  if (!model.ir.ok()) return;  // model.ir.errors lists what is wrong
  std::vector<float> xs = {1, 2}, ys(2);
  sd::host_executor ex;
  ex.run(sd::view_of(model), std::vector<sd::binding>{sd::bind("x", xs), sd::bind("y", ys)});
  // ys == {2, 4}
  std::ostringstream text;
  text << sd::dump(sd::view_of(model));  // the plan as to_string() prints a compiled program's
  // END SNIPPET
  CHECK(model.ir.ok());
  CHECK(text.str().rfind("// streamdsl plan: 1 kernel", 0) == 0);
  CHECK(ys == std::vector<float>{2, 4});
}
