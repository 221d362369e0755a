#pragma once
// Memory planning for temps. A temp whose every access is inside one kernel
// lives in registers. The others get slots; a slot is reused only when every
// access of its earlier occupants happens-before the new temp's first access
// (the cross-stream reuse hazard PyTorch patches at run time with
// record_stream, decided here at compile time). Two accesses in one
// statement are safe: an elementwise statement reads element i before it
// writes element i, and slots of one domain and element size map element i
// to the same bytes (chunks of one size of two temps sharing a slot meet only
// where they are the same chunk, so again at the same element i). A step is
// not elementwise: its accesses must all be ordered apart. The kernels of
// one launch run at once: their accesses count as spanning its statements.
#include "../detail/dyn_array.hpp"
#include "../ir/accesses.hpp"
#include "../plan/plan_model.hpp"
#include "fusion.hpp"
#include "happens_before.hpp"

namespace streamdsl::passes {

// Where each buffer is accessed: its first access, its latest access on each
// stream, and the single kernel touching it (-2 for several, for a step, or
// for two regions of it: a register holds one element of one region; -1 for
// none). A buffer touched by several kernels can still live in registers
// when it is `chunk_local`: only chunks of one size of it are accessed, each
// chunk by one kernel, each kernel one chunk (a pipeline's per-chunk temps),
// so every kernel's registers hold its own chunk.
// Flat arrays: one allocation each, not one per buffer.
struct buffer_accesses {
  std::size_t streams = 0;
  detail::dyn_array<std::int32_t> first;
  detail::dyn_array<std::int32_t> kernel;
  detail::dyn_array<std::int32_t> last;      // [buffer * streams + stream], -1 for none
  detail::dyn_array<std::int32_t> first_on;  // [buffer * streams + stream], -1 for none
  detail::dyn_array<bool> chunk_local;

  constexpr const std::int32_t* last_on_streams(std::int32_t b) const {
    return last.data() + static_cast<std::size_t>(b) * streams;
  }
  constexpr const std::int32_t* first_on_streams(std::int32_t b) const {
    return first_on.data() + static_cast<std::size_t>(b) * streams;
  }
};

template <class = void>
constexpr buffer_accesses collect_accesses(const ir::program_view& p, const kernel_partition& parts) {
  buffer_accesses out{p.streams.size(),
                      detail::dyn_array<std::int32_t>(p.buffers.size(), -1),
                      detail::dyn_array<std::int32_t>(p.buffers.size(), -1),
                      detail::dyn_array<std::int32_t>(p.buffers.size() * p.streams.size(), -1),
                      detail::dyn_array<std::int32_t>(p.buffers.size() * p.streams.size(), -1),
                      detail::dyn_array<bool>(p.buffers.size(), true)};
  detail::dyn_array<ir::region> first_region(p.buffers.size());
  struct chunk_use {
    ir::region r;
    std::int32_t kernel;
  };
  detail::dyn_array<chunk_use> chunk_uses;  // accesses to chunks by kernels
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.stmts.size()); ++i) {
    const auto& s = p.stmts[i];
    if (!ir::accesses_buffers(s.kind)) continue;
    const auto k = s.kind == ir::stmt_kind::step ? -2 : parts.kernel_of[static_cast<std::size_t>(i)];
    // In a multi-kernel launch, an access spans the launch's window.
    std::int32_t span_first = i, span_last = i;
    if (k >= 0 && !parts.window_first.empty() && parts.window_first[static_cast<std::size_t>(k)] >= 0) {
      span_first = parts.window_first[static_cast<std::size_t>(k)];
      span_last = parts.window_last[static_cast<std::size_t>(k)];
    }
    auto touch = [&](const ir::region& r) {
      const auto at = static_cast<std::size_t>(r.buffer);
      if (out.first[at] < 0) {
        out.first[at] = i;
        first_region[at] = r;
      }
      const auto on = at * out.streams + static_cast<std::size_t>(s.stream);
      out.last[on] = span_last;
      if (out.first_on[on] < 0) out.first_on[on] = span_first;
      // Fields compared in place (same buffer): cheaper to evaluate than region's ==.
      const auto& fr = first_region[at];
      const bool one_region = fr.part == r.part && fr.parts == r.parts;
      out.kernel[at] = (out.kernel[at] == -1 || out.kernel[at] == k) && one_region ? k : -2;
      if (k < 0 || r.parts == 1 || r.parts != fr.parts)
        out.chunk_local[at] = false;
      else if (out.chunk_local[at])
        chunk_uses.push_back({r, k});
    };
    for (const auto& r : ir::reads_of(p, s)) touch(r);
    for (const auto& r : ir::writes_of(p, s)) touch(r);
  }
  // Each chunk in one kernel, each kernel on one chunk: per buffer, a table
  // of each chunk's kernel and each kernel's chunk (reset after the buffer).
  detail::dyn_array<std::int32_t> part_kernel, kernel_part(parts.kernels.size(), -1);
  for (std::int32_t b = 0; b < static_cast<std::int32_t>(p.buffers.size()); ++b) {
    auto& local = out.chunk_local[static_cast<std::size_t>(b)];
    if (!local || out.kernel[static_cast<std::size_t>(b)] != -2) continue;
    part_kernel.assign(static_cast<std::size_t>(first_region[static_cast<std::size_t>(b)].parts), -1);
    for (const auto& x : chunk_uses) {
      if (x.r.buffer != b) continue;
      auto& k = part_kernel[static_cast<std::size_t>(x.r.part)];
      auto& q = kernel_part[static_cast<std::size_t>(x.kernel)];
      local = local && (k < 0 || k == x.kernel) && (q < 0 || q == x.r.part);
      k = x.kernel;
      q = x.r.part;
    }
    for (const auto& x : chunk_uses)
      if (x.r.buffer == b) kernel_part[static_cast<std::size_t>(x.kernel)] = -1;
  }
  return out;
}

template <class = void>
constexpr void plan_memory(plan_model& m, const kernel_partition& parts) {
  const auto p = ir::view_of(m.ir);
  const auto streams = p.streams.size();
  const auto uses = collect_accesses(p, parts);
  // Happens-before only when some temp needs a slot (most programs keep
  // theirs in registers, and it costs statements x streams).
  bool any_slot = false;
  for (std::size_t b = 0; b < p.buffers.size(); ++b)
    any_slot =
        any_slot || (p.buffers[b].kind == ir::access::temp && uses.kernel[b] < -1 && !uses.chunk_local[b]);
  const happens_before hb(any_slot ? p.stmts : detail::array_view<ir::statement>{}, streams);
  m.storage.assign(p.buffers.size(), storage_bound);
  // Per slot and stream, the position in that stream's order of the latest
  // access of any temp placed in it (-1: none). Accesses on one stream are
  // ordered by program order, so a new occupant may follow when each
  // stream's latest access happens before its first access on every stream
  // (not only its first access: chunks of a temp written on two streams need
  // not be ordered with each other, so the later one may not be ordered
  // after what the first one follows).
  detail::dyn_array<std::int32_t> slot_last;
  // For the temp being placed, per stream t: a slot's latest access on t
  // must come before this position of t's order. That is the least, over
  // the temp's first accesses f, of what f's clock counts of t, one more
  // when f is itself on t and elementwise (f may be that access: it reads
  // element i before it writes it). One pass over the temp's first
  // accesses; each slot is then judged with a compare per stream (this loop
  // runs for every temp and slot).
  detail::dyn_array<std::int32_t> need(streams, 0);

  // Temps in order of first access, so a slot's earlier occupants come first.
  detail::dyn_array<std::int32_t> order;
  for (std::int32_t b = 0; b < static_cast<std::int32_t>(p.buffers.size()); ++b)
    if (p.buffers[b].kind == ir::access::temp) order.push_back(b);
  for (std::size_t i = 1; i < order.size(); ++i)  // insertion sort: stable, and temps come nearly in order
    for (std::size_t j = i; j > 0 && uses.first[static_cast<std::size_t>(order[j])] <
                                         uses.first[static_cast<std::size_t>(order[j - 1])];
         --j) {
      const auto x = order[j];
      order[j] = order[j - 1];
      order[j - 1] = x;
    }

  constexpr std::int32_t unbounded = 0x7fffffff;
  for (auto b : order) {
    const auto at = static_cast<std::size_t>(b);
    if (uses.kernel[at] >= -1 || uses.chunk_local[at]) {  // one kernel, never used, or a chunk per kernel
      m.storage[at] = storage_register;
      continue;
    }
    const auto& info = p.buffers[b];
    const auto* first_on = uses.first_on_streams(b);
    for (std::size_t t = 0; t < streams; ++t) need[t] = unbounded;
    for (std::size_t u = 0; u < streams; ++u) {
      const auto f = first_on[u];
      if (f < 0) continue;
      const auto* clock = hb.clock_of(f);
      for (std::size_t t = 0; t < streams; ++t) {
        const auto bound = clock[t] + (t == u && p.stmts[f].kind == ir::stmt_kind::assign ? 1 : 0);
        if (bound < need[t]) need[t] = bound;
      }
    }
    std::int32_t chosen = -1;
    for (std::int32_t slot = 0; slot < static_cast<std::int32_t>(m.slots.size()) && chosen < 0; ++slot) {
      const auto& si = m.slots[static_cast<std::size_t>(slot)];
      if (si.domain != info.domain || size_of(si.type) != size_of(info.type)) continue;
      const auto* lasts = slot_last.data() + static_cast<std::size_t>(slot) * streams;
      bool free = true;
      for (std::size_t t = 0; t < streams && free; ++t) free = lasts[t] < need[t];
      if (free) chosen = slot;
    }
    if (chosen < 0) {
      chosen = static_cast<std::int32_t>(m.slots.size());
      m.slots.push_back({info.type, info.domain});
      slot_last.resize(m.slots.size() * streams, -1);
    }
    const auto* mine = uses.last_on_streams(b);
    for (std::size_t t = 0; t < streams; ++t) {
      if (mine[t] < 0) continue;
      auto& last = slot_last[static_cast<std::size_t>(chosen) * streams + t];
      if (hb.sequence(mine[t]) > last) last = hb.sequence(mine[t]);
    }
    m.storage[at] = chosen;
  }
}

// Growth bound (passes/schedule.hpp's bounds_of): a storage entry per
// buffer, at most a slot per buffer (per temp).
template <class = void>
constexpr plan_sizes plan_memory_bound(plan_sizes z) {
  z.storage = z.buffers;
  z.slots = z.buffers;
  return z;
}

}  // namespace streamdsl::passes
