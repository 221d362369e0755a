#pragma once
// Compile-time random programs (constexpr_generator.hpp) run on the executor
// under test (host in g++ builds, CUDA in nvcc builds) and compared bit for
// bit with the sequential reference and, on the GPU, with the host executor.
#include <span>
#include <stdexcept>
#include <streamdsl/backend/host/host_executor.hpp>
#include <string>

#include "../backend/executor_under_test.hpp"
#include "constexpr_generator.hpp"
#include "host_run.hpp"

namespace streamdsl::random_test::compiled {

// The seed's program built at run time (the same constexpr function), with
// its domain extents and param value: what the reference and the bindings need.
inline generated_program runtime_program(std::uint64_t seed) {
  generated_program g;
  g.seed = seed;
  g.family = "compiled";
  g.opts = options_for(seed);
  builder b;
  write_random_program(b, seed);
  g.user = static_cast<builder&&>(b).ir();
  // Small and edge-heavy extents, some crossing vector widths and blocks;
  // multiples of 4 in programs with chunks (halves and quarters).
  constexpr std::size_t extents[] = {1, 2, 3, 5, 8, 16, 17, 31, 33, 64, 511, 512, 1000, 1537, 4099, 70001};
  constexpr std::size_t chunked[] = {4, 8, 12, 16, 32, 36, 64, 100, 512, 1000, 1540, 4100, 70004, 20, 44, 96};
  const auto& list = features_for(seed).chunks ? chunked : extents;
  crng r{seed ^ 0x5eed5eed5eed5eedull};
  g.inputs.extents.push_back(list[r.below(16)]);
  g.inputs.extents.push_back(list[r.below(16)]);
  g.inputs.params.push_back(scalar::of(static_cast<float>(r.below(33) - 16) / 8));
  // Rank-2 programs: rows, cols and their product (domains 2, 3, 4), at most
  // 20,000 elements (the reference evaluates each); one row, one column,
  // columns off 4 and off the row kernels' 256 threads, and past them.
  if (features_for(seed).rank2) {
    constexpr std::size_t rows[] = {1, 2, 3, 7, 33, 64, 100, 130};
    constexpr std::size_t cols[] = {1, 3, 4, 17, 64, 255, 256, 257, 1000, 1030};
    std::size_t R = rows[r.below(8)];
    const std::size_t C = cols[r.below(10)];
    if (R * C > 20000) R = 20000 / C;
    g.inputs.extents.push_back(R);
    g.inputs.extents.push_back(C);
    g.inputs.extents.push_back(R * C);
  }
  const auto& domains = g.user.domains;
  if (domains.size() != g.inputs.extents.size() ||
      (domains.size() == 5 &&
       !(ir::is_product(domains[4]) && domains[4].outer == 2 && domains[4].inner == 3)))
    throw std::logic_error(
        "compiled generator: the program's domains are not those runtime_program gives extents");
  return g;
}

// Runs seed `Seed` on `ex` (and, on the GPU, on `host`); empty when it
// matches, else what differs, with the program.
template <unsigned Seed>
std::string check_compiled_program(backend_test::executor& ex, host_executor& host) {
  using lambda = random_program<Seed>;
  constexpr auto program = streamdsl::program<lambda::policy>(lambda{});
  const auto g = runtime_program(Seed);
  const auto initial = make_buffers(g, Seed);
  auto expected = initial;
  run_reference(ir::view_of(g.user), g.inputs, expected);
  auto actual = initial;
  const auto bindings = bindings_for(g, actual);
  std::string why;
  try {
    ex.run(program, std::span<const binding>(bindings));
    why = first_difference(g, expected, actual);
    if (!why.empty()) why = std::string(backend_test::backend_name) + " against the reference: " + why;
    if (why.empty() && backend_test::on_gpu) {
      auto on_host = initial;
      host.run(program, std::span<const binding>(bindings_for(g, on_host)));
      why = first_difference(g, on_host, actual);
      if (!why.empty()) why = "cuda_executor against host_executor (\"reference\" below): " + why;
    }
  } catch (const std::exception& e) {
    why = std::string(backend_test::backend_name) + " threw: " + e.what();
  }
  if (why.empty()) return why;
  return "seed " + std::to_string(Seed) + ": " + why + "\n" + g.describe() + "plan:\n" +
         std::string(dump(program.plan()).view()) + "\n";
}

}  // namespace streamdsl::random_test::compiled
