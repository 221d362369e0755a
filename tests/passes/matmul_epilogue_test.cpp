// fold_matmul_epilogues alone: the elementwise consumer of a matmul that
// cuBLASLt can apply as an epilogue is folded into it; what it cannot apply,
// or what the fold could reorder, stays a statement of its own.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>

namespace {

// The program after the pass: its statements' texts, one per line.
std::string folded(auto body) {
  sd::plan_model m;
  m.ir = sd::build_ir(body);
  REQUIRE(m.ir.ok());
  sd::passes::fold_matmul_epilogues(m);
  std::string out;
  for (const auto& s : m.ir.stmts)
    out += std::string(sd::ir::statement_text(sd::ir::view_of(m.ir), s).view()) + "\n";
  return out;
}

// c = sd::matmul(a, b) into a temp, then `Consumer{}(p, c, bias, d, e)` (a
// lambda without captures): a, b over (m, k), (k, cols); c and d over
// (m, cols), as e; bias over cols; all of type T.
template <class T = float, class Consumer>
std::string fold_of(Consumer) {
  return folded([](sd::builder& p) {
    auto m = p.domain("m");
    auto k = p.domain("k");
    auto n = p.domain("cols");
    auto a = p.input<T>("a", m, k);
    auto b = p.input<T>("b", k, n);
    auto bias = p.input<T>("bias", n);
    auto c = p.temp<T>("c", m, n);
    auto d = p.output<T>("d", m, n);
    auto e = p.inout<T>("e", m, n);  // another matrix, for the consumers that need one
    c = sd::matmul(a, b);
    Consumer{}(p, c, bias, d, e);
  });
}

}  // namespace

TEST_CASE("fold_matmul_epilogues: each epilogue cuBLASLt has", "[passes][matmul_epilogue]") {
  CHECK(fold_of([](auto&, auto& c, auto& bias, auto& d, auto&) { d = sd::relu(c + bias); }) ==
        "d = relu(sd::matmul(a, b) + bias)  [cuBLASLt epilogue RELU_BIAS]\n");
  CHECK(fold_of([](auto&, auto& c, auto& bias, auto& d, auto&) { d = bias + c; }) ==
        "d = sd::matmul(a, b) + bias  [cuBLASLt epilogue BIAS]\n");
  CHECK(fold_of([](auto&, auto& c, auto&, auto& d, auto&) { d = sd::relu(c); }) ==
        "d = relu(sd::matmul(a, b))  [cuBLASLt epilogue RELU]\n");
  CHECK(fold_of([](auto&, auto& c, auto& bias, auto& d, auto&) { d = bias + c * 0.5f; }) ==
        "d = 0.5 * sd::matmul(a, b) + bias  [cuBLASLt epilogue BIAS]\n");
  CHECK(fold_of([](auto& p, auto& c, auto&, auto& d, auto&) {
          auto alpha = p.template param<float>("alpha");
          d = alpha * c;
        }) == "d = alpha * sd::matmul(a, b)  [cuBLASLt epilogue DEFAULT]\n");
  CHECK(fold_of([](auto& p, auto& c, auto& bias, auto& d, auto&) {
          auto alpha = p.template param<float>("alpha");
          d = sd::relu(c * alpha + bias);
        }) == "d = relu(alpha * sd::matmul(a, b) + bias)  [cuBLASLt epilogue RELU_BIAS]\n");
  // An integral literal scales in the product's type.
  CHECK(fold_of([](auto&, auto& c, auto&, auto& d, auto&) { d = 3 * c; }) ==
        "d = 3 * sd::matmul(a, b)  [cuBLASLt epilogue DEFAULT]\n");
}

TEST_CASE("fold_matmul_epilogues: in place, transposed, TF32", "[passes][matmul_epilogue]") {
  CHECK(folded([](sd::builder& p) {
          auto rows = p.domain("rows");
          auto dim = p.domain("dim");
          auto x = p.input<float>("x", dim, rows);
          auto w = p.input<float>("w", dim, dim);
          auto bias = p.input<float>("bias", dim);
          auto h = p.output<float>("h", rows, dim);
          h = sd::matmul(sd::transpose(x), w, sd::tf32);
          h = sd::relu(h + bias);
        }) == "h = relu(sd::matmul(sd::transpose(x), w, sd::tf32) + bias)  [cuBLASLt epilogue RELU_BIAS]\n");
}

TEST_CASE("fold_matmul_epilogues: what cuBLASLt cannot apply stays a kernel", "[passes][matmul_epilogue]") {
  // gelu with erf (cuBLASLt's GELU is the tanh form).
  CHECK(fold_of([](auto&, auto& c, auto&, auto& d, auto&) { d = sd::gelu(c); }) ==
        "c = sd::matmul(a, b)\nd = gelu(c)\n");
  // gelu_tanh into a float product: cuBLASLt's approximate tanh would show
  // (it folds into __half and __nv_bfloat16 products:
  // tests/backend/cuda/matmul_test.cu, compiled where those types exist).
  CHECK(fold_of([](auto&, auto& c, auto& bias, auto& d, auto&) { d = sd::gelu_tanh(bias + c * 0.5f); }) ==
        "c = sd::matmul(a, b)\nd = gelu_tanh(bias + c * 0.5)\n");
  // The activation before the bias, or a scale after it.
  CHECK(fold_of([](auto&, auto& c, auto& bias, auto& d, auto&) { d = sd::relu(c) + bias; }) ==
        "c = sd::matmul(a, b)\nd = relu(c) + bias\n");
  CHECK(fold_of([](auto&, auto& c, auto& bias, auto& d, auto&) { d = (c + bias) * 2.0f; }) ==
        "c = sd::matmul(a, b)\nd = (c + bias) * 2\n");
  // A subtraction, a matrix added, a scale by a matrix.
  CHECK(fold_of([](auto&, auto& c, auto& bias, auto& d, auto&) { d = c - bias; }) ==
        "c = sd::matmul(a, b)\nd = c - bias\n");
  CHECK(fold_of([](auto&, auto& c, auto&, auto& d, auto& e) { d = c + e; }) ==
        "c = sd::matmul(a, b)\nd = c + e\n");
  // A bias over the rows (a column, repeated along each row): cuBLASLt's runs over c's columns.
  CHECK(folded([](sd::builder& p) {
          auto m = p.domain("m");
          auto n = p.domain("cols");
          auto a = p.input<float>("a", m, n);
          auto b = p.input<float>("b", n, n);
          auto col = p.input<float>("col", m);
          auto c = p.temp<float>("c", m, n);
          auto d = p.output<float>("d", m, n);
          c = sd::matmul(a, b);
          d = c + col;
        }) == "c = sd::matmul(a, b)\nd = c + col\n");
  // A conversion: a bias of another type promotes the sum, a result stored in another type.
  CHECK(folded([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.input<float>("a", m, m);
          auto wide = p.input<double>("wide", m);
          auto c = p.temp<float>("c", m, m);
          auto d = p.output<double>("d", m, m);
          c = sd::matmul(a, a);
          d = c + wide;
        }) == "c = sd::matmul(a, a)\nd = c + wide\n");
  CHECK(folded([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.input<float>("a", m, m);
          auto c = p.temp<float>("c", m, m);
          auto d = p.output<double>("d", m, m);
          c = sd::matmul(a, a);
          d = sd::relu(c);
        }) == "c = sd::matmul(a, a)\nd = relu(c)\n");
  // double: not folded (ir::matmul_epilogue_supported).
  CHECK(fold_of<double>([](auto&, auto& c, auto& bias, auto& d, auto&) { d = sd::relu(c + bias); }) ==
        "c = sd::matmul(a, b)\nd = relu(c + bias)\n");
}

TEST_CASE("fold_matmul_epilogues: what the fold could reorder stays apart", "[passes][matmul_epilogue]") {
  // The product read again.
  CHECK(fold_of([](auto&, auto& c, auto& bias, auto& d, auto& e) {
          d = sd::relu(c + bias);
          e = c;
        }) == "c = sd::matmul(a, b)\nd = relu(c + bias)\ne = c\n");
  // Another statement of the stream between them.
  CHECK(fold_of([](auto&, auto& c, auto& bias, auto& d, auto& e) {
          e = e * 2.0f;
          d = sd::relu(c + bias);
        }) == "c = sd::matmul(a, b)\ne = e * 2\nd = relu(c + bias)\n");
  // A sync of the stream between them.
  CHECK(fold_of([](auto& p, auto& c, auto& bias, auto& d, auto&) {
          auto ev = p.event("ev");
          ev.record();
          d = sd::relu(c + bias);
        }) == "c = sd::matmul(a, b)\nev.record()\nd = relu(c + bias)\n");
  // The consumer on another stream.
  CHECK(fold_of([](auto& p, auto& c, auto& bias, auto& d, auto&) {
          auto side = p.stream("side");
          sd::with_stream(side, [&] { d = sd::relu(c + bias); });
        }) == "c = sd::matmul(a, b)\nd = relu(c + bias)\n");
  // The product an output (it is stored, and d is another buffer).
  CHECK(folded([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.input<float>("a", m, m);
          auto c = p.output<float>("c", m, m);
          auto d = p.output<float>("d", m, m);
          c = sd::matmul(a, a);
          d = sd::relu(c);
        }) == "c = sd::matmul(a, a)\nd = relu(c)\n");
  // The consumer writes an operand.
  CHECK(folded([](sd::builder& p) {
          auto m = p.domain("m");
          auto a = p.inout<float>("a", m, m);
          auto c = p.temp<float>("c", m, m);
          c = sd::matmul(a, a);
          a = sd::relu(c);
        }) == "c = sd::matmul(a, a)\na = relu(c)\n");
}

TEST_CASE("fold_matmul_epilogues: the schedule folds, sd::no_fusion and sd::as_written do not",
          "[passes][matmul_epilogue]") {
  constexpr auto body = [](sd::builder& p) {
    auto m = p.domain("m");
    auto n = p.domain("cols");
    auto a = p.input<float>("a", m, m);
    auto b = p.input<float>("b", m, n);
    auto bias = p.input<float>("bias", n);
    auto c = p.temp<float>("c", m, n);
    auto d = p.output<float>("d", m, n);
    c = sd::matmul(a, b);
    d = sd::relu(c + bias);
  };
  constexpr auto fused = sd::program(body);
  STATIC_REQUIRE(fused.plan().step_count() == 1);
  STATIC_REQUIRE(fused.plan().kernel_count() == 0);
  const std::string dump = fused.to_string().c_str();
  CHECK(dump.find("d = relu(sd::matmul(a, b) + bias)  [cuBLASLt epilogue RELU_BIAS]") != std::string::npos);
  CHECK(
      dump.find("epilogue: statement #1 `d = relu(c + bias)` on stream 'main' is folded into statement #0") !=
      std::string::npos);
  constexpr auto apart = sd::program<sd::no_fusion>(body);
  STATIC_REQUIRE(apart.plan().step_count() == 1);
  STATIC_REQUIRE(apart.plan().kernel_count() == 1);
  constexpr auto written = sd::program<sd::as_written>(body);
  STATIC_REQUIRE(written.plan().kernel_count() == 1);
}
