#pragma once
// sd::automatic: insert the records and waits that order every conflicting
// cross-stream pair. Statements are visited in program order with live vector
// clocks; an access that conflicts with an unordered access on stream t gets
// one wait for the latest such access on t (program order covers the earlier
// ones), bound to a record placed right after that access. Records are shared
// by every wait that needs the same point. O(statements x streams x reads).
#include "../detail/dyn_array.hpp"
#include "../ir/accesses.hpp"
#include "../plan/plan_arrays.hpp"
#include "lower_wait_stream.hpp"
#include "races.hpp"

namespace streamdsl::passes {

// Runs after lower_wait_stream: the input holds assigns, records and waits.
constexpr void insert_syncs(ir::program& p) {
  const auto S = p.streams.size();
  const auto view0 = ir::view_of(p);
  const detail::dyn_array<ir::statement> in = p.stmts;

  detail::dyn_array<ir::statement> out;
  detail::dyn_array<std::int32_t> seq, clock;     // per out entry: position on its stream, clock before it
  detail::dyn_array<std::int32_t> cur(S * S, 0);  // live clock of each stream
  detail::dyn_array<std::int32_t> record_after;   // per out entry: event of the sync record after it, or -1
  detail::dyn_array<std::int32_t> record_clock;   // per synthetic event (indexed by event id): its clock
  detail::dyn_array<std::int32_t> new_index(in.size(), -1);
  access_table table(p.buffers.size(), S);

  auto push = [&](const ir::statement& s) {
    auto* mine = cur.data() + static_cast<std::size_t>(s.stream) * S;
    seq.push_back(mine[s.stream]);
    for (std::size_t k = 0; k < S; ++k) clock.push_back(mine[k]);
    record_after.push_back(-1);
    ++mine[s.stream];
    out.push_back(s);
    return static_cast<std::int32_t>(out.size() - 1);
  };
  auto join = [&](std::int32_t stream, const std::int32_t* from) {
    auto* mine = cur.data() + static_cast<std::size_t>(stream) * S;
    for (std::size_t k = 0; k < S; ++k)
      if (from[k] > mine[k]) mine[k] = from[k];
  };

  for (std::size_t i = 0; i < in.size(); ++i) {
    ir::statement s = in[i];
    if (s.kind == ir::stmt_kind::wait) {
      s.binds = new_index[static_cast<std::size_t>(s.binds)];
      join(s.stream, clock.data() + static_cast<std::size_t>(s.binds) * S);
      new_index[i] = push(s);
      continue;
    }
    if (s.kind != ir::stmt_kind::assign) {
      new_index[i] = push(s);
      continue;
    }
    const auto reads = ir::reads_of(view0, s);
    for (std::int32_t t = 0; t < static_cast<std::int32_t>(S); ++t) {
      if (t == s.stream) continue;
      const auto* mine = cur.data() + static_cast<std::size_t>(s.stream) * S;
      auto before = [&](std::int32_t a) { return mine[out[a].stream] > seq[a]; };
      std::int32_t latest = unordered_conflict(table, before, s.target, t, true);
      for (auto b : reads) {
        const auto c = unordered_conflict(table, before, b, t, false);
        if (c > latest) latest = c;
      }
      if (latest < 0) continue;
      auto event = record_after[latest];
      if (event < 0) {
        event = add_synthetic_event(p, ir::event_role::automatic);
        record_after[latest] = event;
        record_clock.resize(static_cast<std::size_t>(event + 1) * S, 0);
        for (std::size_t k = 0; k < S; ++k)
          record_clock[static_cast<std::size_t>(event) * S + k] =
              clock[static_cast<std::size_t>(latest) * S + k];
        record_clock[static_cast<std::size_t>(event) * S + static_cast<std::size_t>(t)] = seq[latest] + 1;
      }
      ir::statement w{};
      w.kind = ir::stmt_kind::wait;
      w.stream = s.stream;
      w.event = event;
      w.binds = -1;  // resolved below, once the record has its place
      w.origin = -1;
      push(w);
      join(s.stream, record_clock.data() + static_cast<std::size_t>(event) * S);
    }
    new_index[i] = push(s);
    for (auto b : reads) note_access(table, b, s.stream, new_index[i], false);
    note_access(table, s.target, s.stream, new_index[i], true);
  }

  // Materialise: each sync record goes right after the access it follows.
  detail::dyn_array<ir::statement> final_list;
  detail::dyn_array<std::int32_t> final_index(out.size(), -1);
  detail::dyn_array<std::int32_t> record_index(p.events.size(), -1);
  for (std::size_t k = 0; k < out.size(); ++k) {
    final_index[k] = static_cast<std::int32_t>(final_list.size());
    final_list.push_back(out[k]);
    if (record_after[k] >= 0) {
      ir::statement r{};
      r.kind = ir::stmt_kind::record;
      r.stream = out[k].stream;
      r.event = record_after[k];
      r.origin = -1;
      record_index[static_cast<std::size_t>(r.event)] = static_cast<std::int32_t>(final_list.size());
      final_list.push_back(r);
    }
  }
  for (auto& s : final_list) {
    if (s.kind != ir::stmt_kind::wait) continue;
    s.binds = s.binds >= 0 ? final_index[static_cast<std::size_t>(s.binds)]
                           : record_index[static_cast<std::size_t>(s.event)];
  }
  p.stmts = final_list;
}

// Growth bound (passes/schedule.hpp's bounds_of): a wait before assignment
// s for stream t needs an assignment on t that touches what s writes or
// writes what s reads, so s gets at most as many waits as there are such
// assignments, and at most one per other stream; each wait is on a new event
// with its record. Counting the assignments per buffer keeps this linear
// where "one wait per other stream before each assignment" is quadratic (N
// streams joined by one statement: 3N waits at most, not N^2).
constexpr plan_sizes insert_syncs_bound(plan_sizes z, const ir::program& written) {
  const auto v = ir::view_of(written);
  detail::dyn_array<std::size_t> touching(v.buffers.size(),
                                          0);  // per buffer: assignments reading or writing it
  detail::dyn_array<std::size_t> writing(v.buffers.size(), 0);
  for (const auto& s : v.stmts) {
    if (s.kind != ir::stmt_kind::assign) continue;
    for (auto b : ir::reads_of(v, s)) ++touching[static_cast<std::size_t>(b)];
    ++touching[static_cast<std::size_t>(s.target)];
    ++writing[static_cast<std::size_t>(s.target)];
  }
  const auto other_streams = z.streams - 1;
  std::size_t waits = 0;
  for (const auto& s : v.stmts) {
    if (s.kind != ir::stmt_kind::assign) continue;
    auto n = touching[static_cast<std::size_t>(s.target)] - 1;  // s itself is not on another stream
    for (auto b : ir::reads_of(v, s)) n += writing[static_cast<std::size_t>(b)];
    waits += n < other_streams ? n : other_streams;
  }
  z.stmts += 2 * waits;
  z.events += waits;
  z.pool += synthetic_event_name_capacity * waits;
  return z;
}

}  // namespace streamdsl::passes
