#pragma once
// Running a generated program on the host executor and comparing it with the
// sequential reference: shared by the differential test and the replay tool.
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/backend/host/loopback.hpp>
#include <streamdsl/passes/schedule.hpp>
#include <streamdsl/plan/plan_model.hpp>
#include <string>
#include <vector>

#include "program_generator.hpp"

namespace streamdsl::random_test {

// A program with its arrays: the reference's result and the executor's.
struct host_comparison {
  bool scheduled = false;
  bool matches = false;
  std::string why;  // the schedule error, the exception, or the first differing element
  std::vector<typed_array> initial, expected, actual;
};

// Bindings for every input, inout, output (the arrays in `arrays`) and param.
inline std::vector<binding> bindings_for(const generated_program& g, std::vector<typed_array>& arrays) {
  const auto v = ir::view_of(g.user);
  std::vector<binding> out;
  for (std::size_t b = 0; b < v.buffers.size(); ++b) {
    const auto& info = v.buffers[b];
    if (info.kind == ir::access::temp) continue;
    auto& a = arrays[b];
    const void* data = with_host_type(
        a.type(), [&](auto tag) -> const void* { return a.span<typename decltype(tag)::type>().data(); });
    const auto name = v.buffer_name(static_cast<std::int32_t>(b));
    const bool read_only = info.kind == ir::access::input;
    if (info.domain >= 0 && ir::is_product(v.domains[static_cast<std::size_t>(info.domain)])) {
      const auto& d = v.domains[static_cast<std::size_t>(info.domain)];
      out.push_back(binding::matrix(name, info.type, data, a.size(), read_only,
                                    g.inputs.extents.at(static_cast<std::size_t>(d.outer)),
                                    g.inputs.extents.at(static_cast<std::size_t>(d.inner))));
      continue;
    }
    out.push_back(binding::buffer(name, info.type, data, a.size(), read_only));
  }
  // The calls' meaning (reference.hpp, call): written region j gets read
  // region j's elements reversed, every source read before anything is written.
  for (std::size_t c = 0; c < v.calls.size(); ++c)
    out.push_back(bind_call(v.call_name(static_cast<std::int32_t>(c)), [](call_context& ctx) {
      std::vector<std::vector<unsigned char>> sources;
      for (std::size_t j = 0; j < ctx.write_count(); ++j) {
        const auto& r = ctx.listed(j);
        const auto size = size_of(r.type);
        std::vector<unsigned char> bytes(r.count * size);
        for (std::size_t i = 0; i < r.count; ++i)
          std::memcpy(bytes.data() + i * size,
                      static_cast<const unsigned char*>(r.data) + (r.count - 1 - i) * size, size);
        sources.push_back(std::move(bytes));
      }
      for (std::size_t j = 0; j < ctx.write_count(); ++j) {
        const auto& w = ctx.listed(ctx.read_count() + j);
        if (w.count * size_of(w.type) != sources[j].size())
          throw std::logic_error("random call: sizes differ");
        if (!sources[j].empty()) std::memcpy(w.data, sources[j].data(), sources[j].size());
      }
    }));
  for (std::size_t p = 0; p < v.params.size(); ++p) {
    const auto& value = g.inputs.params[p];
    with_host_type(value.type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T x = value.as<T>();
      out.push_back(binding::param(v.name(v.params[p].name), value.type(), &x));
    });
  }
  return out;
}

// The first bound buffer element (inputs included: they must be left alone)
// where `actual` differs from `expected`; empty when none does.
inline std::string first_difference(const generated_program& g, const std::vector<typed_array>& expected,
                                    const std::vector<typed_array>& actual) {
  const auto v = ir::view_of(g.user);
  for (std::size_t b = 0; b < v.buffers.size(); ++b) {
    if (v.buffers[b].kind == ir::access::temp) continue;
    for (std::size_t i = 0; i < expected[b].size(); ++i)
      if (!expected[b].same_element_at(actual[b], i)) {
        std::ostringstream why;
        why << ir::name_of(v.buffers[b].kind) << " '" << v.buffer_name(static_cast<std::int32_t>(b)) << "'["
            << i << "] is " << actual[b].get(i).to_string() << ", the reference says "
            << expected[b].get(i).to_string();
        return why.str();
      }
  }
  return {};
}

// The ranks a program with collectives runs on (ops/collective.hpp): a
// loopback world of this many, each rank with arrays of its own.
inline constexpr int collective_ranks = 2;

// A program with collectives: every rank's arrays drawn from its own seed,
// run on a loopback world whose executors take `options`, against the
// reference of every rank (run_reference_ranks). The comparison's arrays
// are rank 0's; `why` names the rank that differs.
inline void run_ranks_and_compare(const generated_program& g, const plan_model& m,
                                  const host_options& options, std::uint64_t data_seed, host_comparison& c) {
  std::vector<std::vector<typed_array>> expected, actual;
  for (int r = 0; r < collective_ranks; ++r)
    expected.push_back(make_buffers(g, data_seed + 7919 * static_cast<std::uint64_t>(r)));
  actual = expected;
  c.initial = expected[0];
  run_reference_ranks(ir::view_of(g.user), g.inputs, expected);
  std::vector<std::vector<binding>> bindings;
  for (auto& arrays : actual) bindings.push_back(bindings_for(g, arrays));
  try {
    loopback_world world(collective_ranks, options);
    world.run(view_of(m),
              [&](int r) -> const std::vector<binding>& { return bindings[static_cast<std::size_t>(r)]; });
    for (int r = 0; r < collective_ranks && c.why.empty(); ++r) {
      c.why = first_difference(g, expected[static_cast<std::size_t>(r)], actual[static_cast<std::size_t>(r)]);
      if (!c.why.empty()) c.why = "rank " + std::to_string(r) + ": " + c.why;
    }
  } catch (const std::exception& e) {
    c.why = std::string("the executor threw: ") + e.what();
  }
  c.expected = expected[0];
  c.actual = actual[0];
}

// Schedules g under its options, runs it on `executor` and on the reference
// from the same initial arrays (drawn from `data_seed`), and compares. A
// program with collectives runs on a loopback world of collective_ranks
// ranks with the executor's options instead.
inline host_comparison run_and_compare(const generated_program& g, host_executor& executor,
                                       std::uint64_t data_seed, plan_model* plan_out = nullptr) {
  host_comparison c;
  auto m = passes::schedule(g.user, g.opts);
  if (!g.user.ok() || !m.ir.ok()) {
    c.why = "does not schedule: " + std::string((g.user.ok() ? m.ir : g.user).errors[0].message.view());
    return c;
  }
  c.scheduled = true;
  if (ir::has_collective(g.user.stmts)) {
    run_ranks_and_compare(g, m, executor.options(), data_seed, c);
    c.matches = c.why.empty();
    if (plan_out != nullptr) *plan_out = static_cast<plan_model&&>(m);
    return c;
  }
  c.initial = make_buffers(g, data_seed);
  c.expected = c.initial;
  run_reference(ir::view_of(g.user), g.inputs, c.expected);
  c.actual = c.initial;
  const auto bindings = bindings_for(g, c.actual);
  try {
    executor.run(view_of(m), bindings);
    c.why = first_difference(g, c.expected, c.actual);
  } catch (const std::exception& e) {
    c.why = std::string("the executor threw: ") + e.what();
  }
  c.matches = c.why.empty();
  if (plan_out != nullptr) *plan_out = static_cast<plan_model&&>(m);
  return c;
}

}  // namespace streamdsl::random_test
