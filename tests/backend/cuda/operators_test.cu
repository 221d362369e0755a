// Every elementwise operator and dtype, edge cases and params on the CUDA executor: the host executor's test
// source, compiled by nvcc, where tests/backend/executor_under_test.hpp runs sd::cuda_executor.
#include "../host/operators_test.cpp"

// Below, GPU only: the operators of issue 13 on every integer width and on
// float and double, over pseudo-random data with the types' extremes, run on
// the GPU and on the host executor and compared: bit for bit, except the
// transcendental functions, which stay within the bounds stated in
// ../host/operators_test.cpp (erf, exp2, log1p 4 ulps, pow 8, gelu and
// gelu_tanh 8 ulps of max(|x|, |result|)).
#include <streamdsl/backend/host/host_executor.hpp>

namespace {

template <class T>
constexpr auto integer_ops_gpu = sd::program([](sd::builder& p) {
  auto a = p.input<T>("a");
  auto b = p.input<T>("b");
  p.output<T>("o0") = a + b;
  p.output<T>("o1") = a - b;
  p.output<T>("o2") = a * b;
  p.output<T>("o3") = a / b;
  p.output<T>("o4") = a % b;
  p.output<T>("o5") = sd::pow(a, b % 70);
  p.output<T>("o6") = a & b;
  p.output<T>("o7") = a | b;
  p.output<T>("o8") = a ^ b;
  p.output<T>("o9") = a << b;
  p.output<T>("o10") = a >> b;
  p.output<T>("o11") = ~a;
  p.output<T>("o12") = sd::min(a, b) + sd::max(a, b);
  p.output<T>("o13") = -a;
  p.output<T>("o14") = sd::abs(a);
  p.output<T>("o15") = sd::floor(a) + sd::round(b);
  p.output<T>("o16") = sd::fmod(b, a);
});
constexpr const char* output_names[] = {"o0", "o1",  "o2",  "o3",  "o4",  "o5",  "o6",  "o7", "o8",
                                        "o9", "o10", "o11", "o12", "o13", "o14", "o15", "o16"};

// a, b and one output per name, bound to `outs`.
template <class T>
std::vector<sd::binding> bindings(std::vector<T>& a, std::vector<T>& b, std::vector<std::vector<T>>& outs) {
  std::vector<sd::binding> list{sd::bind("a", a), sd::bind("b", b)};
  for (std::size_t k = 0; k < outs.size(); ++k) list.push_back(sd::bind(output_names[k], outs[k]));
  return list;
}

// Deterministic pseudo-random bits (splitmix64).
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

template <class T>
void check_integer_ops_against_host() {
  constexpr std::size_t m = 5000;
  constexpr std::size_t members = 17;
  std::vector<T> a(m), b(m);
  const T edges[] = {T(0),
                     T(1),
                     static_cast<T>(-1),
                     std::numeric_limits<T>::min(),
                     std::numeric_limits<T>::max(),
                     T(sizeof(T) * 8),
                     T(sizeof(T) * 8 - 1)};
  for (std::size_t i = 0; i < m; ++i) {
    const auto r = mix(i);
    a[i] = r % 5 == 0 ? edges[(r >> 8) % 7] : static_cast<T>(r >> 16);
    b[i] = r % 7 == 0   ? edges[(r >> 12) % 7]
           : r % 3 == 0 ? static_cast<T>((r >> 20) % 80)
                        : static_cast<T>(r >> 24);
  }
  std::vector<std::vector<T>> gpu(members, std::vector<T>(m)), host(members, std::vector<T>(m));
  backend_test::executor ex;
  const auto on_gpu_bindings = bindings(a, b, gpu);
  ex.run(integer_ops_gpu<T>, std::span<const sd::binding>(on_gpu_bindings));
  sd::host_executor on_host;
  const auto on_host_bindings = bindings(a, b, host);
  on_host.run(integer_ops_gpu<T>, sd::binding_list(on_host_bindings));
  for (std::size_t k = 0; k < members; ++k) {
    INFO("out[" << k << "]");
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < m; ++i) wrong += gpu[k][i] != host[k][i];
    CHECK(wrong == 0);
  }
}

// o0-o4 exact, o5-o8 within ulps (pow, erf, exp2, log1p), o9-o10 gelu and gelu_tanh.
template <class T>
constexpr auto float_ops_gpu = sd::program([](sd::builder& p) {
  auto a = p.input<T>("a");
  auto b = p.input<T>("b");
  p.output<T>("o0") = sd::floor(a);
  p.output<T>("o1") = sd::ceil(a);
  p.output<T>("o2") = sd::round(a);
  p.output<T>("o3") = sd::fmod(a, b);
  p.output<T>("o4") = a * b + a / b - sd::min(a, b);
  p.output<T>("o5") = sd::pow(a, b);
  p.output<T>("o6") = sd::erf(a);
  p.output<T>("o7") = sd::exp2(a);
  p.output<T>("o8") = sd::log1p(a);
  p.output<T>("o9") = sd::gelu(a);
  p.output<T>("o10") = sd::gelu_tanh(a);
});

template <class T>
void check_float_ops_against_host() {
  constexpr std::size_t m = 5000;
  std::vector<T> a(m), b(m);
  const T edges[] = {T(0.5),
                     T(-0.5),
                     T(2.5),
                     T(-2.5),
                     T(-0.0),
                     std::numeric_limits<T>::infinity(),
                     -std::numeric_limits<T>::infinity(),
                     std::numeric_limits<T>::quiet_NaN(),
                     T(1e30),
                     T(-1)};
  for (std::size_t i = 0; i < m; ++i) {
    const auto r = mix(i + 77);
    const T unit = static_cast<T>(static_cast<double>(r >> 11) * 0x1.0p-53);  // [0, 1)
    a[i] = r % 11 == 0 ? edges[(r >> 4) % 10] : (unit - T(0.5)) * T(20);
    b[i] = r % 13 == 0 ? edges[(r >> 6) % 10] : static_cast<T>((r >> 32) % 9) * T(0.5) - T(1);
  }
  std::vector<std::vector<T>> gpu(11, std::vector<T>(m)), host(11, std::vector<T>(m));
  backend_test::executor ex;
  const auto on_gpu_bindings = bindings(a, b, gpu);
  ex.run(float_ops_gpu<T>, std::span<const sd::binding>(on_gpu_bindings));
  sd::host_executor on_host;
  const auto on_host_bindings = bindings(a, b, host);
  on_host.run(float_ops_gpu<T>, sd::binding_list(on_host_bindings));
  const std::uint64_t bounds[] = {gpu_ulps_pow, gpu_ulps_elementary, gpu_ulps_elementary,
                                  gpu_ulps_elementary};
  std::size_t wrong_exact = 0, wrong_close = 0, wrong_gelu = 0;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t k = 0; k < 5; ++k) wrong_exact += !same_bits(gpu[k][i], host[k][i]);
    for (std::size_t k = 0; k < 4; ++k)
      wrong_close += ulp_distance(gpu[5 + k][i], host[5 + k][i]) > bounds[k];
    for (std::size_t k = 0; k < 2; ++k) wrong_gelu += !gelu_close(gpu[9 + k][i], host[9 + k][i], a[i]);
  }
  CHECK(wrong_exact == 0);
  CHECK(wrong_close == 0);
  CHECK(wrong_gelu == 0);
}

}  // namespace

TEST_CASE("GPU against the host: integer operators on every width, bit for bit",
          "[cuda][operators][widths]") {
  check_integer_ops_against_host<std::int8_t>();
  check_integer_ops_against_host<std::int16_t>();
  check_integer_ops_against_host<std::int32_t>();
  check_integer_ops_against_host<std::int64_t>();
  check_integer_ops_against_host<std::uint8_t>();
  check_integer_ops_against_host<std::uint16_t>();
  check_integer_ops_against_host<std::uint32_t>();
  check_integer_ops_against_host<std::uint64_t>();
}

TEST_CASE("GPU against the host: rounding, fmod, pow and the transcendentals on float and double",
          "[cuda][operators]") {
  check_float_ops_against_host<float>();
  check_float_ops_against_host<double>();
}
