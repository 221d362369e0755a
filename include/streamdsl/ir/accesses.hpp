#pragma once
// Which regions of which buffers a statement reads and writes.
#include "../detail/dyn_array.hpp"
#include "program_view.hpp"

namespace streamdsl::ir {

// Appends each buffer region read by the expression rooted at `root` to
// `out`, once: a region already in out[from ...] is not appended again.
constexpr void collect_reads(const detail::dyn_array<expr_node>& nodes, std::int32_t root,
                             detail::dyn_array<region>& out, std::size_t from = 0) {
  detail::dyn_array<std::int32_t> stack{root};
  while (!stack.empty()) {
    const auto id = stack.back();
    stack.pop_back();
    const expr_node& n = nodes[static_cast<std::size_t>(id)];
    if (n.code == op::load) {
      bool seen = false;  // fields compared in place: cheaper to evaluate than region's ==
      for (auto i = from; i < out.size() && !seen; ++i)
        seen = out[i].buffer == n.ref && out[i].part == n.part && out[i].parts == n.parts;
      if (!seen) out.push_back({n.ref, n.part, n.parts});
    }
    if (n.a >= 0) stack.push_back(n.a);
    if (n.b >= 0) stack.push_back(n.b);
    if (n.c >= 0) stack.push_back(n.c);
  }
}

// The regions statement `s` reads, each once (none for a sync statement,
// whose counts are 0). The builder stored them with the statement, so this
// is a lookup.
constexpr detail::array_view<region> reads_of(const program_view& p, const statement& s) {
  return p.accesses.subspan(static_cast<std::size_t>(s.accesses_first),
                            static_cast<std::size_t>(s.reads_count));
}

// The regions statement `s` writes (an assignment: its target's).
constexpr detail::array_view<region> writes_of(const program_view& p, const statement& s) {
  return p.accesses.subspan(static_cast<std::size_t>(s.accesses_first + s.reads_count),
                            static_cast<std::size_t>(s.writes_count));
}

// A copy's destination and source (its one write and its one read).
struct copy_regions {
  region dst, src;
};
constexpr copy_regions copy_regions_of(const program_view& p, const statement& s) {
  return {writes_of(p, s)[0], reads_of(p, s)[0]};
}

// The region an assignment writes.
// (Indexed in place: fusion asks for it per statement each time it runs.)
constexpr const region& target_of(const program_view& p, const statement& s) {
  return p.accesses[static_cast<std::size_t>(s.accesses_first + s.reads_count)];
}

}  // namespace streamdsl::ir
