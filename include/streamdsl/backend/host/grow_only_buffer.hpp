#pragma once
// Aligned memory kept across runs that only grows: a run that needs no more
// than an earlier one allocates nothing. The host executor's workspace (temps
// in slots) and each thread's kernel scratch are such buffers.
#include <cstddef>
#include <new>

namespace streamdsl::host_detail {

template <std::size_t Alignment>
class grow_only_buffer {
 public:
  grow_only_buffer() = default;
  grow_only_buffer(const grow_only_buffer&) = delete;
  grow_only_buffer& operator=(const grow_only_buffer&) = delete;
  ~grow_only_buffer() { release(); }

  // At least `bytes` bytes, Alignment-aligned; the old contents are not kept
  // when it grows. Throws std::bad_alloc (the buffer is then empty). The
  // nothrow form is asked, so that a sanitizer's allocator that refuses a
  // huge size returns null here (allocator_may_return_null=1) instead of
  // ending the process: the caller's error names the temps and the bytes.
  std::byte* at_least(std::size_t bytes) {
    if (bytes > bytes_) {
      release();
      data_ = static_cast<std::byte*>(::operator new (bytes, std::align_val_t{Alignment}, std::nothrow));
      if (data_ == nullptr) throw std::bad_alloc();
      bytes_ = bytes;
    }
    return data_;
  }
  std::size_t capacity() const { return bytes_; }

 private:
  void release() {
    if (data_) ::operator delete (data_, std::align_val_t{Alignment});
    data_ = nullptr;
    bytes_ = 0;
  }
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace streamdsl::host_detail
