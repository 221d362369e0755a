#pragma once
// s.wait_stream(t) becomes a record on t and a wait on s at the same point in
// program order (what torch and CUDA do), so later passes see only events.
#include "../detail/text.hpp"
#include "../ir/program.hpp"
#include "../plan/plan_arrays.hpp"
#include "statement_rebuilder.hpp"

namespace streamdsl::passes {

template <class = void>
constexpr std::int32_t add_synthetic_event(ir::program& p, ir::event_role role) {
  detail::text t;
  // A "." no user name has (names are identifiers), so these never collide with one.
  t << (role == ir::event_role::automatic ? "auto_sync." : "wait_stream.")
    << static_cast<long long>(p.events.size());
  p.events.push_back({p.intern(t.view()), role});
  return static_cast<std::int32_t>(p.events.size() - 1);
}

template <class = void>
constexpr void lower_wait_stream(ir::program& p) {
  // Most programs have none: then the list stays as it is (rebuilding it
  // would copy every statement for nothing).
  if (ir::count_statements(p, ir::stmt_kind::wait_stream) == 0) return;
  statement_rebuilder out(p.stmts.size());
  for (std::size_t i = 0; i < p.stmts.size(); ++i) {
    auto s = p.stmts[i];
    if (s.kind != ir::stmt_kind::wait_stream) {
      out.copy(static_cast<std::int32_t>(i), s);
      continue;
    }
    ir::statement rec{};
    rec.kind = ir::stmt_kind::record;
    rec.stream = s.other;
    rec.event = add_synthetic_event(p, ir::event_role::wait_stream);
    rec.origin = s.origin;
    s.kind = ir::stmt_kind::wait;
    s.event = rec.event;
    s.binds = out.add(rec);
    s.other = -1;
    out.add(s);
  }
  p.stmts = out.finish();
}

// Growth bound (passes/schedule.hpp's bounds_of): each wait_stream becomes a
// record and a wait (one statement more) on a new event, whose name
// add_synthetic_event interns into the pool.
inline constexpr std::size_t synthetic_event_name_capacity = 32;  // "wait_stream." and 20 digits
template <class = void>
constexpr plan_sizes lower_wait_stream_bound(plan_sizes z, const ir::program& written) {
  const auto n = ir::count_statements(written, ir::stmt_kind::wait_stream);
  z.stmts += n;
  z.events += n;
  z.pool += synthetic_event_name_capacity * n;
  return z;
}

}  // namespace streamdsl::passes
