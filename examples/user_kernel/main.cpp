// The user's own steps: a hand-written __global__ kernel and a Thrust
// algorithm declared as steps of a program (p.call), ordered across two
// streams like any statement. On a side stream the user's kernel clamps x
// into a temp; main waits for it, squares it with a fused streamdsl kernel
// and sorts the result with thrust::sort, all on the plan's streams. Prints
// the plan, runs it on the GPU when there is one (example_user_kernel_gpu)
// or on the CPU, where the same callables compute with host loops, and
// checks the results against plain C++.
#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "../common/run_anywhere.hpp"
#if defined(__CUDACC__)
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#endif

constexpr auto user_kernel = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
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
});

static_assert(user_kernel.plan().step_count() == 2);

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

int main() {
#if defined(__CUDACC__)
  std::printf("== user_kernel (nvcc build) ==\n%s", user_kernel.to_string().c_str());
#else
  std::printf("== user_kernel ==\n%s", user_kernel.to_string().c_str());
#endif

  constexpr std::size_t n = 1 << 16;
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 7919) % 401) / 100.0f - 2.0f;

  const sd::binding bindings[] = {sd::bind("x", std::as_const(x)), sd::bind("y", y),
                                  sd::bind_call("clamp", clamp), sd::bind_call("sort", sort)};
  const char* where = example::run_anywhere(user_kernel, bindings);

  std::vector<float> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float h = std::min(std::max(x[i], -1.0f), 1.0f);
    want[i] = h * h + 1;
  }
  std::sort(want.begin(), want.end());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i) mismatches += y[i] != want[i];
  std::printf("\nran on %s, n = %zu\n", where, n);
  std::printf("  y[0] = %g, y[n/2] = %g, y[n-1] = %g (sorted)\n", y[0], y[n / 2], y[n - 1]);
  std::printf("results %s the reference (%zu mismatches)\n", mismatches == 0 ? "match" : "DO NOT match",
              mismatches);
  return mismatches == 0 ? 0 : 1;
}
