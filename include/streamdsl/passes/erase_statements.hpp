#pragma once
// Removes statements from a program, keeping each wait bound to its record.
#include "../detail/dyn_array.hpp"

#include "../ir/program.hpp"

namespace streamdsl::passes {

constexpr void erase_statements(ir::program& p, const detail::dyn_array<bool>& drop) {
  detail::dyn_array<std::int32_t> index(p.stmts.size(), -1);
  detail::dyn_array<ir::statement> out;
  for (std::size_t i = 0; i < p.stmts.size(); ++i) {
    if (drop[i]) continue;
    index[i] = static_cast<std::int32_t>(out.size());
    out.push_back(p.stmts[i]);
  }
  for (auto& s : out)
    if (s.kind == ir::stmt_kind::wait) s.binds = index[static_cast<std::size_t>(s.binds)];
  p.stmts = out;
}

}  // namespace streamdsl::passes
