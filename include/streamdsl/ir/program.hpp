#pragma once
// The IR of a program while it is built and analysed: growable arrays that
// live only during constant evaluation (they are frozen into a plan/).
#include "../detail/dyn_array.hpp"
#include "../detail/string_view.hpp"
#include "../detail/text.hpp"
#include "../diag/error_kind.hpp"
#include "entities.hpp"
#include "expr_node.hpp"
#include "program_arrays.hpp"
#include "statement.hpp"

namespace streamdsl::ir {

struct error_record {
  diag::error_kind kind = diag::error_kind::none;
  detail::text message;
};

struct program {
#define STREAMDSL_MEMBER(type, member) detail::dyn_array<type> member;
  STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_MEMBER)
#undef STREAMDSL_MEMBER
  detail::dyn_array<error_record> errors;

  constexpr name_ref intern(detail::string_view s) {
    name_ref r{static_cast<std::int32_t>(pool.size()), static_cast<std::int32_t>(s.size())};
    // One append, not a push_back per character (names come from the caller
    // or a text, never from the pool itself).
    pool.append(s.data(), s.size());
    return r;
  }
  constexpr detail::string_view name(name_ref r) const {
    return {pool.data() + r.offset, static_cast<std::size_t>(r.length)};
  }
  constexpr void fail(diag::error_kind kind, const detail::text& message) {
    errors.push_back({kind, message});
  }
  constexpr bool ok() const { return errors.empty(); }
};

// How many statements of kind k a program holds.
constexpr std::size_t count_statements(const program& p, stmt_kind k) {
  std::size_t n = 0;
  for (const auto& s : p.stmts) n += s.kind == k ? 1 : 0;
  return n;
}

}  // namespace streamdsl::ir
