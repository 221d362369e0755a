#pragma once
// A region of a buffer: the whole of it, or x.chunk(part, parts), the
// part-th of `parts` equal parts (the extent is bound at run time and must be
// a multiple of `parts`; the split is known at compile time). Regions are
// compared as fractions of the extent, so whether two accesses overlap is
// decided exactly at compile time whatever the extent turns out to be.
#include <cstddef>
#include <cstdint>

namespace streamdsl::ir {

struct region {
  std::int32_t buffer = -1;
  std::int32_t part = 0;
  std::int32_t parts = 1;  // 1: the whole buffer

  friend constexpr bool operator==(const region&, const region&) = default;
};

constexpr region whole(std::int32_t buffer) { return {buffer, 0, 1}; }
constexpr bool is_whole(const region& r) { return r.parts == 1; }

// Whether [part/parts, (part+1)/parts) of one buffer meet.
constexpr bool overlaps(const region& a, const region& b) {
  if (a.buffer != b.buffer) return false;
  const std::int64_t ap = a.part, aq = a.parts, bp = b.part, bq = b.parts;
  return ap * bq < (bp + 1) * aq && bp * aq < (ap + 1) * bq;
}

// The elements of a buffer of `extent` elements that region r covers:
// [first, first + count). Both backends call this.
struct element_range {
  std::size_t first = 0;
  std::size_t count = 0;
};
constexpr element_range elements_of(const region& r, std::size_t extent) {
  const auto n = extent / static_cast<std::size_t>(r.parts);
  return {static_cast<std::size_t>(r.part) * n, n};
}

}  // namespace streamdsl::ir
