// Workload 6's shape, activation offload and prefetch: a forward chain of
// layers on main; each layer's activation is copied to host memory on stream
// `offload` while the next layers compute, and copied back on stream
// `prefetch` before the backward chain, which reads it to form the gradient.
// On the device an activation lives only until its copy out and the next
// layer have read it, so the prefetched copies reuse the activations' slots. sd::automatic inserts every
// sync. Prints the plan, runs it on the GPU (example_offload_prefetch_gpu,
// host buffers pinned) or on the CPU (plainly and in stress mode), and checks
// the activations, the forward output and the gradient.
#include <cmath>
#include <cstdio>
#include <utility>

#include "../common/host_buffers.hpp"

namespace {

constexpr int layers = 4;
constexpr float weight[layers] = {0.9f, -1.2f, 1.1f, 0.8f};
constexpr float bias = 0.1f;

// Layer l: act[l] = tanh(in * weight[l] + bias). With loss = sum(y) and
// y = act[last], the gradient with respect to x is the product over layers
// of weight[l] * (1 - act[l]^2), each factor read from an offloaded activation.
// The host-side activations live in pinned host memory (cudaMallocHost on the
// GPU), where the copies put them.
constexpr auto offload_prefetch = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto dx = p.output<float>("dx");
  sd::temp<float> act[] = {p.temp<float>("act0"), p.temp<float>("act1"), p.temp<float>("act2"),
                           p.temp<float>("act3")};
  sd::output<float, sd::pinned> host[] = {
      p.output<float, sd::pinned>("h_act0"), p.output<float, sd::pinned>("h_act1"),
      p.output<float, sd::pinned>("h_act2"), p.output<float, sd::pinned>("h_act3")};
  sd::temp<float> back[] = {p.temp<float>("back0"), p.temp<float>("back1"), p.temp<float>("back2"),
                            p.temp<float>("back3")};
  auto grad = p.temp<float>("grad");
  auto offload = p.stream("offload");
  auto prefetch = p.stream("prefetch");

  // Forward: each activation goes out as soon as it is computed.
  act[0] = sd::tanh(x * weight[0] + bias);
  sd::with_stream(offload, [&] { sd::copy(host[0], act[0]); });
  for (int l = 1; l < layers; ++l) {
    act[l] = sd::tanh(act[l - 1] * weight[l] + bias);
    sd::with_stream(offload, [&] { sd::copy(host[l], act[l]); });
  }
  y = act[layers - 1];

  // Backward: the activations come back last layer first.
  for (int l = layers - 1; l >= 0; --l) sd::with_stream(prefetch, [&] { sd::copy(back[l], host[l]); });
  grad = (1.0f - back[layers - 1] * back[layers - 1]) * weight[layers - 1];
  for (int l = layers - 2; l >= 0; --l) grad = grad * ((1.0f - back[l] * back[l]) * weight[l]);
  dx = grad;
});

static_assert(offload_prefetch.plan().step_count() == 2 * layers);
// 2 * layers + 1 temps in layers + 1 workspace slots.
static_assert(offload_prefetch.plan().slot_count() == layers + 1);

struct reference {
  float act[layers];
  float y, dx;
  explicit reference(float x) {
    float in = x;
    for (int l = 0; l < layers; ++l) in = act[l] = std::tanh(in * weight[l] + bias);
    y = act[layers - 1];
    float g = (1.0f - act[layers - 1] * act[layers - 1]) * weight[layers - 1];
    for (int l = layers - 2; l >= 0; --l) g = g * ((1.0f - act[l] * act[l]) * weight[l]);
    dx = g;
  }
};

}  // namespace

int main() {
#if defined(__CUDACC__)
  std::printf("== offload and prefetch (nvcc build) ==\n%s", offload_prefetch.to_string().c_str());
#else
  std::printf("== offload and prefetch ==\n%s", offload_prefetch.to_string().c_str());
#endif

  constexpr std::size_t n = 1 << 16;
  std::vector<float> x(n), y(n), dx(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 2001) / 500.0f - 2.0f;
  example::host_array<float> h0(n), h1(n), h2(n), h3(n);
  example::host_array<float>* host[] = {&h0, &h1, &h2, &h3};

  const sd::binding bindings[] = {sd::bind("x", std::as_const(x)),
                                  sd::bind("y", y),
                                  sd::bind("dx", dx),
                                  sd::bind("h_act0", h0.span()),
                                  sd::bind("h_act1", h1.span()),
                                  sd::bind("h_act2", h2.span()),
                                  sd::bind("h_act3", h3.span())};
  const sd::stress stress{11, 50};  // random delays before every operation
  bool all_match = true;
  for (const bool stressed : {false, true}) {
    if (stressed && example::gpu_present()) break;  // stress mode is the host executor's
    for (std::size_t i = 0; i < n; ++i) {
      y[i] = dx[i] = -1.0f;
      for (auto* h : host) (*h)[i] = -1.0f;
    }
    const char* where = example::run_in_place(
        offload_prefetch, bindings, {"h_act0", "h_act1", "h_act2", "h_act3"}, stressed ? &stress : nullptr);
    // tanh may differ by an ulp or two between the host's and the GPU's libm.
    std::size_t mismatches = 0;
    double worst = 0;
    auto compare = [&](float got, float want) {
      const double err = std::fabs(got - want) / (1 + std::fabs(want));
      worst = err > worst ? err : worst;
      mismatches += err > 1e-5;
    };
    for (std::size_t i = 0; i < n; ++i) {
      const reference r(x[i]);
      for (int l = 0; l < layers; ++l) compare((*host[l])[i], r.act[l]);
      compare(y[i], r.y);
      compare(dx[i], r.dx);
    }
    std::printf("\nran on %s, %d layers of %zu floats, host activations %s\n", where, layers, n,
                h0.pinned() ? "pinned (cudaMallocHost)" : "in plain memory");
    for (std::size_t i = 0; i < 3; ++i)
      std::printf("  x[%zu] = %-8g h_act3[%zu] = %-10g y[%zu] = %-10g dx[%zu] = %g\n", i, x[i], i, h3[i], i,
                  y[i], i, dx[i]);
    std::printf("results %s the reference (%zu mismatches, largest relative error %.2g)\n",
                mismatches == 0 ? "match" : "DO NOT match", mismatches, worst);
    all_match = all_match && mismatches == 0;
  }
  return all_match ? 0 : 1;
}
