#pragma once
// Where temps that live in memory go: one workspace, each slot of the plan at
// a 256-byte boundary, in slot order, sized from its domain's bound extent.
// plan_view::workspace_bytes and both executors lay it out with this, so the
// size a caller is told and the offsets an executor uses cannot disagree.
#include <cstddef>

#include "../detail/dyn_array.hpp"
#include "plan_types.hpp"

namespace streamdsl {

inline constexpr std::size_t workspace_slot_alignment = 256;
// What lay_out_workspace returns when the total does not fit in std::size_t
// (never a real size: real sizes are multiples of the alignment).
inline constexpr std::size_t workspace_too_large = ~std::size_t{0};

// Lays out `slots` given each domain's extent: writes slot s's byte offset to
// offsets[s] (when offsets is not null) and returns the workspace's bytes,
// or workspace_too_large when they overflow.
constexpr std::size_t lay_out_workspace(detail::array_view<slot_info> slots,
                                        detail::array_view<std::size_t> domain_extents,
                                        std::size_t* offsets = nullptr) {
  constexpr std::size_t align = workspace_slot_alignment;
  std::size_t total = 0;
  for (std::size_t s = 0; s < slots.size(); ++s) {
    if (offsets != nullptr) offsets[s] = total;
    const std::size_t n = slots[s].domain < 0 ? 1 : domain_extents[static_cast<std::size_t>(slots[s].domain)];
    const std::size_t element = size_of(slots[s].type);
    if (n > (workspace_too_large - align) / element) return workspace_too_large;
    const std::size_t bytes = (n * element + align - 1) / align * align;
    if (bytes > workspace_too_large - total) return workspace_too_large;
    total += bytes;
  }
  return total;
}

}  // namespace streamdsl
