#pragma once
// A fused kernel of a plan as a small array of integers, the template
// arguments of its __global__ instantiation (nvcc cannot take class-type
// constants there). Each kernel's pack holds only its own statements, so
// identical kernels share one instantiation, and it is as short as we can
// make it: every integer of it is parsed, mangled and compared by cudafe++,
// cicc and the host compiler.
//
// Layout:
//   header     vec, buffers, params, statements
//   buffers    dtype | flags << 8                       per local buffer
//   params     dtype                                    per local param
//   statements target (local buffer), root (position)   per statement
//   nodes      op | type << 8 | compute << 16, then by kind:
//                load, param   local buffer / param
//                literal       bits_hi, bits_lo (a double for floating types, an int64 otherwise)
//                others        the position of each operand (1 to 3)
// A position is an index into the whole array; nodes are written operands
// first, each node once per kernel.
// A local buffer is a region of a plan buffer: in a kernel over chunks
// (kernel_info::parts > 1), x.chunk(0, 4) and x.chunk(1, 4) are two local
// buffers. Which chunk is not in the pack (kernels that differ only in their
// chunks share one instantiation): the launch offsets each local buffer's
// pointer to its chunk's first element (encoded_kernel::buffer_parts).
// Plain C++ (no CUDA): the encoding is tested with g++.
#include <cstddef>
#include <cstdint>

#include "../../detail/dyn_array.hpp"
#include "../../ir/accesses.hpp"
#include "../../ir/shape.hpp"
#include "../../plan/plan_view.hpp"

namespace streamdsl::cuda_detail {

// --- the pack's layout ---------------------------------------------------------
// encode (below) writes a pack, and the device decoder (fused_kernel.cuh) and
// the encoding test read it, all through what follows: the layout is said here
// only.
inline constexpr int header_size = 4;       // vec, buffers, params, statements
inline constexpr int statement_fields = 2;  // target, root

// broadcast: a 0-d value (element 0); row, column: a vector read in a kernel
// over a rank-2 shape (ir/shape.hpp: element k % cols, k / cols). Only
// kernels with a row or column compute an element's row or column.
enum buffer_flag : int { load = 1, store = 2, broadcast = 4, row = 8, column = 16 };
inline constexpr int gathered = broadcast | row | column;  // not read at the kernel's own index

// How a buffer over `domain` is read by a kernel (or step) over `over`.
constexpr int read_flags(const plan_view& p, std::int32_t domain, std::int32_t over) {
  switch (ir::broadcast_of(p.ir.domains, domain, over)) {
    case ir::load_index::scalar: return over >= 0 ? broadcast : 0;
    case ir::load_index::row_vector: return row;
    case ir::load_index::column_vector: return column;
    default: return 0;
  }
}

constexpr int buffer_word(dtype type, int flags) { return static_cast<int>(type) | flags << 8; }

constexpr int node_head(ir::op code, dtype type, dtype compute) {
  return static_cast<int>(code) | static_cast<int>(type) << 8 | static_cast<int>(compute) << 16;
}

// Integers a node takes after its head.
constexpr int operand_fields(ir::op code) {
  if (code == ir::op::literal) return 2;
  const int a = ir::arity(code);
  return a == 0 ? 1 : a;
}
constexpr int node_size(ir::op code) { return 1 + operand_fields(code); }

// Position of the first node.
constexpr int nodes_start(int buffers, int params, int statements) {
  return header_size + buffers + params + statement_fields * statements;
}

// A literal's 64 bits as two integers, high word first.
constexpr int literal_hi(std::uint64_t bits) {
  return static_cast<int>(static_cast<std::uint32_t>(bits >> 32));
}
constexpr int literal_lo(std::uint64_t bits) { return static_cast<int>(static_cast<std::uint32_t>(bits)); }

// A pack (its header written) as fields. Positions (`pos`, `..._at`) index
// the whole pack.
struct pack_view {
  const int* code;

  // header
  static constexpr int vec_at = 0, buffer_count_at = 1, param_count_at = 2, statement_count_at = 3;
  constexpr int vec() const { return code[vec_at]; }
  constexpr int buffer_count() const { return code[buffer_count_at]; }
  constexpr int param_count() const { return code[param_count_at]; }
  constexpr int statement_count() const { return code[statement_count_at]; }

  // local buffer b: its element type and buffer_flag bits
  constexpr int buffer_at(int b) const { return header_size + b; }
  constexpr dtype buffer_type(int b) const { return static_cast<dtype>(code[buffer_at(b)] & 255); }
  constexpr int buffer_flags(int b) const { return code[buffer_at(b)] >> 8; }

  // local param q: its bound type
  constexpr int param_at(int q) const { return header_size + buffer_count() + q; }
  constexpr dtype param_type(int q) const { return static_cast<dtype>(code[param_at(q)]); }

  // statement s: local buffer `target` = the node at position `root`
  constexpr int statement_at(int s) const {
    return nodes_start(buffer_count(), param_count(), 0) + statement_fields * s;
  }
  constexpr int target_at(int s) const { return statement_at(s); }
  constexpr int root_at(int s) const { return statement_at(s) + 1; }
  constexpr int target(int s) const { return code[target_at(s)]; }
  constexpr int root(int s) const { return code[root_at(s)]; }

  // the node at position pos: its head, then by kind the local buffer (load),
  // the local param (param), the literal's bits (literal), or the position
  // of each operand
  constexpr int first_node() const { return nodes_start(buffer_count(), param_count(), statement_count()); }
  constexpr ir::op op(int pos) const { return static_cast<ir::op>(code[pos] & 255); }
  constexpr dtype type(int pos) const { return static_cast<dtype>((code[pos] >> 8) & 255); }
  constexpr dtype compute(int pos) const { return static_cast<dtype>((code[pos] >> 16) & 255); }
  constexpr int next_node(int pos) const { return pos + node_size(op(pos)); }
  constexpr int ref_at(int pos) const { return pos + 1; }
  constexpr int ref(int pos) const { return code[ref_at(pos)]; }
  constexpr int operand_at(int pos, int i) const { return pos + 1 + i; }
  constexpr int operand(int pos, int i) const { return code[operand_at(pos, i)]; }
  constexpr int literal_hi_at(int pos) const { return pos + 1; }
  constexpr int literal_lo_at(int pos) const { return pos + 2; }
  constexpr unsigned long long literal_bits(int pos) const {
    return static_cast<unsigned long long>(static_cast<std::uint32_t>(code[literal_hi_at(pos)])) << 32 |
           static_cast<std::uint32_t>(code[literal_lo_at(pos)]);
  }
};

// Elements per thread per step: 16-byte accesses for the smallest element
// type the kernel touches, at most 8 elements.
constexpr int vector_width(std::size_t smallest_element) {
  const int w = static_cast<int>(16 / smallest_element);
  return w > 8 ? 8 : w;
}

// How big a kernel's encoding is (the template arguments of encode), and
// what it iterates: parts of a domain (-1: one element), and how many
// kernels its launch covers. The launch reads the kernel's domain, parts and
// segments here: reading them from the plan where a kernel is launched costs
// nvcc's device compile 5% more memory (38 MB of 705 MB on the 200-statement
// benchmark).
struct kernel_shape {
  std::size_t code_size = 0;
  std::size_t buffers = 0;
  std::size_t params = 0;
  int domain = -1;
  int parts = 1;
  int segments = 1;  // kernel_info::segments: which launch function the kernel gets, if any
  int inner = -1;    // a rank-2 domain's columns' domain (its extent is the row length), else -1
};

// The columns' domain of `domain` when it is a rank-2 shape, else -1.
constexpr int inner_of(const plan_view& p, std::int32_t domain) {
  return domain < 0 ? -1 : p.ir.domains[static_cast<std::size_t>(domain)].inner;
}

// Where a kernel's vector steps may start: a head in [0, vec) such that
// address + head * size is 16-byte aligned for every buffer a step moves in
// 16-byte words (vec * size a multiple of 16, so every later step is aligned
// too; 1-byte elements move one by one). vector_heads gives one buffer's
// possible heads as bits; the kernel takes the first head all its buffers
// allow (first_head of their masks and-ed), -1 if none (buffers off 16 bytes
// by different amounts: the scalar path). A chunk's first element may lie off
// a 16-byte boundary (3 chunks of 3003 floats start 4004 bytes apart): the
// kernel then runs its first `head` elements one by one and vectorises the
// rest.
constexpr unsigned vector_heads(std::uintptr_t address, std::size_t size, int vec) {
  unsigned heads = 0;
  for (int head = 0; head < vec; ++head)
    if (static_cast<std::size_t>(vec) * size % 16 != 0 ||
        (address + static_cast<std::uintptr_t>(head) * size) % 16 == 0)
      heads |= 1u << head;
  return heads;
}
constexpr unsigned all_heads(int vec) { return (1u << vec) - 1; }
constexpr int first_head(unsigned heads) {
  for (int head = 0; head < 32; ++head)
    if ((heads >> head & 1u) != 0) return head;
  return -1;
}

// A kernel's pack and, per local buffer and param, its plan id (for binding
// the kernel's arguments at launch), and per local buffer the chunk it is
// (its part of the kernel's parts: 0 for a whole buffer). Built arrays (not
// std::array) are cheap for the host compiler to index while expanding the
// pack.
template <std::size_t Size, std::size_t Buffers, std::size_t Params>
struct encoded_kernel {
  int code[Size] = {};
  int buffer_ids[Buffers > 0 ? Buffers : 1] = {};
  int buffer_parts[Buffers > 0 ? Buffers : 1] = {};
  int param_ids[Params > 0 ? Params : 1] = {};
};

// What one walk over a kernel's statements finds: local numbering of buffers
// (regions), params and nodes in evaluation order, each node's position in
// the pack, buffer flags, and the pack's size.
struct kernel_locals {
  detail::dyn_array<std::int32_t> buffers;  // plan buffer ids, in order of first access
  detail::dyn_array<std::int32_t> parts;    // per local buffer: which chunk (all of one size in a kernel)
  detail::dyn_array<std::int32_t> flags;    // per local buffer
  detail::dyn_array<std::int32_t> params;
  detail::dyn_array<std::int32_t> nodes;    // plan node ids, operands before their node
  detail::dyn_array<std::int32_t> node_at;  // per local node: its position in the pack
  std::int32_t node_base = 0;               // position of the first node
  std::int32_t node_fields = 0;             // integers taken by all nodes
};

constexpr std::int32_t find(const detail::dyn_array<std::int32_t>& ids, std::int32_t id) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == id) return static_cast<std::int32_t>(i);
  return -1;
}

// The local buffer of chunk `part` of plan buffer `id`, or -1. A kernel's
// regions are chunks of one size (fusion joins one shape), so the part names
// the region.
constexpr std::int32_t find_local(const kernel_locals& l, std::int32_t id, std::int32_t part) {
  for (std::size_t i = 0; i < l.buffers.size(); ++i)
    if (l.buffers[i] == id && l.parts[i] == part) return static_cast<std::int32_t>(i);
  return -1;
}

constexpr std::int32_t local_buffer(kernel_locals& l, std::int32_t id, std::int32_t part) {
  const auto found = find_local(l, id, part);
  if (found >= 0) return found;
  l.buffers.push_back(id);
  l.parts.push_back(part);
  l.flags.push_back(0);
  return static_cast<std::int32_t>(l.buffers.size() - 1);
}

// Walks a statement's expression in evaluation order, numbering what it meets.
// A region read before any statement of the kernel wrote it needs a load.
constexpr void collect(const plan_view& p, std::int32_t node, kernel_locals& l) {
  if (find(l.nodes, node) >= 0) return;
  const auto& n = p.ir.nodes[node];
  if (n.a >= 0) collect(p, n.a, l);
  if (n.b >= 0) collect(p, n.b, l);
  if (n.c >= 0) collect(p, n.c, l);
  if (n.code == ir::op::load) {
    const auto b = local_buffer(l, n.ref, n.part);
    if ((l.flags[static_cast<std::size_t>(b)] & store) == 0) l.flags[static_cast<std::size_t>(b)] |= load;
  }
  if (n.code == ir::op::param && find(l.params, n.ref) < 0) l.params.push_back(n.ref);
  l.nodes.push_back(node);
  l.node_at.push_back(l.node_fields);  // relative to the first node; made absolute below
  l.node_fields += node_size(n.code);
}

constexpr kernel_locals locals_of(const plan_view& p, std::size_t k) {
  kernel_locals l;
  for (auto i : p.kernel_statements(k)) {
    const auto& s = p.ir.stmts[i];
    collect(p, s.root, l);
    // `store` marks "written by the kernel" until the end of this walk.
    const auto target = ir::target_of(p.ir, s);
    l.flags[static_cast<std::size_t>(local_buffer(l, target.buffer, target.part))] |= store;
  }
  l.node_base =
      nodes_start(static_cast<int>(l.buffers.size()), static_cast<int>(l.params.size()), p.kernels[k].count);
  for (auto& at : l.node_at) at += l.node_base;
  for (std::size_t b = 0; b < l.buffers.size(); ++b) {
    auto& f = l.flags[b];
    if ((f & store) != 0 && p.storage[static_cast<std::size_t>(l.buffers[b])] == storage_register)
      f &= ~store;
    f |= read_flags(p, p.ir.buffers[l.buffers[b]].domain, p.kernels[k].domain);
  }
  return l;
}

constexpr kernel_shape shape_of(const plan_view& p, std::size_t k) {
  const auto l = locals_of(p, k);
  return {static_cast<std::size_t>(l.node_base + l.node_fields),
          l.buffers.size(),
          l.params.size(),
          p.kernels[k].domain,
          p.kernels[k].parts,
          p.kernels[k].segments,
          inner_of(p, p.kernels[k].domain)};
}

// A node's position in the pack.
constexpr int node_position(const kernel_locals& l, std::int32_t node) {
  return l.node_at[static_cast<std::size_t>(find(l.nodes, node))];
}

// Writes the nodes `l` numbered into `code` (a pack whose header is written).
constexpr void write_nodes(const plan_view& p, const kernel_locals& l, int* code) {
  const pack_view v{code};
  for (std::size_t j = 0; j < l.nodes.size(); ++j) {
    const auto& n = p.ir.nodes[l.nodes[j]];
    const int pos = l.node_at[j];
    code[pos] = node_head(n.code, n.type, n.compute);
    if (n.code == ir::op::load) {
      code[v.ref_at(pos)] = find_local(l, n.ref, n.part);
    } else if (n.code == ir::op::param) {
      code[v.ref_at(pos)] = find(l.params, n.ref);
    } else if (n.code == ir::op::literal) {
      // std::bit_cast is this builtin; its header, <bit>, costs each of nvcc's passes ~7M instructions.
      const auto bits = category_of(n.type) == dtype_category::floating
                            ? __builtin_bit_cast(std::uint64_t, n.fvalue)
                            : static_cast<std::uint64_t>(n.ivalue);
      code[v.literal_hi_at(pos)] = literal_hi(bits);
      code[v.literal_lo_at(pos)] = literal_lo(bits);
    } else {
      const std::int32_t operands[] = {n.a, n.b, n.c};
      for (int i = 0; i < ir::arity(n.code); ++i) code[v.operand_at(pos, i)] = node_position(l, operands[i]);
    }
  }
}

// Writes a pack's header, its buffers and params, and their plan ids (an
// encoded_kernel's arrays; not a template on it, so that each kernel size
// does not instantiate it again).
constexpr void write_locals(const plan_view& p, const kernel_locals& l, int vec, int statements, int* code,
                            int* buffer_ids, int* buffer_parts, int* param_ids) {
  const pack_view v{code};
  code[v.vec_at] = vec;
  code[v.buffer_count_at] = static_cast<int>(l.buffers.size());
  code[v.param_count_at] = static_cast<int>(l.params.size());
  code[v.statement_count_at] = statements;
  for (std::size_t b = 0; b < l.buffers.size(); ++b) {
    code[v.buffer_at(static_cast<int>(b))] = buffer_word(p.ir.buffers[l.buffers[b]].type, l.flags[b]);
    buffer_ids[b] = l.buffers[b];
    buffer_parts[b] = l.parts[b];
  }
  for (std::size_t q = 0; q < l.params.size(); ++q) {
    code[v.param_at(static_cast<int>(q))] = static_cast<int>(p.ir.params[l.params[q]].type);
    param_ids[q] = l.params[q];
  }
}

template <std::size_t Size, std::size_t Buffers, std::size_t Params>
constexpr encoded_kernel<Size, Buffers, Params> encode(const plan_view& p, std::size_t k) {
  encoded_kernel<Size, Buffers, Params> out{};
  const auto l = locals_of(p, k);
  std::size_t smallest = 8;
  for (auto b : l.buffers) {
    const auto size = size_of(p.ir.buffers[b].type);
    if (size < smallest) smallest = size;
  }
  write_locals(p, l, vector_width(smallest), p.kernels[k].count, out.code, out.buffer_ids, out.buffer_parts,
               out.param_ids);
  const pack_view v{out.code};
  int s = 0;
  for (auto i : p.kernel_statements(k)) {
    const auto target = ir::target_of(p.ir, p.ir.stmts[i]);
    out.code[v.target_at(s)] = find_local(l, target.buffer, target.part);
    out.code[v.root_at(s)] = node_position(l, p.ir.stmts[i].root);
    ++s;
  }
  write_nodes(p, l, out.code);
  return out;
}

// --- a multi-segment launch (kernel_info::segments > 1) --------------------------
// One __global__ instantiation runs every segment of a launch. Its pack is
// the launch's distinct kernel packs ("bodies": the 64 segments of an Adam
// step over two domains share one) behind a small header:
//   header     bodies, then each body's position
//   bodies     each a kernel's pack as encode wrote it
// Positions inside a body stay relative to the body's start, so
// pack_view{code + body_at(b)} reads body b unchanged. Which segment runs
// which body, and where its pointers and params start in the launch's
// arguments, is data of the launch (launch_layout), not of the pack.
struct launch_pack_view {
  const int* code;
  static constexpr int body_count_at = 0;
  constexpr int body_count() const { return code[body_count_at]; }
  constexpr int body_at(int b) const { return code[1 + b]; }
  constexpr pack_view body(int b) const { return {code + body_at(b)}; }
};

// One segment's encoding as the launch sees it.
struct segment_code {
  const int* code = nullptr;
  std::size_t size = 0;
  int buffers = 0;
  int params = 0;
};

constexpr bool same_code(const segment_code& a, const segment_code& b) {
  if (a.size != b.size) return false;
  for (std::size_t i = 0; i < a.size; ++i)
    if (a.code[i] != b.code[i]) return false;
  return true;
}

// Per segment of a launch: its body, and where its pointers (one per local
// buffer) and params start in the launch's flat arrays; the bodies (each
// named by its first segment) and the pack's size.
template <std::size_t Segments>
struct launch_layout {
  int body_of[Segments] = {};
  int ptr_base[Segments] = {};
  int param_base[Segments] = {};
  int body_segment[Segments] = {};  // per body: the first segment that has it
  int bodies = 0;
  int ptrs = 0;
  int params = 0;
  std::size_t code_size = 0;
};

// Identical packs become one body: compared only against the bodies found so
// far, and a differing pack mostly differs in its first integers.
template <std::size_t Segments>
constexpr launch_layout<Segments> lay_out_launch(const segment_code (&segments)[Segments]) {
  launch_layout<Segments> out{};
  out.code_size = 1;
  for (std::size_t s = 0; s < Segments; ++s) {
    int body = -1;
    for (int b = 0; b < out.bodies && body < 0; ++b)
      if (same_code(segments[out.body_segment[b]], segments[s])) body = b;
    if (body < 0) {
      body = out.bodies++;
      out.body_segment[body] = static_cast<int>(s);
      out.code_size += 1 + segments[s].size;  // its position in the header, its pack
    }
    out.body_of[s] = body;
    out.ptr_base[s] = out.ptrs;
    out.param_base[s] = out.params;
    out.ptrs += segments[s].buffers;
    out.params += segments[s].params;
  }
  return out;
}

template <std::size_t Size>
struct encoded_launch {
  int code[Size] = {};
};

template <std::size_t Size, std::size_t Segments>
constexpr encoded_launch<Size> encode_launch(const segment_code (&segments)[Segments],
                                             const launch_layout<Segments>& layout) {
  encoded_launch<Size> out{};
  out.code[launch_pack_view::body_count_at] = layout.bodies;
  int at = 1 + layout.bodies;
  for (int b = 0; b < layout.bodies; ++b) {
    const auto& body = segments[layout.body_segment[b]];
    out.code[1 + b] = at;
    for (std::size_t i = 0; i < body.size; ++i) out.code[at + static_cast<int>(i)] = body.code[i];
    at += static_cast<int>(body.size);
  }
  return out;
}

// Blocks per segment of a launch whose segments want `blocks` (each
// ceil(n / (threads per block * vec)), as a kernel launched alone): as
// wanted if the total fits under `max_blocks`, else scaled down in
// proportion, at least one each for a non-empty segment (its grid-stride
// loop covers the rest). Returns the total. Plain C++: tested with g++.
constexpr long long fit_blocks(long long* blocks, int segments, long long max_blocks) {
  long long total = 0, nonempty = 0;
  for (int s = 0; s < segments; ++s) {
    total += blocks[s];
    nonempty += blocks[s] > 0;
  }
  if (total <= max_blocks) return total;
  // A segment keeps 1 + its share of what is left past one block each; the
  // shares are floored (in double: blocks * max_blocks could overflow), with
  // a block of slack per segment against the product rounding up.
  const double room = static_cast<double>(max_blocks - 2 * nonempty);
  const double scale = room > 0 ? room / static_cast<double>(total - nonempty) : 0.0;
  total = 0;
  for (int s = 0; s < segments; ++s) {
    if (blocks[s] > 0) blocks[s] = 1 + static_cast<long long>(static_cast<double>(blocks[s] - 1) * scale);
    total += blocks[s];
  }
  return total;
}

}  // namespace streamdsl::cuda_detail
