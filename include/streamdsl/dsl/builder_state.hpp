#pragma once
// What the front-end handles append to while the program lambda runs at
// compile time: the IR, the current stream, and the checks that need to see
// each statement as it is written (types, domains, inputs, events).
#include "../detail/dyn_array.hpp"
#include "../detail/string_view.hpp"
#include "../detail/text.hpp"
#include "../diag/describe.hpp"
#include "../ir/accesses.hpp"
#include "../ir/program.hpp"
#include "../ir/render.hpp"

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
    declared_as_.push_back("main stream");
    index_name(0);
  }

  ir::program ir;
  std::int32_t current_stream = ir::main_stream;
  detail::dyn_array<std::int32_t> last_record;  // per event: latest record statement

  // --- declarations -------------------------------------------------------
  // `what` says what is declared ("output buffer", "event"), for messages.
  constexpr ir::name_ref declare_name(detail::string_view name, detail::string_view what) {
    if (!valid_identifier(name)) {
      text t;
      t << "invalid " << what << " name '";
      diag::append_elided(t, name, 60);
      t << "' (" << (name.empty() ? "empty" : "not an identifier") << "), declared ";
      if (names_.size() > 1)
        t << "right after the " << declared_as_.back() << " '" << names_.back() << '\'';
      else
        t << "first in the program";
      t << ": a name must be non-empty and made of letters, digits and '_' only, because it is the "
           "key that binds the "
        << what << " at run time and the label in plan dumps";
      fail(diag::error_kind::invalid_name, t);
    }
    if (const auto i = find_name(name); i >= 0) {
      text t;
      text shown;  // a huge name would crowd out the rest of the message
      diag::append_elided(shown, name, 60);
      t << "duplicate name '" << shown.view() << "': the " << what << " '" << shown.view()
        << "' reuses the name of the " << (i == 0 ? "" : "earlier ")
        << declared_as_[static_cast<std::size_t>(i)]
        << "; each buffer, param, stream, event and domain needs its own name, because names bind "
           "them at run time";
      fail(diag::error_kind::duplicate_name, t);
    }
    names_.push_back(name);
    declared_as_.push_back(what);
    index_name(names_.size() - 1);
    return ir.intern(name);
  }

  constexpr std::int32_t add_buffer(detail::string_view name, ir::access kind, dtype type,
                                    std::int32_t domain) {
    ir.buffers.push_back({declare_name(name, buffer_kind_name(kind)), kind, type, domain});
    written_.push_back(false);
    return static_cast<std::int32_t>(ir.buffers.size() - 1);
  }
  constexpr std::int32_t add_param(detail::string_view name, dtype type) {
    ir.params.push_back({declare_name(name, "param"), type});
    return static_cast<std::int32_t>(ir.params.size() - 1);
  }
  constexpr std::int32_t add_stream(detail::string_view name) {
    ir.streams.push_back({declare_name(name, "stream")});
    return static_cast<std::int32_t>(ir.streams.size() - 1);
  }
  constexpr std::int32_t add_event(detail::string_view name) {
    ir.events.push_back({declare_name(name, "event"), ir::event_role::user});
    last_record.push_back(-1);
    return static_cast<std::int32_t>(ir.events.size() - 1);
  }
  constexpr std::int32_t add_domain(detail::string_view name) {
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
    // Every buffer, 0-d ones included, promotes as a tensor: its handle's C++
    // type says so (a handle cannot know its domain), and the IR must agree.
    return {push(n), {b.type, strength::tensor}};
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
    if (code == ir::op::neg && a.type.type == dtype::boolean) {
      text t;
      t << "negates a bool; write ";
      spell_fix(t, "!", a.node, "");
      t << " for logical not, or ";
      spell_fix(t, "-sd::cast<int32_t>(", a.node, ")");
      t << " for arithmetic";
      expression_error(diag::error_kind::arithmetic_on_bool, r.node, t);
    }
    if (code == ir::op::logical_not && a.type.type != dtype::boolean) {
      text t;
      t << "applies ! to " << a_type(a.type.type).view()
        << " operand, and ! needs a bool; compare instead, e.g. ";
      spell_fix(t, "", a.node, " == 0");
      expression_error(diag::error_kind::logical_operator_needs_bool, r.node, t);
    }
    return r;
  }

  // Arithmetic, min/max, comparisons and logical operators.
  constexpr operand binary(ir::op code, operand a, operand b) {
    const ir::node_types types = ir::types_of(code, a.type, b.type);
    const auto operands = ir::info(code).operands;
    ir::expr_node n{};
    n.code = code;
    n.compute = types.compute;
    n.type = types.result.type;
    n.a = a.node;
    n.b = b.node;
    n.domain = join_domain(a.node, b.node);
    operand r{push(n), types.result};
    if (!compatible(a.type.type, b.type.type)) {
      text t;
      t << "mixes " << name_of(a.type.type) << " and " << name_of(b.type.type)
        << ", which cannot represent each other; convert one side first, e.g. ";
      spell_fix(t, "sd::cast<float>(", a.node, ")");
      expression_error(diag::error_kind::incompatible_types, r.node, t);
    } else if (operands == ir::operand_rule::boolean &&
               (a.type.type != dtype::boolean || b.type.type != dtype::boolean)) {
      const auto bad = a.type.type != dtype::boolean ? a : b;
      text t;
      t << "applies " << ir::spelling(code) << " to " << a_type(bad.type.type).view() << " operand, and "
        << ir::spelling(code) << " needs bool operands; compare first, e.g. ";
      spell_fix(t, "(", bad.node, " != 0)");
      expression_error(diag::error_kind::logical_operator_needs_bool, r.node, t);
    } else if (operands == ir::operand_rule::numeric && types.compute == dtype::boolean) {
      text t;
      t << "applies " << ir::spelling(code)
        << " to bool operands; use && or || for logic, or cast to a number first, e.g. ";
      spell_fix(t, "sd::cast<int32_t>(", a.node, ")");
      expression_error(diag::error_kind::arithmetic_on_bool, r.node, t);
    }
    return r;
  }

  constexpr operand where(operand c, operand a, operand b) {
    // A literal branch adopts the other branch's type when that loses nothing.
    const auto [ta, tb] = ir::where_branches(a.type, b.type);
    const ir::node_types types = ir::types_of(ir::op::where, c.type, a.type, b.type);
    ir::expr_node n{};
    n.code = ir::op::where;
    n.type = types.result.type;
    n.compute = types.compute;
    n.a = c.node;
    n.b = a.node;
    n.c = b.node;
    // join_domain takes nodes: join c with whichever branch carries the branches' domain.
    const auto branches = join_domain(a.node, b.node);
    n.domain = join_domain(c.node, ir.nodes[a.node].domain == branches ? a.node : b.node);
    operand r{push(n), types.result};
    if (c.type.type != dtype::boolean) {
      text t;
      t << "has " << a_type(c.type.type).view()
        << " condition, and where(c, a, b) needs a bool c; compare first, e.g. ";
      spell_fix(t, "where(", c.node, " != 0, ...)");
      expression_error(diag::error_kind::where_condition_not_bool, r.node, t);
    } else if (ta != tb) {
      // Suggest widening the narrower branch: that loses nothing.
      const dtype wide = promote(ta, tb);
      const auto narrow = wide == ta ? b : a;
      text t;
      t << "has branches of different types (" << name_of(ta) << " and " << name_of(tb)
        << ") and needs one; cast one branch, e.g. ";
      text cast_open;
      cast_open << "sd::cast<" << name_of(wide) << ">(";
      spell_fix(t, cast_open.view(), narrow.node, ")");
      expression_error(diag::error_kind::where_type_mismatch, r.node, t);
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
    store_reads(s);
    const auto index = push(s);
    const auto domain = ir.nodes[value.node].domain;
    const auto name = ir.name(b.name);
    const auto unwritten = unwritten_temp_read(s);
    if (b.kind == ir::access::input) {
      text t;
      diag::describe_statement(ir::view_of(ir), index, t);
      t << " writes the input buffer '" << name << "', and inputs are read-only; declare it with p.inout<"
        << name_of(b.type) << ">(\"" << name << "\") to update it in place, or write the result to an "
        << "output or temp buffer";
      fail(diag::error_kind::write_to_input, t);
    } else if (unwritten >= 0) {
      const auto temp = ir.name(ir.buffers[unwritten].name);
      const auto type = name_of(ir.buffers[unwritten].type);
      text t;
      diag::describe_statement(ir::view_of(ir), index, t);
      t << " reads the temp buffer '" << temp
        << "' before any statement writes it, and a temp holds no value "
        << "until the program writes one; assign '" << temp << "' first (`" << temp
        << " = ...`), or declare it "
        << "p.inout<" << type << ">(\"" << temp << "\") if the caller provides its value";
      fail(diag::error_kind::temp_read_before_write, t);
    } else if (!(value.type.power == strength::literal
                     ? category_of(value.type.type) <= category_of(b.type)  // a weak literal: y = 2.5
                     : assignable(b.type, value.type.type))) {
      text t;
      diag::describe_statement(ir::view_of(ir), index, t);
      t << " stores " << a_type(value.type.type).view() << " value in the " << name_of(b.type) << " buffer '"
        << name << "', which can lose information; if that is intended, write `" << name << " = sd::cast<"
        << name_of(b.type) << ">(";
      diag::append_elided(t, expr_text(value.node).view(), diag::code_limit);
      t << ")`";
      fail(diag::error_kind::narrowing_assignment, t);
    } else if (domain >= 0 && domain != b.domain) {
      const auto view = ir::view_of(ir);
      text t;
      diag::describe_statement(view, index, t);
      t << " writes an expression over domain '" << view.domain_name(domain) << "' to ";
      if (b.domain < 0)
        t << "the 0-d buffer '" << name << "', which holds one element";
      else
        t << "the buffer '" << name << "' of domain '" << view.domain_name(b.domain) << '\'';
      t << "; an elementwise statement writes every element of its target, so declare '" << name
        << "' over domain '" << view.domain_name(domain) << "' (only 0-d values broadcast)";
      fail(diag::error_kind::domain_mismatch, t);
    }
    written_[static_cast<std::size_t>(target)] = true;
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
      const auto name = ir.name(ir.events[event].name);
      text t;
      diag::describe_statement(ir::view_of(ir), index, t);
      t << " waits on event '" << name << "' with no " << name
        << ".record() before it in program order (a wait binds to the latest record that precedes it); call "
        << name << ".record() on the producing stream after the work to wait for, earlier than this wait";
      fail(diag::error_kind::wait_before_record, t);
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
  static constexpr bool valid_identifier(detail::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
        return false;
    return true;
  }

  // Names are looked up in an open-addressing hash table (indices into
  // names_, -1 for empty): a program declares hundreds of names, and a
  // linear scan per declaration made declaring them quadratic.
  static constexpr std::size_t hash_name(detail::string_view s) {
    std::size_t h = 14695981039346656037ull;
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
  }
  constexpr std::int32_t find_name(detail::string_view name) const {
    if (name_table_.empty()) return -1;
    const auto mask = name_table_.size() - 1;
    for (auto at = hash_name(name) & mask;; at = (at + 1) & mask) {
      const auto i = name_table_[at];
      if (i < 0) return -1;
      if (names_[static_cast<std::size_t>(i)] == name) return i;
    }
  }
  constexpr void index_name(std::size_t i) {
    if (2 * names_.size() > name_table_.size()) {  // keep the table at most half full
      name_table_.assign(name_table_.empty() ? 32 : 2 * name_table_.size(), -1);
      for (std::size_t k = 0; k < i; ++k) insert_name(k);
    }
    insert_name(i);
  }
  constexpr void insert_name(std::size_t i) {
    const auto mask = name_table_.size() - 1;
    auto at = hash_name(names_[i]) & mask;
    while (name_table_[at] >= 0) at = (at + 1) & mask;
    name_table_[at] = static_cast<std::int32_t>(i);
  }

  // Appends the buffers the assignment reads to the IR's read sets.
  constexpr void store_reads(ir::statement& s) {
    detail::dyn_array<std::int32_t> reads;
    ir::collect_reads(ir::view_of(ir), s.root, reads);
    s.reads_first = static_cast<std::int32_t>(ir.reads.size());
    s.reads_count = static_cast<std::int32_t>(reads.size());
    for (auto b : reads) ir.reads.push_back(b);
  }

  // A temp the assignment reads that no earlier statement wrote, or -1.
  constexpr std::int32_t unwritten_temp_read(const ir::statement& s) const {
    for (auto b : ir::reads_of(ir::view_of(ir), s))
      if (ir.buffers[b].kind == ir::access::temp && !written_[static_cast<std::size_t>(b)]) return b;
    return -1;
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
    const auto view = ir::view_of(ir);
    text t;
    t << "statement #" << ir.stmts.size() << " on stream '" << view.stream_name(current_stream)
      << "' combines ";
    diag::quote_expr(view, a, t, 60);
    t << " over domain '" << view.domain_name(da) << "' with ";
    diag::quote_expr(view, b, t, 60);
    t << " over domain '" << view.domain_name(db)
      << "'; the operands of an elementwise expression need one domain (only 0-d values, declared "
         "with sd::scalar, broadcast into any domain)";
    fail(diag::error_kind::domain_mismatch, t);
    return da;
  }

  // "the expression `e` in statement #i on stream 's' " + why. The statement
  // is the one being written: its expression is not complete yet.
  constexpr void expression_error(diag::error_kind kind, std::int32_t node, const text& why) {
    text t;
    t << "the expression ";
    diag::quote_expr(ir::view_of(ir), node, t);
    t << " in statement #" << ir.stmts.size() << " on stream '" << ir.name(ir.streams[current_stream].name)
      << "' " << why.view();
    fail(kind, t);
  }

  constexpr text expr_text(std::int32_t node) const {
    text t;
    ir::render_expr(ir::view_of(ir), node, t);
    return t;
  }

  // A suggested rewrite of an operand: `before<operand>after`, shortened.
  constexpr void spell_fix(text& out, detail::string_view before, std::int32_t node,
                           detail::string_view after) const {
    out << '`' << before;
    diag::append_elided(out, expr_text(node).view(), 40);
    out << after << '`';
  }

  // Every error goes through here so that no message outgrows the capacity.
  constexpr void fail(diag::error_kind kind, const text& t) { ir.fail(kind, diag::fit_message(t)); }

  // "an int32_t", "a float": type names as they read in a sentence.
  static constexpr text a_type(dtype type) {
    text t;
    t << (type == dtype::int32 || type == dtype::int64 ? "an " : "a ") << name_of(type);
    return t;
  }

  static constexpr detail::string_view buffer_kind_name(ir::access kind) {
    switch (kind) {
      case ir::access::input: return "input buffer";
      case ir::access::output: return "output buffer";
      case ir::access::inout: return "inout buffer";
      case ir::access::temp: return "temp buffer";
    }
    return "buffer";
  }

  detail::dyn_array<detail::string_view> names_;
  detail::dyn_array<detail::string_view> declared_as_;  // what each of names_ was declared as
  detail::dyn_array<bool> written_;                     // per buffer: some statement so far writes it
  detail::dyn_array<std::int32_t> name_table_;          // hash table over names_
};

}  // namespace streamdsl::detail
