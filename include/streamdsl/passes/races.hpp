#pragma once
// Race detection: two accesses to one buffer on different streams, at least
// one a write, that happens-before leaves unordered. Tracking the latest read
// and write of each buffer on each stream is enough (program order orders the
// earlier ones): the walk of conflicts.hpp, O(statements x streams).

#include "../detail/text.hpp"
#include "../ir/accesses.hpp"
#include "../ir/describe.hpp"
#include "../ir/render.hpp"
#include "conflicts.hpp"

namespace streamdsl::passes {

struct race {
  std::int32_t buffer = -1;
  std::int32_t first = -1;   // earlier statement (index in the list analysed)
  std::int32_t second = -1;  // later statement
  bool first_writes = false;
  bool second_writes = false;
};

// Races by second statement, then by first.
using race_list = detail::dyn_array<race>;

// The races of a program, each one a user must fix with its own sync: the
// conflicts of the walk insert_syncs makes too (conflicts.hpp), latest first,
// each taken as fixed by a sync after its first access, so that what the fix
// would also order is not reported again: one missing wait is one race, not
// one per statement that reads the buffer. Every race listed is a race of the
// program as written. Stops after `limit` races (find_race needs the first
// only).
template <class = void>
constexpr race_list find_races(const ir::program_view& p, std::size_t limit = static_cast<std::size_t>(-1)) {
  race_list out;
  conflict_walker walk(p, p.stmts.size());
  auto& clocks = walk.clocks();
  race_list found;  // the current statement's races, latest first
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.stmts.size()); ++i) {
    const auto& s = p.stmts[i];
    if (ir::accesses_buffers(s.kind)) {
      const auto reads = ir::reads_of(p, s);
      const auto writes = ir::writes_of(p, s);
      walk.find(s.stream, reads, writes);
      found.clear();
      walk.sync(s.stream, sync_order::latest_first, [&](const conflict& c) {
        found.push_back(race{c.buffer, c.access, i, c.access_writes, c.writes});
      });
      for (std::size_t k = found.size(); k-- > 0 && out.size() < limit;) out.push_back(found[k]);
      if (out.size() >= limit) break;
      walk.note(s.stream, reads, writes, i);
    }
    // The clock is taken before a wait's own effect, as in happens_before.
    clocks.append(s.stream);
    if (s.kind == ir::stmt_kind::wait && s.binds >= 0) clocks.join(s.stream, clocks.clock_of(s.binds));
    if (s.kind == ir::stmt_kind::wait_stream) clocks.join(s.stream, clocks.live(s.other));
  }
  return out;
}

// The first race in program order; buffer == -1 when there is none.
template <class = void>
constexpr race find_race(const ir::program_view& p) {
  auto list = find_races(p, 1);
  return list.empty() ? race{} : list[0];
}

template <class = void>
constexpr detail::string_view race_kind(const race& r) {
  if (r.first_writes && r.second_writes) return "write-after-write";
  if (r.first_writes) return "read-after-write";
  return "write-after-read";
}

// --- the message of a race -------------------------------------------------
// It names the buffer, both statements and the fix. When the program already
// records an event at the right place, the fix names it; when a sync between
// the two runs the wrong way (a common mix-up with wait_stream), a note says so.

// The user index of lowered statement i (wait_stream lowers to two statements
// that share the user's index).
template <class = void>
constexpr std::int32_t user_index(const ir::program_view& p, std::int32_t i) {
  return p.stmts[i].origin >= 0 ? p.stmts[i].origin : i;
}

// A user event whose latest record before statement `before` is on `stream`
// after statement `after`: waiting on it there orders the race. -1 if none.
template <class = void>
constexpr std::int32_t event_recorded_between(const ir::program_view& p, std::int32_t stream,
                                              std::int32_t after, std::int32_t before) {
  for (std::int32_t e = 0; e < static_cast<std::int32_t>(p.events.size()); ++e) {
    if (p.events[e].role != ir::event_role::user) continue;
    std::int32_t latest = -1;
    for (std::int32_t k = 0; k < before; ++k)
      if (p.stmts[k].kind == ir::stmt_kind::record && p.stmts[k].event == e) latest = k;
    if (latest > after && p.stmts[latest].stream == stream) return latest;
  }
  return -1;
}

// A wait on `waiter` between the two statements that waits for `waited`: a
// sync in the opposite direction to the one the race needs. -1 if none.
template <class = void>
constexpr std::int32_t reversed_wait(const ir::program_view& p, std::int32_t waiter, std::int32_t waited,
                                     std::int32_t after, std::int32_t before) {
  for (std::int32_t w = after + 1; w < before; ++w) {
    const auto& s = p.stmts[w];
    if (s.kind == ir::stmt_kind::wait && s.stream == waiter && s.binds >= 0 &&
        p.stmts[s.binds].stream == waited)
      return w;
  }
  return -1;
}

// A wait of `event` on `stream` before `before` that binds to a record made
// before `after` (so it cannot order statement `after`). -1 if none.
template <class = void>
constexpr std::int32_t stale_wait(const ir::program_view& p, std::int32_t event, std::int32_t stream,
                                  std::int32_t after, std::int32_t before) {
  for (std::int32_t w = before - 1; w >= 0; --w) {
    const auto& s = p.stmts[w];
    if (s.kind == ir::stmt_kind::wait && s.event == event && s.stream == stream && s.binds >= 0 &&
        s.binds < after)
      return w;
  }
  return -1;
}

// `side.wait_stream(main)` or `e.wait()` for a lowered wait statement.
template <class = void>
constexpr void quote_wait(const ir::program_view& p, std::int32_t w, detail::text& t) {
  const auto& s = p.stmts[w];
  t << '`';
  if (p.events[s.event].role == ir::event_role::wait_stream)
    t << p.stream_name(s.stream) << ".wait_stream(" << p.stream_name(p.stmts[s.binds].stream) << ')';
  else
    t << p.event_name(s.event) << ".wait()";
  t << '`';
}

// " (#1 `side.wait_stream(main)` waits the other way)" when a sync between
// the two statements runs opposite to the one the race needs.
template <class = void>
constexpr void reversed_note(const ir::program_view& p, std::int32_t from, std::int32_t to, const race& r,
                             detail::text& t) {
  if (const auto w = reversed_wait(p, from, to, r.first, r.second); w >= 0) {
    t << " (#" << user_index(p, w) << ' ';
    quote_wait(p, w, t);
    t << " waits the other way)";
  }
}

// `brief` says the fix in fewer words, for long names. Without the closing
// "or use sd::automatic" (describe_race adds it once, after every race).
template <class = void>
constexpr void describe_race_body(const ir::program_view& p, const race& r, std::size_t code_limit,
                                  bool brief, detail::text& t) {
  const auto& a = p.stmts[r.first];
  const auto& b = p.stmts[r.second];
  const auto from = p.stream_name(a.stream), to = p.stream_name(b.stream);
  const auto i = user_index(p, r.first), j = user_index(p, r.second);
  t << "race (" << race_kind(r) << ") on buffer '" << p.buffer_name(r.buffer) << "': ";
  diag::describe_statement(p, r.first, t, code_limit);
  t << (r.first_writes ? " writes it and " : " reads it and ");
  diag::describe_statement(p, r.second, t, code_limit);
  t << (r.second_writes ? " writes it" : " reads it") << ", and nothing orders them. Fix: ";
  if (const auto k = event_recorded_between(p, a.stream, r.first, r.second); k >= 0) {
    const auto e = p.event_name(p.stmts[k].event);
    const auto rec = user_index(p, k);
    t << "call `" << e << ".wait()` on '" << to << "' between #" << rec << " and #" << j
      << ", so that it binds to #" << rec << " `" << e << ".record()` on '" << from << '\'';
    if (const auto w = stale_wait(p, p.stmts[k].event, b.stream, r.first, r.second); w >= 0)
      t << " (the " << e << ".wait() at #" << user_index(p, w) << " binds to the earlier record #"
        << user_index(p, p.stmts[w].binds) << ')';
  } else if (brief) {
    t << "call `" << to << ".wait_stream(" << from << ")` between #" << i << " and #" << j;
    reversed_note(p, a.stream, b.stream, r, t);
  } else {
    t << "make '" << to << "' wait for '" << from << "' between #" << i << " and #" << j;
    reversed_note(p, a.stream, b.stream, r, t);
    t << ", e.g. `" << to << ".wait_stream(" << from << ")` or an event recorded on '" << from
      << "' and waited on '" << to << '\'';
  }
}

template <class = void>
constexpr void automatic_hint(bool brief, bool several, detail::text& t) {
  t << (brief     ? "; or use sd::program<sd::automatic>(...)"
        : several ? "; or build with sd::program<sd::automatic>(...) to insert the syncs"
                  : "; or build with sd::program<sd::automatic>(...) to insert the sync");
}

template <class = void>
constexpr detail::text describe_race(const ir::program_view& p, const race& r, std::size_t code_limit,
                                     bool brief) {
  detail::text t;
  describe_race_body(p, r, code_limit, brief, t);
  automatic_hint(brief, false, t);
  return t;
}

// "'v' written by #3 on 'side', read by #4 on 'main'": a further race of a
// message that describes the first in full (its fix says how to fix this).
template <class = void>
constexpr void describe_race_briefly(const ir::program_view& p, const race& r, detail::text& t) {
  t << '\'' << p.buffer_name(r.buffer) << (r.first_writes ? "' written by #" : "' read by #")
    << user_index(p, r.first) << " on '" << p.stream_name(p.stmts[r.first].stream)
    << (r.second_writes ? "', written by #" : "', read by #") << user_index(p, r.second) << " on '"
    << p.stream_name(p.stmts[r.second].stream) << '\'';
}

// Several races: the count, the first in full, then as many of the others as
// fit, briefly, and how many more there are.
template <class = void>
constexpr detail::text describe_races(const ir::program_view& p, const race_list& list,
                                      std::size_t code_limit, bool brief, bool may_cut) {
  const auto n = list.size();
  detail::text t;
  t << n << " races; the first: ";
  describe_race_body(p, list[0], code_limit, brief, t);
  detail::text tail;
  automatic_hint(brief, true, tail);
  for (std::size_t k = 1; k < n; ++k) {
    detail::text entry;
    // The list's lead goes with its first entry: when none fits, the count
    // follows the first race directly ("...; and 1 more"), not an empty list.
    entry << (k > 1 ? "; " : n == 2 ? "; the other: " : "; the others: ");
    describe_race_briefly(p, list[k], entry);
    // Room for this entry and, unless it is the last, for "; and N more".
    const std::size_t more = k + 1 < n ? 24 : 0;
    if (may_cut && t.size() + entry.size() + more + tail.size() > diag::message_capacity) {
      t << "; and " << (n - k) << " more";
      break;
    }
    t << entry.view();
  }
  t << tail.view();
  return t;
}

struct race_detail {
  std::size_t code_limit;
  bool brief;
};
// From the most detailed message to the shortest.
inline constexpr race_detail race_details[] = {{100, false}, {100, true}, {60, true}, {32, true}, {16, true}};

// The race as a message that fits diag::message_capacity: statement text is
// said in fewer words, then shortened, before anything is cut.
template <class = void>
constexpr detail::text describe_race(const ir::program_view& p, const race& r) {
  for (const auto& a : race_details) {
    auto t = describe_race(p, r, a.code_limit, a.brief);
    if (t.size() <= diag::message_capacity) return t;
  }
  return diag::fit_message(describe_race(p, r, 16, true));
}

// Every race of the program in one message, so that they can be fixed in one
// go: the first as describe_race says it, in the most detail that leaves room
// for all the others; when they cannot all fit, in its shortest form, with as
// many others as fit and the count of the rest.
template <class = void>
constexpr detail::text describe_races(const ir::program_view& p, const race_list& list) {
  if (list.size() == 1) return describe_race(p, list[0]);
  for (const auto& a : race_details) {
    auto t = describe_races(p, list, a.code_limit, a.brief, false);
    if (t.size() <= diag::message_capacity) return t;
  }
  return diag::fit_message(describe_races(p, list, 16, true, true));
}

}  // namespace streamdsl::passes
