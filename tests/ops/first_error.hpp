#pragma once
// The first error a program body gives, from the builder or else from
// scheduling it (sd::checked): its kind, or its message ("" when none).
// Shared by the op tests, which check each op's refusals this way.
#include <streamdsl/streamdsl.hpp>
#include <string>

namespace op_test {

template <class Body>
sd::diag::error_kind first_error(Body body) {
  sd::builder b;
  body(b);
  if (!b.ir().ok()) return b.ir().errors[0].kind;
  const auto m = sd::passes::schedule(static_cast<sd::builder&&>(b).ir(), sd::checked);
  return m.ir.ok() ? sd::diag::error_kind::none : m.ir.errors[0].kind;
}

template <class Body>
std::string first_message(Body body) {
  sd::builder b;
  body(b);
  if (!b.ir().ok()) return std::string(b.ir().errors[0].message.view());
  const auto m = sd::passes::schedule(static_cast<sd::builder&&>(b).ir(), sd::checked);
  return m.ir.ok() ? std::string() : std::string(m.ir.errors[0].message.view());
}

}  // namespace op_test
