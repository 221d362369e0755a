#pragma once
// The loops a compiled program can need, found from its plan at compile time,
// so that a translation unit instantiates (and the compiler optimises) only
// those: a handful per program instead of every operation in every type.
//
// loops_of asks for what kernel_compiler (kernel_program.hpp) asks for, both
// reading how a node is evaluated from element_loops.hpp (operand_type,
// operation_key, produced_type): a superset is fine (an unused loop costs
// compile time only), a missing one is an internal error the kernel compiler
// reports.
#include <cstddef>
#include <utility>

#include "../../detail/dyn_array.hpp"
#include "../../plan/plan_view.hpp"
#include "element_loops.hpp"

namespace streamdsl::host_detail {

constexpr void add_loop(detail::dyn_array<loop_key>& keys, const loop_key& k) {
  for (const auto& have : keys)
    if (have == k) return;
  keys.push_back(k);
}

// The type of the value the kernel compiler holds for a node.
constexpr dtype value_type(const plan_view& plan, const ir::expr_node& n) {
  return n.code == ir::op::load ? plan.ir.buffers[static_cast<std::size_t>(n.ref)].type : n.type;
}

// A conversion of a value of type `from` to `to` (none when they are equal).
constexpr void add_conversion(detail::dyn_array<loop_key>& keys, dtype to, dtype from) {
  if (to != from) add_loop(keys, convert_key(to, from));
}

constexpr detail::dyn_array<loop_key> loops_of(const plan_view& plan) {
  detail::dyn_array<loop_key> keys;
  const auto& nodes = plan.ir.nodes;
  auto child = [&](std::int32_t c) { return value_type(plan, nodes[static_cast<std::size_t>(c)]); };
  for (const auto& n : nodes) {
    switch (ir::kind_of(n.code)) {
      case ir::op_kind::load: {
        const auto b = static_cast<std::size_t>(n.ref);
        const auto& info = plan.ir.buffers[b];
        if (plan.storage[b] == storage_register) add_loop(keys, fill_key(info.type));  // read before written
        if (info.domain < 0) add_loop(keys, broadcast_key(info.type));
        continue;
      }
      case ir::op_kind::param:
      case ir::op_kind::literal: add_loop(keys, fill_key(n.type)); continue;
      default: break;
    }
    const std::int32_t operands[] = {n.a, n.b, n.c};
    for (int i = 0; i < ir::arity(n.code); ++i) add_conversion(keys, operand_type(n, i), child(operands[i]));
    if (has_operation_loop(n.code)) add_loop(keys, operation_key(n));
    add_conversion(keys, n.type, produced_type(n));
  }
  // A statement's store: a conversion, or a copy when the root's value is not
  // computed straight into the target.
  for (const auto& s : plan.ir.stmts) {
    if (s.kind != ir::stmt_kind::assign) continue;
    const auto to = plan.ir.buffers[static_cast<std::size_t>(s.target)].type;
    add_loop(keys, convert_key(to, child(s.root)));
  }
  return keys;
}

// The loops of one compiled program: `find` is the kernel compiler's loop_finder.
template <class Program>
struct program_loops {
  static constexpr std::size_t count = loops_of(Program::plan()).size();
  struct key_list {
    loop_key at[count + 1];
  };
  struct fn_list {
    loop_fn at[count + 1];
  };
  static constexpr key_list keys = [] {
    key_list list{};
    const auto found = loops_of(Program::plan());
    for (std::size_t i = 0; i < count; ++i) list.at[i] = found[i];
    return list;
  }();
  template <std::size_t... I>
  static constexpr fn_list make_fns(std::index_sequence<I...>) {
    return {{loop_for<keys.at[I]>()..., nullptr}};
  }
  static constexpr fn_list fns = make_fns(std::make_index_sequence<count>{});

  static loop_fn find(const loop_key& k) {
    for (std::size_t i = 0; i < count; ++i)
      if (keys.at[i] == k) return fns.at[i];
    return nullptr;
  }
};

}  // namespace streamdsl::host_detail
