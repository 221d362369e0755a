#pragma once
// Race detection: two accesses to one buffer on different streams, at least
// one a write, that happens-before leaves unordered. Tracking the latest read
// and write of each buffer on each stream is enough (program order orders the
// earlier ones), so this is O(statements x streams).

#include "../detail/text.hpp"
#include "../ir/accesses.hpp"
#include "../ir/describe.hpp"
#include "../ir/render.hpp"
#include "happens_before.hpp"

namespace streamdsl::passes {

struct race {
  std::int32_t buffer = -1;
  std::int32_t first = -1;   // earlier statement (index in the list analysed)
  std::int32_t second = -1;  // later statement
  bool first_writes = false;
  bool second_writes = false;
};

// Per buffer and stream, the latest statement reading and writing it.
class access_table {
 public:
  constexpr access_table(std::size_t buffers, std::size_t streams)
      : streams_(streams), last_read_(buffers * streams, -1), last_write_(buffers * streams, -1) {}
  constexpr std::int32_t& read(std::int32_t b, std::int32_t s) { return last_read_[at(b, s)]; }
  constexpr std::int32_t& write(std::int32_t b, std::int32_t s) { return last_write_[at(b, s)]; }
  constexpr std::size_t streams() const { return streams_; }

 private:
  constexpr std::size_t at(std::int32_t b, std::int32_t s) const {
    return static_cast<std::size_t>(b) * streams_ + static_cast<std::size_t>(s);
  }
  std::size_t streams_;
  detail::dyn_array<std::int32_t> last_read_, last_write_;
};

// The latest access to `buffer` on stream `t` that conflicts with an access
// by statement i (a write conflicts with everything, a read with writes) and
// is not ordered before i; -1 when there is none.
// `before(a)` says whether statement a is ordered before the access.
template <class OrderedBefore>
constexpr std::int32_t unordered_conflict(access_table& table, OrderedBefore before, std::int32_t buffer,
                                          std::int32_t t, bool writes) {
  std::int32_t found = -1;
  const auto w = table.write(buffer, t);
  if (w >= 0 && !before(w)) found = w;
  if (writes) {
    const auto r = table.read(buffer, t);
    if (r >= 0 && !before(r) && r > found) found = r;
  }
  return found;
}

constexpr void note_access(access_table& table, std::int32_t buffer, std::int32_t s, std::int32_t i,
                           bool writes) {
  (writes ? table.write(buffer, s) : table.read(buffer, s)) = i;
}

// Races by second statement, then by first.
using race_list = detail::dyn_array<race>;

// The races of a program, each one a user must fix with its own sync.
// Statements are visited in program order with live vector clocks, as
// sync_insertion does: for each statement and each other stream, the latest
// access there that conflicts with it and is unordered is a race (a sync
// after that access and before the statement orders every earlier one too,
// for every buffer). Each race found is then taken as fixed by such a sync,
// so that what the fix would also order is not reported again: one missing
// wait is one race, not one per statement that reads the buffer. Every race
// listed is a race of the program as written. O(statements x streams x reads).
// Stops after `limit` races (find_race needs the first only).
constexpr race_list find_races(const ir::program_view& p, std::size_t limit = static_cast<std::size_t>(-1)) {
  race_list out;
  const auto S = p.streams.size();
  detail::dyn_array<std::int32_t> seq(p.stmts.size(), 0), clock(p.stmts.size() * S, 0);
  detail::dyn_array<std::int32_t> cur(S * S, 0);  // live clock of each stream
  access_table table(p.buffers.size(), S);
  auto join = [&](std::int32_t* into, const std::int32_t* from) {
    for (std::size_t k = 0; k < S; ++k)
      if (from[k] > into[k]) into[k] = from[k];
  };
  detail::dyn_array<race> found;  // the current statement's races
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.stmts.size()); ++i) {
    const auto& s = p.stmts[i];
    auto* mine = cur.data() + static_cast<std::size_t>(s.stream) * S;
    auto before = [&](std::int32_t a) { return mine[p.stmts[a].stream] > seq[a]; };
    found.clear();
    if (s.kind == ir::stmt_kind::assign) {
      const auto reads = ir::reads_of(p, s);
      for (std::int32_t t = 0; t < static_cast<std::int32_t>(S); ++t) {
        if (t == s.stream) continue;
        race latest{};
        auto check = [&](std::int32_t b, bool writes) {
          const auto other = unordered_conflict(table, before, b, t, writes);
          if (other > latest.first) latest = race{b, other, i, table.write(b, t) == other, writes};
        };
        for (auto b : reads) check(b, false);
        check(s.target, true);
        if (latest.buffer >= 0) found.push_back(latest);
      }
      // Latest first: its fix may order the others (through syncs the
      // program already has), which are then no races of their own.
      for (std::size_t a = 1; a < found.size(); ++a)
        for (std::size_t b = a; b > 0 && found[b - 1].first < found[b].first; --b) {
          const auto r = found[b];
          found[b] = found[b - 1];
          found[b - 1] = r;
        }
      std::size_t kept = 0;
      for (std::size_t k = 0; k < found.size(); ++k) {
        const auto a = found[k].first;
        if (before(a)) continue;
        join(mine, clock.data() + static_cast<std::size_t>(a) * S);
        const auto from = static_cast<std::size_t>(p.stmts[a].stream);
        if (seq[a] + 1 > mine[from]) mine[from] = seq[a] + 1;
        found[kept++] = found[k];
      }
      for (std::size_t k = kept; k-- > 0 && out.size() < limit;) out.push_back(found[k]);
      if (out.size() >= limit) break;
      for (auto b : reads) note_access(table, b, s.stream, i, false);
      note_access(table, s.target, s.stream, i, true);
    }
    // The clock is taken before a wait's own effect, as in happens_before.
    seq[i] = mine[s.stream];
    for (std::size_t k = 0; k < S; ++k) clock[static_cast<std::size_t>(i) * S + k] = mine[k];
    if (s.kind == ir::stmt_kind::wait && s.binds >= 0)
      join(mine, clock.data() + static_cast<std::size_t>(s.binds) * S);
    if (s.kind == ir::stmt_kind::wait_stream) join(mine, cur.data() + static_cast<std::size_t>(s.other) * S);
    ++mine[s.stream];
  }
  return out;
}

// The first race in program order; buffer == -1 when there is none.
constexpr race find_race(const ir::program_view& p) {
  auto list = find_races(p, 1);
  return list.empty() ? race{} : list[0];
}

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
constexpr std::int32_t user_index(const ir::program_view& p, std::int32_t i) {
  return p.stmts[i].origin >= 0 ? p.stmts[i].origin : i;
}

// A user event whose latest record before statement `before` is on `stream`
// after statement `after`: waiting on it there orders the race. -1 if none.
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

constexpr void automatic_hint(bool brief, bool several, detail::text& t) {
  t << (brief     ? "; or use sd::program<sd::automatic>(...)"
        : several ? "; or build with sd::program<sd::automatic>(...) to insert the syncs"
                  : "; or build with sd::program<sd::automatic>(...) to insert the sync");
}

constexpr detail::text describe_race(const ir::program_view& p, const race& r, std::size_t code_limit,
                                     bool brief) {
  detail::text t;
  describe_race_body(p, r, code_limit, brief, t);
  automatic_hint(brief, false, t);
  return t;
}

// "'v' written by #3 on 'side', read by #4 on 'main'": a further race of a
// message that describes the first in full (its fix says how to fix this).
constexpr void describe_race_briefly(const ir::program_view& p, const race& r, detail::text& t) {
  t << '\'' << p.buffer_name(r.buffer) << (r.first_writes ? "' written by #" : "' read by #")
    << user_index(p, r.first) << " on '" << p.stream_name(p.stmts[r.first].stream)
    << (r.second_writes ? "', written by #" : "', read by #") << user_index(p, r.second) << " on '"
    << p.stream_name(p.stmts[r.second].stream) << '\'';
}

// Several races: the count, the first in full, then as many of the others as
// fit, briefly, and how many more there are.
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
constexpr detail::text describe_races(const ir::program_view& p, const race_list& list) {
  if (list.size() == 1) return describe_race(p, list[0]);
  for (const auto& a : race_details) {
    auto t = describe_races(p, list, a.code_limit, a.brief, false);
    if (t.size() <= diag::message_capacity) return t;
  }
  return diag::fit_message(describe_races(p, list, 16, true, true));
}

}  // namespace streamdsl::passes
