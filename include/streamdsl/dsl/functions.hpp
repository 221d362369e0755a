#pragma once
// Elementwise functions: math, min/max, fmod/pow, where, cast. Each appends
// one node. Transcendentals of integers compute in float, as in PyTorch;
// floor, ceil and round of an integer are the integer; round rounds half to
// even. Their per-element meaning is backend/element_ops.hpp's.
#include "expr.hpp"

namespace streamdsl {

#define STREAMDSL_UNARY_FUNCTION(fn)          \
  template <detail::node_like A>              \
  constexpr auto fn(const A& a) {             \
    return detail::make_unary<ir::op::fn>(a); \
  }

STREAMDSL_UNARY_FUNCTION(abs)
STREAMDSL_UNARY_FUNCTION(relu)
STREAMDSL_UNARY_FUNCTION(exp)
STREAMDSL_UNARY_FUNCTION(log)
STREAMDSL_UNARY_FUNCTION(sqrt)
STREAMDSL_UNARY_FUNCTION(rsqrt)
STREAMDSL_UNARY_FUNCTION(sin)
STREAMDSL_UNARY_FUNCTION(cos)
STREAMDSL_UNARY_FUNCTION(tanh)
STREAMDSL_UNARY_FUNCTION(sigmoid)
STREAMDSL_UNARY_FUNCTION(floor)
STREAMDSL_UNARY_FUNCTION(ceil)
STREAMDSL_UNARY_FUNCTION(round)
STREAMDSL_UNARY_FUNCTION(erf)
STREAMDSL_UNARY_FUNCTION(gelu)       // x / 2 (1 + erf(x / sqrt 2))
STREAMDSL_UNARY_FUNCTION(gelu_tanh)  // tanh approximation, as cuBLASLt's GELU epilogue
STREAMDSL_UNARY_FUNCTION(exp2)
STREAMDSL_UNARY_FUNCTION(log1p)
#undef STREAMDSL_UNARY_FUNCTION

#define STREAMDSL_BINARY_FUNCTION(fn)                                                              \
  template <class A, class B>                                                                      \
    requires detail::binary_operands<A, B>                                                         \
  constexpr auto fn(const A& a, const B& b) {                                                      \
    constexpr typed t =                                                                            \
        ir::types_of(ir::op::fn, detail::static_type_of<A>(), detail::static_type_of<B>()).result; \
    return detail::make_binary<t.type, t.power>(ir::op::fn, a, b);                                 \
  }

STREAMDSL_BINARY_FUNCTION(min)
STREAMDSL_BINARY_FUNCTION(max)
STREAMDSL_BINARY_FUNCTION(fmod)  // truncated remainder: floats as std::fmod, integers as %
STREAMDSL_BINARY_FUNCTION(pow)
#undef STREAMDSL_BINARY_FUNCTION

// Explicit conversion: the way to store a wider value in a narrower buffer.
template <element_type T, detail::node_like A>
constexpr auto cast(const A& a) {
  return detail::make_unary<ir::op::cast, dtype_v<T>>(a);
}

// where(c, a, b): a where c holds, b elsewhere. Both branches have one type
// (a literal branch adapts); c must be bool.
template <detail::node_like C, detail::operand_like A, detail::operand_like B>
constexpr auto where(const C& c, const A& a, const B& b) {
  using access = detail::builder_access;
  auto* s = access::state_of(c);
  const auto r = access::where(*s, access::operand_of(c, s), detail::lift(s, a), detail::lift(s, b));
  constexpr typed t =
      ir::types_of(ir::op::where, C::static_type, detail::static_type_of<A>(), detail::static_type_of<B>())
          .result;
  return detail::expr_for<t.type, t.power>{s, r.node};
}

}  // namespace streamdsl
