#pragma once
// Iteration domains: buffers of one domain have one extent at run time and
// elementwise statements combine only those (0-d values broadcast).
#include <cstdint>

namespace streamdsl {

struct domain {
  std::int32_t id = 0;  // 0: the default domain "n"; -1: 0-d (a single element)
};

// The domain of 0-d buffers: one element, broadcast wherever it is read.
inline constexpr domain scalar{-1};

}  // namespace streamdsl
