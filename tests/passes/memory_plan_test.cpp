// Memory planning: slots are reused only when happens-before allows it.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

TEST_CASE("a slot is reused on one stream once the old temp is dead", "[memory]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto t1 = p.temp<float>("t1");
    auto t2 = p.temp<float>("t2");
    auto e = p.event("e");
    auto f = p.event("f");
    t1 = x + 1;
    e.record();  // a sync splits kernels, so t1 and t2 live in memory
    e.wait();
    y = t1 * 2;
    f.record();
    f.wait();
    t2 = x + 3;  // t1 is dead: same slot
    e.record();
    e.wait();
    y = y + t2;
  });
  // The records and waits above are same-stream and implied: removed, so everything fuses.
  STATIC_REQUIRE(prog.plan().kernel_count() == 1);
  STATIC_REQUIRE(prog.plan().slot_count() == 0);
}

TEST_CASE("a temp used on two streams is not reused early", "[memory]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto a = p.output<float>("a");
    auto b = p.output<float>("b");
    auto t1 = p.temp<float>("t1");
    auto t2 = p.temp<float>("t2");
    auto side = p.stream("side");
    auto e = p.event("e");
    auto done = p.event("done");
    t1 = x * 2;
    e.record();
    sd::with_stream(side, [&] {
      e.wait();
      a = t1 + 1;
      done.record();
    });          // last use of t1, on side
    b = t1 * 3;  // also reads t1 on main: t1 is used by two kernels
    t2 = x + 5;  // main: not ordered after side's read of t1 -> must not share t1's slot
    b = b + t2;
    done.wait();
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.storage_of("t1") >= 0);
  STATIC_REQUIRE(plan.storage_of("t2") == sd::storage_register);  // t2 never leaves main's kernel
  STATIC_REQUIRE(plan.slot_count() == 1);
}

// t1 and t2 are each read on two streams, so both live in memory. t2 is
// written on main after side's read of t1; only when main waits for that read
// (`done`) may t2 take t1's slot.
template <bool OrderedReuse>
constexpr std::size_t reuse_slots() {
  sd::builder p;
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto b = p.output<float>("b");
  auto c = p.output<float>("c");
  auto y = p.output<float>("y");
  auto t1 = p.temp<float>("t1");
  auto t2 = p.temp<float>("t2");
  auto side = p.stream("side");
  auto e = p.event("e");
  auto f = p.event("f");
  auto done = p.event("done");
  t1 = x * 2;
  e.record();
  sd::with_stream(side, [&] {
    e.wait();
    a = t1 + 1;
    done.record();
  });
  b = t1 * 3;
  if (OrderedReuse) done.wait();
  t2 = x + 5;
  f.record();
  c = t2 + 1;
  sd::with_stream(side, [&] {
    f.wait();
    y = t2 * 2;
  });
  const auto m = sd::passes::schedule(static_cast<sd::builder&&>(p).ir(), sd::checked);
  return m.ir.ok() ? m.slots.size() : 99;
}

TEST_CASE("cross-stream reuse waits for happens-before", "[memory]") {
  STATIC_REQUIRE(reuse_slots<false>() == 2);
  STATIC_REQUIRE(reuse_slots<true>() == 1);
}
