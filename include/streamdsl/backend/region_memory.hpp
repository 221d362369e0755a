#pragma once
// Where a region of a buffer lies for one run, once the buffers are placed:
// the address of its first element and its size in bytes. Both executors
// issue copies (and later other steps) from these.
#include <cstddef>

#include "../ir/region.hpp"
#include "../plan/plan_view.hpp"
#include "resolve_bindings.hpp"

namespace streamdsl::backend_detail {

struct region_bytes {
  std::byte* data = nullptr;
  std::size_t bytes = 0;
};

// `base`: where the whole buffer lies (caller memory or its workspace slot).
inline region_bytes bytes_of(const plan_view& plan, const resolved_bindings& r, const ir::region& region,
                             void* base) {
  const auto element = size_of(plan.ir.buffers[static_cast<std::size_t>(region.buffer)].type);
  const auto range = ir::elements_of(region, extent_of(plan, r, region.buffer));
  return {static_cast<std::byte*>(base) + range.first * element, range.count * element};
}

}  // namespace streamdsl::backend_detail
