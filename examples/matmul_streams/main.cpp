// Matmuls on several streams: a two-stream pipeline (a = x w1 on main,
// recorded; a side stream waits and computes b = relu(a) w2 while main goes on
// with its own elementwise chain over x) and two independent products on
// two streams joined on main (y = p + q). Each stream's work is ordered by
// its events as written; the plan shows where the matmuls, the waits and the
// fused kernels land. Prints the plans, runs them (the host executor; the
// CUDA executor through cuBLASLt in the nvcc build, main_gpu.cu, on a GPU) and
// checks the results against plain C++ loops in double.
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "../common/run_anywhere.hpp"

constexpr auto pipeline = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto x = p.input<float>("x", m, k);
  auto w1 = p.input<float>("w1", k, k);
  auto w2 = p.input<float>("w2", k, n);
  auto b = p.output<float>("b", m, n);
  auto chain = p.output<float>("chain", m, k);
  auto a = p.temp<float>("a", m, k);
  auto h = p.temp<float>("h", m, k);
  auto side = p.stream("side");
  auto ready = p.event("ready");
  a = sd::matmul(x, w1);  // main
  ready.record();
  sd::with_stream(side, [&] {
    ready.wait();
    h = sd::relu(a);
    b = sd::matmul(h, w2);
  });
  chain = sd::tanh(x * 0.5f) + x;  // main, beside the side stream's product
  p.main_stream().wait_stream(side);
});

constexpr auto joined = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto x = p.input<float>("x", m, k);
  auto w1 = p.input<float>("w1", k, k);
  auto w2 = p.input<float>("w2", k, k);
  auto y = p.output<float>("y", m, k);
  auto pp = p.temp<float>("p", m, k);
  auto q = p.temp<float>("q", m, k);
  auto left = p.stream("left");
  auto right = p.stream("right");
  left.wait_stream(p.main_stream());
  right.wait_stream(p.main_stream());
  sd::with_stream(left, [&] { pp = sd::matmul(x, w1); });
  sd::with_stream(right, [&] { q = sd::matmul(x, sd::transpose(w2)); });
  p.main_stream().wait_stream(left);
  p.main_stream().wait_stream(right);
  y = pp + q;
});

namespace {

// c (r x c) = a (r x s) * b (s x c), b read transposed (stored c x s) when asked.
std::vector<double> product(const std::vector<double>& a, const std::vector<double>& b, std::size_t r,
                            std::size_t s, std::size_t c, bool b_transposed = false) {
  std::vector<double> out(r * c, 0.0);
  for (std::size_t i = 0; i < r; ++i)
    for (std::size_t j = 0; j < c; ++j)
      for (std::size_t q = 0; q < s; ++q)
        out[i * c + j] += a[i * s + q] * (b_transposed ? b[j * s + q] : b[q * c + j]);
  return out;
}

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

std::size_t count_far(const std::vector<float>& got, const std::vector<double>& want) {
  std::size_t far = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    far += std::fabs(got[i] - want[i]) > 1e-3 * (1 + std::fabs(want[i]));
  return far;
}

}  // namespace

int main() {
#if defined(__CUDACC__)
  const char* build = " (nvcc build)";
#else
  const char* build = "";
#endif
  std::printf("== matmul_streams: pipeline%s ==\n%s\n", build, pipeline.to_string().c_str());
  std::printf("== matmul_streams: joined%s ==\n%s\n", build, joined.to_string().c_str());

  constexpr std::size_t M = 96, K = 64, N = 80;
  std::vector<float> x(M * K), w1(K * K), w2(K * N), w2s(K * K), b(M * N), chain(M * K), y(M * K);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 11) - 5) / 8;
  for (std::size_t i = 0; i < w1.size(); ++i) w1[i] = static_cast<float>(static_cast<int>(i % 7) - 3) / 16;
  for (std::size_t i = 0; i < w2.size(); ++i) w2[i] = static_cast<float>(static_cast<int>(i % 5) - 2) / 8;
  for (std::size_t i = 0; i < w2s.size(); ++i) w2s[i] = static_cast<float>(static_cast<int>(i % 9) - 4) / 16;

  const sd::binding first[] = {sd::bind("x", std::as_const(x), M, K), sd::bind("w1", std::as_const(w1), K, K),
                               sd::bind("w2", std::as_const(w2), K, N), sd::bind("b", b, M, N),
                               sd::bind("chain", chain, M, K)};
  const char* where = example::run_anywhere(pipeline, first);
  const sd::binding second[] = {sd::bind("x", std::as_const(x), M, K),
                                sd::bind("w1", std::as_const(w1), K, K),
                                sd::bind("w2", std::as_const(w2s), K, K), sd::bind("y", y, M, K)};
  example::run_anywhere(joined, second);

  auto a = product(widen(x), widen(w1), M, K, K);
  for (auto& v : a) v = v > 0 ? v : 0;
  const auto want_b = product(a, widen(w2), M, K, N);
  std::vector<double> want_chain(M * K), want_y = product(widen(x), widen(w1), M, K, K);
  const auto q = product(widen(x), widen(w2s), M, K, K, true);
  for (std::size_t i = 0; i < want_chain.size(); ++i) {
    want_chain[i] = std::tanh(x[i] * 0.5) + x[i];
    want_y[i] += q[i];
  }
  const std::size_t far = count_far(b, want_b) + count_far(chain, want_chain) + count_far(y, want_y);
  std::printf("ran on %s: b = relu(x w1) w2 (%zu x %zu), chain (%zu x %zu), y = x w1 + x w2^T\n", where, M, N,
              M, K);
  std::printf("  b[0] = %g, y[0] = %g\n", b[0], y[0]);
  std::printf("results %s the reference (%zu elements off by more than 1e-3 relative)\n",
              far == 0 ? "match" : "DO NOT match", far);
  return far == 0 ? 0 : 1;
}
