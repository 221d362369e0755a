#pragma once
// What a caller hands an executor at run time: for each buffer of the program
// its memory (pointer, element count, whether it may be written), for each
// param its value. sd::bind(name, ...) makes one; the executor matches them to
// the plan by name and rejects bad ones (binding_error) before anything runs.
// Shared by every backend: a binding does not know whose memory it points to.
#include <cstddef>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../dsl/dtype.hpp"

namespace streamdsl {

// A binding the plan cannot use: thrown before any work starts, so every
// bound buffer is untouched. The message names each offending buffer or param.
class binding_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class binding {
 public:
  // Memory for a buffer: `count` elements of `type` at `data`.
  static binding buffer(std::string_view name, dtype type, const void* data, std::size_t count, bool read_only) {
    binding b(name, type);
    b.data_ = data;
    b.count_ = count;
    b.read_only_ = read_only;
    return b;
  }
  // A param's value: size_of(type) bytes copied from `value`.
  static binding param(std::string_view name, dtype type, const void* value) {
    binding b(name, type);
    b.is_param_ = true;
    b.count_ = 1;
    b.read_only_ = true;
    std::memcpy(b.value_, value, size_of(type));
    return b;
  }

  std::string_view name() const { return name_; }
  dtype type() const { return type_; }
  bool is_param() const { return is_param_; }
  bool read_only() const { return read_only_; }
  const void* data() const { return is_param_ ? static_cast<const void*>(value_) : data_; }
  // Writable memory; only meaningful when !read_only().
  void* mutable_data() const { return read_only_ ? nullptr : const_cast<void*>(data_); }
  std::size_t size() const { return count_; }
  // The param's value as raw bytes of type(): size_of(type()) of them.
  const unsigned char* value_bytes() const { return value_; }

 private:
  binding(std::string_view name, dtype type) : name_(name), type_(type) {}

  std::string name_;  // owned: the caller's string may be a temporary
  dtype type_;
  bool is_param_ = false;
  bool read_only_ = false;
  const void* data_ = nullptr;
  std::size_t count_ = 0;
  alignas(8) unsigned char value_[8]{};
};

// --- sd::bind ----------------------------------------------------------------
// Const element types bind read-only memory (fine for inputs, rejected for
// outputs and inouts).
template <element_type T>
binding bind(std::string_view name, T* data, std::size_t n) {
  return binding::buffer(name, dtype_v<T>, data, n, std::is_const_v<T>);
}

template <element_type T, std::size_t Extent>
binding bind(std::string_view name, std::span<T, Extent> data) {
  return bind<T>(name, data.data(), data.size());
}

template <element_type T>
binding bind(std::string_view name, std::vector<T>& data) {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, bool>,
                "streamdsl: std::vector<bool> packs its bits and has no bool array to bind; "
                "bind a std::span<bool>, a bool array or a std::vector<std::uint8_t>-backed bool* instead");
  return bind<T>(name, data.data(), data.size());
}

template <element_type T>
binding bind(std::string_view name, const std::vector<T>& data) {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, bool>,
                "streamdsl: std::vector<bool> packs its bits and has no bool array to bind");
  return bind<const T>(name, data.data(), data.size());
}

// A temporary vector would be gone before the executor writes to it.
template <element_type T>
binding bind(std::string_view name, std::vector<T>&& data) = delete;

// A param's value. The type must be the param's own (sd::bind("alpha", 2.0f)
// for a float param): a mismatch is a binding_error, not a silent conversion.
template <element_type T>
binding bind(std::string_view name, T value) {
  const std::remove_cv_t<T> v = value;
  return binding::param(name, dtype_v<T>, &v);
}

}  // namespace streamdsl
