// Matmuls on the GPU through cuBLASLt (backend/cuda/matmul.hpp) against the
// host executor and a double reference in the same test: every type pair
// (float, double, __half, __nv_bfloat16, and the 16-bit types into float),
// every transpose combination, odd shapes (1x1x1, extents off 8 and 16, no
// inner elements, no rows or columns, a tall-skinny product), the same
// executor re-binding new extents, two matmuls on two streams joined, a
// matmul into a temp read by a fused kernel, a captured graph replayed and
// rebound, the caller's workspace, operands off a 256-byte boundary, and a
// reduction of a product (CUB's storage and cuBLASLt's workspace in one run).
//
// The bound: both the GPU's product and the host executor's are compared
// with a reference computed in double from the same (exactly representable)
// operands. Adding k products in any order (cuBLASLt picks its own: tiles,
// split-K) errs by at most gamma_k * sum_p |a_ip b_pj| with gamma_k ~ k * u,
// u the accumulation type's unit roundoff (float: 2^-24, double: 2^-53); the
// products themselves are exact here (16-bit operands' products fit in a
// float, float operands' are rounded once: one more u), and the result is
// rounded once to c's type (u_c * |c|: half 2^-11, bf16 2^-8). So each element
// must satisfy |got - ref| <= (k + 2) * u * sum_p |a_ip b_pj| * (1 + u_c) + u_c * |ref|,
// which both backends meet, so they agree within twice that. A wrong
// transpose, layout or leading dimension misses it by orders of magnitude:
// the operands are not symmetric and their elements differ.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/backend/cuda/matmul.hpp>
#include <streamdsl/backend/cuda/reductions.cuh>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "device_buffer.hpp"

using gpu_test::device_buffer;

namespace {

// c = op(a) op(b): a over (m, k) or (k, m) read transposed, b over (k, n) or (n, k).
template <class T, class C, bool TA, bool TB>
constexpr auto product = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = TA ? p.input<T>("a", k, m) : p.input<T>("a", m, k);
  auto b = TB ? p.input<T>("b", n, k) : p.input<T>("b", k, n);
  auto c = p.output<C>("c", m, n);
  if constexpr (TA && TB)
    c = sd::matmul(sd::transpose(a), sd::transpose(b));
  else if constexpr (TA)
    c = sd::matmul(sd::transpose(a), b);
  else if constexpr (TB)
    c = sd::matmul(a, sd::transpose(b));
  else
    c = sd::matmul(a, b);
});

template <class T>
T from_double(double x) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half(static_cast<float>(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16(static_cast<float>(x));
  else
    return static_cast<T>(x);
}
template <class T>
double to_double(T x) {
  if constexpr (std::is_same_v<T, __half>)
    return static_cast<double>(__half2float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return static_cast<double>(__bfloat162float(x));
  else
    return static_cast<double>(x);
}

// j / 64 for j in [-128, 128], from a hash of (i, salt): exact in every type
// (at most 8 significant bits), different from element to element.
template <class T>
std::vector<T> operand(std::size_t n, unsigned salt) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto h = static_cast<std::uint32_t>((i + 1) * 2654435761u) ^ (salt * 0x9e3779b9u);
    v[i] = from_double<T>(static_cast<double>(static_cast<int>((h >> 7) % 257) - 128) / 64.0);
  }
  return v;
}

template <class T>
constexpr double unit_roundoff() {
  if constexpr (std::is_same_v<T, double>)
    return 0x1p-53;
  else if constexpr (std::is_same_v<T, __half>)
    return 0x1p-11;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return 0x1p-8;
  else
    return 0x1p-24;
}

struct dims {
  std::size_t m, k, n;
};
// 1x1x1, extents off 8 and 16, square, no inner elements, no rows, no
// columns, tall and skinny, a long inner dimension.
const dims shapes[] = {{1, 1, 1}, {5, 7, 3}, {17, 33, 9}, {64, 48, 80},  {129, 257, 31},
                       {3, 0, 4}, {0, 3, 4}, {4, 3, 0},   {4099, 19, 2}, {2, 2049, 3}};

// Checks `got` (m x n) against the double reference of a and b as stored.
// Element (i, j) of op(a) op(b) in double (exact for these operands), and
// the sum of its products' magnitudes.
struct exact_element {
  double value = 0, magnitude = 0;
};
template <class T>
exact_element exact_product(const std::vector<T>& a, const std::vector<T>& b, dims d, bool ta, bool tb,
                            std::size_t i, std::size_t j) {
  exact_element e;
  for (std::size_t p = 0; p < d.k; ++p) {
    const double x = to_double(ta ? a[p * d.m + i] : a[i * d.k + p]);
    const double y = to_double(tb ? b[j * d.k + p] : b[p * d.n + j]);
    e.value += x * y;
    e.magnitude += std::fabs(x * y);
  }
  return e;
}

template <class T, class C>
void check_against_reference(const std::vector<C>& got, const std::vector<T>& a, const std::vector<T>& b,
                             dims d, bool ta, bool tb, const char* who) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;  // the accumulation type
  const double u = unit_roundoff<A>(), uc = unit_roundoff<C>();
  REQUIRE(got.size() == d.m * d.n);
  for (std::size_t i = 0; i < d.m; ++i)
    for (std::size_t j = 0; j < d.n; ++j) {
      const auto [ref, mag] = exact_product(a, b, d, ta, tb, i, j);
      const double g = to_double(got[i * d.n + j]);
      // (1 + uc): the final rounding is relative to the computed sum, which
      // may exceed |ref| by the first term.
      const double bound = static_cast<double>(d.k + 2) * u * mag * (1 + uc) + uc * std::fabs(ref);
      INFO(who << ": c[" << i << "][" << j << "] = " << g << ", reference " << ref << ", bound " << bound);
      REQUIRE(std::fabs(g - ref) <= bound);
      if (d.k == 0) REQUIRE(g == 0.0);
    }
}

template <class T, class C, bool TA, bool TB>
void check_product(sd::cuda_executor& ex, dims d) {
  INFO("m " << d.m << ", k " << d.k << ", n " << d.n << ", transposed a " << TA << ", b " << TB);
  const auto a = operand<T>(d.m * d.k, 1), b = operand<T>(d.k * d.n, 2);
  const std::size_t ar = TA ? d.k : d.m, ac = TA ? d.m : d.k, br = TB ? d.n : d.k, bc = TB ? d.k : d.n;
  std::vector<C> host(d.m * d.n, from_double<C>(-1));
  sd::host_executor hx;
  hx.run(product<T, C, TA, TB>, sd::bind("a", a.data(), ar, ac), sd::bind("b", b.data(), br, bc),
         sd::bind("c", host.data(), d.m, d.n));
  check_against_reference(host, a, b, d, TA, TB, "host");

  device_buffer<T> da(a), db(b);
  device_buffer<C> dc(d.m * d.n);
  // NaN bits everywhere: an element the GPU does not write (k = 0) shows.
  gpu_test::check(cudaMemset(dc.get(), 0xff, (d.m * d.n > 0 ? d.m * d.n : 1) * sizeof(C)), "cudaMemset");
  ex.run(product<T, C, TA, TB>, sd::bind("a", da.cget(), ar, ac), sd::bind("b", db.cget(), br, bc),
         sd::bind("c", dc.get(), d.m, d.n));
  check_against_reference(dc.download(), a, b, d, TA, TB, "gpu");
}

template <class T, class C>
void check_type() {
  sd::cuda_executor ex;  // one executor: each shape re-prepares its matmul
  for (const auto d : shapes) {
    check_product<T, C, false, false>(ex, d);
    check_product<T, C, true, false>(ex, d);
    check_product<T, C, false, true>(ex, d);
    check_product<T, C, true, true>(ex, d);
  }
}

}  // namespace

TEST_CASE("float matmuls with every transpose and odd shapes", "[cuda][matmul][sanitize]") {
  check_type<float, float>();
}
TEST_CASE("double matmuls with every transpose and odd shapes", "[cuda][matmul]") {
  check_type<double, double>();
}
TEST_CASE("__half matmuls, into __half and into float", "[cuda][matmul]") {
  check_type<__half, __half>();
  check_type<__half, float>();
}
TEST_CASE("__nv_bfloat16 matmuls, into __nv_bfloat16 and into float", "[cuda][matmul]") {
  check_type<__nv_bfloat16, __nv_bfloat16>();
  check_type<__nv_bfloat16, float>();
}

TEST_CASE("a matmul of one operand read both ways (x x^T)", "[cuda][matmul]") {
  constexpr auto gram = sd::program([](sd::builder& p) {
    auto r = p.domain("r");
    auto c = p.domain("c");
    auto x = p.input<float>("x", r, c);
    auto g = p.output<float>("g", r, r);
    g = sd::matmul(x, sd::transpose(x));
  });
  const dims d{37, 21, 37};
  const auto x = operand<float>(d.m * d.k, 3);
  device_buffer<float> dx(x), dg(d.m * d.m);
  sd::cuda_executor ex;
  ex.run(gram, sd::bind("x", dx.cget(), d.m, d.k), sd::bind("g", dg.get(), d.m, d.m));
  check_against_reference(dg.download(), x, x, d, false, true, "gpu");
}

namespace {

// Two matmuls on two streams, joined by the kernel that adds them (sd::automatic
// inserts the wait); the main
// stream's product is a temp (a workspace slot) read by that kernel.
constexpr auto two_streams = sd::program<sd::automatic>([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = p.input<float>("a", m, k);
  auto b = p.input<float>("b", k, n);
  auto a2 = p.input<float>("a2", m, k);
  auto b2 = p.input<float>("b2", n, k);
  auto bias = p.input<float>("bias", n);
  auto t = p.temp<float>("t", m, n);
  auto u = p.output<float>("u", m, n);
  auto y = p.output<float>("y", m, n);
  auto side = p.stream("side");
  sd::with_stream(side, [&] { u = sd::matmul(a2, sd::transpose(b2)); });
  t = sd::matmul(a, b);
  y = sd::relu(t + u) * 2 + bias;
});

struct two_inputs {
  dims d;
  std::vector<float> a, b, a2, b2, bias;
  explicit two_inputs(dims dd, unsigned salt = 0)
      : d(dd),
        a(operand<float>(d.m * d.k, 10 + salt)),
        b(operand<float>(d.k * d.n, 11 + salt)),
        a2(operand<float>(d.m * d.k, 12 + salt)),
        b2(operand<float>(d.n * d.k, 13 + salt)),
        bias(operand<float>(d.n, 14 + salt)) {}
};

// u and y against their double references: y = relu(t + u) * 2 + bias errs by
// at most twice the errors of t and u (relu does not widen a difference),
// plus its own few roundings.
void check_two_streams(const two_inputs& in, const std::vector<float>& u, const std::vector<float>& y,
                       const char* who) {
  const dims d = in.d;
  check_against_reference(u, in.a2, in.b2, d, false, true, who);
  REQUIRE(y.size() == d.m * d.n);
  const double eps = 0x1p-24;
  for (std::size_t i = 0; i < d.m; ++i)
    for (std::size_t j = 0; j < d.n; ++j) {
      double t_ref = 0, t_mag = 0, u_ref = 0, u_mag = 0;
      for (std::size_t p = 0; p < d.k; ++p) {
        const double x = static_cast<double>(in.a[i * d.k + p]) * in.b[p * d.n + j];
        const double z = static_cast<double>(in.a2[i * d.k + p]) * in.b2[j * d.k + p];
        t_ref += x, t_mag += std::fabs(x), u_ref += z, u_mag += std::fabs(z);
      }
      const double s = t_ref + u_ref;
      const double ref = (s > 0 ? s : 0) * 2 + in.bias[j];
      const double bound = 2 * static_cast<double>(d.k + 2) * eps * (t_mag + u_mag) * 2 +
                           4 * eps * (std::fabs(s) * 2 + std::fabs(static_cast<double>(in.bias[j])));
      INFO(who << ": y[" << i << "][" << j << "] = " << y[i * d.n + j] << ", reference " << ref);
      REQUIRE(std::fabs(y[i * d.n + j] - ref) <= bound);
    }
}

struct two_device {
  device_buffer<float> a, b, a2, b2, bias, u, y;
  explicit two_device(const two_inputs& in)
      : a(in.a), b(in.b), a2(in.a2), b2(in.b2), bias(in.bias), u(in.d.m * in.d.n), y(in.d.m * in.d.n) {}
};

}  // namespace

TEST_CASE("two matmuls on two streams joined by a kernel reading a product in a temp",
          "[cuda][matmul][sanitize]") {
  STATIC_REQUIRE(two_streams.plan().step_count() == 2);
  STATIC_REQUIRE(two_streams.plan().kernel_count() == 1);
  sd::cuda_executor ex;
  for (const dims d : {dims{33, 65, 17}, dims{256, 128, 96}, dims{7, 0, 5}}) {
    INFO("m " << d.m << ", k " << d.k << ", n " << d.n);
    const two_inputs in(d);
    std::vector<float> hu(d.m * d.n), hy(d.m * d.n);
    sd::host_executor hx;
    hx.run(two_streams, sd::bind("a", in.a.data(), d.m, d.k), sd::bind("b", in.b.data(), d.k, d.n),
           sd::bind("a2", in.a2.data(), d.m, d.k), sd::bind("b2", in.b2.data(), d.n, d.k),
           sd::bind("bias", in.bias.data(), d.n), sd::bind("u", hu.data(), d.m, d.n),
           sd::bind("y", hy.data(), d.m, d.n));
    check_two_streams(in, hu, hy, "host");
    two_device g(in);
    for (int round = 0; round < 2; ++round) {  // the second run reuses the prepared bindings
      ex.run(two_streams, sd::bind("a", g.a.cget(), d.m, d.k), sd::bind("b", g.b.cget(), d.k, d.n),
             sd::bind("a2", g.a2.cget(), d.m, d.k), sd::bind("b2", g.b2.cget(), d.n, d.k),
             sd::bind("bias", g.bias.cget(), d.n), sd::bind("u", g.u.get(), d.m, d.n),
             sd::bind("y", g.y.get(), d.m, d.n));
      check_two_streams(in, g.u.download(), g.y.download(), "gpu");
    }
  }
}

TEST_CASE("matmuls in the caller's workspace (sd::workspace_in)", "[cuda][matmul][sanitize]") {
  const dims d{300, 200, 100};
  const two_inputs in(d);
  two_device g(in);
  // Room for the temp and for two slots' cuBLASLt workspace of at most 32 MiB each.
  const std::size_t bytes = d.m * d.n * sizeof(float) + 2 * sd::cuda_detail::matmul_workspace_limit + 4096;
  device_buffer<unsigned char> ws(bytes);
  sd::cuda_executor ex;
  ex.run(two_streams, sd::bind("a", g.a.cget(), d.m, d.k), sd::bind("b", g.b.cget(), d.k, d.n),
         sd::bind("a2", g.a2.cget(), d.m, d.k), sd::bind("b2", g.b2.cget(), d.n, d.k),
         sd::bind("bias", g.bias.cget(), d.n), sd::bind("u", g.u.get(), d.m, d.n),
         sd::bind("y", g.y.get(), d.m, d.n), sd::workspace_in(ws.get(), bytes));
  check_two_streams(in, g.u.download(), g.y.download(), "gpu");
  // Too small a buffer (the temp alone needs 120000 bytes) is refused before
  // anything runs, and the message counts cuBLASLt's workspace in.
  bool refused = false;
  try {
    ex.run(two_streams, sd::bind("a", g.a.cget(), d.m, d.k), sd::bind("b", g.b.cget(), d.k, d.n),
           sd::bind("a2", g.a2.cget(), d.m, d.k), sd::bind("b2", g.b2.cget(), d.n, d.k),
           sd::bind("bias", g.bias.cget(), d.n), sd::bind("u", g.u.get(), d.m, d.n),
           sd::bind("y", g.y.get(), d.m, d.n), sd::workspace_in(ws.get(), 256));
  } catch (const sd::binding_error& e) {
    refused = true;
    CHECK(std::string(e.what()).find("cuBLASLt's workspace for the matmuls") != std::string::npos);
  }
  REQUIRE(refused);
}

TEST_CASE("matmuls captured into a graph, replayed and rebound", "[cuda][matmul][graph][sanitize]") {
  const dims d{96, 160, 72};
  const two_inputs in(d), in2(d, 100);
  two_device g(in), g2(in2);
  sd::cuda_executor ex;
  auto graph = sd::capture(ex, two_streams, sd::bind("a", g.a.cget(), d.m, d.k),
                           sd::bind("b", g.b.cget(), d.k, d.n), sd::bind("a2", g.a2.cget(), d.m, d.k),
                           sd::bind("b2", g.b2.cget(), d.n, d.k), sd::bind("bias", g.bias.cget(), d.n),
                           sd::bind("u", g.u.get(), d.m, d.n), sd::bind("y", g.y.get(), d.m, d.n));
  for (int round = 0; round < 2; ++round) {
    gpu_test::check(cudaMemset(g.y.get(), 0xff, d.m * d.n * sizeof(float)), "cudaMemset");
    graph.launch(ex.main_stream());
    check_two_streams(in, g.u.download(), g.y.download(), "graph");
  }
  // New operands in the same buffers: the replay reads them.
  const two_inputs in3(d, 200);
  g.a.upload(in3.a);
  g.b.upload(in3.b);
  g.a2.upload(in3.a2);
  g.b2.upload(in3.b2);
  g.bias.upload(in3.bias);
  graph.launch(ex.main_stream());
  check_two_streams(in3, g.u.download(), g.y.download(), "graph, new operands");
  // Other buffers: rebind updates the graph.
  graph.rebind(sd::bind("a", g2.a.cget(), d.m, d.k), sd::bind("b", g2.b.cget(), d.k, d.n),
               sd::bind("a2", g2.a2.cget(), d.m, d.k), sd::bind("b2", g2.b2.cget(), d.n, d.k),
               sd::bind("bias", g2.bias.cget(), d.n), sd::bind("u", g2.u.get(), d.m, d.n),
               sd::bind("y", g2.y.get(), d.m, d.n));
  graph.launch(ex.main_stream());
  check_two_streams(in2, g2.u.download(), g2.y.download(), "graph, rebound");
}

TEST_CASE("a matmul's operands bound off a 256-byte boundary", "[cuda][matmul][sanitize]") {
  // The heuristic is told each operand's alignment (here 4 and 8 bytes past a
  // boundary): an algorithm assuming 256 bytes would read the wrong elements or fail.
  const dims d{19, 23, 29};
  const auto a = operand<float>(d.m * d.k, 21), b = operand<float>(d.k * d.n, 22);
  device_buffer<float> da(d.m * d.k + 1), db(d.k * d.n + 2), dc(d.m * d.n + 3);
  gpu_test::check(cudaMemcpy(da.get() + 1, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice),
                  "upload");
  gpu_test::check(cudaMemcpy(db.get() + 2, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice),
                  "upload");
  sd::cuda_executor ex;
  ex.run(product<float, float, false, false>, sd::bind("a", da.cget() + 1, d.m, d.k),
         sd::bind("b", db.cget() + 2, d.k, d.n), sd::bind("c", dc.get() + 3, d.m, d.n));
  const auto all = dc.download();
  check_against_reference(std::vector<float>(all.begin() + 3, all.end()), a, b, d, false, false, "gpu");
}

TEST_CASE("a matmul and a reduction of its product share the run's workspace", "[cuda][matmul][sanitize]") {
  // The product lives in a temp's slot, CUB's storage after the slots, the
  // matmul's cuBLASLt workspace after that: s = sum(t) reads the product.
  constexpr auto reduced = sd::program([](sd::builder& p) {
    auto m = p.domain("m");
    auto k = p.domain("k");
    auto n = p.domain("n2");
    auto a = p.input<float>("a", m, k);
    auto b = p.input<float>("b", k, n);
    auto t = p.temp<float>("t", m, n);
    auto s = p.output<float>("s", sd::scalar);
    t = sd::matmul(a, b);
    s = sd::sum(t);
  });
  const dims d{123, 77, 45};
  const auto a = operand<float>(d.m * d.k, 31), b = operand<float>(d.k * d.n, 32);
  device_buffer<float> da(a), db(b), ds(1);
  sd::cuda_executor ex;
  for (int round = 0; round < 2; ++round) {
    ex.run(reduced, sd::bind("a", da.cget(), d.m, d.k), sd::bind("b", db.cget(), d.k, d.n),
           sd::bind("s", ds.get(), 1));
    // Each product element errs by at most (k + 2) u sum|a b|, the sum of
    // m n of them by (m n + 2) u sum|t| more.
    double ref = 0, product_error = 0, total = 0;
    for (std::size_t i = 0; i < d.m; ++i)
      for (std::size_t j = 0; j < d.n; ++j) {
        double t = 0, mag = 0;
        for (std::size_t q = 0; q < d.k; ++q) {
          const double x = static_cast<double>(a[i * d.k + q]) * b[q * d.n + j];
          t += x, mag += std::fabs(x);
        }
        ref += t, total += std::fabs(t) + static_cast<double>(d.k + 2) * 0x1p-24 * mag;
        product_error += static_cast<double>(d.k + 2) * 0x1p-24 * mag;
      }
    const double bound = product_error + static_cast<double>(d.m * d.n + 2) * 0x1p-24 * total;
    const double got = ds.download()[0];
    INFO("sum " << got << ", reference " << ref << ", bound " << bound);
    REQUIRE(std::fabs(got - ref) <= bound);
  }
}

namespace {
constexpr auto tf32_product = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = p.input<float>("a", m, k);
  auto b = p.input<float>("b", k, n);
  auto c = p.output<float>("c", m, n);
  c = sd::matmul(a, b, sd::tf32);
});
}  // namespace

TEST_CASE("sd::tf32: float operands rounded to TF32 on the tensor cores", "[cuda][matmul]") {
  // Operands with 20 significant bits, so that TF32's rounding (to 11) shows;
  // a short inner dimension, so that it is not averaged away.
  const dims d{512, 64, 512};
  std::vector<float> a(d.m * d.k), b(d.k * d.n);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = 1.0f + static_cast<float>((i * 2654435761u) % 1048576) * 0x1p-20f;
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = 1.0f - static_cast<float>((i * 40503u) % 1048576) * 0x1p-21f;
  device_buffer<float> da(a), db(b), dc(d.m * d.n);
  sd::cuda_executor ex;
  ex.run(tf32_product, sd::bind("a", da.cget(), d.m, d.k), sd::bind("b", db.cget(), d.k, d.n),
         sd::bind("c", dc.get(), d.m, d.n));
  const auto got = dc.download();
  // Each operand rounded to TF32: relative error at most 2^-11 (round to
  // nearest, 10 stored bits), a product's at most 2^-10 + 2^-22; the sums
  // in float add (k + 2) 2^-24 of the magnitude.
  const double tf32_u = 0x1p-11, float_u = 0x1p-24;
  double worst = 0;  // the largest error relative to the magnitude: TF32's, not float's
  for (std::size_t i = 0; i < d.m; i += 7)
    for (std::size_t j = 0; j < d.n; j += 5) {
      double ref = 0, mag = 0;
      for (std::size_t q = 0; q < d.k; ++q) {
        const double t = static_cast<double>(a[i * d.k + q]) * b[q * d.n + j];
        ref += t;
        mag += std::fabs(t);
      }
      const double err = std::fabs(got[i * d.n + j] - ref);
      const double bound =
          (2 * tf32_u + tf32_u * tf32_u) * mag + static_cast<double>(d.k + 2) * float_u * mag;
      INFO("c[" << i << "][" << j << "] = " << got[i * d.n + j] << ", reference " << ref << ", bound "
                << bound);
      REQUIRE(err <= bound);
      worst = std::max(worst, err / mag);
    }
  // Full float over 64 terms stays near 2^-21 of the magnitude; TF32's
  // rounding gives about 2^-12 / sqrt(64) = 2^-15: an error past 2^-18 means
  // the operands were rounded, i.e. the TF32 path ran.
  INFO("largest error relative to the magnitude: " << worst);
  CHECK(worst > 0x1p-18);
}

namespace {

// Folded epilogues (passes/matmul_epilogue.hpp) on the GPU against the host
// executor and a double reference: a, b over (m, k) and (k, n2) (b read
// transposed in variant 1), bias over n2, d over (m, n2).
//   0: t = matmul(a, b); d = relu(alpha * t + bias)         RELU_BIAS, a param alpha
//   1: d = matmul(a, b^T); d = gelu_tanh(d * 0.5 + bias)    GELU_BIAS in place, a literal alpha
//      (16-bit products only: into float it stays a kernel, ir::matmul_epilogue_supported)
//   2: t = matmul(a, b); d = bias + t                       BIAS
//   3: t = matmul(a, b); d = relu(t)                        RELU
// The bias runs over d's columns (n2): over the rows of cuBLASLt's
// column-major D, so m != n2 shapes tell a bias applied the wrong way.
template <class T, class C, int V>
constexpr auto epilogue_program = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = p.input<T>("a", m, k);
  auto b = V == 1 ? p.input<T>("b", n, k) : p.input<T>("b", k, n);
  auto bias = p.input<C>("bias", n);
  auto alpha = p.param<C>("alpha");
  auto t = p.temp<C>("t", m, n);
  auto d = p.output<C>("d", m, n);
  if constexpr (V == 0) {
    t = sd::matmul(a, b);
    d = sd::relu(alpha * t + bias);
  } else if constexpr (V == 1) {
    d = sd::matmul(a, sd::transpose(b));
    d = sd::gelu_tanh(d * 0.5f + bias);
  } else if constexpr (V == 2) {
    t = sd::matmul(a, b);
    d = bias + t;
  } else {
    t = sd::matmul(a, b);
    d = sd::relu(t);
  }
});

// d against act(alpha * P + bias) in double, P the exact product. The
// product errs by the bound of check_against_reference (times |alpha|); the
// host rounds to C after each of the epilogue's operations, cuBLASLt once in
// float: at most three roundings of C (u_c) of the terms' sizes; relu
// widens no difference, gelu_tanh by at most 1.13 (its largest slope), and
// its tanh differs between libraries by a few ulps of the result, and
// cuBLASLt's by up to 2^-10 (an approximate tanh, about 2^-11 relative: its
// GELU is folded only into 16-bit products), which moves 0.5 v (1 + tanh)
// by 0.5 |v| 2^-10.
template <class T, class C, int V>
void check_epilogue(const std::vector<C>& got, const std::vector<T>& a, const std::vector<T>& b,
                    const std::vector<C>& bias, double alpha, dims d, const char* who) {
  // cuBLASLt's GELU (folded into 16-bit products) computes an approximate tanh.
  const bool gpu_gelu = std::string(who) == "gpu" && sizeof(C) == 2;
  const double u = unit_roundoff<float>(), uc = unit_roundoff<C>();
  REQUIRE(got.size() == d.m * d.n);
  for (std::size_t i = 0; i < d.m; ++i)
    for (std::size_t j = 0; j < d.n; ++j) {
      const auto [p, mag] = exact_product(a, b, d, false, V == 1, i, j);
      const double scale = V == 0 ? alpha : V == 1 ? 0.5 : 1.0;
      const double bj = V == 3 ? 0.0 : to_double(bias[j]);
      const double v = scale * p + bj;
      double ref = v;
      if (V == 0 || V == 3) ref = v > 0 ? v : 0;
      if (V == 1) ref = 0.5 * v * (1 + std::tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
      const double bound =
          1.2 * ((static_cast<double>(d.k + 2) * u * mag * (1 + uc) + uc * std::fabs(p)) * std::fabs(scale) +
                 3 * uc * (std::fabs(scale * p) + std::fabs(bj))) +
          4 * uc * std::fabs(ref) + (V == 1 && gpu_gelu ? 0.5 * std::fabs(v) * 0x1p-10 : 0.0);
      const double g = to_double(got[i * d.n + j]);
      INFO(who << ": d[" << i << "][" << j << "] = " << g << ", reference " << ref << ", bound " << bound);
      REQUIRE(std::fabs(g - ref) <= bound);
    }
}

template <class T, class C, int V>
void check_epilogue_variant(sd::cuda_executor& ex, dims d, unsigned salt) {
  INFO("variant " << V << ", m " << d.m << ", k " << d.k << ", n " << d.n);
  constexpr auto& prog = epilogue_program<T, C, V>;
  const auto a = operand<T>(d.m * d.k, 1 + salt), b = operand<T>(d.k * d.n, 2 + salt);
  const auto bias = operand<C>(d.n, 3 + salt);
  const C alpha = from_double<C>(-1.5);
  const std::size_t br = V == 1 ? d.n : d.k, bc = V == 1 ? d.k : d.n;
  std::vector<C> host(d.m * d.n, from_double<C>(-1));
  sd::host_executor hx;
  hx.run(prog, sd::bind("a", a.data(), d.m, d.k), sd::bind("b", b.data(), br, bc), sd::bind("bias", bias),
         sd::bind("alpha", alpha), sd::bind("d", host.data(), d.m, d.n));
  check_epilogue<T, C, V>(host, a, b, bias, -1.5, d, "host");

  device_buffer<T> da(a), db(b);
  device_buffer<C> dbias(bias), dd(d.m * d.n);
  gpu_test::check(cudaMemset(dd.get(), 0xff, (d.m * d.n > 0 ? d.m * d.n : 1) * sizeof(C)), "cudaMemset");
  ex.run(prog, sd::bind("a", da.cget(), d.m, d.k), sd::bind("b", db.cget(), br, bc),
         sd::bind("bias", dbias.cget(), d.n), sd::bind("alpha", alpha), sd::bind("d", dd.get(), d.m, d.n));
  check_epilogue<T, C, V>(dd.download(), a, b, bias, -1.5, d, "gpu");
}

template <class T, class C>
void check_epilogues() {
  STATIC_REQUIRE(epilogue_program<T, C, 0>.plan().kernel_count() == 0);  // each consumer folded
  STATIC_REQUIRE(epilogue_program<T, C, 1>.plan().kernel_count() == (sizeof(C) == 2 ? 0 : 1));
  STATIC_REQUIRE(epilogue_program<T, C, 2>.plan().kernel_count() == 0);
  STATIC_REQUIRE(epilogue_program<T, C, 3>.plan().kernel_count() == 0);
  // The dump names the epilogue.
  const std::string dump = epilogue_program<T, C, 0>.to_string().c_str();
  CHECK(dump.find("d = relu(alpha * sd::matmul(a, b) + bias)  [cuBLASLt epilogue RELU_BIAS]") !=
        std::string::npos);
  sd::cuda_executor ex;
  const dims epilogue_shapes[] = {{1, 1, 1}, {5, 7, 3}, {17, 33, 9}, {64, 48, 80}, {129, 257, 31}, {3, 0, 4}};
  unsigned salt = 0;
  for (const auto d : epilogue_shapes) {
    check_epilogue_variant<T, C, 0>(ex, d, salt += 3);
    check_epilogue_variant<T, C, 1>(ex, d, salt += 3);
    check_epilogue_variant<T, C, 2>(ex, d, salt += 3);
    check_epilogue_variant<T, C, 3>(ex, d, salt += 3);
  }
}

}  // namespace

TEST_CASE("folded epilogues on the GPU match the host executor: float, __half, __nv_bfloat16",
          "[cuda][matmul][epilogue][sanitize]") {
  check_epilogues<float, float>();
  check_epilogues<__half, __half>();
  check_epilogues<__nv_bfloat16, __nv_bfloat16>();
  check_epilogues<__nv_bfloat16, float>();
  check_epilogues<__half, float>();
}

TEST_CASE("double matmuls keep their consumer as a kernel, with the same results",
          "[cuda][matmul][epilogue]") {
  STATIC_REQUIRE(epilogue_program<double, double, 0>.plan().kernel_count() == 1);
  sd::cuda_executor ex;
  check_epilogue_variant<double, double, 0>(ex, {17, 33, 9}, 0);
}

TEST_CASE("a folded bias is read where it is bound at each run", "[cuda][matmul][epilogue]") {
  // The bias pointer is set at each issue: a second run with another bias
  // buffer (same shape: the prepared matmul is kept) reads the new one.
  const dims d{33, 16, 24};
  const auto a = operand<float>(d.m * d.k, 7), b = operand<float>(d.k * d.n, 8);
  const auto bias1 = operand<float>(d.n, 9), bias2 = operand<float>(d.n, 10);
  device_buffer<float> da(a), db(b), dbias1(bias1), dbias2(bias2), dd(d.m * d.n);
  sd::cuda_executor ex;
  for (const auto* bias : {&bias1, &bias2}) {
    const float* dbias = bias == &bias1 ? dbias1.cget() : dbias2.cget();
    ex.run(epilogue_program<float, float, 2>, sd::bind("a", da.cget(), d.m, d.k),
           sd::bind("b", db.cget(), d.k, d.n), sd::bind("bias", dbias, d.n), sd::bind("alpha", 1.0f),
           sd::bind("d", dd.get(), d.m, d.n));
    check_epilogue<float, float, 2>(dd.download(), a, b, *bias, 1.0, d, "gpu");
  }
}

namespace {

// Workload 7b's shape (passes/batch_matmuls.hpp): `count` independent
// products over 4 streams, one batch unless sd::no_batching.
template <class T, int count>
constexpr auto spread_body = [](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = p.inputs<T>("a", count, m, k);
  auto b = p.inputs<T>("b", count, k, n);
  auto c = p.outputs<T>("c", count, m, n);
  auto s = p.streams("s", 4);
  for (int i = 0; i < 4; ++i) s[i].wait_stream(p.main_stream());
  for (int i = 0; i < count; ++i) sd::with_stream(s[i % 4], [&] { c[i] = sd::matmul(a[i], b[i]); });
  for (int i = 0; i < 4; ++i) p.main_stream().wait_stream(s[i]);
};
template <class T, int count>
constexpr auto spread_batched = sd::program(spread_body<T, count>);
template <class T, int count>
constexpr auto spread_apart = sd::program<sd::no_batching>(spread_body<T, count>);

// Runs the batch and the unbatched plan with member i's matrices at
// i * (matrix + gap(i)) elements into one allocation per operand, and checks
// both against the reference: with no gaps the batch is one strided-batched
// call (ir::matmul_batch_rule), with uneven gaps it falls back to the
// members' own calls; either way the products are the members'.
template <class T, int count>
void check_batch(sd::cuda_executor& ex, dims d, std::size_t (*gap)(int)) {
  STATIC_REQUIRE(spread_batched<T, count>.plan().step_count() == 1);
  STATIC_REQUIRE(spread_apart<T, count>.plan().step_count() == count);
  INFO("m " << d.m << ", k " << d.k << ", n " << d.n << ", gap of member 1 " << gap(1));
  std::vector<std::size_t> at_a(count), at_b(count), at_c(count);
  std::size_t na = 0, nb = 0, nc = 0;
  for (int i = 0; i < count; ++i) {
    at_a[i] = na;
    at_b[i] = nb;
    at_c[i] = nc;
    na += d.m * d.k + gap(i);
    nb += d.k * d.n + gap(i);
    nc += d.m * d.n + gap(i);
  }
  std::vector<std::vector<T>> a(count), b(count);
  std::vector<T> all_a(na), all_b(nb);
  for (int i = 0; i < count; ++i) {
    a[i] = operand<T>(d.m * d.k, 2 * i + 1);
    b[i] = operand<T>(d.k * d.n, 2 * i + 2);
    std::copy(a[i].begin(), a[i].end(), all_a.begin() + static_cast<std::ptrdiff_t>(at_a[i]));
    std::copy(b[i].begin(), b[i].end(), all_b.begin() + static_cast<std::ptrdiff_t>(at_b[i]));
  }
  device_buffer<T> da(all_a), db(all_b), dc(nc), dc_apart(nc);
  const auto bindings = [&](T* c) {
    std::vector<sd::binding> bound;
    for (int i = 0; i < count; ++i) {
      const std::string at = "[" + std::to_string(i) + "]";
      bound.push_back(sd::bind("a" + at, da.cget() + at_a[i], d.m, d.k));
      bound.push_back(sd::bind("b" + at, db.cget() + at_b[i], d.k, d.n));
      bound.push_back(sd::bind("c" + at, c + at_c[i], d.m, d.n));
    }
    return bound;
  };
  const auto batched = bindings(dc.get()), apart = bindings(dc_apart.get());
  ex.run(spread_batched<T, count>, sd::binding_list(batched.data(), batched.size()));
  ex.run(spread_apart<T, count>, sd::binding_list(apart.data(), apart.size()));
  const auto got = dc.download(), got_apart = dc_apart.download();
  for (int i = 0; i < count; ++i) {
    const auto first = got.begin() + static_cast<std::ptrdiff_t>(at_c[i]);
    const auto first_apart = got_apart.begin() + static_cast<std::ptrdiff_t>(at_c[i]);
    const auto n = static_cast<std::ptrdiff_t>(d.m * d.n);
    check_against_reference(std::vector<T>(first, first + n), a[i], b[i], d, false, false, "batched");
    check_against_reference(std::vector<T>(first_apart, first_apart + n), a[i], b[i], d, false, false,
                            "no_batching");
  }
}

std::size_t no_gap(int) { return 0; }
// Member 1 off the stride of the others (a whole 256 bytes of bf16 and float
// more): the batch falls back to the members' own calls.
std::size_t uneven_gap(int i) { return i == 1 ? 128 : 0; }

}  // namespace

TEST_CASE("a batch of matmuls on the GPU: one strided-batched call, and the fallback when strides differ",
          "[cuda][matmul][batch][sanitize]") {
  sd::cuda_executor ex;  // one executor: each binding re-decides the batch
  for (const dims d : {dims{64, 48, 80}, dims{17, 33, 9}, dims{1, 1, 1}, dims{4, 0, 3}}) {
    check_batch<__nv_bfloat16, 8>(ex, d, no_gap);
    check_batch<__nv_bfloat16, 8>(ex, d, uneven_gap);
    check_batch<float, 8>(ex, d, no_gap);
    check_batch<float, 8>(ex, d, uneven_gap);
  }
  // (A product over the rule's size limit takes the members' own calls as the
  // uneven gaps do: tests/passes/batch_matmuls_test.cpp checks the limit.)
}
