#pragma once
// A plan while the passes build it (growable, constant evaluation only).
// plan/frozen_plan.hpp turns it into a compile-time value.
#include "../detail/dyn_array.hpp"
#include "../detail/string_view.hpp"
#include "../diag/message.hpp"
#include "../ir/program.hpp"
#include "../ir/program_view.hpp"
#include "plan_arrays.hpp"
#include "plan_types.hpp"
#include "plan_view.hpp"

namespace streamdsl {

// Characters of one note of a plan (what a pass removed or moved, and why).
// Bounded so that a plan's size can be bounded before the passes run
// (notes_bound below, bounds_of in passes/schedule.hpp): a note quoting many moved statements is cut at a
// word boundary and marked " [...]".
inline constexpr std::size_t note_capacity = 320;

struct plan_model {
  ir::program ir;  // statements after the passes (syncs inserted, moved work)
#define STREAMDSL_MEMBER(type, member) detail::dyn_array<type> member;
  STREAMDSL_PLAN_ARRAYS(STREAMDSL_MEMBER)
#undef STREAMDSL_MEMBER
  // Notes wait here until the passes are done: interning them at once would
  // grow the name pool under the views the passes hold.
  detail::dyn_array<detail::text> pending_notes;

  constexpr void note(const detail::text& text) {
    if (text.size() <= note_capacity) {
      pending_notes.push_back(text);
      return;
    }
    constexpr detail::string_view mark = " [...]";
    detail::text cut;
    cut << text.view().substr(0, diag::word_boundary(text.view(), note_capacity - mark.size())) << mark;
    pending_notes.push_back(cut);
  }
  constexpr void intern_notes() {
    for (const auto& n : pending_notes) notes.push_back(ir.intern(n.view()));
    pending_notes.clear();
  }
};

// A view of a plan built at run time (the passes are constexpr, not consteval:
// tests and the random-program tester schedule programs while running).
constexpr plan_view view_of(const plan_model& m) {
  plan_view v;
  v.ir = ir::view_of(m.ir);
#define STREAMDSL_VIEW(type, member) v.member = m.member;
  STREAMDSL_PLAN_ARRAYS(STREAMDSL_VIEW)
#undef STREAMDSL_VIEW
  v.error = m.ir.ok() ? detail::string_view{} : m.ir.errors.front().message.view();
  return v;
}

constexpr plan_sizes sizes_of(const plan_model& m) { return sizes_of(view_of(m)); }

// How much the notes may add to a plan of bounds `z` (the statements' bound
// once every pass that adds statements has run). Each note is about a
// statement a pass removes (each removed once, whichever pass removes it) or
// a move (a move empties a kernel: at most one per assign), so there are at
// most as many notes as statements, each at most note_capacity characters,
// interned into the name pool. (A pass that writes a note about the whole
// plan counts it in its own bound.)
constexpr plan_sizes notes_bound(plan_sizes z) {
  z.notes += z.stmts;
  z.pool += note_capacity * z.stmts;
  return z;
}

}  // namespace streamdsl
