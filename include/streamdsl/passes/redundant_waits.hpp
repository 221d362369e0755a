#pragma once
// Drops waits that happens-before already implies (the waiting stream already
// knows everything the record captured), and records nothing waits for.
// Removing an implied wait changes no clock, so one pass is exact.
#include "../detail/dyn_array.hpp"

#include "../detail/text.hpp"
#include "../ir/render.hpp"
#include "../plan/plan_model.hpp"
#include "erase_statements.hpp"
#include "happens_before.hpp"

namespace streamdsl::passes {

constexpr void remove_redundant_waits(plan_model& m) {
  ir::program& p = m.ir;
  const happens_before hb(p.stmts, p.streams.size());
  const auto view = ir::view_of(p);
  detail::dyn_array<bool> drop(p.stmts.size(), false);
  detail::dyn_array<bool> waited(p.stmts.size(), false);
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.stmts.size()); ++i) {
    const auto& s = p.stmts[i];
    if (s.kind != ir::stmt_kind::wait) continue;
    if (hb.covers(i, s.binds)) {
      drop[static_cast<std::size_t>(i)] = true;
      detail::text t;
      t << "removed ";
      ir::describe_sync(view, i, t);
      t << ": already implied by earlier syncs";
      m.note(t);
    } else {
      waited[static_cast<std::size_t>(s.binds)] = true;
    }
  }
  for (std::size_t i = 0; i < p.stmts.size(); ++i)
    if (p.stmts[i].kind == ir::stmt_kind::record && !waited[i]) {
      drop[i] = true;
      if (p.events[p.stmts[i].event].role == ir::event_role::user) {
        detail::text t;
        t << "dropped ";
        ir::describe_sync(view, static_cast<std::int32_t>(i), t);
        t << ": nothing waits for it";
        m.note(t);
      }
    }
  erase_statements(p, drop);
}

}  // namespace streamdsl::passes
