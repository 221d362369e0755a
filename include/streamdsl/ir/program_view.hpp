#pragma once
// A read-only view of a program's IR. Analyses and printers take a view, so
// one non-template function serves both the growable IR used while building
// and the frozen arrays of a plan.
#include "../detail/dyn_array.hpp"
#include "../detail/string_view.hpp"
#include "program.hpp"

namespace streamdsl::ir {

struct program_view {
  detail::array_view<char> pool;
  detail::array_view<buffer_info> buffers;
  detail::array_view<param_info> params;
  detail::array_view<stream_info> streams;
  detail::array_view<event_info> events;
  detail::array_view<domain_info> domains;
  detail::array_view<expr_node> nodes;
  detail::array_view<statement> stmts;
  detail::array_view<std::int32_t> reads;

  constexpr detail::string_view name(name_ref r) const {
    return {pool.data() + r.offset, static_cast<std::size_t>(r.length)};
  }
  constexpr detail::string_view buffer_name(std::int32_t b) const { return name(buffers[b].name); }
  constexpr detail::string_view stream_name(std::int32_t s) const { return name(streams[s].name); }
  constexpr detail::string_view event_name(std::int32_t e) const { return name(events[e].name); }
  constexpr detail::string_view domain_name(std::int32_t d) const {
    return d < 0 ? detail::string_view("scalar") : name(domains[d].name);
  }
};

constexpr program_view view_of(const program& p) {
  return {p.pool, p.buffers, p.params, p.streams, p.events, p.domains, p.nodes, p.stmts, p.reads};
}

}  // namespace streamdsl::ir
