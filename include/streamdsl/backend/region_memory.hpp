#pragma once
// Where a region of a buffer lies for one run, once the buffers are placed:
// the address of its first element and its size in bytes. Both executors
// issue copies (and later other steps) from these.
#include <cstddef>

#include "../ir/region.hpp"
#include "../plan/plan_view.hpp"
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

}  // namespace streamdsl::backend_detail
