#pragma once
// Iteration domains: buffers of one domain have one extent at run time and
// elementwise statements combine only those (0-d values broadcast).
#include <cstdint>

namespace streamdsl {

struct domain {
  std::int32_t id = 0;  // 0: the default domain "n"; -1: 0-d (a single element)

  constexpr domain() = default;
  constexpr explicit domain(std::int32_t index) : id(index) {}
  constexpr domain(const domain&) = default;

  // `a = b` would only make `a` name b's domain (buffers declared over `a`
  // afterwards would belong to b), so it is refused with what to write.
  void operator=(const volatile domain&) =
      delete;  // no implicit copy assignment: the template below says why
  template <class V>
  constexpr void operator=(const V&) {  // constexpr: nvcc instantiates it while running the lambda
    static_assert(!sizeof(V),
                  "streamdsl: a domain cannot be assigned: 'a = b' would only make 'a' name b's domain; "
                  "declare buffers over b directly, e.g. p.input<float>(\"x\", b)");
  }
};

// The domain of 0-d buffers: one element, broadcast wherever it is read.
inline constexpr domain scalar{-1};

namespace detail {
// A declaration's columns when it names none: a rank-1 (or 0-d) buffer.
inline constexpr domain no_columns{-2};
}  // namespace detail

}  // namespace streamdsl
