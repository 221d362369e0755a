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

namespace detail {
// N characters packed eight to a word. The name pool of the passes' result is
// sized by its bound, which reserves every possible note (note_capacity per
// statement): a char array of that size, mostly zeros, cost the three front
// ends of nvcc 5-6% of a 200-statement program's compile to initialize and
// keep; packed, it is an eighth of the elements. Only the oversized
// intermediate is packed: the plan a program keeps is plain chars.
template <std::size_t N>
struct packed_chars {
  unsigned long long words[N > 0 ? (N + 7) / 8 : 1]{};

  constexpr char get(std::size_t i) const {
    return static_cast<char>(static_cast<unsigned char>(words[i / 8] >> (8 * (i % 8))));
  }
  constexpr void put(std::size_t i, char c) {  // each position written once, from zero
    words[i / 8] |= static_cast<unsigned long long>(static_cast<unsigned char>(c)) << (8 * (i % 8));
  }
};

// How a frozen plan stores an array of T: packed_chars for the name pool of
// an intermediate (Packed), fixed_array otherwise.
template <class T, std::size_t N, bool Packed>
struct frozen_array {
  using type = fixed_array<T, N>;
};
template <std::size_t N>
struct frozen_array<char, N, true> {
  using type = packed_chars<N>;
};
}  // namespace detail

// The plan as arrays of sizes Z: every array of the IR and of the plan
// (ir/program_arrays.hpp, plan/plan_arrays.hpp), each holding its first
// `used` elements. PackedPool: the name pool is packed (an intermediate at
// upper bounds, which only shrink reads; it has no view).
template <plan_sizes Z, bool PackedPool = false>
struct frozen_plan {
#define STREAMDSL_MEMBER(element, member) \
  typename detail::frozen_array<element, Z.member, PackedPool>::type member{};
  STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_MEMBER)
  STREAMDSL_PLAN_ARRAYS(STREAMDSL_MEMBER)
#undef STREAMDSL_MEMBER
  diag::error_kind error = diag::error_kind::none;
  detail::fixed_string<error_capacity> message{};
  plan_sizes used{};  // how much of each array holds the plan

  // The plan: the first `used` elements of each array.
  constexpr plan_view view() const requires(!PackedPool) {
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
template <std::size_t N>
constexpr void copy_into(packed_chars<N>& to, detail::array_view<char> from) {
  for (std::size_t i = 0; i < from.size(); ++i) to.put(i, from[i]);
}
// The first n elements of `from` into `to`.
template <class T, std::size_t N, std::size_t M>
constexpr void copy_prefix(fixed_array<T, N>& to, const fixed_array<T, M>& from, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
}
template <std::size_t N, std::size_t M>
constexpr void copy_prefix(fixed_array<char, N>& to, const packed_chars<M>& from, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = from.get(i);
}

// Not constexpr: reaching it stops the compile with its name in the error.
inline void streamdsl_internal_error_plan_exceeds_its_bounds() {}
}  // namespace detail

// A plan (as a view) in arrays of sizes Z, which must hold it.
template <plan_sizes Z, bool PackedPool = false>
constexpr frozen_plan<Z, PackedPool> freeze(const plan_view& v, diag::error_kind error,
                                            detail::string_view message) {
  frozen_plan<Z, PackedPool> f;
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
template <plan_sizes Z, bool PackedPool = false>
constexpr frozen_plan<Z, PackedPool> freeze(const plan_model& m) {
  const bool failed = !m.ir.errors.empty();
  return freeze<Z, PackedPool>(view_of(m), failed ? m.ir.errors.front().kind : diag::error_kind::none,
                               failed ? m.ir.errors.front().message.view() : detail::string_view{});
}

// The same plan in arrays of its exact sizes Z (== big.used): a copy, no pass runs.
template <plan_sizes Z, plan_sizes B, bool PackedPool>
constexpr frozen_plan<Z> shrink(const frozen_plan<B, PackedPool>& big) {
  frozen_plan<Z> f;
  f.used = big.used;
  if (!fits_within(f.used, Z)) detail::streamdsl_internal_error_plan_exceeds_its_bounds();
#define STREAMDSL_COPY(type, member) detail::copy_prefix(f.member, big.member, big.used.member);
  STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_COPY)
  STREAMDSL_PLAN_ARRAYS(STREAMDSL_COPY)
#undef STREAMDSL_COPY
  f.error = big.error;
  f.message = big.message;
  return f;
}

}  // namespace streamdsl
