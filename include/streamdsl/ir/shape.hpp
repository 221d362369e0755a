#pragma once
// Rank-2 shapes and broadcasting. A rank-2 buffer (p.input<float>("a", rows,
// cols)) is over a product domain: a domain of the program made of two plain
// ones, its rows' (outer) and its columns' (inner, the last axis). Its extent
// is extent(outer) * extent(inner), row-major: element (i, j) is at
// i * extent(inner) + j. Everything that compares domains (fusion, chunks,
// the memory plan) therefore treats a rank-2 shape as one more domain.
//
// Broadcasting is PyTorch's, by domain: in a statement over (rows, cols), a
// rank-1 value over cols is a row, repeated down the rows, and one over rows
// a column, repeated along each row (PyTorch's (rows, 1)); 0-d values
// broadcast everywhere. Where rows and cols are one domain (a square
// matrix), a rank-1 value is a row, as PyTorch aligns trailing dimensions.
#include <cstdint>

#include "../detail/dyn_array.hpp"
#include "entities.hpp"

namespace streamdsl::ir {

constexpr bool is_product(const domain_info& d) { return d.inner >= 0; }

// How a value over domain `from` is read, element k, in a statement
// iterating domain `over` (both backends call this for every load).
enum class load_index : std::uint8_t {
  same,           // element k
  scalar,         // a 0-d value: element 0
  row_vector,     // over over's columns: element k % extent(inner)
  column_vector,  // over over's rows: element k / extent(inner)
  none,           // does not broadcast to `over`
};
constexpr load_index broadcast_of(detail::array_view<domain_info> domains, std::int32_t from,
                                  std::int32_t over) {
  if (from == over) return load_index::same;
  if (from < 0) return load_index::scalar;
  if (over < 0) return load_index::none;
  const auto& d = domains[static_cast<std::size_t>(over)];
  if (d.inner == from) return load_index::row_vector;
  if (d.outer == from) return load_index::column_vector;
  return load_index::none;
}

// Whether a program has rank-2 buffers.
constexpr bool has_product(detail::array_view<domain_info> domains) {
  for (const auto& d : domains)
    if (is_product(d)) return true;
  return false;
}

// The domain an operation on values over domains a and b iterates (the one
// the other broadcasts to), or no_shape.
inline constexpr std::int32_t no_shape = -2;
constexpr std::int32_t broadcast_shape(detail::array_view<domain_info> domains, std::int32_t a,
                                       std::int32_t b) {
  if (broadcast_of(domains, a, b) != load_index::none) return b;
  if (broadcast_of(domains, b, a) != load_index::none) return a;
  return no_shape;
}

}  // namespace streamdsl::ir
