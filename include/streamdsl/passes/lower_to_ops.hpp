#pragma once
// The plan's operation list: kernels, steps, records and waits in one issue order
// (a single host thread can issue them as listed; a thread per stream can
// run each stream's share), framed by the entry edges (every side stream
// waits for main) and the exit edges (main waits for every side stream).
#include "../detail/dyn_array.hpp"
#include "../plan/plan_model.hpp"
#include "fusion.hpp"

namespace streamdsl::passes {

template <class = void>
constexpr sync_role role_of(const ir::program_view& p, const ir::statement& s) {
  switch (p.events[s.event].role) {
    case ir::event_role::user: return sync_role::user;
    case ir::event_role::wait_stream: return sync_role::wait_stream;
    case ir::event_role::automatic: return sync_role::automatic;
  }
  return sync_role::user;
}

template <class = void>
constexpr void lower_to_ops(plan_model& m, const kernel_partition& parts) {
  const auto p = ir::view_of(m.ir);
  const auto n = static_cast<std::int32_t>(p.stmts.size());
  m.kernels = parts.kernels;
  m.kernel_stmts = parts.stmts;

  detail::dyn_array<bool> used(p.streams.size(), false);
  for (const auto& s : p.stmts) used[static_cast<std::size_t>(s.stream)] = true;

  // Entry: one record on main, a wait on each side stream that has work.
  std::int32_t entry_record = -1;
  for (std::int32_t s = 1; s < static_cast<std::int32_t>(p.streams.size()); ++s) {
    if (!used[static_cast<std::size_t>(s)]) continue;
    if (entry_record < 0) {
      entry_record = static_cast<std::int32_t>(m.ops.size());
      m.ops.push_back({op_kind::record, sync_role::entry, ir::main_stream});
    }
    m.ops.push_back({op_kind::wait, sync_role::entry, s, -1, -1, entry_record});
  }

  detail::dyn_array<std::int32_t> op_of_stmt(p.stmts.size(), -1);
  std::size_t next_kernel = 0;
  auto issue_kernels_before = [&](std::int32_t i) {
    while (next_kernel < parts.kernels.size() && parts.issue_before[next_kernel] == i) {
      const auto k = static_cast<std::int32_t>(next_kernel++);
      const auto& info = parts.kernels[static_cast<std::size_t>(k)];
      if (info.segments > 0) m.ops.push_back({op_kind::kernel, sync_role::user, info.stream, k});
    }
  };
  for (std::int32_t i = 0; i < n; ++i) {
    issue_kernels_before(i);
    const auto& s = p.stmts[i];
    if (s.kind == ir::stmt_kind::assign) continue;
    if (s.kind == ir::stmt_kind::step) {
      plan_op op{op_kind::step, sync_role::user, s.stream};
      op.stmt = i;
      m.ops.push_back(op);
      continue;
    }
    plan_op op{s.kind == ir::stmt_kind::record ? op_kind::record : op_kind::wait, role_of(p, s), s.stream};
    op.event = s.event;
    op.stmt = i;
    if (s.kind == ir::stmt_kind::wait) op.waits_for = op_of_stmt[static_cast<std::size_t>(s.binds)];
    op_of_stmt[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(m.ops.size());
    m.ops.push_back(op);
  }
  issue_kernels_before(n);

  // Exit: main waits for each side stream that has work.
  for (std::int32_t s = 1; s < static_cast<std::int32_t>(p.streams.size()); ++s) {
    if (!used[static_cast<std::size_t>(s)]) continue;
    const auto rec = static_cast<std::int32_t>(m.ops.size());
    m.ops.push_back({op_kind::record, sync_role::exit, s});
    m.ops.push_back({op_kind::wait, sync_role::exit, ir::main_stream, -1, -1, rec});
  }
}

// Growth bound (passes/schedule.hpp's bounds_of): an op per kernel and per
// step and sync statement (kernels are at most the assignments, so at most
// one per statement), and the entry and exit edges: one record on main and a wait
// per side stream, a record and a wait per side stream.
template <class = void>
constexpr plan_sizes lower_to_ops_bound(plan_sizes z) {
  z.ops = z.stmts + 1 + 3 * z.streams;
  return z;
}

}  // namespace streamdsl::passes
