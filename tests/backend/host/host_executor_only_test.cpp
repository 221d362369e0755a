// What only the host executor has: helper threads, plans built at run time
// (the CUDA executor needs compile-time plans), concurrent callers, failure
// injection, and its deterministic zeros for a temp read before it is written.
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <streamdsl/backend/host/host_executor.hpp>
#include <thread>

#include "host_test_support.hpp"
#include "test_programs.hpp"

using host_test::ramp;
using host_test::seed;

namespace {
// The front end rejects a temp read before any write (temp_read_before_any_write),
// so this plan is made by hand: `y = t + x; t = x; y = y + t`, one kernel in
// which the register temp t is read first. The host executor still reads 0
// there (deterministic, whatever plan it is given).
sd::plan_model temp_read_first() {
  sd::builder b;
  auto x = b.input<float>("x");
  auto t = b.temp<float>("t");
  auto y = b.output<float>("y");
  t = x;
  y = t + x;
  y = y + t;
  auto ir = std::move(b).ir();
  auto& stmts = ir.stmts;
  const auto first = stmts[0];
  stmts[0] = stmts[1];
  stmts[1] = first;
  return sd::passes::schedule(std::move(ir), sd::checked);
}
}  // namespace

TEST_CASE("a register temp read before it is written reads zeros in every block", "[host][temps]") {
  const auto model = temp_read_first();
  REQUIRE(model.ir.ok());
  const auto plan = sd::view_of(model);
  REQUIRE(plan.kernel_count() == 1);
  REQUIRE(plan.storage_of("t") == sd::storage_register);
  constexpr std::size_t n = 1300;
  const auto x = ramp<float>(n, 1.0f, 1.0f);
  std::vector<float> y(n);
  sd::host_executor ex;
  const sd::binding bindings[] = {sd::bind("x", x), sd::bind("y", y)};
  ex.run(plan, bindings);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += y[i] != 2 * x[i];
  CHECK(wrong == 0);
}

TEST_CASE("large kernels are split across helper threads", "[host][parallel]") {
  constexpr std::size_t n = 5 * sd::host_detail::kernel_team::chunk_elements + 77;
  const auto x = ramp<float>(n, 0.0f, 1.0f);
  std::vector<float> y(n), z(n);
  sd::host_options options;
  options.kernel_helpers = 3;
  sd::host_executor ex(options);
  ex.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += z[i] != (x[i] + 1) * 2;
  CHECK(wrong == 0);
}

TEST_CASE("a plan built at run time runs through the plan_view overload", "[host][runtime-plan]") {
  sd::builder b;
  auto x = b.input<float>("x");
  auto k = b.param<float>("k");
  auto y = b.output<float>("y");
  auto side = b.stream("side");
  sd::with_stream(side, [&] { y = x * k; });
  auto model = sd::passes::schedule(std::move(b).ir(), sd::automatic);
  REQUIRE(model.ir.ok());
  const auto plan = sd::view_of(model);
  constexpr std::size_t n = 100;
  const auto xs = ramp<float>(n, 1.0f, 1.0f);
  std::vector<float> ys(n);
  const std::vector<sd::binding> list{sd::bind("x", xs), sd::bind("k", 4.0f), sd::bind("y", ys)};
  sd::host_executor ex;
  ex.run(plan, list);
  CHECK(ys[99] == 400.0f);
}

TEST_CASE("runs from several threads on one executor are serialised", "[host][threads]") {
  constexpr std::size_t n = 3000;
  const auto x = ramp<float>(n, 0.0f, 1.0f);
  std::vector<float> y1(n), z1(n), y2(n), z2(n);
  sd::host_executor ex;
  std::thread other([&] { ex.run(seed, sd::bind("x", x), sd::bind("y", y1), sd::bind("z", z1)); });
  ex.run(seed, sd::bind("x", x), sd::bind("y", y2), sd::bind("z", z2));
  other.join();
  CHECK(z1 == z2);
  CHECK(z1[2999] == 6000.0f);
}

TEST_CASE("a failure inside a stream reaches the caller without a deadlock", "[host][failure]") {
  constexpr std::size_t n = 100;
  const auto x = ramp<float>(n, 0.0f, 1.0f);
  std::vector<float> y(n), z(n);
  constexpr auto plan = seed.plan();
  sd::host_executor ex;
  // Fail at each op in turn: a side stream before its record (main waits for
  // it), main before its entry record (side waits for it), and the others.
  for (std::size_t failing = 0; failing < plan.ops.size(); ++failing) {
    sd::host_detail::executor_test_access::set_before_op(ex, [failing](std::int32_t op) {
      if (static_cast<std::size_t>(op) == failing) throw std::runtime_error("injected failure");
    });
    CHECK_THROWS_WITH(ex.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z)), "injected failure");
  }
  sd::host_detail::executor_test_access::set_before_op(ex, nullptr);
  ex.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));  // still usable
  CHECK(z[99] == 200.0f);
}

namespace {
// t is read on two streams, so it lives in a workspace slot.
constexpr auto temp_in_slot = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto b = p.output<float>("b");
  auto t = p.temp<float>("t");
  auto side = p.stream("side");
  t = x * 2;
  sd::with_stream(side, [&] { a = t + 1; });
  b = t * 3;
});
}  // namespace

TEST_CASE("a workspace too large to allocate is an sd::error naming the temps and the bytes",
          "[host][temps]") {
  STATIC_REQUIRE(temp_in_slot.plan().slot_count() == 1);
  // 2^48 floats per buffer (2^50 bytes, a valid size): t's slot asks for a
  // PiB. The buffers sit 2^52 bytes apart and are never touched, since the
  // executor fails before anything runs (a bare std::bad_alloc before).
  constexpr std::size_t n = std::size_t{1} << 48;
  auto at = [](std::uintptr_t address) { return reinterpret_cast<float*>(address); };
  sd::host_executor ex;
  const sd::binding bindings[] = {sd::bind("x", static_cast<const float*>(at(std::uintptr_t{1} << 52)), n),
                                  sd::bind("a", at(std::uintptr_t{2} << 52), n),
                                  sd::bind("b", at(std::uintptr_t{3} << 52), n)};
  CHECK_THROWS_AS(ex.run(temp_in_slot, bindings), sd::error);
  CHECK_THROWS_WITH(
      ex.run(temp_in_slot, bindings),
      "streamdsl: cannot allocate the workspace of 1125899906842624 bytes for the temps 't'; bind "
      "smaller buffers, or split the work into several runs");
  // The executor is still usable.
  const auto x = ramp<float>(10, 0.0f, 1.0f);
  std::vector<float> a(10), b(10);
  ex.run(temp_in_slot, sd::bind("x", x), sd::bind("a", a), sd::bind("b", b));
  CHECK(b[9] == 54.0f);
}

TEST_CASE("a workspace whose size overflows is reported as too large, not wrapped", "[host][temps]") {
  constexpr auto plan = temp_in_slot.plan();
  constexpr std::size_t huge[] = {~std::size_t{0} / 2};  // 4-byte elements: the bytes overflow
  STATIC_REQUIRE(plan.workspace_bytes(huge) == sd::workspace_too_large);
  constexpr std::size_t small[] = {1000};
  STATIC_REQUIRE(plan.workspace_bytes(small) == 4096);  // 4000 bytes, 256-aligned
}

namespace host_test {
float run_program_named_pipe();  // user_names_test.cpp
}

TEST_CASE("a user's program named pipe beside read, write, sleep... compiles and runs", "[host][headers]") {
  CHECK(host_test::run_program_named_pipe() == 306.0f);
}

namespace {
// Every loop key a plan can ask for (the kernel compiler's keys, element_loops.hpp)
// has a slot of its own in loop_list, below its capacity: loops_of then finds
// each key without a search (loop_table.hpp).
constexpr bool loop_slots_are_distinct() {
  using namespace sd::host_detail;
  constexpr sd::dtype types[] = {sd::dtype::boolean,     sd::dtype::int32,    sd::dtype::int64,
                                 sd::dtype::float16,     sd::dtype::bfloat16, sd::dtype::float8_e4m3,
                                 sd::dtype::float8_e5m2, sd::dtype::float32,  sd::dtype::float64};
  sd::detail::dyn_array<loop_key> keys;
  for (const auto t : types) {
    keys.push_back(fill_key(t));
    keys.push_back(broadcast_key(t));
    for (const auto from : types) keys.push_back(convert_key(t, from));
    for (int code = 0; code < sd::ir::op_count; ++code) {
      sd::ir::expr_node n;
      n.code = static_cast<sd::ir::op>(code);
      n.type = n.compute = t;
      if (has_operation_loop(n.code)) keys.push_back(operation_key(n));
    }
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (loop_list::slot_of(keys[i]) >= loop_list::capacity) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (!(keys[i] == keys[j]) && loop_list::slot_of(keys[i]) == loop_list::slot_of(keys[j])) return false;
  }
  return true;
}
}  // namespace

TEST_CASE("every loop key a compiled program can need has its own slot in the loop table", "[host][loops]") {
  STATIC_REQUIRE(loop_slots_are_distinct());
  // loops_of lists each loop once, however many nodes ask for it.
  static constexpr auto found = sd::host_detail::loops_of(seed.plan());
  STATIC_REQUIRE(found.count > 0);
  constexpr bool unique = [] {
    for (std::size_t i = 0; i < found.count; ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (found.at[i] == found.at[j]) return false;
    return true;
  }();
  STATIC_REQUIRE(unique);
}
