#pragma once
// The plan as a Graphviz graph: one cluster per stream, program order within
// it, and a dashed edge from each record to the waits it releases.

#include "../detail/text.hpp"
#include "to_string.hpp"

namespace streamdsl {

namespace detail {
[[gnu::cold]] constexpr void dot_escape(text& t, detail::string_view s) {
  for (char c : s) {
    if (c == '"' || c == '\\') t << '\\';
    if (c == '\n')
      t << "\\l";
    else
      t << c;
  }
}
}  // namespace detail

[[gnu::cold]] constexpr detail::text dump_dot(const plan_view& p) {
  detail::text t;
  const auto& v = p.ir;
  const auto numbers = p.record_numbers();
  t << "digraph streamdsl {\n  node [shape=box, fontname=\"monospace\"];\n";
  for (std::int32_t s = 0; s < static_cast<std::int32_t>(v.streams.size()); ++s) {
    t << "  subgraph cluster_" << s << " {\n    label=\"stream " << v.stream_name(s) << "\";\n";
    std::int32_t previous = -1;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.ops.size()); ++i) {
      const auto& op = p.ops[static_cast<std::size_t>(i)];
      if (op.stream != s) continue;
      detail::text label;
      if (op.kind == op_kind::kernel) {
        detail::render_launch(p, op.kernel, label);
      } else if (op.kind == op_kind::step) {
        ir::render_statement(v, v.stmts[op.stmt], label);
      } else {
        detail::render_sync(p, op, numbers[static_cast<std::size_t>(i)], label);
      }
      t << "    op" << i << " [label=\"";
      detail::dot_escape(t, label.view());
      t << "\""
        << (op.kind == op_kind::kernel ? ""
            : op.kind == op_kind::step ? ", shape=box3d"
                                       : ", shape=ellipse")
        << "];\n";
      if (previous >= 0) t << "    op" << previous << " -> op" << i << ";\n";
      previous = i;
    }
    t << "  }\n";
  }
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.ops.size()); ++i) {
    const auto& op = p.ops[static_cast<std::size_t>(i)];
    if (op.kind == op_kind::wait) t << "  op" << op.waits_for << " -> op" << i << " [style=dashed];\n";
  }
  t << "}\n";
  return t;
}

}  // namespace streamdsl
