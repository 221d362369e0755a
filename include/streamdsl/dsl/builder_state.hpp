#pragma once
// What the front-end handles append to while the program lambda runs at
// compile time: the IR, the current stream, and the checks that need to see
// each statement as it is written (types, domains, inputs, events). The
// names live in name_table.hpp, the type rules in type_rules.hpp and the
// messages in messages.hpp; sd::builder (builder.hpp) inherits this privately.
// Everything but the constructor is private: the handles, with_stream, the
// operators, sd::builder and the random program generators reach the engine
// through detail::builder_access (below), so user code cannot write
// `x.builder()->current_stream = ...` or touch the IR under construction.
#include "../detail/dyn_array.hpp"
#include "../detail/string_view.hpp"
#include "../detail/text.hpp"
#include "../diag/message.hpp"
#include "../ir/accesses.hpp"
#include "../ir/program.hpp"
#include "messages.hpp"
#include "name_table.hpp"
#include "type_rules.hpp"

namespace streamdsl {
class builder;
}

namespace streamdsl::detail {

struct builder_access;

class builder_state {
 public:
  constexpr builder_state() {
    ir.streams.push_back({ir.intern(ir::main_stream_name)});
    ir.domains.push_back({ir.intern(ir::default_domain_name)});
  }

 private:
  friend struct builder_access;

  ir::program ir;
  std::int32_t current_stream = ir::main_stream;
  detail::dyn_array<std::int32_t> last_record;  // per event: latest record statement

  // --- declarations -------------------------------------------------------
  // What a name is declared as: the reserved names depend on it.
  enum class declared : std::uint8_t { buffer, param, stream, event, domain, call };

  // `what` says what is declared ("output buffer", "event"), for messages.
  constexpr ir::name_ref declare_name(detail::string_view name, declared kind, detail::string_view what) {
    check_name(name, kind, what);
    return ir.intern(name);
  }
  constexpr void check_name(detail::string_view name, declared kind, detail::string_view what) {
    if (!valid_identifier(name)) {
      fail(diag::error_kind::invalid_name, messages::invalid_name(name, what, names_));
    } else if (reserved(name, kind)) {
      fail(diag::error_kind::reserved_name, messages::reserved_name(name, what));
    } else if (const auto i = names_.find(name); i >= 0) {
      fail(diag::error_kind::duplicate_name,
           messages::duplicate_name(name, what, names_.declared_as(static_cast<std::size_t>(i))));
    }
    names_.add(name, what);
  }

  constexpr std::int32_t add_buffer(detail::string_view name, ir::access kind, dtype type,
                                    std::int32_t domain, ir::memory_space space = ir::memory_space::device) {
    return push_buffer(
        {declare_name(name, declared::buffer, messages::buffer_kind_name(kind)), kind, type, space, domain});
  }
  constexpr std::int32_t push_buffer(const ir::buffer_info& b) {
    any_host_buffer_ = any_host_buffer_ || ir::is_host(b.space);
    ir.buffers.push_back(b);
    whole_written_.push_back(false);
    return static_cast<std::int32_t>(ir.buffers.size() - 1);
  }
  constexpr std::int32_t add_param(detail::string_view name, dtype type) {
    ir.params.push_back({declare_name(name, declared::param, "param"), type});
    return static_cast<std::int32_t>(ir.params.size() - 1);
  }
  constexpr std::int32_t add_stream(detail::string_view name) {
    ir.streams.push_back({declare_name(name, declared::stream, "stream")});
    return static_cast<std::int32_t>(ir.streams.size() - 1);
  }
  constexpr std::int32_t add_event(detail::string_view name) {
    ir.events.push_back({declare_name(name, declared::event, "event"), ir::event_role::user});
    last_record.push_back(-1);
    return static_cast<std::int32_t>(ir.events.size() - 1);
  }
  constexpr std::int32_t add_domain(detail::string_view name) {
    ir.domains.push_back({declare_name(name, declared::domain, "domain")});
    return static_cast<std::int32_t>(ir.domains.size() - 1);
  }
  // The domain of rank-2 buffers over (outer, inner) (ir/shape.hpp): made by
  // the first such buffer, named "(rows, cols)" in dumps and messages.
  constexpr std::int32_t product_domain(std::int32_t outer, std::int32_t inner) {
    if (outer < 0 || inner < 0) return outer < 0 ? inner : outer;  // (sd::scalar, cols) is cols
    for (std::size_t d = 0; d < ir.domains.size(); ++d)
      if (ir.domains[d].outer == outer && ir.domains[d].inner == inner) return static_cast<std::int32_t>(d);
    const auto view = ir::view_of(ir);
    detail::text t;
    t << '(' << view.domain_name(outer) << ", " << view.domain_name(inner) << ')';
    ir.domains.push_back({ir.intern(t.view()), outer, inner});
    return static_cast<std::int32_t>(ir.domains.size() - 1);
  }

  // --- families -------------------------------------------------------------
  // p.inputs<T>("x", k) and the like: the family's name is declared once; its
  // members are called x[0] ... x[k-1], names no declaration can take ('['
  // is not an identifier character), declared one after another.
  enum class family_of : std::uint8_t { buffers, streams, events };

  // The number of members to make: `count`, or 1 after a bad count (the
  // error is reported; indexing the family stays safe).
  constexpr std::int32_t declare_family(detail::string_view name, declared kind, detail::string_view what,
                                        std::int64_t count) {
    check_name(name, kind, what);
    if (count >= 1 && count <= family_size_limit) return static_cast<std::int32_t>(count);
    fail(diag::error_kind::bad_family_size, messages::bad_family_size(name, what, count, family_size_limit));
    return 1;
  }
  static constexpr std::int64_t family_size_limit = 1 << 20;

  constexpr ir::name_ref member_name(detail::string_view family, std::int32_t i) {
    detail::text t;
    t << family << '[' << i << ']';
    return ir.intern(t.view());
  }

  // Returns the id of x[0].
  constexpr std::int32_t add_buffer_family(detail::string_view name, std::int64_t count, ir::access kind,
                                           dtype type, std::int32_t domain, ir::memory_space space) {
    const auto size = declare_family(name, declared::buffer, messages::buffer_family_name(kind), count);
    const auto first = static_cast<std::int32_t>(ir.buffers.size());
    for (std::int32_t i = 0; i < size; ++i)
      push_buffer({member_name(name, i), kind, type, space, domain, i, size});
    return first;
  }
  constexpr std::int32_t add_stream_family(detail::string_view name, std::int64_t count) {
    const auto size = declare_family(name, declared::stream, "stream family", count);
    const auto first = static_cast<std::int32_t>(ir.streams.size());
    for (std::int32_t i = 0; i < size; ++i) ir.streams.push_back({member_name(name, i)});
    return first;
  }
  constexpr std::int32_t add_event_family(detail::string_view name, std::int64_t count) {
    const auto size = declare_family(name, declared::event, "event family", count);
    const auto first = static_cast<std::int32_t>(ir.events.size());
    for (std::int32_t i = 0; i < size; ++i) {
      ir.events.push_back({member_name(name, i), ir::event_role::user});
      last_record.push_back(-1);
    }
    return first;
  }

  // The id of member `index` of the family whose x[0] is `first`; out of
  // range is an error, and gives x[0] so that the program stays well formed.
  constexpr std::int32_t family_member(family_of what, std::int32_t first, std::int32_t size,
                                       std::int64_t index) {
    if (index >= 0 && index < size) return first + static_cast<std::int32_t>(index);
    ir::name_ref member = what == family_of::buffers   ? ir.buffers[first].name
                          : what == family_of::streams ? ir.streams[first].name
                                                       : ir.events[first].name;
    member.length -= 3;  // "x[0]" -> "x"
    const auto declared_as = what == family_of::buffers ? messages::buffer_family_name(ir.buffers[first].kind)
                             : what == family_of::streams ? detail::string_view("stream family")
                                                          : detail::string_view("event family");
    fail(diag::error_kind::family_index_out_of_range,
         messages::family_index_out_of_range(ir, current_stream, ir.name(member), declared_as, size, index));
    return first;
  }

  // --- expressions ----------------------------------------------------------
  // A whole buffer (the common case, kept to plain ints: a struct passed by
  // value costs constant evaluation more) or a chunk of it.
  constexpr operand load(std::int32_t buffer, std::int32_t part = 0, std::int32_t parts = 1) {
    const auto& b = ir.buffers[buffer];
    ir::expr_node n{};
    n.code = ir::op::load;
    n.type = n.compute = b.type;
    n.ref = buffer;
    n.domain = b.domain;
    if (parts != 1) {
      n.part = part;
      n.parts = parts;
    }
    // Every buffer, 0-d ones included, promotes as a tensor: its handle's C++
    // type says so (a handle cannot know its domain), and the IR must agree.
    return {push(n), {b.type, strength::tensor}};
  }

  // x.chunk(part, parts): checked here, where the chunk is taken.
  constexpr ir::region chunk(std::int32_t buffer, std::int32_t part, std::int32_t parts) {
    const ir::region r{buffer, part, parts};
    const auto domain = ir.buffers[buffer].domain;
    if (parts < 1 || part < 0 || part >= parts || domain < 0 || ir::is_product(ir.domains[domain])) {
      fail(diag::error_kind::invalid_chunk, messages::invalid_chunk(ir, current_stream, r));
      return ir::whole(buffer);
    }
    return r;
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

  // The caller (expr.hpp, functions.hpp) knows the result type statically.
  constexpr operand unary(ir::op code, operand a, dtype result, dtype compute) {
    ir::expr_node n{};
    n.code = code;
    n.type = result;
    n.compute = compute;
    n.a = a.node;
    n.domain = ir.nodes[a.node].domain;
    n.parts = ir.nodes[a.node].parts;
    operand r{push(n), {result, a.type.power}};
    if (is_fp8(a.type.type) && code != ir::op::cast) {
      expression_error(diag::error_kind::arithmetic_on_fp8, r.node,
                       messages::fp8_operand(ir, code, a.node, a.type.type));
      return r;
    }
    // Which operands an op accepts is its table row's operand rule (as in
    // check_binary); the messages name the operator (- or !).
    switch (ir::info(code).operands) {
      case ir::operand_rule::any: break;
      case ir::operand_rule::numeric:
        if (a.type.type == dtype::boolean)
          expression_error(diag::error_kind::arithmetic_on_bool, r.node, messages::negate_bool(ir, a.node));
        break;
      case ir::operand_rule::boolean:
        if (a.type.type != dtype::boolean)
          expression_error(diag::error_kind::logical_operator_needs_bool, r.node,
                           messages::not_of_non_bool(ir, a.node, a.type.type));
        break;
      case ir::operand_rule::integral:
      case ir::operand_rule::integer:
        if (!operand_accepted(ir::info(code).operands, a.type.type))
          expression_error(diag::error_kind::bitwise_on_non_integer, r.node,
                           messages::needs_integer_operands(ir, code, a.node, a.type.type, a.node, -1));
        break;
    }
    return r;
  }

  // Arithmetic, min/max, comparisons and logical operators.
  constexpr operand binary(ir::op code, operand a, operand b) {
    const ir::node_types types = ir::types_of(code, a.type, b.type);
    ir::expr_node n{};
    n.code = code;
    n.compute = types.compute;
    n.type = types.result.type;
    n.a = a.node;
    n.b = b.node;
    join_shape(n, a.node, b.node);
    operand r{push(n), types.result};
    switch (check_binary(code, a.type, b.type)) {
      case binary_rule::ok: break;
      case binary_rule::incompatible:
        expression_error(diag::error_kind::incompatible_types, r.node,
                         messages::incompatible_operands(ir, a.node, a.type.type, b.node, b.type.type));
        break;
      case binary_rule::logical_needs_bool: {
        const auto bad = a.type.type != dtype::boolean ? a : b;
        expression_error(diag::error_kind::logical_operator_needs_bool, r.node,
                         messages::logical_of_non_bool(ir, code, bad.node, bad.type.type));
        break;
      }
      case binary_rule::no_arithmetic_on_bool:
        expression_error(diag::error_kind::arithmetic_on_bool, r.node,
                         messages::arithmetic_on_bools(ir, code, a.node));
        break;
      case binary_rule::fp8_operand: {
        const auto bad = is_fp8(a.type.type) ? a : b;
        expression_error(diag::error_kind::arithmetic_on_fp8, r.node,
                         messages::fp8_operand(ir, code, bad.node, bad.type.type));
        break;
      }
      case binary_rule::needs_integers: {
        const auto bad = operand_accepted(ir::info(code).operands, a.type.type) ? b : a;
        expression_error(code == ir::op::mod ? diag::error_kind::remainder_of_non_integer
                                             : diag::error_kind::bitwise_on_non_integer,
                         r.node,
                         messages::needs_integer_operands(ir, code, bad.node, bad.type.type, a.node, b.node));
        break;
      }
    }
    return r;
  }

  constexpr operand where(operand c, operand a, operand b) {
    // A literal branch adopts the other branch's type when that loses nothing.
    const ir::branch_types branches = ir::where_branches(a.type, b.type);
    const ir::node_types types = ir::where_types(c.type, a.type, b.type, branches);
    ir::expr_node n{};
    n.code = ir::op::where;
    n.type = types.result.type;
    n.compute = types.compute;
    n.a = c.node;
    n.b = a.node;
    n.c = b.node;
    // join_shape takes nodes: join c with whichever branch carries the branches' shape.
    join_shape(n, a.node, b.node);
    join_shape(n, c.node, ir.nodes[a.node].domain == n.domain ? a.node : b.node);
    operand r{push(n), types.result};
    if (c.type.type != dtype::boolean) {
      expression_error(diag::error_kind::where_condition_not_bool, r.node,
                       messages::where_condition_not_bool(ir, c.node, c.type.type));
    } else if (branches.a != branches.b) {
      const dtype wide = promote(branches.a, branches.b);
      expression_error(diag::error_kind::where_type_mismatch, r.node,
                       messages::where_branches_differ(ir, branches.a, branches.b,
                                                       wide == branches.a ? b.node : a.node, wide));
    }
    return r;
  }

  // --- statements -----------------------------------------------------------
  // Writes `value` to chunk `part` of `parts` of buffer `buffer` (1 part: all of it).
  constexpr void assign(std::int32_t buffer, std::int32_t part, std::int32_t parts, operand value) {
    const ir::region target{buffer, part, parts};
    const auto& b = ir.buffers[buffer];
    ir::statement s{};
    s.kind = ir::stmt_kind::assign;
    s.stream = current_stream;
    s.target = buffer;
    s.root = value.node;
    // The reads go straight into the IR's access list, then the target.
    begin_accesses(s);
    ir::collect_reads(ir.nodes, s.root, ir.accesses, ir.accesses.size());
    end_accesses(s, target);
    const auto index = push(s);
    const auto& v = ir.nodes[value.node];
    const auto unwritten = unwritten_temp_read(s);
    const auto host = host_buffer_in(s);
    if (host >= 0)
      fail(diag::error_kind::host_memory_in_expression,
           messages::host_memory_in_statement(ir, index, host, host == buffer));
    else if (b.kind == ir::access::input)
      fail(diag::error_kind::write_to_input, messages::write_to_input(ir, index, buffer));
    else if (unwritten >= 0)
      fail(diag::error_kind::temp_read_before_write, messages::temp_read_before_write(ir, index, unwritten));
    else if (!storable_without_cast(b.type, value.type))
      fail(diag::error_kind::narrowing_assignment,
           messages::narrowing_store(ir, index, target.buffer, value.node, value.type.type));
    else if (!stores_into(v.domain, b.domain))
      fail(diag::error_kind::domain_mismatch,
           messages::store_domain_differs(ir, index, target.buffer, v.domain));
    else if (v.domain == b.domain && v.parts != target.parts)
      fail(diag::error_kind::chunk_mismatch, messages::store_chunk_differs(ir, index, target, v.parts));
    else if (v.domain >= 0 && v.domain != b.domain && v.parts != 1)
      fail(diag::error_kind::chunk_mismatch, messages::store_chunk_differs(ir, index, target, v.parts));
    note_written(target);
  }

  // sd::copy(dst, src) on the current stream.
  constexpr void copy(ir::region dst, ir::region src) {
    ir::statement s{};
    s.kind = ir::stmt_kind::step;
    s.code = ir::step_code::copy;
    s.stream = current_stream;
    begin_accesses(s);
    ir.accesses.push_back(src);
    end_accesses(s, dst);
    const auto index = push(s);
    const auto& d = ir.buffers[dst.buffer];
    const auto& from = ir.buffers[src.buffer];
    const auto unwritten = unwritten_temp_read(s);
    if (d.kind == ir::access::input)
      fail(diag::error_kind::write_to_input, messages::write_to_input(ir, index, dst.buffer));
    else if (unwritten >= 0)
      fail(diag::error_kind::temp_read_before_write, messages::temp_read_before_write(ir, index, unwritten));
    else if (d.type != from.type)
      fail(diag::error_kind::copy_mismatch, messages::copy_types_differ(ir, index, dst, src));
    else if (d.domain == from.domain && dst.parts != src.parts)
      fail(diag::error_kind::copy_mismatch, messages::copy_sizes_differ(ir, index, dst, src));
    else if (ir::overlaps(dst, src))
      fail(diag::error_kind::copy_overlap, messages::copy_overlaps(ir, index, dst, src));
    note_written(dst);
  }

  // `target = sd::sum(value)` and the other reductions and scans
  // (ir/step.hpp): a step reading an expression. A reduction's expression
  // may be over any shape and its target is a 0-d buffer; a scan's target
  // has the expression's shape (0-d values broadcast, as in an assignment).
  // Along an axis (`sd::sum(e, cols)`, axis >= 0) e is rank-2 and the axis
  // its last: a reduction's target is a column (over e's rows), a scan's
  // has e's shape.
  constexpr void reduce_or_scan(ir::step_code code, ir::region target, operand value, std::int32_t axis) {
    const auto& b = ir.buffers[target.buffer];
    ir::statement s{};
    s.kind = ir::stmt_kind::step;
    s.code = code;
    s.stream = current_stream;
    s.target = target.buffer;
    s.root = value.node;
    s.axis = axis;
    begin_accesses(s);
    ir::collect_reads(ir.nodes, s.root, ir.accesses, ir.accesses.size());
    end_accesses(s, target);
    const auto index = push(s);
    const auto& v = ir.nodes[value.node];
    const auto rows = v.domain >= 0 ? ir.domains[v.domain].outer : -1;  // along an axis: the target's domain
    const dtype result = ir::step_result_type(code, value.type.type);
    const auto unwritten = unwritten_temp_read(s);
    const auto host = host_buffer_in(s);
    const bool reduction = ir::info(code).form == ir::step_form::reduction;
    if (host >= 0)
      fail(diag::error_kind::host_memory_in_expression,
           messages::host_memory_in_statement(ir, index, host, host == target.buffer));
    else if (b.kind == ir::access::input)
      fail(diag::error_kind::write_to_input, messages::write_to_input(ir, index, target.buffer));
    else if (unwritten >= 0)
      fail(diag::error_kind::temp_read_before_write, messages::temp_read_before_write(ir, index, unwritten));
    else if (is_fp8(value.type.type))
      fail(diag::error_kind::arithmetic_on_fp8,
           messages::fp8_step_input(ir, index, code, value.node, value.type.type));
    else if (ir::info(code).result == ir::step_result::floating &&
             category_of(value.type.type) != dtype_category::floating)
      fail(diag::error_kind::reduction_needs_floating,
           messages::reduction_needs_floating(ir, index, code, value.node, value.type.type));
    else if (!storable_without_cast(b.type, {result, strength::tensor}))
      fail(diag::error_kind::narrowing_assignment,
           messages::step_result_narrowing(ir, index, target.buffer, code, result));
    else if (axis >= 0 && (v.domain < 0 || ir.domains[v.domain].inner != axis))
      fail(diag::error_kind::reduction_axis_not_last, messages::reduction_axis_not_last(ir, index, v.domain));
    else if (axis >= 0 && reduction && (b.domain != rows || target.parts != 1))
      fail(diag::error_kind::row_reduction_target_not_a_column,
           messages::row_reduction_target_not_a_column(ir, index, target, v.domain));
    else if (axis >= 0 && reduction && b.domain == axis && reads_buffer(s, target.buffer))
      fail(diag::error_kind::row_reduction_reads_its_target,
           messages::row_reduction_reads_its_target(ir, index, target.buffer));
    else if (axis < 0 && reduction && b.domain >= 0)
      fail(diag::error_kind::reduction_target_not_scalar,
           messages::reduction_target_not_scalar(ir, index, target.buffer));
    else if (!reduction && v.domain >= 0 && v.domain != b.domain)
      fail(diag::error_kind::domain_mismatch,
           messages::store_domain_differs(ir, index, target.buffer, v.domain));
    else if (!reduction && v.domain >= 0 && v.parts != target.parts)
      fail(diag::error_kind::chunk_mismatch, messages::store_chunk_differs(ir, index, target, v.parts));
    note_written(target);
  }

  // `target = sd::matmul(a, b)` (ops/matmul.hpp): op(a) over (m, k), op(b)
  // over (k, n), target over (m, n), one floating type (ir::matmul_supports);
  // mode: the transposes and TF32 (ir::matmul_tf32, float operands only).
  // FP8 operands (ir::matmul_fp8_pair) as cuBLASLt takes them: b read
  // transposed, a not, each maybe scaled by a 0-d float buffer (sd::scales;
  // scale_a, scale_b: -1 for none). An FP8 product (ir::matmul_fp8_output)
  // may have an output scale (scale_d, read) and an amax (amax_d, written
  // after the product; sd::output_scale, sd::output_amax).
  constexpr void matmul(ir::region target, std::int32_t a, std::int32_t b, std::uint8_t mode,
                        std::int32_t scale_a = -1, std::int32_t scale_b = -1, std::int32_t scale_d = -1,
                        std::int32_t amax_d = -1) {
    const auto& c = ir.buffers[target.buffer];
    ir::statement s{};
    s.kind = ir::stmt_kind::step;
    s.code = ir::step_code::matmul;
    s.stream = current_stream;
    s.target = target.buffer;
    s.matmul_mode = mode;
    s.scale_a = scale_a;
    s.scale_b = scale_b;
    s.scale_d = scale_d;
    s.amax_d = amax_d;
    begin_accesses(s);
    ir.accesses.push_back(ir::whole(a));
    if (b != a) ir.accesses.push_back(ir::whole(b));
    // The scales after the operands, one read when both are one buffer
    // (ir::matmul_operands_of counts them so; a scale that is an operand is an error below).
    if (scale_a >= 0) ir.accesses.push_back(ir::whole(scale_a));
    if (scale_b >= 0 && scale_b != scale_a) ir.accesses.push_back(ir::whole(scale_b));
    if (scale_d >= 0 && scale_d != scale_a && scale_d != scale_b) ir.accesses.push_back(ir::whole(scale_d));
    end_accesses(s, target);
    if (amax_d >= 0) {  // written after the product (ir::matmul_batch_size does not count it)
      ir.accesses.push_back(ir::whole(amax_d));
      ++s.writes_count;
    }
    const auto index = push(s);
    const auto& x = ir.buffers[a];
    const auto& y = ir.buffers[b];
    const auto unwritten = unwritten_temp_read(s);
    const auto host = host_buffer_in(s);
    auto rank2 = [&](const ir::buffer_info& info) {
      return info.domain >= 0 && ir::is_product(ir.domains[info.domain]);
    };
    // op(a) is (m, k), op(b) is (k2, n): the domains each side multiplies over.
    const auto& dx = ir.domains[x.domain < 0 ? 0 : x.domain];
    const auto& dy = ir.domains[y.domain < 0 ? 0 : y.domain];
    const bool ta = (mode & ir::transpose_a) != 0, tb = (mode & ir::transpose_b) != 0;
    const std::int32_t m = ta ? dx.inner : dx.outer, k = ta ? dx.outer : dx.inner;
    const std::int32_t k2 = tb ? dy.inner : dy.outer, n = tb ? dy.outer : dy.inner;
    const bool fp8 = is_fp8(x.type) || is_fp8(y.type);
    // A scale must be a 0-d float buffer, of an FP8 matmul.
    auto bad = [&](std::int32_t scale) {
      return scale >= 0 &&
             (!fp8 || ir.buffers[scale].domain >= 0 || ir.buffers[scale].type != dtype::float32);
    };
    const std::int32_t bad_scale = bad(scale_a) ? scale_a : bad(scale_b) ? scale_b : -1;
    // The output scale and amax: 0-d float buffers, of an FP8 product; the
    // amax none of the buffers the step reads.
    const bool fp8_out = is_fp8(c.type);
    auto bad_out = [&](std::int32_t x) {
      return x >= 0 && (!fp8_out || ir.buffers[x].domain >= 0 || ir.buffers[x].type != dtype::float32);
    };
    const std::int32_t bad_output = bad_out(scale_d) ? scale_d : bad_out(amax_d) ? amax_d : -1;
    const bool amax_read = amax_d >= 0 && reads_buffer(s, amax_d);
    const std::int32_t host_amax = amax_d >= 0 && ir::is_host(ir.buffers[amax_d].space) ? amax_d : -1;
    if (host >= 0 || host_amax >= 0)
      fail(diag::error_kind::host_memory_in_expression,
           messages::host_memory_in_statement(ir, index, host >= 0 ? host : host_amax,
                                              host == target.buffer || host < 0));
    else if (c.kind == ir::access::input)
      fail(diag::error_kind::write_to_input, messages::write_to_input(ir, index, target.buffer));
    else if (amax_d >= 0 && ir.buffers[amax_d].kind == ir::access::input)
      fail(diag::error_kind::write_to_input, messages::write_to_input(ir, index, amax_d));
    else if (unwritten >= 0)
      fail(diag::error_kind::temp_read_before_write, messages::temp_read_before_write(ir, index, unwritten));
    else if (!rank2(x) || !rank2(y) || !rank2(c))
      fail(diag::error_kind::matmul_operand_not_rank2,
           messages::matmul_operand_not_rank2(ir, index,
                                              !rank2(x)   ? a
                                              : !rank2(y) ? b
                                                          : target.buffer));
    else if (fp8 && !ir::matmul_fp8_pair(x.type, y.type))
      fail(diag::error_kind::matmul_fp8_types, messages::matmul_fp8_types(ir, index, a, b));
    else if (!fp8 && (x.type != y.type || !ir::matmul_supports(x.type)))
      fail(diag::error_kind::matmul_type_unsupported, messages::matmul_type_unsupported(ir, index, a, b));
    else if (k != k2 || c.domain != product_of(m, n))
      fail(diag::error_kind::matmul_shapes_differ, messages::matmul_shapes_differ(ir, index, m, k, k2, n));
    else if (fp8 && !ir::matmul_stores(x.type, c.type))
      fail(diag::error_kind::matmul_fp8_types, messages::matmul_fp8_result_type(ir, index, a, b));
    else if (fp8 && !ir::matmul_fp8_output(x.type, y.type, c.type))
      fail(diag::error_kind::matmul_fp8_output, messages::matmul_fp8_output(ir, index, a, b));
    else if (!ir::matmul_stores(x.type, c.type))
      fail(diag::error_kind::matmul_type_unsupported, messages::matmul_result_type(ir, index, a));
    else if ((mode & ir::matmul_tf32) != 0 && x.type != dtype::float32)
      fail(diag::error_kind::matmul_type_unsupported, messages::matmul_tf32_type(ir, index, a));
    else if (fp8 && (ta || !tb))
      fail(diag::error_kind::matmul_fp8_layout, messages::matmul_fp8_layout(ir, index, a, b, ta, tb));
    else if (bad_scale >= 0)
      fail(diag::error_kind::matmul_scale, messages::matmul_bad_scale(ir, index, bad_scale, fp8));
    else if (bad_output >= 0)
      fail(diag::error_kind::matmul_output_scale,
           messages::matmul_bad_output_scale(ir, index, bad_output, bad_output == amax_d));
    else if (amax_read)
      fail(diag::error_kind::matmul_output_scale, messages::matmul_amax_read(ir, index, amax_d));
    else if (target.buffer == a || target.buffer == b)
      fail(diag::error_kind::matmul_result_overlaps_operand,
           messages::matmul_result_overlaps_operand(ir, index));
    note_written(target);
    if (amax_d >= 0) note_written(ir::whole(amax_d));
  }
  // p.call("name", sd::reads(...), sd::writes(...)) (ops/call.hpp): the
  // user's own step on the current stream, reading and writing the regions
  // listed. Statements naming one call share its entry in ir.calls (bound
  // once, sd::bind_call); the name is a binding's, so it is declared among
  // the buffers' and params' names the first time. `code`: step_code::call,
  // or step_code::host_call for p.host_call (run on the CPU in stream order:
  // it lists host memory only).
  constexpr void call(detail::string_view name, const ir::region* reads, std::size_t read_count,
                      const ir::region* writes, std::size_t write_count,
                      ir::step_code code = ir::step_code::call) {
    std::int32_t id = -1;
    for (std::size_t c = 0; c < ir.calls.size() && id < 0; ++c)
      if (ir.name(ir.calls[c].name) == name) id = static_cast<std::int32_t>(c);
    // One name is one binding: a call and a host step cannot share it (the
    // callable would run once on the GPU's stream and once on the CPU).
    bool other_kind = false;
    for (std::size_t k = 0; k < ir.stmts.size() && id >= 0 && !other_kind; ++k)
      other_kind = ir.stmts[k].kind == ir::stmt_kind::step && ir.stmts[k].event == id &&
                   ir::info(ir.stmts[k].code).form == ir::step_form::call && ir.stmts[k].code != code;
    if (id < 0) {
      ir.calls.push_back({declare_name(name, declared::call, "call")});
      id = static_cast<std::int32_t>(ir.calls.size() - 1);
    }
    ir::statement s{};
    s.kind = ir::stmt_kind::step;
    s.code = code;
    s.stream = current_stream;
    s.event = id;
    s.target = write_count > 0 ? writes[0].buffer : -1;
    begin_accesses(s);
    for (std::size_t i = 0; i < read_count; ++i) ir.accesses.push_back(reads[i]);
    s.reads_count = static_cast<std::int32_t>(read_count);
    for (std::size_t i = 0; i < write_count; ++i) ir.accesses.push_back(writes[i]);
    s.writes_count = static_cast<std::int32_t>(write_count);
    const auto index = push(s);
    const auto unwritten = unwritten_temp_read(s);
    std::int32_t input = -1;
    for (std::size_t i = 0; i < write_count && input < 0; ++i)
      if (ir.buffers[writes[i].buffer].kind == ir::access::input) input = writes[i].buffer;
    const auto twice = listed_twice(reads, read_count);
    const auto written_twice = listed_twice(writes, write_count);
    // A host step runs on the CPU: a region in device memory (a temp's too)
    // is one it cannot touch.
    std::int32_t on_device = -1;
    bool device_written = false;
    for (std::size_t i = 0; code == ir::step_code::host_call && i < read_count + write_count && on_device < 0;
         ++i) {
      const auto& r = i < read_count ? reads[i] : writes[i - read_count];
      if (!ir::is_host(ir.buffers[r.buffer].space)) {
        on_device = r.buffer;
        device_written = i >= read_count;
      }
    }
    if (other_kind)
      fail(diag::error_kind::duplicate_name,
           messages::duplicate_name(
               name, code == ir::step_code::host_call ? "host step" : "call",
               code == ir::step_code::host_call ? "call (p.call)" : "host step (p.host_call)"));
    else if (twice >= 0)
      fail(diag::error_kind::call_region_listed_twice,
           messages::call_lists_a_region_twice(ir, index, reads[twice], "sd::reads"));
    else if (written_twice >= 0)
      fail(diag::error_kind::call_region_listed_twice,
           messages::call_lists_a_region_twice(ir, index, writes[written_twice], "sd::writes"));
    else if (on_device >= 0)
      fail(diag::error_kind::host_call_touches_device_memory,
           messages::host_call_touches_device_memory(ir, index, on_device, device_written));
    else if (input >= 0)
      fail(diag::error_kind::write_to_input, messages::write_to_input(ir, index, input));
    else if (unwritten >= 0)
      fail(diag::error_kind::temp_read_before_write, messages::temp_read_before_write(ir, index, unwritten));
    for (std::size_t i = 0; i < write_count; ++i) note_written(writes[i]);
  }
  // A collective (ops/collective.hpp) on the current stream: `target` is
  // `source` when it runs in place. Reads the source, writes the target.
  constexpr void collective(ir::step_code code, ir::region target, ir::region source, ir::reduce_op op,
                            std::int32_t root) {
    ir::statement s{};
    s.kind = ir::stmt_kind::step;
    s.code = code;
    s.stream = current_stream;
    s.target = target.buffer;
    s.matmul_mode = static_cast<std::uint8_t>(op);  // where a collective keeps its op (ir/step.hpp)
    s.event = root;                                 // and a broadcast its root
    begin_accesses(s);
    ir.accesses.push_back(source);
    end_accesses(s, target);
    const auto index = push(s);
    const auto& to = ir.buffers[target.buffer];
    const auto& from = ir.buffers[source.buffer];
    const auto unwritten = unwritten_temp_read(s);
    const bool in_place = target == source;
    const auto host = ir::is_host(from.space) ? source.buffer : ir::is_host(to.space) ? target.buffer : -1;
    if (host >= 0)
      fail(diag::error_kind::collective_on_host_memory,
           messages::collective_on_host_memory(ir, index, host, host == target.buffer && !in_place));
    else if (in_place && !ir::runs_in_place(code))
      fail(diag::error_kind::collective_needs_target, messages::collective_needs_target(ir, index, code));
    else if (to.kind == ir::access::input)
      fail(diag::error_kind::write_to_input, messages::write_to_input(ir, index, target.buffer));
    else if (unwritten >= 0)
      fail(diag::error_kind::temp_read_before_write, messages::temp_read_before_write(ir, index, unwritten));
    else if (to.type != from.type)
      fail(diag::error_kind::collective_mismatch,
           messages::collective_types_differ(ir, index, target, source));
    else if (ir::reduces(code) && !ir::collective_supports(op, from.type))
      fail(diag::error_kind::collective_type_unsupported,
           messages::collective_type_unsupported(ir, index, code, op, source));
    else if (!in_place && ir::overlaps(target, source))
      fail(diag::error_kind::collective_overlap, messages::collective_overlaps(ir, index, target, source));
    else if (ir::runs_in_place(code) && to.domain == from.domain && target.parts != source.parts)
      fail(diag::error_kind::collective_mismatch,
           messages::collective_sizes_differ(ir, index, target, source));
    else if (root < 0)
      fail(diag::error_kind::collective_bad_root, messages::broadcast_root_negative(ir, index, root));
    note_written(target);
  }

  // The first region of the list that overlaps an earlier one, or -1.
  static constexpr std::int32_t listed_twice(const ir::region* list, std::size_t n) {
    for (std::size_t i = 1; i < n; ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (ir::overlaps(list[i], list[j])) return static_cast<std::int32_t>(i);
    return -1;
  }

  // The product domain (outer, inner), or -2 when the program has none.
  constexpr std::int32_t product_of(std::int32_t outer, std::int32_t inner) const {
    for (std::size_t d = 0; d < ir.domains.size(); ++d)
      if (ir.domains[d].outer == outer && ir.domains[d].inner == inner) return static_cast<std::int32_t>(d);
    return ir::no_shape;
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
    if (s.binds < 0)
      fail(diag::error_kind::wait_before_record, messages::wait_before_record(ir, index, event));
  }

  constexpr void wait_stream(std::int32_t waiter, std::int32_t waited) {
    ir::statement s{};
    s.kind = ir::stmt_kind::wait_stream;
    s.stream = waiter;
    s.other = waited;
    push(s);
  }

  // The main stream's name is taken in every namespace; the default domain's
  // name only for domains (only another domain could be confused with it).
  static constexpr bool reserved(detail::string_view name, declared kind) {
    return name == ir::main_stream_name || (kind == declared::domain && name == ir::default_domain_name);
  }

  // A statement's accesses in the IR's list: what it reads (appended
  // between the two calls), then the one region it writes.
  constexpr void begin_accesses(ir::statement& s) const {
    s.accesses_first = static_cast<std::int32_t>(ir.accesses.size());
  }
  constexpr void end_accesses(ir::statement& s, ir::region written) {
    s.reads_count = static_cast<std::int32_t>(ir.accesses.size()) - s.accesses_first;
    s.writes_count = 1;
    ir.accesses.push_back(written);
  }

  // The first buffer in host memory the assignment writes or reads, or -1:
  // elementwise statements run on the device. A program without host
  // buffers skips the scan (it cost the 200-statement program 3% memory).
  constexpr std::int32_t host_buffer_in(const ir::statement& s) const {
    if (!any_host_buffer_) return -1;
    if (ir::is_host(ir.buffers[s.target].space)) return s.target;
    for (auto i = s.accesses_first; i < s.accesses_first + s.reads_count; ++i)
      if (const auto b = ir.accesses[static_cast<std::size_t>(i)].buffer; ir::is_host(ir.buffers[b].space))
        return b;
    return -1;
  }

  // Whether the statement reads any region of `buffer`.
  constexpr bool reads_buffer(const ir::statement& s, std::int32_t buffer) const {
    for (auto i = s.accesses_first; i < s.accesses_first + s.reads_count; ++i)
      if (ir.accesses[static_cast<std::size_t>(i)].buffer == buffer) return true;
    return false;
  }

  // A temp region the statement reads that earlier statements did not write
  // in full: the temp's id, or -1. (The accesses are indexed in place: this
  // runs for every statement.)
  constexpr std::int32_t unwritten_temp_read(const ir::statement& s) const {
    for (auto i = s.accesses_first; i < s.accesses_first + s.reads_count; ++i) {
      const auto& r = ir.accesses[static_cast<std::size_t>(i)];
      if (ir.buffers[r.buffer].kind == ir::access::temp && !written(r)) return r.buffer;
    }
    return -1;
  }

  constexpr void note_written(ir::region r) {
    if (ir.buffers[r.buffer].kind != ir::access::temp) return;
    if (ir::is_whole(r))
      whole_written_[static_cast<std::size_t>(r.buffer)] = true;
    else
      written_parts_.push_back(r);
  }

  // Whether the temp writes so far cover region r: walk from its start
  // through written parts (fractions of the extent, compared exactly).
  constexpr bool written(ir::region r) const {
    if (whole_written_[static_cast<std::size_t>(r.buffer)]) return true;
    std::int64_t at_num = r.part, at_den = r.parts;  // covered up to at_num / at_den
    const std::int64_t end_num = r.part + 1, end_den = r.parts;
    while (at_num * end_den < end_num * at_den) {
      bool advanced = false;
      for (const auto& w : written_parts_) {
        if (w.buffer != r.buffer) continue;
        // w starts at or before the point and ends after it
        if (std::int64_t{w.part} * at_den <= at_num * w.parts &&
            at_num * w.parts < (std::int64_t{w.part} + 1) * at_den) {
          at_num = w.part + 1;
          at_den = w.parts;
          advanced = true;
          break;
        }
      }
      if (!advanced) return false;
    }
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

  // Node n iterates the shape its operands a and b share: one domain cut
  // into one number of parts, or the one the other broadcasts to (a 0-d
  // value, or a row or column of a rank-2 shape: ir/shape.hpp).
  constexpr void join_shape(ir::expr_node& n, std::int32_t a, std::int32_t b) {
    const auto& x = ir.nodes[a];
    const auto& y = ir.nodes[b];
    const auto& shape = x.domain < 0 ? y : x;
    n.domain = shape.domain;
    n.parts = shape.parts;
    if (x.domain < 0 || y.domain < 0) return;
    if (x.domain != y.domain) {
      const auto joined = ir::broadcast_shape(ir::view_of(ir).domains, x.domain, y.domain);
      if (joined == ir::no_shape)
        fail(diag::error_kind::domain_mismatch, messages::operand_domains_differ(ir, current_stream, a, b));
      else if (x.parts != 1 || y.parts != 1)  // chunks of rank-2 buffers are refused where taken
        fail(diag::error_kind::chunk_mismatch, messages::operand_chunks_differ(ir, current_stream, a, b));
      n.domain = joined == ir::no_shape ? x.domain : joined;
      n.parts = 1;
    } else if (x.parts != y.parts) {
      fail(diag::error_kind::chunk_mismatch, messages::operand_chunks_differ(ir, current_stream, a, b));
    }
  }

  // Whether a value over domain `from` can be stored in every element of a
  // buffer over domain `to` (as it is, or broadcast).
  constexpr bool stores_into(std::int32_t from, std::int32_t to) const {
    return from == to || ir::broadcast_of(ir::view_of(ir).domains, from, to) != ir::load_index::none;
  }

  constexpr void expression_error(diag::error_kind kind, std::int32_t node, const text& why) {
    fail(kind, messages::in_expression(ir, current_stream, node, why));
  }

  // Every error goes through here so that no message outgrows the capacity.
  constexpr void fail(diag::error_kind kind, const text& t) { ir.fail(kind, diag::fit_message(t)); }

  name_table names_;
  detail::dyn_array<bool> whole_written_;        // per buffer: a statement so far writes all of it
  detail::dyn_array<ir::region> written_parts_;  // the chunks of temps written so far
  bool any_host_buffer_ = false;                 // some buffer is declared in host memory
};

// The way into an engine. Tiny inline forwards, one per operation, so that
// builder_state itself has no public API beyond its constructor.
struct builder_access {
  // The engine under a handle (buffer, param, stream, expr) or a builder.
  template <class Handle>
  static constexpr auto state_of(const Handle& h) -> decltype(h.builder()) {
    return h.builder();
  }
  template <class Handle>
  static constexpr auto operand_of(const Handle& h, builder_state* s) -> decltype(h.as_operand(s)) {
    return h.as_operand(s);
  }
  // The region a buffer or chunk handle names.
  template <class Handle>
  static constexpr auto region_of(const Handle& h) -> decltype(h.region()) {
    return h.region();
  }
  static constexpr builder_state& state(builder& b);  // defined in builder.hpp
  static constexpr const builder_state& state(const builder& b);

  static constexpr ir::program& ir(builder_state& s) { return s.ir; }
  static constexpr const ir::program& ir(const builder_state& s) { return s.ir; }
  static constexpr std::int32_t& current_stream(builder_state& s) { return s.current_stream; }
  static constexpr std::int32_t current_stream(const builder_state& s) { return s.current_stream; }
  static constexpr const dyn_array<std::int32_t>& last_record(const builder_state& s) {
    return s.last_record;
  }

  static constexpr std::int32_t add_buffer(builder_state& s, string_view name, ir::access kind, dtype type,
                                           std::int32_t domain,
                                           ir::memory_space space = ir::memory_space::device) {
    return s.add_buffer(name, kind, type, domain, space);
  }
  using family_of = builder_state::family_of;
  static constexpr std::int32_t add_buffer_family(builder_state& s, string_view name, std::int64_t count,
                                                  ir::access kind, dtype type, std::int32_t domain,
                                                  ir::memory_space space) {
    return s.add_buffer_family(name, count, kind, type, domain, space);
  }
  static constexpr std::int32_t add_stream_family(builder_state& s, string_view name, std::int64_t count) {
    return s.add_stream_family(name, count);
  }
  static constexpr std::int32_t add_event_family(builder_state& s, string_view name, std::int64_t count) {
    return s.add_event_family(name, count);
  }
  static constexpr std::int32_t family_member(builder_state& s, family_of what, std::int32_t first,
                                              std::int32_t size, std::int64_t index) {
    return s.family_member(what, first, size, index);
  }
  static constexpr std::int32_t add_param(builder_state& s, string_view name, dtype type) {
    return s.add_param(name, type);
  }
  static constexpr std::int32_t add_stream(builder_state& s, string_view name) { return s.add_stream(name); }
  static constexpr std::int32_t add_event(builder_state& s, string_view name) { return s.add_event(name); }
  static constexpr std::int32_t add_domain(builder_state& s, string_view name) { return s.add_domain(name); }

  static constexpr operand load(builder_state& s, std::int32_t buffer) { return s.load(buffer); }
  static constexpr operand load(builder_state& s, ir::region r) { return s.load(r.buffer, r.part, r.parts); }
  static constexpr ir::region chunk(builder_state& s, std::int32_t buffer, std::int32_t part,
                                    std::int32_t parts) {
    return s.chunk(buffer, part, parts);
  }
  static constexpr operand param(builder_state& s, std::int32_t id) { return s.param(id); }
  static constexpr operand literal(builder_state& s, dtype type, double f, std::int64_t i) {
    return s.literal(type, f, i);
  }
  static constexpr operand unary(builder_state& s, ir::op code, operand a, dtype result, dtype compute) {
    return s.unary(code, a, result, compute);
  }
  static constexpr operand binary(builder_state& s, ir::op code, operand a, operand b) {
    return s.binary(code, a, b);
  }
  static constexpr operand where(builder_state& s, operand c, operand a, operand b) {
    return s.where(c, a, b);
  }

  static constexpr void assign(builder_state& s, std::int32_t buffer, operand value) {
    s.assign(buffer, 0, 1, value);
  }
  static constexpr void assign(builder_state& s, ir::region target, operand value) {
    s.assign(target.buffer, target.part, target.parts, value);
  }
  static constexpr void copy(builder_state& s, ir::region dst, ir::region src) { s.copy(dst, src); }
  static constexpr void reduce_or_scan(builder_state& s, ir::step_code code, ir::region target, operand value,
                                       std::int32_t axis = -1) {
    s.reduce_or_scan(code, target, value, axis);
  }
  static constexpr void matmul(builder_state& s, ir::region target, std::int32_t a, std::int32_t b,
                               std::uint8_t mode, std::int32_t scale_a = -1, std::int32_t scale_b = -1,
                               std::int32_t scale_d = -1, std::int32_t amax_d = -1) {
    s.matmul(target, a, b, mode, scale_a, scale_b, scale_d, amax_d);
  }
  static constexpr void call(builder_state& s, detail::string_view name, const ir::region* reads,
                             std::size_t read_count, const ir::region* writes, std::size_t write_count,
                             ir::step_code code = ir::step_code::call) {
    s.call(name, reads, read_count, writes, write_count, code);
  }
  static constexpr void collective(builder_state& s, ir::step_code code, ir::region target, ir::region source,
                                   ir::reduce_op op, std::int32_t root) {
    s.collective(code, target, source, op, root);
  }
  static constexpr std::int32_t product_domain(builder_state& s, std::int32_t outer, std::int32_t inner) {
    return s.product_domain(outer, inner);
  }
  static constexpr void record(builder_state& s, std::int32_t event) { s.record(event); }
  static constexpr void wait(builder_state& s, std::int32_t event) { s.wait(event); }
  static constexpr void wait_stream(builder_state& s, std::int32_t waiter, std::int32_t waited) {
    s.wait_stream(waiter, waited);
  }
};

}  // namespace streamdsl::detail
