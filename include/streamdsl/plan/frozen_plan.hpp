#pragma once
// A plan as a compile-time value. C++20 lets no allocation outlive a
// constant evaluation, so the growable plan model is copied into arrays. The
// passes run once: their result is frozen into arrays sized by upper bounds
// that the IR alone gives (bounds_of, passes/schedule.hpp: each pass declares
// what it may add), then that oversized value is shrunk to its exact sizes (a
// copy, no pass runs again).
#include "../detail/fixed_array.hpp"
#include "../detail/fixed_string.hpp"
#include "../diag/error_kind.hpp"
#include "plan_arrays.hpp"
#include "plan_model.hpp"
#include "plan_view.hpp"

namespace streamdsl {

inline constexpr std::size_t error_capacity = 480;  // see diag::message_capacity

// The plan as arrays of sizes Z: every array of the IR and of the plan
// (ir/program_arrays.hpp, plan/plan_arrays.hpp), each holding its first
// `used` elements.
template <plan_sizes Z>
struct frozen_plan {
#define STREAMDSL_MEMBER(type, member) detail::fixed_array<type, Z.member> member{};
  STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_MEMBER)
  STREAMDSL_PLAN_ARRAYS(STREAMDSL_MEMBER)
#undef STREAMDSL_MEMBER
  diag::error_kind error = diag::error_kind::none;
  detail::fixed_string<error_capacity> message{};
  plan_sizes used{};  // how much of each array holds the plan

  // The plan: the first `used` elements of each array.
  constexpr plan_view view() const {
    plan_view v;
#define STREAMDSL_VIEW_IR(type, member) v.ir.member = {member.data(), used.member};
#define STREAMDSL_VIEW(type, member) v.member = {member.data(), used.member};
    STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_VIEW_IR)
    STREAMDSL_PLAN_ARRAYS(STREAMDSL_VIEW)
#undef STREAMDSL_VIEW_IR
#undef STREAMDSL_VIEW
    return v;
  }
};

namespace detail {
template <class T, std::size_t N>
constexpr void copy_into(fixed_array<T, N>& to, detail::array_view<T> from) {
  for (std::size_t i = 0; i < from.size(); ++i) to[i] = from[i];
}

// Not constexpr: reaching it stops the compile with its name in the error.
inline void streamdsl_internal_error_plan_exceeds_its_bounds() {}
}  // namespace detail

// A plan (as a view) in arrays of sizes Z, which must hold it.
template <plan_sizes Z>
constexpr frozen_plan<Z> freeze(const plan_view& v, diag::error_kind error, detail::string_view message) {
  frozen_plan<Z> f;
  f.used = sizes_of(v);
  if (!fits_within(f.used, Z)) detail::streamdsl_internal_error_plan_exceeds_its_bounds();
#define STREAMDSL_COPY_IR(type, member) detail::copy_into(f.member, v.ir.member);
#define STREAMDSL_COPY(type, member) detail::copy_into(f.member, v.member);
  STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_COPY_IR)
  STREAMDSL_PLAN_ARRAYS(STREAMDSL_COPY)
#undef STREAMDSL_COPY_IR
#undef STREAMDSL_COPY
  f.error = error;
  f.message = detail::fixed_string<error_capacity>(message);
  return f;
}

// The plan model, frozen.
template <plan_sizes Z>
constexpr frozen_plan<Z> freeze(const plan_model& m) {
  const bool failed = !m.ir.errors.empty();
  return freeze<Z>(view_of(m), failed ? m.ir.errors.front().kind : diag::error_kind::none,
                   failed ? m.ir.errors.front().message.view() : detail::string_view{});
}

// The same plan in arrays of its exact sizes Z (== big.used): a copy, no pass runs.
template <plan_sizes Z, plan_sizes B>
constexpr frozen_plan<Z> shrink(const frozen_plan<B>& big) {
  return freeze<Z>(big.view(), big.error, big.message.view());
}

}  // namespace streamdsl
