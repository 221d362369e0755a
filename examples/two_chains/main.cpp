// Two independent elementwise chains on two streams, joined by an add on
// main (the bench workload "two-chains", small). The chains write only temps,
// each read by the join alone, so the scheduler computes both inside the
// join's kernel: one kernel, no syncs, every temp in registers (the plan's
// notes say what moved). Runs on the host executor, in normal and in stress
// mode, and checks the result.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <utility>
#include <vector>

constexpr auto two_chains = sd::program([](sd::builder& p) {
  auto a = p.input<float>("a");
  auto b = p.input<float>("b");
  auto scale = p.param<float>("scale");
  auto ta = p.temp<float>("ta");
  auto tb = p.temp<float>("tb");
  auto ya = p.temp<float>("ya");
  auto yb = p.temp<float>("yb");
  auto out = p.output<float>("out");
  auto left = p.stream("left");
  auto right = p.stream("right");
  auto done_left = p.event("done_left");
  auto done_right = p.event("done_right");
  sd::with_stream(left, [&] {
    ta = a * scale + 1;
    ta = sd::relu(ta - 2) * ta;
    ya = sd::sqrt(ta + 1);
    done_left.record();
  });
  sd::with_stream(right, [&] {
    tb = b * b;
    tb = sd::tanh(tb) + sd::sigmoid(b);
    yb = tb / (1 + sd::abs(b));
    done_right.record();
  });
  done_left.wait();
  done_right.wait();
  out = ya + yb;
});

static_assert(two_chains.plan().kernel_count() == 1);
static_assert(two_chains.plan().sync_count() == 0);
static_assert(two_chains.plan().storage_of("ta") == sd::storage_register);

float reference(float a, float b, float scale) {
  float ta = a * scale + 1;
  ta = std::max(ta - 2, 0.0f) * ta;
  const float ya = std::sqrt(ta + 1);
  float tb = b * b;
  tb = std::tanh(tb) + 1.0f / (1.0f + std::exp(-b));
  const float yb = tb / (1 + std::fabs(b));
  return ya + yb;
}

int main() {
  std::printf("== two chains ==\n%s", two_chains.to_string().c_str());

  constexpr std::size_t n = 4096;
  const float scale = 1.5f;
  std::vector<float> a(n), b(n), out(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 97) / 10.0f - 3.0f;
    b[i] = static_cast<float>(i % 53) / 7.0f - 4.0f;
  }

  bool all_match = true;
  for (const bool stressed : {false, true}) {
    sd::host_options options;
    if (stressed) options.stress_mode = sd::stress{7, 50};  // random delays before every operation
    sd::host_executor executor(options);
    executor.run(two_chains, sd::bind("a", std::as_const(a)), sd::bind("b", std::as_const(b)),
                 sd::bind("scale", scale), sd::bind("out", out));
    std::size_t mismatches = 0;
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double err = std::fabs(out[i] - reference(a[i], b[i], scale)) / (1 + std::fabs(out[i]));
      worst = std::max(worst, err);
      mismatches += err > 1e-6;
    }
    std::printf("\nran on the host executor%s, n = %zu\n", stressed ? " in stress mode" : "", n);
    for (std::size_t i = 0; i < 3; ++i) std::printf("  out[%zu] = %g\n", i, out[i]);
    std::printf("results %s the reference (%zu mismatches, largest relative error %.2g)\n",
                mismatches == 0 ? "match" : "DO NOT match", mismatches, worst);
    all_match = all_match && mismatches == 0;
  }
  return all_match ? 0 : 1;
}
