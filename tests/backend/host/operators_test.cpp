// Every elementwise operator on every host element type, run on the executor
// under test (host in g++ builds, CUDA in nvcc builds: tests/backend/cuda/)
// and compared with values computed here in plain C++ (edge cases against the
// constants element_ops.hpp promises).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "../executor_under_test.hpp"
#include "host_test_support.hpp"

namespace {

using host_test::bool_buffer;
using std::int32_t;
using std::int64_t;

constexpr std::size_t n = 1000;  // two full blocks and a partial one

template <class T>
constexpr auto arithmetic = sd::program([](sd::builder& p) {
  auto a = p.input<T>("a");
  auto b = p.input<T>("b");
  auto add = p.output<T>("add");
  auto sub = p.output<T>("sub");
  auto mul = p.output<T>("mul");
  auto div = p.output<T>("div");
  auto neg = p.output<T>("neg");
  auto abs = p.output<T>("abs");
  auto relu = p.output<T>("relu");
  auto mn = p.output<T>("mn");
  auto mx = p.output<T>("mx");
  auto sel = p.output<T>("sel");
  auto lt = p.output<bool>("lt");
  auto le = p.output<bool>("le");
  auto gt = p.output<bool>("gt");
  auto ge = p.output<bool>("ge");
  auto eq = p.output<bool>("eq");
  auto ne = p.output<bool>("ne");
  add = a + b;
  sub = a - b;
  mul = a * b;
  div = a / b;
  neg = -a;
  abs = sd::abs(a);
  relu = sd::relu(a);
  mn = sd::min(a, b);
  mx = sd::max(a, b);
  sel = sd::where(a > b, a, b * 2);
  lt = a < b;
  le = a <= b;
  gt = a > b;
  ge = a >= b;
  eq = a == b;
  ne = a != b;
});

template <class T>
void check_arithmetic() {
  // a runs from -50 up, b cycles through 1..7 and some equal values; no edge cases here.
  std::vector<T> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<T>(static_cast<int>(i % 101) - 50);
    b[i] = i % 9 == 0 ? a[i] : static_cast<T>(1 + static_cast<int>(i % 7));
    if (b[i] == T(0)) b[i] = T(3);
  }
  std::vector<T> add(n), sub(n), mul(n), div(n), neg(n), abs(n), relu(n), mn(n), mx(n), sel(n);
  bool_buffer lt(n), le(n), gt(n), ge(n), eq(n), ne(n);
  backend_test::executor ex;
  ex.run(arithmetic<T>, sd::bind("a", a), sd::bind("b", b), sd::bind("add", add), sd::bind("sub", sub),
         sd::bind("mul", mul), sd::bind("div", div), sd::bind("neg", neg), sd::bind("abs", abs),
         sd::bind("relu", relu), sd::bind("mn", mn), sd::bind("mx", mx), sd::bind("sel", sel),
         sd::bind("lt", lt.span()), sd::bind("le", le.span()), sd::bind("gt", gt.span()),
         sd::bind("ge", ge.span()), sd::bind("eq", eq.span()), sd::bind("ne", ne.span()));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const T x = a[i], y = b[i];
    wrong += add[i] != static_cast<T>(x + y);
    wrong += sub[i] != static_cast<T>(x - y);
    wrong += mul[i] != static_cast<T>(x * y);
    wrong += div[i] != static_cast<T>(x / y);
    wrong += neg[i] != static_cast<T>(-x);
    wrong += abs[i] != (x < 0 ? static_cast<T>(-x) : x);
    wrong += relu[i] != (x > 0 ? x : T(0));
    wrong += mn[i] != (y < x ? y : x);
    wrong += mx[i] != (x < y ? y : x);
    wrong += sel[i] != (x > y ? x : static_cast<T>(y * 2));
    wrong += lt[i] != (x < y);
    wrong += le[i] != (x <= y);
    wrong += gt[i] != (x > y);
    wrong += ge[i] != (x >= y);
    wrong += eq[i] != (x == y);
    wrong += ne[i] != (x != y);
  }
  CHECK(wrong == 0);
}

template <class T>
constexpr auto transcendental = sd::program([](sd::builder& p) {
  auto a = p.input<T>("a");
  auto exp = p.output<T>("exp");
  auto log = p.output<T>("log");
  auto sqrt = p.output<T>("sqrt");
  auto rsqrt = p.output<T>("rsqrt");
  auto sin = p.output<T>("sin");
  auto cos = p.output<T>("cos");
  auto tanh = p.output<T>("tanh");
  auto sigmoid = p.output<T>("sigmoid");
  exp = sd::exp(a);
  log = sd::log(a);
  sqrt = sd::sqrt(a);
  rsqrt = sd::rsqrt(a);
  sin = sd::sin(a);
  cos = sd::cos(a);
  tanh = sd::tanh(a);
  sigmoid = sd::sigmoid(-a);
});

template <class T>
void check_transcendental() {
  const auto a = host_test::ramp<T>(n, T(0.01), T(0.013));
  std::vector<T> exp(n), log(n), sqrt(n), rsqrt(n), sin(n), cos(n), tanh(n), sigmoid(n);
  backend_test::executor ex;
  ex.run(transcendental<T>, sd::bind("a", a), sd::bind("exp", exp), sd::bind("log", log),
         sd::bind("sqrt", sqrt), sd::bind("rsqrt", rsqrt), sd::bind("sin", sin), sd::bind("cos", cos),
         sd::bind("tanh", tanh), sd::bind("sigmoid", sigmoid));
  const double eps = backend_test::transcendental_tolerance<T>();
  std::size_t wrong = 0;
  auto near = [&](T got, T want) {
    return std::fabs(double(got) - double(want)) <= eps * (1 + std::fabs(double(want)));
  };
  for (std::size_t i = 0; i < n; ++i) {
    const T x = a[i];
    wrong += !near(exp[i], std::exp(x));
    wrong += !near(log[i], std::log(x));
    wrong += !near(sqrt[i], std::sqrt(x));
    wrong += !near(rsqrt[i], T(1) / std::sqrt(x));
    wrong += !near(sin[i], std::sin(x));
    wrong += !near(cos[i], std::cos(x));
    wrong += !near(tanh[i], std::tanh(x));
    wrong += !near(sigmoid[i], T(1) / (T(1) + std::exp(x)));
  }
  CHECK(wrong == 0);
}

constexpr auto logic = sd::program([](sd::builder& p) {
  auto a = p.input<bool>("a");
  auto b = p.input<bool>("b");
  auto both = p.output<bool>("both");
  auto either = p.output<bool>("either");
  auto nota = p.output<bool>("nota");
  auto same = p.output<bool>("same");
  auto differ = p.output<bool>("differ");
  auto mn = p.output<bool>("mn");
  auto mx = p.output<bool>("mx");
  auto pick = p.output<bool>("pick");
  auto count = p.output<int32_t>("count");
  both = a && b;
  either = a || b;
  nota = !a;
  same = a == b;
  differ = a != b;
  mn = sd::min(a, b);
  mx = sd::max(a, b);
  pick = sd::where(a, b, !b);
  count = sd::cast<int32_t>(a) + sd::cast<int32_t>(b);
});

}  // namespace

TEST_CASE("arithmetic, min/max, where and comparisons on int32_t", "[host][operators]") {
  check_arithmetic<int32_t>();
}
TEST_CASE("arithmetic, min/max, where and comparisons on int64_t", "[host][operators]") {
  check_arithmetic<int64_t>();
}
TEST_CASE("arithmetic, min/max, where and comparisons on float", "[host][operators]") {
  check_arithmetic<float>();
}
TEST_CASE("arithmetic, min/max, where and comparisons on double", "[host][operators]") {
  check_arithmetic<double>();
}
TEST_CASE("transcendental functions on float", "[host][operators]") { check_transcendental<float>(); }
TEST_CASE("transcendental functions on double", "[host][operators]") { check_transcendental<double>(); }

TEST_CASE("logical operators, comparisons and min/max on bool", "[host][operators]") {
  constexpr std::size_t m = 4 * 150;
  bool_buffer a(m), b(m), both(m), either(m), nota(m), same(m), differ(m), mn(m), mx(m), pick(m);
  std::vector<int32_t> count(m);
  for (std::size_t i = 0; i < m; ++i) {
    a[i] = (i & 1) != 0;
    b[i] = (i & 2) != 0;
  }
  backend_test::executor ex;
  ex.run(logic, sd::bind("a", a.span()), sd::bind("b", b.span()), sd::bind("both", both.span()),
         sd::bind("either", either.span()), sd::bind("nota", nota.span()), sd::bind("same", same.span()),
         sd::bind("differ", differ.span()), sd::bind("mn", mn.span()), sd::bind("mx", mx.span()),
         sd::bind("pick", pick.span()), sd::bind("count", count));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < m; ++i) {
    wrong += both[i] != (a[i] && b[i]);
    wrong += either[i] != (a[i] || b[i]);
    wrong += nota[i] != !a[i];
    wrong += same[i] != (a[i] == b[i]);
    wrong += differ[i] != (a[i] != b[i]);
    wrong += mn[i] != (a[i] && b[i]);
    wrong += mx[i] != (a[i] || b[i]);
    wrong += pick[i] != (a[i] ? b[i] : !b[i]);
    wrong += count[i] != int32_t(a[i]) + int32_t(b[i]);
  }
  CHECK(wrong == 0);
}

namespace {
constexpr auto promotions = sd::program([](sd::builder& p) {
  auto i = p.input<int32_t>("i");
  auto f = p.input<float>("f");
  auto d = p.input<double>("d");
  auto dparam = p.param<double>("dparam");
  auto iparam = p.param<int32_t>("iparam");
  auto sum_id = p.output<double>("sum_id");         // int32 + double: double
  auto scaled = p.output<float>("scaled");          // int32 * 2.5: float (a weak literal)
  auto weak = p.output<float>("weak");              // float * double param: float
  auto widened = p.output<int64_t>("widened");      // int32 + int64 literal: int32, stored widened
  auto exp_of_int = p.output<float>("exp_of_int");  // exp(int32) computes in float
  auto third = p.output<float>("third");            // float / 3 (int literal converted to float)
  auto mixed = p.output<double>("mixed");           // f * d: double
  auto iscaled = p.output<int32_t>("iscaled");      // int32 * int32 param
  sum_id = i + d;
  scaled = i * 2.5;
  weak = f * dparam;
  widened = i + int64_t{3};
  exp_of_int = sd::exp(i);
  third = f / 3;
  mixed = f * d;
  iscaled = i * iparam;
});
}  // namespace

TEST_CASE("promotion: mixed element types, weak literals and params", "[host][operators][dtype]") {
  const auto i = host_test::ramp<int32_t>(n, -7, 1);
  const auto f = host_test::ramp<float>(n, 0.5f, 0.25f);
  const auto d = host_test::ramp<double>(n, 1.0 / 3, 0.1);
  const double dparam = 1.1;  // not a float value: the product is rounded to float first
  std::vector<double> sum_id(n), mixed(n);
  std::vector<float> scaled(n), weak(n), exp_of_int(n), third(n);
  std::vector<int64_t> widened(n);
  std::vector<int32_t> iscaled(n);
  backend_test::executor ex;
  ex.run(promotions, sd::bind("i", i), sd::bind("f", f), sd::bind("d", d), sd::bind("dparam", dparam),
         sd::bind("iparam", int32_t{-3}), sd::bind("sum_id", sum_id), sd::bind("scaled", scaled),
         sd::bind("weak", weak), sd::bind("widened", widened), sd::bind("exp_of_int", exp_of_int),
         sd::bind("third", third), sd::bind("mixed", mixed), sd::bind("iscaled", iscaled));
  const float exp_tolerance = static_cast<float>(backend_test::transcendental_tolerance<float>());
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < n; ++k) {
    wrong += sum_id[k] != double(i[k]) + d[k];
    wrong += scaled[k] != float(i[k]) * 2.5f;
    wrong += weak[k] != f[k] * float(dparam);
    wrong += widened[k] != int64_t(i[k] + 3);
    wrong += std::fabs(exp_of_int[k] - std::exp(float(i[k]))) > exp_tolerance * std::exp(float(i[k]));
    wrong += third[k] != f[k] / 3.0f;
    wrong += mixed[k] != double(f[k]) * d[k];
    wrong += iscaled[k] != i[k] * -3;
  }
  CHECK(wrong == 0);
}

namespace {
constexpr auto conversions = sd::program([](sd::builder& p) {
  auto f = p.input<float>("f");
  auto d = p.input<double>("d");
  auto to_i32 = p.output<int32_t>("to_i32");
  auto to_i64 = p.output<int64_t>("to_i64");
  auto to_bool = p.output<bool>("to_bool");
  auto to_float = p.output<float>("to_float");
  auto back = p.output<double>("back");
  to_i32 = sd::cast<int32_t>(f);
  to_i64 = sd::cast<int64_t>(d);
  to_bool = sd::cast<bool>(f);
  to_float = sd::cast<float>(d);
  back = sd::cast<double>(sd::cast<bool>(f)) + sd::cast<int32_t>(d);
});
}  // namespace

TEST_CASE("float to integer conversion truncates, saturates and maps NaN to 0", "[host][operators][edge]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> f{2.7f, -2.7f, 1e10f, -1e10f, nan, inf, -inf, -0.0f, 0.0f, 2147483520.0f};
  const std::vector<double> d{2.7, -2.7, 1e30, -1e30, double(nan), 9e18, -9e18, -0.0, 0.0, 1e300};
  const std::size_t m = f.size();
  std::vector<int32_t> to_i32(m);
  std::vector<int64_t> to_i64(m);
  bool_buffer to_bool(m);
  std::vector<float> to_float(m);
  std::vector<double> back(m);
  backend_test::executor ex;
  ex.run(conversions, sd::bind("f", f), sd::bind("d", d), sd::bind("to_i32", to_i32),
         sd::bind("to_i64", to_i64), sd::bind("to_bool", to_bool.span()), sd::bind("to_float", to_float),
         sd::bind("back", back));
  constexpr int32_t imax = std::numeric_limits<int32_t>::max(), imin = std::numeric_limits<int32_t>::min();
  constexpr int64_t lmax = std::numeric_limits<int64_t>::max(), lmin = std::numeric_limits<int64_t>::min();
  CHECK(to_i32 == std::vector<int32_t>{2, -2, imax, imin, 0, imax, imin, 0, 0, 2147483520});
  CHECK(to_i64 ==
        std::vector<int64_t>{2, -2, lmax, lmin, 0, 9000000000000000000, -9000000000000000000, 0, 0, lmax});
  const bool want_bool[] = {true, true, true, true, true, true, true, false, false, true};  // NaN != 0
  for (std::size_t k = 0; k < m; ++k) CHECK(to_bool[k] == want_bool[k]);
  CHECK(to_float[0] == 2.7f);
  CHECK(to_float[2] == 1e30f);
  CHECK(std::isinf(to_float[9]));
  CHECK(std::isnan(to_float[4]));
  CHECK(back[0] == 1.0 + 2);
  CHECK(back[7] == 0.0);
}

namespace {
template <class T>
constexpr auto integer_edges = sd::program([](sd::builder& p) {
  auto a = p.input<T>("a");
  auto b = p.input<T>("b");
  auto add = p.output<T>("add");
  auto sub = p.output<T>("sub");
  auto mul = p.output<T>("mul");
  auto div = p.output<T>("div");
  auto neg = p.output<T>("neg");
  auto abs = p.output<T>("abs");
  add = a + b;
  sub = a - b;
  mul = a * b;
  div = a / b;
  neg = -a;
  abs = sd::abs(a);
});

template <class T>
void check_integer_edges() {
  constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const std::vector<T> a{hi, lo, lo, 7, -7, hi};
  const std::vector<T> b{1, -1, 0, 0, 2, 2};
  const std::size_t m = a.size();
  std::vector<T> add(m), sub(m), mul(m), div(m), neg(m), abs(m);
  backend_test::executor ex;
  ex.run(integer_edges<T>, sd::bind("a", a), sd::bind("b", b), sd::bind("add", add), sd::bind("sub", sub),
         sd::bind("mul", mul), sd::bind("div", div), sd::bind("neg", neg), sd::bind("abs", abs));
  CHECK(add == std::vector<T>{lo, hi, lo, 7, -5, T(lo + 1)});  // wraps around
  CHECK(sub == std::vector<T>{T(hi - 1), T(lo + 1), lo, 7, -9, T(hi - 2)});
  CHECK(mul == std::vector<T>{hi, lo, 0, 0, -14, T(-2)});       // hi * 2 wraps to -2
  CHECK(div == std::vector<T>{hi, lo, 0, 0, -3, T(hi / 2)});    // lo / -1 wraps, x / 0 is 0
  CHECK(neg == std::vector<T>{T(-hi), lo, lo, -7, 7, T(-hi)});  // -lo wraps to lo
  CHECK(abs == std::vector<T>{hi, lo, lo, 7, 7, hi});
}
}  // namespace

TEST_CASE("int32_t wraps around and divides by zero as 0", "[host][operators][edge]") {
  check_integer_edges<int32_t>();
}
TEST_CASE("int64_t wraps around and divides by zero as 0", "[host][operators][edge]") {
  check_integer_edges<int64_t>();
}

namespace {
constexpr auto float_edges = sd::program([](sd::builder& p) {
  auto a = p.input<float>("a");
  auto b = p.input<float>("b");
  auto mn = p.output<float>("mn");
  auto mx = p.output<float>("mx");
  auto relu = p.output<float>("relu");
  auto div = p.output<float>("div");
  mn = sd::min(a, b);
  mx = sd::max(a, b);
  relu = sd::relu(a);
  div = a / b;
});
}  // namespace

TEST_CASE(
    "float min/max ignore NaN and order -0 below +0, relu of NaN and -0 is +0, division by zero is IEEE",
    "[host][operators][edge]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> a{nan, 1.0f, -0.0f, 1.0f, -1.0f, 0.0f};
  const std::vector<float> b{2.0f, nan, 0.0f, 0.0f, 0.0f, -0.0f};
  std::vector<float> mn(6), mx(6), relu(6), div(6);
  backend_test::executor ex;
  ex.run(float_edges, sd::bind("a", a), sd::bind("b", b), sd::bind("mn", mn), sd::bind("mx", mx),
         sd::bind("relu", relu), sd::bind("div", div));
  CHECK(mn[0] == 2.0f);
  CHECK(mx[0] == 2.0f);
  CHECK(mn[1] == 1.0f);
  CHECK(mx[1] == 1.0f);
  // Signed zeros, in both orders: the host's fmax and the GPU's disagree on
  // these, so streamdsl defines them (found by the GPU random programs).
  CHECK((mn[2] == 0.0f && std::signbit(mn[2])));
  CHECK((mx[2] == 0.0f && !std::signbit(mx[2])));
  CHECK((mn[5] == 0.0f && std::signbit(mn[5])));
  CHECK((mx[5] == 0.0f && !std::signbit(mx[5])));
  CHECK(relu[0] == 0.0f);
  CHECK(relu[2] == 0.0f);
  CHECK(!std::signbit(relu[2]));
  CHECK(std::isinf(div[3]));
  CHECK(div[3] > 0);
  CHECK(div[4] < 0);
}

namespace {
constexpr auto double_min_max = sd::program([](sd::builder& p) {
  auto a = p.input<double>("a");
  auto b = p.input<double>("b");
  auto mn = p.output<double>("mn");
  auto mx = p.output<double>("mx");
  mn = sd::min(a, b);
  mx = sd::max(a, b);
});
}  // namespace

TEST_CASE("double min/max ignore NaN and order -0 below +0", "[host][operators][edge]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> a{nan, 1.0, -0.0, 0.0};
  const std::vector<double> b{2.0, nan, 0.0, -0.0};
  std::vector<double> mn(4), mx(4);
  backend_test::executor ex;
  ex.run(double_min_max, sd::bind("a", a), sd::bind("b", b), sd::bind("mn", mn), sd::bind("mx", mx));
  CHECK((mn[0] == 2.0 && mx[0] == 2.0 && mn[1] == 1.0 && mx[1] == 1.0));
  for (std::size_t i : {2u, 3u}) {
    CHECK((mn[i] == 0.0 && std::signbit(mn[i])));
    CHECK((mx[i] == 0.0 && !std::signbit(mx[i])));
  }
}

namespace {
constexpr auto params_of_every_type = sd::program([](sd::builder& p) {
  auto x = p.input<double>("x");
  auto pb = p.param<bool>("pb");
  auto pi = p.param<int32_t>("pi");
  auto pl = p.param<int64_t>("pl");
  auto pf = p.param<float>("pf");
  auto pd = p.param<double>("pd");
  auto y = p.output<double>("y");
  auto flag = p.output<bool>("flag");
  auto whole = p.output<int64_t>("whole");
  y = sd::where(pb, x * pd, x) + pf;
  flag = (x > pf) && pb;
  whole = pl + pi;
});
}  // namespace

TEST_CASE("params of every type broadcast into expressions", "[host][operators][params]") {
  const auto x = host_test::ramp<double>(n, -1.0, 0.01);
  std::vector<double> y(n);
  bool_buffer flag(n);
  std::vector<int64_t> whole(n);
  backend_test::executor ex;
  for (bool pb : {true, false}) {
    ex.run(params_of_every_type, sd::bind("x", x), sd::bind("pb", pb), sd::bind("pi", int32_t{-5}),
           sd::bind("pl", int64_t{1} << 40), sd::bind("pf", 0.5f), sd::bind("pd", 3.0), sd::bind("y", y),
           sd::bind("flag", flag.span()), sd::bind("whole", whole));
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < n; ++k) {
      wrong += y[k] != (pb ? x[k] * 3.0 : x[k]) + 0.5;
      wrong += flag[k] != (x[k] > 0.5 && pb);
      wrong += whole[k] != (int64_t{1} << 40) - 5;
    }
    CHECK(wrong == 0);
  }
}
