#pragma once
// What an executor says when it cannot get the workspace for a run's temps:
// the temps that live there and the bytes asked for, not a bare
// std::bad_alloc. Nothing has run when this is thrown.
#include <cstddef>

#include "../detail/text.hpp"
#include "../plan/plan_view.hpp"
#include "../plan/workspace_layout.hpp"

namespace streamdsl::backend_detail {

// "the workspace of 4096 bytes for the temps 't', 'u'"
struct workspace_request {
  const plan_view& plan;
  std::size_t bytes;  // workspace_too_large: more than std::size_t holds
};
[[gnu::cold]] inline detail::text& operator<<(detail::text& out, workspace_request w) {
  out << "the workspace of ";
  if (w.bytes == workspace_too_large)
    out << "more than " << w.bytes << " bytes (the size overflows)";
  else
    out << w.bytes << " bytes";
  std::size_t temps = 0;
  for (std::size_t b = 0; b < w.plan.storage.size(); ++b)
    if (w.plan.storage[b] >= 0) {
      out << (temps++ == 0 ? " for the temps '" : ", '")
          << w.plan.ir.buffer_name(static_cast<std::int32_t>(b)) << '\'';
    }
  return out;
}

// Thrown (as sd::error) when the host cannot allocate the workspace.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_workspace_unavailable(const plan_view& plan,
                                                                               std::size_t bytes) {
  detail::text msg;
  msg << "streamdsl: cannot allocate " << workspace_request{plan, bytes}
      << "; bind smaller buffers, or split the work into several runs";
  throw error(msg.view());
}

}  // namespace streamdsl::backend_detail
