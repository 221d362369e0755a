#pragma once
// A plan as a compile-time value: the growable plan model copied into arrays
// whose sizes were measured by a first evaluation.
#include <array>

#include "../detail/fixed_string.hpp"
#include "../diag/error_kind.hpp"
#include "plan_model.hpp"
#include "plan_view.hpp"

namespace streamdsl {

inline constexpr std::size_t error_capacity = 480;  // see diag::message_capacity

struct plan_sizes {
  std::size_t pool, buffers, params, streams, events, domains, nodes, stmts, reads;
  std::size_t ops, kernels, kernel_stmts, slots, notes;
  friend constexpr bool operator==(const plan_sizes&, const plan_sizes&) = default;
};

constexpr plan_sizes sizes_of(const plan_model& m) {
  const auto& p = m.ir;
  return {p.pool.size(), p.buffers.size(), p.params.size(), p.streams.size(), p.events.size(),
          p.domains.size(), p.nodes.size(), p.stmts.size(), p.reads.size(), m.ops.size(), m.kernels.size(),
          m.kernel_stmts.size(), m.slots.size(), m.notes.size()};
}

template <plan_sizes Z>
struct frozen_plan {
  std::array<char, Z.pool> pool{};
  std::array<ir::buffer_info, Z.buffers> buffers{};
  std::array<ir::param_info, Z.params> params{};
  std::array<ir::stream_info, Z.streams> streams{};
  std::array<ir::event_info, Z.events> events{};
  std::array<ir::domain_info, Z.domains> domains{};
  std::array<ir::expr_node, Z.nodes> nodes{};
  std::array<ir::statement, Z.stmts> stmts{};
  std::array<std::int32_t, Z.reads> reads{};
  std::array<plan_op, Z.ops> ops{};
  std::array<kernel_info, Z.kernels> kernels{};
  std::array<std::int32_t, Z.kernel_stmts> kernel_stmts{};
  std::array<std::int32_t, Z.buffers> storage{};
  std::array<slot_info, Z.slots> slots{};
  std::array<ir::name_ref, Z.notes> notes{};
  diag::error_kind error = diag::error_kind::none;
  detail::fixed_string<error_capacity> message{};

  constexpr plan_view view() const {
    return {{pool, buffers, params, streams, events, domains, nodes, stmts, reads}, ops, kernels, kernel_stmts,
            storage, slots, notes, {}};
  }
};

namespace detail {
template <class T, std::size_t N, class V>
constexpr void copy_into(std::array<T, N>& to, const V& from) {
  for (std::size_t i = 0; i < from.size(); ++i) to[i] = from[i];
}
}  // namespace detail

template <plan_sizes Z>
constexpr frozen_plan<Z> freeze(const plan_model& m) {
  frozen_plan<Z> f;
  const auto& p = m.ir;
  detail::copy_into(f.pool, p.pool);
  detail::copy_into(f.buffers, p.buffers);
  detail::copy_into(f.params, p.params);
  detail::copy_into(f.streams, p.streams);
  detail::copy_into(f.events, p.events);
  detail::copy_into(f.domains, p.domains);
  detail::copy_into(f.nodes, p.nodes);
  detail::copy_into(f.stmts, p.stmts);
  detail::copy_into(f.reads, p.reads);
  detail::copy_into(f.ops, m.ops);
  detail::copy_into(f.kernels, m.kernels);
  detail::copy_into(f.kernel_stmts, m.kernel_stmts);
  detail::copy_into(f.storage, m.storage);
  detail::copy_into(f.slots, m.slots);
  detail::copy_into(f.notes, m.notes);
  if (!p.errors.empty()) {
    f.error = p.errors.front().kind;
    f.message = detail::fixed_string<error_capacity>(p.errors.front().message.view());
  }
  return f;
}

}  // namespace streamdsl
