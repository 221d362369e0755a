// An Adam step over tensors of two sizes, written tensor by tensor on one
// stream, as an optimizer loops over its parameters. Fusion alone makes a
// kernel per tensor (the sizes alternate); the scheduler joins them into one
// multi-tensor launch, each tensor a segment of one grid (docs/concepts.md,
// "Multi-tensor launches"). Prints the plan, runs it on the GPU when there is
// one (example_optimizer_step_gpu) or on the CPU, and checks the results
// against plain C++.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/run_anywhere.hpp"

constexpr int tensors = 8;  // alternating: big, small, big, ...

constexpr auto adam_step = sd::program([](sd::builder& p) {
  auto big = p.domain("big");
  auto small = p.domain("small");
  auto w_big = p.inouts<float>("w_big", tensors / 2, big);
  auto m_big = p.inouts<float>("m_big", tensors / 2, big);
  auto v_big = p.inouts<float>("v_big", tensors / 2, big);
  auto g_big = p.inputs<float>("g_big", tensors / 2, big);
  auto w_small = p.inouts<float>("w_small", tensors / 2, small);
  auto m_small = p.inouts<float>("m_small", tensors / 2, small);
  auto v_small = p.inouts<float>("v_small", tensors / 2, small);
  auto g_small = p.inputs<float>("g_small", tensors / 2, small);
  auto b1 = p.param<float>("b1");
  auto b2 = p.param<float>("b2");
  auto lr = p.param<float>("lr");
  auto eps = p.param<float>("eps");
  auto adam = [&](auto w, auto m, auto v, auto g) {
    m = b1 * m + (1.0f - b1) * g;
    v = b2 * v + (1.0f - b2) * g * g;
    w = w - lr * m / (sd::sqrt(v) + eps);
  };
  for (int i = 0; i < tensors / 2; ++i) {
    adam(w_big[i], m_big[i], v_big[i], g_big[i]);
    adam(w_small[i], m_small[i], v_small[i], g_small[i]);
  }
});

// One launch covers every tensor of both sizes.
static_assert(adam_step.plan().kernel_count() == tensors);
static_assert(adam_step.plan().launch_count() == 1);

int main() {
#if defined(__CUDACC__)
  std::printf("== optimizer_step (nvcc build) ==\n%s", adam_step.to_string().c_str());
#else
  std::printf("== optimizer_step ==\n%s", adam_step.to_string().c_str());
#endif
  const std::size_t sizes[] = {100000, 1000};  // big, small
  const float b1 = 0.9f, b2 = 0.999f, lr = 1e-3f, eps = 1e-8f;
  struct tensor {
    std::string prefix;  // "_big[i]" or "_small[i]"
    std::vector<float> w, m, v, g;
  };
  std::vector<tensor> ts;
  for (int i = 0; i < tensors; ++i) {
    const auto n = sizes[i % 2];
    tensor t{std::string(i % 2 == 0 ? "_big[" : "_small[") + std::to_string(i / 2) + "]", {}, {}, {}, {}};
    for (std::size_t j = 0; j < n; ++j) {
      const auto x = static_cast<float>((j * 7 + static_cast<std::size_t>(i)) % 101) / 101.0f;
      t.w.push_back(x - 0.5f);
      t.m.push_back(0.1f * x);
      t.v.push_back(0.01f * x * x);
      t.g.push_back(0.5f - x);
    }
    ts.push_back(std::move(t));
  }
  auto want = ts;                  // the reference, updated by plain C++ below
  std::vector<std::string> names;  // the bindings keep views of these
  names.reserve(4 * tensors);
  std::vector<sd::binding> bindings{sd::bind("b1", b1), sd::bind("b2", b2), sd::bind("lr", lr),
                                    sd::bind("eps", eps)};
  for (auto& t : ts) {
    for (const char* what : {"w", "m", "v", "g"}) names.push_back(what + t.prefix);
    bindings.push_back(sd::bind(names[names.size() - 4], t.w));
    bindings.push_back(sd::bind(names[names.size() - 3], t.m));
    bindings.push_back(sd::bind(names[names.size() - 2], t.v));
    bindings.push_back(sd::bind(names[names.size() - 1], std::as_const(t.g)));
  }
  const char* where = example::run_anywhere(adam_step, bindings);

  // Each operation rounds once on both backends (no contraction), but the
  // GPU's sqrt and division may differ from the host's in the last bit.
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    auto& r = want[i];
    for (std::size_t j = 0; j < r.w.size(); ++j) {
      r.m[j] = b1 * r.m[j] + (1.0f - b1) * r.g[j];
      r.v[j] = b2 * r.v[j] + (1.0f - b2) * r.g[j] * r.g[j];
      r.w[j] = r.w[j] - lr * r.m[j] / (std::sqrt(r.v[j]) + eps);
      auto near = [](float got, float expect) {
        return std::fabs(got - expect) <= 1e-6f * (1 + std::fabs(expect));
      };
      mismatches += !near(ts[i].w[j], r.w[j]) || !near(ts[i].m[j], r.m[j]) || !near(ts[i].v[j], r.v[j]);
    }
  }
  std::printf("\nran on %s: %d tensors (%zu and %zu elements, alternating) in one launch\n", where, tensors,
              sizes[0], sizes[1]);
  std::printf("  w_big[0][1] = %g, w_small[0][1] = %g\n", ts[0].w[1], ts[1].w[1]);
  std::printf("results %s the reference (%zu mismatches)\n", mismatches == 0 ? "match" : "DO NOT match",
              mismatches);
  return mismatches == 0 ? 0 : 1;
}
