// sd::matmul (ops/matmul.hpp): the step statement, its checks and messages,
// ordering across streams, and the host executor's products against loops
// written out here (every transpose, float and double, empty extents).
#include <array>
#include <catch2/catch.hpp>
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

// c = op(a) op(b) for each pair of transposes, with a and b stored to match.
template <class T, bool TA, bool TB>
constexpr auto product = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = TA ? p.input<T>("a", k, m) : p.input<T>("a", m, k);
  auto b = TB ? p.input<T>("b", n, k) : p.input<T>("b", k, n);
  auto c = p.output<T>("c", m, n);
  if constexpr (TA && TB)
    c = sd::matmul(sd::transpose(a), sd::transpose(b));
  else if constexpr (TA)
    c = sd::matmul(sd::transpose(a), b);
  else if constexpr (TB)
    c = sd::matmul(a, sd::transpose(b));
  else
    c = sd::matmul(a, b);
});

template <class T, bool TA, bool TB>
void check_product(std::size_t M, std::size_t K, std::size_t N) {
  std::vector<T> a(M * K), b(K * N), c(M * N, T(-1));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<T>(static_cast<int>(i % 7) - 3);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<T>(static_cast<int>(i % 5) - 2) / 2;
  sd::host_executor ex;
  ex.run(product<T, TA, TB>, sd::bind("a", a, TA ? K : M, TA ? M : K),
         sd::bind("b", b, TB ? N : K, TB ? K : N), sd::bind("c", c, M, N));
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      T s = 0;
      for (std::size_t p = 0; p < K; ++p)
        s += (TA ? a[p * M + i] : a[i * K + p]) * (TB ? b[j * K + p] : b[p * N + j]);
      INFO("c[" << i << "][" << j << "]");
      REQUIRE(c[i * N + j] == s);  // small halves: exact in any order
    }
}

TEST_CASE("sd::matmul is a step reading its two operands and writing its product", "[matmul]") {
  constexpr auto v = product<float, false, true>.plan().ir;
  STATIC_REQUIRE(v.stmts.size() == 1);
  STATIC_REQUIRE(v.stmts[0].kind == sd::ir::stmt_kind::step);
  STATIC_REQUIRE(v.stmts[0].code == sd::ir::step_code::matmul);
  STATIC_REQUIRE(v.stmts[0].matmul_mode == sd::ir::transpose_b);
  STATIC_REQUIRE(v.stmts[0].reads_count == 2);
  STATIC_REQUIRE(product<float, false, true>.plan().step_count() == 1);
  STATIC_REQUIRE(product<float, false, true>.plan().kernel_count() == 0);
  CHECK(std::string(sd::ir::statement_text(v, v.stmts[0]).view()) == "c = sd::matmul(a, sd::transpose(b))");
}

TEST_CASE("the host executor multiplies with every transpose, float and double", "[matmul]") {
  check_product<float, false, false>(5, 7, 3);
  check_product<float, true, false>(4, 9, 6);
  check_product<float, false, true>(3, 2, 8);
  check_product<float, true, true>(6, 5, 1);
  check_product<double, false, false>(33, 17, 65);
  check_product<double, true, true>(2, 40, 3);
}

TEST_CASE("a matmul of no inner elements is zero, of no rows or columns nothing", "[matmul]") {
  check_product<float, false, false>(3, 0, 4);
  check_product<float, false, false>(0, 3, 4);
  check_product<float, false, false>(3, 4, 0);
}

TEST_CASE("a matmul beside elementwise work on two streams, ordered by sd::automatic", "[matmul]") {
  constexpr auto layers = sd::program<sd::automatic>([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto d = p.domain("d");
    auto x = p.input<float>("x", rows, d);
    auto w1 = p.input<float>("w1", d, d);
    auto w2 = p.input<float>("w2", d, d);
    auto bias = p.input<float>("bias", d);
    auto h = p.temp<float>("h", rows, d);
    auto y = p.output<float>("y", rows, d);
    auto side = p.stream("side");
    h = sd::matmul(x, w1);
    h = sd::relu(h + bias);  // bias: a row, broadcast down the rows
    sd::with_stream(side, [&] { y = sd::matmul(h, w2); });
  });
  STATIC_REQUIRE(layers.plan().step_count() == 2);
  STATIC_REQUIRE(layers.plan().sync_count() >= 2);  // side waits for h; main waits for side at exit
  const std::size_t R = 4, D = 3;
  std::vector<float> x(R * D), w1(D * D), w2(D * D), bias(D), y(R * D);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 4) - 1;
  for (std::size_t i = 0; i < w1.size(); ++i)
    w1[i] = static_cast<float>(i % 3) - 1, w2[i] = static_cast<float>(i % 2);
  for (std::size_t j = 0; j < D; ++j) bias[j] = static_cast<float>(j) - 1;
  sd::host_executor ex;
  ex.run(layers, sd::bind("x", x, R, D), sd::bind("w1", w1, D, D), sd::bind("w2", w2, D, D),
         sd::bind("bias", bias), sd::bind("y", y, R, D));
  for (std::size_t i = 0; i < R; ++i) {
    float h[D];
    for (std::size_t j = 0; j < D; ++j) {
      float s = 0;
      for (std::size_t p = 0; p < D; ++p) s += x[i * D + p] * w1[p * D + j];
      h[j] = s + bias[j] > 0 ? s + bias[j] : 0;
    }
    for (std::size_t j = 0; j < D; ++j) {
      float s = 0;
      for (std::size_t p = 0; p < D; ++p) s += h[p] * w2[p * D + j];
      REQUIRE(y[i * D + j] == s);
    }
  }
}

TEST_CASE("families of matrices: independent matmuls spread over a stream family", "[matmul]") {
  // Workload 7b's shape (bench/matmul_concurrency.cu), small: 8 products on 4 streams.
  static constexpr int count = 8, lanes = 4;
  constexpr auto many = sd::program([](sd::builder& p) {
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
  });
  // One step: a batch of the 8 (passes/batch_matmuls.hpp); 8 with sd::no_batching.
  STATIC_REQUIRE(many.plan().step_count() == 1);
  const std::size_t M = 3, K = 5, N = 2;
  std::vector<std::vector<float>> a(count, std::vector<float>(M * K)), b(count, std::vector<float>(K * N)),
      c(count, std::vector<float>(M * N, -1));
  std::vector<sd::binding> bound;
  for (int i = 0; i < count; ++i) {
    for (std::size_t e = 0; e < a[i].size(); ++e) a[i][e] = static_cast<float>((e + i) % 5) - 2;
    for (std::size_t e = 0; e < b[i].size(); ++e) b[i][e] = static_cast<float>((e * 3 + i) % 4) - 1;
    const std::string at = "[" + std::to_string(i) + "]";
    bound.push_back(sd::bind("a" + at, a[i], M, K));
    bound.push_back(sd::bind("b" + at, b[i], K, N));
    bound.push_back(sd::bind("c" + at, c[i], M, N));
  }
  sd::host_executor ex;
  ex.run(many, sd::binding_list(bound.data(), bound.size()));
  for (int q = 0; q < count; ++q)
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        float s = 0;
        for (std::size_t p = 0; p < K; ++p) s += a[q][i * K + p] * b[q][p * N + j];
        REQUIRE(c[q][i * N + j] == s);
      }
}

TEST_CASE("misuse of sd::matmul is a named compile error", "[matmul]") {
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.input<float>("a", m, m);
          auto x = p.input<float>("x", m);
          auto c = p.output<float>("c", m, m);
          c = sd::matmul(a, x);
        }) == error_kind::matmul_operand_not_rank2);
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.input<float>("a", m, m);
          auto b = p.input<double>("b", m, m);
          auto c = p.output<double>("c", m, m);
          c = sd::matmul(a, b);
        }) == error_kind::matmul_type_unsupported);
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.input<std::int32_t>("a", m, m);
          auto c = p.output<std::int32_t>("c", m, m);
          c = sd::matmul(a, a);
        }) == error_kind::matmul_type_unsupported);
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto k = p.domain("k");
          auto a = p.input<float>("a", m, k);
          auto b = p.input<float>("b", m, k);
          auto c = p.output<float>("c", m, k);
          c = sd::matmul(a, b);  // k by m: b must be transposed
        }) == error_kind::matmul_shapes_differ);
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto k = p.domain("k");
          auto a = p.input<float>("a", m, k);
          auto b = p.input<float>("b", m, k);
          auto c = p.output<float>("c", m, m);
          c = sd::matmul(a, sd::transpose(b));  // (m, k) by (k, m): fine
        }) == error_kind::none);
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto k = p.domain("k");
          auto a = p.input<float>("a", m, k);
          auto b = p.input<float>("b", k, m);
          auto c = p.output<float>("c", k, k);
          c = sd::matmul(a, b);  // the product is (m, m)
        }) == error_kind::matmul_shapes_differ);
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.inout<float>("a", m, m);
          auto b = p.input<float>("b", m, m);
          a = sd::matmul(a, b);
        }) == error_kind::matmul_result_overlaps_operand);
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.input<double>("a", m, m);
          auto c = p.output<float>("c", m, m);
          c = sd::matmul(a, a);  // narrowing, and not a pair cuBLASLt computes
        }) == error_kind::matmul_type_unsupported);
  CHECK(first_error([](sd::builder& p) {  // a race through a matmul on another stream
          auto m = p.domain("m");
          auto a = p.input<float>("a", m, m);
          auto t = p.temp<float>("t", m, m);
          auto c = p.output<float>("c", m, m);
          auto side = p.stream("side");
          t = a * 2;
          sd::with_stream(side, [&] { c = sd::matmul(t, a); });
        }) == error_kind::race);
}

TEST_CASE("sd::matmul's messages name the buffers, domains and the fix", "[matmul]") {
  CHECK_THAT(
      first_message([](sd::builder& p) {
        auto m = p.domain("m");
        auto k = p.domain("k");
        auto a = p.input<float>("a", m, k);
        auto b = p.input<float>("b", m, k);
        auto c = p.output<float>("c", m, k);
        c = sd::matmul(a, b);
      }),
      Catch::Contains("statement #0 `c = sd::matmul(a, b)` on stream 'main' multiplies a matrix over (m, k) "
                      "by one over (m, k): the first's columns and the second's rows must be one domain "
                      "('k' and 'm' here)"));
  CHECK_THAT(
      first_message([](sd::builder& p) {
        auto m = p.domain("m");
        auto a = p.input<float>("a", m, m);
        auto x = p.input<float>("x", m);
        auto c = p.output<float>("c", m, m);
        c = sd::matmul(a, x);
      }),
      Catch::Contains("multiplies 'x', a buffer over domain 'm' (rank 1); sd::matmul multiplies rank-2 "
                      "buffers into a rank-2 buffer: declare 'x' over two domains, e.g. "
                      "p.input<float>(\"x\", rows, cols)"));
  CHECK_THAT(
      first_message([](sd::builder& p) {
        auto m = p.domain("m");
        auto a = p.input<float, sd::pinned>("a", m, m);
        auto c = p.output<float>("c", m, m);
        c = sd::matmul(a, a);
      }),
      Catch::Contains("reads the input buffer 'a', which is in pinned host memory, and matmuls run on the "
                      "device; "));
}

}  // namespace

TEST_CASE("a matmul stores its product in the operands' type, or float for 16-bit ones", "[matmul]") {
  STATIC_REQUIRE(sd::ir::matmul_stores(sd::dtype::float32, sd::dtype::float32));
  STATIC_REQUIRE(sd::ir::matmul_stores(sd::dtype::bfloat16, sd::dtype::float32));
  STATIC_REQUIRE(sd::ir::matmul_stores(sd::dtype::float16, sd::dtype::float32));
  STATIC_REQUIRE(!sd::ir::matmul_stores(sd::dtype::float32, sd::dtype::float64));
  STATIC_REQUIRE(!sd::ir::matmul_stores(sd::dtype::float64, sd::dtype::float32));
  const auto wider = [](sd::builder& p) {
    auto m = p.domain("m");
    auto a = p.input<float>("a", m, m);
    auto c = p.output<double>("c", m, m);
    c = sd::matmul(a, a);
  };
  CHECK(first_error(wider) == error_kind::matmul_type_unsupported);
  CHECK(first_message(wider) ==
        "statement #0 `c = sd::matmul(a, a)` on stream 'main' stores the product of float matrices in 'c' "
        "(double); sd::matmul stores its product in the operands' type (as cuBLASLt): declare 'c' float, or "
        "convert afterwards: `t = sd::matmul(...); c = t;`");
}

TEST_CASE("sd::tf32 marks a float matmul for TF32 tensor cores; the host multiplies in full float",
          "[matmul]") {
  static constexpr auto fast = sd::program([](sd::builder& p) {
    auto m = p.domain("m");
    auto k = p.domain("k");
    auto a = p.input<float>("a", m, k);
    auto b = p.input<float>("b", m, k);
    auto c = p.output<float>("c", m, m);
    c = sd::matmul(a, sd::transpose(b), sd::tf32);
  });
  constexpr auto v = fast.plan().ir;
  STATIC_REQUIRE(v.stmts[0].matmul_mode == (sd::ir::transpose_b | sd::ir::matmul_tf32));
  CHECK(std::string(sd::ir::statement_text(v, v.stmts[0]).view()) ==
        "c = sd::matmul(a, sd::transpose(b), sd::tf32)");
  const std::size_t M = 3, K = 4;
  std::vector<float> a(M * K), b(M * K), c(M * M, -1);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(i % 5) - 2, b[i] = static_cast<float>(i % 3);
  sd::host_executor ex;
  ex.run(fast, sd::bind("a", a, M, K), sd::bind("b", b, M, K), sd::bind("c", c, M, M));
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < M; ++j) {
      float s = 0;
      for (std::size_t q = 0; q < K; ++q) s += a[i * K + q] * b[j * K + q];
      REQUIRE(c[i * M + j] == s);
    }
  // Float operands only.
  CHECK(first_error([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.input<double>("a", m, m);
          auto c = p.output<double>("c", m, m);
          c = sd::matmul(a, a, sd::tf32);
        }) == error_kind::matmul_type_unsupported);
  CHECK(first_message([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.input<double>("a", m, m);
          auto c = p.output<double>("c", m, m);
          c = sd::matmul(a, a, sd::tf32);
        }) ==
        "statement #0 `c = sd::matmul(a, a, sd::tf32)` on stream 'main' asks for sd::tf32 with double "
        "operands; sd::tf32 lets cuBLASLt round float operands to TF32 on the tensor cores: drop it, or "
        "multiply float matrices");
}

namespace {

// h = relu(alpha * (x w) + bias) and g = 0.5 * (x w) + bias (in place): two
// consumers passes/matmul_epilogue.hpp folds, under options O.
template <sd::options O>
constexpr auto epilogues = sd::program<O>([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto k = p.domain("k");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, k);
  auto w = p.input<float>("w", k, cols);
  auto bias = p.input<float>("bias", cols);
  auto alpha = p.param<float>("alpha");
  auto t = p.temp<float>("t", rows, cols);
  auto h = p.output<float>("h", rows, cols);
  auto g = p.output<float>("g", rows, cols);
  t = sd::matmul(x, w);
  h = sd::relu(alpha * t + bias);
  g = sd::matmul(x, w);
  g = g * 0.5f + bias;
});

struct epilogue_run {
  std::vector<float> h, g;
};
template <sd::options O>
epilogue_run run_epilogues(std::size_t R, std::size_t K, std::size_t C, float alpha) {
  std::vector<float> x(R * K), w(K * C), bias(C);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) * 0.37f - 1.1f;
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 5) * 0.29f - 0.6f;
  for (std::size_t j = 0; j < C; ++j) bias[j] = static_cast<float>(j % 4) * 0.7f - 1.2f;
  epilogue_run out{std::vector<float>(R * C, -7), std::vector<float>(R * C, -7)};
  sd::host_executor ex;
  ex.run(epilogues<O>, sd::bind("x", x, R, K), sd::bind("w", w, K, C), sd::bind("bias", bias),
         sd::bind("alpha", alpha), sd::bind("h", out.h, R, C), sd::bind("g", out.g, R, C));
  return out;
}

}  // namespace

TEST_CASE("a folded epilogue gives on the host what the separate kernel gives", "[matmul][epilogue]") {
  constexpr sd::options apart = sd::no_fusion;
  STATIC_REQUIRE(epilogues<sd::options{}>.plan().step_count() == 2);
  STATIC_REQUIRE(epilogues<sd::options{}>.plan().kernel_count() == 0);  // both consumers folded
  STATIC_REQUIRE(epilogues<apart>.plan().kernel_count() > 0);           // sd::no_fusion keeps them apart
  for (const auto& [R, K, C] : {std::array<std::size_t, 3>{5, 7, 3}, {1, 1, 1}, {17, 9, 33}}) {
    const auto folded = run_epilogues<sd::options{}>(R, K, C, -1.5f);
    const auto written = run_epilogues<apart>(R, K, C, -1.5f);
    INFO(R << "x" << K << "x" << C);
    CHECK(folded.h == written.h);  // bit for bit: the host rounds after each operation either way
    CHECK(folded.g == written.g);
  }
  // Against loops written out here: the same float operations in the same order.
  const std::size_t R = 4, K = 3, C = 5;
  const auto folded = run_epilogues<sd::options{}>(R, K, C, 2.0f);
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) {
      float s = 0;
      for (std::size_t q = 0; q < K; ++q)
        s += (static_cast<float>((i * K + q) % 7) * 0.37f - 1.1f) *
             (static_cast<float>((q * C + j) % 5) * 0.29f - 0.6f);
      const float bias = static_cast<float>(j % 4) * 0.7f - 1.2f;
      const float h = 2.0f * s + bias;
      REQUIRE(folded.h[i * C + j] == (h > 0 ? h : 0));
      REQUIRE(folded.g[i * C + j] == s * 0.5f + bias);
    }
}

TEST_CASE("a folded epilogue of an empty product is the epilogue of zero", "[matmul][epilogue]") {
  const auto folded = run_epilogues<sd::options{}>(3, 0, 4, 2.0f);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      const float bias = static_cast<float>(j % 4) * 0.7f - 1.2f;
      REQUIRE(folded.h[i * 4 + j] == (bias > 0 ? bias : 0));
    }
}
