// A row softmax and a row layer norm of a matrix, each a few statements:
// reductions along the last axis (one value per row, into a column over the
// rows) that the elementwise statements after them read broadcast along each
// row; gamma and beta are rows, broadcast down the rows (PyTorch's
// broadcasting, by domain: docs/concepts.md, "Rank-2 buffers and
// broadcasting"). The softmax runs on main, the layer norm on a second
// stream; sd::automatic orders each reduction before its readers. Prints the
// plan, runs it and checks both against plain C++ in double.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <streamdsl/streamdsl.hpp>
#include <vector>

#include "../common/run_anywhere.hpp"

constexpr auto row_softmax_layernorm = sd::program<sd::automatic>([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, cols);
  auto gamma = p.input<float>("gamma", cols);
  auto beta = p.input<float>("beta", cols);
  auto soft = p.output<float>("soft", rows, cols);
  auto norm = p.output<float>("norm", rows, cols);
  auto top = p.temp<float>("top", rows);
  auto total = p.temp<float>("total", rows);
  auto mu = p.temp<float>("mu", rows);
  auto var = p.temp<float>("var", rows);
  auto stats = p.stream("stats");

  // softmax(x) along each row = exp(x - max) / sum exp(x - max)
  top = sd::max(x, cols);
  total = sd::sum(sd::exp(x - top), cols);
  soft = sd::exp(x - top) / total;

  // layer_norm(x) along each row = (x - mean) / sqrt(var + eps) * gamma + beta
  sd::with_stream(stats, [&] {
    mu = sd::mean(x, cols);
    var = sd::mean((x - mu) * (x - mu), cols);
    norm = (x - mu) * sd::rsqrt(var + 1e-5f) * gamma + beta;
  });
});

static_assert(row_softmax_layernorm.plan().step_count() == 4);  // max, sum, mean, mean along cols
static_assert(row_softmax_layernorm.plan().kernel_count() == 2);

int main() {
  std::printf("== row softmax and layer norm ==\n%s", row_softmax_layernorm.to_string().c_str());

  constexpr std::size_t R = 64, C = 4096;
  std::vector<float> x(R * C), gamma(C), beta(C), soft(R * C), norm(R * C);
  for (std::size_t i = 0; i < R * C; ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 100.0f - 5.0f;
  for (std::size_t j = 0; j < C; ++j) {
    gamma[j] = 1.0f + static_cast<float>(j % 5) / 10.0f;
    beta[j] = static_cast<float>(j % 3) - 1.0f;
  }
  const sd::binding bindings[] = {
      sd::bind("x", std::as_const(x), R, C), sd::bind("gamma", std::as_const(gamma)),
      sd::bind("beta", std::as_const(beta)), sd::bind("soft", soft, R, C), sd::bind("norm", norm, R, C)};
  const char* where = example::run_anywhere(row_softmax_layernorm, bindings);

  // The reference, row by row, in double.
  double worst_soft = 0, worst_norm = 0, worst_sum = 0;
  for (std::size_t i = 0; i < R; ++i) {
    const float* row = &x[i * C];
    const double top = *std::max_element(row, row + C);
    double total = 0, mean = 0, var = 0, soft_sum = 0;
    for (std::size_t j = 0; j < C; ++j) total += std::exp(row[j] - top), mean += row[j];
    mean /= C;
    for (std::size_t j = 0; j < C; ++j) var += (row[j] - mean) * (row[j] - mean);
    var /= C;
    for (std::size_t j = 0; j < C; ++j) {
      const double s = std::exp(row[j] - top) / total;
      const double y = (row[j] - mean) / std::sqrt(var + 1e-5) * gamma[j] + beta[j];
      worst_soft = std::max(worst_soft, std::fabs(soft[i * C + j] - s) / s);
      worst_norm = std::max(worst_norm, std::fabs(norm[i * C + j] - y) / (1 + std::fabs(y)));
      soft_sum += soft[i * C + j];
    }
    worst_sum = std::max(worst_sum, std::fabs(soft_sum - 1));
  }
  std::printf("\nran on %s, %zu rows of %zu\n", where, R, C);
  std::printf("  soft[0][0] = %g, norm[0][0] = %g; every softmax row sums to 1 within %.2g\n", soft[0],
              norm[0], worst_sum);
  const bool match = worst_soft < 1e-4 && worst_norm < 1e-4 && worst_sum < 1e-4;
  std::printf("results %s the reference (largest relative error: softmax %.2g, layer norm %.2g)\n",
              match ? "match" : "DO NOT match", worst_soft, worst_norm);
  return match ? 0 : 1;
}
