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
#include "vector_clocks.hpp"

namespace streamdsl::passes {

class happens_before {
 public:
  constexpr happens_before(detail::array_view<ir::statement> stmts, std::size_t stream_count)
      : clocks_(stream_count, stmts.size()) {
    for (const auto& s : stmts) {
      // The clock is taken before a wait's own effect, so covers() can tell
      // whether the wait adds anything; statements after it see the join.
      clocks_.append(s.stream);
      if (s.kind == ir::stmt_kind::wait && s.binds >= 0) clocks_.join(s.stream, clocks_.clock_of(s.binds));
      if (s.kind == ir::stmt_kind::wait_stream) clocks_.join(s.stream, clocks_.live(s.other));
    }
  }

  // Whether statement a happens before statement b (a != b).
  constexpr bool ordered(std::int32_t a, std::int32_t b) const {
    return a != b && clocks_.counts(clocks_.clock_of(b), a);
  }
  constexpr bool concurrent(std::int32_t a, std::int32_t b) const {
    return a != b && !ordered(a, b) && !ordered(b, a);
  }
  // Position of a statement in its stream's program order.
  constexpr std::int32_t sequence(std::int32_t i) const { return clocks_.sequence(i); }
  // How many statements of stream `s` are known to happen before statement i.
  constexpr std::int32_t clock(std::int32_t i, std::int32_t s) const { return clocks_.clock_of(i)[s]; }
  // All of statement i's clock (one entry per stream).
  constexpr const std::int32_t* clock_of(std::int32_t i) const { return clocks_.clock_of(i); }
  // Whether everything statement `r` (a record) captured is already known at i.
  constexpr bool covers(std::int32_t i, std::int32_t r) const {
    return clocks_.covered(clocks_.clock_of(r), clocks_.clock_of(i));
  }

 private:
  vector_clocks clocks_;  // per statement: its stream's clock just before it
};

}  // namespace streamdsl::passes
