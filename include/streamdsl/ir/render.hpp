#pragma once
// Statements and expressions as C++-like text, for dumps and error messages.
// All [[gnu::cold]]: never on a hot path at run time, and g++ then compiles
// them for size and inlines none of them into the executors' code.

#include "../detail/text.hpp"
#include "accesses.hpp"
#include "program_view.hpp"

namespace streamdsl::ir {

[[gnu::cold]] constexpr void render_literal(const expr_node& n, detail::text& out) {
  if (n.type == dtype::boolean)
    out << (n.ivalue != 0 ? "true" : "false");
  else if (category_of(n.type) == dtype_category::integral)
    out << static_cast<long long>(n.ivalue);
  else
    detail::append_number(out, n.fvalue);
}

// `x`, or `x.chunk(3, 16)` for a part of it.
[[gnu::cold]] constexpr void render_region(const program_view& p, const region& r, detail::text& out) {
  out << p.buffer_name(r.buffer);
  if (!is_whole(r)) out << ".chunk(" << r.part << ", " << r.parts << ')';
}

[[gnu::cold]] constexpr void render_expr(const program_view& p, std::int32_t id, detail::text& out,
                                         int outer = -1) {
  const expr_node& n = p.nodes[id];
  const op_info& o = info(n.code);
  switch (o.form) {
    case op_form::leaf:
      if (n.code == op::load)
        render_region(p, {n.ref, n.part, n.parts}, out);
      else if (n.code == op::param)
        out << p.name(p.params[n.ref].name);
      else
        render_literal(n, out);
      return;
    case op_form::prefix: {
      // -(-x) and -(-1.5), not --x (a decrement in C++) and --1.5.
      detail::text operand;
      render_expr(p, n.a, operand, o.precedence);
      const bool parens =
          o.spelling == detail::string_view("-") && operand.size() > 0 && operand.view()[0] == '-';
      out << o.spelling;
      if (parens) out << '(';
      out << operand.view();
      if (parens) out << ')';
      return;
    }
    case op_form::infix: {
      const bool parens = o.precedence < outer;
      if (parens) out << '(';
      render_expr(p, n.a, out, o.precedence);
      out << ' ' << o.spelling << ' ';
      render_expr(p, n.b, out, o.precedence + 1);  // left-associative
      if (parens) out << ')';
      return;
    }
    case op_form::call: break;
  }
  out << o.spelling;
  if (o.result == result_rule::cast_target) out << '<' << name_of(n.type) << '>';
  out << '(';
  const std::int32_t operands[] = {n.a, n.b, n.c};
  for (int i = 0; i < o.arity; ++i) {
    if (i > 0) out << ", ";
    render_expr(p, operands[i], out);
  }
  out << ')';
}

[[gnu::cold]] constexpr void render_statement(const program_view& p, const statement& s, detail::text& out) {
  switch (s.kind) {
    case stmt_kind::assign:
      render_region(p, p.accesses[static_cast<std::size_t>(s.accesses_first + s.reads_count)], out);
      out << " = ";
      render_expr(p, s.root, out);
      return;
    case stmt_kind::step: {
      if (reads_expression(s.code)) {  // s = sd::sum(x * y)
        render_region(p, p.accesses[static_cast<std::size_t>(s.accesses_first + s.reads_count)], out);
        out << " = " << info(s.code).spelling << '(';
        render_expr(p, s.root, out);
        if (s.axis >= 0) out << ", " << p.domain_name(s.axis);  // along the last axis
        out << ')';
        return;
      }
      if (info(s.code).form == step_form::matmul) {  // c = sd::matmul(a, sd::transpose(b))
        // With a folded epilogue (ir::matmul_epilogue_bits):
        // d = relu(2 * sd::matmul(a, b) + bias)  [cuBLASLt epilogue RELU_BIAS]
        const auto m = matmul_operands_of(p, s);
        const auto mode = s.matmul_mode;
        if (matmul_batch_size(s) > 1) {  // a batch (passes/batch_matmuls.hpp): its first and last members
          const auto member = [&](std::int32_t j) {
            const auto x = matmul_member_of(p, s, j);
            out << p.buffer_name(x.c) << " = sd::matmul(";
            if (mode & transpose_a) out << "sd::transpose(" << p.buffer_name(x.a) << ')';
            if (!(mode & transpose_a)) out << p.buffer_name(x.a);
            out << ", ";
            if (mode & transpose_b) out << "sd::transpose(" << p.buffer_name(x.b) << ')';
            if (!(mode & transpose_b)) out << p.buffer_name(x.b);
            if (mode & matmul_tf32) out << ", sd::tf32";
            out << ')';
          };
          member(0);
          out << (s.writes_count > 2 ? "; ...; " : "; ");
          member(s.writes_count - 1);
          out << "  [batch of " << s.writes_count << " matmuls]";
          return;
        }
        const bool act = (mode & (matmul_relu | matmul_gelu_tanh)) != 0;
        out << p.buffer_name(s.target) << " = ";
        if (act) out << ((mode & matmul_relu) ? "relu(" : "gelu_tanh(");
        if (mode & matmul_alpha) {
          render_expr(p, s.root, out, precedence(op::mul));
          out << " * ";
        }
        out << "sd::matmul(";
        if (mode & transpose_a) out << "sd::transpose(" << p.buffer_name(m.a) << ')';
        if (!(mode & transpose_a)) out << p.buffer_name(m.a);
        out << ", ";
        if (mode & transpose_b) out << "sd::transpose(" << p.buffer_name(m.b) << ')';
        if (!(mode & transpose_b)) out << p.buffer_name(m.b);
        if (mode & matmul_tf32) out << ", sd::tf32";
        if (m.scale_a >= 0 && m.scale_b >= 0) {
          out << ", sd::scales(" << p.buffer_name(m.scale_a) << ", " << p.buffer_name(m.scale_b);
          if (m.scale_d >= 0) out << ", sd::output_scale(" << p.buffer_name(m.scale_d) << ')';
          if (m.amax_d >= 0) out << ", sd::output_amax(" << p.buffer_name(m.amax_d) << ')';
          out << ')';
        }
        out << ')';
        if (m.bias >= 0) out << " + " << p.buffer_name(m.bias);
        if (act) out << ')';
        if (mode & matmul_epilogue_bits) out << "  [cuBLASLt epilogue " << matmul_epilogue_name(mode) << ']';
        return;
      }
      if (info(s.code).form == step_form::call) {  // p.call("f", sd::reads(x), sd::writes(y)), p.host_call
        out << info(s.code).spelling << "(\"" << p.call_name(s.event) << '"';
        const auto first = static_cast<std::size_t>(s.accesses_first);
        const auto list = [&](const char* spelling, std::size_t from, std::int32_t count) {
          if (count == 0) return;
          out << ", " << spelling << '(';
          for (std::size_t k = 0; k < static_cast<std::size_t>(count); ++k) {
            if (k > 0) out << ", ";
            render_region(p, p.accesses[from + k], out);
          }
          out << ')';
        };
        list("sd::reads", first, s.reads_count);
        list("sd::writes", first + static_cast<std::size_t>(s.reads_count), s.writes_count);
        out << ')';
        return;
      }
      if (info(s.code).form == step_form::collective) {  // y = sd::all_reduce(x, sd::reduce_op::sum)
        const auto& source = p.accesses[static_cast<std::size_t>(s.accesses_first)];
        const auto& target = p.accesses[static_cast<std::size_t>(s.accesses_first + 1)];
        if (!(target == source)) {  // in place: the statement alone, `sd::all_reduce(x, op)`
          render_region(p, target, out);
          out << " = ";
        }
        out << info(s.code).spelling << '(';
        render_region(p, source, out);
        if (reduces(s.code)) out << ", " << spelling_of(collective_op_of(s));
        if (s.code == step_code::broadcast) out << ", " << collective_root_of(s);
        out << ')';
        return;
      }
      // The written regions first, as in sd::copy(dst, src).
      out << info(s.code).spelling << '(';
      const auto first = static_cast<std::size_t>(s.accesses_first);
      const auto n = static_cast<std::size_t>(s.reads_count + s.writes_count);
      for (std::size_t k = 0; k < n; ++k) {
        if (k > 0) out << ", ";
        render_region(p, p.accesses[first + (k + static_cast<std::size_t>(s.reads_count)) % n], out);
      }
      out << ')';
      return;
    }
    case stmt_kind::record: out << p.event_name(s.event) << ".record()"; return;
    case stmt_kind::wait: out << p.event_name(s.event) << ".wait()"; return;
    case stmt_kind::wait_stream:
      out << p.stream_name(s.stream) << ".wait_stream(" << p.stream_name(s.other) << ')';
      return;
  }
}

[[gnu::cold]] constexpr detail::text statement_text(const program_view& p, const statement& s) {
  detail::text t;
  render_statement(p, s, t);
  return t;
}

// "statement #3 `z = y * 2` on stream 'main'"
[[gnu::cold]] constexpr void describe_statement(const program_view& p, std::int32_t index,
                                                detail::text& out) {
  const statement& s = p.stmts[index];
  out << "statement #" << (s.origin >= 0 ? s.origin : index) << " `";
  render_statement(p, s, out);
  out << "` on stream '" << p.stream_name(s.stream) << '\'';
}

// A sync statement for notes: the user's own, or one a pass made.
[[gnu::cold]] constexpr void describe_sync(const ir::program_view& p, std::int32_t i, detail::text& t) {
  const auto& s = p.stmts[i];
  const auto& e = p.events[s.event];
  if (e.role == event_role::user) {
    describe_statement(p, i, t);
  } else {
    t << (e.role == event_role::automatic ? "inserted " : "wait_stream ")
      << (s.kind == stmt_kind::record ? "record" : "wait") << " of '" << p.event_name(s.event)
      << "' on stream '" << p.stream_name(s.stream) << '\'';
  }
}

}  // namespace streamdsl::ir
