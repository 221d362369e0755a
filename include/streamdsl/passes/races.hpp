#pragma once
// Race detection: two accesses to one buffer on different streams, at least
// one a write, that happens-before leaves unordered. Tracking the latest read
// and write of each buffer on each stream is enough (program order orders the
// earlier ones), so this is O(statements x streams).

#include "../detail/text.hpp"
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
        const auto other =
            unordered_conflict(table, [&](std::int32_t a) { return hb.ordered(a, i); }, b, t, writes);
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

constexpr std::string_view race_kind(const race& r) {
  if (r.first_writes && r.second_writes) return "write-after-write";
  if (r.first_writes) return "read-after-write";
  return "write-after-read";
}

constexpr detail::text describe_race(const ir::program_view& p, const race& r) {
  detail::text t;
  const auto& a = p.stmts[r.first];
  const auto& b = p.stmts[r.second];
  t << "race (" << race_kind(r) << ") on buffer '" << p.buffer_name(r.buffer) << "': ";
  ir::describe_statement(p, r.first, t);
  t << (r.first_writes ? " writes it and " : " reads it and ");
  ir::describe_statement(p, r.second, t);
  t << (r.second_writes ? " writes it" : " reads it")
    << ", and no event or wait_stream orders them. Fix: record an event on '" << p.stream_name(a.stream)
    << "' after #" << a.origin << " and wait on it on '" << p.stream_name(b.stream) << "' before #" << b.origin
    << ", or build with sd::program<sd::automatic>(...) to insert the sync";
  return t;
}

}  // namespace streamdsl::passes
