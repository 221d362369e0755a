#pragma once
// What sd::all_reduce(x, op) and the other collectives (ops/collective.hpp)
// return: a collective not yet written. Stored into a buffer or chunk
// (`y = sd::all_reduce(x, op)`) it becomes the statement that reads x and
// writes y; left alone (`sd::all_reduce(x, op);`) it becomes the in-place
// statement when the full expression ends (its destructor), so either way
// it lands in program order where it was written. Not a value to keep:
// neither copyable nor movable, so it cannot outlive its statement by much
// (`auto v = sd::all_reduce(x, op);` would run in place at the end of v's
// scope: write the statement instead).
#include "builder_state.hpp"

namespace streamdsl::detail {

class collective_value {
 public:
  constexpr collective_value(builder_state* state, ir::step_code code, ir::region source, ir::reduce_op op,
                             std::int32_t root)
      : state_(state), code_(code), source_(source), op_(op), root_(root) {}
  collective_value(const collective_value&) = delete;
  collective_value& operator=(const collective_value&) = delete;
  constexpr ~collective_value() {
    if (!stored_) builder_access::collective(*state_, code_, source_, source_, op_, root_);
  }

  // `target = <this>`: the out-of-place statement (in place when target is the source).
  constexpr void store_into(ir::region target) {
    stored_ = true;
    builder_access::collective(*state_, code_, target, source_, op_, root_);
  }

 private:
  builder_state* state_;
  ir::step_code code_;
  ir::region source_;
  ir::reduce_op op_;
  std::int32_t root_;
  bool stored_ = false;  // written as `target = ...`
};

}  // namespace streamdsl::detail
