#pragma once
// An array of N elements as a structural value (std::array without <array>,
// which with what it includes costs nvcc's three front ends a tenth of a
// second per translation unit). N may be 0.
#include <cstddef>

namespace streamdsl::detail {

template <class T, std::size_t N>
struct fixed_array {
  T items[N > 0 ? N : 1]{};

  constexpr std::size_t size() const { return N; }
  constexpr T* data() { return items; }
  constexpr const T* data() const { return items; }
  constexpr T& operator[](std::size_t i) { return items[i]; }
  constexpr const T& operator[](std::size_t i) const { return items[i]; }
  constexpr T* begin() { return items; }
  constexpr T* end() { return items + N; }
  constexpr const T* begin() const { return items; }
  constexpr const T* end() const { return items + N; }
};

}  // namespace streamdsl::detail
