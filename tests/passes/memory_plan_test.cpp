// Memory planning: slots are reused only when happens-before allows it.
#include <catch2/catch.hpp>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

// t1 and t2 each span two kernels of main (a statement of another domain
// between them ends each run, and the kernels are launched one by one:
// joined into one launch, every temp would stay in registers), so both need memory; t1 is dead before t2's
// first access, so t2 takes t1's slot. Reading t1 after t2 is written keeps
// them apart.
template <bool ReadT1Late>
constexpr auto one_stream_temps = [](sd::builder& p) {
  auto d = p.domain("d");
  auto x = p.input<float>("x");
  auto xd = p.input<float>("xd", d);
  auto y = p.output<float>("y");
  auto yd = p.output<float>("yd", d);
  auto t1 = p.temp<float>("t1");
  auto t2 = p.temp<float>("t2");
  t1 = x + 1;
  yd = xd * 2;  // another domain: a kernel boundary
  y = t1 * 2;   // t1's last use unless ReadT1Late
  yd = yd + 1;
  t2 = x + 3;
  yd = yd * 3;
  y = y + t2;
  if (ReadT1Late) y = y + t1;
};

TEST_CASE("a slot is reused on one stream once the old temp is dead", "[memory]") {
  constexpr auto reused = sd::program<sd::separate_launches>(one_stream_temps<false>);
  STATIC_REQUIRE(reused.plan().storage_of("t1") >= 0);
  STATIC_REQUIRE(reused.plan().storage_of("t2") == reused.plan().storage_of("t1"));
  STATIC_REQUIRE(reused.plan().slot_count() == 1);
  constexpr auto overlapping = sd::program<sd::separate_launches>(one_stream_temps<true>);
  STATIC_REQUIRE(overlapping.plan().slot_count() == 2);
  STATIC_REQUIRE(overlapping.plan().storage_of("t2") != overlapping.plan().storage_of("t1"));
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

TEST_CASE("memory plan: a temp used chunk by chunk, each chunk in one kernel, lives in registers",
          "[passes][memory][regions]") {
  // Per chunk: t.chunk(i) and u.chunk(i) are computed and read in the chunk's
  // kernel only (the copy after it ends the run), and v is read whole.
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto z = p.output<float>("z");
    auto t = p.temp<float>("t");
    auto u = p.temp<float>("u");
    auto v = p.temp<float>("v");
    for (int i = 0; i < 4; ++i) {
      t.chunk(i, 4) = x.chunk(i, 4) * 2;
      u.chunk(i, 4) = t.chunk(i, 4) + 1;
      v.chunk(i, 4) = u.chunk(i, 4);
      y.chunk(i, 4) = u.chunk(i, 4) - 3;
      sd::copy(z.chunk(i, 4), y.chunk(i, 4));
    }
    y = y + v;
  });
  constexpr auto plan = prog.plan();
  STATIC_REQUIRE(plan.kernel_count() == 5);
  STATIC_REQUIRE(plan.storage_of("t") == sd::storage_register);
  STATIC_REQUIRE(plan.storage_of("u") == sd::storage_register);
  STATIC_REQUIRE(plan.storage_of("v") >= 0);  // read whole by the last kernel
  STATIC_REQUIRE(plan.slot_count() == 1);
  std::vector<float> x(8), y(8), z(8);
  for (int i = 0; i < 8; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>(i);
  sd::host_executor ex;
  ex.run(prog, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
  for (int i = 0; i < 8; ++i) {
    const float u = i * 2.0f + 1;
    CHECK(z[static_cast<std::size_t>(i)] == u - 3);
    CHECK(y[static_cast<std::size_t>(i)] == u - 3 + u);
  }
}

TEST_CASE("memory plan: a chunk touched by two kernels keeps a slot", "[passes][memory][regions]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto t = p.temp<float>("t");
    auto z = p.output<float>("z");
    t.chunk(0, 2) = x.chunk(0, 2) * 2;
    sd::copy(z, x);  // the next statement is another kernel
    y.chunk(0, 2) = t.chunk(0, 2) + 1;
    t.chunk(1, 2) = x.chunk(1, 2);
    y.chunk(1, 2) = t.chunk(1, 2);
  });
  STATIC_REQUIRE(prog.plan().storage_of("t") >= 0);
}

TEST_CASE("memory plan: a slot is shared only when every stream's first access of the new temp follows",
          "[passes][memory][regions]") {
  // t2's chunk 0 on main follows t1's accesses, but its chunk 1 on side does
  // not follow main's copy of t1: sharing t1's slot would let side overwrite
  // t1 while main still copies it.
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto z = p.output<float>("z");
    auto w = p.output<float>("w");
    auto t1 = p.temp<float>("t1");
    auto t2 = p.temp<float>("t2");
    auto side = p.stream("side");
    auto e1 = p.event("e1"), e2 = p.event("e2");
    sd::with_stream(side, [&] {
      t1 = x + 1;
      e1.record();
    });
    e1.wait();
    sd::copy(z, t1);
    t2.chunk(0, 2) = x.chunk(0, 2) * 3;
    sd::with_stream(side, [&] {
      t2.chunk(1, 2) = x.chunk(1, 2) * 3;
      e2.record();
    });
    e2.wait();
    sd::copy(w, t2);
  });
  STATIC_REQUIRE(prog.plan().storage_of("t1") >= 0);
  STATIC_REQUIRE(prog.plan().storage_of("t2") >= 0);
  STATIC_REQUIRE(prog.plan().storage_of("t1") != prog.plan().storage_of("t2"));
}

// The statement that reads a temp for the last time may write the next
// occupant of its slot when it is elementwise (it reads element i before it
// writes element i), not when it is a step such as a copy: a step's
// accesses must all be ordered apart. (The memory plan judges a slot
// against bounds from the new temp's first accesses, one more on the
// stream of an elementwise one: this pins both sides of that one.)
template <bool Copy>
constexpr auto last_read_writes_next = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto w = p.output<float>("w");
  auto t1 = p.temp<float>("t1");
  auto t2 = p.temp<float>("t2");
  t1 = x + 1;
  sd::copy(z, x);  // a step ends the kernel: t1 is touched by two kernels
  if constexpr (Copy)
    sd::copy(t2, t1);
  else
    t2 = t1 * 2;  // t1's last access, t2's first
  sd::copy(w, x);
  y = t2 + 1;
};

TEST_CASE("memory plan: the statement reading a temp last may write the slot's next temp if elementwise",
          "[passes][memory]") {
  constexpr auto elementwise = sd::program(last_read_writes_next<false>);
  STATIC_REQUIRE(elementwise.plan().storage_of("t1") >= 0);
  STATIC_REQUIRE(elementwise.plan().storage_of("t2") == elementwise.plan().storage_of("t1"));
  STATIC_REQUIRE(elementwise.plan().slot_count() == 1);
  constexpr auto copied = sd::program(last_read_writes_next<true>);
  STATIC_REQUIRE(copied.plan().storage_of("t1") >= 0);
  STATIC_REQUIRE(copied.plan().storage_of("t2") >= 0);
  STATIC_REQUIRE(copied.plan().storage_of("t2") != copied.plan().storage_of("t1"));
  STATIC_REQUIRE(copied.plan().slot_count() == 2);
  // Both give the sequential results.
  std::vector<float> x(5), y(5), z(5), w(5);
  for (std::size_t i = 0; i < 5; ++i) x[i] = static_cast<float>(i);
  sd::host_executor ex;
  ex.run(elementwise, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z), sd::bind("w", w));
  for (std::size_t i = 0; i < 5; ++i) CHECK(y[i] == (x[i] + 1) * 2 + 1);
  ex.run(copied, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z), sd::bind("w", w));
  for (std::size_t i = 0; i < 5; ++i) CHECK(y[i] == x[i] + 2);
}
