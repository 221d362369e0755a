// The user's own steps: a hand-written __global__ kernel and a Thrust
// algorithm declared as steps of a program (p.call), ordered across two
// streams like any statement. On a side stream the user's kernel clamps x
// into a temp; main waits for it, squares it with a fused streamdsl kernel
// and sorts the result with thrust::sort, all on the plan's streams. Then a
// copy brings the sorted result to pinned host memory and a host step
// (p.host_call) checks it on the CPU, in stream order after the copy
// (cudaLaunchHostFunc on the GPU: the issuing thread does not wait). Prints
// the plan, runs it on the GPU when there is one (example_user_kernel_gpu)
// or on the CPU, where the same callables compute with host loops, and
// checks the results against plain C++.
#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "../common/host_buffers.hpp"
#if defined(__CUDACC__)
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#endif

constexpr auto user_kernel = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto y_host = p.output<float, sd::pinned>("y_host");
  auto h = p.temp<float>("h");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    p.call("clamp", sd::reads(x), sd::writes(h));  // the user's __global__ kernel
    e.record();
  });
  e.wait();
  y = h * h + 1;                                // a fused kernel of streamdsl's
  p.call("sort", sd::reads(y), sd::writes(y));  // thrust::sort, in place
  sd::copy(y_host, y);                          // to pinned host memory
  p.host_call("check", sd::reads(y_host));      // on the CPU, after the copy
});

static_assert(user_kernel.plan().step_count() == 4);

#if defined(__CUDACC__)
__global__ void clamp_kernel(const float* x, float* h, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) h[i] = fminf(fmaxf(x[i], -1.0f), 1.0f);
}
#endif

// Each callable does its work where the executor runs: on the GPU it issues
// it on c.stream() and returns, on the host it computes.
void clamp(sd::call_context& c) {
  const auto x = c.read<float>(0);
  const auto h = c.write<float>(0);
#if defined(__CUDACC__)
  if (c.on_gpu()) {
    const unsigned blocks = static_cast<unsigned>((x.size() + 255) / 256);
    if (blocks > 0) clamp_kernel<<<blocks, 256, 0, c.stream()>>>(x.data(), h.data(), x.size());
    return;
  }
#endif
  for (std::size_t i = 0; i < x.size(); ++i) h[i] = std::min(std::max(x[i], -1.0f), 1.0f);
}

void sort(sd::call_context& c) {
  const auto y = c.write<float>(0);
#if defined(__CUDACC__)
  if (c.on_gpu()) {
    thrust::sort(thrust::cuda::par.on(c.stream()), y.begin(), y.end());
    return;
  }
#endif
  std::sort(y.begin(), y.end());
}

// The host step: on the CPU on either executor, over host memory only (it
// must not call CUDA). Counts the neighbours out of order.
std::size_t out_of_order = 0, checked = 0;
void check(sd::call_context& c) {
  const auto y = c.read<float>(0);
  for (std::size_t i = 1; i < y.size(); ++i) out_of_order += y[i - 1] > y[i];
  checked = y.size();
}

int main() {
#if defined(__CUDACC__)
  std::printf("== user_kernel (nvcc build) ==\n%s", user_kernel.to_string().c_str());
#else
  std::printf("== user_kernel ==\n%s", user_kernel.to_string().c_str());
#endif

  constexpr std::size_t n = 1 << 16;
  std::vector<float> x(n), y(n);
  example::host_array<float> y_host(n);  // pinned on the GPU
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 7919) % 401) / 100.0f - 2.0f;

  const sd::binding bindings[] = {sd::bind("x", std::as_const(x)),   sd::bind("y", y),
                                  sd::bind("y_host", y_host.span()), sd::bind_call("clamp", clamp),
                                  sd::bind_call("sort", sort),       sd::bind_call("check", check)};
  const char* where = example::run_in_place(user_kernel, bindings, {"y_host"});

  std::vector<float> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float h = std::min(std::max(x[i], -1.0f), 1.0f);
    want[i] = h * h + 1;
  }
  std::sort(want.begin(), want.end());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i) mismatches += y[i] != want[i] || y_host[i] != want[i];
  std::printf("\nran on %s, n = %zu\n", where, n);
  std::printf("  y[0] = %g, y[n/2] = %g, y[n-1] = %g (sorted)\n", y[0], y[n / 2], y[n - 1]);
  std::printf("  the host step checked %zu elements: %zu out of order\n", checked, out_of_order);
  if (checked != n || out_of_order != 0) return 1;
  std::printf("results %s the reference (%zu mismatches)\n", mismatches == 0 ? "match" : "DO NOT match",
              mismatches);
  return mismatches == 0 ? 0 : 1;
}
