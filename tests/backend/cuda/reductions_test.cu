// Reductions and scans on the GPU (reductions.cuh: CUB) against the host
// executor (backend/host/reduce_scan.hpp) in the same test, for every
// reduction and scan over float, double, int32_t, int64_t, bool, __half and
// __nv_bfloat16 inputs at sizes 0 (sum, mean and the scans: min, max and
// argmax of nothing are refused), 1, 7, 1000 and 2^20 + 3; over chunks; of
// fused expressions; read by a consumer on another stream; replayed from a
// CUDA graph.
//
// Agreement: integers, bool, min, max and argmax exactly, NaN as NaN
// (reduce_ops.hpp fixes their meaning, and the order of combination cannot
// change it). Float sums (sum, mean, norm, the scans) against a reference
// summed in double (exact for these data) and against the host:
// - a GPU reduction within 2 * log2(n) * eps * sum|x| of the reference (eps
//   of the accumulation type; CUB adds in a tree, whose rounding error grows
//   with log2(n)), divided by n for mean; for norm the bound on the sum of
//   squares divided by the norm;
// - the host within n * eps * sum|x| (it adds in one loop, in order: the
//   bound of any order), so GPU and host within the sum of the two bounds;
// - a scan's element k within (k + 1) * eps * (sum of |x| up to k), GPU and
//   host alike (CUB's scan chains tiles in order);
// - plus the rounding of the result type (a __half or bf16 sum is rounded
//   once more), eps of that type times the value.
// The data are multiples of 1/4 below 8 in magnitude: most float sums are
// exact, and the bounds are there for the rest (the host's sequential float
// sum of 2^20 products drifted 1e-3 relative from the exact sum where CUB's
// tree stayed exact).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
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
#include <type_traits>
#include <vector>

#include "device_buffer.hpp"

using gpu_test::device_buffer;
using gpu_test::host_t;

namespace {

template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, __half>)
    return static_cast<double>(__half2float(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return static_cast<double>(__bfloat162float(v));
  else
    return static_cast<double>(v);
}
template <class T>
host_t<T> from_double(double v) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bool>)
    return v != 0 ? 1 : 0;
  else
    return static_cast<T>(v);
}

template <class T>
constexpr bool is_float_v =
    std::is_floating_point_v<T> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
// ir/step.hpp: integers and bool sum to int64_t, floating types keep theirs;
// they accumulate in int64_t, float (16-bit and float) or double.
template <class T>
using sum_t = std::conditional_t<is_float_v<T>, T, std::int64_t>;
template <class T>
using acc_t = std::conditional_t<is_float_v<T>, std::conditional_t<std::is_same_v<T, double>, double, float>,
                                 std::int64_t>;

// Multiples of 1/4 in (-8, 8) for floating types, small integers otherwise;
// every 13th element repeats the running maximum's value (ties for argmax).
template <class T>
std::vector<host_t<T>> data(std::size_t n, int salt) {
  std::vector<host_t<T>> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const long long k =
        static_cast<long long>((i * 2654435761u + static_cast<std::size_t>(salt) * 97) % 61) - 30;
    if constexpr (std::is_same_v<T, bool>)
      v[i] = k > 0 ? 1 : 0;
    else if constexpr (is_float_v<T>)
      v[i] = from_double<T>(static_cast<double>(k) * 0.25);
    else
      v[i] = from_double<T>(static_cast<double>(k * 1000003));
  }
  return v;
}

// Bit for bit, but any NaN equals any NaN (the GPU's fminf / fmaxf return
// the canonical NaN, the host one of its operands).
template <class T>
bool same_bits(host_t<T> a, host_t<T> b) {
  if constexpr (is_float_v<T>)
    if (std::isnan(to_double<T>(a)) && std::isnan(to_double<T>(b))) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

template <class T>
double eps_of() {
  return static_cast<double>(std::numeric_limits<acc_t<T>>::epsilon());
}
// The relative rounding of a result of type R.
template <class R>
double result_eps() {
  if constexpr (std::is_same_v<R, __half>)
    return 1.0 / 1024;
  else if constexpr (std::is_same_v<R, __nv_bfloat16>)
    return 1.0 / 128;
  else if constexpr (std::is_floating_point_v<R>)
    return static_cast<double>(std::numeric_limits<R>::epsilon());
  else
    return 0;
}
double log2n(std::size_t n) { return std::log2(static_cast<double>(n < 2 ? 2 : n)); }

// |g - h| within `bound`, or both NaN.
void check_close(double g, double h, double bound) {
  if (std::isnan(h)) {
    REQUIRE(std::isnan(g));
    return;
  }
  INFO("gpu " << g << " host " << h << " bound " << bound);
  REQUIRE(std::fabs(g - h) <= bound);
}

// A reduction's GPU result g and host result h against the reference `ref`:
// the GPU within `gpu_bound`, the host within `host_bound`, plus the result's
// rounding (see the top of this file).
void check_reduction(double g, double h, double ref, double gpu_bound, double host_bound, double reps) {
  const double round = std::fabs(ref) * reps;
  check_close(g, ref, gpu_bound + round);
  check_close(g, h, gpu_bound + host_bound + 2 * round);
}
// Scans: element k of GPU and host against the reference prefix.
template <class R, class G, class X>
void check_scan(const G& g, const G& h, const std::vector<X>& x, double eps, bool exclusive, double scale = 1,
                double shift = 0) {
  double ref = 0, abs = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const double v = to_double<X>(x[k]) * scale + shift;
    if (!exclusive) {
      ref += v;
      abs += std::fabs(v);
    }
    const double bound = static_cast<double>(k + 1) * eps * abs + std::fabs(ref) * result_eps<R>();
    check_close(to_double<R>(g[k]), ref, bound);
    check_close(to_double<R>(g[k]), to_double<R>(h[k]), 2 * bound);
    if (exclusive) {
      ref += v;
      abs += std::fabs(v);
    }
  }
}

// Every reduction and scan of one input type. mean and norm need a floating input.
template <class T>
constexpr auto all_steps = sd::program([](sd::builder& p) {
  auto x = p.input<T>("x");
  auto s = p.output<sum_t<T>>("s", sd::scalar);
  auto inc = p.output<sum_t<T>>("inc");
  auto exc = p.output<sum_t<T>>("exc");
  auto mn = p.output<T>("mn", sd::scalar);
  auto mx = p.output<T>("mx", sd::scalar);
  auto am = p.output<std::int64_t>("am", sd::scalar);
  s = sd::sum(x);
  inc = sd::inclusive_sum(x);
  exc = sd::exclusive_sum(x);
  mn = sd::min(x);
  mx = sd::max(x);
  am = sd::argmax(x);
  if constexpr (is_float_v<T>) {
    auto mu = p.output<T>("mu", sd::scalar);
    auto nn = p.output<T>("nn", sd::scalar);
    mu = sd::mean(x);
    nn = sd::norm(x);
  }
});
// What an empty input allows: sum 0, mean NaN, empty scans.
template <class T>
constexpr auto empty_steps = sd::program([](sd::builder& p) {
  auto x = p.input<T>("x");
  auto s = p.output<sum_t<T>>("s", sd::scalar);
  auto inc = p.output<sum_t<T>>("inc");
  auto exc = p.output<sum_t<T>>("exc");
  s = sd::sum(x);
  inc = sd::inclusive_sum(x);
  exc = sd::exclusive_sum(x);
  if constexpr (is_float_v<T>) {
    auto mu = p.output<T>("mu", sd::scalar);
    mu = sd::mean(x);
  }
});

// Host buffers of one run's outputs.
template <class T>
struct outputs {
  std::vector<host_t<sum_t<T>>> s, inc, exc;
  std::vector<host_t<T>> mn, mx, mu, nn;
  std::vector<std::int64_t> am;
  explicit outputs(std::size_t n) : s(1), inc(n), exc(n), mn(1), mx(1), mu(1), nn(1), am(1, -7) {}
};

template <class T>
void check_outputs(const outputs<T>& g, const outputs<T>& h, const std::vector<host_t<T>>& x, bool full) {
  const std::size_t n = x.size();
  double abs_sum = 0, sq_sum = 0;
  for (auto v : x) {
    abs_sum += std::fabs(to_double<T>(v));
    sq_sum += to_double<T>(v) * to_double<T>(v);
  }
  const double eps = eps_of<T>();
  if constexpr (is_float_v<T>) {
    double ref = 0;
    for (auto v : x) ref += to_double<T>(v);
    const double gpu = 2 * log2n(n) * eps * abs_sum, host = static_cast<double>(n) * eps * abs_sum;
    const double reps = result_eps<T>();
    check_reduction(to_double<T>(g.s[0]), to_double<T>(h.s[0]), ref, gpu, host, reps);
    if (n > 0) {
      const double dn = static_cast<double>(n);
      check_reduction(to_double<T>(g.mu[0]), to_double<T>(h.mu[0]), ref / dn, gpu / dn, host / dn, reps);
    }
    check_scan<T>(g.inc, h.inc, x, eps, false);
    check_scan<T>(g.exc, h.exc, x, eps, true);
    if (full) {
      const double norm = std::sqrt(sq_sum);
      const double over = norm > 0 ? norm : 1;
      check_reduction(to_double<T>(g.nn[0]), to_double<T>(h.nn[0]), norm, 2 * log2n(n) * eps * sq_sum / over,
                      static_cast<double>(n) * eps * sq_sum / over, reps);
    }
  } else {
    REQUIRE(g.s[0] == h.s[0]);
    REQUIRE(g.inc == h.inc);
    REQUIRE(g.exc == h.exc);
  }
  if (full) {
    REQUIRE(same_bits<T>(g.mn[0], h.mn[0]));
    REQUIRE(same_bits<T>(g.mx[0], h.mx[0]));
    REQUIRE(g.am[0] == h.am[0]);
  }
}

template <class T>
void check_all_steps(std::size_t n) {
  INFO("n = " << n);
  const auto x = data<T>(n, static_cast<int>(n % 7));
  outputs<T> h(n), g(n);
  const bool full = n > 0;
  {
    sd::host_executor hx;
    std::vector<sd::binding> b = {sd::bind("x", reinterpret_cast<const T*>(x.data()), n),
                                  sd::bind("s", reinterpret_cast<sum_t<T>*>(h.s.data()), 1),
                                  sd::bind("inc", reinterpret_cast<sum_t<T>*>(h.inc.data()), n),
                                  sd::bind("exc", reinterpret_cast<sum_t<T>*>(h.exc.data()), n)};
    if (full) {
      b.push_back(sd::bind("mn", reinterpret_cast<T*>(h.mn.data()), 1));
      b.push_back(sd::bind("mx", reinterpret_cast<T*>(h.mx.data()), 1));
      b.push_back(sd::bind("am", h.am.data(), 1));
      if constexpr (is_float_v<T>) b.push_back(sd::bind("nn", reinterpret_cast<T*>(h.nn.data()), 1));
    }
    if constexpr (is_float_v<T>) b.push_back(sd::bind("mu", reinterpret_cast<T*>(h.mu.data()), 1));
    if (full)
      hx.run(all_steps<T>, sd::binding_list(b.data(), b.size()));
    else
      hx.run(empty_steps<T>, sd::binding_list(b.data(), b.size()));
  }
  device_buffer<T> dx(x);
  device_buffer<sum_t<T>> ds(1), dinc(n), dexc(n);
  device_buffer<T> dmn(1), dmx(1), dmu(1), dnn(1);
  device_buffer<std::int64_t> dam(1);
  sd::cuda_executor ex;
  std::vector<sd::binding> b = {sd::bind("x", dx.cget(), n), sd::bind("s", ds.get(), 1),
                                sd::bind("inc", dinc.get(), n), sd::bind("exc", dexc.get(), n)};
  if (full) {
    b.push_back(sd::bind("mn", dmn.get(), 1));
    b.push_back(sd::bind("mx", dmx.get(), 1));
    b.push_back(sd::bind("am", dam.get(), 1));
    if constexpr (is_float_v<T>) b.push_back(sd::bind("nn", dnn.get(), 1));
  }
  if constexpr (is_float_v<T>) b.push_back(sd::bind("mu", dmu.get(), 1));
  for (int round = 0; round < 2; ++round) {  // the second run takes the prepared run
    if (full)
      ex.run(all_steps<T>, sd::binding_list(b.data(), b.size()));
    else
      ex.run(empty_steps<T>, sd::binding_list(b.data(), b.size()));
    g.s = ds.download();
    g.inc = dinc.download();
    g.exc = dexc.download();
    g.mn = dmn.download();
    g.mx = dmx.download();
    g.am = dam.download();
    g.mu = dmu.download();
    g.nn = dnn.download();
    check_outputs<T>(g, h, x, full);
  }
  if (!full) {
    REQUIRE(to_double<sum_t<T>>(g.s[0]) == 0);
    if constexpr (is_float_v<T>) REQUIRE(std::isnan(to_double<T>(g.mu[0])));
  }
}

template <class T>
void check_every_size() {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}})
    check_all_steps<T>(n);
}

}  // namespace

TEST_CASE("every reduction and scan over every input type, small sizes", "[cuda][reduce][sanitize]") {
  check_every_size<float>();
  check_every_size<double>();
  check_every_size<std::int32_t>();
  check_every_size<std::int64_t>();
  check_every_size<bool>();
  check_every_size<__half>();
  check_every_size<__nv_bfloat16>();
}

TEST_CASE("every reduction and scan over every input type, 2^20 + 3 elements", "[cuda][reduce]") {
  constexpr std::size_t n = (std::size_t{1} << 20) + 3;
  check_all_steps<float>(n);
  check_all_steps<double>(n);
  check_all_steps<std::int32_t>(n);
  check_all_steps<std::int64_t>(n);
  check_all_steps<bool>(n);
  check_all_steps<__half>(n);
  check_all_steps<__nv_bfloat16>(n);
}

namespace {

// Fused inputs: a product, a cast, a broadcast param, argmax of an expression.
constexpr auto fused = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.input<float>("y");
  auto h = p.input<__half>("h");
  auto k = p.param<float>("k");
  auto dot = p.output<float>("dot", sd::scalar);
  auto wide = p.output<double>("wide", sd::scalar);
  auto hs = p.output<float>("hs", sd::scalar);
  auto am = p.output<std::int64_t>("am", sd::scalar);
  auto sc = p.output<float>("sc");
  auto nn = p.output<float>("nn", sd::scalar);
  dot = sd::sum(x * y);
  wide = sd::sum(sd::cast<double>(x) * 3);
  hs = sd::sum(sd::cast<float>(h) + k);
  am = sd::argmax(x - y);
  sc = sd::exclusive_sum(x * k);
  nn = sd::norm(x + y);
});

template <class Program>
std::vector<double> run_fused(const Program& prog, bool gpu, const std::vector<float>& x,
                              const std::vector<float>& y, const std::vector<__half>& hv, float k) {
  const std::size_t n = x.size();
  std::vector<float> dot(1), hs(1), sc(n), nn(1);
  std::vector<double> wide(1);
  std::vector<std::int64_t> am(1);
  if (!gpu) {
    sd::host_executor hx;
    hx.run(prog, sd::bind("x", x.data(), n), sd::bind("y", y.data(), n), sd::bind("h", hv.data(), n),
           sd::bind("k", k), sd::bind("dot", dot.data(), 1), sd::bind("wide", wide.data(), 1),
           sd::bind("hs", hs.data(), 1), sd::bind("am", am.data(), 1), sd::bind("sc", sc.data(), n),
           sd::bind("nn", nn.data(), 1));
  } else {
    device_buffer<float> dx(x), dy(y), ddot(1), dhs(1), dsc(n), dnn(1);
    device_buffer<__half> dh(hv);
    device_buffer<double> dwide(1);
    device_buffer<std::int64_t> dam(1);
    sd::cuda_executor ex;
    ex.run(prog, sd::bind("x", dx.cget(), n), sd::bind("y", dy.cget(), n), sd::bind("h", dh.cget(), n),
           sd::bind("k", k), sd::bind("dot", ddot.get(), 1), sd::bind("wide", dwide.get(), 1),
           sd::bind("hs", dhs.get(), 1), sd::bind("am", dam.get(), 1), sd::bind("sc", dsc.get(), n),
           sd::bind("nn", dnn.get(), 1));
    dot = ddot.download();
    wide = dwide.download();
    hs = dhs.download();
    am = dam.download();
    sc = dsc.download();
    nn = dnn.download();
  }
  std::vector<double> out = {dot[0], wide[0], hs[0], static_cast<double>(am[0]), nn[0]};
  for (auto v : sc) out.push_back(v);
  return out;
}

}  // namespace

TEST_CASE("fused inputs: sum(x * y), sums of casts, argmax(x - y), a scan of x * k",
          "[cuda][reduce][sanitize]") {
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, (std::size_t{1} << 20) + 3}) {
    INFO("n = " << n);
    const auto xd = data<float>(n, 1), yd = data<float>(n, 2);
    std::vector<float> x(xd.begin(), xd.end()), y(yd.begin(), yd.end());
    std::vector<__half> hv(n);
    for (std::size_t i = 0; i < n; ++i) hv[i] = __float2half(y[i]);
    const float k = 0.5f;
    const auto h = run_fused(fused, false, x, y, hv, k);
    const auto g = run_fused(fused, true, x, y, hv, k);
    // References in double (each term is exact in float).
    double abs_xy = 0, abs_x = 0, abs_h = 0, sq = 0, dot = 0, wide = 0, hs = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double xi = x[i], yi = y[i];
      dot += xi * yi;
      abs_xy += std::fabs(xi * yi);
      wide += xi * 3;
      abs_x += std::fabs(xi);
      hs += yi + k;
      abs_h += std::fabs(yi + k);
      sq += (xi + yi) * (xi + yi);
    }
    const double b = 2 * log2n(n), dn = static_cast<double>(n);
    const double feps = std::numeric_limits<float>::epsilon(), deps = std::numeric_limits<double>::epsilon();
    check_reduction(g[0], h[0], dot, b * feps * abs_xy, dn * feps * abs_xy, feps);
    check_reduction(g[1], h[1], wide, b * deps * abs_x * 3, dn * deps * abs_x * 3, deps);
    check_reduction(g[2], h[2], hs, b * feps * abs_h, dn * feps * abs_h, feps);
    REQUIRE(g[3] == h[3]);
    const double norm = std::sqrt(sq), over = norm > 0 ? norm : 1;
    check_reduction(g[4], h[4], norm, b * feps * sq / over, dn * feps * sq / over, feps);
    const std::vector<double> gs(g.begin() + 5, g.end()), hsc(h.begin() + 5, h.end());
    check_scan<double>(gs, hsc, x, feps, true, k);
  }
}

namespace {
constexpr auto argmax_only = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto am = p.output<std::int64_t>("am", sd::scalar);
  auto mx = p.output<float>("mx", sd::scalar);
  auto mn = p.output<float>("mn", sd::scalar);
  am = sd::argmax(x);
  mx = sd::max(x);
  mn = sd::min(x);
});

// argmax, max and min of `x` on the GPU, each checked against the host.
void check_argmax(const std::vector<float>& x) {
  const std::size_t n = x.size();
  INFO("n = " << n << ", x[0] = " << x[0]);
  std::int64_t ham = -1;
  float hmx = 0, hmn = 0;
  sd::host_executor hx;
  hx.run(argmax_only, sd::bind("x", x.data(), n), sd::bind("am", &ham, 1), sd::bind("mx", &hmx, 1),
         sd::bind("mn", &hmn, 1));
  device_buffer<float> dx(x), dmx(1), dmn(1);
  device_buffer<std::int64_t> dam(1);
  sd::cuda_executor ex;
  ex.run(argmax_only, sd::bind("x", dx.cget(), n), sd::bind("am", dam.get(), 1), sd::bind("mx", dmx.get(), 1),
         sd::bind("mn", dmn.get(), 1));
  REQUIRE(dam.download()[0] == ham);
  REQUIRE(same_bits<float>(dmx.download()[0], hmx));
  REQUIRE(same_bits<float>(dmn.download()[0], hmn));
}
}  // namespace

TEST_CASE("argmax, max and min with NaN, -0, +0 and ties", "[cuda][reduce][sanitize]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Hand-written cases, each against the host and against the rule.
  check_argmax({nan, 1.0f, 3.0f, nan, 3.0f});  // NaN ignored; the first of equal maxima
  check_argmax({nan, nan, nan});               // all NaN: index 0
  check_argmax({-0.0f, 0.0f, -0.0f});          // +0 above -0
  check_argmax({0.0f, -0.0f});                 // +0 first
  check_argmax({-0.0f, -1.0f, -0.0f});         // equal -0: the first
  // Large: a maximum at three places far apart (different blocks), NaNs around.
  for (std::size_t n : {std::size_t{1000}, (std::size_t{1} << 20) + 3}) {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = (i % 5 == 0) ? nan : static_cast<float>(i % 1000) * 0.001f;
    x[n / 2 + 1] = 7.0f;
    x[n - 2] = 7.0f;
    x[n / 3 + 1] = 7.0f;
    check_argmax(x);
    for (auto& v : x) v = (v == 7.0f) ? 0.0f : (std::isnan(v) ? v : -0.0f);  // zeros of both signs
    x[n - 1] = 0.0f;
    check_argmax(x);
  }
  // The GPU's answers by the rule, not only by agreement.
  std::vector<float> x = {nan, 1.0f, 3.0f, nan, 3.0f};
  device_buffer<float> dx(x), dmx(1), dmn(1);
  device_buffer<std::int64_t> dam(1);
  sd::cuda_executor ex;
  ex.run(argmax_only, sd::bind("x", dx.cget(), x.size()), sd::bind("am", dam.get(), 1),
         sd::bind("mx", dmx.get(), 1), sd::bind("mn", dmn.get(), 1));
  REQUIRE(dam.download()[0] == 2);
  REQUIRE(dmx.download()[0] == 3.0f);
  REQUIRE(dmn.download()[0] == 1.0f);
}

namespace {
// Chunks: each half of x summed and scanned by its own step, on two streams.
constexpr auto halves = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto s0 = p.output<float>("s0", sd::scalar);
  auto s1 = p.output<double>("s1", sd::scalar);
  auto c = p.output<float>("c");
  auto side = p.stream("side");
  s0 = sd::sum(x.chunk(0, 2));
  c.chunk(0, 2) = sd::inclusive_sum(x.chunk(0, 2));
  sd::with_stream(side, [&] {
    s1 = sd::sum(x.chunk(1, 2) * 2);
    c.chunk(1, 2) = sd::inclusive_sum(x.chunk(1, 2) + 1);
  });
});
}  // namespace

TEST_CASE("reductions and scans over chunks", "[cuda][reduce][sanitize]") {
  for (std::size_t n : {std::size_t{2}, std::size_t{2006}, (std::size_t{1} << 20) + 6}) {
    INFO("n = " << n);
    const auto x = data<float>(n, 3);
    float hs0 = 0;
    double hs1 = 0;
    std::vector<float> hc(n);
    sd::host_executor hx;
    hx.run(halves, sd::bind("x", x.data(), n), sd::bind("s0", &hs0, 1), sd::bind("s1", &hs1, 1),
           sd::bind("c", hc.data(), n));
    device_buffer<float> dx(x), ds0(1), dc(n);
    device_buffer<double> ds1(1);
    sd::cuda_executor ex;
    ex.run(halves, sd::bind("x", dx.cget(), n), sd::bind("s0", ds0.get(), 1), sd::bind("s1", ds1.get(), 1),
           sd::bind("c", dc.get(), n));
    double abs0 = 0, abs1 = 0, ref0 = 0, ref1 = 0;
    for (std::size_t i = 0; i < n / 2; ++i) {
      abs0 += std::fabs(x[i]);
      ref0 += x[i];
    }
    for (std::size_t i = n / 2; i < n; ++i) {
      abs1 += std::fabs(x[i]);
      ref1 += x[i] * 2.0;
    }
    const double eps = std::numeric_limits<float>::epsilon(), half = static_cast<double>(n / 2);
    const double b = 2 * log2n(n / 2) * eps;
    check_reduction(ds0.download()[0], hs0, ref0, b * abs0, half * eps * abs0, eps);
    check_reduction(ds1.download()[0], hs1, ref1, b * 2 * abs1, half * eps * 2 * abs1, eps);
    const auto gc = dc.download();
    const std::vector<float> x0(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n / 2)),
        x1(x.begin() + static_cast<std::ptrdiff_t>(n / 2), x.end());
    const std::vector<float> g0(gc.begin(), gc.begin() + static_cast<std::ptrdiff_t>(n / 2)),
        g1(gc.begin() + static_cast<std::ptrdiff_t>(n / 2), gc.end());
    const std::vector<float> h0(hc.begin(), hc.begin() + static_cast<std::ptrdiff_t>(n / 2)),
        h1(hc.begin() + static_cast<std::ptrdiff_t>(n / 2), hc.end());
    check_scan<float>(g0, h0, x0, eps, false);
    check_scan<float>(g1, h1, x1, eps, false, 1, 1);
  }
}

namespace {
// The 0-d sum read by a consumer on another stream: sd::automatic records an
// event after the reduction and the side stream waits for it (no host sync).
constexpr auto normalise = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto z = p.output<float>("z");
  auto s = p.temp<float>("s", sd::scalar);
  auto side = p.stream("side");
  s = sd::sum(x);
  sd::with_stream(side, [&] { z = x / s; });
});

std::vector<float> normalise_on_host(const std::vector<float>& x) {
  std::vector<float> z(x.size());
  sd::host_executor hx;
  hx.run(normalise, sd::bind("x", x.data(), x.size()), sd::bind("z", z.data(), z.size()));
  return z;
}
}  // namespace

TEST_CASE("a consumer of the 0-d result on another stream, and a captured graph replayed",
          "[cuda][reduce][graph][sanitize]") {
  STATIC_REQUIRE(normalise.plan().step_count() == 1);
  STATIC_REQUIRE(normalise.plan().records("main") >= 1);
  const std::size_t n = 4099;
  auto x = data<float>(n, 5);
  for (auto& v : x) v = std::fabs(v) + 1;  // a positive sum
  device_buffer<float> dx(x), dz(n);
  sd::cuda_executor ex;
  ex.run(normalise, sd::bind("x", dx.cget(), n), sd::bind("z", dz.get(), n));
  {
    const auto h = normalise_on_host(x);
    const auto g = dz.download();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(g[i] == Approx(h[i]).epsilon(1e-6));
  }
  // The graph: captured once, replayed with new input; CUB's storage is the graph's workspace.
  auto graph = sd::capture(ex, normalise, sd::bind("x", dx.cget(), n), sd::bind("z", dz.get(), n));
  for (int round = 0; round < 3; ++round) {
    for (auto& v : x) v += 1;
    dx.upload(x);
    graph.launch(ex.main_stream());
    const auto h = normalise_on_host(x);
    const auto g = dz.download();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(g[i] == Approx(h[i]).epsilon(1e-6));
  }
}

TEST_CASE("every reduction and scan captured into a graph and replayed", "[cuda][reduce][graph]") {
  const std::size_t n = 100003;
  auto x = data<float>(n, 4);
  device_buffer<float> dx(x), ds(1), dinc(n), dexc(n), dmn(1), dmx(1), dmu(1), dnn(1);
  device_buffer<std::int64_t> dam(1);
  sd::cuda_executor ex;
  auto graph =
      sd::capture(ex, all_steps<float>, sd::bind("x", dx.cget(), n), sd::bind("s", ds.get(), 1),
                  sd::bind("inc", dinc.get(), n), sd::bind("exc", dexc.get(), n),
                  sd::bind("mn", dmn.get(), 1), sd::bind("mx", dmx.get(), 1), sd::bind("am", dam.get(), 1),
                  sd::bind("mu", dmu.get(), 1), sd::bind("nn", dnn.get(), 1));
  for (int round = 0; round < 2; ++round) {
    x = data<float>(n, 10 + round);
    dx.upload(x);
    graph.launch(ex.main_stream());
    outputs<float> h(n), g(n);
    sd::host_executor hx;
    hx.run(all_steps<float>, sd::bind("x", x.data(), n), sd::bind("s", h.s.data(), 1),
           sd::bind("inc", h.inc.data(), n), sd::bind("exc", h.exc.data(), n), sd::bind("mn", h.mn.data(), 1),
           sd::bind("mx", h.mx.data(), 1), sd::bind("am", h.am.data(), 1), sd::bind("mu", h.mu.data(), 1),
           sd::bind("nn", h.nn.data(), 1));
    g.s = ds.download();
    g.inc = dinc.download();
    g.exc = dexc.download();
    g.mn = dmn.download();
    g.mx = dmx.download();
    g.am = dam.download();
    g.mu = dmu.download();
    g.nn = dnn.download();
    check_outputs<float>(g, h, x, true);
  }
}

namespace {
// A reduction and a scan of a temp a kernel wrote: the temp's slot and CUB's
// storage share the run's workspace (CUB's after the slots).
constexpr auto via_temp = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto t = p.temp<float>("t");
  auto s = p.output<float>("s", sd::scalar);
  auto c = p.output<float>("c");
  t = x * 2;
  s = sd::sum(t);
  c = sd::inclusive_sum(t);
});
}  // namespace

TEST_CASE("a reduction of a temp, in the executor's and in the caller's workspace",
          "[cuda][reduce][sanitize]") {
  STATIC_REQUIRE(via_temp.plan().slot_count() == 1);
  const std::size_t n = 4099;
  const auto x = data<float>(n, 6);
  float hs = 0;
  std::vector<float> hc(n);
  sd::host_executor hx;
  hx.run(via_temp, sd::bind("x", x.data(), n), sd::bind("s", &hs, 1), sd::bind("c", hc.data(), n));
  device_buffer<float> dx(x), ds(1), dc(n);
  device_buffer<unsigned char> workspace(std::size_t{8} << 20);
  sd::cuda_executor ex;
  const auto check = [&] {
    // Multiples of 1/2 below 16, 4099 of them: every sum is exact in float.
    REQUIRE(ds.download()[0] == hs);
    REQUIRE(dc.download() == hc);
  };
  ex.run(via_temp, sd::bind("x", dx.cget(), n), sd::bind("s", ds.get(), 1), sd::bind("c", dc.get(), n));
  check();
  // The caller's buffer must hold CUB's storage too: one that only holds the temp is refused.
  const std::size_t slot_bytes = via_temp.plan().workspace_bytes(sd::detail::array_view<std::size_t>(&n, 1));
  REQUIRE_THROWS_WITH(ex.run(via_temp, sd::bind("x", dx.cget(), n), sd::bind("s", ds.get(), 1),
                             sd::bind("c", dc.get(), n), sd::workspace_in(workspace.get(), slot_bytes)),
                      Catch::Contains("CUB's storage for the reductions and scans"));
  cudaMemset(ds.get(), 0, sizeof(float));
  cudaMemset(dc.get(), 0, n * sizeof(float));
  ex.run(via_temp, sd::bind("x", dx.cget(), n), sd::bind("s", ds.get(), 1), sd::bind("c", dc.get(), n),
         sd::workspace_in(workspace.get(), workspace.size()));
  check();
}
