#pragma once
// A reduction's or scan's input expression (ir/step.hpp: statement::root) as
// a pack, so that the CUDA backend evaluates it with fused_kernel.cuh's node
// types, not a second evaluator. The pack is a kernel's (kernel_encoding.hpp)
// with one statement whose target is -1 (the step's value goes to CUB, not
// to a buffer) and vec 1; its local buffers are the expression's reads,
// 0-d ones broadcast over the step's shape. Which steps of a plan need such a
// pack (reduce_steps) is decided here too. Plain C++ (no CUDA): tested with g++.
#include <cstddef>
#include <cstdint>

#include "../../ir/accesses.hpp"
#include "../../plan/plan_view.hpp"
#include "kernel_encoding.hpp"

namespace streamdsl::cuda_detail {

// Whether a plan issues reductions or scans (steps the CUB header runs).
constexpr bool has_reduce_steps(const plan_view& p) {
  for (const auto& op : p.ops)
    if (op.kind == op_kind::step && ir::reads_expression(p.ir.stmts[static_cast<std::size_t>(op.stmt)].code))
      return true;
  return false;
}

// The statement of the plan's step op number j (in op order).
constexpr std::size_t step_statement(const plan_view& p, std::size_t j) {
  for (const auto& op : p.ops)
    if (op.kind == op_kind::step && j-- == 0) return static_cast<std::size_t>(op.stmt);
  return 0;
}

// The expression's locals, numbered as a kernel's (collect).
constexpr kernel_locals expression_locals(const plan_view& p, std::int32_t root, std::int32_t domain) {
  kernel_locals l;
  collect(p, root, l);
  l.node_base = nodes_start(static_cast<int>(l.buffers.size()), static_cast<int>(l.params.size()), 1);
  for (auto& at : l.node_at) at += l.node_base;
  for (std::size_t b = 0; b < l.buffers.size(); ++b)
    l.flags[b] |= read_flags(p, p.ir.buffers[l.buffers[b]].domain, domain);
  return l;
}

constexpr kernel_shape expression_shape(const plan_view& p, std::int32_t root, ir::step_shape shape) {
  const auto l = expression_locals(p, root, shape.domain);
  return {static_cast<std::size_t>(l.node_base + l.node_fields),
          l.buffers.size(),
          l.params.size(),
          shape.domain,
          shape.parts,
          1,
          inner_of(p, shape.domain)};
}

template <std::size_t Size, std::size_t Buffers, std::size_t Params>
constexpr encoded_kernel<Size, Buffers, Params> encode_expression(const plan_view& p, std::int32_t root,
                                                                  std::int32_t domain) {
  encoded_kernel<Size, Buffers, Params> out{};
  const auto l = expression_locals(p, root, domain);
  write_locals(p, l, 1, 1, out.code, out.buffer_ids, out.buffer_parts, out.param_ids);
  const pack_view v{out.code};
  out.code[v.target_at(0)] = -1;
  out.code[v.root_at(0)] = node_position(l, root);
  write_nodes(p, l, out.code);
  return out;
}

// Whether the expression is a plain load of a buffer already in the
// accumulation type, over the step's own shape (not broadcast, not a row or
// column of it): CUB then reads its pointer directly, with vector loads.
constexpr bool plain_load(const plan_view& p, std::int32_t root, dtype accumulated, std::int32_t domain) {
  const auto& n = p.ir.nodes[static_cast<std::size_t>(root)];
  return n.code == ir::op::load && n.type == accumulated && p.ir.buffers[n.ref].type == accumulated &&
         (domain < 0 || p.ir.buffers[n.ref].domain == domain);
}

}  // namespace streamdsl::cuda_detail
