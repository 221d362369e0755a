#pragma once
#include "../../detail/require_cxx20.hpp"
#if STREAMDSL_CXX20  // else require_cxx20.hpp has said why
// The caller's side of a CUDA run: events the run waits for before it starts
// and records when it ends (how stream-owning code such as PyTorch hands work
// over), and where the temps' workspace comes from (the caller's allocator or
// a buffer the caller owns, instead of cudaMallocAsync). Each is one more
// argument of run() or sd::capture(), beside the bindings:
//
//   ex.run(prog, sd::bind("x", x, n), sd::bind("y", y, n),
//          sd::after(x_ready), sd::then_record(y_done), sd::workspace_from(pool));
//
// sd::record_timeline(t) (timeline.hpp) is a run option of run() only.
//
// Arguments rather than executor state, because they change per call (an
// event per step, a buffer per batch), like the arguments of the CUDA calls
// they stand for; they cost nothing when absent.
#include <cuda_runtime_api.h>

#include <concepts>
#include <cstddef>
#include <type_traits>

#include "../../detail/dyn_array.hpp"
#include "../bindings.hpp"
#include "../timeline.hpp"

namespace streamdsl {

enum class caller_event_role { wait, record };

// Events of the caller, given inline (sd::after(a, b): copied here) or as a
// contiguous container (sd::after(list): referred to; it must outlive the call
// of run() or capture() it is passed to, which a temporary does).
template <caller_event_role Role, std::size_t N>
struct caller_events {
  cudaEvent_t events[N];
  detail::array_view<cudaEvent_t> view() const { return {events, N}; }
};
template <caller_event_role Role>
struct caller_events<Role, 0> {
  detail::array_view<cudaEvent_t> events;
  detail::array_view<cudaEvent_t> view() const { return events; }
};

// The run's main stream waits for each event before the run's first operation
// (and so before the entry edge: every side stream inherits the order).
template <class... Events>
  requires(sizeof...(Events) > 0 && (std::convertible_to<Events, cudaEvent_t> && ...))
caller_events<caller_event_role::wait, sizeof...(Events)> after(Events... events) {
  return {{static_cast<cudaEvent_t>(events)...}};
}
inline caller_events<caller_event_role::wait, 0> after(detail::array_view<cudaEvent_t> events) {
  return {events};
}

// The run records each event on its main stream after its last operation (the
// exit edge: every side stream's work is before it).
template <class... Events>
  requires(sizeof...(Events) > 0 && (std::convertible_to<Events, cudaEvent_t> && ...))
caller_events<caller_event_role::record, sizeof...(Events)> then_record(Events... events) {
  return {{static_cast<cudaEvent_t>(events)...}};
}
inline caller_events<caller_event_role::record, 0> then_record(detail::array_view<cudaEvent_t> events) {
  return {events};
}

// A memory resource the workspace can come from: stream-ordered allocation
// and deallocation, with the stream last, allocate(bytes, stream) and
// deallocate(p, bytes, stream), as RMM's device_memory_resource had them until
// its 25.x releases (its cuda_stream_view converts from cudaStream_t), or with
// the stream first, allocate(stream, bytes) and deallocate(stream, p, bytes),
// as newer RMM releases have them; or a few lines around PyTorch's caching
// allocator.
template <class R>
concept stream_first_resource = requires(R& r, std::size_t bytes, cudaStream_t stream, void* p) {
  { r.allocate(stream, bytes) } -> std::convertible_to<void*>;
  r.deallocate(stream, p, bytes);
};
template <class R>
concept workspace_resource = stream_first_resource<R> ||
    requires(R& r, std::size_t bytes, cudaStream_t stream, void* p) {
  { r.allocate(bytes, stream) } -> std::convertible_to<void*>;
  r.deallocate(p, bytes, stream);
};

// Where the temps' workspace comes from instead of cudaMallocAsync: a
// reference to the caller's allocator, never owning it (like RMM's
// resource_ref). allocate(bytes, stream) is called on the host before the run
// issues anything, with the run's main stream; deallocate(p, bytes, stream)
// right after the run is issued, with the same stream, so the allocator must be
// stream-ordered (memory given back is reused only by work ordered after that
// point on that stream), as cudaFreeAsync, RMM's resources and PyTorch's caching
// allocator are. A captured graph allocates once and deallocates when it is
// destroyed or needs more (on the stream it was last launched on).
class workspace_allocator {
 public:
  using allocate_function = void* (*)(std::size_t bytes, cudaStream_t stream);
  using deallocate_function = void (*)(void* p, std::size_t bytes, cudaStream_t stream);

  // A resource object, referred to: it must outlive the runs and graphs that use it.
  template <workspace_resource Resource>
  explicit workspace_allocator(Resource& resource)
      : resource_(const_cast<void*>(static_cast<const volatile void*>(&resource))),
        allocate_(&allocate_with<Resource>),
        deallocate_(&deallocate_with<Resource>) {}
  // Two functions (or lambdas without captures).
  workspace_allocator(allocate_function allocate, deallocate_function deallocate)
      : allocate_function_(allocate), deallocate_function_(deallocate) {}

  void* allocate(std::size_t bytes, cudaStream_t stream) const {
    return allocate_ != nullptr ? allocate_(resource_, bytes, stream) : allocate_function_(bytes, stream);
  }
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) const {
    if (deallocate_ != nullptr)
      deallocate_(resource_, p, bytes, stream);
    else
      deallocate_function_(p, bytes, stream);
  }
  // Whether it names functions to call (two null functions name none).
  bool usable() const {
    return allocate_ != nullptr || (allocate_function_ != nullptr && deallocate_function_ != nullptr);
  }

 private:
  template <class Resource>
  static void* allocate_with(void* resource, std::size_t bytes, cudaStream_t stream) {
    auto& r = *static_cast<Resource*>(resource);
    if constexpr (stream_first_resource<Resource>)
      return static_cast<void*>(r.allocate(stream, bytes));
    else
      return static_cast<void*>(r.allocate(bytes, stream));
  }
  template <class Resource>
  static void deallocate_with(void* resource, void* p, std::size_t bytes, cudaStream_t stream) {
    auto& r = *static_cast<Resource*>(resource);
    if constexpr (stream_first_resource<Resource>)
      r.deallocate(stream, p, bytes);
    else
      r.deallocate(p, bytes, stream);
  }

  void* resource_ = nullptr;
  void* (*allocate_)(void*, std::size_t, cudaStream_t) = nullptr;
  void (*deallocate_)(void*, void*, std::size_t, cudaStream_t) = nullptr;
  allocate_function allocate_function_ = nullptr;
  deallocate_function deallocate_function_ = nullptr;
};

// A workspace the caller owns: `bytes` of device memory at `data`, 256-byte
// aligned (the workspace's slot alignment). A run checks that it holds the
// workspace it needs before it issues anything: the temps' slots
// (plan().workspace_bytes(extents)) and, for reductions, scans and matmuls,
// CUB's storage and cuBLASLt's workspace after them; too small is an
// sd::binding_error naming the bytes needed. The
// run uses it on its streams; a graph, in every launch: the caller keeps it
// alive and does not use it meanwhile.
struct workspace_buffer {
  void* data = nullptr;
  std::size_t bytes = 0;
};

// sd::workspace_from(resource): a resource with allocate(bytes, stream) and
// deallocate(p, bytes, stream); sd::workspace_from(allocate, deallocate): two
// functions or captureless lambdas of those shapes.
template <workspace_resource Resource>
workspace_allocator workspace_from(Resource& resource) {
  return workspace_allocator(resource);
}
inline workspace_allocator workspace_from(workspace_allocator::allocate_function allocate,
                                          workspace_allocator::deallocate_function deallocate) {
  return workspace_allocator(allocate, deallocate);
}
// Anything else: a sentence instead of a list of candidates.
template <class Resource>
  requires(!workspace_resource<std::remove_reference_t<Resource>> || !std::is_lvalue_reference_v<Resource>)
workspace_allocator workspace_from(Resource&&) {
  using resource = std::remove_cvref_t<Resource>;
  if constexpr (workspace_resource<resource> && !std::is_lvalue_reference_v<Resource>)
    static_assert(
        sizeof(Resource) == 0,
        "streamdsl: sd::workspace_from of a temporary resource: runs and graphs refer to the resource "
        "and would use it after it is destroyed; pass a named resource that outlives them");
  else if constexpr (workspace_resource<resource>)
    static_assert(
        sizeof(Resource) == 0,
        "streamdsl: sd::workspace_from of a const resource: its allocate and deallocate are not const "
        "members; pass the resource itself, not a const reference to it");
  else
    static_assert(sizeof(Resource) == 0,
                  "streamdsl: sd::workspace_from(resource) needs a resource with allocate(std::size_t bytes, "
                  "cudaStream_t stream) returning the memory and deallocate(void* p, std::size_t bytes, "
                  "cudaStream_t stream), or both with the stream first (RMM's device_memory_resource has one "
                  "or the other; given a pointer to one, pass *pointer), or two functions: "
                  "sd::workspace_from(allocate, deallocate)");
  return workspace_allocator(nullptr, nullptr);
}
template <class Allocate, class Deallocate>
  requires(!std::convertible_to<Allocate, workspace_allocator::allocate_function> ||
           !std::convertible_to<Deallocate, workspace_allocator::deallocate_function>)
workspace_allocator workspace_from(Allocate&&, Deallocate&&) {
  static_assert(
      sizeof(Allocate) == 0,
      "streamdsl: sd::workspace_from(allocate, deallocate) takes two functions or lambdas without "
      "captures, void*(std::size_t bytes, cudaStream_t stream) and void(void* p, std::size_t bytes, "
      "cudaStream_t stream); for an allocator with state, pass an object with allocate and "
      "deallocate members: sd::workspace_from(resource)");
  return workspace_allocator(nullptr, nullptr);
}

// sd::workspace_in(data, bytes): the caller's own buffer.
inline workspace_buffer workspace_in(void* data, std::size_t bytes) { return {data, bytes}; }

namespace cuda_detail {

template <class T>
inline constexpr bool is_caller_events = false;
template <caller_event_role Role, std::size_t N>
inline constexpr bool is_caller_events<caller_events<Role, N>> = true;

template <class T>
inline constexpr bool is_workspace_option =
    std::is_same_v<T, workspace_allocator> || std::is_same_v<T, workspace_buffer>;

// An argument of run() or capture() that is an option, not a binding.
template <class T>
concept run_option =
    is_caller_events<std::remove_cvref_t<T>> || is_workspace_option<std::remove_cvref_t<T>> ||
    backend_detail::is_timeline_request<std::remove_cvref_t<T>>;

template <class... Args>
inline constexpr std::size_t workspace_option_count =
    (std::size_t{0} + ... + (is_workspace_option<std::remove_cvref_t<Args>> ? 1 : 0));

// Where this run's workspace comes from.
struct workspace_choice {
  enum class source : unsigned char { stream_ordered, allocator, buffer };
  source from = source::stream_ordered;
  workspace_allocator allocator{nullptr, nullptr};
  workspace_buffer buffer;
};

// Gathers options into the events to wait for and to record, the workspace
// and the timeline to record; the event lists are the caller's scratch arrays (kept across
// runs: no allocation once they are large enough).
struct gathered_options {
  detail::dyn_array<cudaEvent_t>& waits;
  detail::dyn_array<cudaEvent_t>& records;
  workspace_choice workspace;
  timeline* timing = nullptr;

  template <caller_event_role Role, std::size_t N>
  void add(const caller_events<Role, N>& e) {
    const auto list = e.view();
    (Role == caller_event_role::wait ? waits : records).append(list.data(), list.size());
  }
  void add(const workspace_allocator& a) {
    workspace.from = workspace_choice::source::allocator;
    workspace.allocator = a;
  }
  void add(const workspace_buffer& b) {
    workspace.from = workspace_choice::source::buffer;
    workspace.buffer = b;
  }
  void add(const timeline_request& r) { timing = r.into; }
};

template <class Program>
concept compiled_program = requires {
  Program::plan();
};

// How many arguments of run() or capture() are bindings (the rest are options).
template <class... Args>
inline constexpr std::size_t binding_count = (std::size_t{0} + ... + (run_option<Args> ? 0 : 1));

// Moves the bindings among `args` into `list`, in order, and adds the options to `options`.
template <class... Args>
void split_arguments(binding* list, gathered_options& options, Args&&... args) {
  std::size_t next = 0;
  const auto one = [&]<class A>(A&& arg) {
    if constexpr (run_option<A>)
      options.add(arg);
    else
      list[next++] = binding(static_cast<A&&>(arg));
  };
  (one(static_cast<Args&&>(args)), ...);
}

}  // namespace cuda_detail
}  // namespace streamdsl
#endif  // STREAMDSL_CXX20
