#pragma once
// What a collective moves for one rank's bindings, and the checks that need
// the world's size: shared by both executors (the host's loopback and the
// CUDA executor's NCCL calls), run when the program is bound to a
// communicator, before anything runs. A failure is an sd::binding_error
// naming the statement, the buffer and the rank.
//
// Per collective step (ir::target_extent_of): all_reduce and broadcast write
// as many elements as they read; reduce_scatter reads a multiple of the
// world's size and writes source / size (rank r's part r); all_gather writes
// size * source (rank r's source at part r). A broadcast's root is a rank of
// the world. Whether every rank binds the same extents is the communicator's
// check (it sees every rank: host/loopback.hpp), since one rank's bindings
// cannot tell. A communicator of another size than the bindings were made
// for shows as such an extent (an all_gather's target sized for 4 ranks on a
// world of 2), and the messages say so.
#include <cstddef>
#include <cstdint>

#include "../ir/step.hpp"
#include "region_memory.hpp"
#include "resolve_bindings.hpp"

namespace streamdsl::backend_detail {

// Elements a collective reads (its source region) and writes (its target).
struct collective_counts {
  std::size_t source = 0;
  std::size_t target = 0;
};
inline collective_counts counts_of(const plan_view& plan, const resolved_bindings& r,
                                   const ir::statement& s) {
  const auto first = static_cast<std::size_t>(s.accesses_first);
  const auto& source = plan.ir.accesses[first];
  const auto& target = plan.ir.accesses[first + 1];
  const auto element = size_of(plan.ir.buffers[static_cast<std::size_t>(source.buffer)].type);
  return {span_of(plan, r, source).bytes / element, span_of(plan, r, target).bytes / element};
}

// "rank 1 of 4": where a message says which rank found the problem.
struct rank_of_world {
  int rank;
  int size;
};
[[gnu::cold]] inline text& operator<<(text& out, rank_of_world w) {
  return out << "rank " << w.rank << " of " << w.size;
}

// Every check of this rank's collectives against a world of `size` ranks;
// throws binding_error listing the problems, or returns.
inline void check_collective_extents(const plan_view& plan, const resolved_bindings& r, int rank, int size) {
  problem_list problems;
  for (std::size_t i = 0; i < plan.ir.stmts.size(); ++i) {
    const auto& s = plan.ir.stmts[i];
    if (s.kind != ir::stmt_kind::step || !ir::is_collective(s.code)) continue;
    const auto c = counts_of(plan, r, s);
    const auto first = static_cast<std::size_t>(s.accesses_first);
    const auto source = plan.ir.accesses[first].buffer, target = plan.ir.accesses[first + 1].buffer;
    const auto n = static_cast<std::size_t>(size);
    const auto where = [&]() -> text& {
      text& t = problems.add();
      ir::describe_statement(plan.ir, static_cast<std::int32_t>(i), t);
      t << " on " << rank_of_world{rank, size} << ": ";
      return t;
    };
    switch (ir::target_extent_of(s.code)) {
      case ir::collective_extent::same:
        if (c.target != c.source)
          where() << buffer_description{plan, target} << " holds " << c.target
                  << " elements where its source " << buffer_description{plan, source} << " holds "
                  << c.source << "; bind them with one extent";
        break;
      case ir::collective_extent::divided:
        if (c.source % n != 0)
          where() << buffer_description{plan, source} << " holds " << c.source
                  << " elements, which the world's " << size
                  << " ranks cannot share equally; bind a multiple of " << size << " elements";
        else if (c.target != c.source / n)
          where() << buffer_description{plan, target} << " holds " << c.target << " elements, and "
                  << ir::info(s.code).spelling << " gives each of " << size << " ranks " << c.source / n
                  << " (" << c.source << " / " << size << "); bind it with " << c.source / n
                  << " elements, or run on the communicator of the size the bindings were made for";
        break;
      case ir::collective_extent::times:
        if (c.target != c.source * n)
          where() << buffer_description{plan, target} << " holds " << c.target << " elements, and "
                  << ir::info(s.code).spelling << " gathers " << size << " ranks' " << c.source << " ("
                  << c.source * n << "); bind it with " << c.source * n
                  << " elements, or run on the communicator of the size the bindings were made for";
        break;
    }
    if (s.code == ir::step_code::broadcast && ir::collective_root_of(s) >= size)
      where() << "the root rank " << ir::collective_root_of(s) << " is not a rank of a world of " << size
              << " (ranks 0 to " << size - 1 << ')';
  }
  problems.throw_if_any();
}

}  // namespace streamdsl::backend_detail
