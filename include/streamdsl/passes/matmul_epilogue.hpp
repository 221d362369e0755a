#pragma once
// Epilogue folding: `c = sd::matmul(a, b); d = relu(c + bias);` runs as one
// matmul whose epilogue (cuBLASLt's CUBLASLT_EPILOGUE_RELU_BIAS) applies the
// consumer while the product is in registers: c is never stored, and the
// consumer's kernel (a full read and write of the product) is gone.
//
// The consumer W (`d = e`) folds into the matmul M (`c = sd::matmul(a, b)`) when
//   - e is act(s * alpha + bias) with each part optional but one present:
//     act is relu or gelu_tanh (cuBLASLt's GELU is the tanh form; gelu with
//     erf is not foldable), `+ bias` adds a rank-1 buffer over c's columns
//     (a row repeated down the rows: cuBLASLt's bias vector, whose length is
//     the rows of its column-major D, backend/cuda/matmul.hpp), `* alpha`
//     scales by a param or a literal (either side of + and * may be written
//     first); s is the load of c;
//   - every node of it computes in c's type, bias and a param alpha are of
//     that type, and d is of that type too (no conversion hides in it), and
//     the operand and product types take the epilogue
//     (ir::matmul_epilogue_supported: not double, GELU only into __half and
//     __nv_bfloat16, whose rounding hides cuBLASLt's approximate tanh);
//   - d is c itself (`h = sd::matmul(x, w); h = relu(h + b);`: the value
//     between them is never seen), or c is a temp that M writes and W reads,
//     and nothing else touches;
//   - d is written whole, and is neither a nor b (a matmul cannot overwrite
//     an operand);
//   - W is the next statement of M's stream after M: no statement of that
//     stream (a sync either) lies between them, so nothing is ordered
//     between them that the fold could reorder (other streams' statements in
//     between are concurrent with both).
// M then writes d and reads the bias after its operands
// (ir::matmul_operands_of), its mode gains the epilogue's bits and its root
// alpha's node (ir/step.hpp); W is removed with a note. The backends apply
// the epilogue in the order above: the host in c's type, rounding after each
// operation as the unfolded program would (backend/host/matmul.hpp), so its
// results do not change; cuBLASLt in float before rounding once.
// Under sd::as_written (nothing moves) and sd::no_fusion the pass does not run.
#include "../detail/dyn_array.hpp"
#include "../detail/text.hpp"
#include "../ir/accesses.hpp"
#include "../ir/describe.hpp"
#include "../plan/plan_model.hpp"
#include "erase_statements.hpp"

namespace streamdsl::passes {

namespace matmul_epilogue_detail {

// What a consumer's expression folds to; mode 0 when it does not.
struct epilogue {
  std::uint8_t mode = 0;
  std::int32_t bias = -1;   // buffer
  std::int32_t alpha = -1;  // node
};

// Matches e = act(s * alpha + bias) over the load of temp c (type t, over
// product domain `over`) in program p, or returns mode 0.
template <class = void>
constexpr epilogue match(const ir::program& p, std::int32_t root, std::int32_t c) {
  const auto& cb = p.buffers[static_cast<std::size_t>(c)];
  const dtype t = cb.type;
  const auto node = [&](std::int32_t id) -> const ir::expr_node& {
    return p.nodes[static_cast<std::size_t>(id)];
  };
  // Each node computes in t and yields t (so no conversion is hidden in it).
  const auto in_type = [&](std::int32_t id) { return node(id).type == t && node(id).compute == t; };
  const auto is_c = [&](std::int32_t id) {
    const auto& n = node(id);
    return n.code == ir::op::load && n.ref == c && n.parts == 1;
  };
  const auto is_bias = [&](std::int32_t id) {
    const auto& n = node(id);
    if (n.code != ir::op::load || n.ref == c || n.parts != 1) return false;
    const auto& b = p.buffers[static_cast<std::size_t>(n.ref)];
    return b.type == t && b.domain >= 0 &&
           ir::broadcast_of(ir::view_of(p).domains, b.domain, cb.domain) == ir::load_index::row_vector;
  };
  const auto is_alpha = [&](std::int32_t id) {
    const auto& n = node(id);
    if (n.domain >= 0) return false;
    if (n.code == ir::op::param) return p.params[static_cast<std::size_t>(n.ref)].type == t;
    // An integral literal is taken through a double (the backends): exact up
    // to 2^53; a 16-bit float literal only of t's own type
    // (backend/matmul_epilogue.hpp, literal_as).
    constexpr std::int64_t exact = std::int64_t{1} << 53;
    if (n.code != ir::op::literal) return false;
    switch (category_of(n.type)) {
      case dtype_category::boolean: return false;
      case dtype_category::integral: return n.ivalue <= exact && n.ivalue >= -exact;
      case dtype_category::floating:
        return n.type == dtype::float32 || n.type == dtype::float64 || n.type == t;
    }
    return false;
  };
  // Of binary node `at` (op `code`), the operand that `fits`, either side:
  // it is taken, and `at` moves to the other operand. False if none fits.
  const auto take = [&](std::int32_t& at, ir::op code, auto fits, std::int32_t& taken) {
    const auto& n = node(at);
    if (n.code != code) return false;
    const bool second = fits(n.b);
    if (!second && !fits(n.a)) return false;
    taken = second ? n.b : n.a;
    at = second ? n.a : n.b;
    return true;
  };
  epilogue e;
  std::int32_t at = root, bias_load = -1;
  if (!in_type(at)) return {};
  if (node(at).code == ir::op::relu || node(at).code == ir::op::gelu_tanh) {
    e.mode |= node(at).code == ir::op::relu ? ir::matmul_relu : ir::matmul_gelu_tanh;
    at = node(at).a;
    if (!in_type(at)) return {};
  }
  if (node(at).code == ir::op::add) {
    if (!take(at, ir::op::add, is_bias, bias_load) || !in_type(at)) return {};
    e.mode |= ir::matmul_bias;
    e.bias = node(bias_load).ref;
  }
  if (node(at).code == ir::op::mul) {
    if (!take(at, ir::op::mul, is_alpha, e.alpha)) return {};
    e.mode |= ir::matmul_alpha;
  }
  if (!is_c(at) || e.mode == 0) return {};
  return e;
}

}  // namespace matmul_epilogue_detail

template <class = void>
constexpr void fold_matmul_epilogues(plan_model& m) {
  using namespace matmul_epilogue_detail;
  auto& p = m.ir;
  if (!ir::has_matmul(p.stmts)) return;  // the common case: nothing to scan
  const auto n = static_cast<std::int32_t>(p.stmts.size());

  // Per temp: the first two statements that touch it, and how many do.
  detail::dyn_array<std::int32_t> first(p.buffers.size(), -1), second(p.buffers.size(), -1),
      last(p.buffers.size(), -1), touches(p.buffers.size(), 0);
  for (std::int32_t i = 0; i < n; ++i) {
    const auto& s = p.stmts[i];
    if (!ir::accesses_buffers(s.kind)) continue;
    const auto from = static_cast<std::size_t>(s.accesses_first);
    for (std::size_t k = 0; k < static_cast<std::size_t>(s.reads_count + s.writes_count); ++k) {
      const auto t = static_cast<std::size_t>(p.accesses[from + k].buffer);
      if (p.buffers[t].kind != ir::access::temp || last[t] == i) continue;
      last[t] = i;
      if (touches[t] == 0) first[t] = i;
      if (touches[t] == 1) second[t] = i;
      ++touches[t];
    }
  }

  detail::dyn_array<bool> drop(p.stmts.size(), false);
  for (std::int32_t i = 0; i < n; ++i) {
    const auto& mm = p.stmts[i];
    if (mm.kind != ir::stmt_kind::step || mm.code != ir::step_code::matmul) continue;
    // A batch (passes/batch_matmuls.hpp): its products stay stored; an FP8
    // product with an amax (a second write) takes no epilogue either.
    if (mm.writes_count > 1) continue;
    const auto c = mm.target;
    std::int32_t w = i + 1;  // the next statement of the matmul's stream
    while (w < n && p.stmts[w].stream != mm.stream) ++w;
    if (w == n || p.stmts[w].kind != ir::stmt_kind::assign) continue;
    const auto view = ir::view_of(p);
    const auto& consumer = p.stmts[w];
    const auto d = ir::target_of(view, consumer);
    // c is overwritten by the consumer (`h = sd::matmul(x, w); h = relu(h + b);`),
    // or a temp nothing else touches.
    const bool in_place = d.buffer == c;
    const auto ct = static_cast<std::size_t>(c);
    if (!in_place &&
        (p.buffers[ct].kind != ir::access::temp || touches[ct] != 2 || first[ct] != i || second[ct] != w))
      continue;
    const auto ops = ir::matmul_operands_of(view, mm);
    const auto& db = p.buffers[static_cast<std::size_t>(d.buffer)];
    const auto& cb = p.buffers[ct];
    const auto in = p.buffers[static_cast<std::size_t>(ops.a)].type;
    if (!ir::is_whole(d) || d.buffer == ops.a || d.buffer == ops.b || db.type != cb.type ||
        db.domain != cb.domain)
      continue;
    const auto e = match(p, consumer.root, c);
    if (e.mode == 0 || !ir::matmul_epilogue_supported(in, cb.type, e.mode)) continue;

    detail::text note;
    note << "epilogue: ";
    ir::describe_statement(view, w, note);
    note << " is folded into ";
    ir::describe_statement(view, i, note);
    note << " as cuBLASLt's epilogue " << ir::matmul_epilogue_name(e.mode);
    if (!in_place) note << " (temp '" << view.buffer_name(c) << "' is never stored)";
    m.note(note);

    auto& folded = p.stmts[i];
    folded.matmul_mode = static_cast<std::uint8_t>(folded.matmul_mode | e.mode);
    folded.root = e.alpha;
    folded.target = d.buffer;
    // Its accesses anew: the operands, the bias, then d.
    const auto a = ops.a, b = ops.b;
    folded.accesses_first = static_cast<std::int32_t>(p.accesses.size());
    p.accesses.push_back(ir::whole(a));
    if (b != a) p.accesses.push_back(ir::whole(b));
    if (e.bias >= 0) p.accesses.push_back(ir::whole(e.bias));
    folded.reads_count = static_cast<std::int32_t>(p.accesses.size()) - folded.accesses_first;
    p.accesses.push_back(d);
    folded.writes_count = 1;
    drop[static_cast<std::size_t>(w)] = true;
  }
  erase_statements(p, drop);
}

// Growth bound (passes/schedule.hpp's bounds_of): each folded matmul lists
// its accesses anew, at most four (a, b, the bias, d), and only in programs
// with a matmul. Its notes are counted by notes_bound (a note per removed
// statement).
template <class = void>
constexpr plan_sizes fold_matmul_epilogues_bound(plan_sizes z, const ir::program& p) {
  if (!ir::has_matmul(p.stmts)) return z;
  std::size_t matmuls = 0;
  for (const auto& s : p.stmts) matmuls += s.kind == ir::stmt_kind::step && s.code == ir::step_code::matmul;
  z.accesses += 4 * matmuls;
  return z;
}

}  // namespace streamdsl::passes
