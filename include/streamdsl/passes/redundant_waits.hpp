#pragma once
// Drops waits that happens-before already implies, and records nothing waits
// for. Waits are judged in groups: the waits a stream issues back to back
// (no work or record of that stream between them) all take effect before its
// next statement, so one of them is redundant when the stream's knowledge
// before the group joined with the group's other kept waits covers its
// record, whether those come before or after it (a fan-in that waits for a
// stream which itself already waited for another needs one wait, not two).
// Removing such a wait leaves the stream's clock after the group unchanged,
// and no record's clock depends on it (the group holds no record of its
// stream), so one pass is exact.
#include "../detail/dyn_array.hpp"
#include "../detail/text.hpp"
#include "../ir/render.hpp"
#include "../plan/plan_model.hpp"
#include "erase_statements.hpp"
#include "happens_before.hpp"

namespace streamdsl::passes {

// Decides which waits of one group to drop, last to first (so that of two
// waits implying each other the earlier stays). Wait j is implied when the
// stream's clock before the group, joined with the records of the group's
// other kept waits, covers its record. The earlier waits are all still kept
// when j is judged, and their join with the clock before the group is j's
// own clock (taken before its effect); the later kept ones are a running
// join. So each wait costs one pass over the streams, not one per other wait
// (a fan-in of n streams cost n^3).
template <class = void>
constexpr void settle_group(const happens_before& hb, const ir::program& p,
                            const detail::dyn_array<std::int32_t>& group, detail::dyn_array<bool>& drop) {
  const auto streams = p.streams.size();
  detail::dyn_array<std::int32_t> after(streams, 0);  // join of the later kept waits' records
  for (std::size_t j = group.size(); j-- > 0;) {
    const auto* before = hb.clock_of(group[j]);
    const auto* record = hb.clock_of(p.stmts[static_cast<std::size_t>(group[j])].binds);
    bool implied = true;
    for (std::size_t k = 0; k < streams && implied; ++k)
      implied = record[k] <= before[k] || record[k] <= after[k];
    if (implied) {
      drop[static_cast<std::size_t>(group[j])] = true;
      continue;
    }
    for (std::size_t k = 0; k < streams; ++k)
      if (record[k] > after[k]) after[k] = record[k];
  }
}

template <class = void>
constexpr void remove_redundant_waits(plan_model& m) {
  ir::program& p = m.ir;
  const happens_before hb(p.stmts, p.streams.size());
  const auto view = ir::view_of(p);
  detail::dyn_array<bool> drop(p.stmts.size(), false);
  detail::dyn_array<bool> waited(p.stmts.size(), false);

  auto settle = [&](detail::dyn_array<std::int32_t>& group) {
    if (group.empty()) return;
    settle_group(hb, p, group, drop);
    for (auto i : group)
      if (!drop[static_cast<std::size_t>(i)])
        waited[static_cast<std::size_t>(p.stmts[static_cast<std::size_t>(i)].binds)] = true;
    group.clear();
  };

  detail::dyn_array<detail::dyn_array<std::int32_t>> open(p.streams.size());  // per stream: its wait group
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.stmts.size()); ++i) {
    const auto& s = p.stmts[i];
    auto& group = open[static_cast<std::size_t>(s.stream)];
    if (s.kind == ir::stmt_kind::wait) {
      group.push_back(i);
      continue;
    }
    settle(group);
  }
  for (auto& group : open) settle(group);
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.stmts.size()); ++i) {
    if (!drop[static_cast<std::size_t>(i)]) continue;
    detail::text t;
    t << "removed ";
    ir::describe_sync(view, i, t);
    t << (hb.covers(i, p.stmts[static_cast<std::size_t>(i)].binds)
              ? ": already implied by earlier syncs"
              : ": already implied by the waits next to it");
    m.note(t);
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

// Growth bound (passes/schedule.hpp's bounds_of): drops statements, adds
// none; its notes are counted by notes_bound (plan_model.hpp).
template <class = void>
constexpr plan_sizes remove_redundant_waits_bound(plan_sizes z) {
  return z;
}

}  // namespace streamdsl::passes
