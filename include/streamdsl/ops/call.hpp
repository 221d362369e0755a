#pragma once
// The user's own steps: `p.call("name", sd::reads(x, y.chunk(0, 2)), sd::writes(z))`
// declares an opaque step on the current stream that reads and writes the
// regions listed (buffers or chunks). The passes order it, sync around it,
// place and plan memory for it like any step, from those lists alone; what it
// does is bound when the program runs: sd::bind_call("name", callable)
// (backend/call_binding.hpp), called with an sd::call_context& that gives the
// stream and each listed region's memory, in list order (reads first). On the
// GPU the callable issues its work on c.stream() (a kernel of the user's, a
// Thrust or cuFFT call); on the host executor it computes on the host.
// Statements naming one call share its binding.
//
// Host steps: `p.host_call("log", sd::reads(h))` (dsl/builder.hpp) takes the
// same lists, of host memory only (sd::pinned, sd::pageable), and its
// callable runs on the CPU in stream order: cudaLaunchHostFunc on the GPU
// (backend/cuda/host_steps.hpp), a plain call on the host executor; it gets
// c.stream() null and c.on_gpu() false, and must not call CUDA.
#include <cstddef>

#include "../dsl/expr.hpp"

namespace streamdsl {

namespace detail {
// A buffer or a chunk of one: what a step reads or writes.
template <class X>
concept region_handle = requires(const X& x) {
  { builder_access::region_of(x) } -> std::same_as<ir::region>;
  { builder_access::state_of(x) } -> std::same_as<builder_state*>;
};

// The regions of sd::reads(...) or sd::writes(...) (Writes: which).
template <bool Writes, std::size_t N>
struct call_regions {
  static constexpr bool writes = Writes;
  static constexpr std::size_t size = N;
  ir::region regions[N > 0 ? N : 1];
};
}  // namespace detail

// What a call reads: buffers or chunks, each once.
template <detail::region_handle... X>
constexpr detail::call_regions<false, sizeof...(X)> reads(const X&... x) {
  return {{detail::builder_access::region_of(x)...}};
}
// What a call writes: buffers or chunks, each once (a region it updates in
// place goes in sd::reads too).
template <detail::region_handle... X>
constexpr detail::call_regions<true, sizeof...(X)> writes(const X&... x) {
  return {{detail::builder_access::region_of(x)...}};
}

}  // namespace streamdsl
