#pragma once
// Removes statements from a program, keeping each wait bound to its record.
#include "../detail/dyn_array.hpp"
#include "../ir/program.hpp"
#include "statement_rebuilder.hpp"

namespace streamdsl::passes {

template <class = void>
constexpr void erase_statements(detail::dyn_array<ir::statement>& stmts,
                                const detail::dyn_array<bool>& drop) {
  statement_rebuilder out(stmts.size());
  for (std::size_t i = 0; i < stmts.size(); ++i)
    if (!drop[i]) out.copy(static_cast<std::int32_t>(i), stmts[i]);
  stmts = out.finish();
}

template <class = void>
constexpr void erase_statements(ir::program& p, const detail::dyn_array<bool>& drop) {
  erase_statements(p.stmts, drop);
}

}  // namespace streamdsl::passes
