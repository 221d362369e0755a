#pragma once
// Buffer handles. `y = expr` appends an elementwise statement on the current
// stream; the handle itself is just (builder, id) and is copied freely. The
// memory space is part of the type: an elementwise statement over a host
// buffer is a compile error (builder_state::assign says to copy first).
#include "chunk.hpp"
#include "collective_value.hpp"
#include "domain.hpp"
#include "expr.hpp"
#include "memory_space.hpp"

namespace streamdsl {

template <element_type T, ir::access A, detail::memory_space_tag Space = device>
class buffer {
 public:
  using value_type = T;
  using space_type = Space;
  static constexpr ir::access kind = A;
  static constexpr ir::memory_space space = Space::value;

  constexpr buffer(detail::builder_state* state, std::int32_t id) : state_(state), id_(id) {}
  constexpr buffer(const buffer&) = default;

  // Assignment is a statement, never a handle copy.
  constexpr buffer& operator=(const buffer& value) { return assign(value); }
  template <class E>
    requires detail::operand_like<E>
  constexpr buffer& operator=(const E& value) { return assign(value); }
  // `s = sd::sum(x * y)`, `y = sd::inclusive_sum(x)`: a reduction or scan.
  constexpr buffer& operator=(const detail::step_value& v) {
    detail::builder_access::reduce_or_scan(*v.state, v.code, ir::whole(id_), v.value, v.axis);
    return *this;
  }
  // `y = sd::all_reduce(x, op)` and the other collectives (ops/collective.hpp).
  constexpr buffer& operator=(detail::collective_value&& v) {
    v.store_into(ir::whole(id_));
    return *this;
  }
  // `c = sd::matmul(a, b)`: a matrix product (ops/matmul.hpp).
  constexpr buffer& operator=(const detail::matmul_value& v) {
    detail::builder_access::matmul(
        *v.state, ir::whole(id_), v.a.buffer, v.b.buffer,
        static_cast<std::uint8_t>((v.a.transposed ? ir::transpose_a : 0) |
                                  (v.b.transposed ? ir::transpose_b : 0) | (v.tf32 ? ir::matmul_tf32 : 0)),
        v.scale_a, v.scale_b, v.scale_d, v.amax_d);
    return *this;
  }

#define STREAMDSL_COMPOUND_ASSIGNMENT(sym, op_sym) \
  template <class E>                               \
    requires detail::operand_like<E>               \
  constexpr buffer& operator sym(const E& value) { return assign(*this op_sym value); }
  STREAMDSL_COMPOUND_ASSIGNMENT(+=, +)
  STREAMDSL_COMPOUND_ASSIGNMENT(-=, -)
  STREAMDSL_COMPOUND_ASSIGNMENT(*=, *)
  STREAMDSL_COMPOUND_ASSIGNMENT(/=, /)
  STREAMDSL_COMPOUND_ASSIGNMENT(%=, %)
  STREAMDSL_COMPOUND_ASSIGNMENT(&=, &)
  STREAMDSL_COMPOUND_ASSIGNMENT(|=, |)
  STREAMDSL_COMPOUND_ASSIGNMENT(^=, ^)
  STREAMDSL_COMPOUND_ASSIGNMENT(<<=, <<)
  STREAMDSL_COMPOUND_ASSIGNMENT(>>=, >>)
#undef STREAMDSL_COMPOUND_ASSIGNMENT

  constexpr std::int32_t id() const { return id_; }
  static constexpr typed static_type{dtype_v<T>, strength::tensor};

  // The part-th of `parts` equal parts (0 <= part < parts; the bound extent
  // must be a multiple of parts). Readable and writable like the buffer.
  constexpr buffer_chunk<buffer> chunk(std::int32_t part, std::int32_t parts) const {
    return {state_, detail::builder_access::chunk(*state_, id_, part, parts)};
  }

 private:
  friend struct detail::builder_access;
  constexpr detail::builder_state* builder() const { return state_; }
  constexpr detail::operand as_operand(detail::builder_state* s) const {
    return detail::builder_access::load(*s, id_);
  }
  constexpr ir::region region() const { return ir::whole(id_); }

  template <class E>
  constexpr buffer& assign(const E& value) {
    detail::builder_access::assign(*state_, id_, detail::lift(state_, value));
    return *this;
  }

  detail::builder_state* state_;
  std::int32_t id_;
};

template <class T, class Space = device>
using input = buffer<T, ir::access::input, Space>;
template <class T, class Space = device>
using output = buffer<T, ir::access::output, Space>;
template <class T, class Space = device>
using inout = buffer<T, ir::access::inout, Space>;
// Temps live in the executor's device workspace: no space to choose.
template <class T>
using temp = buffer<T, ir::access::temp>;

}  // namespace streamdsl
