#pragma once
// Removes statements from a program, keeping each wait bound to its record.
#include "../detail/dyn_array.hpp"
#include "../ir/program.hpp"

namespace streamdsl::passes {

constexpr void erase_statements(detail::dyn_array<ir::statement>& stmts,
                                const detail::dyn_array<bool>& drop) {
  detail::dyn_array<std::int32_t> index(stmts.size(), -1);
  detail::dyn_array<ir::statement> out;
  for (std::size_t i = 0; i < stmts.size(); ++i) {
    if (drop[i]) continue;
    index[i] = static_cast<std::int32_t>(out.size());
    out.push_back(stmts[i]);
  }
  for (auto& s : out)
    if (s.kind == ir::stmt_kind::wait) s.binds = index[static_cast<std::size_t>(s.binds)];
  stmts = static_cast<detail::dyn_array<ir::statement>&&>(out);
}

constexpr void erase_statements(ir::program& p, const detail::dyn_array<bool>& drop) {
  erase_statements(p.stmts, drop);
}

}  // namespace streamdsl::passes
