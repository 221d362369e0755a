#pragma once
// sd::copy(dst, src): copies a buffer or chunk into another of the same
// element type and size, between any two memory spaces, on the current
// stream (cudaMemcpyAsync on the GPU, memcpy on the host executor). A step
// (ir/step.hpp): it ends a fusion run and is ordered like any statement.
#include <concepts>

#include "call.hpp"  // detail::region_handle

namespace streamdsl {

template <detail::region_handle Dst, detail::region_handle Src>
constexpr void copy(const Dst& dst, const Src& src) {
  using access = detail::builder_access;
  access::copy(*access::state_of(dst), access::region_of(dst), access::region_of(src));
}

}  // namespace streamdsl
