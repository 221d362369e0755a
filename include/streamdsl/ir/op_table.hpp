#pragma once
// The elementwise operations, one record each: everything the front end,
// render, the host loops and the device code need to know about an op apart
// from its per-element meaning (backend/element_ops.hpp). Adding an op is a
// row here; docs/architecture.md lists the rest.
#include <cstdint>

#include "../detail/string_view.hpp"
#include "dtype.hpp"

namespace streamdsl::ir {

// In the order of op_table's rows (tests/ir/op_table_test.cpp checks it).
enum class op : std::uint8_t {
  load,     // element of a buffer (ref = buffer id); 0-d buffers broadcast
  param,    // host value bound at run time (ref = param id)
  literal,  // constant written in the program
  neg,
  logical_not,
  bit_not,
  abs,
  exp,
  log,
  sqrt,
  rsqrt,
  sin,
  cos,
  tanh,
  sigmoid,
  relu,
  floor,
  ceil,
  round,
  erf,
  gelu,
  gelu_tanh,
  exp2,
  log1p,
  cast,
  add,
  sub,
  mul,
  div,
  mod,
  fmod,
  pow,
  min,
  max,
  bit_and,
  bit_or,
  bit_xor,
  shl,
  shr,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  logical_and,
  logical_or,
  where,
};

// How an op is evaluated: which function of backend/element_ops.hpp, and so
// which host loop and which device evaluation.
enum class op_kind : std::uint8_t {
  load,
  param,
  literal,
  convert,     // cast: converting the operand to the compute type is the operation
  unary,       // element::unary, in the compute type
  arithmetic,  // element::arithmetic, in the compute type; the result has that type
  predicate,   // element::predicate, operands in the compute type; the result is bool
  select,      // where(c, a, b): c as bool, a and b in the compute type
};

// How an op is written, in C++ and in render's text.
enum class op_form : std::uint8_t {
  leaf,    // a buffer's or param's name, or a literal
  prefix,  // -x, !x
  infix,   // x + y
  call,    // f(x, ...); a cast is written cast<T>(x)
};

// How the front end finds a node's result type from its operands' (types_of).
enum class result_rule : std::uint8_t {
  leaf,         // the buffer's, param's or literal's own type
  operands,     // the operands' common type (combine)
  floating,     // the operands' common type if floating, else float (exp of an int is float, as in PyTorch)
  boolean,      // bool; the operands are compared in their common type
  cast_target,  // the cast's target type
  branches,     // where: the branches' common type, a literal branch adopting the other's (where_branches)
};

// What operands an op accepts (the front end reports the others).
enum class operand_rule : std::uint8_t {
  any,
  numeric,   // not bool: arithmetic on bools is an error
  boolean,   // bool only: logical operators
  integral,  // integers or bool: & | ^ ~ (on bools they are logical, as in PyTorch)
  integer,   // integers only: % and the shifts
};

struct op_info {
  op code;
  detail::string_view name;      // the enumerator's name
  detail::string_view spelling;  // as written: the operator, or the function's name
  std::int8_t arity;             // operands (a, b, c of the node)
  std::int8_t precedence;        // C++ precedence, higher binds tighter; 11 for leaves and calls
  op_form form;
  op_kind kind;
  result_rule result;
  operand_rule operands;
};

// One row per op, in enum order. prec: C++ precedence (higher binds
// tighter): || 0, && 1, | 2, ^ 3, & 4, == != 5, < <= > >= 6, << >> 7,
// + - 8, * / % 9, prefix operators 10, leaves and calls 11.
namespace rows {
using F = op_form;
using K = op_kind;
using R = result_rule;
using O = operand_rule;
// clang-format off
inline constexpr op_info op_table[] = {
    // code           name            spelling      ar  prec form       kind           result          operands
    {op::load,         "load",         "",           0, 11, F::leaf,   K::load,       R::leaf,        O::any},
    {op::param,        "param",        "",           0, 11, F::leaf,   K::param,      R::leaf,        O::any},
    {op::literal,      "literal",      "",           0, 11, F::leaf,   K::literal,    R::leaf,        O::any},
    {op::neg,          "neg",          "-",          1, 10, F::prefix, K::unary,      R::operands,    O::numeric},
    {op::logical_not,  "logical_not",  "!",          1, 10, F::prefix, K::unary,      R::boolean,     O::boolean},
    {op::bit_not,      "bit_not",      "~",          1, 10, F::prefix, K::unary,      R::operands,    O::integral},
    {op::abs,          "abs",          "abs",        1, 11, F::call,   K::unary,      R::operands,    O::any},
    {op::exp,          "exp",          "exp",        1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::log,          "log",          "log",        1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::sqrt,         "sqrt",         "sqrt",       1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::rsqrt,        "rsqrt",        "rsqrt",      1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::sin,          "sin",          "sin",        1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::cos,          "cos",          "cos",        1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::tanh,         "tanh",         "tanh",       1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::sigmoid,      "sigmoid",      "sigmoid",    1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::relu,         "relu",         "relu",       1, 11, F::call,   K::unary,      R::operands,    O::any},
    {op::floor,        "floor",        "floor",      1, 11, F::call,   K::unary,      R::operands,    O::any},
    {op::ceil,         "ceil",         "ceil",       1, 11, F::call,   K::unary,      R::operands,    O::any},
    {op::round,        "round",        "round",      1, 11, F::call,   K::unary,      R::operands,    O::any},
    {op::erf,          "erf",          "erf",        1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::gelu,         "gelu",         "gelu",       1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::gelu_tanh,    "gelu_tanh",    "gelu_tanh",  1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::exp2,         "exp2",         "exp2",       1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::log1p,        "log1p",        "log1p",      1, 11, F::call,   K::unary,      R::floating,    O::any},
    {op::cast,         "cast",         "cast",       1, 11, F::call,   K::convert,    R::cast_target, O::any},
    {op::add,          "add",          "+",          2, 8,  F::infix,  K::arithmetic, R::operands,    O::numeric},
    {op::sub,          "sub",          "-",          2, 8,  F::infix,  K::arithmetic, R::operands,    O::numeric},
    {op::mul,          "mul",          "*",          2, 9,  F::infix,  K::arithmetic, R::operands,    O::numeric},
    {op::div,          "div",          "/",          2, 9,  F::infix,  K::arithmetic, R::operands,    O::numeric},
    {op::mod,          "mod",          "%",          2, 9,  F::infix,  K::arithmetic, R::operands,    O::integer},
    {op::fmod,         "fmod",         "fmod",       2, 11, F::call,   K::arithmetic, R::operands,    O::numeric},
    {op::pow,          "pow",          "pow",        2, 11, F::call,   K::arithmetic, R::operands,    O::numeric},
    {op::min,          "min",          "min",        2, 11, F::call,   K::arithmetic, R::operands,    O::any},
    {op::max,          "max",          "max",        2, 11, F::call,   K::arithmetic, R::operands,    O::any},
    {op::bit_and,      "bit_and",      "&",          2, 4,  F::infix,  K::arithmetic, R::operands,    O::integral},
    {op::bit_or,       "bit_or",       "|",          2, 2,  F::infix,  K::arithmetic, R::operands,    O::integral},
    {op::bit_xor,      "bit_xor",      "^",          2, 3,  F::infix,  K::arithmetic, R::operands,    O::integral},
    {op::shl,          "shl",          "<<",         2, 7,  F::infix,  K::arithmetic, R::operands,    O::integer},
    {op::shr,          "shr",          ">>",         2, 7,  F::infix,  K::arithmetic, R::operands,    O::integer},
    {op::lt,           "lt",           "<",          2, 6,  F::infix,  K::predicate,  R::boolean,     O::any},
    {op::le,           "le",           "<=",         2, 6,  F::infix,  K::predicate,  R::boolean,     O::any},
    {op::gt,           "gt",           ">",          2, 6,  F::infix,  K::predicate,  R::boolean,     O::any},
    {op::ge,           "ge",           ">=",         2, 6,  F::infix,  K::predicate,  R::boolean,     O::any},
    {op::eq,           "eq",           "==",         2, 5,  F::infix,  K::predicate,  R::boolean,     O::any},
    {op::ne,           "ne",           "!=",         2, 5,  F::infix,  K::predicate,  R::boolean,     O::any},
    {op::logical_and,  "logical_and",  "&&",         2, 1,  F::infix,  K::predicate,  R::boolean,     O::boolean},
    {op::logical_or,   "logical_or",   "||",         2, 0,  F::infix,  K::predicate,  R::boolean,     O::boolean},
    {op::where,        "where",        "where",      3, 11, F::call,   K::select,     R::branches,    O::any},
};
// clang-format on
}  // namespace rows
using rows::op_table;

inline constexpr int op_count = static_cast<int>(sizeof(op_table) / sizeof(op_table[0]));

constexpr const op_info& info(op o) { return op_table[static_cast<int>(o)]; }
constexpr int arity(op o) { return info(o).arity; }
constexpr detail::string_view spelling(op o) { return info(o).spelling; }
constexpr int precedence(op o) { return info(o).precedence; }
constexpr bool is_infix(op o) { return info(o).form == op_form::infix; }
constexpr op_kind kind_of(op o) { return info(o).kind; }
constexpr bool is_predicate(op o) { return info(o).kind == op_kind::predicate; }

// Whether the front end builds nodes of op `o` whose compute type is of
// category `c`, from the row's operand and result rules (the host executor
// specialises its loops for these; any other combination still evaluates).
constexpr bool computes_in(op o, dtype_category c) {
  const op_info& row = info(o);
  switch (row.operands) {
    case operand_rule::numeric: return c != dtype_category::boolean;
    case operand_rule::boolean: return c == dtype_category::boolean;
    case operand_rule::integral: return c != dtype_category::floating;
    case operand_rule::integer: return c == dtype_category::integral;
    case operand_rule::any: break;
  }
  return row.result != result_rule::floating || c == dtype_category::floating;
}

// --- result types (result_rule) ------------------------------------------------

// Transcendentals of integers and bools compute in float.
constexpr dtype floating_result(dtype t) {
  return category_of(t) == dtype_category::floating ? t : dtype::float32;
}

// The types of where's branches a and b once a literal branch has adopted
// the other branch's type (when that loses nothing) and two literals have
// promoted; they must then be equal, or the front end reports them.
struct branch_types {
  dtype a, b;
};
constexpr branch_types where_branches(typed a, typed b) {
  dtype ta = a.type, tb = b.type;
  if (a.power == strength::literal && b.power != strength::literal && category_of(ta) <= category_of(tb))
    ta = tb;
  if (b.power == strength::literal && a.power != strength::literal && category_of(tb) <= category_of(ta))
    tb = ta;
  if (a.power == strength::literal && b.power == strength::literal) ta = tb = promote(ta, tb);
  return {ta, tb};
}

struct node_types {
  typed result;   // the node's type, and how strongly it promotes
  dtype compute;  // the type its operands are converted to
};

// where(c, a, b)'s types from its branches' adopted types (the front end
// computes those once for its check and for the node).
constexpr node_types where_types(typed c, typed a, typed b, branch_types branches) {
  const auto stronger = [](strength x, strength y) { return x > y ? x : y; };
  return {{branches.a, stronger(c.power, stronger(a.power, b.power))}, branches.a};
}

// The types of a node of op `code` whose operands (the node's a, b, c) have
// static types `a`, `b`, `c`; a cast's target is `to`. Leaves take `a`.
// (The front end calls this for every node it builds: the row is read once
// and the operands are combined only where the rule needs them.)
constexpr node_types types_of(op code, typed a, typed b = {}, typed c = {}, dtype to = dtype::float32) {
  const op_info& row = info(code);
  switch (row.result) {
    case result_rule::leaf: return {a, a.type};
    case result_rule::operands: {
      const typed joined = row.arity == 2 ? combine(a, b) : a;
      return {joined, joined.type};
    }
    case result_rule::floating: {
      const typed joined = row.arity == 2 ? combine(a, b) : a;
      const dtype t = floating_result(joined.type);
      return {{t, joined.power}, t};
    }
    case result_rule::boolean: {
      const typed joined = row.arity == 2 ? combine(a, b) : a;
      return {{dtype::boolean, joined.power},
              row.operands == operand_rule::boolean ? dtype::boolean : joined.type};
    }
    case result_rule::cast_target: return {{to, a.power}, to};
    case result_rule::branches: return where_types(a, b, c, where_branches(b, c));
  }
  return {a, a.type};
}

}  // namespace streamdsl::ir
