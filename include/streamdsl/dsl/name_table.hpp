#pragma once
// The names a program declares, for the duplicate and identifier checks. The
// table owns a copy of each name: a run-time builder is often given
// temporaries (std::string("x") + ...), and a view of one would change under
// the table once its storage is reused.
#include <cstdint>

#include "../detail/dyn_array.hpp"
#include "../detail/string_view.hpp"

namespace streamdsl::detail {

// Names are the keys that bind buffers, params and streams at run time.
constexpr bool valid_identifier(string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

class name_table {
 public:
  // `what` says what the name was declared as ("input buffer", "stream"); it
  // must outlive the table (the builder passes string literals).
  constexpr void add(string_view name, string_view what) {
    entries_.push_back(
        {static_cast<std::int32_t>(chars_.size()), static_cast<std::int32_t>(name.size()), what, hash(name)});
    chars_.append(name.data(), name.size());
    index(entries_.size() - 1);
  }

  // The index of `name`, or -1 when no declaration uses it.
  constexpr std::int32_t find(string_view name) const {
    if (slots_.empty()) return -1;
    const auto mask = slots_.size() - 1;
    const auto h = hash(name);
    for (auto at = h & mask;; at = (at + 1) & mask) {
      const auto i = slots_[at];
      if (i < 0) return -1;
      if (entries_[static_cast<std::size_t>(i)].hash == h && name_at(static_cast<std::size_t>(i)) == name)
        return i;
    }
  }

  constexpr std::size_t size() const { return entries_.size(); }
  constexpr string_view name_at(std::size_t i) const {
    return {chars_.data() + entries_[i].offset, static_cast<std::size_t>(entries_[i].length)};
  }
  constexpr string_view declared_as(std::size_t i) const { return entries_[i].what; }

 private:
  struct entry {
    std::int32_t offset = 0;  // into chars_
    std::int32_t length = 0;
    string_view what;
    std::size_t hash = 0;  // of the name: a rehash reads no characters
  };

  // Open addressing over indices into entries_ (-1: empty): a program
  // declares hundreds of names, and a linear scan per declaration made
  // declaring them quadratic.
  static constexpr std::size_t hash(string_view s) {
    std::size_t h = 14695981039346656037ull;
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
  }
  constexpr void index(std::size_t i) {
    if (2 * entries_.size() > slots_.size()) {  // keep the table at most half full
      slots_.assign(slots_.empty() ? 32 : 2 * slots_.size(), -1);
      for (std::size_t k = 0; k < i; ++k) insert(k);
    }
    insert(i);
  }
  constexpr void insert(std::size_t i) {
    const auto mask = slots_.size() - 1;
    auto at = entries_[i].hash & mask;
    while (slots_[at] >= 0) at = (at + 1) & mask;
    slots_[at] = static_cast<std::int32_t>(i);
  }

  dyn_array<char> chars_;  // the names, one after another
  dyn_array<entry> entries_;
  dyn_array<std::int32_t> slots_;
};

}  // namespace streamdsl::detail
