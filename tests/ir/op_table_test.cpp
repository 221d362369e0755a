// The op table (ir/op_table.hpp): one row per op, in enum order, and rows
// that agree with themselves and with the types the front end gives nodes.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace ir = sd::ir;
using sd::dtype;
using sd::strength;
using sd::typed;

constexpr bool rows_in_enum_order() {
  for (int i = 0; i < ir::op_count; ++i)
    if (static_cast<int>(ir::op_table[i].code) != i) return false;
  return ir::op_table[ir::op_count - 1].code == ir::op::where;  // the last enumerator has the last row
}

// The operands each kind of op evaluates.
constexpr int arity_of(ir::op_kind k) {
  switch (k) {
    case ir::op_kind::load:
    case ir::op_kind::param:
    case ir::op_kind::literal: return 0;
    case ir::op_kind::convert:
    case ir::op_kind::unary: return 1;
    case ir::op_kind::arithmetic:
    case ir::op_kind::predicate: return 2;
    case ir::op_kind::select: return 3;
  }
  return -1;
}

// Every row's fields fit together: its form, kind, arity, precedence and
// spelling say the same thing.
constexpr bool row_consistent(const ir::op_info& o) {
  if (o.arity != arity_of(o.kind)) return false;
  if (o.name.empty()) return false;
  switch (o.form) {
    case ir::op_form::leaf:
      return o.arity == 0 && o.precedence == 11 && o.spelling.empty() && o.result == ir::result_rule::leaf;
    case ir::op_form::prefix: return o.arity == 1 && o.precedence == 10 && !o.spelling.empty();
    case ir::op_form::infix:
      return o.arity == 2 && o.precedence >= 0 && o.precedence <= 9 && !o.spelling.empty();
    case ir::op_form::call: return o.arity >= 1 && o.precedence == 11 && o.spelling == o.name;
  }
  return false;
}

constexpr bool all_rows_consistent() {
  for (const auto& o : ir::op_table)
    if (!row_consistent(o)) return false;
  return true;
}

// Predicates give bool, and only they and logical not do.
constexpr bool predicates_are_boolean() {
  for (const auto& o : ir::op_table) {
    const bool predicate = o.kind == ir::op_kind::predicate;
    if (predicate != (o.result == ir::result_rule::boolean && o.arity == 2)) return false;
    if (predicate != ir::is_predicate(o.code)) return false;
  }
  return true;
}

constexpr bool spellings_unique_per_arity() {
  for (const auto& a : ir::op_table)
    for (const auto& b : ir::op_table)
      if (a.code != b.code && a.arity == b.arity && !a.spelling.empty() && a.spelling == b.spelling)
        return false;
  return true;
}

constexpr typed tensor(dtype t) { return {t, strength::tensor}; }
constexpr typed literal(dtype t) { return {t, strength::literal}; }

}  // namespace

TEST_CASE("every op has one row, in enum order", "[ir][op_table]") {
  STATIC_REQUIRE(rows_in_enum_order());
  STATIC_REQUIRE(ir::op_count == static_cast<int>(ir::op::where) + 1);
  STATIC_REQUIRE(&ir::info(ir::op::mul) == &ir::op_table[static_cast<int>(ir::op::mul)]);
}

TEST_CASE("each row's arity, form, precedence and spelling agree", "[ir][op_table]") {
  STATIC_REQUIRE(all_rows_consistent());
  STATIC_REQUIRE(predicates_are_boolean());
  STATIC_REQUIRE(spellings_unique_per_arity());
  // C++'s precedence order, tightest first.
  STATIC_REQUIRE(ir::precedence(ir::op::neg) > ir::precedence(ir::op::mul));
  STATIC_REQUIRE(ir::precedence(ir::op::mul) == ir::precedence(ir::op::div));
  STATIC_REQUIRE(ir::precedence(ir::op::div) > ir::precedence(ir::op::add));
  STATIC_REQUIRE(ir::precedence(ir::op::add) == ir::precedence(ir::op::sub));
  STATIC_REQUIRE(ir::precedence(ir::op::sub) > ir::precedence(ir::op::lt));
  STATIC_REQUIRE(ir::precedence(ir::op::ge) > ir::precedence(ir::op::eq));
  STATIC_REQUIRE(ir::precedence(ir::op::ne) > ir::precedence(ir::op::logical_and));
  STATIC_REQUIRE(ir::precedence(ir::op::logical_and) > ir::precedence(ir::op::logical_or));
  STATIC_REQUIRE(ir::spelling(ir::op::sub) == "-");
  STATIC_REQUIRE(ir::spelling(ir::op::logical_or) == "||");
  STATIC_REQUIRE(ir::is_infix(ir::op::add) && !ir::is_infix(ir::op::min) && !ir::is_infix(ir::op::neg));
}

TEST_CASE("types_of follows each op's result rule", "[ir][op_table]") {
  constexpr typed f = tensor(dtype::float32), i = tensor(dtype::int32), b = tensor(dtype::boolean);
  // operands: the common type; a weak literal does not widen
  STATIC_REQUIRE(ir::types_of(ir::op::add, f, literal(dtype::float64)).result == f);
  STATIC_REQUIRE(ir::types_of(ir::op::mul, i, tensor(dtype::int64)).result == tensor(dtype::int64));
  STATIC_REQUIRE(ir::types_of(ir::op::neg, i).result == i);
  // floating: transcendentals of integers are float
  STATIC_REQUIRE(ir::types_of(ir::op::exp, i).result == f);
  STATIC_REQUIRE(ir::types_of(ir::op::exp, i).compute == dtype::float32);
  STATIC_REQUIRE(ir::types_of(ir::op::sqrt, tensor(dtype::float64)).result == tensor(dtype::float64));
  STATIC_REQUIRE(ir::types_of(ir::op::abs, i).result == i);  // abs and relu keep their type
  // boolean: compared in the common type
  constexpr auto less = ir::types_of(ir::op::lt, i, f);
  STATIC_REQUIRE(less.result == b);
  STATIC_REQUIRE(less.compute == dtype::float32);
  STATIC_REQUIRE(ir::types_of(ir::op::logical_not, b).result == b);
  STATIC_REQUIRE(ir::types_of(ir::op::logical_and, b, b).compute == dtype::boolean);
  // a comparison with a param is as strong as the param
  STATIC_REQUIRE(ir::types_of(ir::op::gt, {dtype::float32, strength::scalar}, literal(dtype::int32)).result ==
                 typed{dtype::boolean, strength::scalar});
  // cast: the target, as strong as the operand
  STATIC_REQUIRE(ir::types_of(ir::op::cast, f, {}, {}, dtype::int64).result == tensor(dtype::int64));
  STATIC_REQUIRE(ir::types_of(ir::op::cast, f, {}, {}, dtype::int64).compute == dtype::int64);
}

TEST_CASE("where's branches: a literal adopts the other branch's type when that loses nothing",
          "[ir][op_table]") {
  constexpr typed c = tensor(dtype::boolean);
  constexpr typed f = tensor(dtype::float32), i = tensor(dtype::int32);
  STATIC_REQUIRE(ir::types_of(ir::op::where, c, f, literal(dtype::float64)).result == f);
  STATIC_REQUIRE(ir::types_of(ir::op::where, c, literal(dtype::int32), f).result == f);
  STATIC_REQUIRE(ir::types_of(ir::op::where, c, i, i).result == i);
  // two literals promote; the condition's strength counts
  STATIC_REQUIRE(ir::types_of(ir::op::where, c, literal(dtype::int32), literal(dtype::float64)).result ==
                 typed{dtype::float64, strength::tensor});
  // a float literal does not adapt to an int branch: the branches differ, which the front end reports
  constexpr auto mixed = ir::where_branches(i, literal(dtype::float64));
  STATIC_REQUIRE(mixed.a == dtype::int32);
  STATIC_REQUIRE(mixed.b == dtype::float64);
  constexpr auto same = ir::where_branches(f, literal(dtype::int32));
  STATIC_REQUIRE(same.a == same.b);
}

TEST_CASE("the front end's expressions take their types from the table", "[ir][op_table]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<int32_t>("x");
    auto s = p.param<double>("s");
    auto e = p.output<float>("e");
    auto w = p.output<float>("w");
    auto l = p.output<bool>("l");
    e = sd::exp(x);
    w = sd::where(x > 0, sd::cast<float>(x), 2);
    l = !(x < s);
  });
  using X = sd::expr<int32_t, strength::tensor>;
  using S = sd::param<double>;
  STATIC_REQUIRE(std::is_same_v<decltype(sd::exp(std::declval<X>())), sd::expr<float, strength::tensor>>);
  STATIC_REQUIRE(
      std::is_same_v<decltype(std::declval<X>() < std::declval<S>()), sd::expr<bool, strength::tensor>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sd::where(std::declval<X>() > 0, std::declval<X>(), 2)),
                                sd::expr<int32_t, strength::tensor>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sd::cast<std::int64_t>(std::declval<S>())),
                                sd::expr<std::int64_t, strength::scalar>>);
  // rendered with the table's spellings, forms and precedences
  constexpr auto plan = prog.plan();
  std::vector<std::string> texts;
  for (const auto& st : plan.ir.stmts) {
    const auto t = ir::statement_text(plan.ir, st);
    texts.emplace_back(t.view().data(), t.view().size());
  }
  CHECK_THAT(texts, Catch::Matchers::UnorderedEquals(std::vector<std::string>{
                        "e = exp(x)", "w = where(x > 0, cast<float>(x), 2)", "l = !(x < s)"}));
}

TEST_CASE("a negation of a negative operand renders as -(-x), never --x", "[ir][op_table]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto b = p.output<bool>("b");
    y = -(-x) + -sd::min(x, -1.5f) * -2;
    b = !!(x < 1);
  });
  constexpr auto plan = prog.plan();
  std::vector<std::string> texts;
  for (const auto& st : plan.ir.stmts) {
    const auto t = ir::statement_text(plan.ir, st);
    texts.emplace_back(t.view().data(), t.view().size());
  }
  CHECK_THAT(texts, Catch::Matchers::UnorderedEquals(
                        std::vector<std::string>{"y = -(-x) + -min(x, -1.5) * -2", "b = !!(x < 1)"}));
}

TEST_CASE("the precedences of %, the shifts and the bitwise operators are C++'s", "[ir][op_table]") {
  STATIC_REQUIRE(ir::precedence(ir::op::mod) == ir::precedence(ir::op::mul));
  STATIC_REQUIRE(ir::precedence(ir::op::add) > ir::precedence(ir::op::shl));
  STATIC_REQUIRE(ir::precedence(ir::op::shl) == ir::precedence(ir::op::shr));
  STATIC_REQUIRE(ir::precedence(ir::op::shr) > ir::precedence(ir::op::lt));
  STATIC_REQUIRE(ir::precedence(ir::op::ne) > ir::precedence(ir::op::bit_and));
  STATIC_REQUIRE(ir::precedence(ir::op::bit_and) > ir::precedence(ir::op::bit_xor));
  STATIC_REQUIRE(ir::precedence(ir::op::bit_xor) > ir::precedence(ir::op::bit_or));
  STATIC_REQUIRE(ir::precedence(ir::op::bit_or) > ir::precedence(ir::op::logical_and));
  STATIC_REQUIRE(ir::precedence(ir::op::bit_not) == ir::precedence(ir::op::neg));
  STATIC_REQUIRE(ir::spelling(ir::op::bit_not) == "~");
  STATIC_REQUIRE(ir::spelling(ir::op::mod) == "%");
  STATIC_REQUIRE(ir::spelling(ir::op::shr) == ">>");
}

TEST_CASE("types_of for the rounding, transcendental, remainder, power and bitwise ops", "[ir][op_table]") {
  constexpr typed f = tensor(dtype::float32), d = tensor(dtype::float64), i = tensor(dtype::int32),
                  l = tensor(dtype::int64), b = tensor(dtype::boolean);
  // floor, ceil, round keep the operand's type: of an integer, the integer
  for (auto code : {ir::op::floor, ir::op::ceil, ir::op::round}) {
    CHECK(ir::types_of(code, i).result == i);
    CHECK(ir::types_of(code, d).result == d);
  }
  // the transcendentals compute integers in float
  for (auto code : {ir::op::erf, ir::op::gelu, ir::op::gelu_tanh, ir::op::exp2, ir::op::log1p}) {
    CHECK(ir::types_of(code, i).result == f);
    CHECK(ir::types_of(code, i).compute == dtype::float32);
    CHECK(ir::types_of(code, d).result == d);
  }
  // % fmod pow and the bitwise operators: the operands' common type
  STATIC_REQUIRE(ir::types_of(ir::op::mod, i, l).result == l);
  STATIC_REQUIRE(ir::types_of(ir::op::mod, i, literal(dtype::int64)).result == i);
  STATIC_REQUIRE(ir::types_of(ir::op::fmod, f, d).result == d);
  STATIC_REQUIRE(ir::types_of(ir::op::pow, i, literal(dtype::float64)).result == f);
  STATIC_REQUIRE(ir::types_of(ir::op::pow, i, i).result == i);
  STATIC_REQUIRE(ir::types_of(ir::op::bit_and, b, b).result == b);
  STATIC_REQUIRE(ir::types_of(ir::op::bit_or, b, i).result == i);
  STATIC_REQUIRE(ir::types_of(ir::op::bit_xor, i, l).compute == dtype::int64);
  STATIC_REQUIRE(ir::types_of(ir::op::shl, l, literal(dtype::int32)).result == l);
  STATIC_REQUIRE(ir::types_of(ir::op::shr, i, l).result == l);
  STATIC_REQUIRE(ir::types_of(ir::op::bit_not, b).result == b);
  STATIC_REQUIRE(ir::types_of(ir::op::bit_not, i).result == i);
}

TEST_CASE("computes_in: which compute types the front end gives each op", "[ir][op_table]") {
  using C = sd::dtype_category;
  STATIC_REQUIRE(ir::computes_in(ir::op::shl, C::integral));
  STATIC_REQUIRE(!ir::computes_in(ir::op::shl, C::boolean));
  STATIC_REQUIRE(!ir::computes_in(ir::op::shl, C::floating));
  STATIC_REQUIRE(ir::computes_in(ir::op::bit_and, C::boolean));
  STATIC_REQUIRE(!ir::computes_in(ir::op::bit_and, C::floating));
  STATIC_REQUIRE(!ir::computes_in(ir::op::mod, C::floating));
  STATIC_REQUIRE(ir::computes_in(ir::op::fmod, C::floating));
  STATIC_REQUIRE(ir::computes_in(ir::op::fmod, C::integral));
  STATIC_REQUIRE(!ir::computes_in(ir::op::erf, C::integral));
  STATIC_REQUIRE(ir::computes_in(ir::op::floor, C::integral));
  STATIC_REQUIRE(!ir::computes_in(ir::op::add, C::boolean));
  STATIC_REQUIRE(ir::computes_in(ir::op::logical_and, C::boolean));
  STATIC_REQUIRE(!ir::computes_in(ir::op::logical_and, C::integral));
}

TEST_CASE("the new operators render with C++'s precedence", "[ir][op_table]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto i = p.input<int32_t>("i");
    auto j = p.input<int32_t>("j");
    auto x = p.input<float>("x");
    auto k = p.output<int32_t>("k");
    auto m = p.output<int32_t>("m");
    auto y = p.output<float>("y");
    auto b = p.output<bool>("b");
    k = (i + 1) << 2 | j & ~i ^ j % 3;
    m = (i | j) & (i << (j >> 1)) % 7;
    y = sd::pow(x, 2) + sd::fmod(x, 1.5f) + sd::gelu_tanh(sd::round(x));
    b = (i & 1) == 0;
  });
  constexpr auto plan = prog.plan();
  std::vector<std::string> texts;
  for (const auto& st : plan.ir.stmts) {
    const auto t = ir::statement_text(plan.ir, st);
    texts.emplace_back(t.view().data(), t.view().size());
  }
  CHECK_THAT(texts, Catch::Matchers::UnorderedEquals(std::vector<std::string>{
                        "k = i + 1 << 2 | j & ~i ^ j % 3", "m = (i | j) & (i << (j >> 1)) % 7",
                        "y = pow(x, 2) + fmod(x, 1.5) + gelu_tanh(round(x))", "b = (i & 1) == 0"}));
}
