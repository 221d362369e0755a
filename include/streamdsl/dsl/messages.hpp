#pragma once
// The front end's error messages in words: each function writes one message
// of builder_state's checks. A message names the declaration, statement or
// expression at fault and says how to fix it (docs/errors.md quotes them).
#include "../detail/string_view.hpp"
#include "../detail/text.hpp"
#include "../ir/describe.hpp"
#include "../ir/dtype.hpp"
#include "../ir/program.hpp"
#include "../ir/render.hpp"
#include "../ir/shape.hpp"
#include "name_table.hpp"

namespace streamdsl::detail::messages {

// "an int32_t", "a float": type names as they read in a sentence.
constexpr text a_type(dtype type) {
  text t;
  t << (name_of(type)[0] == 'i' ? "an " : "a ") << name_of(type);
  return t;
}

constexpr string_view buffer_kind_name(ir::access kind) {
  switch (kind) {
    case ir::access::input: return "input buffer";
    case ir::access::output: return "output buffer";
    case ir::access::inout: return "inout buffer";
    case ir::access::temp: return "temp buffer";
  }
  return "buffer";
}

constexpr string_view buffer_family_name(ir::access kind) {
  switch (kind) {
    case ir::access::input: return "input buffer family";
    case ir::access::output: return "output buffer family";
    case ir::access::inout: return "inout buffer family";
    case ir::access::temp: return "temp buffer family";
  }
  return "buffer family";
}

#if !(defined(__NVCC__) && defined(__CUDA_ARCH__))

// --- declarations -----------------------------------------------------------

constexpr text invalid_name(string_view name, string_view what, const name_table& earlier) {
  text t;
  t << "invalid " << what << " name '";
  diag::append_elided(t, name, 60);
  t << "' (" << (name.empty() ? "empty" : "not an identifier") << "), declared ";
  if (earlier.size() > 0) {
    const auto last = earlier.size() - 1;
    t << "right after the " << earlier.declared_as(last) << " '" << earlier.name_at(last) << '\'';
  } else {
    t << "first in the program";
  }
  t << ": a name must be non-empty and made of letters, digits and '_' only, because it is the key that "
       "binds the "
    << what << " at run time and the label in plan dumps";
  return t;
}

// `name` is ir::main_stream_name (any declaration) or ir::default_domain_name (a domain).
constexpr text reserved_name(string_view name, string_view what) {
  text t;
  t << "reserved name '" << name << "': the " << what << " '" << name << "' takes the name of ";
  if (name == ir::main_stream_name)
    t << "the main stream (p.main_stream(), the stream the program is launched on)";
  else
    t << "the default domain, which buffers declared without a domain belong to";
  t << ", and messages and plan dumps could not tell them apart; give the " << what << " another name, e.g. '"
    << name << "2'";
  return t;
}

constexpr text duplicate_name(string_view name, string_view what, string_view earlier_what) {
  text t;
  text shown;  // a huge name would crowd out the rest of the message
  diag::append_elided(shown, name, 60);
  t << "duplicate name '" << shown.view() << "': the " << what << " '" << shown.view()
    << "' reuses the name of the earlier " << earlier_what
    << "; each buffer, param, stream, event and domain needs its own name, because names bind them at "
       "run "
       "time";
  return t;
}

// `what`: "input buffer family", "stream family", ...
constexpr text bad_family_size(string_view name, string_view what, std::int64_t count, std::int64_t limit) {
  text t;
  text shown;
  diag::append_elided(shown, name, 60);
  t << "the " << what << " '" << shown.view() << "' is declared with " << count
    << " members; a family has 1 to " << limit << " members, " << shown.view() << "[0] to " << shown.view()
    << "[k-1] for a size k";
  return t;
}

// The family's members are name[0] ... name[size-1].
constexpr text family_index_out_of_range(const ir::program& p, std::int32_t stream, string_view name,
                                         string_view what, std::int32_t size, std::int64_t index) {
  text shown;
  diag::append_elided(shown, name, 60);
  text t;
  t << shown.view() << '[' << index << "] is out of range: the " << what << " '" << shown.view() << "' has "
    << size << (size == 1 ? " member, " : " members, ") << shown.view() << "[0] to " << shown.view() << '['
    << size - 1 << "] (indexed where statement #" << p.stmts.size() << " on stream '"
    << p.name(p.streams[stream].name)
    << "' is written); keep the index below the family's size, or declare the family with more members";
  return t;
}

// --- expressions --------------------------------------------------------------

constexpr text expr_text(const ir::program& p, std::int32_t node) {
  text t;
  ir::render_expr(ir::view_of(p), node, t);
  return t;
}

// A suggested rewrite of an operand: `before<operand>after`, shortened.
constexpr void spell_fix(text& out, const ir::program& p, string_view before, std::int32_t node,
                         string_view after) {
  out << '`' << before;
  diag::append_elided(out, expr_text(p, node).view(), 40);
  out << after << '`';
}

// "the expression `e` in statement #i on stream 's' " + why. The statement
// is the one being written: its expression is not complete yet.
constexpr text in_expression(const ir::program& p, std::int32_t stream, std::int32_t node, const text& why) {
  text t;
  t << "the expression ";
  diag::quote_expr(ir::view_of(p), node, t);
  t << " in statement #" << p.stmts.size() << " on stream '" << p.name(p.streams[stream].name) << "' "
    << why.view();
  return t;
}

constexpr text negate_bool(const ir::program& p, std::int32_t operand) {
  text t;
  t << "negates a bool; write ";
  spell_fix(t, p, "!", operand, "");
  t << " for logical not, or ";
  spell_fix(t, p, "-sd::cast<int32_t>(", operand, ")");
  t << " for arithmetic";
  return t;
}

constexpr text not_of_non_bool(const ir::program& p, std::int32_t operand, dtype type) {
  text t;
  t << "applies ! to " << a_type(type).view() << " operand, and ! needs a bool; compare instead, e.g. ";
  spell_fix(t, p, "", operand, " == 0");
  return t;
}

// Two 16-bit float types, or uint64_t and a signed integer (converted to int64_t in the suggestion).
constexpr text incompatible_operands(const ir::program& p, std::int32_t a, dtype ta, std::int32_t b,
                                     dtype tb) {
  text t;
  t << "mixes " << name_of(ta) << " and " << name_of(tb)
    << ", which cannot represent each other; convert one side first, e.g. ";
  if (category_of(ta) == dtype_category::integral)
    spell_fix(t, p, "sd::cast<int64_t>(", ta == dtype::uint64 ? a : b, ")");
  else
    spell_fix(t, p, "sd::cast<float>(", a, ")");
  return t;
}

constexpr text logical_of_non_bool(const ir::program& p, ir::op code, std::int32_t bad, dtype type) {
  text t;
  t << "applies " << ir::spelling(code) << " to " << a_type(type).view() << " operand, and "
    << ir::spelling(code) << " needs bool operands; compare first, e.g. ";
  spell_fix(t, p, "(", bad, " != 0)");
  return t;
}

constexpr text arithmetic_on_bools(const ir::program& p, ir::op code, std::int32_t a) {
  text t;
  t << "applies " << ir::spelling(code)
    << " to bool operands; use && or || for logic, or cast to a number first, e.g. ";
  spell_fix(t, p, "sd::cast<int32_t>(", a, ")");
  return t;
}

// An FP8 operand of an operation other than sd::cast.
constexpr text fp8_operand(const ir::program& p, ir::op code, std::int32_t operand, dtype type) {
  text t;
  t << "applies " << ir::spelling(code) << " to " << a_type(type).view()
    << " operand; FP8 values only convert (as in PyTorch): compute in float, e.g. ";
  spell_fix(t, p, "sd::cast<float>(", operand, ")");
  t << ", and store an FP8 result with sd::cast<" << name_of(type) << ">(...)";
  return t;
}

// An operand of `code` (%, ~, &, |, ^, <<, >>) is not of a type the op
// takes: `bad`, of type `type`; a and b are the node's operands (b = -1 for ~).
constexpr text needs_integer_operands(const ir::program& p, ir::op code, std::int32_t bad, dtype type,
                                      std::int32_t a, std::int32_t b) {
  const bool remainder = code == ir::op::mod;
  const bool shift = code == ir::op::shl || code == ir::op::shr;
  text t;
  t << "needs integer " << (remainder || shift ? "" : "or bool ") << "operands for "
    << (remainder ? ""
        : shift   ? "shift "
                  : "bitwise ")
    << '\'' << ir::spelling(code) << "', and '";
  diag::append_elided(t, expr_text(p, bad).view(), 40);
  t << "' is " << name_of(type) << "; ";
  if (remainder && category_of(type) == dtype_category::floating) {
    t << "for the remainder of floats write `sd::fmod(";
    diag::append_elided(t, expr_text(p, a).view(), 40);
    t << ", ";
    diag::append_elided(t, expr_text(p, b).view(), 40);
    t << ")` (truncated, as std::fmod)";
  } else {
    t << "cast it first, e.g. ";
    spell_fix(t, p, "sd::cast<int32_t>(", bad, ")");
  }
  return t;
}

constexpr text where_condition_not_bool(const ir::program& p, std::int32_t c, dtype type) {
  text t;
  t << "has " << a_type(type).view() << " condition, and where(c, a, b) needs a bool c; compare first, e.g. ";
  spell_fix(t, p, "where(", c, " != 0, ...)");
  return t;
}

// Suggests widening the narrower branch (`narrow`, to `wide`): that loses nothing.
constexpr text where_branches_differ(const ir::program& p, dtype ta, dtype tb, std::int32_t narrow,
                                     dtype wide) {
  text t;
  t << "has branches of different types (" << name_of(ta) << " and " << name_of(tb)
    << ") and needs one; cast one branch, e.g. ";
  text cast_open;
  cast_open << "sd::cast<" << name_of(wide) << ">(";
  spell_fix(t, p, cast_open.view(), narrow, ")");
  return t;
}

constexpr text operand_domains_differ(const ir::program& p, std::int32_t stream, std::int32_t a,
                                      std::int32_t b) {
  const auto view = ir::view_of(p);
  text t;
  t << "statement #" << p.stmts.size() << " on stream '" << view.stream_name(stream) << "' combines ";
  diag::quote_expr(view, a, t, 60);
  t << " over domain '" << view.domain_name(p.nodes[a].domain) << "' with ";
  diag::quote_expr(view, b, t, 60);
  t << " over domain '" << view.domain_name(p.nodes[b].domain)
    << "'; the operands of an elementwise expression need one domain (only 0-d values, declared with "
       "sd::scalar, broadcast into any domain";
  if (ir::has_product(view.domains)) t << ", and vectors over a rank-2 domain's rows or columns into it";
  t << ')';
  return t;
}

// --- statements ---------------------------------------------------------------

constexpr text write_to_input(const ir::program& p, std::int32_t stmt, std::int32_t buffer) {
  const auto& b = p.buffers[buffer];
  const auto name = p.name(b.name);
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " writes the input buffer '" << name << "', and inputs are read-only; declare it with p.inout<"
    << name_of(b.type) << ">(\"" << name << "\") to update it in place, or write the result to an "
    << "output or temp buffer";
  return t;
}

// `written`: the statement writes `buffer` (else it reads it).
constexpr text host_memory_in_statement(const ir::program& p, std::int32_t stmt, std::int32_t buffer,
                                        bool written) {
  const auto& b = p.buffers[buffer];
  const auto name = p.name(b.name);
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  const auto& s = p.stmts[static_cast<std::size_t>(stmt)];
  const bool step = s.kind == ir::stmt_kind::step;
  t << (written ? " writes the " : " reads the ") << buffer_kind_name(b.kind) << " '" << name
    << "', which is in " << ir::memory_name(b.space)
    << (!step                             ? ", and elementwise statements run on the device; "
        : s.code == ir::step_code::matmul ? ", and matmuls run on the device; "
                                          : ", and reductions and scans run on the device; ");
  // A device buffer d of the same shape: a 0-d one for a 0-d buffer, one
  // over its domain for another domain (the default domain's would not take
  // the copy, nor a reduction's result).
  text device;
  device << "p.temp<" << name_of(b.type) << ">";
  if (b.domain < 0)
    device << "(\"d\", sd::scalar)";
  else if (b.domain != ir::default_domain)
    device << "(\"d\", " << ir::view_of(p).domain_name(b.domain) << ")";
  if (written)
    t << "write a device buffer (e.g. " << device.view() << ") and copy it with `sd::copy(" << name
      << ", d)`";
  else
    t << "copy it to a device buffer first with `sd::copy(d, " << name << ")` (d: e.g. " << device.view()
      << ") and use d";
  return t;
}

constexpr text temp_read_before_write(const ir::program& p, std::int32_t stmt, std::int32_t buffer) {
  const auto temp = p.name(p.buffers[buffer].name);
  const auto type = name_of(p.buffers[buffer].type);
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " reads the temp buffer '" << temp << "' before any statement writes it, and a temp holds no value "
    << "until the program writes one; assign '" << temp << "' first (`" << temp << " = ...`), or declare it "
    << "p.inout<" << type << ">(\"" << temp << "\") if the caller provides its value";
  return t;
}

constexpr text narrowing_store(const ir::program& p, std::int32_t stmt, std::int32_t buffer,
                               std::int32_t value, dtype value_type) {
  const auto& b = p.buffers[buffer];
  const auto name = p.name(b.name);
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " stores " << a_type(value_type).view() << " value in the " << name_of(b.type) << " buffer '" << name
    << (is_fp8(value_type) ? "'; FP8 values convert only explicitly: write `"
                           : "', which can lose information; if that is intended, write `")
    << name << " = sd::cast<" << name_of(b.type) << ">(";
  diag::append_elided(t, expr_text(p, value).view(), diag::code_limit);
  t << ")`";
  return t;
}

constexpr text store_domain_differs(const ir::program& p, std::int32_t stmt, std::int32_t buffer,
                                    std::int32_t domain) {
  const auto view = ir::view_of(p);
  const auto& b = p.buffers[buffer];
  const auto name = p.name(b.name);
  text t;
  diag::describe_statement(view, stmt, t);
  t << " writes an expression over domain '" << view.domain_name(domain) << "' to ";
  if (b.domain < 0)
    t << "the 0-d buffer '" << name << "', which holds one element";
  else
    t << "the buffer '" << name << "' of domain '" << view.domain_name(b.domain) << '\'';
  t << "; an elementwise statement writes every element of its target, so declare '" << name
    << "' over domain '" << view.domain_name(domain) << '\'';
  if (b.domain >= 0 && ir::is_product(p.domains[b.domain]))
    t << " (0-d values, and vectors over its rows or columns, broadcast into '" << name << "')";
  else
    t << " (only 0-d values broadcast)";
  if (b.domain < 0)
    t << ", or reduce the expression into it: `" << name
      << " = sd::sum(...)` (or sd::min, sd::max, sd::mean, "
      << "sd::norm, sd::argmax)";
  return t;
}

// --- reductions and scans -------------------------------------------------------

constexpr text reduction_target_not_scalar(const ir::program& p, std::int32_t stmt, std::int32_t buffer) {
  const auto view = ir::view_of(p);
  const auto& b = p.buffers[buffer];
  const auto name = p.name(b.name);
  text t;
  diag::describe_statement(view, stmt, t);
  t << " stores a reduction's one value in '" << name << "', a buffer over domain '"
    << view.domain_name(b.domain) << "'; a reduction's result is a 0-d buffer: declare one with sd::scalar "
    << "(e.g. p.temp<" << name_of(b.type) << ">(\"" << name << '_'
    << ir::info(p.stmts[stmt].code).spelling.substr(4)  // "sd::max" -> "max"
    << "\", sd::scalar)) and store the result there";
  return t;
}

constexpr text step_result_narrowing(const ir::program& p, std::int32_t stmt, std::int32_t buffer,
                                     ir::step_code code, dtype result) {
  const auto& b = p.buffers[buffer];
  const auto name = p.name(b.name);
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " stores " << ir::info(code).spelling << "'s " << name_of(result) << " result in the "
    << name_of(b.type) << " buffer '" << name << "', which can lose information; declare '" << name << "' as "
    << name_of(result) << " and convert it afterwards if you need to (`t = sd::cast<" << name_of(b.type)
    << ">(" << name << ")`)";
  return t;
}

constexpr text fp8_step_input(const ir::program& p, std::int32_t stmt, ir::step_code code, std::int32_t value,
                              dtype type) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << ": " << ir::info(code).spelling << " of " << a_type(type).view()
    << " expression; FP8 values only convert (as in PyTorch): write `" << ir::info(code).spelling
    << "(sd::cast<float>(";
  diag::append_elided(t, expr_text(p, value).view(), diag::code_limit);
  t << "))`";
  return t;
}

constexpr text reduction_needs_floating(const ir::program& p, std::int32_t stmt, ir::step_code code,
                                        std::int32_t value, dtype type) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << ": " << ir::info(code).spelling << " of " << a_type(type).view()
    << " expression has no exact integer result (PyTorch refuses it too); cast the input to a floating type, "
       "e.g. `"
    << ir::info(code).spelling << "(sd::cast<double>(";
  diag::append_elided(t, expr_text(p, value).view(), diag::code_limit);
  t << "))`";
  return t;
}

// `m = sd::max(e, axis)` where axis is not e's last (e over `domain`).
constexpr text reduction_axis_not_last(const ir::program& p, std::int32_t stmt, std::int32_t domain) {
  const auto view = ir::view_of(p);
  const auto& s = p.stmts[stmt];
  text t;
  diag::describe_statement(view, stmt, t);
  t << " runs " << ir::info(s.code).spelling << " along domain '" << view.domain_name(s.axis)
    << "', but its expression is over ";
  if (domain < 0 || !ir::is_product(p.domains[domain])) {
    t << (domain < 0 ? "no domain (0-d)" : "domain '") << (domain < 0 ? "" : view.domain_name(domain))
      << (domain < 0 ? "" : "'") << ", which has no axes to choose from; write `" << ir::info(s.code).spelling
      << "(...)` without an axis to take all of it";
    return t;
  }
  t << "domain '" << view.domain_name(domain) << "', whose last axis is '"
    << view.domain_name(p.domains[domain].inner)
    << "'; a reduction or scan along an axis runs along the last one (each row), so write `"
    << ir::info(s.code).spelling << "(..., " << view.domain_name(p.domains[domain].inner) << ")`";
  return t;
}

// `m = sd::max(e, cols)` stored in a buffer that is not a column over e's rows.
constexpr text row_reduction_target_not_a_column(const ir::program& p, std::int32_t stmt,
                                                 const ir::region& target, std::int32_t domain) {
  const auto view = ir::view_of(p);
  const auto& b = p.buffers[target.buffer];
  const auto name = p.name(b.name);
  const auto rows = view.domain_name(p.domains[domain].outer);
  text t;
  diag::describe_statement(view, stmt, t);
  t << " reduces each row of an expression over domain '" << view.domain_name(domain)
    << "' to one value, a column over domain '" << rows << "', and stores it in ";
  if (!ir::is_whole(target))
    t << "a chunk of '" << name << "'; store them in a whole buffer over domain '" << rows << '\'';
  else
    t << "'" << name << "', " << (b.domain < 0 ? "a 0-d buffer" : "a buffer over domain '")
      << (b.domain < 0 ? "" : view.domain_name(b.domain)) << (b.domain < 0 ? "" : "'")
      << "; declare it over the rows' domain, e.g. p.temp<" << name_of(b.type) << ">(\"" << name << "\", "
      << rows << "), or reduce all of it into a 0-d buffer with `" << ir::info(p.stmts[stmt].code).spelling
      << "(...)` and no axis";
  return t;
}

// `v = sd::sum(a * v, k)` with a over (k, k): v is read as a row while rows are stored.
constexpr text row_reduction_reads_its_target(const ir::program& p, std::int32_t stmt, std::int32_t buffer) {
  const auto view = ir::view_of(p);
  const auto& s = p.stmts[stmt];
  const auto name = p.name(p.buffers[buffer].name);
  text t;
  diag::describe_statement(view, stmt, t);
  t << " stores each row's " << ir::info(s.code).spelling << " in '" << name
    << "' while its expression reads '" << name << "' as a row (over domain '" << view.domain_name(s.axis)
    << "', the columns' domain too): a row would read values that earlier rows have already replaced; "
       "reduce into a temp and assign it afterwards, e.g. `t = "
    << ir::info(s.code).spelling << "(..., " << view.domain_name(s.axis) << "); " << name << " = t;`";
  return t;
}

// --- matmul ------------------------------------------------------------------

// 'x', a buffer over domain 'n' (rank 1) / a 0-d buffer
constexpr void describe_rank(const ir::program& p, std::int32_t buffer, text& t) {
  const auto& b = p.buffers[buffer];
  t << '\'' << p.name(b.name) << "', ";
  if (b.domain < 0)
    t << "a 0-d buffer";
  else
    t << "a buffer over domain '" << ir::view_of(p).domain_name(b.domain) << "' (rank 1)";
}

constexpr text matmul_operand_not_rank2(const ir::program& p, std::int32_t stmt, std::int32_t buffer) {
  const auto& s = p.stmts[stmt];
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << (buffer == s.target ? " stores the product in " : " multiplies ");
  describe_rank(p, buffer, t);
  t << "; sd::matmul multiplies rank-2 buffers into a rank-2 buffer: declare '"
    << p.name(p.buffers[buffer].name) << "' over two domains, e.g. p." << ir::name_of(p.buffers[buffer].kind)
    << "<" << name_of(p.buffers[buffer].type) << ">(\"" << p.name(p.buffers[buffer].name)
    << "\", rows, cols)";
  return t;
}

constexpr text matmul_type_unsupported(const ir::program& p, std::int32_t stmt, std::int32_t a,
                                       std::int32_t b) {
  const auto& x = p.buffers[a];
  const auto& y = p.buffers[b];
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  if (x.type != y.type) {
    t << " multiplies '" << p.name(x.name) << "' (" << name_of(x.type) << ") by '" << p.name(y.name) << "' ("
      << name_of(y.type) << "); sd::matmul multiplies operands of one type: convert one into a temp of the "
      << "other's type first, e.g. `t = sd::cast<" << name_of(promote(x.type, y.type)) << ">("
      << p.name(promote(x.type, y.type) == x.type ? y.name : x.name) << ")`";
    return t;
  }
  t << " multiplies " << name_of(x.type) << " matrices; sd::matmul multiplies float, double, __half and "
    << "__nv_bfloat16 (as cuBLAS does): convert them into float temps first, e.g. `t = sd::cast<float>("
    << p.name(x.name) << ")`";
  return t;
}

// An FP8 matmul of a pair cuBLASLt does not run (e5m2 x e5m2, FP8 x another type).
constexpr text matmul_fp8_types(const ir::program& p, std::int32_t stmt, std::int32_t a, std::int32_t b) {
  const auto& x = p.buffers[a];
  const auto& y = p.buffers[b];
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " multiplies '" << p.name(x.name) << "' (" << name_of(x.type) << ") by '" << p.name(y.name) << "' ("
    << name_of(y.type) << ")";
  if (is_fp8(x.type) && is_fp8(y.type))
    t << "; cuBLASLt multiplies __nv_fp8_e4m3 by __nv_fp8_e4m3 or by __nv_fp8_e5m2 (either order), not two "
         "__nv_fp8_e5m2 operands: quantize one of them to __nv_fp8_e4m3 (e.g. `t = sd::cast<__nv_fp8_e4m3>("
      << "sd::cast<float>(" << p.name(y.name) << "))`)";
  else
    t << "; an FP8 matmul multiplies two FP8 operands: quantize the other one too (e.g. `t = "
         "sd::cast<__nv_fp8_e4m3>("
      << p.name(is_fp8(x.type) ? y.name : x.name) << " * scale)`), or convert the FP8 one to a wider type";
  return t;
}
constexpr text matmul_fp8_result_type(const ir::program& p, std::int32_t stmt, std::int32_t a,
                                      std::int32_t b) {
  const auto& c = p.buffers[p.stmts[stmt].target];
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " stores the product of " << name_of(p.buffers[a].type) << " and " << name_of(p.buffers[b].type)
    << " matrices in '" << p.name(c.name) << "' (" << name_of(c.type)
    << "); an FP8 matmul stores its product in __nv_bfloat16, __half, float, __nv_fp8_e4m3, or "
       "__nv_fp8_e5m2 when an operand is __nv_fp8_e5m2 (as cuBLASLt, with float accumulation): declare '"
    << p.name(c.name) << "' as one of them and convert afterwards if you need to";
  return t;
}
// An FP8 product cuBLASLt does not compute: __nv_fp8_e5m2 from two __nv_fp8_e4m3 operands.
constexpr text matmul_fp8_output(const ir::program& p, std::int32_t stmt, std::int32_t a, std::int32_t b) {
  const auto& c = p.buffers[p.stmts[stmt].target];
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " stores the product of '" << p.name(p.buffers[a].name) << "' (" << name_of(p.buffers[a].type)
    << ") and '" << p.name(p.buffers[b].name) << "' (" << name_of(p.buffers[b].type) << ") in '"
    << p.name(c.name) << "' (" << name_of(c.type)
    << "); cuBLASLt stores an __nv_fp8_e5m2 product only when an operand is __nv_fp8_e5m2: declare '"
    << p.name(c.name) << "' as __nv_fp8_e4m3, or as __nv_bfloat16 and cast it after";
  return t;
}
// An FP8 matmul whose operands are not read as cuBLASLt's FP8 kernels take them.
constexpr text matmul_fp8_layout(const ir::program& p, std::int32_t stmt, std::int32_t a, std::int32_t b,
                                 bool ta, bool tb) {
  const auto an = p.name(p.buffers[a].name), bn = p.name(p.buffers[b].name);
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " multiplies FP8 matrices as `sd::matmul(" << (ta ? "sd::transpose(" : "") << an << (ta ? ")" : "")
    << ", " << (tb ? "sd::transpose(" : "") << bn << (tb ? ")" : "")
    << ")`; cuBLASLt's FP8 kernels take only its TN layout, which is `sd::matmul(a, sd::transpose(w))` with "
       "a "
       "stored (m, k) and w stored (n, k), as a linear layer's weight:";
  if (ta) t << " store '" << an << "' as (m, k) (a transposed copy of it) and read it as stored;";
  if (!tb)
    t << " store '" << bn << "' as (n, k) (a transposed copy of it, e.g. `" << bn
      << "_t`) and read it with sd::transpose(" << bn << "_t);";
  t << " then write `c = sd::matmul(a, sd::transpose(w), ...)`";
  return t;
}
constexpr text matmul_bad_scale(const ir::program& p, std::int32_t stmt, std::int32_t scale, bool fp8) {
  const auto& b = p.buffers[scale];
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  if (!fp8) {
    t << " passes sd::scales(...) to a matmul whose operands are not FP8; scales apply to __nv_fp8_e4m3 and "
         "__nv_fp8_e5m2 operands only (multiply the product instead, e.g. `c = s * sd::matmul(a, b)`)";
    return t;
  }
  t << " scales an operand by '" << p.name(b.name) << "' (" << name_of(b.type);
  if (b.domain >= 0) t << ", over domain '" << ir::view_of(p).domain_name(b.domain) << '\'';
  t << "); an FP8 matmul's scales are 0-d float buffers (cuBLASLt reads one float per operand on the "
       "device): "
       "declare it with sd::scalar, e.g. p.input<float>(\""
    << p.name(b.name) << "\", sd::scalar)";
  return t;
}

// sd::output_scale(x) or sd::output_amax(x) that is not a 0-d float buffer,
// or of a matmul whose product is not FP8.
constexpr text matmul_bad_output_scale(const ir::program& p, std::int32_t stmt, std::int32_t buffer,
                                       bool amax) {
  const auto& b = p.buffers[buffer];
  const auto& c = p.buffers[p.stmts[stmt].target];
  const char* what = amax ? "sd::output_amax(" : "sd::output_scale(";
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  if (!is_fp8(c.type)) {
    t << " passes " << what << p.name(b.name) << ") for a product '" << p.name(c.name) << "' of type "
      << name_of(c.type)
      << "; cuBLASLt's output scale and amax apply to an FP8 product (__nv_fp8_e4m3 or __nv_fp8_e5m2) only: "
         "declare '"
      << p.name(c.name) << "' as one, or drop " << what << "...)"
      << (amax ? " and compute the amax with `am = sd::max(sd::abs(c))`"
               : " and multiply the product instead");
    return t;
  }
  t << " passes " << what << p.name(b.name) << ") with '" << p.name(b.name) << "' (" << name_of(b.type);
  if (b.domain >= 0) t << ", over domain '" << ir::view_of(p).domain_name(b.domain) << '\'';
  t << "); an FP8 product's " << (amax ? "amax" : "output scale") << " is a 0-d float buffer (cuBLASLt "
    << (amax ? "writes" : "reads") << " one float on the device): declare it with sd::scalar, e.g. p."
    << (amax ? "temp" : "input") << "<float>(\"" << p.name(b.name) << "\", sd::scalar)";
  return t;
}
// sd::output_amax(x) where x is also read by the matmul (a scale).
constexpr text matmul_amax_read(const ir::program& p, std::int32_t stmt, std::int32_t amax) {
  const auto name = p.name(p.buffers[amax].name);
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " writes its amax into '" << name
    << "', which it also reads as a scale; cuBLASLt reads the scales while it writes the amax: give the amax "
       "its own buffer (e.g. p.temp<float>(\""
    << name << "_amax\", sd::scalar))";
  return t;
}

constexpr text matmul_tf32_type(const ir::program& p, std::int32_t stmt, std::int32_t a) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " asks for sd::tf32 with " << name_of(p.buffers[a].type)
    << " operands; sd::tf32 lets cuBLASLt round float operands to TF32 on the tensor cores: drop it, or "
    << "multiply float matrices";
  return t;
}
constexpr text matmul_result_type(const ir::program& p, std::int32_t stmt, std::int32_t a) {
  const auto& c = p.buffers[p.stmts[stmt].target];
  const auto in = p.buffers[a].type;
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " stores the product of " << name_of(in) << " matrices in '" << p.name(c.name) << "' ("
    << name_of(c.type) << "); sd::matmul stores its product in the operands' type";
  if (ir::matmul_accumulation_type(in) == dtype::float32 && in != dtype::float32) t << " or in float";
  t << " (as cuBLASLt): declare '" << p.name(c.name) << "' " << name_of(in)
    << ", or convert afterwards: `t = sd::matmul(...); " << p.name(c.name) << " = t;`";
  return t;
}

constexpr text matmul_shapes_differ(const ir::program& p, std::int32_t stmt, std::int32_t m, std::int32_t k,
                                    std::int32_t k2, std::int32_t n) {
  const auto view = ir::view_of(p);
  const auto& s = p.stmts[stmt];
  const auto& c = p.buffers[s.target];
  text t;
  diag::describe_statement(view, stmt, t);
  if (k != k2) {
    t << " multiplies a matrix over (" << view.domain_name(m) << ", " << view.domain_name(k)
      << ") by one over (" << view.domain_name(k2) << ", " << view.domain_name(n)
      << "): the first's columns and the second's rows must be one domain ('" << view.domain_name(k)
      << "' and '" << view.domain_name(k2)
      << "' here); declare them over one domain, or multiply by sd::transpose(...) of an operand stored "
         "the other way";
    return t;
  }
  t << " stores the product, over (" << view.domain_name(m) << ", " << view.domain_name(n) << "), in '"
    << p.name(c.name) << "', over domain '" << view.domain_name(c.domain) << "'; declare it over ("
    << view.domain_name(m) << ", " << view.domain_name(n) << "): p." << ir::name_of(c.kind) << "<"
    << name_of(c.type) << ">(\"" << p.name(c.name) << "\", " << view.domain_name(m) << ", "
    << view.domain_name(n) << ")";
  return t;
}

constexpr text matmul_result_overlaps_operand(const ir::program& p, std::int32_t stmt) {
  const auto name = p.name(p.buffers[p.stmts[stmt].target].name);
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " stores the product in '" << name
    << "', which it also multiplies; a matmul cannot overwrite an operand while it reads it (cuBLAS "
       "neither): store it in a temp and assign that afterwards, e.g. `t = sd::matmul(...); "
    << name << " = t;`";
  return t;
}

// "`x.chunk(3, 16)`"
constexpr text quoted(const ir::program& p, const ir::region& r) {
  text t;
  t << '`';
  ir::render_region(ir::view_of(p), r, t);
  t << '`';
  return t;
}

// --- calls --------------------------------------------------------------------

// `list`: "sd::reads" or "sd::writes".
constexpr text call_lists_a_region_twice(const ir::program& p, std::int32_t stmt, const ir::region& r,
                                         detail::string_view list) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " lists " << quoted(p, r).view() << " in " << list
    << " where an earlier region of that list overlaps it; list each region once (a region the call "
       "both reads and writes goes in sd::reads and in sd::writes once each)";
  return t;
}

// `written`: the host step writes `buffer` (else it reads it).
constexpr text host_call_touches_device_memory(const ir::program& p, std::int32_t stmt, std::int32_t buffer,
                                               bool written) {
  const auto& b = p.buffers[buffer];
  const auto name = p.name(b.name);
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << (written ? " writes the " : " reads the ") << buffer_kind_name(b.kind) << " '" << name
    << "', which is in device memory; a host step runs on the CPU and must not touch device memory (nor "
       "call CUDA): ";
  text pinned;
  pinned << "p.output<" << name_of(b.type) << ", sd::pinned>(\"h\"";
  if (b.domain < 0)
    pinned << ", sd::scalar";
  else if (b.domain != ir::default_domain)
    pinned << ", " << ir::view_of(p).domain_name(b.domain);
  pinned << ')';
  if (written)
    t << "write a pinned buffer h (e.g. " << pinned.view() << ") in the host step and copy it to '" << name
      << "' after it with `sd::copy(" << name << ", h)`";
  else
    t << "copy it to a pinned buffer first with `sd::copy(h, " << name << ")` (h: e.g. " << pinned.view()
      << ") and list h";
  return t;
}

constexpr text invalid_chunk(const ir::program& p, std::int32_t stream, const ir::region& r) {
  const auto name = p.name(p.buffers[r.buffer].name);
  text t;
  t << "statement #" << p.stmts.size() << " on stream '" << ir::view_of(p).stream_name(stream) << "' takes `"
    << name << ".chunk(" << r.part << ", " << r.parts << ")`, ";
  const auto domain = p.buffers[r.buffer].domain;
  if (domain < 0)
    t << "but '" << name << "' is a 0-d buffer (one element), which has no parts; use '" << name
      << "' itself";
  else if (ir::is_product(p.domains[domain]))
    t << "but '" << name << "' is a rank-2 buffer (over domain '" << ir::view_of(p).domain_name(domain)
      << "'), which has no chunks in this version; use '" << name << "' whole";
  else
    t << "but a chunk is one of k >= 1 equal parts, numbered 0 to k - 1; write `" << name
      << ".chunk(i, k)` with 0 <= i < k";
  return t;
}

constexpr text operand_chunks_differ(const ir::program& p, std::int32_t stream, std::int32_t a,
                                     std::int32_t b) {
  const auto view = ir::view_of(p);
  text t;
  t << "statement #" << p.stmts.size() << " on stream '" << view.stream_name(stream) << "' combines ";
  diag::quote_expr(view, a, t, 60);
  t << ", 1/" << p.nodes[a].parts << " of domain '" << view.domain_name(p.nodes[a].domain) << "', with ";
  diag::quote_expr(view, b, t, 60);
  t << ", 1/" << p.nodes[b].parts << " of it; an elementwise expression combines operands of one size, "
    << "so take chunks with the same number of parts (x.chunk(i, k) with one k)";
  return t;
}

constexpr text store_chunk_differs(const ir::program& p, std::int32_t stmt, const ir::region& target,
                                   std::int32_t parts) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " writes an expression over 1/" << parts << " of its domain to " << quoted(p, target).view() << ", 1/"
    << target.parts << " of it; an elementwise statement writes every element of its target, "
    << "so write to a region of the same size (x.chunk(i, " << parts << ")"
    << (parts == 1 ? " or the whole buffer" : "") << ")";
  return t;
}

constexpr text copy_types_differ(const ir::program& p, std::int32_t stmt, const ir::region& dst,
                                 const ir::region& src) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " copies " << name_of(p.buffers[src.buffer].type) << " elements of " << quoted(p, src).view()
    << " into " << quoted(p, dst).view() << ", which holds " << name_of(p.buffers[dst.buffer].type)
    << "; a copy moves bytes and converts nothing, so copy between buffers of one element type and convert "
    << "with an elementwise statement (`y = sd::cast<" << name_of(p.buffers[dst.buffer].type)
    << ">(x)`) on the device";
  return t;
}

constexpr text copy_sizes_differ(const ir::program& p, std::int32_t stmt, const ir::region& dst,
                                 const ir::region& src) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " copies " << quoted(p, src).view() << ", 1/" << src.parts << " of its domain, into "
    << quoted(p, dst).view() << ", 1/" << dst.parts << " of the same domain, so the sizes differ; copy "
    << "between regions of one size (chunks with the same number of parts)";
  return t;
}

constexpr text copy_overlaps(const ir::program& p, std::int32_t stmt, const ir::region& dst,
                             const ir::region& src) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " copies " << quoted(p, src).view() << " into " << quoted(p, dst).view()
    << ", and the two overlap; copy through a temp buffer, or between disjoint chunks";
  return t;
}

// --- collectives ----------------------------------------------------------------

// `written`: the collective writes `buffer` (else it reads it).
constexpr text collective_on_host_memory(const ir::program& p, std::int32_t stmt, std::int32_t buffer,
                                         bool written) {
  const auto& b = p.buffers[buffer];
  const auto name = p.name(b.name);
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << (written ? " writes the " : " reads the ") << buffer_kind_name(b.kind) << " '" << name
    << "', which is in " << ir::memory_name(b.space)
    << ", and collectives run on the device (NCCL reads and writes GPU memory); ";
  if (written)
    t << "collect into a device buffer d and copy it out with `sd::copy(" << name << ", d)`";
  else
    t << "copy it into a device buffer d first with `sd::copy(d, " << name << ")`";
  t << " (d: a p.temp<" << name_of(b.type) << ">)";
  return t;
}

constexpr text collective_needs_target(const ir::program& p, std::int32_t stmt, ir::step_code code) {
  const auto spelling = ir::info(code).spelling;
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " runs " << spelling << " in place, but its result has "
    << (code == ir::step_code::reduce_scatter ? "1/ranks of its source's elements"
                                              : "ranks times its source's elements")
    << ", so it needs a buffer of its own: write `y = " << spelling
    << (code == ir::step_code::reduce_scatter ? "(x, op)`" : "(x)`") << " with y over a domain of its own"
    << (code == ir::step_code::reduce_scatter ? " (x's extent / ranks elements; rank r gets part r)"
                                              : " (ranks * x's extent elements; rank r's x lands in part r)");
  return t;
}

constexpr text collective_types_differ(const ir::program& p, std::int32_t stmt, const ir::region& target,
                                       const ir::region& source) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " reads " << name_of(p.buffers[source.buffer].type) << " elements of " << quoted(p, source).view()
    << " into " << quoted(p, target).view() << ", which holds " << name_of(p.buffers[target.buffer].type)
    << "; a collective converts nothing, so give source and target one element type and convert with an "
    << "elementwise statement (`y = sd::cast<" << name_of(p.buffers[target.buffer].type) << ">(x)`)";
  return t;
}

constexpr text collective_sizes_differ(const ir::program& p, std::int32_t stmt, const ir::region& target,
                                       const ir::region& source) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " reads " << quoted(p, source).view() << ", 1/" << source.parts << " of its domain, into "
    << quoted(p, target).view() << ", 1/" << target.parts << " of the same domain, so the sizes differ; "
    << "its target holds as many elements as its source (chunks with the same number of parts)";
  return t;
}

constexpr text collective_overlaps(const ir::program& p, std::int32_t stmt, const ir::region& target,
                                   const ir::region& source) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " writes " << quoted(p, target).view() << ", which overlaps its source " << quoted(p, source).view()
    << " without being it; run it in place on one region (`" << ir::info(p.stmts[stmt].code).spelling
    << "(x, ...)`) or into a disjoint one";
  return t;
}

constexpr text collective_type_unsupported(const ir::program& p, std::int32_t stmt, ir::step_code code,
                                           ir::reduce_op op, const ir::region& source) {
  const auto type = p.buffers[source.buffer].type;
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " applies " << ir::spelling_of(op) << " to " << name_of(type) << " elements of "
    << quoted(p, source).view() << ", ";
  if (!ir::nccl_reduces(type))
    t << "and NCCL reduces no " << name_of(type)
      << " (it reduces int8_t, uint8_t, int32_t, uint32_t, int64_t, uint64_t, __half, __nv_bfloat16, float "
         "and double); cast to one of those first";
  else
    t << "and " << ir::info(code).spelling
      << " averages floating types only (an integer average would truncate); use sd::reduce_op::sum "
         "and divide with an elementwise statement, or reduce a floating buffer";
  return t;
}

constexpr text broadcast_root_negative(const ir::program& p, std::int32_t stmt, std::int32_t root) {
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " broadcasts from root rank " << root << ", and ranks are numbered from 0";
  return t;
}

constexpr text wait_before_record(const ir::program& p, std::int32_t stmt, std::int32_t event) {
  const auto name = p.name(p.events[event].name);
  text t;
  diag::describe_statement(ir::view_of(p), stmt, t);
  t << " waits on event '" << name << "' with no " << name
    << ".record() before it in program order (a wait binds to the latest record that precedes it); call "
    << name << ".record() on the producing stream after the work to wait for, earlier than this wait";
  return t;
}

#else  // nvcc's device pass

// cicc runs after cudafe++ has accepted the program (nvcc stops at
// cudafe++'s error), so in the device pass no message is ever shown: each
// is an empty text there, and cicc neither parses nor compiles the prose
// (docs/benchmarks.md, "Session 7"). The checks and their error kinds run
// as in every pass; a name missing here fails to compile in the device pass.
// (A .cu file reading a failing build_ir's message in a constant expression
// reads it empty in the device pass: read it in host-only code.)
#define STREAMDSL_UNSHOWN_MESSAGE(name) \
  template <class... A>                 \
  constexpr text name(const A&...) {    \
    return {};                          \
  }
STREAMDSL_UNSHOWN_MESSAGE(invalid_name)
STREAMDSL_UNSHOWN_MESSAGE(reserved_name)
STREAMDSL_UNSHOWN_MESSAGE(duplicate_name)
STREAMDSL_UNSHOWN_MESSAGE(bad_family_size)
STREAMDSL_UNSHOWN_MESSAGE(family_index_out_of_range)
STREAMDSL_UNSHOWN_MESSAGE(in_expression)
STREAMDSL_UNSHOWN_MESSAGE(negate_bool)
STREAMDSL_UNSHOWN_MESSAGE(not_of_non_bool)
STREAMDSL_UNSHOWN_MESSAGE(incompatible_operands)
STREAMDSL_UNSHOWN_MESSAGE(logical_of_non_bool)
STREAMDSL_UNSHOWN_MESSAGE(arithmetic_on_bools)
STREAMDSL_UNSHOWN_MESSAGE(needs_integer_operands)
STREAMDSL_UNSHOWN_MESSAGE(fp8_operand)
STREAMDSL_UNSHOWN_MESSAGE(fp8_step_input)
STREAMDSL_UNSHOWN_MESSAGE(where_condition_not_bool)
STREAMDSL_UNSHOWN_MESSAGE(where_branches_differ)
STREAMDSL_UNSHOWN_MESSAGE(operand_domains_differ)
STREAMDSL_UNSHOWN_MESSAGE(write_to_input)
STREAMDSL_UNSHOWN_MESSAGE(host_memory_in_statement)
STREAMDSL_UNSHOWN_MESSAGE(temp_read_before_write)
STREAMDSL_UNSHOWN_MESSAGE(narrowing_store)
STREAMDSL_UNSHOWN_MESSAGE(reduction_target_not_scalar)
STREAMDSL_UNSHOWN_MESSAGE(reduction_axis_not_last)
STREAMDSL_UNSHOWN_MESSAGE(row_reduction_target_not_a_column)
STREAMDSL_UNSHOWN_MESSAGE(row_reduction_reads_its_target)
STREAMDSL_UNSHOWN_MESSAGE(matmul_operand_not_rank2)
STREAMDSL_UNSHOWN_MESSAGE(matmul_type_unsupported)
STREAMDSL_UNSHOWN_MESSAGE(matmul_shapes_differ)
STREAMDSL_UNSHOWN_MESSAGE(matmul_result_type)
STREAMDSL_UNSHOWN_MESSAGE(matmul_tf32_type)
STREAMDSL_UNSHOWN_MESSAGE(matmul_fp8_types)
STREAMDSL_UNSHOWN_MESSAGE(matmul_fp8_result_type)
STREAMDSL_UNSHOWN_MESSAGE(matmul_fp8_layout)
STREAMDSL_UNSHOWN_MESSAGE(matmul_bad_scale)
STREAMDSL_UNSHOWN_MESSAGE(matmul_fp8_output)
STREAMDSL_UNSHOWN_MESSAGE(matmul_bad_output_scale)
STREAMDSL_UNSHOWN_MESSAGE(matmul_amax_read)
STREAMDSL_UNSHOWN_MESSAGE(matmul_result_overlaps_operand)
STREAMDSL_UNSHOWN_MESSAGE(call_lists_a_region_twice)
STREAMDSL_UNSHOWN_MESSAGE(host_call_touches_device_memory)
STREAMDSL_UNSHOWN_MESSAGE(reduction_needs_floating)
STREAMDSL_UNSHOWN_MESSAGE(step_result_narrowing)
STREAMDSL_UNSHOWN_MESSAGE(store_domain_differs)
STREAMDSL_UNSHOWN_MESSAGE(invalid_chunk)
STREAMDSL_UNSHOWN_MESSAGE(operand_chunks_differ)
STREAMDSL_UNSHOWN_MESSAGE(store_chunk_differs)
STREAMDSL_UNSHOWN_MESSAGE(copy_types_differ)
STREAMDSL_UNSHOWN_MESSAGE(copy_sizes_differ)
STREAMDSL_UNSHOWN_MESSAGE(copy_overlaps)
STREAMDSL_UNSHOWN_MESSAGE(wait_before_record)
STREAMDSL_UNSHOWN_MESSAGE(collective_on_host_memory)
STREAMDSL_UNSHOWN_MESSAGE(collective_needs_target)
STREAMDSL_UNSHOWN_MESSAGE(collective_types_differ)
STREAMDSL_UNSHOWN_MESSAGE(collective_sizes_differ)
STREAMDSL_UNSHOWN_MESSAGE(collective_overlaps)
STREAMDSL_UNSHOWN_MESSAGE(collective_type_unsupported)
STREAMDSL_UNSHOWN_MESSAGE(broadcast_root_negative)
#undef STREAMDSL_UNSHOWN_MESSAGE

#endif

}  // namespace streamdsl::detail::messages
