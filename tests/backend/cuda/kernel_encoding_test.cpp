// The CUDA kernel encoding under g++ (no CUDA needed): the pack is decoded
// here through the pack_view fused_kernel.cuh decodes it with, and evaluated
// in double, so every field (positions, local numbering, flags, literal bits)
// is checked against what the program means.
#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <streamdsl/backend/cuda/fast_divider.hpp>
#include <streamdsl/backend/cuda/kernel_encoding.hpp>
#include <streamdsl/backend/cuda/step_encoding.hpp>
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
  // As the launch finds it (kernel_table.hpp bind_kernel): the first head
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

// --- multi-segment launches ------------------------------------------------------
namespace {

// A segment's encoding, as kernel_table.hpp's kernel_pack computes it.
template <const auto& Plan, std::size_t K>
struct segment_of {
  static constexpr auto shape = cd::shape_of(Plan, K);
  static constexpr auto encoded = cd::encode<shape.code_size, shape.buffers, shape.params>(Plan, K);
  static constexpr cd::segment_code code{encoded.code, shape.code_size, static_cast<int>(shape.buffers),
                                         static_cast<int>(shape.params)};
};

// Two domains interleaved on one stream: an update of two big and two
// small tensors, one launch of four segments, all of one body.
constexpr auto two_domains = sd::program([](sd::builder& p) {
  auto big = p.domain("big");
  auto small = p.domain("small");
  auto w_big = p.inouts<float>("w_big", 2, big);
  auto g_big = p.inputs<float>("g_big", 2, big);
  auto w_small = p.inouts<float>("w_small", 2, small);
  auto g_small = p.inputs<float>("g_small", 2, small);
  auto lr = p.param<float>("lr");
  for (int i = 0; i < 2; ++i) {
    w_big[i] = w_big[i] - lr * g_big[i];
    w_small[i] = w_small[i] - lr * g_small[i];
  }
});
constexpr auto two_domains_plan = two_domains.plan();
constexpr cd::segment_code two_domains_codes[] = {
    segment_of<two_domains_plan, 0>::code, segment_of<two_domains_plan, 1>::code,
    segment_of<two_domains_plan, 2>::code, segment_of<two_domains_plan, 3>::code};
constexpr auto two_domains_layout = cd::lay_out_launch(two_domains_codes);
constexpr auto two_domains_launch =
    cd::encode_launch<two_domains_layout.code_size>(two_domains_codes, two_domains_layout);

// Two domains of different element types: two bodies.
constexpr auto two_types = sd::program([](sd::builder& p) {
  auto other = p.domain("other");
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto a = p.input<double>("a", other);
  auto b = p.output<double>("b", other);
  auto s = p.param<float>("s");
  y = x * s + 1;
  b = a - 2;
});
constexpr auto two_types_plan = two_types.plan();
constexpr cd::segment_code two_types_codes[] = {segment_of<two_types_plan, 0>::code,
                                                segment_of<two_types_plan, 1>::code};
constexpr auto two_types_layout = cd::lay_out_launch(two_types_codes);
constexpr auto two_types_launch =
    cd::encode_launch<two_types_layout.code_size>(two_types_codes, two_types_layout);

}  // namespace

TEST_CASE("a launch of identical segments has one body", "[cuda][encoding][launch]") {
  STATIC_REQUIRE(two_domains_plan.launch_count() == 1);
  STATIC_REQUIRE(two_domains_plan.segments_of(0) == 4);
  STATIC_REQUIRE(two_domains_layout.bodies == 1);
  const auto& first = two_domains_codes[0];
  STATIC_REQUIRE(two_domains_layout.code_size == 2 + first.size);  // body count, its position, its pack
  for (int s = 0; s < 4; ++s) {
    CHECK(two_domains_layout.body_of[s] == 0);
    CHECK(two_domains_layout.ptr_base[s] == 2 * s);  // w and g
    CHECK(two_domains_layout.param_base[s] == s);    // lr
  }
  CHECK(two_domains_layout.ptrs == 8);
  CHECK(two_domains_layout.params == 4);
  constexpr cd::launch_pack_view launch{two_domains_launch.code};
  STATIC_REQUIRE(launch.body_count() == 1);
  STATIC_REQUIRE(launch.body_at(0) == 2);
  for (std::size_t i = 0; i < first.size; ++i) CHECK(launch.body(0).code[i] == first.code[i]);
  // The segments' kernels differ in their domains (big, small) only.
  CHECK(two_domains_plan.kernels[0].domain != two_domains_plan.kernels[1].domain);
}

TEST_CASE("a launch of different segments: each body at its position, read unchanged",
          "[cuda][encoding][launch]") {
  STATIC_REQUIRE(two_types_plan.launch_count() == 1);
  STATIC_REQUIRE(two_types_plan.segments_of(0) == 2);
  STATIC_REQUIRE(two_types_layout.bodies == 2);
  constexpr cd::launch_pack_view launch{two_types_launch.code};
  STATIC_REQUIRE(launch.body_count() == 2);
  STATIC_REQUIRE(launch.body_at(0) == 3);
  STATIC_REQUIRE(launch.body_at(1) == 3 + static_cast<int>(two_types_codes[0].size));
  STATIC_REQUIRE(two_types_layout.code_size == 3 + two_types_codes[0].size + two_types_codes[1].size);
  CHECK(two_types_layout.body_of[0] == 0);
  CHECK(two_types_layout.body_of[1] == 1);
  CHECK(two_types_layout.ptr_base[1] == two_types_codes[0].buffers);
  CHECK(two_types_layout.param_base[1] == two_types_codes[0].params);
  for (int b = 0; b < 2; ++b) {
    const auto& seg = two_types_codes[b];
    for (std::size_t i = 0; i < seg.size; ++i) CHECK(launch.body(b).code[i] == seg.code[i]);
  }
  // Positions inside a body are relative to its start: body 1 evaluates
  // through a pack_view at its position (b = a - 2, one statement).
  const cd::pack_view body1 = launch.body(1);
  CHECK(body1.statement_count() == 1);
  CHECK(body1.buffer_type(0) == sd::dtype::float64);
  pack_reader r{body1, std::vector<double>(static_cast<std::size_t>(body1.buffer_count()), 0.0), {}};
  const int a = body1.buffer_flags(0) == cd::buffer_flag::load ? 0 : 1;
  r.cells[static_cast<std::size_t>(a)] = 10;
  r.run();
  CHECK(r.cells[static_cast<std::size_t>(body1.target(0))] == 8);
  const cd::pack_view body0 = launch.body(0);
  CHECK(body0.vec() == 4);
  CHECK(body1.vec() == 2);  // 16-byte steps of double
}

TEST_CASE("fit_blocks: blocks as wanted under the grid's limit, else in proportion, one at least",
          "[cuda][encoding][launch]") {
  long long fits[] = {16, 0, 3};
  CHECK(cd::fit_blocks(fits, 3, 100) == 19);
  CHECK(fits[0] == 16);
  CHECK(fits[1] == 0);
  CHECK(fits[2] == 3);
  long long over[] = {1000000, 1, 0, 5000, 3000000};
  const long long total = cd::fit_blocks(over, 5, 1000);
  CHECK(total <= 1000);
  CHECK(total >= 990);  // little lost to rounding
  CHECK(over[1] == 1);  // a non-empty segment keeps a block
  CHECK(over[2] == 0);  // an empty one gets none
  CHECK(over[3] >= 1);
  CHECK(over[4] > 2 * over[0]);  // in proportion
  CHECK(over[4] < 4 * over[0]);
  // The grid's limit itself, with huge segments: no overflow.
  long long huge[64];
  for (auto& b : huge) b = 1ll << 50;
  const long long cap = 2147483647;
  const long long sum = cd::fit_blocks(huge, 64, cap);
  CHECK(sum <= cap);
  CHECK(sum >= cap - 256);
  for (auto b : huge) CHECK(b >= 1);
}

namespace {

// A reduction's or scan's input as a pack (step_encoding.hpp): one
// statement with target -1, 0-d buffers broadcast; a plain load of a buffer
// in the accumulation type is handed to CUB as a pointer.
constexpr auto steps = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.input<float>("y");
  auto c = p.input<float>("c", sd::scalar);
  auto i = p.input<std::int32_t>("i");
  auto s = p.output<float>("s", sd::scalar);
  auto plain = p.output<float>("plain", sd::scalar);
  auto wide = p.output<std::int64_t>("wide", sd::scalar);
  auto scanned = p.output<float>("scanned");
  auto z = p.output<float>("z");
  s = sd::sum(x * y + c);
  plain = sd::max(x);
  wide = sd::sum(i);
  scanned = sd::inclusive_sum(x);
  z = x * 2;
});
constexpr auto steps_plan = steps.plan();

template <std::size_t J>
struct step_encoding {
  static constexpr std::size_t stmt = cd::step_statement(steps_plan, J);
  static constexpr auto& statement = steps_plan.ir.stmts[stmt];
  static constexpr auto step_shape = sd::ir::shape_of_step(steps_plan.ir, statement);
  static constexpr auto shape = cd::expression_shape(steps_plan, statement.root, step_shape);
  static constexpr auto encoded = cd::encode_expression<shape.code_size, shape.buffers, shape.params>(
      steps_plan, statement.root, step_shape.domain);
  static constexpr bool plain =
      cd::plain_load(steps_plan, statement.root, sd::ir::step_types_of(steps_plan.ir, statement).accumulated,
                     step_shape.domain);
};

constexpr auto copies = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  sd::copy(y, x);
});

}  // namespace

TEST_CASE("a reduction's input expression as a pack", "[cuda][encoding][reduce]") {
  STATIC_REQUIRE(cd::has_reduce_steps(steps_plan));
  STATIC_REQUIRE(!cd::has_reduce_steps(copies.plan()));
  STATIC_REQUIRE(!cd::has_reduce_steps(prog.plan()));
  STATIC_REQUIRE(steps_plan.step_count() == 4);
  // Step ops in op order name their statements.
  STATIC_REQUIRE(steps_plan.ir.stmts[step_encoding<0>::stmt].code == sd::ir::step_code::sum);
  STATIC_REQUIRE(steps_plan.ir.stmts[step_encoding<1>::stmt].code == sd::ir::step_code::max);
  STATIC_REQUIRE(steps_plan.ir.stmts[step_encoding<3>::stmt].code == sd::ir::step_code::inclusive_sum);
  // sum(x * y + c): x, y and c (broadcast), one statement into no buffer.
  using s0 = step_encoding<0>;
  constexpr cd::pack_view p0{s0::encoded.code};
  STATIC_REQUIRE(s0::shape.buffers == 3);
  STATIC_REQUIRE(p0.statement_count() == 1);
  STATIC_REQUIRE(p0.target(0) == -1);
  STATIC_REQUIRE(p0.vec() == 1);
  STATIC_REQUIRE(!s0::plain);
  pack_reader reader{p0, {}, {}};
  for (int b = 0; b < p0.buffer_count(); ++b) {
    const auto name = steps_plan.ir.buffer_name(s0::encoded.buffer_ids[b]);
    const bool is_c = name == "c";
    CHECK(((p0.buffer_flags(b) & cd::buffer_flag::broadcast) != 0) == is_c);
    CHECK((p0.buffer_flags(b) & cd::buffer_flag::load) != 0);
    reader.cells.push_back(name == "x" ? 2.0 : name == "y" ? 3.0 : 1.0);
  }
  CHECK(reader.eval(p0.root(0)) == 7.0);  // 2 * 3 + 1
  // Plain loads: max(x) of floats and inclusive_sum(x) are; sum(i) of
  // int32_t accumulates in int64_t, so it converts: not plain.
  STATIC_REQUIRE(step_encoding<1>::plain);
  STATIC_REQUIRE(!step_encoding<2>::plain);
  STATIC_REQUIRE(step_encoding<3>::plain);
}

namespace {
// Narrow and unsigned element types and the ops of issue 13 in a pack.
constexpr auto narrow_prog = sd::program([](sd::builder& p) {
  auto x = p.input<std::uint8_t>("x");
  auto k = p.param<std::uint64_t>("k");
  auto y = p.output<std::int16_t>("y");
  auto z = p.output<std::uint64_t>("z");
  y = (x << 2) % 7;
  z = (k ^ 0xFFFFFFFFu) >> 3;
});
constexpr auto narrow_plan = narrow_prog.plan();
constexpr auto narrow_shape = cd::shape_of(narrow_plan, 0);
constexpr auto narrow_encoded =
    cd::encode<narrow_shape.code_size, narrow_shape.buffers, narrow_shape.params>(narrow_plan, 0);
constexpr cd::pack_view narrow_pack{narrow_encoded.code};
}  // namespace

TEST_CASE("a pack carries every integer width, the new ops and an unsigned literal's bits",
          "[cuda][encoding]") {
  STATIC_REQUIRE(narrow_plan.kernel_count() == 1);
  CHECK(narrow_pack.vec() == 8);  // 1-byte elements: at most 8 per step
  CHECK(narrow_pack.param_type(0) == sd::dtype::uint64);
  std::vector<sd::dtype> types;
  for (int b = 0; b < narrow_pack.buffer_count(); ++b) types.push_back(narrow_pack.buffer_type(b));
  CHECK_THAT(types, Catch::Matchers::UnorderedEquals(
                        std::vector<sd::dtype>{sd::dtype::uint8, sd::dtype::int16, sd::dtype::uint64}));
  std::vector<sd::ir::op> ops;
  std::uint64_t literal_bits = 0;
  for (int pos = narrow_pack.first_node(); pos < static_cast<int>(narrow_shape.code_size);
       pos = narrow_pack.next_node(pos)) {
    ops.push_back(narrow_pack.op(pos));
    if (narrow_pack.op(pos) == sd::ir::op::bit_xor) CHECK(narrow_pack.compute(pos) == sd::dtype::uint64);
    if (narrow_pack.op(pos) == sd::ir::op::shl) CHECK(narrow_pack.compute(pos) == sd::dtype::uint8);
    if (narrow_pack.op(pos) == sd::ir::op::literal && narrow_pack.literal_bits(pos) > 7)
      literal_bits = narrow_pack.literal_bits(pos);
  }
  for (auto op : {sd::ir::op::shl, sd::ir::op::mod, sd::ir::op::bit_xor, sd::ir::op::shr})
    CHECK(std::find(ops.begin(), ops.end(), op) != ops.end());
  CHECK(literal_bits == 0xFFFFFFFFu);  // an unsigned int literal: its value, as an int64_t's bits
}

namespace {
// A kernel over a rank-2 shape (ir/shape.hpp): a row is read at k % cols, a
// column at k / cols, a 0-d value broadcast; the kernel's shape names the
// columns' domain, whose extent the launch gives the kernel.
constexpr auto rank2 = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto a = p.input<float>("a", rows, cols);
  auto col = p.input<float>("col", rows);
  auto row = p.input<float>("row", cols);
  auto s = p.input<float>("s", sd::scalar);
  auto y = p.output<float>("y", rows, cols);
  auto m = p.output<float>("m", rows);
  y = a * col + row - s;
  m = sd::sum(a * col, cols);
});
constexpr auto rank2_plan = rank2.plan();
constexpr auto rank2_shape = cd::shape_of(rank2_plan, 0);
constexpr auto rank2_encoded =
    cd::encode<rank2_shape.code_size, rank2_shape.buffers, rank2_shape.params>(rank2_plan, 0);
}  // namespace

TEST_CASE("a kernel over rows and columns: rows and columns gathered, the columns' domain in its shape",
          "[cuda][encoding][rank2]") {
  STATIC_REQUIRE(rank2_plan.kernel_count() == 1);
  STATIC_REQUIRE(rank2_shape.inner == 2);  // n, rows, cols, (rows, cols)
  STATIC_REQUIRE(cd::shape_of(prog.plan(), 0).inner == -1);
  const cd::pack_view v{rank2_encoded.code};
  for (int b = 0; b < v.buffer_count(); ++b) {
    const auto name = rank2_plan.ir.buffer_name(rank2_encoded.buffer_ids[b]);
    const int flags = v.buffer_flags(b);
    INFO(std::string_view(name.data(), name.size()));
    if (name == "a") CHECK(flags == cd::buffer_flag::load);
    if (name == "col") CHECK(flags == (cd::buffer_flag::load | cd::buffer_flag::column));
    if (name == "row") CHECK(flags == (cd::buffer_flag::load | cd::buffer_flag::row));
    if (name == "s") CHECK(flags == (cd::buffer_flag::load | cd::buffer_flag::broadcast));
    if (name == "y") CHECK(flags == cd::buffer_flag::store);
  }
  // The row sum's expression reads the column gathered too, and is no plain load.
  constexpr std::size_t stmt = cd::step_statement(rank2_plan, 0);
  constexpr auto& statement = rank2_plan.ir.stmts[stmt];
  STATIC_REQUIRE(statement.axis == 2);
  constexpr auto step_shape = sd::ir::shape_of_step(rank2_plan.ir, statement);
  constexpr auto shape = cd::expression_shape(rank2_plan, statement.root, step_shape);
  STATIC_REQUIRE(shape.inner == 2);
  constexpr auto encoded = cd::encode_expression<shape.code_size, shape.buffers, shape.params>(
      rank2_plan, statement.root, step_shape.domain);
  const cd::pack_view p{encoded.code};
  for (int b = 0; b < p.buffer_count(); ++b)
    if (rank2_plan.ir.buffer_name(encoded.buffer_ids[b]) == "col")
      CHECK(p.buffer_flags(b) == (cd::buffer_flag::load | cd::buffer_flag::column));
}

// fast_divider.hpp: the multiply-high and shifts a rank-2 kernel divides by
// its row length with, against the division instruction, on divisors near
// powers of two (where l changes), small and huge ones, and dividends at the
// ends of the range (the kernel's indices are below 2^63).
TEST_CASE("a rank-2 kernel's division by its row length is exact", "[cuda][encoding][rows]") {
  std::uint64_t state = 12345;
  const auto next = [&] {  // splitmix64
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::vector<std::uint64_t> divisors = {
      1, 2, 3, 5, 7, 33, 255, 256, 257, 1000, 4096, 65535, 65536, 65537, (1ull << 62) + 1, (1ull << 63) - 1};
  for (int bit = 1; bit < 63; ++bit)
    for (const std::int64_t off : {-1, 0, 1})
      divisors.push_back((1ull << bit) + static_cast<std::uint64_t>(off));
  for (int i = 0; i < 200; ++i) divisors.push_back(1 + next() % ((1ull << (1 + i % 62)) - 1));
  int checked = 0;
  for (const auto d : divisors) {
    const auto f = cd::fast_divider::of(d);
    std::vector<std::uint64_t> dividends = {
        0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, (1ull << 63) - 1, (1ull << 32) - 1, 1ull << 32};
    for (int i = 0; i < 200; ++i) dividends.push_back(next() >> (1 + i % 63));
    for (const auto n : dividends) {
      INFO("n " << n << " / d " << d);
      REQUIRE(f.quotient(n) == n / d);
      ++checked;
    }
  }
  CHECK(checked > 40000);
  // The portable multiply-high against a few products worked by hand.
  CHECK(cd::mul_high(~0ull, ~0ull) == ~0ull - 1);
  CHECK(cd::mul_high(1ull << 32, 1ull << 32) == 1);
  CHECK(cd::mul_high(3, 5) == 0);
  CHECK(cd::fast_divider{}.quotient(12345) == 12345);  // the default divides by 1
}
