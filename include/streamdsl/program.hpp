#pragma once
// sd::program(lambda): runs the lambda at compile time, schedules the
// statements it wrote, and yields a program whose plan is a compile-time
// value. Errors in the program are compile errors raised here.
#include "detail/owned_string.hpp"
#include "diag/raise.hpp"
#include "dsl/builder.hpp"
#include "passes/options.hpp"
#include "passes/schedule.hpp"
#include "plan/frozen_plan.hpp"
#include "plan/to_dot.hpp"
#include "plan/to_string.hpp"

namespace streamdsl {

namespace detail {
// What sd::program yields for a lambda it cannot run (after its error).
struct invalid_program {};

template <class F>
concept program_lambda =
    std::is_empty_v<F> && std::is_default_constructible_v<F> && std::invocable<F, builder&>;
}  // namespace detail

// The program's IR as written, before any pass (for testing passes alone).
template <detail::program_lambda F>
constexpr ir::program build_ir(F body) {
  builder b;
  body(b);
  return static_cast<builder&&>(b).ir();
}

template <detail::program_lambda F, options O>
class compiled_program {
  // The passes run once, into arrays the IR bounds (running the lambda
  // again for the bounds costs a fraction of the passes); the result is then
  // copied at its exact sizes, which is what the program keeps.
  static constexpr plan_sizes bounds = bounds_of(build_ir(F{}), O);
  static constexpr frozen_plan<bounds, true> scheduled =
      freeze<bounds, true>(passes::schedule(build_ir(F{}), O));

 public:
  static constexpr options policy = O;
  static constexpr plan_sizes sizes = scheduled.used;
  static constexpr frozen_plan<sizes> storage = shrink<sizes>(scheduled);
  static_assert(diag::raise<storage.error, diag::exact<storage.message.length>(storage.message)>(),
                "streamdsl: the program above has an error");

  static constexpr plan_view plan() { return storage.view(); }
  // The plan as text (one block per stream) and as a Graphviz graph:
  // converts to std::string, prints to a std::ostream, c_str() for printf.
  static owned_string to_string() { return owned_string(streamdsl::dump(plan()).view()); }
  static owned_string to_dot() { return owned_string(streamdsl::dump_dot(plan()).view()); }
};

// The lambda must not capture: it is run again by the compiler, from its type.
// Unconstrained so that a wrong lambda gets a sentence, not "no matching function".
template <options O = options{}, class F>
consteval auto program(F) {
  static_assert(std::is_empty_v<F>,
                "streamdsl: the program lambda must not capture anything (write [](sd::builder& p) { ... }): "
                "the compiler runs it again from its type alone");
  static_assert(std::invocable<F, builder&>,
                "streamdsl: the program lambda must take one sd::builder& parameter");
  if constexpr (detail::program_lambda<F>)
    return compiled_program<F, O>{};
  else
    return detail::invalid_program{};  // the static_asserts above said why
}

}  // namespace streamdsl
