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

#include "../../ir/accesses.hpp"
#include "../../plan/plan_view.hpp"
#include "element_loops.hpp"

namespace streamdsl::host_detail {

// The distinct loops of a plan, in a fixed array rather than a dyn_array: a
// constant can hold it, so program_loops walks the plan's nodes once (with a
// dyn_array it walked them twice, once for the count and once for the keys,
// and the second walk cost ~8% of the compile of a 200-statement unit
// that runs its program). Every key a plan can ask for has its own kind and
// types, and an operation's key its own op: that bounds the count.
struct loop_list {
  static constexpr std::size_t type_slots = dtype_count;
  // fill, broadcast, two gathers, where: a type each; convert: two; an operation: a type per op.
  static constexpr std::size_t capacity =
      5 * type_slots + type_slots * type_slots + static_cast<std::size_t>(ir::op_count) * type_slots;

  loop_key at[capacity]{};
  std::size_t count = 0;
  // Per slot (slot_of), 1 + where its key is in `at`, or 0: a node's keys are
  // found without a search through the list.
  unsigned short position[capacity]{};

  static constexpr std::size_t slot_of(const loop_key& k) {
    const auto type = static_cast<std::size_t>(k.type);
    switch (k.kind) {
      case loop_kind::convert: return type * type_slots + static_cast<std::size_t>(k.from);
      case loop_kind::fill: return type_slots * type_slots + type;
      case loop_kind::broadcast: return type_slots * type_slots + type_slots + type;
      case loop_kind::where: return type_slots * type_slots + 2 * type_slots + type;
      case loop_kind::gather_row: return type_slots * type_slots + 3 * type_slots + type;
      case loop_kind::gather_column: return type_slots * type_slots + 4 * type_slots + type;
      default: return (5 + type_slots + static_cast<std::size_t>(k.code)) * type_slots + type;
    }
  }
  constexpr void add(const loop_key& k) {
    auto& p = position[slot_of(k)];
    if (p == 0) {
      at[count++] = k;
      p = static_cast<unsigned short>(count);
      return;
    }
    if (at[p - 1] == k) return;
    for (std::size_t i = 0; i < count; ++i)  // a slot shared by two keys: not by any key a plan asks for
      if (at[i] == k) return;
    at[count++] = k;
  }
};

// The type of the value the kernel compiler holds for a node.
constexpr dtype value_type(const plan_view& plan, const ir::expr_node& n) {
  return n.code == ir::op::load ? plan.ir.buffers[static_cast<std::size_t>(n.ref)].type : n.type;
}

// A conversion of a value of type `from` to `to` (none when they are equal).
constexpr void add_conversion(loop_list& keys, dtype to, dtype from) {
  if (to != from) keys.add(convert_key(to, from));
}

constexpr loop_list loops_of(const plan_view& plan) {
  loop_list keys;
  const auto& nodes = plan.ir.nodes;
  auto child = [&](std::int32_t c) { return value_type(plan, nodes[static_cast<std::size_t>(c)]); };
  for (const auto& n : nodes) {
    switch (ir::kind_of(n.code)) {
      case ir::op_kind::load: {
        const auto b = static_cast<std::size_t>(n.ref);
        const auto& info = plan.ir.buffers[b];
        if (plan.storage[b] == storage_register) keys.add(fill_key(info.type));  // read before written
        if (info.domain < 0) keys.add(broadcast_key(info.type));
        for (const auto& d : plan.ir.domains)  // a row or a column of a rank-2 kernel (ir/shape.hpp)
          if (ir::is_product(d) && (d.inner == info.domain || d.outer == info.domain)) {
            keys.add(gather_key(info.type, true));
            keys.add(gather_key(info.type, false));
          }
        continue;
      }
      case ir::op_kind::param:
      case ir::op_kind::literal: keys.add(fill_key(n.type)); continue;
      default: break;
    }
    const std::int32_t operands[] = {n.a, n.b, n.c};
    for (int i = 0; i < ir::arity(n.code); ++i) add_conversion(keys, operand_type(n, i), child(operands[i]));
    if (has_operation_loop(n.code)) keys.add(operation_key(n));
    add_conversion(keys, n.type, produced_type(n));
  }
  // A statement's store: a conversion, or a copy when the root's value is not
  // computed straight into the target.
  for (const auto& s : plan.ir.stmts) {
    if (s.kind == ir::stmt_kind::assign) {
      const auto to = plan.ir.buffers[static_cast<std::size_t>(s.target)].type;
      keys.add(convert_key(to, child(s.root)));
    } else if (s.kind == ir::stmt_kind::step && ir::reads_expression(s.code)) {
      // A reduction's or scan's values in the accumulation type, the result
      // in its type, then in the target's (backend/host/reduce_scan.hpp).
      const auto steps = step_types_of(plan.ir, s);
      keys.add(convert_key(steps.accumulated, child(s.root)));
      keys.add(convert_key(steps.result, steps.finished));
      keys.add(convert_key(steps.target, steps.result));
    }
  }
  return keys;
}

// The loops of one compiled program: `find` is the kernel compiler's loop_finder.
template <class Program>
struct program_loops {
  // Read in constant expressions only, so never emitted.
  static constexpr loop_list found = loops_of(Program::plan());
  static constexpr std::size_t count = found.count;
  struct key_list {
    loop_key at[count + 1];
  };
  struct fn_list {
    loop_fn at[count + 1];
  };
  // `i != count`: nvcc warns of `i < count` where count is 0 (a program of
  // steps only, a matmul's).
  static constexpr key_list keys = [] {
    key_list list{};
    for (std::size_t i = 0; i != count; ++i) list.at[i] = found.at[i];
    return list;
  }();
  template <std::size_t... I>
  static constexpr fn_list make_fns(std::index_sequence<I...>) {
    return {{loop_for<keys.at[I]>()..., nullptr}};
  }
  static constexpr fn_list fns = make_fns(std::make_index_sequence<count>{});

  static loop_fn find(const loop_key& k) {
    for (std::size_t i = 0; i != count; ++i)
      if (keys.at[i] == k) return fns.at[i];
    return nullptr;
  }
};

}  // namespace streamdsl::host_detail
