// Random programs compiled at compile time (the CUDA executor needs
// compile-time plans): constexpr_generator.hpp writes one program per seed.
// A g++ build runs them on the host executor and also sweeps many more seeds
// of the same generator at run time; nvcc builds (tests/backend/cuda/
// random_programs_*_test.cu, which set the seed range) run them on the GPU
// and compare with both the reference and the host executor.
#include "compiled_programs.hpp"

#include <catch2/catch.hpp>
#include <iostream>
#include <utility>

#include "order_model.hpp"

#ifndef STREAMDSL_COMPILED_FIRST_SEED
#define STREAMDSL_COMPILED_FIRST_SEED 0
#define STREAMDSL_COMPILED_SEEDS 32
#endif

namespace rt = streamdsl::random_test;

namespace {

template <unsigned... I>
std::string check_seeds(std::integer_sequence<unsigned, I...>) {
  backend_test::executor ex;
  sd::host_executor host;
  std::string report;
  ((report += rt::compiled::check_compiled_program<STREAMDSL_COMPILED_FIRST_SEED + I>(ex, host)), ...);
  return report;
}

}  // namespace

TEST_CASE("compile-time random programs match the sequential reference", "[random][compiled]") {
  const auto report = check_seeds(std::make_integer_sequence<unsigned, STREAMDSL_COMPILED_SEEDS>{});
  std::cout << "compile-time random programs on " << backend_test::backend_name << ": seeds "
            << STREAMDSL_COMPILED_FIRST_SEED << " to "
            << STREAMDSL_COMPILED_FIRST_SEED + STREAMDSL_COMPILED_SEEDS - 1
            << (report.empty() ? ", all match\n" : ", MISMATCHES:\n") << report;
  CHECK(report.empty());
}

#if !defined(__CUDACC__)
// The constexpr generator run at run time: every sd::checked program is
// race-free (it schedules), and each matches the reference on the host executor.
TEST_CASE("the constexpr generator at run time: programs schedule and match the reference",
          "[random][compiled]") {
  sd::host_executor host;
  int mismatches = 0;
  // Programs with each of issue 12's statements (a generator change that
  // stopped making one would otherwise pass unnoticed).
  int chunked = 0, copies = 0, host_copies = 0, chunk_copies = 0, reductions = 0;
  int rank2 = 0, row_broadcasts = 0, column_broadcasts = 0, row_reductions = 0, row_scans = 0;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    const auto g = rt::compiled::runtime_program(seed);
    const auto result = rt::run_and_compare(g, host, seed);
    if (!result.matches && ++mismatches <= 3)
      std::cout << "seed " << seed << ": " << result.why << '\n' << g.describe();
    bool chunk = false, copy = false, host_copy = false, chunk_copy = false, reduction = false;
    bool matrix = false, row = false, column = false, row_reduction = false, row_scan = false;
    const auto pv = sd::ir::view_of(g.user);
    for (const auto& s : g.user.stmts) {
      // Issue 13's rank-2 statements: over the product domain, the vectors
      // they broadcast, and steps along its last axis.
      if (s.kind == sd::ir::stmt_kind::step && s.axis >= 0)
        (sd::ir::info(s.code).form == sd::ir::step_form::scan ? row_scan : row_reduction) = true;
      if (s.kind == sd::ir::stmt_kind::assign) {
        const auto over = g.user.buffers[static_cast<std::size_t>(s.target)].domain;
        if (over >= 0 && sd::ir::is_product(g.user.domains[static_cast<std::size_t>(over)])) {
          matrix = true;
          for (const auto& r : rt::regions_of(g.user, s).reads) {
            const auto index = sd::ir::broadcast_of(
                pv.domains, g.user.buffers[static_cast<std::size_t>(r.buffer)].domain, over);
            row = row || index == sd::ir::load_index::row_vector;
            column = column || index == sd::ir::load_index::column_vector;
          }
        }
      }
      if (s.kind != sd::ir::stmt_kind::assign && s.kind != sd::ir::stmt_kind::step) continue;
      const auto regions = rt::regions_of(g.user, s);
      for (const auto& r : regions.writes) chunk = chunk || r.parts > 1;
      if (s.kind != sd::ir::stmt_kind::step) continue;
      if (s.code != sd::ir::step_code::copy) {  // issue 13's sd::min / sd::max
        reduction = true;
        continue;
      }
      copy = true;
      for (const auto& r : regions.reads) {
        host_copy = host_copy || sd::ir::is_host(g.user.buffers[static_cast<std::size_t>(r.buffer)].space);
        chunk_copy = chunk_copy || r.parts > 1;
      }
      for (const auto& r : regions.writes)
        host_copy = host_copy || sd::ir::is_host(g.user.buffers[static_cast<std::size_t>(r.buffer)].space);
    }
    chunked += chunk;
    copies += copy;
    host_copies += host_copy;
    chunk_copies += chunk_copy;
    reductions += reduction;
    rank2 += matrix;
    row_broadcasts += row;
    column_broadcasts += column;
    row_reductions += row_reduction;
    row_scans += row_scan;
  }
  std::cout << "constexpr generator, 400 seeds: " << chunked << " write chunks, " << copies << " copy, "
            << host_copies << " copy host memory, " << chunk_copies << " copy chunks, " << reductions
            << " reduce; rank-2: " << rank2 << " write matrices, " << row_broadcasts << " broadcast rows, "
            << column_broadcasts << " broadcast columns, " << row_reductions << " reduce rows, " << row_scans
            << " scan rows\n";
  CHECK(mismatches == 0);
  CHECK(chunked > 40);
  CHECK(copies > 40);
  CHECK(host_copies > 20);
  CHECK(chunk_copies > 20);
  CHECK(reductions > 40);
  CHECK(rank2 > 40);
  CHECK(row_broadcasts > 20);
  CHECK(column_broadcasts > 20);
  CHECK(row_reductions > 40);
  CHECK(row_scans > 20);
}
#endif

#if !defined(__CUDACC__)
// The seeds the GPU runs (tests/backend/cuda/random_programs_*_test.cu,
// 0 to 29) must make multi-segment launches (passes/join_launches.hpp), of
// segments over different domains and of chunks, so that the GPU random
// tests cover the CUDA executor's segmented kernel: the generator's two
// domains and chunked statements, interleaved on one stream, give them.
TEST_CASE("the GPU's seeds make multi-segment launches of mixed domains and chunks", "[random][compiled]") {
  int with_launches = 0, mixed_domains = 0, with_chunks = 0, with_reductions = 0, with_rows = 0;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    sd::builder b;
    rt::compiled::write_random_program(b, seed);
    const auto model =
        sd::passes::schedule(static_cast<sd::builder&&>(b).ir(), rt::compiled::options_for(seed));
    const auto plan = sd::view_of(model);
    bool launch = false, mixed = false, chunk = false;
    for (const auto& op : plan.ops)  // a row kernel (row_kernels.cuh)
      if (op.kind == sd::op_kind::step && plan.ir.stmts[static_cast<std::size_t>(op.stmt)].axis >= 0) {
        ++with_rows;
        break;
      }
    for (const auto& op : plan.ops)
      if (op.kind == sd::op_kind::step &&
          plan.ir.stmts[static_cast<std::size_t>(op.stmt)].code != sd::ir::step_code::copy) {
        ++with_reductions;
        break;
      }
    for (std::size_t k = 0; k < plan.kernel_count(); ++k) {
      const auto n = plan.segments_of(k);
      if (n < 2) continue;
      launch = true;
      for (std::size_t g = k; g < k + n; ++g) {
        mixed = mixed || plan.kernels[g].domain != plan.kernels[k].domain;
        chunk = chunk || plan.kernels[g].parts > 1;
      }
    }
    with_launches += launch;
    mixed_domains += mixed;
    with_chunks += chunk;
  }
  std::cout << "GPU seeds 0 to 29: " << with_launches << " with multi-segment launches, " << mixed_domains
            << " of mixed domains, " << with_chunks << " with a chunk as a segment, " << with_reductions
            << " with a reduction, " << with_rows << " with a step along rows\n";
  CHECK(with_launches >= 20);  // 25 when written
  CHECK(mixed_domains >= 20);
  CHECK(with_chunks >= 8);  // 12 when written
  CHECK(with_reductions >= 5);
  CHECK(with_rows >= 5);
}
#endif
