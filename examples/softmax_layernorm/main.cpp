// A softmax and a layer norm of one vector (a row), each a few statements:
// reductions into 0-d buffers that the elementwise statements after them
// read on the device, with no host synchronisation. The softmax runs on
// main, the layer norm's statistics and output on a second stream;
// sd::automatic orders each reduction before its readers. Prints the plan,
// runs it (on the GPU when built by nvcc and one is present, otherwise on
// the host executor) and checks both against plain C++ in double.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <streamdsl/streamdsl.hpp>
#include <vector>

#include "../common/run_anywhere.hpp"

constexpr auto softmax_layernorm = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto gamma = p.input<float>("gamma");
  auto beta = p.input<float>("beta");
  auto soft = p.output<float>("soft");
  auto norm = p.output<float>("norm");
  auto top = p.temp<float>("top", sd::scalar);
  auto total = p.temp<float>("total", sd::scalar);
  auto mu = p.temp<float>("mu", sd::scalar);
  auto var = p.temp<float>("var", sd::scalar);
  auto stats = p.stream("stats");

  // softmax(x) = exp(x - max x) / sum exp(x - max x)
  top = sd::max(x);
  total = sd::sum(sd::exp(x - top));
  soft = sd::exp(x - top) / total;

  // layer_norm(x) = (x - mean) / sqrt(var + eps) * gamma + beta
  sd::with_stream(stats, [&] {
    mu = sd::mean(x);
    var = sd::mean((x - mu) * (x - mu));
    norm = (x - mu) * sd::rsqrt(var + 1e-5f) * gamma + beta;
  });
});

static_assert(softmax_layernorm.plan().step_count() == 4);  // max, sum, mean, mean
static_assert(softmax_layernorm.plan().kernel_count() == 2);

int main() {
  std::printf("== softmax and layer norm of a row ==\n%s", softmax_layernorm.to_string().c_str());

  constexpr std::size_t n = 65536;
  std::vector<float> x(n), gamma(n), beta(n), soft(n), norm(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>((i * 7919) % 1000) / 100.0f - 5.0f;
    gamma[i] = 1.0f + static_cast<float>(i % 5) / 10.0f;
    beta[i] = static_cast<float>(i % 3) - 1.0f;
  }
  const sd::binding bindings[] = {sd::bind("x", std::as_const(x)), sd::bind("gamma", std::as_const(gamma)),
                                  sd::bind("beta", std::as_const(beta)), sd::bind("soft", soft),
                                  sd::bind("norm", norm)};
  const char* where = example::run_anywhere(softmax_layernorm, bindings);

  // The reference, in double.
  const double top = *std::max_element(x.begin(), x.end());
  double total = 0, mean = 0, var = 0;
  for (float v : x) total += std::exp(v - top), mean += v;
  mean /= n;
  for (float v : x) var += (v - mean) * (v - mean);
  var /= n;
  double worst_soft = 0, worst_norm = 0, soft_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double s = std::exp(x[i] - top) / total;
    const double y = (x[i] - mean) / std::sqrt(var + 1e-5) * gamma[i] + beta[i];
    worst_soft = std::max(worst_soft, std::fabs(soft[i] - s) / s);
    worst_norm = std::max(worst_norm, std::fabs(norm[i] - y) / (1 + std::fabs(y)));
    soft_sum += soft[i];
  }
  std::printf("\nran on %s, n = %zu\n", where, n);
  std::printf("  soft[0] = %g, soft sums to %.7f; norm[0] = %g\n", soft[0], soft_sum, norm[0]);
  // float sums of 65536 terms: a relative error of a few 1e-6 is float's
  // rounding (docs/concepts.md, "Reductions and scans").
  const bool match = worst_soft < 1e-4 && worst_norm < 1e-4;
  std::printf("results %s the reference (largest relative error: softmax %.2g, layer norm %.2g)\n",
              match ? "match" : "DO NOT match", worst_soft, worst_norm);
  return match ? 0 : 1;
}
