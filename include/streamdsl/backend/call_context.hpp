#pragma once
// What a call's callable (p.call, ops/call.hpp; bound with sd::bind_call)
// receives: the stream to issue its work on and the memory of each region
// the call lists, reads first, then writes, in list order.
//
//   sd::bind_call("scale", [](sd::call_context& c) {
//     auto x = c.read<float>(0);   // sd::reads(x): a region_span<const float>
//     auto y = c.write<float>(0);  // sd::writes(y)
//     scale<<<blocks(y.size()), 256, 0, c.stream()>>>(x.data(), y.data(), y.size());
//   });
//
// On the CUDA executor c.stream() is the cudaStream_t of the call's stream
// slot and the memory is where the buffers live (device memory for device
// buffers); the callable issues work on that stream and returns (it may be
// captured into a CUDA graph, so it must not synchronise). On the host
// executor c.stream() is null and the callable computes before it returns.
// A host step's callable (p.host_call) gets c.stream() null and c.on_gpu()
// false on both executors: it computes on the CPU over host memory.
// Shared by every backend: no CUDA types here (the stream converts to any
// pointer type, cudaStream_t among them).
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../detail/string_view.hpp"
#include "../detail/text.hpp"
#include "../diag/error.hpp"
#include "../ir/dtype.hpp"

namespace streamdsl {

// A region's memory as the callable sees it: `size()` elements of T at
// `data()`; a rank-2 buffer's also rows() and cols() (row-major), a rank-1
// one's rows() == size(), cols() == 1.
template <class T>
class region_span {
 public:
  constexpr region_span(T* data, std::size_t size, std::size_t rows, std::size_t cols)
      : data_(data), size_(size), rows_(rows), cols_(cols) {}
  constexpr T* data() const { return data_; }
  constexpr std::size_t size() const { return size_; }
  constexpr std::size_t rows() const { return rows_; }
  constexpr std::size_t cols() const { return cols_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T& operator[](std::size_t i) const { return data_[i]; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }

 private:
  T* data_;
  std::size_t size_, rows_, cols_;
};

// The stream a call issues on, as the backend's own handle (null on the
// host executor). Converts to any pointer type: `kernel<<<g, b, 0, c.stream()>>>`,
// `thrust::cuda::par.on(c.stream())`.
class native_stream {
 public:
  constexpr explicit native_stream(void* handle) : handle_(handle) {}
  template <class T>
  operator T*() const {
    return static_cast<T*>(handle_);
  }
  void* handle() const { return handle_; }

 private:
  void* handle_;
};

// One listed region, as an executor lays it out for a call.
struct call_region {
  void* data = nullptr;
  std::size_t count = 0;  // elements
  dtype type = dtype::float32;
  std::size_t rows = 0, cols = 1;
  detail::string_view buffer;  // its buffer's name, for messages
};

namespace backend_detail {
// A listed region as an executor lays it out once the bindings are known
// (region_memory.hpp: lay_out_call), with `region.data` left for it to set
// to its buffer's base + offset once the buffers are placed (a workspace
// slot's base may change from run to run on the GPU).
struct call_layout {
  call_region region;
  std::int32_t buffer = -1;
  std::size_t offset = 0;  // bytes from the buffer's start
};
}  // namespace backend_detail

class call_context {
 public:
  call_context(detail::string_view name, void* stream, bool on_gpu, const call_region* regions,
               std::size_t read_count, std::size_t write_count)
      : name_(name),
        stream_(stream),
        on_gpu_(on_gpu),
        regions_(regions),
        read_count_(read_count),
        write_count_(write_count) {}

  // The call's name, as in p.call("name", ...).
  detail::string_view name() const { return name_; }
  native_stream stream() const { return native_stream(stream_); }
  // Whether the memory is the GPU's (the CUDA executor) or the host's.
  bool on_gpu() const { return on_gpu_; }
  std::size_t read_count() const { return read_count_; }
  std::size_t write_count() const { return write_count_; }

  // Every listed region untyped, reads then writes (i < read_count() + write_count()).
  const call_region& listed(std::size_t i) const {
    if (i >= read_count_ + write_count_) {
      detail::text msg;
      msg << "streamdsl: call '" << name_ << "': listed(" << i << ") names no region: the call lists "
          << read_count_ + write_count_ << " (reads and writes together)";
      throw error(msg.view());
    }
    return regions_[i];
  }

  // The i-th region of sd::reads(...), as T (its buffer's element type).
  template <class T>
  region_span<const T> read(std::size_t i) const {
    const auto& r = region(i, false, dtype_v<T>);
    return {static_cast<const T*>(r.data), r.count, r.rows, r.cols};
  }
  // The i-th region of sd::writes(...).
  template <class T>
  region_span<T> write(std::size_t i) const {
    const auto& r = region(i, true, dtype_v<T>);
    return {static_cast<T*>(r.data), r.count, r.rows, r.cols};
  }

 private:
  const call_region& region(std::size_t i, bool written, dtype type) const {
    const std::size_t n = written ? write_count_ : read_count_;
    if (i >= n || regions_[(written ? read_count_ : 0) + i].type != type) bad_access(i, written, type);
    return regions_[(written ? read_count_ : 0) + i];
  }
  [[noreturn, gnu::cold, gnu::noinline]] void bad_access(std::size_t i, bool written, dtype type) const {
    const std::size_t n = written ? write_count_ : read_count_;
    detail::text msg;
    msg << "streamdsl: call '" << name_ << "': " << (written ? "write<" : "read<") << name_of(type) << ">("
        << i << ") ";
    if (i >= n) {
      msg << "names no region: the call lists " << n << " in " << (written ? "sd::writes" : "sd::reads");
    } else {
      const auto& r = regions_[(written ? read_count_ : 0) + i];
      msg << (written ? "writes '" : "reads '") << r.buffer << "' as " << name_of(type)
          << ", but its elements are " << name_of(r.type) << "; use " << (written ? "write<" : "read<")
          << name_of(r.type) << ">(" << i << ')';
    }
    throw error(msg.view());
  }

  detail::string_view name_;
  void* stream_;
  bool on_gpu_;
  const call_region* regions_;
  std::size_t read_count_, write_count_;
};

namespace detail {
// A callable shared by the copies of its binding (an executor keeps copies
// of the bindings it prepared): reference-counted, without <memory>.
class shared_callable {
 public:
  shared_callable() = default;
  template <class F>
  explicit shared_callable(F&& f) : held_(new holder<std::decay_t<F>>(static_cast<F&&>(f))) {}
  shared_callable(const shared_callable& o) : held_(o.held_) {
    if (held_) __atomic_fetch_add(&held_->refs, 1, __ATOMIC_RELAXED);
  }
  shared_callable(shared_callable&& o) noexcept : held_(o.held_) { o.held_ = nullptr; }
  shared_callable& operator=(shared_callable o) noexcept {
    base* t = held_;
    held_ = o.held_;
    o.held_ = t;
    return *this;
  }
  ~shared_callable() {
    if (held_ && __atomic_sub_fetch(&held_->refs, 1, __ATOMIC_ACQ_REL) == 0) delete held_;
  }
  void operator()(call_context& c) const { held_->invoke(c); }
  // Which callable: copies of one binding share it.
  const void* identity() const { return held_; }

 private:
  struct base {
    virtual ~base() = default;
    virtual void invoke(call_context& c) = 0;
    long refs = 1;
  };
  template <class F>
  struct holder final : base {
    explicit holder(F f) : fn(static_cast<F&&>(f)) {}
    void invoke(call_context& c) override { fn(c); }
    F fn;
  };
  base* held_ = nullptr;
};
}  // namespace detail

}  // namespace streamdsl
