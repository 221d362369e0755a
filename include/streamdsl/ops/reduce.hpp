#pragma once
// Reductions of an elementwise expression into a 0-d buffer, on the current
// stream: `s = sd::sum(x * y)` reads x and y once and writes no temp (the
// expression is the reduction's input). sd::sum, sd::min, sd::max,
// sd::mean, sd::norm (L2) and sd::argmax (the index of the first largest
// element, int64_t). Result types and the accumulation type: ir/step.hpp
// and docs/concepts.md, "Reductions and scans". On the GPU they run through
// CUB; on the host executor as a loop.
//
// sd::min(x) and sd::max(x) of one operand reduce; of two (functions.hpp)
// they are elementwise, as torch.max(x) and torch.max(a, b).
#include "../dsl/domain.hpp"
#include "../dsl/expr.hpp"

namespace streamdsl {

namespace detail {
template <ir::step_code Code, node_like A>
constexpr step_value make_step_value(const A& a, std::int32_t axis = -1) {
  auto* s = builder_access::state_of(a);
  return {s, Code, builder_access::operand_of(a, s), axis};
}
}  // namespace detail

// sd::sum(e) reduces all of e; sd::sum(e, cols) each row of a rank-2 e
// along its last axis, cols, into a column over its rows.
#define STREAMDSL_REDUCTION(fn)                                    \
  template <detail::node_like A>                                   \
  constexpr detail::step_value fn(const A& a) {                    \
    return detail::make_step_value<ir::step_code::fn>(a);          \
  }                                                                \
  template <detail::node_like A>                                   \
  constexpr detail::step_value fn(const A& a, domain axis) {       \
    return detail::make_step_value<ir::step_code::fn>(a, axis.id); \
  }

STREAMDSL_REDUCTION(sum)
STREAMDSL_REDUCTION(min)
STREAMDSL_REDUCTION(max)
STREAMDSL_REDUCTION(mean)
STREAMDSL_REDUCTION(norm)
STREAMDSL_REDUCTION(argmax)
#undef STREAMDSL_REDUCTION

}  // namespace streamdsl
