#pragma once
// Race detection: two accesses to one buffer on different streams, at least
// one a write, that happens-before leaves unordered. Tracking the latest read
// and write of each buffer on each stream is enough (program order orders the
// earlier ones), so this is O(statements x streams).

#include "../detail/text.hpp"
#include "../diag/describe.hpp"
#include "../ir/accesses.hpp"
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

// The first race in program order; buffer == -1 when there is none.
constexpr race find_race(const ir::program_view& p, const happens_before& hb) {
  if (p.stmts.empty()) return {};
  access_table table(p.buffers.size(), p.streams.size());
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.stmts.size()); ++i) {
    const auto& s = p.stmts[i];
    if (s.kind != ir::stmt_kind::assign) continue;
    const auto reads = ir::reads_of(p, s);
    auto check = [&](std::int32_t b, bool writes) -> race {
      for (std::int32_t t = 0; t < static_cast<std::int32_t>(p.streams.size()); ++t) {
        if (t == s.stream) continue;
        const auto other = unordered_conflict(
            table, [&](std::int32_t a) { return hb.ordered(a, i); }, b, t, writes);
        if (other >= 0) {
          const bool other_writes = table.write(b, t) == other;
          return race{b, other, i, other_writes, writes};
        }
      }
      return race{};
    };
    for (auto b : reads)
      if (auto r = check(b, false); r.buffer >= 0) return r;
    if (auto r = check(s.target, true); r.buffer >= 0) return r;
    for (auto b : reads) note_access(table, b, s.stream, i, false);
    note_access(table, s.target, s.stream, i, true);
  }
  return {};
}

constexpr race find_race(const ir::program_view& p) {
  return find_race(p, happens_before(p.stmts, p.streams.size()));
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

// `brief` says the fix in fewer words, for long names.
constexpr detail::text describe_race(const ir::program_view& p, const race& r, std::size_t code_limit,
                                     bool brief) {
  detail::text t;
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
  t << (brief ? "; or use sd::program<sd::automatic>(...)"
              : "; or build with sd::program<sd::automatic>(...) to insert the sync");
  return t;
}

// The race as a message that fits diag::message_capacity: statement text is
// said in fewer words, then shortened, before anything is cut.
constexpr detail::text describe_race(const ir::program_view& p, const race& r) {
  struct attempt {
    std::size_t code_limit;
    bool brief;
  };
  constexpr attempt attempts[] = {{100, false}, {100, true}, {60, true}, {32, true}, {16, true}};
  for (const auto& a : attempts) {
    auto t = describe_race(p, r, a.code_limit, a.brief);
    if (t.size() <= diag::message_capacity) return t;
  }
  return diag::fit_message(describe_race(p, r, 16, true));
}

}  // namespace streamdsl::passes
