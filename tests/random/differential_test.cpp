// The differential test of CPU backend item 4: random programs run on the
// host executor (most of them in stress mode) and are compared, element by
// element, with the sequential reference. 1000 programs by default;
// STREAMDSL_RANDOM_PROGRAMS=10000 for the long mode; STREAMDSL_RANDOM_SEED
// with STREAMDSL_RANDOM_PROGRAMS=1 replays one seed. Prints
// "random programs: N run, M mismatches" and, for the first mismatches, the
// program, its plan and the first differing element.
#include <catch2/catch.hpp>
#include <iostream>
#include <optional>
#include <sstream>
#include <streamdsl/streamdsl.hpp>

#include "host_run.hpp"
#include "run_settings.hpp"

namespace rt = streamdsl::random_test;

namespace {

struct executors {
  // Kept across programs: their threads start once.
  sd::host_executor plain{sd::host_options{std::nullopt, 0}};
  sd::host_executor stressed;
  sd::host_executor stressed_with_helpers;
  explicit executors(std::uint64_t seed)
      : stressed(sd::host_options{sd::stress{seed, 5}, 0}),
        stressed_with_helpers(sd::host_options{sd::stress{seed + 1, 20}, 2}) {}
};

}  // namespace

TEST_CASE("random programs: host executor in stress mode against the sequential reference",
          "[random][differential]") {
  const auto settings = rt::settings_from_env(1000);
  executors ex(settings.first_seed);
  std::uint64_t run = 0, mismatches = 0, stressed = 0, large = 0, schedule_errors = 0, epilogues = 0,
                collectives = 0, batches = 0;
  std::ostringstream report;
  std::vector<std::uint64_t> failing;  // the first mismatching seeds
  for (std::uint64_t seed = settings.first_seed; seed < settings.first_seed + settings.programs; ++seed) {
    const auto g = rt::generate_program(seed);
    ++run;
    // Three in four programs run with random delays before every op; one in
    // four also with helper threads splitting large kernels (every program
    // with a domain large enough for the split).
    std::size_t largest = 0;
    for (auto n : g.inputs.extents) largest = n > largest ? n : largest;
    const auto mode = largest >= 2 * sd::host_detail::kernel_team::chunk_elements ? 3 : seed % 4;
    sd::host_executor& chosen = mode == 0 ? ex.plain : mode == 3 ? ex.stressed_with_helpers : ex.stressed;
    stressed += mode != 0;
    large += largest >= 2 * sd::host_detail::kernel_team::chunk_elements;
    sd::plan_model m;
    const auto result = rt::run_and_compare(g, chosen, seed, &m);
    schedule_errors += !result.scheduled;
    // Programs where passes/matmul_epilogue.hpp folded a consumer into a matmul.
    bool folded = false;
    for (const auto& st : m.ir.stmts)
      folded = folded || (st.kind == sd::ir::stmt_kind::step && st.code == sd::ir::step_code::matmul &&
                          (st.matmul_mode & sd::ir::matmul_epilogue_bits) != 0);
    epilogues += folded;
    collectives += sd::ir::has_collective(g.user.stmts);  // run on a loopback world (host_run.hpp)
    // Programs where passes/batch_matmuls.hpp made a batch of independent matmuls.
    bool batch = false;
    for (const auto& st : m.ir.stmts)
      batch = batch || (st.kind == sd::ir::stmt_kind::step && st.code == sd::ir::step_code::matmul &&
                        sd::ir::matmul_batch_size(st) > 1);
    batches += batch;
    if (!result.matches && failing.size() < 20) failing.push_back(seed);
    if (!result.matches && ++mismatches <= 3) {
      report << "---- MISMATCH, seed " << seed << " (replay: STREAMDSL_RANDOM_SEED=" << seed
             << " STREAMDSL_RANDOM_PROGRAMS=1, or random_replay " << seed << "), "
             << (mode == 0 ? "no stress" : "stress mode") << ": " << result.why << '\n'
             << g.describe();
      if (result.scheduled) report << "plan:\n" << sd::dump(sd::view_of(m)).view() << '\n';
    }
  }
  std::cout << report.str() << "random programs: " << run << " run, " << mismatches << " mismatches ("
            << stressed << " in stress mode, " << large << " with kernels split among helper threads, "
            << schedule_errors << " did not schedule, " << epilogues << " with a matmul epilogue folded, "
            << collectives << " with collectives on " << rt::collective_ranks << " loopback ranks, "
            << batches << " with a batch of matmuls)\n";
  if (!failing.empty()) {
    std::cout << "mismatching seeds (random_replay SEED --shrink minimises one):";
    for (auto f : failing) std::cout << ' ' << f;
    std::cout << (mismatches > failing.size() ? " ...\n" : "\n");
  }
  CHECK(mismatches == 0);
  // A fifth of the dynamic programs have collectives: many among the default 1000.
  if (settings.programs >= 200) CHECK(collectives > settings.programs / 20);
}
