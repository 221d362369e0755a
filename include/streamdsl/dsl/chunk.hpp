#pragma once
// x.chunk(i, k): a handle on the i-th of k equal parts of buffer x, read and
// written like the buffer (`y.chunk(i, k) = x.chunk(i, k) * 2`) and copied
// with sd::copy. Race analysis and the memory plan see the region, so
// disjoint chunks on different streams never conflict.
#include "collective_value.hpp"
#include "expr.hpp"

namespace streamdsl {

template <class Buffer>
class buffer_chunk {
 public:
  using value_type = typename Buffer::value_type;
  static constexpr typed static_type = Buffer::static_type;

  constexpr buffer_chunk(detail::builder_state* state, ir::region r) : state_(state), region_(r) {}
  constexpr buffer_chunk(const buffer_chunk&) = default;

  // Assignment is a statement on the chunk, never a handle copy.
  constexpr buffer_chunk& operator=(const buffer_chunk& value) { return assign(value); }
  template <class E>
    requires detail::operand_like<E>
  constexpr buffer_chunk& operator=(const E& value) { return assign(value); }
  // `s = sd::sum(x * y)`, `y = sd::inclusive_sum(x)`: a reduction or scan.
  constexpr buffer_chunk& operator=(const detail::step_value& v) {
    detail::builder_access::reduce_or_scan(*v.state, v.code, region_, v.value, v.axis);
    return *this;
  }

  // `y.chunk(i, k) = sd::all_reduce(x.chunk(i, k), op)` and the other collectives (ops/collective.hpp).
  constexpr buffer_chunk& operator=(detail::collective_value&& v) {
    v.store_into(region_);
    return *this;
  }

  // `y.chunk(i, k) += e` is `y.chunk(i, k) = y.chunk(i, k) + e`, as for a buffer.
#define STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT(sym, op_sym) \
  template <class E>                                     \
    requires detail::operand_like<E>                     \
  constexpr buffer_chunk& operator sym(const E& value) { return assign(*this op_sym value); }
  STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT(+=, +)
  STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT(-=, -)
  STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT(*=, *)
  STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT(/=, /)
  STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT(%=, %)
  STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT(&=, &)
  STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT(|=, |)
  STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT(^=, ^)
  STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT(<<=, <<)
  STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT(>>=, >>)
#undef STREAMDSL_CHUNK_COMPOUND_ASSIGNMENT

 private:
  friend struct detail::builder_access;
  constexpr detail::builder_state* builder() const { return state_; }
  constexpr detail::operand as_operand(detail::builder_state* s) const {
    return detail::builder_access::load(*s, region_);
  }
  constexpr ir::region region() const { return region_; }

  template <class E>
  constexpr buffer_chunk& assign(const E& value) {
    detail::builder_access::assign(*state_, region_, detail::lift(state_, value));
    return *this;
  }

  detail::builder_state* state_;
  ir::region region_;
};

}  // namespace streamdsl
