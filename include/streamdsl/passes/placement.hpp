#pragma once
// Placement: temps belong to the compiler. A kernel whose statements write
// only temps, all read by one kernel of the same domain on another stream,
// is computed inside that kernel: its statements move there, its temps stay
// in registers, and the sync that guarded it is dropped when nothing needs it
// any more (two chains on two streams joined by `out = a + b` become one
// kernel). Under sd::relaxed, kernels writing outputs and inouts may move the
// same way (the seed's y and z in one kernel). Under sd::as_written nothing
// moves, and the plan's notes say so.
//
// A move is kept only when it cannot change a result: nothing between the
// two places in program order writes what the moved statements read or
// touches what they write, and the program after the move is race-free (a
// race-free program gives its program-order result under every schedule,
// because happens-before only runs forward in program order).
#include "../detail/text.hpp"
#include "../ir/accesses.hpp"
#include "../ir/render.hpp"
#include "../plan/plan_model.hpp"
#include "erase_statements.hpp"
#include "fusion.hpp"
#include "happens_before.hpp"
#include "options.hpp"
#include "races.hpp"
#include "statement_rebuilder.hpp"

namespace streamdsl::passes {

// Moves statements `moved` (ascending indices) to just before statement
// `before` (not among them), onto stream `stream`; waits stay bound.
template <class = void>
constexpr void move_statements(detail::dyn_array<ir::statement>& stmts,
                               const detail::dyn_array<std::int32_t>& moved, std::int32_t before,
                               std::int32_t stream) {
  const auto n = stmts.size();
  detail::dyn_array<bool> is_moved(n, false);
  for (auto i : moved) is_moved[static_cast<std::size_t>(i)] = true;
  statement_rebuilder out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (static_cast<std::int32_t>(i) == before)
      for (auto m : moved) {
        auto s = stmts[static_cast<std::size_t>(m)];
        s.stream = stream;
        out.copy(m, s);
      }
    if (!is_moved[i]) out.copy(static_cast<std::int32_t>(i), stmts[i]);
  }
  stmts = out.finish();
}

struct move_candidate {
  std::int32_t producer = -1;  // kernel index in the partition
  std::int32_t consumer = -1;
};

// Per buffer, the first three distinct kernels or steps that read it (or
// write it, for a temp): enough to tell whether one kernel besides a
// producer does. A step counts as a user numbered after the kernels, so a
// temp a step touches is never computed inside a kernel.
class buffer_users {
 public:
  constexpr buffer_users(const ir::program_view& p, const kernel_partition& parts)
      : users_(p.buffers.size() * width, -1) {
    for (std::size_t i = 0; i < p.stmts.size(); ++i) {
      const auto& s = p.stmts[i];
      if (s.kind == ir::stmt_kind::step) {
        const auto step = static_cast<std::int32_t>(parts.kernels.size() + i);
        for (const auto& r : ir::reads_of(p, s)) add(r.buffer, step);
        for (const auto& r : ir::writes_of(p, s)) add(r.buffer, step);
        continue;
      }
      const auto kernel = parts.kernel_of[i];
      if (kernel < 0) continue;
      for (const auto& r : ir::reads_of(p, s)) add(r.buffer, kernel);
      if (p.buffers[s.target].kind == ir::access::temp) add(s.target, kernel);
    }
  }
  // The one kernel other than k using buffer b: -1 for none, -2 for several.
  constexpr std::int32_t other_than(std::int32_t b, std::int32_t k) const {
    std::int32_t found = -1;
    for (std::size_t j = 0; j < width; ++j) {
      const auto u = users_[static_cast<std::size_t>(b) * width + j];
      if (u < 0 || u == k) continue;
      if (found >= 0) return -2;
      found = u;
    }
    return found;
  }

 private:
  static constexpr std::size_t width = 3;
  constexpr void add(std::int32_t b, std::int32_t kernel) {
    auto* row = users_.data() + static_cast<std::size_t>(b) * width;
    for (std::size_t j = 0; j < width; ++j) {
      if (row[j] == kernel) return;
      if (row[j] < 0) {
        row[j] = kernel;
        return;
      }
    }
  }
  detail::dyn_array<std::int32_t> users_;
};

// The single kernel reading what `k` writes, if the move is worth checking.
template <class = void>
constexpr move_candidate find_consumer(const ir::program_view& p, const kernel_partition& parts,
                                       const buffer_users& users, std::int32_t k, placement_policy policy) {
  const auto& producer = parts.kernels[static_cast<std::size_t>(k)];
  const auto mine = parts.stmts.data() + producer.first;
  std::int32_t consumer = -1;
  for (std::int32_t j = 0; j < producer.count; ++j) {
    const auto target = p.stmts[mine[j]].target;
    if (p.buffers[target].kind != ir::access::temp && policy == placement_policy::strict) return {};
    const auto user = users.other_than(target, k);
    if (user == -2 || (user >= 0 && consumer >= 0 && user != consumer))
      return {};  // read by two kernels: keep it materialised
    if (user >= 0) consumer = user;
  }
  if (consumer < 0 || consumer >= static_cast<std::int32_t>(parts.kernels.size()))
    return {};  // none, or a step
  const auto& c = parts.kernels[static_cast<std::size_t>(consumer)];
  if (c.stream == producer.stream || c.domain != producer.domain || c.parts != producer.parts) return {};
  if (parts.stmts[static_cast<std::size_t>(c.first)] < mine[0]) return {};
  return {k, consumer};
}

// The buffers some statements read and write, and whether another statement
// conflicts with them (writes what they touch, or reads what they write).
class access_sets {
 public:
  explicit constexpr access_sets(std::size_t buffers) : read_(buffers, false), written_(buffers, false) {}
  // Whole buffers: a move is judged per buffer, whatever the regions. (The
  // accesses are indexed in place, not through reads_of and writes_of: this
  // runs for every statement of every candidate move.)
  constexpr void add(const ir::program_view& p, const ir::statement& s) {
    const auto* a = p.accesses.data() + s.accesses_first;
    for (std::int32_t i = 0; i < s.reads_count; ++i) read_[static_cast<std::size_t>(a[i].buffer)] = true;
    for (std::int32_t i = s.reads_count; i < s.reads_count + s.writes_count; ++i)
      written_[static_cast<std::size_t>(a[i].buffer)] = true;
  }
  constexpr bool conflicts(const ir::program_view& p, const ir::statement& s) const {
    const auto* a = p.accesses.data() + s.accesses_first;
    for (std::int32_t i = 0; i < s.reads_count; ++i)
      if (written_[static_cast<std::size_t>(a[i].buffer)]) return true;
    for (std::int32_t i = s.reads_count; i < s.reads_count + s.writes_count; ++i)
      if (read_[static_cast<std::size_t>(a[i].buffer)] || written_[static_cast<std::size_t>(a[i].buffer)])
        return true;
    return false;
  }

 private:
  detail::dyn_array<bool> read_, written_;
};

// Whether moving the producer's statements to just before the consumer's
// first statement `to` keeps every result. Two conditions on the statements
// that conflict with the moved ones:
// - none lies between the two places in program order (each value the moved
//   statements read, and each they leave for others, stays the same);
// - the program stays race-free. Only pairs with a moved statement need
//   checking: moving work changes no sync and no other statement's place
//   among the syncs of its stream, so happens-before between the others stays
//   as it was; a moved statement sits right before `to` on the consumer's
//   stream with no sync between, so it is ordered exactly as `to` is.
template <class = void>
constexpr bool move_is_safe(const ir::program_view& p, const happens_before& hb,
                            const kernel_partition& parts, move_candidate c) {
  const auto& producer = parts.kernels[static_cast<std::size_t>(c.producer)];
  const auto first = parts.stmts[static_cast<std::size_t>(producer.first)];
  const auto to =
      parts.stmts[static_cast<std::size_t>(parts.kernels[static_cast<std::size_t>(c.consumer)].first)];
  access_sets moved(p.buffers.size());
  for (std::int32_t j = 0; j < producer.count; ++j)
    moved.add(p, p.stmts[parts.stmts[static_cast<std::size_t>(producer.first + j)]]);
  for (std::int32_t x = 0; x < static_cast<std::int32_t>(p.stmts.size()); ++x) {
    const auto& s = p.stmts[x];
    if (s.kind > ir::stmt_kind::step || parts.kernel_of[static_cast<std::size_t>(x)] == c.producer) continue;
    if (!moved.conflicts(p, s)) continue;
    if (x >= first && x < to) return false;
    if (x < to ? !hb.ordered(x, to) : (x != to && !hb.ordered(to, x))) return false;
  }
  return true;
}

template <class = void>
constexpr void note_move(plan_model& m, const ir::program& before, const kernel_partition& parts,
                         move_candidate c) {
  const auto v = ir::view_of(before);
  const auto& producer = parts.kernels[static_cast<std::size_t>(c.producer)];
  const auto& consumer = parts.kernels[static_cast<std::size_t>(c.consumer)];
  detail::text t;
  t << "moved ";
  for (std::int32_t j = 0; j < producer.count; ++j) {
    if (j > 0) t << "; ";
    t << '`';
    ir::render_statement(v, v.stmts[parts.stmts[static_cast<std::size_t>(producer.first + j)]], t);
    t << '`';
  }
  t << " from stream '" << v.stream_name(producer.stream) << "' into the kernel on '"
    << v.stream_name(consumer.stream) << "' that reads "
    << (producer.count == 1 ? "its result" : "their results") << ": computed where it is used";
  m.note(t);
}

// Whether wait w orders some conflicting pair: a statement it makes known to
// its stream (one before its record, not known before the wait) and a
// statement after the wait that conflicts with it. When it orders none,
// dropping it cannot create a race. When it does, the wait is kept even if
// another path also orders the pair (remove_redundant_waits drops the waits
// that other syncs imply): keeping a sync is always safe, and a full race
// check per wait made this pass the scheduler's most expensive step.
template <class = void>
constexpr bool orders_a_conflict(const ir::program_view& p, const happens_before& hb, std::int32_t w) {
  const auto record = p.stmts[w].binds;
  access_sets made_known(p.buffers.size());
  bool any = false;
  for (std::int32_t a = 0; a < record; ++a) {
    const auto& s = p.stmts[a];
    if (s.kind > ir::stmt_kind::step || !hb.ordered(a, record) || hb.ordered(a, w)) continue;
    made_known.add(p, s);
    any = true;
  }
  if (!any) return false;
  for (std::int32_t x = w + 1; x < static_cast<std::int32_t>(p.stmts.size()); ++x) {
    const auto& s = p.stmts[x];
    if (s.kind <= ir::stmt_kind::step && hb.ordered(w, x) && made_known.conflicts(p, s)) return true;
  }
  return false;
}

// Drops the waits that moving work may have made useless, when they no
// longer order a conflict: those bound to a record on a stream that lost work
// (what they waited for moved away) and those issued on a stream that lost
// all its work (what they held back moved away). A stream left with no statements then gets no
// entry or exit edge either (lower_to_ops), and records nothing waits for go
// in remove_redundant_waits.
template <class = void>
constexpr void drop_unneeded_waits(plan_model& m, const detail::dyn_array<bool>& emptied_stream) {
  bool any = false;
  for (auto e : emptied_stream) any = any || e;
  if (!any) return;  // the common case: no happens-before to build
  // Waits issued on a stream that lost work are looked at only when it has
  // no work left: where work remains, its waits almost always still order
  // it, and judging each one costs two scans of the program (this pass was
  // the costliest step of a 200-statement program under nvcc).
  detail::dyn_array<bool> idle(emptied_stream.size(), true);
  for (const auto& s : m.ir.stmts)
    if (ir::accesses_buffers(s.kind)) idle[static_cast<std::size_t>(s.stream)] = false;
  happens_before hb(m.ir.stmts, m.ir.streams.size());
  for (std::size_t i = m.ir.stmts.size(); i-- > 0;) {
    const auto& w = m.ir.stmts[i];
    if (w.kind != ir::stmt_kind::wait) continue;
    const auto on = static_cast<std::size_t>(w.stream);
    if (!emptied_stream[static_cast<std::size_t>(m.ir.stmts[static_cast<std::size_t>(w.binds)].stream)] &&
        !(emptied_stream[on] && idle[on]))
      continue;
    if (orders_a_conflict(ir::view_of(m.ir), hb, static_cast<std::int32_t>(i))) continue;
    detail::text t;
    t << "removed ";
    ir::describe_sync(ir::view_of(m.ir), static_cast<std::int32_t>(i), t);
    t << ": nothing it ordered is left after moving work";
    m.note(t);
    detail::dyn_array<bool> drop(m.ir.stmts.size(), false);
    drop[i] = true;
    erase_statements(m.ir.stmts, drop);
    hb = happens_before(m.ir.stmts, m.ir.streams.size());
  }
}

template <class = void>
constexpr void place_work(plan_model& m, options o) {
  if (o.placement == placement_policy::as_written) {
    detail::text t;
    t << "placement as written (sd::as_written): every statement runs on the stream it was written on";
    m.note(t);
    return;
  }
  if (o.sync == sync_policy::unchecked) return;  // moves are proven safe with the race check
  detail::dyn_array<bool> emptied(m.ir.streams.size(), false);
  // Kernels are examined in issue order. After a move the partition is
  // rebuilt and the scan resumes at the same index: the kernels before it
  // were examined already (a move only merges later work into a later
  // kernel), which keeps this pass near-linear in the number of kernels.
  bool changed = true;
  std::int32_t resume = 0;
  while (changed) {
    changed = false;
    const auto v = ir::view_of(m.ir);
    const auto parts = fuse_runs(v, o.fusion);
    const happens_before hb(v.stmts, v.streams.size());
    const buffer_users users(v, parts);
    for (std::int32_t k = resume; k < static_cast<std::int32_t>(parts.kernels.size()) && !changed; ++k) {
      resume = k;
      const auto c = find_consumer(v, parts, users, k, o.placement);
      if (c.producer < 0 || !move_is_safe(v, hb, parts, c)) continue;
      // The note quotes the statements before they move; the list is then
      // rebuilt in place (no trial copy: the move was proven safe above).
      note_move(m, m.ir, parts, c);
      const auto& producer = parts.kernels[static_cast<std::size_t>(k)];
      detail::dyn_array<std::int32_t> moved;
      for (std::int32_t j = 0; j < producer.count; ++j)
        moved.push_back(parts.stmts[static_cast<std::size_t>(producer.first + j)]);
      const auto& consumer = parts.kernels[static_cast<std::size_t>(c.consumer)];
      move_statements(m.ir.stmts, moved, parts.stmts[static_cast<std::size_t>(consumer.first)],
                      consumer.stream);
      emptied[static_cast<std::size_t>(producer.stream)] = true;
      changed = true;
    }
  }
  drop_unneeded_waits(m, emptied);
}

// Growth bound (passes/schedule.hpp's bounds_of): moves and drops
// statements, adds none; the notes of its moves and drops are counted by
// notes_bound (plan_model.hpp), its one note about the whole plan
// (sd::as_written) here.
template <class = void>
constexpr plan_sizes place_work_bound(plan_sizes z) {
  z.notes += 1;
  z.pool += note_capacity;
  return z;
}

}  // namespace streamdsl::passes
