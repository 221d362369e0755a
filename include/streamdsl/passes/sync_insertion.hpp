#pragma once
// sd::automatic: insert the records and waits that order every conflicting
// cross-stream pair. Statements are visited in program order with live vector
// clocks; an access that conflicts with an unordered access on stream t gets
// one wait for the latest such access on t (program order covers the earlier
// ones), bound to a record placed right after that access. Records are shared
// by every wait that needs the same point. Each buffer lists only the streams
// that touched it, so a statement costs its accesses times the streams
// touching them, plus one clock row per statement.
#include "../detail/dyn_array.hpp"
#include "../ir/accesses.hpp"
#include "../plan/plan_arrays.hpp"
#include "lower_wait_stream.hpp"
#include "statement_rebuilder.hpp"
#include "vector_clocks.hpp"

namespace streamdsl::passes {

// Per buffer, the streams that accessed it, each with its latest read and
// write: a linked list through flat arrays (one entry per buffer and stream
// that met, not a buffers x streams table).
class stream_accesses {
 public:
  explicit constexpr stream_accesses(std::size_t buffers) : head_(buffers, -1) {}

  struct entry {
    std::int32_t stream = -1;
    std::int32_t last_read = -1;
    std::int32_t last_write = -1;
    std::int32_t next = -1;
  };
  constexpr std::int32_t first(std::int32_t b) const { return head_[static_cast<std::size_t>(b)]; }
  constexpr const entry& operator[](std::int32_t e) const { return entries_[static_cast<std::size_t>(e)]; }

  constexpr void note(std::int32_t b, std::int32_t stream, std::int32_t i, bool writes) {
    auto e = first(b);
    while (e >= 0 && entries_[static_cast<std::size_t>(e)].stream != stream)
      e = entries_[static_cast<std::size_t>(e)].next;
    if (e < 0) {
      entries_.push_back({stream, -1, -1, first(b)});
      e = static_cast<std::int32_t>(entries_.size() - 1);
      head_[static_cast<std::size_t>(b)] = e;
    }
    auto& x = entries_[static_cast<std::size_t>(e)];
    (writes ? x.last_write : x.last_read) = i;
  }

 private:
  detail::dyn_array<std::int32_t> head_;
  detail::dyn_array<entry> entries_;
};

// Runs after lower_wait_stream: the input holds assigns, records and waits.
constexpr void insert_syncs(ir::program& p) {
  const auto S = p.streams.size();
  const auto view0 = ir::view_of(p);
  const auto& in = p.stmts;  // replaced only at the end

  statement_rebuilder out(in.size());            // `in` with the waits, not yet the records
  vector_clocks clocks(S, in.size());            // per out entry
  detail::dyn_array<std::int32_t> record_after;  // per out entry: event of the sync record after it, or -1
  detail::dyn_array<std::int32_t> record_clock;  // per synthetic event (indexed by event id): its clock
  detail::dyn_array<bool> is_touched(S, false);  // per stream: listed in `touched`
  detail::dyn_array<std::int32_t> candidates;    // per stream, chained: accesses that may conflict
  detail::dyn_array<std::int32_t> candidate_next;
  detail::dyn_array<std::int32_t> head(S, -1);  // per stream: its first candidate
  detail::dyn_array<std::int32_t> touched;      // streams with candidates
  stream_accesses table(p.buffers.size());

  auto push = [&](std::int32_t old, const ir::statement& s) {
    record_after.push_back(-1);
    clocks.append(s.stream);
    return old >= 0 ? out.copy(old, s) : out.add(s);
  };
  // Lists, under each other stream, its accesses to buffer b that an access
  // of this statement conflicts with: its latest write, and its latest read
  // when this statement writes b.
  auto gather = [&](std::int32_t b, std::int32_t self, bool writes) {
    for (auto e = table.first(b); e >= 0; e = table[e].next) {
      const auto& x = table[e];
      if (x.stream == self) continue;
      const std::int32_t found[2] = {x.last_write, writes ? x.last_read : -1};
      for (auto a : found) {
        if (a < 0) continue;
        if (!is_touched[static_cast<std::size_t>(x.stream)]) {
          touched.push_back(x.stream);
          is_touched[static_cast<std::size_t>(x.stream)] = true;
        }
        candidates.push_back(a);
        candidate_next.push_back(head[static_cast<std::size_t>(x.stream)]);
        head[static_cast<std::size_t>(x.stream)] = static_cast<std::int32_t>(candidates.size() - 1);
      }
    }
  };

  for (std::int32_t i = 0; i < static_cast<std::int32_t>(in.size()); ++i) {
    ir::statement s = in[static_cast<std::size_t>(i)];
    if (s.kind == ir::stmt_kind::wait) {
      const auto record = out.new_index(s.binds);
      push(i, s);
      clocks.join(s.stream, clocks.clock_of(record));
      continue;
    }
    if (s.kind != ir::stmt_kind::assign) {
      push(i, s);
      continue;
    }
    const auto reads = ir::reads_of(view0, s);
    for (auto b : reads) gather(b, s.stream, false);
    gather(s.target, s.stream, true);
    // Streams in ascending order, as a wait for one may make a later one's
    // conflict known: sort the few, or scan them all when many.
    if (touched.size() * touched.size() <= S) {
      for (std::size_t a = 1; a < touched.size(); ++a)
        for (std::size_t c = a; c > 0 && touched[c] < touched[c - 1]; --c) {
          const auto x = touched[c];
          touched[c] = touched[c - 1];
          touched[c - 1] = x;
        }
    } else {
      touched.clear();
      for (std::int32_t t = 0; t < static_cast<std::int32_t>(S); ++t)
        if (is_touched[static_cast<std::size_t>(t)]) touched.push_back(t);
    }
    for (auto t : touched) {
      std::int32_t found = -1;
      for (auto c = head[static_cast<std::size_t>(t)]; c >= 0;
           c = candidate_next[static_cast<std::size_t>(c)]) {
        const auto a = candidates[static_cast<std::size_t>(c)];
        if (a > found && !clocks.counts(clocks.live(s.stream), a)) found = a;
      }
      head[static_cast<std::size_t>(t)] = -1;
      is_touched[static_cast<std::size_t>(t)] = false;
      if (found < 0) continue;
      auto event = record_after[static_cast<std::size_t>(found)];
      if (event < 0) {
        event = add_synthetic_event(p, ir::event_role::automatic);
        record_after[static_cast<std::size_t>(found)] = event;
        record_clock.resize(static_cast<std::size_t>(event + 1) * S, 0);
        auto* rc = record_clock.data() + static_cast<std::size_t>(event) * S;
        const auto* at = clocks.clock_of(found);
        for (std::size_t k = 0; k < S; ++k) rc[k] = at[k];
        rc[t] = clocks.sequence(found) + 1;
      }
      ir::statement w{};
      w.kind = ir::stmt_kind::wait;
      w.stream = s.stream;
      w.event = event;
      w.binds = -1;  // resolved below, once the record has its place
      w.origin = -1;
      push(-1, w);
      clocks.join(s.stream, record_clock.data() + static_cast<std::size_t>(event) * S);
    }
    touched.clear();
    candidates.clear();
    candidate_next.clear();
    const auto at = push(i, s);
    for (auto b : reads) table.note(b, s.stream, at, false);
    table.note(s.target, s.stream, at, true);
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
// before assignment s for stream t needs an assignment on t that touches what
// s writes or writes what s reads, so s gets at most one wait per such other
// assignment, and at most one per other stream. Counting the assignments per
// buffer keeps this linear where "one wait per other stream before each
// assignment" is quadratic (N streams joined by one statement: 2N waits at
// most, not N^2, which made the plan's arrays reserve O(N^2) statements and
// notes).
constexpr std::size_t max_inserted_waits(const ir::program& p) {
  const auto v = ir::view_of(p);
  // Per buffer: the assignments reading or writing it, and those writing it.
  detail::dyn_array<std::size_t> touching(v.buffers.size(), 0);
  detail::dyn_array<std::size_t> writing(v.buffers.size(), 0);
  for (const auto& s : v.stmts) {
    if (s.kind != ir::stmt_kind::assign) continue;
    for (auto b : ir::reads_of(v, s)) ++touching[static_cast<std::size_t>(b)];
    ++touching[static_cast<std::size_t>(s.target)];
    ++writing[static_cast<std::size_t>(s.target)];
  }
  const auto other_streams = v.streams.size() - 1;
  std::size_t waits = 0;
  for (const auto& s : v.stmts) {
    if (s.kind != ir::stmt_kind::assign) continue;
    auto n = touching[static_cast<std::size_t>(s.target)] - 1;  // s itself is not on another stream
    for (auto b : ir::reads_of(v, s)) n += writing[static_cast<std::size_t>(b)];
    waits += n < other_streams ? n : other_streams;
  }
  return waits;
}

// Growth bound (passes/schedule.hpp's bounds_of): max_inserted_waits waits,
// each with its record (one statement more) on a new event, whose name is
// interned into the pool.
constexpr plan_sizes insert_syncs_bound(plan_sizes z, const ir::program& written) {
  const auto waits = max_inserted_waits(written);
  z.stmts += 2 * waits;
  z.events += waits;
  z.pool += synthetic_event_name_capacity * waits;
  return z;
}

}  // namespace streamdsl::passes
