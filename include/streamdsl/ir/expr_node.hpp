#pragma once
// One node of an elementwise expression tree. Trees live in a flat array and
// refer to their operands by index, so they survive constant evaluation.
#include <cstdint>

#include "../detail/string_view.hpp"
#include "dtype.hpp"

namespace streamdsl::ir {

enum class op : std::uint8_t {
  // leaves
  load,     // element of a buffer (ref = buffer id); 0-d buffers broadcast
  param,    // host value bound at run time (ref = param id)
  literal,  // constant written in the program
  // unary
  neg,
  logical_not,
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
  cast,
  // binary
  add,
  sub,
  mul,
  div,
  min,
  max,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  logical_and,
  logical_or,
  // ternary
  where,
};

constexpr int arity(op o) {
  if (o <= op::literal) return 0;
  if (o <= op::cast) return 1;
  if (o <= op::logical_or) return 2;
  return 3;
}

// Infix spelling of binary and prefix operators; function name otherwise.
constexpr detail::string_view spelling(op o) {
  switch (o) {
    case op::neg: return "-";
    case op::logical_not: return "!";
    case op::abs: return "abs";
    case op::exp: return "exp";
    case op::log: return "log";
    case op::sqrt: return "sqrt";
    case op::rsqrt: return "rsqrt";
    case op::sin: return "sin";
    case op::cos: return "cos";
    case op::tanh: return "tanh";
    case op::sigmoid: return "sigmoid";
    case op::relu: return "relu";
    case op::cast: return "cast";
    case op::add: return "+";
    case op::sub: return "-";
    case op::mul: return "*";
    case op::div: return "/";
    case op::min: return "min";
    case op::max: return "max";
    case op::lt: return "<";
    case op::le: return "<=";
    case op::gt: return ">";
    case op::ge: return ">=";
    case op::eq: return "==";
    case op::ne: return "!=";
    case op::logical_and: return "&&";
    case op::logical_or: return "||";
    case op::where: return "where";
    default: return "";
  }
}

constexpr bool is_infix(op o) {
  return (o >= op::add && o <= op::div) || (o >= op::lt && o <= op::logical_or);
}

// C++ precedence, higher binds tighter; used to print minimal parentheses.
constexpr int precedence(op o) {
  switch (o) {
    case op::mul:
    case op::div: return 5;
    case op::add:
    case op::sub: return 4;
    case op::lt:
    case op::le:
    case op::gt:
    case op::ge: return 3;
    case op::eq:
    case op::ne: return 2;
    case op::logical_and: return 1;
    case op::logical_or: return 0;
    case op::neg:
    case op::logical_not: return 6;
    default: return 7;  // leaves and calls
  }
}

struct expr_node {
  op code = op::literal;
  dtype type = dtype::float32;     // result type
  dtype compute = dtype::float32;  // type the operands are converted to
  std::int32_t a = -1, b = -1, c = -1;
  std::int32_t ref = -1;     // buffer or param id
  double fvalue = 0;         // literal value (floating view)
  std::int64_t ivalue = 0;   // literal value (exact integral view)
  std::int32_t domain = -1;  // iteration domain, -1 for a broadcast scalar
};

}  // namespace streamdsl::ir
