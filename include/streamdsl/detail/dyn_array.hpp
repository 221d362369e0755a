#pragma once
// A growable array for constant evaluation. The passes run inside the
// compiler, and std::vector and std::string cost every translation unit most
// of a second of instantiation under g++ and three times that under nvcc;
// this is the small subset the passes need, built on constexpr new[].
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <type_traits>

#if defined(__clang__)
#define STREAMDSL_TRIVIALLY_DESTRUCTIBLE(T) __is_trivially_destructible(T)
#else  // g++, nvcc's front ends, MSVC
#define STREAMDSL_TRIVIALLY_DESTRUCTIBLE(T) __has_trivial_destructor(T)
#endif

namespace streamdsl::detail {

// The one-line accessors (size, data, [], begin, end, ...) here and in
// array_view, fixed_array and string_view are always_inline: nvcc's host
// pass compiles without optimisation, where each accessor a run-time
// function calls was a function of its own, compiled in every unit
// (docs/benchmarks.md, "Session 7"). Attributes do not change constant
// evaluation; -O2 inlines them anyway.

// Debug builds (NDEBUG off) check every index: out of range is a compile
// error in a constant evaluation (this function is not constexpr) and a trap
// at run time. Release builds pay nothing.
[[noreturn]] inline void dyn_array_out_of_range() { __builtin_trap(); }

template <class T>
class dyn_array {
 public:
  constexpr dyn_array() = default;
  constexpr explicit dyn_array(std::size_t n, const T& value = T{}) { assign(n, value); }
  constexpr dyn_array(std::initializer_list<T> values) {
    reserve(values.size());
    for (const auto& v : values) push_back(v);
  }
  constexpr dyn_array(const dyn_array& other) { copy_from(other); }
  constexpr dyn_array(dyn_array&& other) noexcept : data_(other.data_), size_(other.size_), cap_(other.cap_) {
    other.data_ = nullptr;
    other.size_ = other.cap_ = 0;
  }
  constexpr dyn_array& operator=(const dyn_array& other) {
    if (this != &other) {
      clear();
      copy_from(other);
    }
    return *this;
  }
  constexpr dyn_array& operator=(dyn_array&& other) noexcept {
    if (this != &other) {
      delete[] data_;
      data_ = other.data_;
      size_ = other.size_;
      cap_ = other.cap_;
      other.data_ = nullptr;
      other.size_ = other.cap_ = 0;
    }
    return *this;
  }
  constexpr ~dyn_array() { delete[] data_; }

  constexpr void reserve(std::size_t n) {
    if (n <= cap_) return;
    T* fresh = new T[n];
    for (std::size_t i = 0; i < size_; ++i) fresh[i] = static_cast<T&&>(data_[i]);
    delete[] data_;
    data_ = fresh;
    cap_ = n;
  }
  constexpr void push_back(const T& v) {
    if (size_ == cap_) {  // v may be an element: copy it before the storage moves
      T copy = v;
      reserve(cap_ == 0 ? 8 : cap_ * growth());
      data_[size_++] = static_cast<T&&>(copy);
      return;
    }
    data_[size_++] = v;
  }
  constexpr void push_back(T&& v) {
    if (size_ == cap_) reserve(cap_ == 0 ? 8 : cap_ * growth());
    data_[size_++] = static_cast<T&&>(v);
  }
  template <class... A>
  constexpr T& emplace_back(A&&... args) {
    push_back(T(static_cast<A&&>(args)...));
    return data_[size_ - 1];
  }
  constexpr void pop_back() {
#ifndef NDEBUG
    if (size_ == 0) dyn_array_out_of_range();
#endif
    --size_;
    if constexpr (!STREAMDSL_TRIVIALLY_DESTRUCTIBLE(T)) data_[size_] = T{};
  }
  constexpr void resize(std::size_t n, const T& value = T{}) {
    const T fill = value;  // value may be an element: copy it before the storage moves
    // Grows geometrically like push_back: a table resized one row at a time
    // (a row per event, per slot) would otherwise be copied whole each time.
    if (n > cap_) reserve(n > growth() * cap_ ? n : growth() * cap_);
    for (std::size_t i = size_; i < n; ++i) data_[i] = fill;
    if constexpr (!STREAMDSL_TRIVIALLY_DESTRUCTIBLE(T))
      for (std::size_t i = n; i < size_; ++i) data_[i] = T{};  // what it removes owns nothing after
    size_ = n;
  }
  constexpr void assign(std::size_t n, const T& value) {
    clear();
    resize(n, value);
  }
  // Copies [first, last) (elements convertible to T).
  template <class U>
  constexpr void assign(const U* first, const U* last) {
    clear();
    reserve(static_cast<std::size_t>(last - first));
    for (; first != last; ++first) data_[size_++] = static_cast<T>(*first);
  }
  // Appends copies of [first, first + n) (not elements of this array).
  constexpr void append(const T* first, std::size_t n) {
    // At least 8, as push_back starts: a first allocation sized exactly to a
    // short name made g++ 12 -O3 warn (-Wstringop-overflow) of vector stores
    // past it on paths the loop never takes.
    const std::size_t need = size_ + n < 8 ? 8 : size_ + n;
    if (size_ + n > cap_) reserve(need > growth() * cap_ ? need : growth() * cap_);
    for (std::size_t i = 0; i < n; ++i) data_[size_ + i] = first[i];
    size_ += n;
  }
  // Removed elements are reset to T{}: the storage stays, but what they
  // owned (a nested array's memory) is released now, not when overwritten.
  // Elements that own nothing are left as they are (also by pop_back and
  // resize): the name table and the passes clear index arrays often, and the
  // loop cost g++ ~2% of declaring names. (A builtin, not
  // std::is_trivially_destructible_v: that trait costs cudafe++ more than the
  // loop saves.)
  constexpr void clear() {
    if constexpr (!STREAMDSL_TRIVIALLY_DESTRUCTIBLE(T))
      for (std::size_t i = 0; i < size_; ++i) data_[i] = T{};
    size_ = 0;
  }

  [[gnu::always_inline]] constexpr std::size_t size() const { return size_; }
  [[gnu::always_inline]] constexpr bool empty() const { return size_ == 0; }
  [[gnu::always_inline]] constexpr T* data() { return data_; }
  [[gnu::always_inline]] constexpr const T* data() const { return data_; }
  // The check is written at each use, not in a helper: a call costs
  // constant-evaluation steps even when NDEBUG empties it.
  [[gnu::always_inline]] constexpr T& operator[](std::size_t i) {
#ifndef NDEBUG
    if (i >= size_) dyn_array_out_of_range();
#endif
    return data_[i];
  }
  [[gnu::always_inline]] constexpr const T& operator[](std::size_t i) const {
#ifndef NDEBUG
    if (i >= size_) dyn_array_out_of_range();
#endif
    return data_[i];
  }
  [[gnu::always_inline]] constexpr T& front() { return (*this)[0]; }
  [[gnu::always_inline]] constexpr const T& front() const { return (*this)[0]; }
  [[gnu::always_inline]] constexpr T& back() { return (*this)[size_ - 1]; }
  [[gnu::always_inline]] constexpr const T& back() const { return (*this)[size_ - 1]; }
  [[gnu::always_inline]] constexpr T* begin() { return data_; }
  [[gnu::always_inline]] constexpr T* end() { return data_ + size_; }
  [[gnu::always_inline]] constexpr const T* begin() const { return data_; }
  [[gnu::always_inline]] constexpr const T* end() const { return data_ + size_; }

 private:
  constexpr void copy_from(const dyn_array& other) {
    reserve(other.size_);
    for (std::size_t i = 0; i < other.size_; ++i) data_[i] = other.data_[i];
    size_ = other.size_;
  }

  // How much the capacity grows when it is exceeded. Four times during
  // constant evaluation: there, every reallocation initialises its new
  // elements one by one (default member initializers) and copies the old
  // ones, which g++ evaluates slowly; growing 4x rather than 2x saved 8% of
  // building a 200-statement program. Twice at run time (memory). The
  // builtin, not std::is_constant_evaluated(): a call of its own at -O0.
  [[gnu::always_inline]] static constexpr std::size_t growth() {
    return __builtin_is_constant_evaluated() ? 4 : 2;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
};

// A read-only window on contiguous elements (std::span without <span>).
template <class T>
struct array_view {
  const T* first = nullptr;
  std::size_t count = 0;

  constexpr array_view() = default;
  [[gnu::always_inline]] constexpr array_view(const T* p, std::size_t n) : first(p), count(n) {}
  // The constraint assigns c.data() to a const T* rather than asking
  // std::convertible_to: the same test, but the concept's instantiations cost
  // cudafe++ ~1% of every unit that includes the umbrella (it is checked for
  // each IR and plan array type).
  template <class C>
    requires requires(const C& c, const T*& p) {
      p = c.data();
      c.size();
    }
  [[gnu::always_inline]] constexpr array_view(const C& c)
      : first(c.data()), count(c.size()) {}  // NOLINT: implicit like span
  template <std::size_t N>
  constexpr array_view(const T (&a)[N]) : first(a), count(N) {}  // NOLINT: implicit like span

  [[gnu::always_inline]] constexpr std::size_t size() const { return count; }
  [[gnu::always_inline]] constexpr bool empty() const { return count == 0; }
  [[gnu::always_inline]] constexpr const T* data() const { return first; }
  [[gnu::always_inline]] constexpr const T& operator[](std::size_t i) const { return first[i]; }
  [[gnu::always_inline]] constexpr const T* begin() const { return first; }
  [[gnu::always_inline]] constexpr const T* end() const { return first + count; }
  [[gnu::always_inline]] constexpr const T& back() const { return first[count - 1]; }
  [[gnu::always_inline]] constexpr array_view subspan(std::size_t offset, std::size_t n) const {
    return {first + offset, n};
  }
};

}  // namespace streamdsl::detail
