// Collectives as steps (ops/collective.hpp): the statement each writes (in
// place or into a target, on regions too), its accesses in races, sync
// insertion and the memory plan, the dump, and every refusal the front end
// makes. Running them: tests/backend/host/loopback_test.cpp.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>

#include "first_error.hpp"

namespace {

using op_test::first_error;
using op_test::first_message;
using sd::diag::error_kind;

// A data-parallel step's shape: the gradient computed on main in two
// buckets, each all-reduced on the comm stream as soon as it is ready.
constexpr auto bucketed = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto g = p.output<float>("g");
  auto comm = p.stream("comm");
  for (int i = 0; i < 2; ++i) {
    g.chunk(i, 2) = x.chunk(i, 2) * 2 + 1;
    sd::with_stream(comm, [&] { sd::all_reduce(g.chunk(i, 2), sd::reduce_op::sum); });
  }
});

constexpr auto every_form = sd::program([](sd::builder& p) {
  auto shard = p.domain("shard");
  auto all = p.domain("all");
  auto x = p.inout<double>("x");
  auto y = p.output<double>("y");
  auto s = p.output<double>("s", shard);
  auto a = p.output<double>("a", all);
  auto b = p.output<double>("b");
  sd::all_reduce(x, sd::reduce_op::max);
  y = sd::all_reduce(x, sd::reduce_op::avg);
  s = sd::reduce_scatter(x, sd::reduce_op::prod);
  a = sd::all_gather(x);
  sd::broadcast(y, 1);
  b = sd::broadcast(x, 0);
});

}  // namespace

TEST_CASE("collectives: each form is one step statement with its op and root", "[ops][collective]") {
  constexpr auto plan = every_form.plan();
  STATIC_REQUIRE(plan.step_count() == 6);
  STATIC_REQUIRE(plan.kernel_count() == 0);
  STATIC_REQUIRE(sd::ir::has_collective(plan.ir.stmts));
  const auto& st = plan.ir.stmts;
  STATIC_REQUIRE(plan.ir.stmts[0].code == sd::ir::step_code::all_reduce);
  STATIC_REQUIRE(sd::ir::collective_op_of(plan.ir.stmts[0]) == sd::reduce_op::max);
  STATIC_REQUIRE(sd::ir::collective_op_of(plan.ir.stmts[1]) == sd::reduce_op::avg);
  STATIC_REQUIRE(plan.ir.stmts[2].code == sd::ir::step_code::reduce_scatter);
  STATIC_REQUIRE(plan.ir.stmts[3].code == sd::ir::step_code::all_gather);
  STATIC_REQUIRE(plan.ir.stmts[4].code == sd::ir::step_code::broadcast);
  STATIC_REQUIRE(sd::ir::collective_root_of(plan.ir.stmts[4]) == 1);
  STATIC_REQUIRE(sd::ir::collective_root_of(plan.ir.stmts[5]) == 0);
  // In place: reads and writes the one region; else reads x, writes the target.
  for (std::size_t i = 0; i < st.size(); ++i) {
    INFO("statement " << i);
    CHECK(st[i].reads_count == 1);
    CHECK(st[i].writes_count == 1);
  }
  const auto r0 = sd::ir::reads_of(plan.ir, st[0]);
  const auto w0 = sd::ir::writes_of(plan.ir, st[0]);
  CHECK(r0[0] == w0[0]);
  CHECK(sd::ir::writes_of(plan.ir, st[2])[0].buffer == st[2].target);
  CHECK(sd::ir::info(sd::ir::step_code::all_gather).form == sd::ir::step_form::collective);
  CHECK(std::string(sd::ir::name_of(sd::ir::step_form::collective).data(),
                    sd::ir::name_of(sd::ir::step_form::collective).size()) == "collective");
}

TEST_CASE("collectives: the dump spells each with its op and root", "[ops][collective]") {
  const std::string text = every_form.to_string();
  CHECK(text.find("    sd::all_reduce(x, sd::reduce_op::max);") != std::string::npos);
  CHECK(text.find("    y = sd::all_reduce(x, sd::reduce_op::avg);") != std::string::npos);
  CHECK(text.find("    s = sd::reduce_scatter(x, sd::reduce_op::prod);") != std::string::npos);
  CHECK(text.find("    a = sd::all_gather(x);") != std::string::npos);
  CHECK(text.find("    sd::broadcast(y, 1);") != std::string::npos);
  CHECK(text.find("    b = sd::broadcast(x, 0);") != std::string::npos);
  CHECK(text.find("0 kernels, 6 steps") != std::string::npos);
  const std::string dot = every_form.to_dot();
  CHECK(dot.find("sd::all_gather(x)") != std::string::npos);
  CHECK(dot.find("sd::broadcast(y, 1)") != std::string::npos);
}

TEST_CASE("collectives: bucketed all-reduce of chunks overlaps the next bucket's compute",
          "[ops][collective][sync]") {
  constexpr auto plan = bucketed.plan();
  STATIC_REQUIRE(plan.step_count() == 2);
  STATIC_REQUIRE(plan.kernel_count("main") == 2);
  // One wait per bucket on comm (its chunk's kernel); main waits for nothing
  // (the edges aside): bucket 1's kernel does not wait for bucket 0's all-reduce.
  STATIC_REQUIRE(plan.waits("comm") == 2);
  STATIC_REQUIRE(plan.waits("main") == 0);
  const std::string text = bucketed.to_string();
  CHECK(text.find("sd::all_reduce(g.chunk(0, 2), sd::reduce_op::sum);") != std::string::npos);
  CHECK(text.find("sd::all_reduce(g.chunk(1, 2), sd::reduce_op::sum);") != std::string::npos);
}

TEST_CASE("collectives: a collective writing what another stream reads unordered is a race",
          "[ops][collective][races]") {
  auto body = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto g = p.inout<float>("g");
    auto y = p.output<float>("y");
    auto comm = p.stream("comm");
    sd::with_stream(comm, [&] { sd::all_reduce(g, sd::reduce_op::sum); });
    y = g + x;
  };
  CHECK(first_error(body) == error_kind::race);
  const auto message = first_message(body);
  CHECK(message.find("on buffer 'g'") != std::string::npos);
  CHECK(message.find("`sd::all_reduce(g, sd::reduce_op::sum)` on stream 'comm'") != std::string::npos);
  // Disjoint chunks: no race.
  CHECK(first_error([](sd::builder& p) {
          auto g = p.inout<float>("g");
          auto comm = p.stream("comm");
          sd::with_stream(comm, [&] { sd::all_reduce(g.chunk(0, 2)); });
          g.chunk(1, 2) = g.chunk(1, 2) * 2;
        }) == error_kind::none);
}

TEST_CASE("collectives: a temp written by a collective gets a workspace slot", "[ops][collective][memory]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto t = p.temp<float>("t");
    auto y = p.output<float>("y");
    t = sd::all_reduce(x, sd::reduce_op::sum);
    y = t * 2;
  });
  STATIC_REQUIRE(prog.plan().slots.size() == 1);
  STATIC_REQUIRE(prog.plan().kernel_count() == 1);
}

TEST_CASE("collectives: misuse is an error naming the buffer", "[ops][collective][errors]") {
  // Host memory.
  CHECK(first_error([](sd::builder& p) {
          auto h = p.inout<float, sd::pinned>("h");
          sd::all_reduce(h, sd::reduce_op::sum);
        }) == error_kind::collective_on_host_memory);
  CHECK(first_message([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto h = p.output<float, sd::pageable>("h");
          h = sd::all_gather(x);
        }).find("writes the output buffer 'h', which is in pageable host memory") != std::string::npos);
  // Types.
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<double>("y");
          y = sd::all_reduce(x, sd::reduce_op::sum);
        }) == error_kind::collective_mismatch);
  CHECK(first_message([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<double>("y");
          y = sd::broadcast(x, 0);
        }).find("reads float elements of `x` into `y`, which holds double") != std::string::npos);
  // avg needs a floating type; NCCL reduces no bool, int16_t, uint16_t.
  CHECK(first_error([](sd::builder& p) {
          auto g = p.inout<std::int32_t>("g");
          sd::all_reduce(g, sd::reduce_op::avg);
        }) == error_kind::collective_type_unsupported);
  CHECK(first_error([](sd::builder& p) {
          auto g = p.inout<std::uint64_t>("g");
          sd::all_reduce(g, sd::reduce_op::avg);
        }) == error_kind::collective_type_unsupported);
  CHECK(first_error([](sd::builder& p) {
          auto shard = p.domain("shard");
          auto g = p.input<std::int16_t>("g");
          auto s = p.output<std::int16_t>("s", shard);
          s = sd::reduce_scatter(g, sd::reduce_op::sum);
        }) == error_kind::collective_type_unsupported);
  CHECK(first_error([](sd::builder& p) {  // moved, not reduced: any type
          auto all = p.domain("all");
          auto g = p.input<bool>("g");
          auto a = p.output<bool>("a", all);
          a = sd::all_gather(g);
          sd::broadcast(a, 0);
        }) == error_kind::none);
  CHECK(first_error([](sd::builder& p) {
          auto g = p.inout<std::int32_t>("g");
          sd::all_reduce(g, sd::reduce_op::max);
        }) == error_kind::none);
  // reduce_scatter and all_gather need a target of their own.
  CHECK(first_error([](sd::builder& p) {
          auto g = p.inout<float>("g");
          sd::reduce_scatter(g, sd::reduce_op::sum);
        }) == error_kind::collective_needs_target);
  CHECK(first_error([](sd::builder& p) {
          auto g = p.inout<float>("g");
          sd::all_gather(g);
        }) == error_kind::collective_needs_target);
  // Overlap without being the same region; sizes.
  CHECK(first_error([](sd::builder& p) {
          auto g = p.inout<float>("g");
          g.chunk(0, 2) = sd::all_reduce(g, sd::reduce_op::sum);
        }) == error_kind::collective_overlap);
  CHECK(first_error([](sd::builder& p) {
          auto g = p.inout<float>("g");
          g = sd::all_reduce(g, sd::reduce_op::sum);  // the same region: in place
        }) == error_kind::none);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          y.chunk(0, 2) = sd::all_reduce(x.chunk(0, 4), sd::reduce_op::sum);
        }) == error_kind::collective_mismatch);
  // Inputs are read-only; temps must be written first; roots are ranks.
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          sd::all_reduce(x, sd::reduce_op::sum);
        }) == error_kind::write_to_input);
  CHECK(first_error([](sd::builder& p) {
          auto t = p.temp<float>("t");
          auto y = p.output<float>("y");
          y = sd::all_reduce(t);
        }) == error_kind::temp_read_before_write);
  CHECK(first_error([](sd::builder& p) {
          auto g = p.inout<float>("g");
          sd::broadcast(g, -1);
        }) == error_kind::collective_bad_root);
}
