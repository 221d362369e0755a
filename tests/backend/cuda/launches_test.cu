// Multi-segment launches (passes/join_launches.hpp) on the GPU: one grid
// runs several kernels of one stream, each block in one segment's virtual
// grid (fused_kernel.cuh's segmented_kernel). Each program's plan is checked
// to hold the launch the test is about, so a change in the joining pass
// cannot make a test pass without a multi-segment launch.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <utility>
#include <vector>

#include "device_buffer.hpp"

using gpu_test::device_buffer;

namespace {

// Kernels a plan launches alone, and the segments of each multi-segment launch.
constexpr std::size_t largest_launch(const sd::plan_view& plan) {
  std::size_t most = 0;
  for (std::size_t k = 0; k < plan.kernel_count(); ++k)
    if (plan.segments_of(k) > most) most = plan.segments_of(k);
  return most;
}

float value_at(std::size_t i, unsigned seed, float scale = 1.0f, float shift = 0.0f) {
  return shift + scale * static_cast<float>((i * 2654435761u + seed * 40503u) % 1000) / 1000.0f;
}

// ------------------------------------------------------------ Adam, two domains
// Adam over `Pairs` pairs of tensors, a big and a small one alternating in
// program order on one stream (issue 17's workload, smaller).
template <int Pairs>
constexpr auto adam_body() {
  return [](sd::builder& p) {
    auto big = p.domain("big");
    auto small = p.domain("small");
    auto w_big = p.inouts<float>("w_big", Pairs, big);
    auto m_big = p.inouts<float>("m_big", Pairs, big);
    auto v_big = p.inouts<float>("v_big", Pairs, big);
    auto g_big = p.inputs<float>("g_big", Pairs, big);
    auto w_small = p.inouts<float>("w_small", Pairs, small);
    auto m_small = p.inouts<float>("m_small", Pairs, small);
    auto v_small = p.inouts<float>("v_small", Pairs, small);
    auto g_small = p.inputs<float>("g_small", Pairs, small);
    auto b1 = p.param<float>("b1");
    auto b2 = p.param<float>("b2");
    auto lr = p.param<float>("lr");
    auto eps = p.param<float>("eps");
    auto adam = [&](auto w, auto m, auto v, auto g) {
      m = b1 * m + (1.0f - b1) * g;
      v = b2 * v + (1.0f - b2) * g * g;
      w = w - lr * m / (sd::sqrt(v) + eps);
    };
    for (int i = 0; i < Pairs; ++i) {
      adam(w_big[i], m_big[i], v_big[i], g_big[i]);
      adam(w_small[i], m_small[i], v_small[i], g_small[i]);
    }
  };
}
constexpr auto adam_4 = sd::program(adam_body<4>());
constexpr auto adam_32 = sd::program(adam_body<32>());

// The state of an Adam step: per role one host vector per tensor, the big
// tensors first. Tensors live in one device allocation per role at
// `offset` elements each (an odd size makes later tensors start off 16 bytes).
struct adam_state {
  int pairs;
  std::size_t big_n, small_n;
  std::vector<std::size_t> offset, size;
  std::size_t total = 0;
  std::vector<float> w, m, v, g;  // host copies, all tensors
  adam_state(int pairs_, std::size_t big, std::size_t small) : pairs(pairs_), big_n(big), small_n(small) {
    for (int t = 0; t < 2 * pairs; ++t) {
      offset.push_back(total);
      size.push_back(t % 2 == 0 ? big_n : small_n);
      total += size.back();
    }
    w.resize(total);
    m.resize(total);
    v.resize(total);
    g.resize(total);
    for (std::size_t i = 0; i < total; ++i) {
      w[i] = value_at(i, 1, 2.0f, -1.0f);
      m[i] = value_at(i, 2, 0.1f);
      v[i] = value_at(i, 3, 0.01f, 0.001f);
      g[i] = value_at(i, 4, 1.0f, -0.5f);
    }
  }
  // Bindings of the family members to `base` pointers (device or host).
  template <class Ptr>
  std::vector<sd::binding> bindings(Ptr* w_, Ptr* m_, Ptr* v_, const Ptr* g_) const {
    std::vector<sd::binding> out;
    auto family = [&](const char* name, Ptr* base, int parity) {
      std::vector<Ptr*> members;
      for (int t = parity; t < 2 * pairs; t += 2)
        members.push_back(base + offset[static_cast<std::size_t>(t)]);
      out.push_back(sd::bind(name, members, parity == 0 ? big_n : small_n));
    };
    auto inputs = [&](const char* name, const Ptr* base, int parity) {
      std::vector<const Ptr*> members;
      for (int t = parity; t < 2 * pairs; t += 2)
        members.push_back(base + offset[static_cast<std::size_t>(t)]);
      out.push_back(sd::bind(name, members, parity == 0 ? big_n : small_n));
    };
    family("w_big", w_, 0);
    family("m_big", m_, 0);
    family("v_big", v_, 0);
    inputs("g_big", g_, 0);
    family("w_small", w_, 1);
    family("m_small", m_, 1);
    family("v_small", v_, 1);
    inputs("g_small", g_, 1);
    out.push_back(sd::bind("b1", 0.9f));
    out.push_back(sd::bind("b2", 0.999f));
    out.push_back(sd::bind("lr", 1e-3f));
    out.push_back(sd::bind("eps", 1e-8f));
    return out;
  }
};

// The host executor's step (the same program): the expected state.
template <class Program>
void host_step(const Program& program, adam_state& s) {
  sd::host_executor ex;
  const auto b = s.bindings(s.w.data(), s.m.data(), s.v.data(), s.g.data());
  ex.run(program, sd::binding_list(b.data(), b.size()));
}

// Device state; `steps` runs of `run` (which is given the bindings); the
// result against as many steps of the host executor.
template <class Program, class Run>
void check_adam(const Program& program, int pairs, std::size_t big, std::size_t small, int steps, Run&& run) {
  adam_state s(pairs, big, small);
  device_buffer<float> w(s.w), m(s.m), v(s.v), g(s.g);
  const auto b = s.bindings(w.get(), m.get(), v.get(), g.cget());
  run(sd::binding_list(b.data(), b.size()), steps);
  for (int i = 0; i < steps; ++i) host_step(program, s);
  const auto ws = w.download(), ms = m.download(), vs = v.download();
  std::size_t bad = 0;
  auto close = [](float got, float want) {
    return std::fabs(got - want) <= 2e-5f * (1.0f + std::fabs(want));
  };
  for (std::size_t i = 0; i < s.total; ++i)
    bad += !close(ws[i], s.w[i]) || !close(ms[i], s.m[i]) || !close(vs[i], s.v[i]);
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("Adam over two domains interleaved on one stream: one launch, the host's results",
          "[cuda][launch][sanitize]") {
  constexpr auto plan = adam_4.plan();
  STATIC_REQUIRE(plan.launch_count() == 1);
  STATIC_REQUIRE(plan.segments_of(0) == 8);
  sd::cuda_executor ex;
  // 1001 and 37 floats: every other tensor starts off a 16-byte boundary.
  for (auto [big, small] : {std::pair<std::size_t, std::size_t>{1001, 37}, {4096, 64}, {100003, 5}})
    check_adam(adam_4, 4, big, small, 2, [&](sd::binding_list b, int steps) {
      for (int i = 0; i < steps; ++i) ex.run(adam_4, b);
    });
}

TEST_CASE("64 segments in one launch (the most a launch takes)", "[cuda][launch]") {
  constexpr auto plan = adam_32.plan();
  STATIC_REQUIRE(plan.launch_count() == 1);
  STATIC_REQUIRE(plan.segments_of(0) == sd::passes::max_launch_segments);
  sd::cuda_executor ex;
  check_adam(adam_32, 32, 70001, 129, 1, [&](sd::binding_list b, int) { ex.run(adam_32, b); });
}

TEST_CASE("a launch with an empty segment: its blocks go to the others", "[cuda][launch][sanitize]") {
  sd::cuda_executor ex;
  check_adam(adam_4, 4, 5003, 0, 1, [&](sd::binding_list b, int) { ex.run(adam_4, b); });
  check_adam(adam_4, 4, 0, 77, 1, [&](sd::binding_list b, int) { ex.run(adam_4, b); });
  check_adam(adam_4, 4, 0, 0, 1, [&](sd::binding_list b, int) { ex.run(adam_4, b); });  // launches nothing
}

TEST_CASE("graph mode: a multi-segment launch captured, replayed and rebound",
          "[cuda][launch][graph][sanitize]") {
  sd::cuda_executor ex;
  check_adam(adam_4, 4, 3001, 41, 3, [&](sd::binding_list b, int steps) {
    auto graph = sd::capture_bound(ex, adam_4, b);
    for (int i = 0; i < steps; ++i) graph.launch();
  });
  // Rebinding to other memory of the same sizes updates the graph in place.
  adam_state s(4, 3001, 41);
  device_buffer<float> w(s.w), m(s.m), v(s.v), g(s.g), w2(s.w), m2(s.m), v2(s.v);
  const auto b1 = s.bindings(w.get(), m.get(), v.get(), g.cget());
  const auto b2 = s.bindings(w2.get(), m2.get(), v2.get(), g.cget());
  auto graph = sd::capture_bound(ex, adam_4, sd::binding_list(b1.data(), b1.size()));
  graph.launch();
  graph.launch();            // w, m, v: two steps
  REQUIRE(b2.size() == 12);  // 8 families, 4 params
  [&]<std::size_t... I>(std::index_sequence<I...>) { graph.rebind(b2[I]...); }
  (std::make_index_sequence<12>{});
  CHECK(graph.updates() == 1);  // the launch's node updated in place: same shape, new arguments
  CHECK(graph.instantiations() == 1);
  graph.launch();  // w2, m2, v2: one step
  adam_state one(4, 3001, 41);
  host_step(adam_4, one);
  host_step(adam_4, s);
  host_step(adam_4, s);
  const auto ws = w.download(), w2s = w2.download();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < s.total; ++i) {
    bad += !(std::fabs(ws[i] - s.w[i]) <= 2e-5f * (1 + std::fabs(s.w[i])));
    bad += !(std::fabs(w2s[i] - one.w[i]) <= 2e-5f * (1 + std::fabs(one.w[i])));
  }
  CHECK(bad == 0);
}

TEST_CASE("separate launches (sd::separate_launches) give the joined launch's results", "[cuda][launch]") {
  constexpr auto separate = sd::program<sd::separate_launches>(adam_body<4>());
  STATIC_REQUIRE(largest_launch(separate.plan()) == 1);
  sd::cuda_executor ex;
  check_adam(separate, 4, 1001, 37, 1, [&](sd::binding_list b, int) { ex.run(separate, b); });
}

// ------------------------------------------------------------ mixed segments
namespace {

// Four domains, four element types, one stream: each statement its own
// segment. The __half and int results are exact; float and double are
// exact too (small integers and halves).
constexpr auto mixed = sd::program([](sd::builder& p) {
  auto a = p.domain("a");
  auto b = p.domain("b");
  auto c = p.domain("c");
  auto d = p.domain("d");
  auto xf = p.input<float>("xf", a);
  auto yf = p.output<float>("yf", a);
  auto xd = p.input<double>("xd", b);
  auto yd = p.output<double>("yd", b);
  auto xh = p.input<__half>("xh", c);
  auto yh = p.output<__half>("yh", c);
  auto xi = p.input<std::int32_t>("xi", d);
  auto yi = p.output<std::int32_t>("yi", d);
  auto k = p.input<float>("k", sd::scalar);  // broadcast into two segments
  auto q = p.param<std::int32_t>("q");
  yf = xf * k + 1.0f;
  yd = xd * 3.0 - 0.5;
  yh = sd::cast<__half>(xh + xh * k);
  yi = xi * q - 1;
});

}  // namespace

TEST_CASE("segments of different dtypes, vector widths and a broadcast 0-d input",
          "[cuda][launch][sanitize]") {
  constexpr auto plan = mixed.plan();
  STATIC_REQUIRE(plan.launch_count() == 1);
  STATIC_REQUIRE(plan.segments_of(0) == 4);
  for (std::size_t off : {0, 1, 3}) {  // pointers 0, 1 and 3 elements past an allocation's start
    const std::size_t na = 1000 + off, nb = 333, nc = 4099, nd = 17;
    std::vector<float> xf(na + off), kf = {2.0f};
    std::vector<double> xd(nb + off);
    std::vector<__half> xh(nc + off);
    std::vector<std::int32_t> xi(nd + off);
    for (std::size_t i = 0; i < xf.size(); ++i) xf[i] = static_cast<float>(i % 97) - 40;
    for (std::size_t i = 0; i < xd.size(); ++i) xd[i] = static_cast<double>(i % 31) + 0.25;
    for (std::size_t i = 0; i < xh.size(); ++i) xh[i] = __float2half(static_cast<float>(i % 61) - 30);
    for (std::size_t i = 0; i < xi.size(); ++i) xi[i] = static_cast<std::int32_t>(i % 53) - 20;
    device_buffer<float> dxf(xf), dyf(na + off), dk(kf);
    device_buffer<double> dxd(xd), dyd(nb + off);
    device_buffer<__half> dxh(xh), dyh(nc + off);
    device_buffer<std::int32_t> dxi(xi), dyi(nd + off);
    sd::cuda_executor ex;
    ex.run(mixed, sd::bind("xf", dxf.cget() + off, na), sd::bind("yf", dyf.get() + off, na),
           sd::bind("xd", dxd.cget() + off, nb), sd::bind("yd", dyd.get() + off, nb),
           sd::bind("xh", dxh.cget() + off, nc), sd::bind("yh", dyh.get() + off, nc),
           sd::bind("xi", dxi.cget() + off, nd), sd::bind("yi", dyi.get() + off, nd),
           sd::bind("k", dk.cget(), 1), sd::bind("q", std::int32_t{7}));
    // The host executor's results (the same element semantics; these
    // values are exact in every type).
    std::vector<float> yf(na);
    std::vector<double> yd(nb);
    std::vector<__half> yh(nc);
    std::vector<std::int32_t> yi(nd);
    sd::host_executor host;
    host.run(mixed, sd::bind("xf", xf.data() + off, na), sd::bind("yf", yf.data(), na),
             sd::bind("xd", xd.data() + off, nb), sd::bind("yd", yd.data(), nb),
             sd::bind("xh", xh.data() + off, nc), sd::bind("yh", yh.data(), nc),
             sd::bind("xi", xi.data() + off, nd), sd::bind("yi", yi.data(), nd), sd::bind("k", kf.data(), 1),
             sd::bind("q", std::int32_t{7}));
    const auto gf = dyf.download();
    const auto gd = dyd.download();
    const auto gh = dyh.download();
    const auto gi = dyi.download();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < na; ++i) bad += gf[i + off] != yf[i] || yf[i] != xf[i + off] * 2.0f + 1.0f;
    for (std::size_t i = 0; i < nb; ++i) bad += gd[i + off] != yd[i] || yd[i] != xd[i + off] * 3.0 - 0.5;
    for (std::size_t i = 0; i < nc; ++i) bad += __half2float(gh[i + off]) != __half2float(yh[i]);
    for (std::size_t i = 0; i < nd; ++i) bad += gi[i + off] != yi[i] || yi[i] != xi[i + off] * 7 - 1;
    CHECK(bad == 0);
  }
}

namespace {

// A chunk of x (parts 3) as one segment beside a whole buffer of another
// domain: chunk 1 of 3 of 3003 floats starts 4004 bytes in, off a 16-byte
// boundary, and takes the vector path from its first aligned element.
constexpr auto chunked = sd::program([](sd::builder& p) {
  auto other = p.domain("other");
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto u = p.input<float>("u", other);
  auto z = p.output<float>("z", other);
  y.chunk(1, 3) = x.chunk(1, 3) * 2.0f;
  z = u + 1.0f;
  y.chunk(2, 3) = x.chunk(2, 3) - 1.0f;
});

}  // namespace

TEST_CASE("a chunk (parts > 1) as a segment, off a 16-byte boundary", "[cuda][launch][chunk][sanitize]") {
  constexpr auto plan = chunked.plan();
  STATIC_REQUIRE(largest_launch(plan) >= 2);
  for (std::size_t n : {3003, 30003, 3, 0}) {  // multiples of 3; 0: an empty chunk segment
    std::vector<float> xs(n), us(n / 2 + 5);
    for (std::size_t i = 0; i < n; ++i) xs[i] = static_cast<float>(i % 101);
    for (std::size_t i = 0; i < us.size(); ++i) us[i] = static_cast<float>(i % 13);
    const std::vector<float> untouched(n, -7.0f);
    device_buffer<float> x(xs), y(untouched), u(us), z(us.size());
    sd::cuda_executor ex;
    ex.run(chunked, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("u", u.cget(), us.size()),
           sd::bind("z", z.get(), us.size()));
    const auto ys = y.download(), zs = z.download();
    std::vector<float> want_y(untouched), want_z(us.size());
    sd::host_executor host;
    host.run(chunked, sd::bind("x", xs), sd::bind("y", want_y), sd::bind("u", us), sd::bind("z", want_z));
    std::size_t bad = 0, written = 0;
    for (std::size_t i = 0; i < n; ++i) {
      bad += ys[i] != want_y[i];
      written += want_y[i] != -7.0f;
    }
    CHECK(written >= n / 3);  // the host wrote chunks 1 and 2
    for (std::size_t i = 0; i < us.size(); ++i) bad += zs[i] != us[i] + 1.0f;
    CHECK(bad == 0);
  }
}

TEST_CASE("a failed multi-segment launch names the launch's kernels and statements", "[cuda][launch]") {
#if !defined(__CUDA_ARCH__)  // describe_op is host code (cuda_executor.hpp)
  constexpr auto plan = adam_4.plan();
  std::size_t op = 0;
  while (plan.ops[op].kind != sd::op_kind::kernel) ++op;
  const auto text = sd::cuda_detail::describe_op(plan, op);
  const std::string s(text.view().data(), text.view().size());
  CHECK(s.find("launch of kernels k0 to k7") != std::string::npos);
  CHECK(s.find("k7: `") != std::string::npos);
  CHECK(s.find("on stream 'main'") != std::string::npos);
#endif
}

// ------------------------------------------------------------ the launch's table
// lay_out_segments (kernel_table.hpp) is host code: the table a
// multi-segment launch passes, checked field by field without launching.
#if !defined(__CUDA_ARCH__)
namespace {

constexpr std::size_t first_launch(const sd::plan_view& plan) {
  for (std::size_t k = 0; k < plan.kernel_count(); ++k)
    if (plan.segments_of(k) > 1) return k;
  return 0;
}

// Fake, 16-byte aligned addresses per plan buffer (nothing is launched),
// domain d of extent + 3 d elements.
template <std::size_t K, class Program>
void check_table(const Program&, long long extent, long long max_blocks) {
  namespace cd = sd::cuda_detail;
  using pack = cd::launch_pack<Program, K>;
  constexpr auto plan = Program::plan();
  std::vector<void*> buffers(plan.ir.buffers.size());
  for (std::size_t b = 0; b < buffers.size(); ++b)
    buffers[b] = reinterpret_cast<void*>(std::uintptr_t{0x100000} * (b + 1));
  std::vector<unsigned long long> params(plan.ir.params.size());
  for (std::size_t q = 0; q < params.size(); ++q) params[q] = 1000 + q;
  std::vector<long long> extents(plan.ir.domains.size());
  for (std::size_t d = 0; d < extents.size(); ++d) extents[d] = extent + static_cast<long long>(d) * 3;
  const cd::launch_context ctx{buffers.data(), params.data(), extents.data(), max_blocks};
  typename pack::args args{};
  const long long total =
      cd::lay_out_segments(ctx, pack::info, args.first_block, args.segment, args.ptr, args.param_bits);
  long long sum = 0;
  bool capped = false;
  for (int s = 0; s < pack::segments; ++s) {
    const auto& e = args.segment[s];
    const auto& kernel = pack::kernels[s];
    const cd::pack_view code{kernel.code};
    INFO("segment " << s);
    CHECK(args.first_block[s] == sum);
    sum += e.blocks;
    CHECK(e.body == pack::layout.body_of[s]);
    CHECK(e.ptr_base == pack::layout.ptr_base[s]);
    CHECK(e.param_base == pack::layout.param_base[s]);
    const long long n =
        kernel.domain < 0 ? 1 : extents[static_cast<std::size_t>(kernel.domain)] / kernel.parts;
    CHECK(e.shape.n == n);
    const long long wanted = (n + 256LL * code.vec() - 1) / (256LL * code.vec());
    if (e.blocks != wanted) capped = true;
    CHECK(e.blocks <= wanted);
    CHECK((n == 0) == (e.blocks == 0));
    for (int b = 0; b < code.buffer_count(); ++b) {
      auto* at = static_cast<char*>(buffers[static_cast<std::size_t>(kernel.buffer_ids[b])]);
      if (kernel.buffer_parts[b] != 0)
        at += static_cast<long long>(kernel.buffer_parts[b]) *
              (extents[static_cast<std::size_t>(kernel.domain)] / kernel.parts) *
              static_cast<long long>(sd::size_of(code.buffer_type(b)));
      CHECK(args.ptr[e.ptr_base + b] == at);
    }
    for (int q = 0; q < code.param_count(); ++q)
      CHECK(args.param_bits[e.param_base + q] == 1000ull + static_cast<unsigned>(kernel.param_ids[q]));
  }
  CHECK(total == sum);
  CHECK(total <= max_blocks);
  CHECK(capped == (max_blocks < 1'000'000));
}

}  // namespace

TEST_CASE("a launch's table: first blocks, blocks per segment, pointers, params", "[cuda][launch]") {
  check_table<0>(adam_4, 100000, 1 << 30);
  check_table<0>(adam_4, 100000, 40);  // scaled down
  check_table<0>(adam_4, 0, 1 << 30);  // empty segments
  constexpr auto k = first_launch(chunked.plan());
  check_table<k>(chunked, 3003, 1 << 30);  // chunks off 16 bytes
  check_table<0>(mixed, 5000, 1 << 30);
}

TEST_CASE("launch functions: one per launch, a kernel alone keeps its fused_kernel entry", "[cuda][launch]") {
  namespace cd = sd::cuda_detail;
  using adam = std::remove_cvref_t<decltype(adam_4)>;
  constexpr auto& table = cd::launchers<adam>;
  CHECK(table[0] == &cd::launch_entry<adam, 0, cd::default_unroll>::launch);
  for (std::size_t k = 1; k < 8; ++k) CHECK(table[k] == nullptr);  // later segments: no op names them
  constexpr auto separate = sd::program<sd::separate_launches>(adam_body<4>());
  using alone = std::remove_cvref_t<decltype(separate)>;
  constexpr auto& own = cd::launchers<alone>;
  CHECK(own[0] == &cd::kernel_entry<alone, 0, cd::default_unroll>::launch);
  CHECK(own[7] == &cd::kernel_entry<alone, 7, cd::default_unroll>::launch);
}
#endif
