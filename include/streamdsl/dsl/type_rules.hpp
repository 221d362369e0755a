#pragma once
// The front end's type rules: the type of each node the builder appends, and
// which operand types an operation or a store accepts. The result-type
// functions are the ones an op table would take over; the checks return the
// rule broken, and messages.hpp says it in words.
#include <cstdint>

#include "../ir/dtype.hpp"
#include "../ir/expr_node.hpp"

namespace streamdsl::detail {

// A node of the program being built, with its static type.
struct operand {
  std::int32_t node = -1;
  typed type{dtype::float32, strength::literal};
};

// --- result types -----------------------------------------------------------

// The element type a node holds (`type`) and the type its operands are
// converted to before it computes (`compute`).
struct node_types {
  dtype type;
  dtype compute;
  strength power;
};

constexpr bool is_logical(ir::op code) { return code == ir::op::logical_and || code == ir::op::logical_or; }
constexpr bool is_comparison(ir::op code) { return code >= ir::op::lt && code <= ir::op::ne; }

// Arithmetic, min/max, comparisons and logical operators: the operands are
// promoted to one type; comparisons and logical operators yield bool.
constexpr node_types binary_result(ir::op code, typed a, typed b) {
  const typed joined = combine(a, b);
  return {is_logical(code) || is_comparison(code) ? dtype::boolean : joined.type, joined.type, joined.power};
}

// where(c, a, b): the types of the two branches after a literal branch
// adopts the other branch's type (when that loses nothing). They must then
// be equal; the node has that type.
struct where_branches {
  dtype a;
  dtype b;
  strength power;  // of the branches, before the condition joins in
};
constexpr where_branches where_result(typed a, typed b) {
  dtype ta = a.type, tb = b.type;
  if (a.power == strength::literal && b.power != strength::literal && category_of(ta) <= category_of(tb))
    ta = tb;
  if (b.power == strength::literal && a.power != strength::literal && category_of(tb) <= category_of(ta))
    tb = ta;
  if (a.power == strength::literal && b.power == strength::literal) ta = tb = promote(ta, tb);
  return {ta, tb, a.power > b.power ? a.power : b.power};
}

// --- checks -----------------------------------------------------------------

enum class binary_rule : std::uint8_t {
  ok,
  incompatible,  // the operand types cannot represent each other (__half and __nv_bfloat16)
  logical_needs_bool,
  no_arithmetic_on_bool,
};
constexpr binary_rule check_binary(ir::op code, typed a, typed b) {
  if (!compatible(a.type, b.type)) return binary_rule::incompatible;
  if (is_logical(code)) {
    if (a.type != dtype::boolean || b.type != dtype::boolean) return binary_rule::logical_needs_bool;
  } else if (!is_comparison(code) && code != ir::op::min && code != ir::op::max &&
             combine(a, b).type == dtype::boolean) {
    return binary_rule::no_arithmetic_on_bool;
  }
  return binary_rule::ok;
}

// A store `target = value` needs no cast when the target's type holds the
// value's type as promotion would (integers into floating types included, as
// in PyTorch's out=; docs/concepts.md, "Values and types"). A literal
// (`y = 2.5`) only has to be of a category the target holds.
constexpr bool storable_without_cast(dtype target, typed value) {
  return value.power == strength::literal ? category_of(value.type) <= category_of(target)
                                          : assignable(target, value.type);
}

}  // namespace streamdsl::detail
