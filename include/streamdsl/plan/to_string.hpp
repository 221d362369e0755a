#pragma once
// The plan as text, one block per stream in issue order: what the compiler
// made of the program (like TORCH_LOGS=output_code). Printing is never hot:
// [[gnu::cold]] keeps g++ from inlining and optimising every append of the
// dump into the caller (a quarter of the compile time of a unit that prints
// a 50-statement plan).

#include "../detail/text.hpp"
#include "../ir/render.hpp"
#include "plan_view.hpp"

namespace streamdsl {

namespace detail {

// `number`: the op's entry of p.record_numbers() (0: the event is recorded once).
[[gnu::cold]] constexpr void render_sync(const plan_view& p, const plan_op& op, std::int32_t number,
                                         text& t) {
  const auto& v = p.ir;
  if (op.role == sync_role::entry) {
    t << (op.kind == op_kind::record ? "record entry" : "wait main (entry edge)");
    return;
  }
  if (op.role == sync_role::exit) {
    if (op.kind == op_kind::record)
      t << "record exit";
    else
      t << "wait " << v.stream_name(p.ops[static_cast<std::size_t>(op.waits_for)].stream) << " (exit edge)";
    return;
  }
  p.name_sync(op, number, t);
  if (op.kind == op_kind::wait) {
    const auto& rec = p.ops[static_cast<std::size_t>(op.waits_for)];
    t << " (recorded on " << v.stream_name(rec.stream) << ')';
  }
  if (op.role == sync_role::automatic) t << "  // inserted by sd::automatic";
  if (op.role == sync_role::wait_stream) {
    if (op.kind == op_kind::record)
      t << "  // for a wait_stream";
    else
      t << "  // " << v.stream_name(op.stream) << ".wait_stream("
        << v.stream_name(p.ops[static_cast<std::size_t>(op.waits_for)].stream) << ')';
  }
}

[[gnu::cold]] constexpr void render_kernel(const plan_view& p, std::int32_t k, text& t, int indent = 4) {
  const auto& info = p.kernels[static_cast<std::size_t>(k)];
  t << "kernel k" << k << " over ";
  if (info.parts > 1) t << "1/" << info.parts << " of ";
  t << p.ir.domain_name(info.domain) << " {\n";
  for (auto i : p.kernel_statements(static_cast<std::size_t>(k))) {
    const auto& s = p.ir.stmts[i];
    t.indent(indent + 2);
    ir::render_statement(p.ir, s, t);
    t << ';';
    const auto where = p.storage[static_cast<std::size_t>(s.target)];
    if (where == storage_register)
      t << "  // register";
    else if (where >= 0)
      t << "  // slot " << where;
    t << '\n';
  }
  t.indent(indent) << '}';
}

// A kernel op: one kernel, or the kernels of a multi-tensor launch, each a
// segment of one grid. Out of line: inlined into dump, g++ -O2 optimises it
// against each program's constant plan (with the header's launch count,
// now left to this line: plan 20 +70 M instructions, 2.7% of its compile).
[[gnu::cold, gnu::noinline]] constexpr void render_launch(const plan_view& p, std::int32_t k, text& t) {
  const auto n = static_cast<std::int32_t>(p.segments_of(static_cast<std::size_t>(k)));
  if (n == 1) return render_kernel(p, k, t);
  t << "launch of " << n << " kernels, one grid {\n";
  for (std::int32_t g = k; g < k + n; ++g) {
    t.indent(6);
    render_kernel(p, g, t, 6);
    t << '\n';
  }
  t.indent(4) << '}';
}

}  // namespace detail

// Constexpr, so tests can check a dump with static_assert.
[[gnu::cold]] constexpr detail::text dump(const plan_view& p) {
  detail::text t;
  const auto& v = p.ir;
  t << "// streamdsl plan: " << p.kernel_count() << (p.kernel_count() == 1 ? " kernel, " : " kernels, ");
  if (p.step_count() > 0) t << p.step_count() << (p.step_count() == 1 ? " step, " : " steps, ");
  t << p.sync_count() << " syncs, " << v.streams.size() << (v.streams.size() == 1 ? " stream" : " streams")
    << ", " << p.slot_count() << " workspace slots\n";
  const auto numbers = p.record_numbers();
  for (std::int32_t s = 0; s < static_cast<std::int32_t>(v.streams.size()); ++s) {
    bool any = false;
    for (const auto& op : p.ops) any = any || op.stream == s;
    if (!any) continue;
    t << "stream " << v.stream_name(s) << ":\n";
    std::size_t group_end = 0;  // past the last op of the row group being shown
    for (std::size_t i = 0; i < p.ops.size(); ++i) {
      const auto& op = p.ops[i];
      if (op.stream != s) continue;
      if (op.group > 1) {  // passes/row_groups.hpp: one kernel on the GPU
        group_end = i + static_cast<std::size_t>(op.group);
        t.indent(4) << "row group of " << op.group
                    << " ops (one kernel on the GPU: a block per row, the ops in turn over it) {\n";
      }
      const int indent = i < group_end ? 6 : 4;
      t.indent(indent);
      if (op.kind == op_kind::kernel) {
        if (i < group_end)
          detail::render_kernel(p, op.kernel, t, indent);
        else
          detail::render_launch(p, op.kernel, t);
      } else if (op.kind == op_kind::step) {
        ir::render_statement(v, v.stmts[op.stmt], t);
        t << ';';
      } else {
        detail::render_sync(p, op, numbers[i], t);
      }
      t << '\n';
      if (i + 1 == group_end) t.indent(4) << "}\n";
    }
  }
  t << "buffers:\n";
  for (std::int32_t b = 0; b < static_cast<std::int32_t>(v.buffers.size()); ++b) {
    const auto& info = v.buffers[b];
    t.indent(4) << ir::space_prefix(info.space) << ir::name_of(info.kind) << ' ' << name_of(info.type) << ' '
                << v.buffer_name(b);
    if (info.domain >= 0)
      t << '[' << v.domain_name(info.domain) << ']';
    else
      t << " (0-d)";
    const auto where = p.storage[static_cast<std::size_t>(b)];
    if (where == storage_register)
      t << "  // registers only";
    else if (where >= 0)
      t << "  // workspace slot " << where;
    t << '\n';
  }
  if (!v.params.empty()) {
    t << "params:\n";
    for (const auto& q : v.params)
      t.indent(4) << "param " << name_of(q.type) << ' ' << v.name(q.name) << '\n';
  }
  if (!p.notes.empty()) {
    t << "notes:\n";
    for (std::size_t i = 0; i < p.notes.size(); ++i) t.indent(4) << p.note(i) << '\n';
  }
  return t;
}

}  // namespace streamdsl
