#pragma once
// sd::automatic: insert the records and waits that order every conflicting
// cross-stream pair. The walk is find_races's (conflicts.hpp): an access that
// conflicts with an unordered access on stream t gets one wait for the latest
// such access on t (program order covers the earlier ones), bound to a record
// placed right after that access. Records are shared by every wait that needs
// the same point.
#include "../detail/dyn_array.hpp"
#include "../ir/accesses.hpp"
#include "../plan/plan_arrays.hpp"
#include "conflicts.hpp"
#include "lower_wait_stream.hpp"
#include "statement_rebuilder.hpp"

namespace streamdsl::passes {

// Runs after lower_wait_stream: the input holds assigns, records and waits.
template <class = void>
constexpr void insert_syncs(ir::program& p) {
  const auto view0 = ir::view_of(p);
  const auto& in = p.stmts;  // replaced only at the end

  statement_rebuilder out(in.size());      // `in` with the waits, not yet the records
  conflict_walker walk(view0, in.size());  // over out's entries
  auto& clocks = walk.clocks();
  detail::dyn_array<std::int32_t> record_after;  // per out entry: event of the sync record after it, or -1

  auto push = [&](std::int32_t old, const ir::statement& s) {
    record_after.push_back(-1);
    clocks.append(s.stream);
    return old >= 0 ? out.copy(old, s) : out.add(s);
  };

  for (std::int32_t i = 0; i < static_cast<std::int32_t>(in.size()); ++i) {
    ir::statement s = in[static_cast<std::size_t>(i)];
    if (s.kind == ir::stmt_kind::wait) {
      const auto record = out.new_index(s.binds);
      push(i, s);
      clocks.join(s.stream, clocks.clock_of(record));
      continue;
    }
    if (!ir::accesses_buffers(s.kind)) {
      push(i, s);
      continue;
    }
    const auto reads = ir::reads_of(view0, s);
    const auto writes = ir::writes_of(view0, s);
    walk.find(s.stream, reads, writes);
    // Waits in ascending stream order, as a wait for one may make a later
    // one's conflict known.
    walk.sync(s.stream, sync_order::by_stream, [&](const conflict& c) {
      auto event = record_after[static_cast<std::size_t>(c.access)];
      if (event < 0) {
        event = add_synthetic_event(p, ir::event_role::automatic);
        record_after[static_cast<std::size_t>(c.access)] = event;
      }
      ir::statement w{};
      w.kind = ir::stmt_kind::wait;
      w.stream = s.stream;
      w.event = event;
      w.binds = -1;  // resolved below, once the record has its place
      w.origin = -1;
      push(-1, w);
    });
    const auto at = push(i, s);
    walk.note(s.stream, reads, writes, at);
  }

  // Materialise: each sync record goes right after the access it follows.
  const auto listed = out.finish();
  statement_rebuilder final_list(listed.size());
  detail::dyn_array<std::int32_t> record_index(p.events.size(), -1);
  for (std::int32_t k = 0; k < static_cast<std::int32_t>(listed.size()); ++k) {
    auto s = listed[static_cast<std::size_t>(k)];
    if (s.kind == ir::stmt_kind::wait && s.binds < 0) {  // inserted: its record is already placed
      s.binds = record_index[static_cast<std::size_t>(s.event)];
      final_list.add(s);
    } else {
      final_list.copy(k, s);
    }
    if (const auto event = record_after[static_cast<std::size_t>(k)]; event >= 0) {
      ir::statement r{};
      r.kind = ir::stmt_kind::record;
      r.stream = s.stream;
      r.event = event;
      r.origin = -1;
      record_index[static_cast<std::size_t>(event)] = final_list.add(r);
    }
  }
  p.stmts = final_list.finish();
}

// At most how many waits insert_syncs adds to program `p` (as built): a wait
// before statement s for stream t needs a statement on t that touches what
// s writes or writes what s reads, so s gets at most one wait per such other
// statement, and at most one per other stream (counted per buffer, whatever
// the regions: an upper bound). Counting the assignments per
// buffer keeps this linear where "one wait per other stream before each
// assignment" is quadratic (N streams joined by one statement: 2N waits at
// most, not N^2, which made the plan's arrays reserve O(N^2) statements and
// notes).
template <class = void>
constexpr std::size_t max_inserted_waits(const ir::program& p) {
  const auto v = ir::view_of(p);
  // Per buffer: the assignments reading or writing it, and those writing it.
  detail::dyn_array<std::size_t> touching(v.buffers.size(), 0);
  detail::dyn_array<std::size_t> writing(v.buffers.size(), 0);
  for (const auto& s : v.stmts) {
    for (const auto& r : ir::reads_of(v, s)) ++touching[static_cast<std::size_t>(r.buffer)];
    for (const auto& r : ir::writes_of(v, s)) {
      ++touching[static_cast<std::size_t>(r.buffer)];
      ++writing[static_cast<std::size_t>(r.buffer)];
    }
  }
  const auto other_streams = v.streams.size() - 1;
  std::size_t waits = 0;
  for (const auto& s : v.stmts) {
    if (!ir::accesses_buffers(s.kind)) continue;
    std::size_t n = 0;
    for (const auto& r : ir::writes_of(v, s)) n += touching[static_cast<std::size_t>(r.buffer)] - 1;
    for (const auto& r : ir::reads_of(v, s)) n += writing[static_cast<std::size_t>(r.buffer)];
    waits += n < other_streams ? n : other_streams;
  }
  return waits;
}

// Growth bound (passes/schedule.hpp's bounds_of): max_inserted_waits waits,
// each with its record (one statement more) on a new event, whose name is
// interned into the pool.
template <class = void>
constexpr plan_sizes insert_syncs_bound(plan_sizes z, const ir::program& written) {
  const auto waits = max_inserted_waits(written);
  z.stmts += 2 * waits;
  z.events += waits;
  z.pool += synthetic_event_name_capacity * waits;
  return z;
}

}  // namespace streamdsl::passes
