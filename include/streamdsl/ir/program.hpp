#pragma once
// The IR of a program while it is built and analysed: growable arrays that
// live only during constant evaluation (they are frozen into a plan/).
#include "../detail/dyn_array.hpp"
#include "../detail/string_view.hpp"
#include "../detail/text.hpp"
#include "../diag/error_kind.hpp"
#include "entities.hpp"
#include "expr_node.hpp"
#include "statement.hpp"

namespace streamdsl::ir {

struct error_record {
  diag::error_kind kind = diag::error_kind::none;
  detail::text message;
};

struct program {
  detail::dyn_array<char> pool;
  detail::dyn_array<buffer_info> buffers;
  detail::dyn_array<param_info> params;
  detail::dyn_array<stream_info> streams;
  detail::dyn_array<event_info> events;
  detail::dyn_array<domain_info> domains;
  detail::dyn_array<expr_node> nodes;
  detail::dyn_array<statement> stmts;
  detail::dyn_array<std::int32_t> reads;  // read sets of the assign statements (statement::reads_first)
  detail::dyn_array<error_record> errors;

  constexpr name_ref intern(detail::string_view s) {
    name_ref r{static_cast<std::int32_t>(pool.size()), static_cast<std::int32_t>(s.size())};
    for (char c : s) pool.push_back(c);
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

}  // namespace streamdsl::ir
