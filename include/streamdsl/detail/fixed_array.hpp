#pragma once
// An array of N elements as a structural value (std::array without <array>,
// which with what it includes costs nvcc's three front ends a tenth of a
// second per translation unit). N may be 0.
#include <cstddef>

namespace streamdsl::detail {

template <class T, std::size_t N>
// Accessors always_inline: see dyn_array.hpp.
struct fixed_array {
  T items[N > 0 ? N : 1]{};

  [[gnu::always_inline]] constexpr std::size_t size() const { return N; }
  [[gnu::always_inline]] constexpr T* data() { return items; }
  [[gnu::always_inline]] constexpr const T* data() const { return items; }
  [[gnu::always_inline]] constexpr T& operator[](std::size_t i) { return items[i]; }
  [[gnu::always_inline]] constexpr const T& operator[](std::size_t i) const { return items[i]; }
  [[gnu::always_inline]] constexpr T* begin() { return items; }
  [[gnu::always_inline]] constexpr T* end() { return items + N; }
  [[gnu::always_inline]] constexpr const T* begin() const { return items; }
  [[gnu::always_inline]] constexpr const T* end() const { return items + N; }
};

}  // namespace streamdsl::detail
