// random_replay SEED [--shrink]: replays one random program on the host
// executor, without and with stress, and prints the program, its plan and
// every element that differs from the sequential reference. With --shrink it
// first removes statements (and shrinks domain extents, keeping every chunk
// count a divisor and every copy's sizes equal) while the mismatch persists,
// to give a small reproducer for a bug report.
#include <cstdlib>
#include <iostream>
#include <optional>
#include <streamdsl/plan/to_string.hpp>
#include <string>

#include "host_run.hpp"
#include "order_model.hpp"

namespace rt = streamdsl::random_test;
namespace sd = streamdsl;

namespace {

// The program without statement k, or nothing when that leaves a wait
// without its record or a temp region read before it is written in full.
std::optional<rt::generated_program> without_statement(const rt::generated_program& g, std::size_t k) {
  rt::generated_program out = g;
  auto& stmts = out.user.stmts;
  for (const auto& s : stmts)
    if (s.kind == sd::ir::stmt_kind::wait && s.binds == static_cast<std::int32_t>(k)) return std::nullopt;
  sd::detail::dyn_array<sd::ir::statement> kept;
  for (std::size_t i = 0; i < stmts.size(); ++i) {
    if (i == k) continue;
    auto s = stmts[i];
    if (s.kind == sd::ir::stmt_kind::wait && s.binds > static_cast<std::int32_t>(k)) --s.binds;
    s.origin = static_cast<std::int32_t>(kept.size());
    kept.push_back(s);
  }
  stmts = kept;
  out.race = {};  // its statement numbers no longer apply
  std::vector<rt::coverage> written(out.user.buffers.size());
  for (const auto& s : stmts) {
    const auto regions = rt::regions_of(out.user, s);
    for (const auto& r : regions.reads)
      if (out.user.buffers[static_cast<std::size_t>(r.buffer)].kind == sd::ir::access::temp &&
          !written[static_cast<std::size_t>(r.buffer)].covers(r))
        return std::nullopt;
    for (const auto& r : regions.writes) written[static_cast<std::size_t>(r.buffer)].add(r);
  }
  return out;
}

// Whether the program's chunks and copies fit its extents: every chunk count
// divides its domain's extent, and every copy moves as many elements as it
// writes (shrinking an extent must not turn a mismatch into a binding error).
bool extents_fit(const rt::generated_program& g) {
  auto extent = [&](std::int32_t buffer) -> std::size_t {
    const auto d = g.user.buffers[static_cast<std::size_t>(buffer)].domain;
    return d < 0 ? 1 : g.inputs.extents[static_cast<std::size_t>(d)];
  };
  for (const auto& s : g.user.stmts) {
    const auto regions = rt::regions_of(g.user, s);
    for (const auto* list : {&regions.reads, &regions.writes})
      for (const auto& r : *list)
        if (extent(r.buffer) % static_cast<std::size_t>(r.parts) != 0) return false;
    if (s.kind == sd::ir::stmt_kind::step &&
        extent(regions.reads[0].buffer) / static_cast<std::size_t>(regions.reads[0].parts) !=
            extent(regions.writes[0].buffer) / static_cast<std::size_t>(regions.writes[0].parts))
      return false;
  }
  return true;
}

struct executors {
  sd::host_executor plain{sd::host_options{std::nullopt, 0}};
  sd::host_executor stressed{sd::host_options{sd::stress{7, 20}, 0}};
  sd::host_executor helpers{sd::host_options{sd::stress{9, 20}, 2}};
};

// Whether the program mismatches in any of a few runs (stress is random).
bool fails(const rt::generated_program& g, executors& ex, std::uint64_t data_seed) {
  if (!sd::passes::schedule(g.user, g.opts).ir.ok()) return false;
  for (int attempt = 0; attempt < 3; ++attempt)
    for (auto* e : {&ex.plain, &ex.stressed, &ex.helpers})
      if (!rt::run_and_compare(g, *e, data_seed).matches) return true;
  return false;
}

rt::generated_program shrink(rt::generated_program g, executors& ex, std::uint64_t data_seed) {
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t k = g.user.stmts.size(); k-- > 0;) {
      auto smaller = without_statement(g, k);
      if (smaller && fails(*smaller, ex, data_seed)) {
        g = std::move(*smaller);
        progress = true;
      }
    }
    for (auto& extent : g.inputs.extents)
      for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{8}, std::size_t{24}, std::size_t{48}})
        if (extent > n) {
          auto smaller = g;
          smaller.inputs.extents[static_cast<std::size_t>(&extent - g.inputs.extents.data())] = n;
          if (extents_fit(smaller) && fails(smaller, ex, data_seed)) {
            extent = n;
            progress = true;
          }
        }
  }
  return g;
}

void show(const rt::generated_program& g, executors& ex, std::uint64_t data_seed) {
  sd::plan_model m;
  std::cout << g.describe();
  const auto v = sd::ir::view_of(g.user);
  for (auto* e : {&ex.plain, &ex.stressed, &ex.helpers}) {
    const auto c = rt::run_and_compare(g, *e, data_seed, &m);
    std::cout << (e == &ex.plain      ? "no stress"
                  : e == &ex.stressed ? "stress"
                                      : "stress + kernel helpers")
              << ": " << (c.matches ? "matches the reference" : c.why) << '\n';
    if (!c.scheduled || c.matches) continue;
    int shown = 0;  // the differing elements, with the initial values of every bound buffer there
    for (std::size_t b = 0; b < v.buffers.size(); ++b) {
      if (v.buffers[b].kind == sd::ir::access::temp) continue;
      for (std::size_t i = 0; i < c.expected[b].size() && shown < 8; ++i) {
        if (c.expected[b].same_element_at(c.actual[b], i)) continue;
        ++shown;
        std::cout << "    " << v.buffer_name(static_cast<std::int32_t>(b)) << '[' << i << "]: reference "
                  << c.expected[b].get(i).to_string() << ", executor " << c.actual[b].get(i).to_string()
                  << "; initial values there:";
        for (std::size_t o = 0; o < v.buffers.size(); ++o)
          if (v.buffers[o].kind != sd::ir::access::temp)
            std::cout << ' ' << v.buffer_name(static_cast<std::int32_t>(o)) << '='
                      << c.initial[o]
                             .get(v.buffers[o].domain < 0
                                      ? 0
                                      : (v.buffers[o].domain == v.buffers[b].domain ? i : 0))
                             .to_string();
        std::cout << '\n';
      }
    }
  }
  std::cout << "plan:\n" << sd::dump(sd::view_of(m)).view();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: random_replay SEED [--shrink]\n";
    return 2;
  }
  const std::uint64_t seed = std::strtoull(argv[1], nullptr, 10);
  const bool want_shrink = argc > 2 && std::string(argv[2]) == "--shrink";
  executors ex;
  auto g = rt::generate_program(seed);
  if (want_shrink) {
    if (!fails(g, ex, seed)) {
      std::cout << "seed " << seed << " matches the reference in every run; nothing to shrink\n";
      return 0;
    }
    g = shrink(std::move(g), ex, seed);
    std::cout << "shrunk to " << g.user.stmts.size() << " statements:\n";
  }
  show(g, ex, seed);
  return 0;
}
