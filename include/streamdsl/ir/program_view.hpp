#pragma once
// A read-only view of a program's IR. Analyses and printers take a view, so
// one non-template function serves both the growable IR used while building
// and the frozen arrays of a plan.
#include "../detail/dyn_array.hpp"
#include "../detail/string_view.hpp"
#include "program.hpp"

namespace streamdsl::ir {

struct program_view {
#define STREAMDSL_MEMBER(type, member) detail::array_view<type> member;
  STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_MEMBER)
#undef STREAMDSL_MEMBER

  constexpr detail::string_view name(name_ref r) const {
    return {pool.data() + r.offset, static_cast<std::size_t>(r.length)};
  }
  constexpr detail::string_view buffer_name(std::int32_t b) const { return name(buffers[b].name); }
  constexpr detail::string_view stream_name(std::int32_t s) const { return name(streams[s].name); }
  constexpr detail::string_view event_name(std::int32_t e) const { return name(events[e].name); }
  constexpr detail::string_view call_name(std::int32_t c) const { return name(calls[c].name); }
  constexpr detail::string_view domain_name(std::int32_t d) const {
    return d < 0 ? detail::string_view("scalar") : name(domains[d].name);
  }
};

// One braced list, each view made from (data, size): cheaper to constant-
// evaluate than assigning converted views member by member, and the builder
// and every pass call this per statement.
constexpr program_view view_of(const program& p) {
#define STREAMDSL_VIEW(type, member) {p.member.data(), p.member.size()},
  return {STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_VIEW)};
#undef STREAMDSL_VIEW
}

}  // namespace streamdsl::ir
