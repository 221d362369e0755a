#pragma once
// The pieces of a plan: operations issued per stream (kernels, steps,
// records, waits), kernels as lists of statements, and memory slots for temps.
#include <cstdint>

#include "../detail/string_view.hpp"
#include "../ir/dtype.hpp"

namespace streamdsl {

enum class op_kind : std::uint8_t { kernel, step, record, wait };

// Why a sync operation exists.
enum class sync_role : std::uint8_t { user, wait_stream, automatic, entry, exit };

constexpr detail::string_view name_of(sync_role r) {
  switch (r) {
    case sync_role::user: return "user";
    case sync_role::wait_stream: return "wait_stream";
    case sync_role::automatic: return "automatic";
    case sync_role::entry: return "entry";
    case sync_role::exit: return "exit";
  }
  return "?";
}

struct plan_op {
  op_kind kind = op_kind::kernel;
  sync_role role = sync_role::user;
  std::int32_t stream = 0;
  std::int32_t kernel = -1;     // kernel: index into kernels
  std::int32_t event = -1;      // record, wait: the IR event (-1 for entry and exit edges)
  std::int32_t waits_for = -1;  // wait: index of the record op it waits for
  std::int32_t stmt = -1;       // step, record, wait: the statement it comes from (-1 for entry/exit)
  // A row group (passes/row_groups.hpp): on its first op the number of ops
  // it joins (2 or more), 0 on its later ops; 1 on an op not in a group.
  std::int32_t group = 1;
};

struct kernel_info {
  std::int32_t stream = 0;
  std::int32_t domain = 0;
  std::int32_t parts = 1;  // it iterates 1/parts of the domain (its statements' chunks)
  std::int32_t first = 0;  // into the plan's kernel statement list
  std::int32_t count = 0;
  // A launch covers kernels [k, k + segments) of one stream: independent
  // kernels (no region one writes is touched by another) issued as one
  // multi-tensor launch, each a segment of its grid (passes/join_launches.hpp).
  // 1 for a kernel launched alone, 0 on every kernel but a launch's first;
  // the plan's kernel op names the first.
  std::int32_t segments = 1;
};

// Where a buffer lives while the plan runs.
inline constexpr std::int32_t storage_bound = -1;     // bound by the caller
inline constexpr std::int32_t storage_register = -2;  // a temp that never leaves its kernel

struct slot_info {
  dtype type = dtype::float32;
  std::int32_t domain = 0;
};

}  // namespace streamdsl
