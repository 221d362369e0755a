#pragma once
// Elementwise functions: math, min/max, where, cast. Each appends one node.
// Transcendentals of integers compute in float, as in PyTorch.
#include "expr.hpp"

namespace streamdsl {

namespace detail {

constexpr dtype floating_result(dtype t) {
  return category_of(t) == dtype_category::floating ? t : dtype::float32;
}

template <ir::op Code, bool Floating, node_like A>
constexpr auto make_unary(const A& a) {
  constexpr dtype result = Floating ? floating_result(A::static_type.type) : A::static_type.type;
  auto* s = a.builder();
  const auto r = s->unary(Code, a.as_operand(s), result, result);
  return expr_for<result, A::static_type.power>{s, r.node};
}

}  // namespace detail

#define STREAMDSL_UNARY_FUNCTION(fn, floating)          \
  template <detail::node_like A>                        \
  constexpr auto fn(const A& a) {                       \
    return detail::make_unary<ir::op::fn, floating>(a); \
  }

STREAMDSL_UNARY_FUNCTION(abs, false)
STREAMDSL_UNARY_FUNCTION(relu, false)
STREAMDSL_UNARY_FUNCTION(exp, true)
STREAMDSL_UNARY_FUNCTION(log, true)
STREAMDSL_UNARY_FUNCTION(sqrt, true)
STREAMDSL_UNARY_FUNCTION(rsqrt, true)
STREAMDSL_UNARY_FUNCTION(sin, true)
STREAMDSL_UNARY_FUNCTION(cos, true)
STREAMDSL_UNARY_FUNCTION(tanh, true)
STREAMDSL_UNARY_FUNCTION(sigmoid, true)
#undef STREAMDSL_UNARY_FUNCTION

template <class A, class B>
  requires detail::binary_operands<A, B>
constexpr auto min(const A& a, const B& b) {
  constexpr typed t = detail::arithmetic_type<A, B>;
  return detail::make_binary<t.type, t.power>(ir::op::min, a, b);
}

template <class A, class B>
  requires detail::binary_operands<A, B>
constexpr auto max(const A& a, const B& b) {
  constexpr typed t = detail::arithmetic_type<A, B>;
  return detail::make_binary<t.type, t.power>(ir::op::max, a, b);
}

// Explicit conversion: the way to store a wider value in a narrower buffer.
template <element_type T, detail::node_like A>
constexpr auto cast(const A& a) {
  auto* s = a.builder();
  const auto r = s->unary(ir::op::cast, a.as_operand(s), dtype_v<T>, dtype_v<T>);
  return detail::expr_for<dtype_v<T>, A::static_type.power>{s, r.node};
}

namespace detail {
template <class A, class B>
constexpr typed where_type() {
  constexpr typed a = static_type_of<A>(), b = static_type_of<B>();
  if constexpr (a.power == strength::literal && b.power != strength::literal)
    return {b.type, b.power};
  else if constexpr (b.power == strength::literal && a.power != strength::literal)
    return {a.type, a.power};
  else
    return {a.power == strength::literal ? promote(a.type, b.type) : a.type,
            a.power > b.power ? a.power : b.power};
}
}  // namespace detail

// where(c, a, b): a where c holds, b elsewhere. Both branches have one type
// (a literal branch adapts); c must be bool.
template <detail::node_like C, detail::operand_like A, detail::operand_like B>
constexpr auto where(const C& c, const A& a, const B& b) {
  auto* s = c.builder();
  const auto r = s->where(c.as_operand(s), detail::lift(s, a), detail::lift(s, b));
  constexpr typed t = detail::where_type<A, B>();
  return detail::expr_for<t.type, (C::static_type.power > t.power ? C::static_type.power : t.power)>{s,
                                                                                                     r.node};
}

}  // namespace streamdsl
