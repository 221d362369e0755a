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

namespace {

// A kernel over halves: two chunks of x are two local buffers, and y's first
// half, written and then read in the kernel, is forwarded (stored, not loaded).
constexpr auto halves = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y.chunk(0, 2) = x.chunk(1, 2) + x.chunk(0, 2);
  y.chunk(1, 2) = y.chunk(0, 2) * 2;
});
constexpr auto halves_plan = halves.plan();
constexpr auto halves_shape = cd::shape_of(halves_plan, 0);
constexpr auto halves_encoded =
    cd::encode<halves_shape.code_size, halves_shape.buffers, halves_shape.params>(halves_plan, 0);

int local_region(std::string_view name, int part) {
  const auto id = halves_plan.buffer_id(name);
  for (std::size_t b = 0; b < halves_shape.buffers; ++b)
    if (halves_encoded.buffer_ids[b] == id && halves_encoded.buffer_parts[b] == part)
      return static_cast<int>(b);
  return -1;
}

// The same statement over chunk 0 on main and chunk 1 on a side stream: two
// kernels that differ only in their chunk. The 0-d c is read whole.
constexpr auto two_streams = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto c = p.input<float>("c", sd::scalar);
  auto y = p.output<float>("y");
  auto side = p.stream("side");
  y.chunk(0, 2) = x.chunk(0, 2) * c;
  sd::with_stream(side, [&] { y.chunk(1, 2) = x.chunk(1, 2) * c; });
});

}  // namespace

TEST_CASE("a kernel over chunks: one local buffer per chunk, each with its part", "[cuda][encoding][chunk]") {
  STATIC_REQUIRE(halves_plan.kernel_count() == 1);
  STATIC_REQUIRE(halves_plan.kernels[0].parts == 2);
  STATIC_REQUIRE(halves_shape.buffers == 4);  // x.chunk(1, 2), x.chunk(0, 2), y.chunk(0, 2), y.chunk(1, 2)
  constexpr cd::pack_view v{halves_encoded.code};
  const int x0 = local_region("x", 0), x1 = local_region("x", 1);
  const int y0 = local_region("y", 0), y1 = local_region("y", 1);
  REQUIRE(x0 >= 0);
  REQUIRE(x1 >= 0);
  REQUIRE(y0 >= 0);
  REQUIRE(y1 >= 0);
  CHECK(v.buffer_flags(x0) == cd::buffer_flag::load);
  CHECK(v.buffer_flags(x1) == cd::buffer_flag::load);
  CHECK(v.buffer_flags(y0) == cd::buffer_flag::store);  // read after the kernel wrote it: no load
  CHECK(v.buffer_flags(y1) == cd::buffer_flag::store);
  CHECK(v.target(0) == y0);
  CHECK(v.target(1) == y1);
  pack_reader r{v, std::vector<double>(halves_shape.buffers, 0.0), {}};
  r.cells[static_cast<std::size_t>(x0)] = 3;
  r.cells[static_cast<std::size_t>(x1)] = 10;
  r.run();
  CHECK(r.cells[static_cast<std::size_t>(y0)] == 13);
  CHECK(r.cells[static_cast<std::size_t>(y1)] == 26);
}

TEST_CASE("kernels that differ only in their chunk have the same pack", "[cuda][encoding][chunk]") {
  constexpr auto plan2 = two_streams.plan();
  STATIC_REQUIRE(plan2.kernel_count() == 2);
  constexpr auto a_shape = cd::shape_of(plan2, 0), b_shape = cd::shape_of(plan2, 1);
  STATIC_REQUIRE(a_shape.code_size == b_shape.code_size);
  constexpr auto a = cd::encode<a_shape.code_size, a_shape.buffers, a_shape.params>(plan2, 0);
  constexpr auto b = cd::encode<b_shape.code_size, b_shape.buffers, b_shape.params>(plan2, 1);
  for (std::size_t i = 0; i < a_shape.code_size; ++i) CHECK(a.code[i] == b.code[i]);
  const cd::pack_view v{a.code};
  const auto c = plan2.buffer_id("c");
  for (std::size_t i = 0; i < a_shape.buffers; ++i) {
    CHECK(a.buffer_ids[i] == b.buffer_ids[i]);
    if (a.buffer_ids[i] == c) {  // read whole, broadcast: no chunk
      CHECK(v.buffer_flags(static_cast<int>(i)) == (cd::buffer_flag::load | cd::buffer_flag::broadcast));
      CHECK(a.buffer_parts[i] == 0);
      CHECK(b.buffer_parts[i] == 0);
    } else {
      CHECK(a.buffer_parts[i] + b.buffer_parts[i] == 1);  // one kernel on chunk 0, the other on chunk 1
    }
  }
  STATIC_REQUIRE(a_shape.buffers == 3);  // x's chunk, c, y's chunk
}

TEST_CASE("vector_heads: where the vector steps of a chunk may start", "[cuda][encoding][chunk]") {
  // As the launch finds it (kernel_table.hpp launch_fused): the first head
  // every moved buffer allows.
  auto head = [](std::vector<std::uintptr_t> at, std::vector<std::size_t> size, int vec) {
    unsigned heads = cd::all_heads(vec);
    for (std::size_t b = 0; b < at.size(); ++b) heads &= cd::vector_heads(at[b], size[b], vec);
    return cd::first_head(heads);
  };
  const std::uintptr_t base = 0x7f0000000000;  // 16-byte aligned
  CHECK(head({base, base + 64}, {4, 4}, 4) == 0);
  CHECK(head({base + 4, base + 4}, {4, 4}, 4) == 3);  // 3 chunks of 3003 floats: chunk 1 is 4004 bytes in
  CHECK(head({base + 8}, {4}, 4) == 2);
  CHECK(head({base + 12}, {4}, 4) == 1);
  CHECK(head({base + 4, base + 8}, {4, 8}, 4) == 3);   // a float and a double chunk 1001 elements in
  CHECK(head({base + 4, base + 0}, {4, 8}, 4) == -1);  // a float off by 4, a double on a boundary: none
  CHECK(head({base + 4, base + 8}, {4, 4}, 4) == -1);  // off by different amounts: the scalar path
  CHECK(head({base + 2, base + 34}, {2, 2}, 8) == 7);  // __half: 8 per step
  // 1-byte elements (vec 8: 8 bytes a step) move one by one: any address.
  CHECK(head({base + 3, base + 4}, {1, 4}, 8) == 3);
  CHECK(head({base + 5}, {1}, 8) == 0);
  CHECK(head({}, {}, 4) == 0);  // nothing moved (0-d values, registers)
  STATIC_REQUIRE(cd::all_heads(8) == 0xffu);
  STATIC_REQUIRE(cd::vector_heads(0x1004, 4, 4) == 1u << 3);
  STATIC_REQUIRE(cd::first_head(0) == -1);
  // Every head found makes every later vector step aligned.
  for (std::uintptr_t off = 0; off < 16; off += 4)
    for (std::uintptr_t off2 = 0; off2 < 16; off2 += 8) {
      const int h = head({base + off, base + off2}, {4, 8}, 4);
      if (h < 0) continue;
      for (std::uintptr_t step = 0; step < 4; ++step) {
        CHECK((base + off + (h + 4 * step) * 4) % 16 == 0);
        CHECK((base + off2 + (h + 4 * step) * 8) % 16 == 0);
      }
    }
}
