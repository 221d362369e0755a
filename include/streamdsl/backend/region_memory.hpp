#pragma once
// Where a region of a buffer lies for one run, once the buffers are placed:
// the address of its first element and its size in bytes. Both executors
// issue copies (and later other steps) from these.
#include <cstddef>

#include "../ir/region.hpp"
#include "../ir/shape.hpp"
#include "../plan/plan_view.hpp"
#include "call_context.hpp"
#include "resolve_bindings.hpp"

namespace streamdsl::backend_detail {

// Where a region lies within its buffer: bytes from the buffer's start, and
// its size (for a buffer whose memory is known only later, a workspace slot).
struct region_span {
  std::size_t offset = 0;
  std::size_t bytes = 0;
};

inline region_span span_of(const plan_view& plan, const resolved_bindings& r, const ir::region& region) {
  const auto element = size_of(plan.ir.buffers[static_cast<std::size_t>(region.buffer)].type);
  const auto range = ir::elements_of(region, extent_of(plan, r, region.buffer));
  return {range.first * element, range.count * element};
}

struct region_bytes {
  std::byte* data = nullptr;
  std::size_t bytes = 0;
};

// `base`: where the whole buffer lies (caller memory or its workspace slot).
inline region_bytes bytes_of(const plan_view& plan, const resolved_bindings& r, const ir::region& region,
                             void* base) {
  const auto span = span_of(plan, r, region);
  return {static_cast<std::byte*>(base) + span.offset, span.bytes};
}

// A call's listed regions (reads, then writes) for one set of bindings
// (call_layout, call_context.hpp).
inline detail::dyn_array<call_layout> lay_out_call(const plan_view& plan, const resolved_bindings& r,
                                                   const ir::statement& s) {
  detail::dyn_array<call_layout> out;
  const auto first = static_cast<std::size_t>(s.accesses_first);
  for (std::size_t k = 0; k < static_cast<std::size_t>(s.reads_count + s.writes_count); ++k) {
    const auto& region = plan.ir.accesses[first + k];
    const auto& info = plan.ir.buffers[static_cast<std::size_t>(region.buffer)];
    const auto span = span_of(plan, r, region);
    call_layout c;
    c.buffer = region.buffer;
    c.offset = span.offset;
    c.region.type = info.type;
    c.region.count = span.bytes / size_of(info.type);
    c.region.rows = c.region.count;
    c.region.cols = 1;
    if (info.domain >= 0 && ir::is_product(plan.ir.domains[static_cast<std::size_t>(info.domain)])) {
      const auto& d = plan.ir.domains[static_cast<std::size_t>(info.domain)];
      c.region.cols = r.domain_extent[static_cast<std::size_t>(d.inner)];
      c.region.rows = r.domain_extent[static_cast<std::size_t>(d.outer)];  // rank-2 buffers have no chunks
    }
    c.region.buffer = plan.ir.buffer_name(region.buffer);
    out.push_back(c);
  }
  return out;
}

}  // namespace streamdsl::backend_detail
