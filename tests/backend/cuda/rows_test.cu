// Rank-2 programs on the GPU (ir/shape.hpp) against the host executor in the
// same test: fused kernels over a product domain reading rows, columns and
// 0-d values (fused_kernel.cuh's gather), every reduction and scan along the
// last axis (row_kernels.cuh), a whole-buffer reduction of a rank-2
// expression (CUB, through the same gather), and a row softmax and layer norm
// over two streams; shapes with one row, one column, columns not a multiple
// of 4 or 32, and 65536 columns; a captured graph replayed.
//
// Agreement: elementwise results, integers, min, max and argmax bit for bit
// (NaN as NaN); float sums within the sum of the two backends' bounds (the
// GPU adds each row in a tree, the host in blocks in order: reduce_ops.hpp),
// n * eps * sum|x| each, a scan's element k within (k + 1) * eps * (sum of
// |x| up to k) each; exp, rsqrt and what follows them within a relative 1e-5.
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/backend/cuda/reductions.cuh>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <utility>
#include <vector>

#include "device_buffer.hpp"

using gpu_test::device_buffer;

namespace {

struct shape {
  std::size_t rows, cols;
};
// One row, one column, one element, columns off 4 and 32, a long row, many short rows.
const shape shapes[] = {{1, 1}, {1, 7}, {5, 1}, {3, 33}, {7, 1000}, {2, 65536}, {129, 257}, {1000, 3}};

// Multiples of 1/4 in (-8, 8): most float sums are exact.
std::vector<float> data(std::size_t n, int salt) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(
               static_cast<long long>((i * 2654435761u + static_cast<std::size_t>(salt) * 97) % 61) - 30) *
           0.25f;
  return v;
}

bool same_bits(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// --- elementwise over a product domain ----------------------------------------

// y = a * col + row - s, and the vectors stored into every row and column.
constexpr auto broadcast = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto a = p.input<float>("a", rows, cols);
  auto col = p.input<float>("col", rows);
  auto row = p.input<float>("row", cols);
  auto s = p.input<float>("s", sd::scalar);
  auto y = p.output<float>("y", rows, cols);
  auto by_row = p.output<std::int32_t>("by_row", rows, cols);
  auto by_col = p.output<double>("by_col", rows, cols);
  y = a * col + row - s;
  by_row = sd::cast<std::int32_t>(row * 4);
  by_col = sd::cast<double>(col) * 2 + y;
});

struct broadcast_out {
  std::vector<float> y;
  std::vector<std::int32_t> by_row;
  std::vector<double> by_col;
};

broadcast_out run_broadcast(bool gpu, shape sh, const std::vector<float>& a, const std::vector<float>& col,
                            const std::vector<float>& row, float s) {
  const std::size_t R = sh.rows, C = sh.cols;
  broadcast_out o{std::vector<float>(R * C), std::vector<std::int32_t>(R * C), std::vector<double>(R * C)};
  if (!gpu) {
    sd::host_executor hx;
    hx.run(broadcast, sd::bind("a", a.data(), R, C), sd::bind("col", col.data(), R),
           sd::bind("row", row.data(), C), sd::bind("s", &s, 1), sd::bind("y", o.y.data(), R, C),
           sd::bind("by_row", o.by_row.data(), R, C), sd::bind("by_col", o.by_col.data(), R, C));
    return o;
  }
  device_buffer<float> da(a), dcol(col), drow(row), ds(std::vector<float>{s}), dy(R * C);
  device_buffer<std::int32_t> dby_row(R * C);
  device_buffer<double> dby_col(R * C);
  sd::cuda_executor ex;
  ex.run(broadcast, sd::bind("a", da.cget(), R, C), sd::bind("col", dcol.cget(), R),
         sd::bind("row", drow.cget(), C), sd::bind("s", ds.cget(), 1), sd::bind("y", dy.get(), R, C),
         sd::bind("by_row", dby_row.get(), R, C), sd::bind("by_col", dby_col.get(), R, C));
  o.y = dy.download();
  o.by_row = dby_row.download();
  o.by_col = dby_col.download();
  return o;
}

}  // namespace

TEST_CASE("a fused kernel over rows and columns reads rows, columns and 0-d values",
          "[cuda][rows][sanitize]") {
  STATIC_REQUIRE(broadcast.plan().kernel_count() == 1);
  for (const auto sh : shapes) {
    INFO("rows " << sh.rows << ", cols " << sh.cols);
    const auto a = data(sh.rows * sh.cols, 1), col = data(sh.rows, 2), row = data(sh.cols, 3);
    const float s = 0.75f;
    const auto h = run_broadcast(false, sh, a, col, row, s);
    const auto g = run_broadcast(true, sh, a, col, row, s);
    REQUIRE(g.y == h.y);
    REQUIRE(g.by_row == h.by_row);
    REQUIRE(g.by_col == h.by_col);
    for (std::size_t i = 0; i < sh.rows; ++i)  // and by the rule, not only by agreement
      for (std::size_t j = 0; j < sh.cols; j += 1 + sh.cols / 5)
        REQUIRE(g.y[i * sh.cols + j] == a[i * sh.cols + j] * col[i] + row[j] - s);
  }
}

TEST_CASE("a square matrix reads a vector over its one domain as a row", "[cuda][rows][sanitize]") {
  constexpr auto square = sd::program([](sd::builder& p) {
    auto n = p.domain("k");
    auto a = p.input<float>("a", n, n);
    auto v = p.input<float>("v", n);
    auto y = p.output<float>("y", n, n);
    y = a + v;
  });
  const std::vector<float> a = {1, 2, 3, 4}, v = {10, 20};
  device_buffer<float> da(a), dv(v), dy(4);
  sd::cuda_executor ex;
  ex.run(square, sd::bind("a", da.cget(), 2, 2), sd::bind("v", dv.cget(), 2), sd::bind("y", dy.get(), 2, 2));
  REQUIRE(dy.download() == std::vector<float>{11, 22, 13, 24});
}

namespace {

// --- along the last axis ----------------------------------------------------------

constexpr auto along = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, cols);
  auto k = p.input<std::int32_t>("k", rows, cols);
  auto col = p.input<float>("col", rows);
  auto sum = p.output<float>("sum", rows);
  auto lo = p.output<float>("lo", rows);
  auto hi = p.output<float>("hi", rows);
  auto at = p.output<std::int64_t>("at", rows);
  auto mean = p.output<float>("mean", rows);
  auto norm = p.output<float>("norm", rows);
  auto inc = p.output<float>("inc", rows, cols);
  auto exc = p.output<float>("exc", rows, cols);
  auto ksum = p.output<std::int64_t>("ksum", rows);
  auto klo = p.output<std::int32_t>("klo", rows);
  auto khi = p.output<std::int32_t>("khi", rows);
  auto kat = p.output<std::int64_t>("kat", rows);
  auto kinc = p.output<std::int64_t>("kinc", rows, cols);
  auto kexc = p.output<std::int64_t>("kexc", rows, cols);
  auto fused = p.output<float>("fused", rows);
  auto total = p.output<float>("total", sd::scalar);
  sum = sd::sum(x, cols);
  lo = sd::min(x, cols);
  hi = sd::max(x, cols);
  at = sd::argmax(x, cols);
  mean = sd::mean(x, cols);
  norm = sd::norm(x, cols);
  inc = sd::inclusive_sum(x, cols);
  exc = sd::exclusive_sum(x, cols);
  ksum = sd::sum(k, cols);
  klo = sd::min(k, cols);
  khi = sd::max(k, cols);
  kat = sd::argmax(k, cols);
  kinc = sd::inclusive_sum(k, cols);
  kexc = sd::exclusive_sum(k, cols);
  fused = sd::sum(x * col, cols);  // reads a column inside the step
  total = sd::sum(x - col);        // all of it: CUB over the gathered expression
});

struct along_out {
  std::vector<float> sum, lo, hi, mean, norm, inc, exc, fused, total;
  std::vector<std::int64_t> at, ksum, kat, kinc, kexc;
  std::vector<std::int32_t> klo, khi;
  explicit along_out(shape sh)
      : sum(sh.rows),
        lo(sh.rows),
        hi(sh.rows),
        mean(sh.rows),
        norm(sh.rows),
        inc(sh.rows * sh.cols),
        exc(sh.rows * sh.cols),
        fused(sh.rows),
        total(1),
        at(sh.rows, -7),
        ksum(sh.rows),
        kat(sh.rows, -7),
        kinc(sh.rows * sh.cols),
        kexc(sh.rows * sh.cols),
        klo(sh.rows),
        khi(sh.rows) {}
};

along_out run_along(bool gpu, shape sh, const std::vector<float>& x, const std::vector<std::int32_t>& k,
                    const std::vector<float>& col) {
  const std::size_t R = sh.rows, C = sh.cols;
  along_out o(sh);
  if (!gpu) {
    sd::host_executor hx;
    hx.run(along, sd::bind("x", x.data(), R, C), sd::bind("k", k.data(), R, C),
           sd::bind("col", col.data(), R), sd::bind("sum", o.sum.data(), R), sd::bind("lo", o.lo.data(), R),
           sd::bind("hi", o.hi.data(), R), sd::bind("at", o.at.data(), R), sd::bind("mean", o.mean.data(), R),
           sd::bind("norm", o.norm.data(), R), sd::bind("inc", o.inc.data(), R, C),
           sd::bind("exc", o.exc.data(), R, C), sd::bind("ksum", o.ksum.data(), R),
           sd::bind("klo", o.klo.data(), R), sd::bind("khi", o.khi.data(), R),
           sd::bind("kat", o.kat.data(), R), sd::bind("kinc", o.kinc.data(), R, C),
           sd::bind("kexc", o.kexc.data(), R, C), sd::bind("fused", o.fused.data(), R),
           sd::bind("total", o.total.data(), 1));
    return o;
  }
  device_buffer<float> dx(x), dcol(col), dsum(R), dlo(R), dhi(R), dmean(R), dnorm(R), dinc(R * C),
      dexc(R * C), dfused(R), dtotal(1);
  device_buffer<std::int32_t> dk(k), dklo(R), dkhi(R);
  device_buffer<std::int64_t> dat(R), dksum(R), dkat(R), dkinc(R * C), dkexc(R * C);
  sd::cuda_executor ex;
  for (int round = 0; round < 2; ++round)  // the second run takes the prepared run
    ex.run(along, sd::bind("x", dx.cget(), R, C), sd::bind("k", dk.cget(), R, C),
           sd::bind("col", dcol.cget(), R), sd::bind("sum", dsum.get(), R), sd::bind("lo", dlo.get(), R),
           sd::bind("hi", dhi.get(), R), sd::bind("at", dat.get(), R), sd::bind("mean", dmean.get(), R),
           sd::bind("norm", dnorm.get(), R), sd::bind("inc", dinc.get(), R, C),
           sd::bind("exc", dexc.get(), R, C), sd::bind("ksum", dksum.get(), R),
           sd::bind("klo", dklo.get(), R), sd::bind("khi", dkhi.get(), R), sd::bind("kat", dkat.get(), R),
           sd::bind("kinc", dkinc.get(), R, C), sd::bind("kexc", dkexc.get(), R, C),
           sd::bind("fused", dfused.get(), R), sd::bind("total", dtotal.get(), 1));
  o.sum = dsum.download();
  o.lo = dlo.download();
  o.hi = dhi.download();
  o.at = dat.download();
  o.mean = dmean.download();
  o.norm = dnorm.download();
  o.inc = dinc.download();
  o.exc = dexc.download();
  o.ksum = dksum.download();
  o.klo = dklo.download();
  o.khi = dkhi.download();
  o.kat = dkat.download();
  o.kinc = dkinc.download();
  o.kexc = dkexc.download();
  o.fused = dfused.download();
  o.total = dtotal.download();
  return o;
}

void check_close(double g, double h, double bound) {
  INFO("gpu " << g << " host " << h << " bound " << bound);
  REQUIRE(std::fabs(g - h) <= bound);
}

void check_along(shape sh) {
  INFO("rows " << sh.rows << ", cols " << sh.cols);
  const std::size_t R = sh.rows, C = sh.cols;
  auto x = data(R * C, 4);
  const auto col = data(R, 5);
  std::vector<std::int32_t> k(R * C);
  for (std::size_t i = 0; i < R * C; ++i) k[i] = static_cast<std::int32_t>(x[i] * 4) * 1000003;
  // NaN, -0 and +0 and ties in the first row (min and max ignore NaN, argmax takes the first maximum)
  if (C >= 4) {
    x[0] = std::numeric_limits<float>::quiet_NaN();
    x[1] = 9.0f;
    x[C - 1] = 9.0f;
  }
  const auto h = run_along(false, sh, x, k, col);
  const auto g = run_along(true, sh, x, k, col);
  const double eps = std::numeric_limits<float>::epsilon(), n = static_cast<double>(C);
  double total_bound = 0;
  for (std::size_t i = 0; i < R; ++i) {
    INFO("row " << i);
    REQUIRE(same_bits(g.lo[i], h.lo[i]));
    REQUIRE(same_bits(g.hi[i], h.hi[i]));
    REQUIRE(g.at[i] == h.at[i]);
    REQUIRE(g.ksum[i] == h.ksum[i]);
    REQUIRE(g.klo[i] == h.klo[i]);
    REQUIRE(g.khi[i] == h.khi[i]);
    REQUIRE(g.kat[i] == h.kat[i]);
    double abs = 0, sq = 0, abs_fused = 0;
    for (std::size_t j = 0; j < C; ++j) {
      const double v = x[i * C + j];
      if (std::isnan(v)) continue;
      abs += std::fabs(v);
      sq += v * v;
      abs_fused += std::fabs(v * col[i]);
      total_bound += std::fabs(v - col[i]);
    }
    if (std::isnan(h.sum[i])) {
      REQUIRE(std::isnan(g.sum[i]));
      REQUIRE(std::isnan(g.mean[i]));
      REQUIRE(std::isnan(g.norm[i]));
    } else {
      check_close(g.sum[i], h.sum[i], 2 * n * eps * abs + eps * std::fabs(h.sum[i]));
      check_close(g.mean[i], h.mean[i], (2 * n * eps * abs) / n + 2 * eps * std::fabs(h.mean[i]));
      const double over = h.norm[i] > 0 ? h.norm[i] : 1;
      check_close(g.norm[i], h.norm[i], 2 * n * eps * sq / over + 2 * eps * std::fabs(h.norm[i]));
    }
    if (std::isnan(h.fused[i]))
      REQUIRE(std::isnan(g.fused[i]));
    else
      check_close(g.fused[i], h.fused[i], 2 * n * eps * abs_fused + eps * std::fabs(h.fused[i]));
    double prefix = 0;
    bool nan = false;
    for (std::size_t j = 0; j < C; ++j) {
      const std::size_t e = i * C + j;
      REQUIRE(g.kinc[e] == h.kinc[e]);
      REQUIRE(g.kexc[e] == h.kexc[e]);
      if (nan) {
        REQUIRE(std::isnan(g.exc[e]));
      } else {
        check_close(g.exc[e], h.exc[e], 2 * static_cast<double>(j + 1) * eps * prefix);
      }
      const double v = x[e];
      nan = nan || std::isnan(v);
      if (!nan) prefix += std::fabs(v);
      if (nan)
        REQUIRE(std::isnan(g.inc[e]));
      else
        check_close(g.inc[e], h.inc[e], 2 * static_cast<double>(j + 1) * eps * prefix);
    }
  }
  if (std::isnan(h.total[0]))
    REQUIRE(std::isnan(g.total[0]));
  else
    check_close(g.total[0], h.total[0], 2 * static_cast<double>(R * C) * eps * total_bound);
}

}  // namespace

TEST_CASE("every reduction and scan along the last axis, small shapes", "[cuda][rows][sanitize]") {
  STATIC_REQUIRE(along.plan().step_count() == 16);
  for (const auto sh : shapes)
    if (sh.rows * sh.cols <= 10000) check_along(sh);
}

TEST_CASE("every reduction and scan along the last axis, long rows", "[cuda][rows]") {
  for (const auto sh : shapes)
    if (sh.rows * sh.cols > 10000) check_along(sh);
  check_along({3, 100003});
}

namespace {

// --- softmax and layer norm (examples/row_softmax) ----------------------------------

constexpr auto softmax_layernorm = sd::program<sd::automatic>([](sd::builder& p) {
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
  top = sd::max(x, cols);
  total = sd::sum(sd::exp(x - top), cols);
  soft = sd::exp(x - top) / total;
  sd::with_stream(stats, [&] {
    mu = sd::mean(x, cols);
    var = sd::mean((x - mu) * (x - mu), cols);
    norm = (x - mu) * sd::rsqrt(var + 1e-5f) * gamma + beta;
  });
});

void check_relative(const std::vector<float>& g, const std::vector<float>& h, double tolerance) {
  REQUIRE(g.size() == h.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    INFO("element " << i << ": gpu " << g[i] << " host " << h[i]);
    REQUIRE(std::fabs(static_cast<double>(g[i]) - h[i]) <=
            tolerance * (1 + std::fabs(static_cast<double>(h[i]))));
  }
}

}  // namespace

TEST_CASE("a row softmax and layer norm on two streams", "[cuda][rows][sanitize]") {
  for (const auto sh : shapes) {
    INFO("rows " << sh.rows << ", cols " << sh.cols);
    const std::size_t R = sh.rows, C = sh.cols;
    const auto x = data(R * C, 6), gamma = data(C, 7), beta = data(C, 8);
    std::vector<float> hsoft(R * C), hnorm(R * C);
    sd::host_executor hx;
    hx.run(softmax_layernorm, sd::bind("x", x.data(), R, C), sd::bind("gamma", gamma.data(), C),
           sd::bind("beta", beta.data(), C), sd::bind("soft", hsoft.data(), R, C),
           sd::bind("norm", hnorm.data(), R, C));
    device_buffer<float> dx(x), dgamma(gamma), dbeta(beta), dsoft(R * C), dnorm(R * C);
    sd::cuda_executor ex;
    ex.run(softmax_layernorm, sd::bind("x", dx.cget(), R, C), sd::bind("gamma", dgamma.cget(), C),
           sd::bind("beta", dbeta.cget(), C), sd::bind("soft", dsoft.get(), R, C),
           sd::bind("norm", dnorm.get(), R, C));
    check_relative(dsoft.download(), hsoft, 1e-5);
    // The variance of rows of one element is 0: rsqrt(1e-5) scales the
    // rounding of x - mu (0 on both), so the bound holds there too.
    check_relative(dnorm.download(), hnorm, 1e-4);
  }
}

TEST_CASE("a row softmax captured into a graph and replayed", "[cuda][rows][graph]") {
  const std::size_t R = 33, C = 1025;
  auto x = data(R * C, 9);
  const auto gamma = data(C, 7), beta = data(C, 8);
  device_buffer<float> dx(x), dgamma(gamma), dbeta(beta), dsoft(R * C), dnorm(R * C);
  sd::cuda_executor ex;
  auto graph = sd::capture(ex, softmax_layernorm, sd::bind("x", dx.cget(), R, C),
                           sd::bind("gamma", dgamma.cget(), C), sd::bind("beta", dbeta.cget(), C),
                           sd::bind("soft", dsoft.get(), R, C), sd::bind("norm", dnorm.get(), R, C));
  for (int round = 0; round < 2; ++round) {
    for (auto& v : x) v = v * 0.5f + static_cast<float>(round);
    dx.upload(x);
    graph.launch(ex.main_stream());
    std::vector<float> hsoft(R * C), hnorm(R * C);
    sd::host_executor hx;
    hx.run(softmax_layernorm, sd::bind("x", x.data(), R, C), sd::bind("gamma", gamma.data(), C),
           sd::bind("beta", beta.data(), C), sd::bind("soft", hsoft.data(), R, C),
           sd::bind("norm", hnorm.data(), R, C));
    check_relative(dsoft.download(), hsoft, 1e-5);
    check_relative(dnorm.download(), hnorm, 1e-4);
  }
}

// --- row groups (passes/row_groups.hpp): one kernel per group -------------------------

// Both streams' shares are row groups: one kernel each.
static_assert(sd::cuda_detail::group_count(softmax_layernorm.plan()) == 2);

namespace {

// Every reduction a group takes, a kernel over the rows between them and a
// kernel over the matrix after them, with ints, a column read inside a
// reduction and a row read in the last pass.
constexpr auto grouped_body = [](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, cols);
  auto k = p.input<std::int32_t>("k", rows, cols);
  auto col = p.input<float>("col", rows);
  auto row = p.input<float>("row", cols);
  auto lo = p.output<float>("lo", rows);
  auto hi = p.output<float>("hi", rows);
  auto at = p.output<std::int64_t>("at", rows);
  auto kat = p.output<std::int64_t>("kat", rows);
  auto ksum = p.output<std::int64_t>("ksum", rows);
  auto span = p.output<float>("span", rows);
  auto s = p.output<float>("s", rows);
  auto mean = p.output<float>("mean", rows);
  auto norm = p.output<float>("norm", rows);
  auto y = p.output<float>("y", rows, cols);
  auto ky = p.output<std::int32_t>("ky", rows, cols);
  lo = sd::min(x, cols);
  hi = sd::max(x, cols);
  at = sd::argmax(x, cols);
  kat = sd::argmax(k, cols);
  ksum = sd::sum(k, cols);
  span = hi - lo + 1;  // over the rows
  s = sd::sum((x - lo) * col, cols);
  mean = sd::mean(x / span, cols);
  norm = sd::norm(x - mean, cols);
  y = (x - lo) / span * row + s - norm;
  ky = k * 2 + 1;
};
constexpr auto grouped = sd::program(grouped_body);
constexpr auto apart = sd::program<sd::no_fusion>(grouped_body);
static_assert(sd::cuda_detail::group_count(grouped.plan()) == 1);
static_assert(sd::cuda_detail::group_count(apart.plan()) == 0);

struct grouped_out {
  std::vector<float> lo, hi, span, s, mean, norm, y;
  std::vector<std::int64_t> at, kat, ksum;
  std::vector<std::int32_t> ky;
  explicit grouped_out(shape sh)
      : lo(sh.rows),
        hi(sh.rows),
        span(sh.rows),
        s(sh.rows),
        mean(sh.rows),
        norm(sh.rows),
        y(sh.rows * sh.cols),
        at(sh.rows, -7),
        kat(sh.rows, -7),
        ksum(sh.rows),
        ky(sh.rows * sh.cols) {}
};

// Runs `prog` on the host or the GPU; `offset` binds the matrices that many
// elements into their allocations (off 16 bytes: the scalar paths).
template <class Program>
grouped_out run_grouped(const Program& prog, bool gpu, shape sh, std::size_t offset,
                        const std::vector<float>& x, const std::vector<std::int32_t>& k,
                        const std::vector<float>& col, const std::vector<float>& row) {
  const std::size_t R = sh.rows, C = sh.cols;
  grouped_out o(sh);
  if (!gpu) {
    sd::host_executor hx;
    hx.run(prog, sd::bind("x", x.data(), R, C), sd::bind("k", k.data(), R, C), sd::bind("col", col.data(), R),
           sd::bind("row", row.data(), C), sd::bind("lo", o.lo.data(), R), sd::bind("hi", o.hi.data(), R),
           sd::bind("at", o.at.data(), R), sd::bind("kat", o.kat.data(), R),
           sd::bind("ksum", o.ksum.data(), R), sd::bind("span", o.span.data(), R),
           sd::bind("s", o.s.data(), R), sd::bind("mean", o.mean.data(), R),
           sd::bind("norm", o.norm.data(), R), sd::bind("y", o.y.data(), R, C),
           sd::bind("ky", o.ky.data(), R, C));
    return o;
  }
  std::vector<float> xo(offset, 0.0f);
  xo.insert(xo.end(), x.begin(), x.end());
  std::vector<std::int32_t> ko(offset, 0);
  ko.insert(ko.end(), k.begin(), k.end());
  device_buffer<float> dx(xo), dcol(col), drow(row), dlo(R), dhi(R), dspan(R), ds(R), dmean(R), dnorm(R),
      dy(R * C + offset);
  device_buffer<std::int32_t> dk(ko), dky(R * C + offset);
  device_buffer<std::int64_t> dat(R), dkat(R), dksum(R);
  sd::cuda_executor ex;
  for (int round = 0; round < 2; ++round)  // the second run takes the prepared run
    ex.run(prog, sd::bind("x", dx.cget() + offset, R, C), sd::bind("k", dk.cget() + offset, R, C),
           sd::bind("col", dcol.cget(), R), sd::bind("row", drow.cget(), C), sd::bind("lo", dlo.get(), R),
           sd::bind("hi", dhi.get(), R), sd::bind("at", dat.get(), R), sd::bind("kat", dkat.get(), R),
           sd::bind("ksum", dksum.get(), R), sd::bind("span", dspan.get(), R), sd::bind("s", ds.get(), R),
           sd::bind("mean", dmean.get(), R), sd::bind("norm", dnorm.get(), R),
           sd::bind("y", dy.get() + offset, R, C), sd::bind("ky", dky.get() + offset, R, C));
  o.lo = dlo.download();
  o.hi = dhi.download();
  o.at = dat.download();
  o.kat = dkat.download();
  o.ksum = dksum.download();
  o.span = dspan.download();
  o.s = ds.download();
  o.mean = dmean.download();
  o.norm = dnorm.download();
  auto y = dy.download();
  o.y.assign(y.begin() + static_cast<std::ptrdiff_t>(offset), y.end());
  auto ky = dky.download();
  o.ky.assign(ky.begin() + static_cast<std::ptrdiff_t>(offset), ky.end());
  return o;
}

void check_grouped(const grouped_out& g, const grouped_out& h) {
  CHECK(g.lo == h.lo);  // min, max, argmax and integer sums exactly
  CHECK(g.hi == h.hi);
  CHECK(g.at == h.at);
  CHECK(g.kat == h.kat);
  CHECK(g.ksum == h.ksum);
  CHECK(g.span == h.span);
  CHECK(g.ky == h.ky);
  // Float sums in another order (rows_test's bound above, relative).
  check_relative(g.s, h.s, 1e-5);
  check_relative(g.mean, h.mean, 1e-5);
  check_relative(g.norm, h.norm, 1e-5);
  check_relative(g.y, h.y, 1e-4);
}

}  // namespace

TEST_CASE("a row group runs every reduction and its kernels as the host does", "[cuda][rows][sanitize]") {
  for (const auto sh : shapes)
    for (const std::size_t offset : {0, 1}) {
      INFO("rows " << sh.rows << ", cols " << sh.cols << ", offset " << offset);
      const auto x = data(sh.rows * sh.cols, 11), col = data(sh.rows, 12), row = data(sh.cols, 13);
      std::vector<std::int32_t> k(sh.rows * sh.cols);
      for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::int32_t>((i * 7919) % 97) - 48;
      const auto host = run_grouped(grouped, false, sh, 0, x, k, col, row);
      check_grouped(run_grouped(grouped, true, sh, offset, x, k, col, row), host);
      // The same ops apart (sd::no_fusion): the row kernels, not a group.
      check_grouped(run_grouped(apart, true, sh, offset, x, k, col, row), host);
    }
}

TEST_CASE("a softmax row group over rows longer than a block's vectors", "[cuda][rows]") {
  // C columns: rows off 16 bytes, the scalar loop; C - 5 (20480): 16-byte
  // loads, the four-vector loop once and the one-vector loop once per thread.
  const shape sh{3, 4 * 1024 * 4 + 4 * 1024 + 5};
  const std::size_t R = sh.rows, C = sh.cols;
  for (const std::size_t cols : {C, C - 5}) {
    INFO("cols " << cols);
    const auto x = data(R * cols, 14), gamma = data(cols, 7), beta = data(cols, 8);
    std::vector<float> hsoft(R * cols), hnorm(R * cols);
    sd::host_executor hx;
    hx.run(softmax_layernorm, sd::bind("x", x.data(), R, cols), sd::bind("gamma", gamma.data(), cols),
           sd::bind("beta", beta.data(), cols), sd::bind("soft", hsoft.data(), R, cols),
           sd::bind("norm", hnorm.data(), R, cols));
    device_buffer<float> dx(x), dgamma(gamma), dbeta(beta), dsoft(R * cols), dnorm(R * cols);
    sd::cuda_executor ex;
    ex.run(softmax_layernorm, sd::bind("x", dx.cget(), R, cols), sd::bind("gamma", dgamma.cget(), cols),
           sd::bind("beta", dbeta.cget(), cols), sd::bind("soft", dsoft.get(), R, cols),
           sd::bind("norm", dnorm.get(), R, cols));
    check_relative(dsoft.download(), hsoft, 1e-5);
    check_relative(dnorm.download(), hnorm, 1e-4);
  }
}

namespace {

// The softmax with its exponential in a matrix temp: recomputed inside the
// group (passes/row_groups.hpp, inline_row_temps), never stored.
constexpr auto softmax_temp = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, cols);
  auto y = p.output<float>("y", rows, cols);
  auto m = p.temp<float>("m", rows);
  auto e = p.temp<float>("e", rows, cols);
  auto s = p.temp<float>("s", rows);
  m = sd::max(x, cols);
  e = sd::exp(x - m);
  s = sd::sum(e, cols);
  y = e / s;
});
static_assert(sd::cuda_detail::group_count(softmax_temp.plan()) == 1);
static_assert(softmax_temp.plan().slot_count() == 2);  // m and s

}  // namespace

TEST_CASE("a softmax whose exponential is a matrix temp runs as one group", "[cuda][rows][sanitize]") {
  for (const auto sh : shapes) {
    INFO("rows " << sh.rows << ", cols " << sh.cols);
    const std::size_t R = sh.rows, C = sh.cols;
    const auto x = data(R * C, 15);
    std::vector<float> hy(R * C);
    sd::host_executor hx;
    hx.run(softmax_temp, sd::bind("x", x.data(), R, C), sd::bind("y", hy.data(), R, C));
    device_buffer<float> dx(x), dy(R * C);
    sd::cuda_executor ex;
    ex.run(softmax_temp, sd::bind("x", dx.cget(), R, C), sd::bind("y", dy.get(), R, C));
    check_relative(dy.download(), hy, 1e-5);
  }
}

namespace {

// --- a row group's max and sum of exp(x - max) folded into one pass ------------------
// (row_group.cuh's folds_into_max and run_max_sum)

template <class Plan>
constexpr int folded_pairs(const Plan& plan) {
  int n = 0;
  for (std::size_t i = 0; i + 1 < plan.ops.size(); ++i)
    n += plan.ops[i].kind == sd::op_kind::step && plan.ops[i + 1].kind == sd::op_kind::step &&
         plan.ops[i + 1].group == 0 &&
         sd::cuda_detail::folds_into_max(plan.ir, plan.ops[i].stmt, plan.ops[i + 1].stmt);
  return n;
}
static_assert(folded_pairs(softmax_layernorm.plan()) == 1);  // the softmax's, not the layer norm's means
static_assert(folded_pairs(softmax_temp.plan()) == 1);       // the exponential recomputed in the sum
static_assert(folded_pairs(grouped.plan()) == 0);

// top and total kept as outputs, so that both are compared.
template <class T>
constexpr auto softmax_stats_body = [](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<T>("x", rows, cols);
  auto y = p.output<T>("y", rows, cols);
  auto top = p.output<T>("top", rows);
  auto total = p.output<T>("total", rows);
  top = sd::max(x * 2, cols);
  total = sd::sum(sd::exp(x * 2 - top), cols);
  y = sd::exp(x * 2 - top) / total;
};
constexpr auto softmax_stats = sd::program(softmax_stats_body<float>);
constexpr auto softmax_stats_double = sd::program(softmax_stats_body<double>);
static_assert(folded_pairs(softmax_stats.plan()) == 1);
static_assert(folded_pairs(softmax_stats_double.plan()) == 1);

// Not folded: the sum's expression is not the max's (x against x * 2), or
// its exponential is not of E - max.
constexpr auto not_folded = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, cols);
  auto top = p.output<float>("top", rows);
  auto total = p.output<float>("total", rows);
  auto other = p.output<float>("other", rows);
  top = sd::max(x * 2, cols);
  total = sd::sum(sd::exp(x - top), cols);
  other = sd::sum(sd::exp(top - x * 2), cols);
});
static_assert(sd::cuda_detail::group_count(not_folded.plan()) == 1);
static_assert(folded_pairs(not_folded.plan()) == 0);

template <class T>
bool same_or_both_nan(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}
template <class T>
void check_close_or_nan(const std::vector<T>& g, const std::vector<T>& h, double tolerance) {
  REQUIRE(g.size() == h.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    INFO("element " << i << ": gpu " << g[i] << " host " << h[i]);
    if (std::isnan(h[i]) || std::isinf(h[i])) {
      REQUIRE(same_or_both_nan(g[i], h[i]));
    } else {
      REQUIRE(std::fabs(static_cast<double>(g[i]) - h[i]) <=
              tolerance * (1 + std::fabs(static_cast<double>(h[i]))));
    }
  }
}

// Rows of special values, each pattern a row: plain data; -inf inside and
// first; all -inf; a NaN; all NaN; a +inf; rising values (the max grows at
// every step: s rescaled each time) up to 80 (exp(80) overflows a float,
// exp(x - max) does not); falling values; -inf and NaN only.
template <class T>
std::vector<T> special_rows(std::size_t cols, std::size_t& rows) {
  rows = 9;
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const auto base = data(rows * cols, 16);
  std::vector<T> x(base.begin(), base.end());
  auto at = [&](std::size_t r, std::size_t j) -> T& { return x[r * cols + j]; };
  for (std::size_t j = 0; j < cols; ++j) {
    if (j % 5 == 0) at(1, j) = -inf;
    at(2, j) = -inf;
    at(4, j) = nan;
    at(6, j) = static_cast<T>(40.0 * static_cast<double>(j + 1) / static_cast<double>(cols));
    at(7, j) = static_cast<T>(40.0 - 40.0 * static_cast<double>(j) / static_cast<double>(cols));
    at(8, j) = j % 3 == 1 ? nan : -inf;
  }
  at(3, cols / 2) = nan;
  at(5, cols - 1) = inf;
  return x;
}

template <class T, class Program>
void check_softmax_stats(const Program& prog, std::size_t cols, std::size_t offset) {
  std::size_t R = 0;
  const auto x = special_rows<T>(cols, R);
  const std::size_t C = cols;
  std::vector<T> hy(R * C), htop(R), htotal(R);
  sd::host_executor hx;
  hx.run(prog, sd::bind("x", x.data(), R, C), sd::bind("y", hy.data(), R, C), sd::bind("top", htop.data(), R),
         sd::bind("total", htotal.data(), R));
  std::vector<T> xo(offset, T(0));
  xo.insert(xo.end(), x.begin(), x.end());
  device_buffer<T> dx(xo), dy(R * C + offset), dtop(R), dtotal(R);
  sd::cuda_executor ex;
  ex.run(prog, sd::bind("x", dx.cget() + offset, R, C), sd::bind("y", dy.get() + offset, R, C),
         sd::bind("top", dtop.get(), R), sd::bind("total", dtotal.get(), R));
  const auto gtop = dtop.download();
  for (std::size_t r = 0; r < R; ++r) {  // the max bit for bit
    INFO("row " << r);
    REQUIRE(same_or_both_nan(gtop[r], htop[r]));
  }
  check_close_or_nan(dtotal.download(), htotal, 1e-5);
  auto y = dy.download();
  y.erase(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(offset));
  check_close_or_nan(y, hy, 1e-5);
}

}  // namespace

TEST_CASE("a folded max and sum of exp keep the separate ops' values, special ones too",
          "[cuda][rows][sanitize]") {
  // Columns: one; off 4 (the scalar loop); the one-vector loop; the
  // four-vector loop and both others; rows off 16 bytes (offset 1: scalar).
  for (const std::size_t cols :
       {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{20485}, std::size_t{20480}})
    for (const std::size_t offset : {0, 1}) {
      INFO("cols " << cols << ", offset " << offset);
      check_softmax_stats<float>(softmax_stats, cols, offset);
      check_softmax_stats<double>(softmax_stats_double, cols, offset);
    }
}

namespace {

// Values per row, per column and 0-d read inside a group's reduction and its
// last kernel (row_group.cuh's in_row moves): each read at its own index.
constexpr auto gathers_body = [](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, cols);
  auto col = p.input<float>("col", rows);
  auto row = p.input<float>("row", cols);
  auto s0 = p.input<float>("s0", sd::scalar);
  auto d = p.output<float>("d", rows);
  auto y = p.output<float>("y", rows, cols);
  d = sd::sum(x * row + col - s0, cols);
  y = x * row - d * col + s0;
};
constexpr auto gathers = sd::program(gathers_body);
constexpr auto gathers_apart = sd::program<sd::no_fusion>(gathers_body);
static_assert(sd::cuda_detail::group_count(gathers.plan()) == 1);

}  // namespace

TEST_CASE("a row group reads rows, columns and 0-d values at their own index", "[cuda][rows][sanitize]") {
  for (const auto sh : shapes)
    for (const std::size_t offset : {0, 1}) {
      INFO("rows " << sh.rows << ", cols " << sh.cols << ", offset " << offset);
      const std::size_t R = sh.rows, C = sh.cols;
      const auto x = data(R * C, 17), col = data(R, 18), row = data(C, 19);
      const float s0 = 1.25f;
      std::vector<float> hd(R), hy(R * C);
      sd::host_executor hx;
      hx.run(gathers, sd::bind("x", x.data(), R, C), sd::bind("col", col.data(), R),
             sd::bind("row", row.data(), C), sd::bind("s0", &s0, 1), sd::bind("d", hd.data(), R),
             sd::bind("y", hy.data(), R, C));
      std::vector<float> xo(offset, 0.0f), rowo(offset, 0.0f);
      xo.insert(xo.end(), x.begin(), x.end());
      rowo.insert(rowo.end(), row.begin(), row.end());
      for (const bool grouped_run : {true, false}) {
        INFO((grouped_run ? "group" : "apart"));
        device_buffer<float> dx(xo), dcol(col), drow(rowo), ds0(std::vector<float>{s0}), dd(R),
            dy(R * C + offset);
        sd::cuda_executor ex;
        const auto run = [&](const auto& prog) {
          ex.run(prog, sd::bind("x", dx.cget() + offset, R, C), sd::bind("col", dcol.cget(), R),
                 sd::bind("row", drow.cget() + offset, C), sd::bind("s0", ds0.cget(), 1),
                 sd::bind("d", dd.get(), R), sd::bind("y", dy.get() + offset, R, C));
        };
        if (grouped_run)
          run(gathers);
        else
          run(gathers_apart);
        check_relative(dd.download(), hd, 1e-5);
        auto y = dy.download();
        y.erase(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(offset));
        check_relative(y, hy, 1e-4);
      }
    }
}
