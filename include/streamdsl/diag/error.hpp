#pragma once
// Run-time errors. Every exception streamdsl throws is an sd::error (a
// std::exception); what() names the buffer, param, stream or CUDA call.
// Not std::invalid_argument or std::runtime_error: those need <stdexcept> and
// with it <string> (docs/concepts.md, "Standard headers").
#include <cstring>
#include <exception>
#include <new>

#include "../detail/string_view.hpp"

namespace streamdsl {

class error : public std::exception {
 public:
  explicit error(detail::string_view message) noexcept { store(message.data(), message.size()); }
  // Copies must not throw (an exception is copied while in flight): a copy
  // that gets no memory keeps a fixed message instead.
  error(const error& other) noexcept : std::exception(other) {
    store(other.what(), std::strlen(other.what()));
  }
  error& operator=(const error& other) noexcept {
    if (this != &other) {
      delete[] message_;
      message_ = nullptr;
      store(other.what(), std::strlen(other.what()));
    }
    return *this;
  }
  ~error() override { delete[] message_; }
  const char* what() const noexcept override {
    return message_ != nullptr ? message_ : "streamdsl: error (no memory left for its message)";
  }

 private:
  void store(const char* p, std::size_t n) noexcept {
    message_ = new (std::nothrow) char[n + 1];
    if (message_ == nullptr) return;
    if (n > 0) std::memcpy(message_, p, n);
    message_[n] = '\0';
  }
  char* message_ = nullptr;
};

// A binding the plan cannot use: thrown before any work starts, so every
// bound buffer is untouched. The message names each offending buffer or param.
class binding_error : public error {
 public:
  using error::error;
};

// A plan that cannot be used: a plan query at run time that names no stream
// or buffer of the plan, or a plan built at run time that an executor cannot
// run (an op out of range, a wait before its record).
class plan_error : public error {
 public:
  using error::error;
};

}  // namespace streamdsl
