#pragma once
// A plan while the passes build it (growable, constant evaluation only).
// plan/frozen_plan.hpp turns it into a compile-time value.
#include "../detail/dyn_array.hpp"
#include "../detail/string_view.hpp"
#include "../diag/message.hpp"
#include "../ir/program.hpp"
#include "../ir/program_view.hpp"
#include "plan_types.hpp"
#include "plan_view.hpp"

namespace streamdsl {

// Characters of one note of a plan (what a pass removed or moved, and why).
// Bounded so that a plan's size can be bounded before the passes run
// (plan/frozen_plan.hpp): a note quoting many moved statements is cut at a
// word boundary and marked " [...]".
inline constexpr std::size_t note_capacity = 320;

struct plan_model {
  ir::program ir;  // statements after the passes (syncs inserted, moved work)
  detail::dyn_array<plan_op> ops;
  detail::dyn_array<kernel_info> kernels;
  detail::dyn_array<std::int32_t> kernel_stmts;  // statement indices, kernel by kernel
  detail::dyn_array<std::int32_t> storage;       // per buffer: storage_bound, storage_register or a slot
  detail::dyn_array<slot_info> slots;
  detail::dyn_array<ir::name_ref> notes;  // what the passes removed or moved, and why
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
  return {ir::view_of(m.ir), m.ops,
          m.kernels,         m.kernel_stmts,
          m.storage,         m.slots,
          m.notes,           m.ir.ok() ? detail::string_view{} : m.ir.errors.front().message.view()};
}

}  // namespace streamdsl
