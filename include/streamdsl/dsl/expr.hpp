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

  constexpr detail::operand as_operand(detail::builder_state*) const { return {node, static_type}; }
  constexpr detail::builder_state* builder() const { return state; }
};

namespace detail {

template <class X>
struct is_node_handle : std::false_type {};
template <class T, strength S>
struct is_node_handle<expr<T, S>> : std::true_type {};

// Anything that denotes a value in the program being built: expressions,
// buffers and params (each exposes builder() and as_operand()).
template <class X>
concept node_like = requires(const X& x, builder_state* b) {
  { x.builder() } -> std::same_as<builder_state*>;
  { x.as_operand(b) } -> std::same_as<operand>;
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
    return x.as_operand(b);
  } else {
    constexpr dtype t = literal_dtype<X>();
    return b->literal(t, static_cast<double>(x), static_cast<std::int64_t>(x));
  }
}

template <class A, class B>
constexpr builder_state* builder_of(const A& a, const B& b) {
  if constexpr (node_like<A>)
    return a.builder();
  else
    return b.builder();
}

template <dtype D, strength S>
using expr_for = expr<type_of<D>, S>;

template <class A, class B>
inline constexpr typed arithmetic_type = combine(static_type_of<A>(), static_type_of<B>());

template <class A, class B>
inline constexpr typed boolean_type{dtype::boolean, combine(static_type_of<A>(), static_type_of<B>()).power};

template <dtype D, strength S, class A, class B>
constexpr auto make_binary(ir::op code, const A& a, const B& b) {
  builder_state* s = builder_of(a, b);
  const operand r = s->binary(code, lift(s, a), lift(s, b));
  return expr_for<D, S>{s, r.node};
}

template <class A, class B>
concept binary_operands = operand_like<A> && operand_like<B> &&
    (node_like<std::remove_cvref_t<A>> || node_like<std::remove_cvref_t<B>>);

}  // namespace detail

#define STREAMDSL_BINARY_OPERATOR(sym, code, result)                 \
  template <class A, class B>                                        \
    requires detail::binary_operands<A, B>                           \
  constexpr auto operator sym(const A& a, const B& b) {              \
    constexpr typed r = detail::result<A, B>;                        \
    return detail::make_binary<r.type, r.power>(ir::op::code, a, b); \
  }

STREAMDSL_BINARY_OPERATOR(+, add, arithmetic_type)
STREAMDSL_BINARY_OPERATOR(-, sub, arithmetic_type)
STREAMDSL_BINARY_OPERATOR(*, mul, arithmetic_type)
STREAMDSL_BINARY_OPERATOR(/, div, arithmetic_type)
STREAMDSL_BINARY_OPERATOR(<, lt, boolean_type)
STREAMDSL_BINARY_OPERATOR(<=, le, boolean_type)
STREAMDSL_BINARY_OPERATOR(>, gt, boolean_type)
STREAMDSL_BINARY_OPERATOR(>=, ge, boolean_type)
STREAMDSL_BINARY_OPERATOR(==, eq, boolean_type)
STREAMDSL_BINARY_OPERATOR(!=, ne, boolean_type)
STREAMDSL_BINARY_OPERATOR(&&, logical_and, boolean_type)
STREAMDSL_BINARY_OPERATOR(||, logical_or, boolean_type)
#undef STREAMDSL_BINARY_OPERATOR

template <detail::node_like A>
constexpr auto operator-(const A& a) {
  auto* s = a.builder();
  const auto r = s->unary(ir::op::neg, a.as_operand(s), A::static_type.type, A::static_type.type);
  return detail::expr_for<A::static_type.type, A::static_type.power>{s, r.node};
}

template <detail::node_like A>
constexpr auto operator!(const A& a) {
  auto* s = a.builder();
  const auto r = s->unary(ir::op::logical_not, a.as_operand(s), dtype::boolean, dtype::boolean);
  return detail::expr_for<dtype::boolean, A::static_type.power>{s, r.node};
}

}  // namespace streamdsl
