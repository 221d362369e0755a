#pragma once
// Rebuilding a statement list (dropping, inserting, moving statements) while
// each wait stays bound to its record: the one place that renumbers
// wait::binds, for every pass that reorders statements.
#include <cstdint>

#include "../detail/dyn_array.hpp"
#include "../ir/statement.hpp"

namespace streamdsl::passes {

// Debug builds (NDEBUG off) check that a copied wait's record was copied too:
// a wait bound to nothing would silently order nothing. Like dyn_array's
// bounds check: a compile error in a constant evaluation (this function is
// not constexpr) and a trap at run time. Release builds pay nothing.
[[noreturn]] inline void wait_copied_without_its_record() { __builtin_trap(); }

class statement_rebuilder {
 public:
  // The new list is reserved at the old one's size (most rebuilds keep about
  // as many statements): growing it from empty copied it several times.
  explicit constexpr statement_rebuilder(std::size_t old_count) : new_index_(old_count, -1) {
    out_.reserve(old_count);
  }

  // Appends statement `old` of the old list (possibly changed, e.g. moved to
  // another stream); a wait among them keeps its record, renumbered by finish().
  constexpr std::int32_t copy(std::int32_t old, const ir::statement& s) {
    new_index_[static_cast<std::size_t>(old)] = static_cast<std::int32_t>(out_.size());
    out_.push_back(s);
    return static_cast<std::int32_t>(out_.size() - 1);
  }
  // Appends a statement the pass makes; a wait's binds is already an index
  // in the new list.
  constexpr std::int32_t add(const ir::statement& s) {
    out_.push_back(s);
    const auto at = static_cast<std::int32_t>(out_.size() - 1);
    if (s.kind == ir::stmt_kind::wait && s.binds >= 0) added_waits_.push_back(at);
    return at;
  }
  // Where old statement i went; -1 if it was not copied (yet).
  constexpr std::int32_t new_index(std::int32_t old) const {
    return new_index_[static_cast<std::size_t>(old)];
  }
  constexpr std::size_t size() const { return out_.size(); }

  // The new list. A record must be copied whenever a wait bound to it is.
  constexpr detail::dyn_array<ir::statement> finish() {
    // Added waits (few) are set aside while every other wait is renumbered.
    detail::dyn_array<std::int32_t> added_binds(added_waits_.size(), -1);
    for (std::size_t j = 0; j < added_waits_.size(); ++j) {
      auto& binds = out_[static_cast<std::size_t>(added_waits_[j])].binds;
      added_binds[j] = binds;
      binds = -1;
    }
    for (auto& s : out_)
      if (s.kind == ir::stmt_kind::wait && s.binds >= 0) {
        s.binds = new_index_[static_cast<std::size_t>(s.binds)];
#ifndef NDEBUG
        if (s.binds < 0) wait_copied_without_its_record();
#endif
      }
    for (std::size_t j = 0; j < added_waits_.size(); ++j)
      out_[static_cast<std::size_t>(added_waits_[j])].binds = added_binds[j];
    return static_cast<detail::dyn_array<ir::statement>&&>(out_);
  }

 private:
  detail::dyn_array<std::int32_t> new_index_;
  detail::dyn_array<ir::statement> out_;
  detail::dyn_array<std::int32_t> added_waits_;  // indices of added waits, already bound
};

}  // namespace streamdsl::passes
