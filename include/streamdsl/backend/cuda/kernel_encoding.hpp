#pragma once
// A fused kernel of a plan as a small array of integers, the template
// arguments of its __global__ instantiation (nvcc cannot take class-type
// constants there). Each kernel's pack holds only its own statements, so
// identical kernels share one instantiation and packs stay short.
//
// Layout:
//   header     vec, buffers, params, statements, nodes
//   buffers    dtype, flags (load | store | broadcast)        per local buffer
//   params     dtype                                         per local param
//   statements target (local buffer), root (local node)      per statement
//   nodes      op, type, compute, a, b, c, ref, bits_hi, bits_lo
// Plain C++ (no CUDA): the encoding is tested with g++.
#include <array>
#include <bit>
#include <cstdint>

#include "../../detail/dyn_array.hpp"
#include "../../plan/plan_view.hpp"

namespace streamdsl::cuda_detail {

inline constexpr int header_size = 5;
inline constexpr int buffer_fields = 2;
inline constexpr int statement_fields = 2;
inline constexpr int node_fields = 9;

enum buffer_flag : int { load = 1, store = 2, broadcast = 4 };

// Elements per thread per step: 16-byte accesses for the smallest element
// type the kernel touches, at most 8 elements.
constexpr int vector_width(std::size_t smallest_element) {
  const int w = static_cast<int>(16 / smallest_element);
  return w > 8 ? 8 : w;
}

struct kernel_locals {
  detail::dyn_array<std::int32_t> buffers;  // plan buffer ids, in order of first access
  detail::dyn_array<std::int32_t> params;
  detail::dyn_array<std::int32_t> nodes;  // plan node ids
};

constexpr std::int32_t local_index(detail::dyn_array<std::int32_t>& ids, std::int32_t id) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == id) return static_cast<std::int32_t>(i);
  ids.push_back(id);
  return static_cast<std::int32_t>(ids.size() - 1);
}

// Walks a statement's expression in evaluation order, numbering what it meets.
constexpr void collect(const plan_view& p, std::int32_t node, kernel_locals& l) {
  const auto& n = p.ir.nodes[node];
  if (n.a >= 0) collect(p, n.a, l);
  if (n.b >= 0) collect(p, n.b, l);
  if (n.c >= 0) collect(p, n.c, l);
  if (n.code == ir::op::load) local_index(l.buffers, n.ref);
  if (n.code == ir::op::param) local_index(l.params, n.ref);
  local_index(l.nodes, node);
}

constexpr kernel_locals locals_of(const plan_view& p, std::size_t k) {
  kernel_locals l;
  for (auto i : p.kernel_statements(k)) {
    const auto& s = p.ir.stmts[i];
    collect(p, s.root, l);
    local_index(l.buffers, s.target);
  }
  return l;
}

constexpr std::size_t encoded_size(const plan_view& p, std::size_t k) {
  const auto l = locals_of(p, k);
  return static_cast<std::size_t>(header_size) + buffer_fields * l.buffers.size() + l.params.size() +
         statement_fields * static_cast<std::size_t>(p.kernels[k].count) + node_fields * l.nodes.size();
}

constexpr std::int32_t find(const detail::dyn_array<std::int32_t>& ids, std::int32_t id) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == id) return static_cast<std::int32_t>(i);
  return -1;
}

// Reads of buffer b before the kernel writes it need a load.
constexpr int flags_of(const plan_view& p, std::size_t k, std::int32_t b) {
  int flags = 0;
  bool written = false;
  for (auto i : p.kernel_statements(k)) {
    const auto& s = p.ir.stmts[i];
    bool reads = false;
    detail::dyn_array<std::int32_t> stack{s.root};
    while (!stack.empty()) {
      const auto& n = p.ir.nodes[stack.back()];
      stack.pop_back();
      reads = reads || (n.code == ir::op::load && n.ref == b);
      for (auto c : {n.a, n.b, n.c})
        if (c >= 0) stack.push_back(c);
    }
    if (reads && !written) flags |= load;
    if (s.target == b) written = true;
  }
  if (written && p.storage[static_cast<std::size_t>(b)] != storage_register) flags |= store;
  if (p.ir.buffers[b].domain < 0 && p.kernels[k].domain >= 0) flags |= broadcast;
  return flags;
}

template <std::size_t N>
constexpr std::array<int, N> encode(const plan_view& p, std::size_t k) {
  std::array<int, N> out{};
  const auto l = locals_of(p, k);
  std::size_t at = 0;
  std::size_t smallest = 8;
  for (auto b : l.buffers) {
    const auto size = size_of(p.ir.buffers[b].type);
    if (size < smallest) smallest = size;
  }
  out[at++] = vector_width(smallest);
  out[at++] = static_cast<int>(l.buffers.size());
  out[at++] = static_cast<int>(l.params.size());
  out[at++] = p.kernels[k].count;
  out[at++] = static_cast<int>(l.nodes.size());
  for (auto b : l.buffers) {
    out[at++] = static_cast<int>(p.ir.buffers[b].type);
    out[at++] = flags_of(p, k, b);
  }
  for (auto id : l.params) out[at++] = static_cast<int>(p.ir.params[id].type);
  for (auto i : p.kernel_statements(k)) {
    out[at++] = find(l.buffers, p.ir.stmts[i].target);
    out[at++] = find(l.nodes, p.ir.stmts[i].root);
  }
  for (auto id : l.nodes) {
    const auto& n = p.ir.nodes[id];
    out[at++] = static_cast<int>(n.code);
    out[at++] = static_cast<int>(n.type);
    out[at++] = static_cast<int>(n.compute);
    out[at++] = n.a >= 0 ? find(l.nodes, n.a) : -1;
    out[at++] = n.b >= 0 ? find(l.nodes, n.b) : -1;
    out[at++] = n.c >= 0 ? find(l.nodes, n.c) : -1;
    out[at++] = n.code == ir::op::load ? find(l.buffers, n.ref) : (n.code == ir::op::param ? find(l.params, n.ref) : -1);
    // Literals travel as 64-bit patterns: a double for floating types, an int64 otherwise.
    const auto bits = category_of(n.type) == dtype_category::floating ? std::bit_cast<std::uint64_t>(n.fvalue)
                                                                        : static_cast<std::uint64_t>(n.ivalue);
    out[at++] = static_cast<int>(static_cast<std::uint32_t>(bits >> 32));
    out[at++] = static_cast<int>(static_cast<std::uint32_t>(bits));
  }
  return out;
}

}  // namespace streamdsl::cuda_detail
