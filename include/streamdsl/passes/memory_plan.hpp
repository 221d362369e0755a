#pragma once
// Memory planning for temps. A temp whose every access is inside one kernel
// lives in registers. The others get slots; a slot is reused only when every
// access of its earlier occupants happens-before the new temp's first access
// (the cross-stream reuse hazard PyTorch patches at run time with
// record_stream, decided here at compile time). Two accesses in one
// statement are safe: an elementwise statement reads element i before it
// writes element i, and slots of one domain and element size map element i
// to the same bytes.
#include "../detail/dyn_array.hpp"

#include "../ir/accesses.hpp"
#include "../plan/plan_model.hpp"
#include "fusion.hpp"
#include "happens_before.hpp"

namespace streamdsl::passes {

struct temp_accesses {
  std::int32_t first = -1;
  detail::dyn_array<std::int32_t> last_on_stream;  // per stream: latest access, or -1
  std::int32_t kernel = -1;                  // the single kernel touching it, or -2 for several
};

constexpr detail::dyn_array<temp_accesses> collect_temp_accesses(const ir::program_view& p,
                                                           const kernel_partition& parts) {
  detail::dyn_array<temp_accesses> out(p.buffers.size());
  for (auto& t : out) t.last_on_stream.assign(p.streams.size(), -1);
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.stmts.size()); ++i) {
    const auto& s = p.stmts[i];
    if (s.kind != ir::stmt_kind::assign) continue;
    auto touch = [&](std::int32_t b) {
      auto& t = out[static_cast<std::size_t>(b)];
      if (t.first < 0) t.first = i;
      t.last_on_stream[static_cast<std::size_t>(s.stream)] = i;
      const auto k = parts.kernel_of[static_cast<std::size_t>(i)];
      t.kernel = (t.kernel == -1 || t.kernel == k) ? k : -2;
    };
    for (auto b : ir::reads_of(p, s)) touch(b);
    touch(s.target);
  }
  return out;
}

constexpr void plan_memory(plan_model& m, const kernel_partition& parts) {
  const auto p = ir::view_of(m.ir);
  const happens_before hb(p.stmts, p.streams.size());
  const auto uses = collect_temp_accesses(p, parts);
  m.storage.assign(p.buffers.size(), storage_bound);
  detail::dyn_array<detail::dyn_array<std::int32_t>> occupants;  // per slot: temps placed in it

  // Temps in order of first access, so a slot's earlier occupants come first.
  detail::dyn_array<std::int32_t> order;
  for (std::int32_t b = 0; b < static_cast<std::int32_t>(p.buffers.size()); ++b)
    if (p.buffers[b].kind == ir::access::temp) order.push_back(b);
  for (std::size_t i = 1; i < order.size(); ++i)  // insertion sort: stable, few temps
    for (std::size_t j = i; j > 0 && uses[static_cast<std::size_t>(order[j])].first <
                                         uses[static_cast<std::size_t>(order[j - 1])].first;
         --j) {
      const auto x = order[j];
      order[j] = order[j - 1];
      order[j - 1] = x;
    }

  for (auto b : order) {
    const auto& use = uses[static_cast<std::size_t>(b)];
    if (use.kernel >= -1) {  // one kernel, or never used
      m.storage[static_cast<std::size_t>(b)] = storage_register;
      continue;
    }
    const auto& info = p.buffers[b];
    std::int32_t chosen = -1;
    for (std::int32_t slot = 0; slot < static_cast<std::int32_t>(m.slots.size()) && chosen < 0; ++slot) {
      const auto& si = m.slots[static_cast<std::size_t>(slot)];
      if (si.domain != info.domain || size_of(si.type) != size_of(info.type)) continue;
      bool free = true;
      for (auto o : occupants[static_cast<std::size_t>(slot)])
        for (auto last : uses[static_cast<std::size_t>(o)].last_on_stream)
          free = free && (last < 0 || last == use.first || hb.ordered(last, use.first));
      if (free) chosen = slot;
    }
    if (chosen < 0) {
      chosen = static_cast<std::int32_t>(m.slots.size());
      m.slots.push_back({info.type, info.domain});
      occupants.emplace_back();
    }
    occupants[static_cast<std::size_t>(chosen)].push_back(b);
    m.storage[static_cast<std::size_t>(b)] = chosen;
  }
}

}  // namespace streamdsl::passes
