#pragma once
// What the front-end handles append to while the program lambda runs at
// compile time: the IR, the current stream, and the checks that need to see
// each statement as it is written (types, domains, inputs, events).
#include <string_view>
#include "dyn_array.hpp"

#include "../ir/program.hpp"
#include "../ir/render.hpp"
#include "text.hpp"

namespace streamdsl::detail {

struct operand {
  std::int32_t node = -1;
  typed type{dtype::float32, strength::literal};
};

class builder_state {
 public:
  constexpr builder_state() {
    ir.streams.push_back({ir.intern("main")});
    ir.domains.push_back({ir.intern("n")});
    names_.push_back("main");
  }

  ir::program ir;
  std::int32_t current_stream = ir::main_stream;
  detail::dyn_array<std::int32_t> last_record;  // per event: latest record statement

  // --- declarations -------------------------------------------------------
  constexpr ir::name_ref declare_name(std::string_view name, std::string_view what) {
    if (!valid_identifier(name)) {
      text t;
      t << "invalid " << what << " name '" << name
        << "': names must be non-empty and made of letters, digits and '_' (they are binding keys "
           "and appear in dumps)";
      ir.fail(diag::error_kind::invalid_name, t);
    }
    for (auto seen : names_)
      if (seen == name) {
        text t;
        t << "duplicate name '" << name << "': a " << what
          << " is declared with a name already used in this program; give each buffer, param, "
             "stream, event and domain its own name";
        ir.fail(diag::error_kind::duplicate_name, t);
      }
    names_.push_back(name);
    return ir.intern(name);
  }

  constexpr std::int32_t add_buffer(std::string_view name, ir::access kind, dtype type,
                                    std::int32_t domain) {
    ir.buffers.push_back({declare_name(name, "buffer"), kind, type, domain});
    return static_cast<std::int32_t>(ir.buffers.size() - 1);
  }
  constexpr std::int32_t add_param(std::string_view name, dtype type) {
    ir.params.push_back({declare_name(name, "param"), type});
    return static_cast<std::int32_t>(ir.params.size() - 1);
  }
  constexpr std::int32_t add_stream(std::string_view name) {
    ir.streams.push_back({declare_name(name, "stream")});
    return static_cast<std::int32_t>(ir.streams.size() - 1);
  }
  constexpr std::int32_t add_event(std::string_view name) {
    ir.events.push_back({declare_name(name, "event"), ir::event_role::user});
    last_record.push_back(-1);
    return static_cast<std::int32_t>(ir.events.size() - 1);
  }
  constexpr std::int32_t add_domain(std::string_view name) {
    // Domains have their own namespace: "n" is the default one.
    ir.domains.push_back({declare_name(name, "domain")});
    return static_cast<std::int32_t>(ir.domains.size() - 1);
  }

  // --- expressions ----------------------------------------------------------
  constexpr operand load(std::int32_t buffer) {
    const auto& b = ir.buffers[buffer];
    ir::expr_node n{};
    n.code = ir::op::load;
    n.type = n.compute = b.type;
    n.ref = buffer;
    n.domain = b.domain;
    return {push(n), {b.type, b.domain < 0 ? strength::scalar : strength::tensor}};
  }
  constexpr operand param(std::int32_t id) {
    ir::expr_node n{};
    n.code = ir::op::param;
    n.type = n.compute = ir.params[id].type;
    n.ref = id;
    return {push(n), {n.type, strength::scalar}};
  }
  constexpr operand literal(dtype type, double f, std::int64_t i) {
    ir::expr_node n{};
    n.code = ir::op::literal;
    n.type = n.compute = type;
    n.fvalue = f;
    n.ivalue = i;
    return {push(n), {type, strength::literal}};
  }

  constexpr operand unary(ir::op code, operand a, dtype result, dtype compute) {
    ir::expr_node n{};
    n.code = code;
    n.type = result;
    n.compute = compute;
    n.a = a.node;
    n.domain = ir.nodes[a.node].domain;
    operand r{push(n), {result, a.type.power}};
    if (code == ir::op::neg && a.type.type == dtype::boolean)
      expression_error(diag::error_kind::arithmetic_on_bool, r.node,
                       "negates a bool; cast it first, e.g. -sd::cast<int32_t>(b)");
    if (code == ir::op::logical_not && a.type.type != dtype::boolean)
      expression_error(diag::error_kind::logical_operator_needs_bool, r.node,
                       "applies ! to a non-bool operand; compare it first, e.g. !(x > 0)");
    return r;
  }

  // Arithmetic, min/max, comparisons and logical operators.
  constexpr operand binary(ir::op code, operand a, operand b) {
    const typed joined = combine(a.type, b.type);
    const bool logical = code == ir::op::logical_and || code == ir::op::logical_or;
    const bool compare = code >= ir::op::lt && code <= ir::op::ne;
    ir::expr_node n{};
    n.code = code;
    n.compute = joined.type;
    n.type = (logical || compare) ? dtype::boolean : joined.type;
    n.a = a.node;
    n.b = b.node;
    n.domain = join_domain(a.node, b.node);
    operand r{push(n), {n.type, joined.power}};
    if (!compatible(a.type.type, b.type.type))
      expression_error(diag::error_kind::incompatible_types, r.node,
                       "mixes __half and __nv_bfloat16, which cannot represent each other; "
                       "convert one side with sd::cast<float>(...) or sd::cast<__half>(...)");
    else if (logical && (a.type.type != dtype::boolean || b.type.type != dtype::boolean))
      expression_error(diag::error_kind::logical_operator_needs_bool, r.node,
                       "applies && or || to a non-bool operand; compare it first, e.g. (x > 0) && (y > 0)");
    else if (!logical && !compare && code != ir::op::min && code != ir::op::max &&
             joined.type == dtype::boolean)
      expression_error(diag::error_kind::arithmetic_on_bool, r.node,
                       "does arithmetic on bool operands; cast one side, e.g. sd::cast<int32_t>(b)");
    return r;
  }

  constexpr operand where(operand c, operand a, operand b) {
    // A literal branch adopts the other branch's type when that loses nothing.
    dtype ta = a.type.type, tb = b.type.type;
    if (a.type.power == strength::literal && b.type.power != strength::literal &&
        category_of(ta) <= category_of(tb))
      ta = tb;
    if (b.type.power == strength::literal && a.type.power != strength::literal &&
        category_of(tb) <= category_of(ta))
      tb = ta;
    if (a.type.power == strength::literal && b.type.power == strength::literal)
      ta = tb = promote(ta, tb);
    ir::expr_node n{};
    n.code = ir::op::where;
    n.type = n.compute = ta;
    n.a = c.node;
    n.b = a.node;
    n.c = b.node;
    // join_domain takes nodes: join c with whichever branch carries the branches' domain.
    const auto branches = join_domain(a.node, b.node);
    n.domain = join_domain(c.node, ir.nodes[a.node].domain == branches ? a.node : b.node);
    const auto power = a.type.power > b.type.power ? a.type.power : b.type.power;
    operand r{push(n), {ta, power > c.type.power ? power : c.type.power}};
    if (c.type.type != dtype::boolean)
      expression_error(diag::error_kind::where_type_mismatch, r.node,
                       "has a non-bool condition; compare it first, e.g. where(x > 0, a, b)");
    else if (ta != tb) {
      text t;
      t << "has branches of different types (" << name_of(ta) << " and " << name_of(tb)
        << "); cast one branch, e.g. sd::cast<" << name_of(ta) << ">(...)";
      expression_error(diag::error_kind::where_type_mismatch, r.node, t.view());
    }
    return r;
  }

  // --- statements -----------------------------------------------------------
  constexpr void assign(std::int32_t target, operand value) {
    const auto& b = ir.buffers[target];
    ir::statement s{};
    s.kind = ir::stmt_kind::assign;
    s.stream = current_stream;
    s.target = target;
    s.root = value.node;
    const auto index = push(s);
    const auto domain = ir.nodes[value.node].domain;
    if (b.kind == ir::access::input) {
      text t;
      ir::describe_statement(ir::view_of(ir), index, t);
      t << " writes input buffer '" << ir.name(b.name)
        << "'; inputs are read-only: declare it with p.inout<T>(...) or write to a p.temp<T>(...)";
      ir.fail(diag::error_kind::write_to_input, t);
    } else if (!assignable(b.type, value.type.type)) {
      text t;
      ir::describe_statement(ir::view_of(ir), index, t);
      t << " narrows a " << name_of(value.type.type) << " expression into buffer '" << ir.name(b.name)
        << "' of type " << name_of(b.type) << "; write " << ir.name(b.name) << " = sd::cast<"
        << name_of(b.type) << ">(...) if that is intended";
      ir.fail(diag::error_kind::narrowing_assignment, t);
    } else if (domain >= 0 && domain != b.domain) {
      text t;
      ir::describe_statement(ir::view_of(ir), index, t);
      t << " assigns an expression over domain '" << ir::view_of(ir).domain_name(domain)
        << "' to buffer '" << ir.name(b.name) << "' of domain '" << ir::view_of(ir).domain_name(b.domain)
        << "'; elementwise statements need one domain (0-d values broadcast)";
      ir.fail(diag::error_kind::domain_mismatch, t);
    }
  }

  constexpr void record(std::int32_t event) {
    ir::statement s{};
    s.kind = ir::stmt_kind::record;
    s.stream = current_stream;
    s.event = event;
    last_record[event] = push(s);
  }

  constexpr void wait(std::int32_t event) {
    ir::statement s{};
    s.kind = ir::stmt_kind::wait;
    s.stream = current_stream;
    s.event = event;
    s.binds = last_record[event];
    const auto index = push(s);
    if (s.binds < 0) {
      text t;
      ir::describe_statement(ir::view_of(ir), index, t);
      t << " waits on event '" << ir.name(ir.events[event].name)
        << "' before any record of it; call " << ir.name(ir.events[event].name)
        << ".record() on the producing stream earlier in the program";
      ir.fail(diag::error_kind::wait_before_record, t);
    }
  }

  constexpr void wait_stream(std::int32_t waiter, std::int32_t waited) {
    ir::statement s{};
    s.kind = ir::stmt_kind::wait_stream;
    s.stream = waiter;
    s.other = waited;
    push(s);
  }

 private:
  static constexpr bool valid_identifier(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
        return false;
    return true;
  }

  constexpr std::int32_t push(const ir::expr_node& n) {
    ir.nodes.push_back(n);
    return static_cast<std::int32_t>(ir.nodes.size() - 1);
  }
  constexpr std::int32_t push(ir::statement s) {
    s.origin = static_cast<std::int32_t>(ir.stmts.size());
    ir.stmts.push_back(s);
    return s.origin;
  }

  constexpr std::int32_t join_domain(std::int32_t a, std::int32_t b) {
    const auto da = ir.nodes[a].domain, db = ir.nodes[b].domain;
    if (da < 0) return db;
    if (db < 0 || da == db) return da;
    text t;
    t << "an expression in statement #" << ir.stmts.size() << " combines '";
    ir::render_expr(ir::view_of(ir), a, t);
    t << "' over domain '" << ir::view_of(ir).domain_name(da) << "' with '";
    ir::render_expr(ir::view_of(ir), b, t);
    t << "' over domain '" << ir::view_of(ir).domain_name(db)
      << "'; elementwise operands need one domain (0-d values broadcast)";
    ir.fail(diag::error_kind::domain_mismatch, t);
    return da;
  }

  constexpr void expression_error(diag::error_kind kind, std::int32_t node, std::string_view why) {
    text t;
    t << "the expression `";
    ir::render_expr(ir::view_of(ir), node, t);
    t << "` in statement #" << ir.stmts.size() << " on stream '"
      << ir.name(ir.streams[current_stream].name) << "' " << why;
    ir.fail(kind, t);
  }

  detail::dyn_array<std::string_view> names_;
};

}  // namespace streamdsl::detail
