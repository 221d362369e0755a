// batch_matmuls alone and in the pipeline: independent matmuls of one shape
// become one step (a batch) on the first member's stream; dependent ones,
// ones that share a buffer, and ones of another shape or mode stay apart.
#include <catch2/catch.hpp>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

namespace {

// The program after the pass: its statements' texts, one per line.
std::string batched(auto body) {
  sd::plan_model m;
  m.ir = sd::build_ir(body);
  REQUIRE(m.ir.ok());
  sd::passes::batch_matmuls(m);
  std::string out;
  for (const auto& s : m.ir.stmts)
    if (s.kind <= sd::ir::stmt_kind::step)
      out += std::string(sd::ir::statement_text(sd::ir::view_of(m.ir), s).view()) + "\n";
  return out;
}

// Workload 7b's shape, small: `count` products over `lanes` streams,
// forked from and joined to main.
template <int count, int lanes>
constexpr auto spread = [](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("cols");
  auto a = p.inputs<float>("a", count, m, k);
  auto b = p.inputs<float>("b", count, k, n);
  auto c = p.outputs<float>("c", count, m, n);
  auto s = p.streams("s", lanes);
  for (int i = 0; i < lanes; ++i) s[i].wait_stream(p.main_stream());
  for (int i = 0; i < count; ++i) sd::with_stream(s[i % lanes], [&] { c[i] = sd::matmul(a[i], b[i]); });
  for (int i = 0; i < lanes; ++i) p.main_stream().wait_stream(s[i]);
};

constexpr auto spread_checked = sd::program(spread<8, 4>);
constexpr auto spread_automatic = sd::program<sd::automatic>(spread<8, 4>);
constexpr auto spread_apart = sd::program<sd::no_batching>(spread<8, 4>);
constexpr auto spread_as_written = sd::program<sd::as_written>(spread<8, 4>);

}  // namespace

TEST_CASE("batch_matmuls: independent matmuls over a stream family are one step", "[passes][batch_matmuls]") {
  STATIC_REQUIRE(spread_checked.plan().step_count() == 1);
  STATIC_REQUIRE(spread_automatic.plan().step_count() == 1);
  STATIC_REQUIRE(spread_apart.plan().step_count() == 8);
  STATIC_REQUIRE(spread_as_written.plan().step_count() == 8);
  const std::string dump(sd::dump(spread_checked.plan()).view());
  INFO(dump);
  CHECK(
      dump.find("c[0] = sd::matmul(a[0], b[0]); ...; c[7] = sd::matmul(a[7], b[7])  [batch of 8 matmuls]") !=
      std::string::npos);
  CHECK(dump.find("batch: 8 independent matmuls") != std::string::npos);
  CHECK(dump.find("2mnk <= 2^32") != std::string::npos);
  const std::string apart(sd::dump(spread_apart.plan()).view());
  CHECK(apart.find("batch") == std::string::npos);
}

TEST_CASE("batch_matmuls: the batch's statement lists each member's operands and product",
          "[passes][batch_matmuls]") {
  sd::plan_model m;
  m.ir = sd::build_ir(spread<3, 2>);
  REQUIRE(sd::passes::batch_matmuls(m) == 1);
  const auto v = sd::ir::view_of(m.ir);
  std::size_t steps = 0;
  for (const auto& s : m.ir.stmts) {
    if (s.kind != sd::ir::stmt_kind::step) continue;
    ++steps;
    REQUIRE(sd::ir::matmul_batch_size(s) == 3);
    CHECK(v.stream_name(s.stream) == "s[0]");
    for (std::int32_t j = 0; j < 3; ++j) {
      const auto x = sd::ir::matmul_member_of(v, s, j);
      const std::string at = "[" + std::to_string(j) + "]";
      CHECK(v.buffer_name(x.a) == "a" + at);
      CHECK(v.buffer_name(x.b) == "b" + at);
      CHECK(v.buffer_name(x.c) == "c" + at);
    }
  }
  CHECK(steps == 1);
}

TEST_CASE("batch_matmuls: a matmul that depends on another stays apart", "[passes][batch_matmuls]") {
  // c1 reads c0: a chain, not an antichain.
  CHECK(batched([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.input<float>("a", m, m);
          auto b = p.input<float>("b", m, m);
          auto c0 = p.output<float>("c0", m, m);
          auto c1 = p.output<float>("c1", m, m);
          c0 = sd::matmul(a, b);
          c1 = sd::matmul(c0, b);
        }) == "c0 = sd::matmul(a, b)\nc1 = sd::matmul(c0, b)\n");
  // a1 is written between the two: the second cannot move before that write.
  CHECK(batched([](sd::builder& p) {
          auto m = p.domain("m");
          auto a0 = p.input<float>("a0", m, m);
          auto b0 = p.input<float>("b0", m, m);
          auto a1 = p.inout<float>("a1", m, m);
          auto b1 = p.input<float>("b1", m, m);
          auto c0 = p.output<float>("c0", m, m);
          auto c1 = p.output<float>("c1", m, m);
          c0 = sd::matmul(a0, b0);
          a1 = a1 * 2;
          c1 = sd::matmul(a1, b1);
        }) == "c0 = sd::matmul(a0, b0)\na1 = a1 * 2\nc1 = sd::matmul(a1, b1)\n");
  // c1 is read between them (by d): it cannot be written before that read.
  CHECK(batched([](sd::builder& p) {
          auto m = p.domain("m");
          auto a0 = p.input<float>("a0", m, m);
          auto b0 = p.input<float>("b0", m, m);
          auto a1 = p.input<float>("a1", m, m);
          auto b1 = p.input<float>("b1", m, m);
          auto c0 = p.output<float>("c0", m, m);
          auto c1 = p.inout<float>("c1", m, m);
          auto d = p.output<float>("d", m, m);
          c0 = sd::matmul(a0, b0);
          d = c1 + 1;
          c1 = sd::matmul(a1, b1);
        }) == "c0 = sd::matmul(a0, b0)\nd = c1 + 1\nc1 = sd::matmul(a1, b1)\n");
}

TEST_CASE("batch_matmuls: work between members that they do not conflict with stays after the batch",
          "[passes][batch_matmuls]") {
  // d reads c0 (after the batch, as before); c1 does not touch d.
  CHECK(batched([](sd::builder& p) {
          auto m = p.domain("m");
          auto a0 = p.input<float>("a0", m, m);
          auto b0 = p.input<float>("b0", m, m);
          auto a1 = p.input<float>("a1", m, m);
          auto b1 = p.input<float>("b1", m, m);
          auto c0 = p.output<float>("c0", m, m);
          auto c1 = p.output<float>("c1", m, m);
          auto d = p.output<float>("d", m, m);
          auto side = p.stream("side");
          c0 = sd::matmul(a0, b0);
          d = c0 + 1;
          sd::with_stream(side, [&] { c1 = sd::matmul(a1, b1); });
        }) == "c0 = sd::matmul(a0, b0); c1 = sd::matmul(a1, b1)  [batch of 2 matmuls]\nd = c0 + 1\n");
}

TEST_CASE("batch_matmuls: other shapes, modes, types and shared buffers stay apart",
          "[passes][batch_matmuls]") {
  // Two shapes: a batch of each.
  CHECK(batched([](sd::builder& p) {
          auto m = p.domain("m");
          auto k = p.domain("k");
          auto x = p.inputs<float>("x", 4, m, m);
          auto y = p.inputs<float>("y", 4, k, k);
          auto c = p.outputs<float>("c", 2, m, m);
          auto e = p.outputs<float>("e", 2, k, k);
          c[0] = sd::matmul(x[0], x[1]);
          e[0] = sd::matmul(y[0], y[1]);
          c[1] = sd::matmul(x[2], x[3]);
          e[1] = sd::matmul(y[2], y[3]);
        }) ==
        "c[0] = sd::matmul(x[0], x[1]); c[1] = sd::matmul(x[2], x[3])  [batch of 2 matmuls]\n"
        "e[0] = sd::matmul(y[0], y[1]); e[1] = sd::matmul(y[2], y[3])  [batch of 2 matmuls]\n");
  // A transpose, TF32: other modes.
  CHECK(batched([](sd::builder& p) {
          auto m = p.domain("m");
          auto x = p.inputs<float>("x", 6, m, m);
          auto c = p.outputs<float>("c", 3, m, m);
          c[0] = sd::matmul(x[0], x[1]);
          c[1] = sd::matmul(x[2], sd::transpose(x[3]));
          c[2] = sd::matmul(x[4], x[5], sd::tf32);
        }) ==
        "c[0] = sd::matmul(x[0], x[1])\nc[1] = sd::matmul(x[2], sd::transpose(x[3]))\n"
        "c[2] = sd::matmul(x[4], x[5], sd::tf32)\n");
  // Shared weights: one buffer in two members (not a strided batch; not batched).
  CHECK(batched([](sd::builder& p) {
          auto m = p.domain("m");
          auto x = p.inputs<float>("x", 2, m, m);
          auto w = p.input<float>("w", m, m);
          auto c = p.outputs<float>("c", 2, m, m);
          c[0] = sd::matmul(x[0], w);
          c[1] = sd::matmul(x[1], w);
        }) == "c[0] = sd::matmul(x[0], w)\nc[1] = sd::matmul(x[1], w)\n");
}

TEST_CASE("batch_matmuls: the size rule", "[passes][batch_matmuls]") {
  STATIC_REQUIRE(sd::ir::matmul_batch_pays(512, 512, 512));
  STATIC_REQUIRE(sd::ir::matmul_batch_pays(1024, 1024, 1024));
  STATIC_REQUIRE(sd::ir::matmul_batch_pays(256, 1024, 4096));
  STATIC_REQUIRE(!sd::ir::matmul_batch_pays(2048, 2048, 2048));
  STATIC_REQUIRE(!sd::ir::matmul_batch_pays(8192, 8192, 8192));
  STATIC_REQUIRE(!sd::ir::matmul_batch_pays(0, 8, 8));
  STATIC_REQUIRE(!sd::ir::matmul_batch_pays(1ll << 40, 1ll << 40, 1ll << 40));
}

TEST_CASE("batch_matmuls: the host executor's batch gives the members' results bit for bit",
          "[passes][batch_matmuls]") {
  constexpr int count = 8;
  const std::size_t M = 5, K = 7, N = 3;
  const auto run = [&](const auto& program) {
    std::vector<std::vector<float>> a(count, std::vector<float>(M * K)), b(count, std::vector<float>(K * N)),
        c(count, std::vector<float>(M * N, -1));
    std::vector<sd::binding> bound;
    for (int i = 0; i < count; ++i) {
      for (std::size_t e = 0; e < a[i].size(); ++e)
        a[i][e] = 0.1f * static_cast<float>((e * 7 + i) % 11) - 0.4f;
      for (std::size_t e = 0; e < b[i].size(); ++e)
        b[i][e] = 0.3f * static_cast<float>((e * 3 + i) % 5) - 0.7f;
      const std::string at = "[" + std::to_string(i) + "]";
      bound.push_back(sd::bind("a" + at, a[i], M, K));
      bound.push_back(sd::bind("b" + at, b[i], K, N));
      bound.push_back(sd::bind("c" + at, c[i], M, N));
    }
    sd::host_executor ex;
    ex.run(program, sd::binding_list(bound.data(), bound.size()));
    return c;
  };
  const auto one = run(spread_checked);
  CHECK(one == run(spread_apart));
  CHECK(one == run(spread_automatic));
  CHECK(one[7][0] != -1);
}

namespace {

// A member's product read on its own stream after it: the batch runs on
// main (the first member's stream), so the reader on s1 must wait for it.
constexpr auto moved_body = [](sd::builder& p) {
  auto m = p.domain("m");
  auto a = p.inputs<float>("a", 2, m, m);
  auto b = p.inputs<float>("b", 2, m, m);
  auto c = p.outputs<float>("c", 2, m, m);
  auto d = p.output<float>("d", m, m);
  auto s1 = p.stream("s1");
  c[0] = sd::matmul(a[0], b[0]);
  sd::with_stream(s1, [&] {
    c[1] = sd::matmul(a[1], b[1]);
    d = c[1] * 2 + 1;
  });
};
constexpr auto moved = sd::program(moved_body);
constexpr auto moved_automatic = sd::program<sd::automatic>(moved_body);
constexpr auto moved_apart = sd::program<sd::no_batching>(moved_body);

}  // namespace

TEST_CASE("batch_matmuls: a member's reader on its own stream waits for the batch",
          "[passes][batch_matmuls]") {
  STATIC_REQUIRE(moved.plan().step_count() == 1);
  STATIC_REQUIRE(moved.plan().edge_count(sd::sync_role::automatic) == 1);  // under sd::checked too
  STATIC_REQUIRE(moved_automatic.plan().edge_count(sd::sync_role::automatic) == 1);
  STATIC_REQUIRE(moved_apart.plan().edge_count(sd::sync_role::automatic) == 0);
  const std::size_t M = 6;
  const auto run = [&](const auto& program, sd::host_executor& ex) {
    std::vector<float> a0(M * M), a1(M * M), b0(M * M), b1(M * M), c0(M * M, -1), c1(M * M, -1), d(M * M, -1);
    for (std::size_t e = 0; e < M * M; ++e) {
      a0[e] = 0.25f * static_cast<float>(e % 7) - 0.5f;
      a1[e] = 0.5f * static_cast<float>(e % 5) - 1.0f;
      b0[e] = 0.125f * static_cast<float>(e % 9);
      b1[e] = 0.75f * static_cast<float>(e % 3) - 0.25f;
    }
    ex.run(program, sd::bind("a[0]", a0, M, M), sd::bind("a[1]", a1, M, M), sd::bind("b[0]", b0, M, M),
           sd::bind("b[1]", b1, M, M), sd::bind("c[0]", c0, M, M), sd::bind("c[1]", c1, M, M),
           sd::bind("d", d, M, M));
    return std::vector<std::vector<float>>{c0, c1, d};
  };
  sd::host_executor plain;
  const auto want = run(moved_apart, plain);
  CHECK(run(moved, plain) == want);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    sd::host_executor stressed(sd::stress{seed, 30});
    CHECK(run(moved, stressed) == want);
    CHECK(run(moved_automatic, stressed) == want);
  }
}
