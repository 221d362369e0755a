#pragma once
// The front end's type checks: which operand types an operation or a store
// accepts (node result types are the op table's, ir/op_table.hpp). The checks
// return the rule broken, and messages.hpp says it in words.
#include <cstdint>

#include "../ir/dtype.hpp"
#include "../ir/expr_node.hpp"

namespace streamdsl::detail {

// A node of the program being built, with its static type.
struct operand {
  std::int32_t node = -1;
  typed type{dtype::float32, strength::literal};
};

// Node result types come from the op table (ir::types_of, ir/op_table.hpp).

// --- checks -----------------------------------------------------------------

enum class binary_rule : std::uint8_t {
  ok,
  incompatible,  // the operand types cannot represent each other (__half and __nv_bfloat16, uint64_t and int)
  logical_needs_bool,
  no_arithmetic_on_bool,
  needs_integers,  // an operand of %, &, |, ^, << or >> of a type the op does not take (operand_accepted)
  fp8_operand,     // an FP8 operand: FP8 values only convert (sd::cast), as in PyTorch
};

// Whether one operand of type t meets an integer-only rule (integral:
// integers or bool; integer: integers); the other rules always hold for one
// operand.
constexpr bool operand_accepted(ir::operand_rule rule, dtype t) {
  switch (rule) {
    case ir::operand_rule::integral: return category_of(t) != dtype_category::floating;
    case ir::operand_rule::integer: return category_of(t) == dtype_category::integral;
    default: return true;
  }
}
// Which operands an op accepts is its table row's operand rule.
constexpr binary_rule check_binary(ir::op code, typed a, typed b) {
  if (is_fp8(a.type) || is_fp8(b.type)) return binary_rule::fp8_operand;
  if (!combinable(a, b)) return binary_rule::incompatible;
  switch (ir::info(code).operands) {
    case ir::operand_rule::any: break;
    case ir::operand_rule::boolean:
      if (a.type != dtype::boolean || b.type != dtype::boolean) return binary_rule::logical_needs_bool;
      break;
    case ir::operand_rule::numeric:
      // combine(a, b) is bool exactly when both are (bool is the only type of
      // the lowest category): no need to combine here.
      if (a.type == dtype::boolean && b.type == dtype::boolean) return binary_rule::no_arithmetic_on_bool;
      break;
    case ir::operand_rule::integral:
    case ir::operand_rule::integer:
      if (!operand_accepted(ir::info(code).operands, a.type) ||
          !operand_accepted(ir::info(code).operands, b.type))
        return binary_rule::needs_integers;
      break;
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
