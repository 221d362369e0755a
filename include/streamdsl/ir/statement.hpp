#pragma once
// A statement of the program in program order: an elementwise assignment, a
// step (a copy, and later the other non-elementwise operations: step.hpp) or
// a sync operation, each tagged with the stream slot it was issued on.
#include <cstdint>

#include "../detail/string_view.hpp"
#include "step.hpp"

namespace streamdsl::ir {

enum class stmt_kind : std::uint8_t { assign, step, record, wait, wait_stream };

constexpr detail::string_view name_of(stmt_kind k) {
  switch (k) {
    case stmt_kind::assign: return "assign";
    case stmt_kind::step: return "step";
    case stmt_kind::record: return "record";
    case stmt_kind::wait: return "wait";
    case stmt_kind::wait_stream: return "wait_stream";
  }
  return "?";
}

// Whether a statement touches buffers (the others only order streams). The
// enumerators are ordered so that this is `k <= stmt_kind::step`, which the
// passes' hottest loops write in place (a call costs constant evaluation).
constexpr bool accesses_buffers(stmt_kind k) { return k <= stmt_kind::step; }
static_assert(stmt_kind::assign < stmt_kind::step && stmt_kind::step < stmt_kind::record &&
                  stmt_kind::record < stmt_kind::wait && stmt_kind::wait < stmt_kind::wait_stream,
              "accesses_buffers and the passes' `kind <= stmt_kind::step` rely on this order");

struct statement {
  stmt_kind kind = stmt_kind::assign;
  step_code code = step_code::copy;  // step: which one
  std::uint8_t matmul_mode = 0;      // a matmul: operands read transposed, TF32, its epilogue (ir/step.hpp);
                                     // a collective: its ir::reduce_op (ir::collective_op_of)
  std::int32_t stream = 0;
  std::int32_t target = -1;  // assign: buffer written (its region: writes_of)
  std::int32_t root = -1;    // assign: expression node; a matmul with ir::matmul_alpha: alpha's node
  std::int32_t event = -1;   // record, wait: the event; a call step: its index in program::calls;
                             // a collective: a broadcast's root rank (ir::collective_root_of), else 0
  std::int32_t other = -1;   // wait_stream: the stream waited for
  std::int32_t binds = -1;   // wait: index of the record it waits for
  std::int32_t origin = -1;  // index in the user's program (-1: inserted by a pass)
  std::int32_t axis = -1;    // a reduction or scan: the domain it runs along (its rows'), -1: all of it
  // A matmul with sd::scales(sa, sb): the 0-d float buffers scaling a and b
  // (FP8 operands; -1: none). They are reads too, after the other operands.
  std::int32_t scale_a = -1, scale_b = -1;
  // An FP8 product's sd::output_scale(sd) (a 0-d float buffer read, -1: 1)
  // and sd::output_amax(am) (a 0-d float buffer written after the product,
  // -1: none), cuBLASLt's D_SCALE_POINTER and AMAX_D_POINTER.
  std::int32_t scale_d = -1, amax_d = -1;
  // assign and step: the regions it reads, each once, then the regions it
  // writes, at program::accesses[accesses_first ...] (found once when the
  // statement is written; the passes ask for them many times).
  std::int32_t accesses_first = 0;
  std::int32_t reads_count = 0;
  std::int32_t writes_count = 0;
};

}  // namespace streamdsl::ir
