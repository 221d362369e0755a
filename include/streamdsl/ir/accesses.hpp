#pragma once
// Which buffers a statement reads and writes.
#include "../detail/dyn_array.hpp"
#include "program_view.hpp"

namespace streamdsl::ir {

// Appends each buffer read by the expression rooted at `root` once.
constexpr void collect_reads(const program_view& p, std::int32_t root, detail::dyn_array<std::int32_t>& out) {
  detail::dyn_array<std::int32_t> stack{root};
  while (!stack.empty()) {
    const auto id = stack.back();
    stack.pop_back();
    const expr_node& n = p.nodes[id];
    if (n.code == op::load) {
      bool seen = false;
      for (auto b : out) seen = seen || b == n.ref;
      if (!seen) out.push_back(n.ref);
    }
    if (n.a >= 0) stack.push_back(n.a);
    if (n.b >= 0) stack.push_back(n.b);
    if (n.c >= 0) stack.push_back(n.c);
  }
}

// The buffers statement `s` reads, each once (none for a sync statement).
// The builder stored them with the statement, so this is a lookup.
constexpr detail::array_view<std::int32_t> reads_of(const program_view& p, const statement& s) {
  if (s.kind != stmt_kind::assign) return {};
  return p.reads.subspan(static_cast<std::size_t>(s.reads_first), static_cast<std::size_t>(s.reads_count));
}

}  // namespace streamdsl::ir
