// The CUDA kernel encoding under g++ (no CUDA needed): the pack is decoded
// here through the pack_view fused_kernel.cuh decodes it with, and evaluated
// in double, so every field (positions, local numbering, flags, literal bits)
// is checked against what the program means.
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

constexpr cd::pack_view pack{encoded.code};

// A pack and what it reads, as the kernel sees them: read through the same
// pack_view as the device decoder.
struct pack_reader {
  cd::pack_view pack;
  std::vector<double> cells;  // per local buffer
  std::vector<double> params;

  // A double for floating types, an int64 otherwise.
  static double literal(sd::dtype type, std::uint64_t bits) {
    if (sd::category_of(type) == sd::dtype_category::floating) return std::bit_cast<double>(bits);
    return static_cast<double>(static_cast<std::int64_t>(bits));
  }
  double eval(int pos) const {
    const auto op = pack.op(pos);
    const auto operand = [&](int i) { return eval(pack.operand(pos, i)); };
    switch (op) {
      case sd::ir::op::load: return cells[static_cast<std::size_t>(pack.ref(pos))];
      case sd::ir::op::param: return params[static_cast<std::size_t>(pack.ref(pos))];
      case sd::ir::op::literal: return literal(pack.type(pos), pack.literal_bits(pos));
      case sd::ir::op::add: return operand(0) + operand(1);
      case sd::ir::op::sub: return operand(0) - operand(1);
      case sd::ir::op::mul: return operand(0) * operand(1);
      case sd::ir::op::gt: return operand(0) > operand(1) ? 1 : 0;
      case sd::ir::op::where: return operand(0) != 0 ? operand(1) : operand(2);
      default: FAIL("op " << static_cast<int>(op) << " is not in this test's program"); return 0;
    }
  }
  void run() {
    for (int st = 0; st < pack.statement_count(); ++st)
      cells[static_cast<std::size_t>(pack.target(st))] = eval(pack.root(st));
  }
};

int local_buffer(std::string_view name) {
  const auto id = plan.buffer_id(name);
  for (std::size_t b = 0; b < shape.buffers; ++b)
    if (encoded.buffer_ids[b] == id) return static_cast<int>(b);
  return -1;
}

int flags_of(std::string_view name) { return pack.buffer_flags(local_buffer(name)); }

}  // namespace

TEST_CASE("a kernel's pack has its header, buffers and params", "[cuda][encoding]") {
  STATIC_REQUIRE(plan.kernel_count() == 1);
  STATIC_REQUIRE(shape.buffers == 4);  // x, c, t, y
  STATIC_REQUIRE(shape.params == 1);
  CHECK(pack.vec() == 4);  // 16-byte steps of float
  CHECK(pack.buffer_count() == 4);
  CHECK(pack.param_count() == 1);
  CHECK(pack.statement_count() == 2);
  CHECK(encoded.param_ids[0] == 0);
  CHECK(pack.param_type(0) == sd::dtype::float32);
  for (int b = 0; b < pack.buffer_count(); ++b) CHECK(pack.buffer_type(b) == sd::dtype::float32);
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
    pack_reader r{pack, std::vector<double>(shape.buffers, 0.0), {1.5}};
    r.cells[static_cast<std::size_t>(local_buffer("x"))] = x;
    r.cells[static_cast<std::size_t>(local_buffer("c"))] = 10;
    r.run();
    const double t = x > 0.5 ? x * 1.5 : x - 3;
    CHECK(r.cells[static_cast<std::size_t>(local_buffer("t"))] == t);
    CHECK(r.cells[static_cast<std::size_t>(local_buffer("y"))] == t * t + 10 + 2);
  }
}

TEST_CASE("every node is written once, operands first, and the pack is exactly full", "[cuda][encoding]") {
  int pos = pack.first_node();
  int nodes = 0;
  while (pos < static_cast<int>(shape.code_size)) {
    const auto op = pack.op(pos);
    for (int i = 0; i < sd::ir::arity(op); ++i) CHECK(pack.operand(pos, i) < pos);
    pos = pack.next_node(pos);
    ++nodes;
  }
  CHECK(pos == static_cast<int>(shape.code_size));
  // x > 0.5, x * s, x - 3, where, t * t, + c, + 2: loads of x are one node per use.
  CHECK(nodes >= 13);
}

TEST_CASE("the pack's layout: header, buffers, params, statements, then nodes", "[cuda][encoding]") {
  // Positions follow one another with no gap; a literal's bits round-trip.
  STATIC_REQUIRE(pack.buffer_at(0) == cd::header_size);
  STATIC_REQUIRE(pack.param_at(0) == pack.buffer_at(pack.buffer_count()));
  STATIC_REQUIRE(pack.statement_at(0) == pack.param_at(pack.param_count()));
  STATIC_REQUIRE(pack.first_node() == pack.statement_at(pack.statement_count()));
  STATIC_REQUIRE(pack.root_at(0) == pack.target_at(0) + 1);
  constexpr std::uint64_t bits = 0x8123456789abcdefull;
  static constexpr int literal[] = {cd::node_head(sd::ir::op::literal, sd::dtype::int64, sd::dtype::int64),
                                    cd::literal_hi(bits), cd::literal_lo(bits)};
  constexpr cd::pack_view one{literal};
  STATIC_REQUIRE(one.literal_bits(0) == bits);
  STATIC_REQUIRE(one.op(0) == sd::ir::op::literal);
  STATIC_REQUIRE(one.type(0) == sd::dtype::int64);
  STATIC_REQUIRE(one.next_node(0) == 3);
  STATIC_REQUIRE(cd::buffer_word(sd::dtype::float64, cd::buffer_flag::store) >> 8 == cd::buffer_flag::store);
}
