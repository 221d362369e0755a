// join_launches: a stream's kernels between syncs become launches of
// independent kernels, a kernel joining the same-shape kernels it depends on.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

// Two domains written tensor by tensor, as an optimizer step is.
constexpr auto interleaved = sd::program([](sd::builder& p) {
  auto a = p.domain("a");
  auto b = p.domain("b");
  auto lr = p.param<float>("lr");
  auto wa = p.inouts<float>("wa", 3, a);
  auto ga = p.inputs<float>("ga", 3, a);
  auto wb = p.inouts<float>("wb", 3, b);
  auto gb = p.inputs<float>("gb", 3, b);
  for (int i = 0; i < 3; ++i) {
    wa[i] = wa[i] - lr * ga[i];
    wb[i] = wb[i] - lr * gb[i];
  }
});

}  // namespace

TEST_CASE("join_launches: independent kernels of two domains are one launch", "[passes][join_launches]") {
  constexpr auto plan = interleaved.plan();
  STATIC_REQUIRE(plan.kernel_count() == 6);
  STATIC_REQUIRE(plan.launch_count() == 1);
  STATIC_REQUIRE(plan.kernels[0].segments == 6);
  STATIC_REQUIRE(plan.kernels[1].segments == 0);
  // Segments in program order, each of one domain.
  STATIC_REQUIRE(plan.kernels[0].domain != plan.kernels[1].domain);
  STATIC_REQUIRE(plan.kernels[0].domain == plan.kernels[2].domain);
  STATIC_REQUIRE(plan.has_note("run as one launch"));
  STATIC_REQUIRE(!plan.has_note("regrouped"));  // nothing moved: each kernel is one tensor's statement
  STATIC_REQUIRE(sd::dump(plan).view().find("launch of 6 kernels, one grid {") !=
                 sd::detail::string_view::npos);
}

TEST_CASE("join_launches: separate_launches keeps a launch per kernel", "[passes][join_launches]") {
  constexpr auto separate = sd::program<sd::separate_launches>([](sd::builder& p) {
    auto a = p.domain("a");
    auto b = p.domain("b");
    auto x = p.inout<float>("x", a);
    auto y = p.inout<float>("y", b);
    x = x + 1;
    y = y + 1;
  });
  STATIC_REQUIRE(separate.plan().kernel_count() == 2);
  STATIC_REQUIRE(separate.plan().launch_count() == 2);
}

TEST_CASE("join_launches: a kernel joins the kernel it depends on across independent ones",
          "[passes][join_launches]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto a = p.domain("a");
    auto b = p.domain("b");
    auto x = p.input<float>("x", a);
    auto t = p.temp<float>("t", a);
    auto y = p.output<float>("y", a);
    auto u = p.inout<float>("u", b);
    t = x * 2;  // #0 segment over a
    u = u + 1;  // #1 segment over b
    y = t + 1;  // #2 reads #0's t: joins #0's segment (t stays in registers)
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 2);
  STATIC_REQUIRE(plan.launch_count() == 1);
  STATIC_REQUIRE(plan.kernels[0].count == 2);
  STATIC_REQUIRE(plan.storage_of("t") == sd::storage_register);
  STATIC_REQUIRE(plan.has_note("regrouped out of program order"));
}

TEST_CASE("join_launches: a dependence on another shape ends the launch", "[passes][join_launches]") {
  // A 0-d value computed once, then used over a domain: its kernel must finish first.
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto a = p.domain("a");
    auto b = p.domain("b");
    auto s = p.inout<float>("s", sd::scalar);
    auto x = p.inout<float>("x", a);
    auto y = p.inout<float>("y", b);
    y = y + 1;  // #0 over b
    s = s * 2;  // #1 0-d: independent of #0, same launch
    x = x * s;  // #2 over a reads #1's s: another launch
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 3);
  STATIC_REQUIRE(plan.launch_count() == 2);
  STATIC_REQUIRE(plan.kernels[0].segments == 2);
  STATIC_REQUIRE(plan.kernels[2].segments == 1);
}

TEST_CASE("join_launches: a sync or a step ends the launch", "[passes][join_launches]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto a = p.domain("a");
    auto b = p.domain("b");
    auto x = p.inout<float>("x", a);
    auto y = p.inout<float>("y", b);
    auto z = p.output<float>("z", b);
    x = x + 1;       // #0
    sd::copy(z, y);  // #1 a step between
    y = y * 2;       // #2
    x = x * 2;       // #3
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 3);
  STATIC_REQUIRE(plan.launch_count() == 2);
}

TEST_CASE("join_launches: a one-domain program's plan has no multi-kernel launch",
          "[passes][join_launches]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto side = p.stream("side");
    auto e = p.event("e");
    y = x + 1;
    e.record();
    sd::with_stream(side, [&] {
      e.wait();
      y = y * 2;
    });
  });
  STATIC_REQUIRE(prog.plan().launch_count() == prog.plan().kernel_count());
  STATIC_REQUIRE(!prog.plan().has_note("fusion:"));
}

TEST_CASE("join_launches: temps of one launch's kernels never share a slot", "[passes][join_launches]") {
  // t1 is last read (#3) before t2 is first written (#5) in program order,
  // but both in one launch, whose kernels run at once: sharing a slot would
  // let #5 overwrite t1 while #3 reads it.
  constexpr auto body = [](sd::builder& p) {
    auto a = p.domain("a");
    auto b = p.domain("b");
    auto x = p.input<float>("x", a);
    auto w = p.inout<float>("w", b);
    auto h = p.output<float>("h", b);
    auto o1 = p.output<float>("o1", a);
    auto o2 = p.output<float>("o2", a);
    auto t1 = p.temp<float>("t1", a);
    auto t2 = p.temp<float>("t2", a);
    t1 = x + 1;      // #0
    sd::copy(h, w);  // #1 ends the launch: t1 is read by another kernel
    o1 = t1 * 2;     // #2 -
    w = w + 1;       // #3  one launch: three kernels
    t2 = x * 3;      // #4 -
    sd::copy(h, w);  // #5
    o2 = t2 + 1;     // #6
  };
  constexpr auto prog = sd::program(body);
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernels[1].segments == 3);
  STATIC_REQUIRE(plan.storage_of("t1") >= 0);
  STATIC_REQUIRE(plan.storage_of("t2") >= 0);
  STATIC_REQUIRE(plan.storage_of("t1") != plan.storage_of("t2"));
  constexpr auto separate = sd::program<sd::separate_launches>(body);
  // Launched one by one, the kernels run in order and the slot is shared.
  STATIC_REQUIRE(separate.plan().storage_of("t1") == separate.plan().storage_of("t2"));
}

namespace {
// An update of `Tensors` tensors of one size, tensor by tensor: 3 buffers each.
template <int Tensors>
constexpr auto one_size_body = [](sd::builder& p) {
  auto lr = p.param<float>("lr");
  auto scale = p.input<float>("scale", sd::scalar);  // 0-d: read once, not counted
  auto w = p.inouts<float>("w", Tensors);
  auto m = p.inouts<float>("m", Tensors);
  auto g = p.inputs<float>("g", Tensors);
  for (int i = 0; i < Tensors; ++i) {
    m[i] = m[i] * 0.5f + g[i] * scale;
    w[i] = w[i] - lr * m[i];
  }
};
template <int Tensors>
constexpr auto one_size_update = sd::program(one_size_body<Tensors>);
}  // namespace

TEST_CASE("split_wide_runs: a run of independent tensors past the buffer limit is split",
          "[passes][join_launches]") {
  static_assert(sd::passes::max_fused_buffers == 16, "the cases below count on it");
  // 5 tensors: 15 buffers, one loop.
  STATIC_REQUIRE(one_size_update<5>.plan().kernel_count() == 1);
  STATIC_REQUIRE(!one_size_update<5>.plan().has_note("split"));
  // 6 tensors: 18 buffers, two kernels of 3 tensors, one launch.
  constexpr auto plan = one_size_update<6>.plan();
  STATIC_REQUIRE(plan.kernel_count() == 2);
  STATIC_REQUIRE(plan.launch_count() == 1);
  STATIC_REQUIRE(plan.kernels[0].count == 6);
  STATIC_REQUIRE(plan.kernels[1].count == 6);
  STATIC_REQUIRE(plan.has_note("touches 18 buffers per element: split into 2 kernels"));
  // 16 tensors (48 buffers): as few kernels as 16 buffers each allow, evened out: 4 of 4 tensors.
  constexpr auto wide = one_size_update<16>.plan();
  STATIC_REQUIRE(wide.kernel_count() == 4);
  STATIC_REQUIRE(wide.kernels[3].count == 8);
  STATIC_REQUIRE(wide.launch_count() == 1);
}

TEST_CASE("split_wide_runs: independent parts are packed up to the limit", "[passes][join_launches]") {
  // Nine parts of 2 buffers: 18 > 16, packed as 8 parts and 1.
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.inputs<float>("x", 9);
    auto y = p.outputs<float>("y", 9);
    for (int i = 0; i < 9; ++i) y[i] = x[i] + 1;
  });
  STATIC_REQUIRE(prog.plan().kernel_count() == 2);
  STATIC_REQUIRE(prog.plan().kernels[0].count == 8);
  STATIC_REQUIRE(prog.plan().kernels[1].count == 1);
  STATIC_REQUIRE(prog.plan().launch_count() == 1);
}

TEST_CASE("split_wide_runs: statements that share buffers stay in one loop", "[passes][join_launches]") {
  // A chain over 20 buffers: every statement reads the one before.
  constexpr auto chain = sd::program([](sd::builder& p) {
    auto x = p.inputs<float>("x", 10);
    auto y = p.outputs<float>("y", 10);
    y[0] = x[0] + 1;
    for (int i = 1; i < 10; ++i) y[i] = y[i - 1] + x[i];
  });
  STATIC_REQUIRE(chain.plan().kernel_count() == 1);
  // separate_launches (the baseline) keeps the wide loop.
  STATIC_REQUIRE(sd::program<sd::separate_launches>(one_size_body<6>).plan().kernel_count() == 1);
}
