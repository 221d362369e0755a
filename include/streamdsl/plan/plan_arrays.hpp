#pragma once
// The arrays a plan adds to its program's IR, listed once (the IR's own are
// in ir/program_arrays.hpp), and the sizes of a plan: one count per array of
// both lists. plan_model, plan_view and frozen_plan expand the lists into
// their members, so a new array is one line here.
#include <cstddef>
#include <cstdint>

#include "../ir/program.hpp"
#include "../ir/program_arrays.hpp"
#include "plan_types.hpp"

// X(element type, member), spelled from the global namespace.
// clang-format off
#define STREAMDSL_PLAN_ARRAYS(X)                                                               \
  X(::streamdsl::plan_op, ops)              /* kernels, records and waits in issue order */    \
  X(::streamdsl::kernel_info, kernels)                                                         \
  X(::std::int32_t, kernel_stmts)           /* statement indices, kernel by kernel */          \
  X(::std::int32_t, storage)                /* per buffer (none after an error): where it lives */ \
  X(::streamdsl::slot_info, slots)                                                             \
  X(::streamdsl::ir::name_ref, notes)       /* what the passes removed or moved, and why */
// clang-format on

namespace streamdsl {

// How many elements each array of a plan holds (or may hold: an upper bound).
struct plan_sizes {
#define STREAMDSL_SIZE(type, member) std::size_t member = 0;
  STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_SIZE)
  STREAMDSL_PLAN_ARRAYS(STREAMDSL_SIZE)
#undef STREAMDSL_SIZE
  friend constexpr bool operator==(const plan_sizes&, const plan_sizes&) = default;
};

// Whether arrays of sizes `b` hold a plan of sizes `a`.
constexpr bool fits_within(const plan_sizes& a, const plan_sizes& b) {
  bool fits = true;
#define STREAMDSL_FITS(type, member) fits = fits && a.member <= b.member;
  STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_FITS)
  STREAMDSL_PLAN_ARRAYS(STREAMDSL_FITS)
#undef STREAMDSL_FITS
  return fits;
}

// The sizes of a program's IR, before any pass: its plan arrays are empty.
constexpr plan_sizes sizes_of(const ir::program& p) {
  plan_sizes z;
#define STREAMDSL_SIZE(type, member) z.member = p.member.size();
  STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_SIZE)
#undef STREAMDSL_SIZE
  return z;
}

}  // namespace streamdsl
