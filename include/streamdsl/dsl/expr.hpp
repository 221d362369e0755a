#pragma once
// Expression templates: `x + 1` appends a node to the program being built and
// yields an expr<T, S> whose C++ type carries the element type and how
// strongly it promotes (literal < 0-d scalar < tensor), so assignments and
// overloads see types statically while the tree itself lives in the IR.
#include <concepts>
#include <type_traits>

#include "builder_state.hpp"

namespace streamdsl {

template <class T, strength S>
struct expr {
  detail::builder_state* state;
  std::int32_t node;

  using value_type = T;
  static constexpr typed static_type{dtype_v<T>, S};

 private:
  friend struct detail::builder_access;
  constexpr detail::operand as_operand(detail::builder_state*) const { return {node, static_type}; }
  constexpr detail::builder_state* builder() const { return state; }
};

namespace detail {

// What sd::sum(e) and the other reductions and scans (ops/reduce.hpp,
// ops/scan.hpp) return: the step and its input, which become a statement
// when stored (`s = sd::sum(x * y)`). Not a value to compute with: store it
// in a 0-d buffer and read that (`s = sd::sum(x); z = x / s`).
struct step_value {
  builder_state* state;
  ir::step_code code;
  operand value;
  std::int32_t axis = -1;  // sd::sum(e, cols): the domain reduced along (-1: all of e)
};

// What sd::matmul(a, b) returns (ops/matmul.hpp): its two rank-2 operands,
// each maybe transposed; a statement when stored (`c = sd::matmul(a, b)`).
struct matmul_operand {
  builder_state* state;
  std::int32_t buffer;
  bool transposed;
};
struct matmul_value {
  builder_state* state;
  matmul_operand a, b;
  bool tf32 = false;                        // sd::matmul(a, b, sd::tf32)
  std::int32_t scale_a = -1, scale_b = -1;  // sd::matmul(a, b, sd::scales(sa, sb)): 0-d buffers
  std::int32_t scale_d = -1, amax_d = -1;   // sd::output_scale(sd), sd::output_amax(am): 0-d buffers
};
// sd::scales(sa, sb): the per-tensor scales of an FP8 matmul's operands, and
// maybe its FP8 product's (sd::output_scale) and the amax it writes
// (sd::output_amax; -1: none).
struct matmul_scales {
  builder_state* state;
  std::int32_t a, b;
  std::int32_t d = -1, amax = -1;
};

template <class X>
struct is_node_handle : std::false_type {};
template <class T, strength S>
struct is_node_handle<expr<T, S>> : std::true_type {};

// Anything that denotes a value in the program being built: expressions,
// buffers and params (each has a builder() and an as_operand() that only
// builder_access may call).
template <class X>
concept node_like = requires(const X& x, builder_state* b) {
  { builder_access::state_of(x) } -> std::same_as<builder_state*>;
  { builder_access::operand_of(x, b) } -> std::same_as<operand>;
  X::static_type;
};

template <class X>
concept operand_like = node_like<std::remove_cvref_t<X>> || literal_scalar<std::remove_cvref_t<X>>;

template <class X>
constexpr typed static_type_of() {
  using U = std::remove_cvref_t<X>;
  if constexpr (node_like<U>)
    return U::static_type;
  else
    return {literal_dtype<U>(), strength::literal};
}

template <class X>
constexpr operand lift(builder_state* b, const X& x) {
  if constexpr (node_like<X>) {
    return builder_access::operand_of(x, b);
  } else {
    constexpr dtype t = literal_dtype<X>();
    return builder_access::literal(*b, t, static_cast<double>(x), static_cast<std::int64_t>(x));
  }
}

template <class A, class B>
constexpr builder_state* builder_of(const A& a, const B& b) {
  if constexpr (node_like<A>)
    return builder_access::state_of(a);
  else
    return builder_access::state_of(b);
}

template <dtype D, strength S>
using expr_for = expr<type_of<D>, S>;

template <dtype D, strength S, class A, class B>
constexpr auto make_binary(ir::op code, const A& a, const B& b) {
  builder_state* s = builder_of(a, b);
  const operand r = builder_access::binary(*s, code, lift(s, a), lift(s, b));
  return expr_for<D, S>{s, r.node};
}

template <class A, class B>
concept binary_operands = operand_like<A> && operand_like<B> &&
    (node_like<std::remove_cvref_t<A>> || node_like<std::remove_cvref_t<B>>);

// Unary operators and functions: the node's types come from the op's row of
// ir/op_table.hpp (To: a cast's target type).
template <ir::op Code, dtype To = dtype::float32, node_like A>
constexpr auto make_unary(const A& a) {
  constexpr ir::node_types t = ir::types_of(Code, A::static_type, {}, {}, To);
  auto* s = builder_access::state_of(a);
  const auto r = builder_access::unary(*s, Code, builder_access::operand_of(a, s), t.result.type, t.compute);
  return expr_for<t.result.type, t.result.power>{s, r.node};
}

}  // namespace detail

#define STREAMDSL_BINARY_OPERATOR(sym, code)                                                         \
  template <class A, class B>                                                                        \
    requires detail::binary_operands<A, B>                                                           \
  constexpr auto operator sym(const A& a, const B& b) {                                              \
    constexpr typed r =                                                                              \
        ir::types_of(ir::op::code, detail::static_type_of<A>(), detail::static_type_of<B>()).result; \
    return detail::make_binary<r.type, r.power>(ir::op::code, a, b);                                 \
  }

STREAMDSL_BINARY_OPERATOR(+, add)
STREAMDSL_BINARY_OPERATOR(-, sub)
STREAMDSL_BINARY_OPERATOR(*, mul)
STREAMDSL_BINARY_OPERATOR(/, div)
STREAMDSL_BINARY_OPERATOR(%, mod)
STREAMDSL_BINARY_OPERATOR(&, bit_and)
STREAMDSL_BINARY_OPERATOR(|, bit_or)
STREAMDSL_BINARY_OPERATOR(^, bit_xor)
STREAMDSL_BINARY_OPERATOR(<<, shl)
STREAMDSL_BINARY_OPERATOR(>>, shr)
STREAMDSL_BINARY_OPERATOR(<, lt)
STREAMDSL_BINARY_OPERATOR(<=, le)
STREAMDSL_BINARY_OPERATOR(>, gt)
STREAMDSL_BINARY_OPERATOR(>=, ge)
STREAMDSL_BINARY_OPERATOR(==, eq)
STREAMDSL_BINARY_OPERATOR(!=, ne)
STREAMDSL_BINARY_OPERATOR(&&, logical_and)
STREAMDSL_BINARY_OPERATOR(||, logical_or)
#undef STREAMDSL_BINARY_OPERATOR

template <detail::node_like A>
constexpr auto operator-(const A& a) {
  return detail::make_unary<ir::op::neg>(a);
}

template <detail::node_like A>
constexpr auto operator!(const A& a) {
  return detail::make_unary<ir::op::logical_not>(a);
}

template <detail::node_like A>
constexpr auto operator~(const A& a) {
  return detail::make_unary<ir::op::bit_not>(a);
}

}  // namespace streamdsl
