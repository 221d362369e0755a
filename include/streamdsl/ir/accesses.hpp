#pragma once
// Which regions of which buffers a statement reads and writes.
#include "../detail/dyn_array.hpp"
#include "program_view.hpp"
#include "shape.hpp"

namespace streamdsl::ir {

// Appends each buffer region read by the expression rooted at `root` to
// `out`, once: a region already in out[from ...] is not appended again.
constexpr void collect_reads(const detail::dyn_array<expr_node>& nodes, std::int32_t root,
                             detail::dyn_array<region>& out, std::size_t from = 0) {
  detail::dyn_array<std::int32_t> stack{root};
  while (!stack.empty()) {
    const auto id = stack.back();
    stack.pop_back();
    const expr_node& n = nodes[static_cast<std::size_t>(id)];
    if (n.code == op::load) {
      bool seen = false;  // fields compared in place: cheaper to evaluate than region's ==
      for (auto i = from; i < out.size() && !seen; ++i)
        seen = out[i].buffer == n.ref && out[i].part == n.part && out[i].parts == n.parts;
      if (!seen) out.push_back({n.ref, n.part, n.parts});
    }
    if (n.a >= 0) stack.push_back(n.a);
    if (n.b >= 0) stack.push_back(n.b);
    if (n.c >= 0) stack.push_back(n.c);
  }
}

// The regions statement `s` reads, each once (none for a sync statement,
// whose counts are 0). The builder stored them with the statement, so this
// is a lookup.
constexpr detail::array_view<region> reads_of(const program_view& p, const statement& s) {
  return p.accesses.subspan(static_cast<std::size_t>(s.accesses_first),
                            static_cast<std::size_t>(s.reads_count));
}

// The regions statement `s` writes (an assignment: its target's).
constexpr detail::array_view<region> writes_of(const program_view& p, const statement& s) {
  return p.accesses.subspan(static_cast<std::size_t>(s.accesses_first + s.reads_count),
                            static_cast<std::size_t>(s.writes_count));
}

// A copy's destination and source (its one write and its one read).
struct copy_regions {
  region dst, src;
};
constexpr copy_regions copy_regions_of(const program_view& p, const statement& s) {
  return {writes_of(p, s)[0], reads_of(p, s)[0]};
}

// A matmul's buffers: its operands a and b (one buffer read once when they
// are the same), and its epilogue's bias (ir::matmul_bias; else -1), read
// after them.
struct matmul_buffers {
  std::int32_t a = -1, b = -1, bias = -1;
  std::int32_t scale_a = -1, scale_b = -1;  // sd::scales(sa, sb): 0-d float buffers (-1: none)
  std::int32_t scale_d = -1, amax_d = -1;   // sd::output_scale, sd::output_amax (-1: none)
};
// How many distinct buffers a matmul's scales are (sa, sb and the output
// scale, each read once).
constexpr std::size_t matmul_scale_reads(const statement& s) {
  return (s.scale_a >= 0 ? 1u : 0u) + (s.scale_b >= 0 && s.scale_b != s.scale_a ? 1u : 0u) +
         (s.scale_d >= 0 && s.scale_d != s.scale_a && s.scale_d != s.scale_b ? 1u : 0u);
}
// A batch of matmuls (passes/batch_matmuls.hpp) is one matmul step of
// several members, each c_j = op(a_j) op(b_j) with the step's mode: its
// reads are the members' operands in pairs (a_0, b_0, a_1, b_1, ...), its
// writes their products (c_0, c_1, ...), every buffer distinct, no epilogue.
// A plain matmul is a batch of one: its writes are c and, with
// sd::output_amax, the amax after it. statement::target is c_0.
constexpr std::int32_t matmul_batch_size(const statement& s) {
  return s.writes_count - (s.amax_d >= 0 ? 1 : 0);
}
// The reads are a, b (unless it is a), the bias (matmul_bias), then the
// scales (each once).
constexpr matmul_buffers matmul_operands_of(const program_view& p, const statement& s) {
  const auto reads = reads_of(p, s);
  if (matmul_batch_size(s) > 1) return {reads[0].buffer, reads[1].buffer, -1};  // a batch: its first member's
  const bool bias = (s.matmul_mode & matmul_bias) != 0;
  const auto last = reads.size() - matmul_scale_reads(s) - (bias ? 2 : 1);
  return {reads[0].buffer, reads[last].buffer, bias ? reads[last + 1].buffer : -1,
          s.scale_a,       s.scale_b,          s.scale_d,
          s.amax_d};
}

struct matmul_member {
  std::int32_t a = -1, b = -1, c = -1;
};
constexpr matmul_member matmul_member_of(const program_view& p, const statement& s, std::int32_t j) {
  if (matmul_batch_size(s) == 1) {
    const auto o = matmul_operands_of(p, s);
    return {o.a, o.b, s.target};
  }
  const auto at = [&](std::int32_t i) {
    return p.accesses[static_cast<std::size_t>(s.accesses_first + i)].buffer;
  };
  return {at(2 * j), at(2 * j + 1), at(s.reads_count + j)};
}

// Which matmuls may be a batch's members (passes/batch_matmuls.hpp groups
// them): plain matmul steps (one product) with no epilogue, of three
// distinct buffers, the product written whole; and none of FP8, scaled or
// not (sd::scales takes FP8 operands): FP8 batches were not measured, and an
// FP8 matmul's bind-time checks (cuBLASLt's FP8 requirements,
// backend/cuda/matmul.hpp) are its own, so a batch has neither FP8 operands
// nor scales.
constexpr bool matmul_batchable(const program_view& p, const statement& s) {
  if (s.kind != stmt_kind::step || s.code != step_code::matmul || s.writes_count != 1) return false;
  if ((s.matmul_mode & matmul_epilogue_bits) != 0) return false;
  const auto o = matmul_operands_of(p, s);
  if (o.scale_a >= 0 || o.scale_b >= 0 || o.scale_d >= 0 || o.amax_d >= 0 ||
      is_fp8(p.buffers[static_cast<std::size_t>(o.a)].type))
    return false;
  return o.a != o.b && o.a != s.target && o.b != s.target && is_whole(writes_of(p, s)[0]);
}

// The rule that decides, once a batch's buffers are bound, how the CUDA
// executor runs it (backend/cuda/matmul.hpp): one strided-batched
// cublasLtMatmul when each operand's members lie at one stride (a_j at
// a_0 + j * stride, the strides positive, whole elements, c's members not
// overlapping; temps, whose addresses are per run, never do) and each
// product is at most matmul_batch_flop_limit floating-point operations
// (2mnk); else each member's own call, one after another on the batch's
// stream. Measured on the H200 (docs/benchmarks.md, issue 14): one
// strided-batched call over 64 bf16 products was 3.78x faster than a
// 4-stream graph of them at 512^3 (0.27 GFLOP each), 1.65x at 1024^3 and
// 1.54x at 256x4096x1024 (2.1 GFLOP each); a product of 8192^3 (1100 GFLOP)
// fills the GPU alone, so concurrency cannot pay there. The limit, 2^32
// (4.3 GFLOP), is twice the largest measured product that paid, below any
// that was not measured. The host executor runs the members' loops in order,
// whatever the rule.
inline constexpr unsigned long long matmul_batch_flop_limit = 1ull << 32;
inline constexpr const char* matmul_batch_rule =
    "one strided-batched cublasLtMatmul if bound at one stride per operand and 2mnk <= 2^32, else each "
    "member's call";
constexpr bool matmul_batch_pays(long long m, long long n, long long k) {
  const auto u = [](long long x) { return static_cast<unsigned long long>(x); };
  if (m <= 0 || n <= 0 || k <= 0) return false;
  // 2mnk <= limit, without overflow
  return u(m) <= matmul_batch_flop_limit / 2 / u(n) / u(k);
}

// The region an assignment writes.
// (Indexed in place: fusion asks for it per statement each time it runs.)
constexpr const region& target_of(const program_view& p, const statement& s) {
  return p.accesses[static_cast<std::size_t>(s.accesses_first + s.reads_count)];
}

// A reduction's or scan's types (ir/step.hpp): its values are converted to
// the accumulation type and combined; the finished value (an int64_t index
// for argmax, else the accumulated value) is rounded to the result type,
// then stored in the target's.
struct step_types {
  dtype accumulated, finished, result, target;
};
constexpr step_types step_types_of(const program_view& p, const statement& s) {
  const dtype in = p.nodes[static_cast<std::size_t>(s.root)].type;
  const dtype accumulated = accumulation_type(in);
  return {accumulated, s.code == step_code::argmax ? dtype::int64 : accumulated, step_result_type(s.code, in),
          p.buffers[static_cast<std::size_t>(s.target)].type};
}

// The shape a reduction or scan iterates: a reduction its expression's
// (domain -1: one element), a scan its target's (0-d values broadcast).
struct step_shape {
  std::int32_t domain = -1;
  std::int32_t parts = 1;
};
constexpr step_shape shape_of_step(const program_view& p, const statement& s) {
  if (info(s.code).form == step_form::reduction) {
    const auto& n = p.nodes[static_cast<std::size_t>(s.root)];
    return {n.domain, n.domain < 0 ? 1 : n.parts};
  }
  const auto& t = target_of(p, s);
  return {p.buffers[static_cast<std::size_t>(t.buffer)].domain, t.parts};
}
// How many elements that shape has once domain d is bound to extent[d].
constexpr std::size_t element_count(step_shape shape, detail::array_view<std::size_t> extent) {
  return shape.domain < 0
             ? 1
             : extent[static_cast<std::size_t>(shape.domain)] / static_cast<std::size_t>(shape.parts);
}

}  // namespace streamdsl::ir
