#pragma once
// Happens-before over a statement list: program order on each stream, plus
// record -> wait edges (a wait binds to the latest preceding record) and
// wait_stream edges, closed transitively with vector clocks. Program order is
// a topological order (waits follow their records), so one pass suffices:
// O(statements x streams) time and space.
//
// Entry and exit edges order nothing between two statements of one run (every
// stream starts after main's start, main ends after every stream's end); they
// order runs against each other and against the caller, so they are left to
// the plan.
#include <cstdint>

#include "../detail/dyn_array.hpp"
#include "../ir/statement.hpp"

namespace streamdsl::passes {

class happens_before {
 public:
  constexpr happens_before(detail::array_view<ir::statement> stmts, std::size_t stream_count)
      : streams_(stream_count),
        seq_(stmts.size()),
        stream_of_(stmts.size()),
        clocks_(stmts.size() * stream_count) {
    detail::dyn_array<std::int32_t> current(stream_count * stream_count, 0);  // per stream: its clock
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      const auto& s = stmts[i];
      const auto me = static_cast<std::size_t>(s.stream);
      auto* mine = current.data() + me * streams_;
      // The clock is taken before a wait's own effect, so covers() can tell
      // whether the wait adds anything; statements after it see the join.
      seq_[i] = mine[me];
      stream_of_[i] = s.stream;
      for (std::size_t k = 0; k < streams_; ++k) clocks_[i * streams_ + k] = mine[k];
      if (s.kind == ir::stmt_kind::wait && s.binds >= 0)
        join(mine, clocks_.data() + static_cast<std::size_t>(s.binds) * streams_);
      if (s.kind == ir::stmt_kind::wait_stream)
        join(mine, current.data() + static_cast<std::size_t>(s.other) * streams_);
      ++mine[me];
    }
  }

  // Whether statement a happens before statement b (a != b).
  constexpr bool ordered(std::int32_t a, std::int32_t b) const {
    if (a == b) return false;
    return clocks_[static_cast<std::size_t>(b) * streams_ + static_cast<std::size_t>(stream_of_[a])] >
           seq_[a];
  }
  constexpr bool concurrent(std::int32_t a, std::int32_t b) const {
    return a != b && !ordered(a, b) && !ordered(b, a);
  }
  // Position of a statement in its stream's program order.
  constexpr std::int32_t sequence(std::int32_t i) const { return seq_[i]; }
  // How many statements of stream `s` are known to happen before statement i.
  constexpr std::int32_t clock(std::int32_t i, std::int32_t s) const {
    return clocks_[static_cast<std::size_t>(i) * streams_ + static_cast<std::size_t>(s)];
  }
  // Whether everything statement `r` (a record) captured is already known at i.
  constexpr bool covers(std::int32_t i, std::int32_t r) const {
    for (std::size_t k = 0; k < streams_; ++k)
      if (clocks_[static_cast<std::size_t>(r) * streams_ + k] >
          clocks_[static_cast<std::size_t>(i) * streams_ + k])
        return false;
    return true;
  }

 private:
  constexpr void join(std::int32_t* into, const std::int32_t* from) const {
    for (std::size_t k = 0; k < streams_; ++k)
      if (from[k] > into[k]) into[k] = from[k];
  }

  std::size_t streams_;
  detail::dyn_array<std::int32_t> seq_;
  detail::dyn_array<std::int32_t> stream_of_;
  detail::dyn_array<std::int32_t> clocks_;  // per statement: its stream's clock just before it
};

}  // namespace streamdsl::passes
