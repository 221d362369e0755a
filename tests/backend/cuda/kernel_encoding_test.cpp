// The CUDA kernel encoding under g++ (no CUDA needed): the pack is decoded
// here the way fused_kernel.cuh decodes it, and evaluated in double, so every
// field (positions, local numbering, flags, literal bits) is checked against
// what the program means.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <streamdsl/backend/cuda/kernel_encoding.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

namespace {

namespace cd = sd::cuda_detail;

constexpr auto prog = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto c = p.input<float>("c", sd::scalar);
  auto s = p.param<float>("s");
  auto y = p.output<float>("y");
  auto t = p.temp<float>("t");
  t = sd::where(x > 0.5f, x * s, x - 3);
  y = t * t + c + 2;
});

constexpr auto plan = prog.plan();
constexpr auto shape = cd::shape_of(plan, 0);
constexpr auto encoded = cd::encode<shape.code_size, shape.buffers, shape.params>(plan, 0);

// A pack and what it reads, as the kernel sees them.
struct pack_reader {
  const int* code;
  std::vector<double> cells;  // per local buffer
  std::vector<double> params;

  int buffers() const { return code[1]; }
  // A double for floating types, an int64 otherwise.
  static double literal(sd::dtype type, int hi, int lo) {
    const auto bits =
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(hi)) << 32 | static_cast<std::uint32_t>(lo);
    if (sd::category_of(type) == sd::dtype_category::floating) return std::bit_cast<double>(bits);
    return static_cast<double>(static_cast<std::int64_t>(bits));
  }
  double eval(int pos) const {
    const int head = code[pos];
    const auto op = cd::head_op(head);
    switch (op) {
      case sd::ir::op::load: return cells[static_cast<std::size_t>(code[pos + 1])];
      case sd::ir::op::param: return params[static_cast<std::size_t>(code[pos + 1])];
      case sd::ir::op::literal: return literal(cd::head_type(head), code[pos + 1], code[pos + 2]);
      case sd::ir::op::add: return eval(code[pos + 1]) + eval(code[pos + 2]);
      case sd::ir::op::sub: return eval(code[pos + 1]) - eval(code[pos + 2]);
      case sd::ir::op::mul: return eval(code[pos + 1]) * eval(code[pos + 2]);
      case sd::ir::op::gt: return eval(code[pos + 1]) > eval(code[pos + 2]) ? 1 : 0;
      case sd::ir::op::where: return eval(code[pos + 1]) != 0 ? eval(code[pos + 2]) : eval(code[pos + 3]);
      default: FAIL("op " << static_cast<int>(op) << " is not in this test's program"); return 0;
    }
  }
  void run() {
    const int statements = code[3];
    const int first = cd::header_size + code[1] + code[2];
    for (int st = 0; st < statements; ++st) {
      const int at = first + cd::statement_fields * st;
      cells[static_cast<std::size_t>(code[at])] = eval(code[at + 1]);
    }
  }
};

int local_buffer(std::string_view name) {
  const auto id = plan.buffer_id(name);
  for (std::size_t b = 0; b < shape.buffers; ++b)
    if (encoded.buffer_ids[b] == id) return static_cast<int>(b);
  return -1;
}

int flags_of(std::string_view name) { return encoded.code[cd::header_size + local_buffer(name)] >> 8; }

}  // namespace

TEST_CASE("a kernel's pack has its header, buffers and params", "[cuda][encoding]") {
  STATIC_REQUIRE(plan.kernel_count() == 1);
  STATIC_REQUIRE(shape.buffers == 4);  // x, c, t, y
  STATIC_REQUIRE(shape.params == 1);
  CHECK(encoded.code[0] == 4);  // 16-byte steps of float
  CHECK(encoded.code[1] == 4);
  CHECK(encoded.code[2] == 1);
  CHECK(encoded.code[3] == 2);
  CHECK(encoded.param_ids[0] == 0);
  for (std::size_t b = 0; b < shape.buffers; ++b)
    CHECK((encoded.code[cd::header_size + b] & 255) == static_cast<int>(sd::dtype::float32));
}

TEST_CASE("buffer flags: inputs load, outputs store, register temps neither, 0-d values broadcast",
          "[cuda][encoding]") {
  CHECK(flags_of("x") == cd::buffer_flag::load);
  CHECK(flags_of("c") == (cd::buffer_flag::load | cd::buffer_flag::broadcast));
  CHECK(flags_of("t") == 0);  // written before it is read, never leaves the kernel
  CHECK(flags_of("y") == cd::buffer_flag::store);
}

TEST_CASE("a pack evaluates to the program's values", "[cuda][encoding]") {
  for (const double x : {-1.0, 0.25, 0.75, 4.0}) {
    pack_reader r{encoded.code, std::vector<double>(shape.buffers, 0.0), {1.5}};
    r.cells[static_cast<std::size_t>(local_buffer("x"))] = x;
    r.cells[static_cast<std::size_t>(local_buffer("c"))] = 10;
    r.run();
    const double t = x > 0.5 ? x * 1.5 : x - 3;
    CHECK(r.cells[static_cast<std::size_t>(local_buffer("t"))] == t);
    CHECK(r.cells[static_cast<std::size_t>(local_buffer("y"))] == t * t + 10 + 2);
  }
}

TEST_CASE("every node is written once, operands first, and the pack is exactly full", "[cuda][encoding]") {
  const int first_node =
      cd::header_size + encoded.code[1] + encoded.code[2] + cd::statement_fields * encoded.code[3];
  int pos = first_node;
  int nodes = 0;
  while (pos < static_cast<int>(shape.code_size)) {
    const auto op = cd::head_op(encoded.code[pos]);
    if (op != sd::ir::op::load && op != sd::ir::op::param && op != sd::ir::op::literal)
      for (int i = 0; i < sd::ir::arity(op); ++i) CHECK(encoded.code[pos + 1 + i] < pos);
    pos += 1 + cd::operand_fields(op);
    ++nodes;
  }
  CHECK(pos == static_cast<int>(shape.code_size));
  // x > 0.5, x * s, x - 3, where, t * t, + c, + 2: loads of x are one node per use.
  CHECK(nodes >= 13);
}
