#pragma once
// Calling the user's callable of a p.call step (ops/call.hpp), for every
// executor: what the callable throws comes back as an sd::error that names
// the step and its stream, with the callable's own exception nested inside
// it (std::rethrow_if_nested reaches it). The executor issues no later step
// of the run: the host executor's streams stop at their next operation, the
// CUDA executor stops issuing (work issued before the call may still run).
#include <exception>

#include "../detail/text.hpp"
#include "../ir/describe.hpp"
#include "../plan/plan_view.hpp"
#include "bindings.hpp"

namespace streamdsl::backend_detail {

[[noreturn, gnu::cold]] inline void throw_call_failed(const plan_view& plan, std::int32_t stmt,
                                                      detail::string_view cause) {
  detail::text msg;
  msg << "streamdsl: the callable bound to ";
  diag::describe_statement(plan.ir, stmt, msg);
  msg << " threw: " << cause << "; no later step of this run was issued";
  std::throw_with_nested(error(msg.view()));
}

inline void invoke_call(const binding& bound, call_context& context, const plan_view& plan,
                        std::int32_t stmt) {
  try {
    bound.callable()(context);
  } catch (const std::exception& e) {
    throw_call_failed(plan, stmt, e.what());
  } catch (...) {
    throw_call_failed(plan, stmt, "an exception that is not a std::exception");
  }
}

}  // namespace streamdsl::backend_detail
