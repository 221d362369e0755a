#pragma once
// How a collective combines the ranks' values (sd::reduce_op::sum, ...), as
// NCCL's ncclRedOp_t: sum, prod, min, max and avg (the sum divided by the
// number of ranks). Which element types each applies to, and which types a
// collective moves at all, is collective_supports (below): one fact, read by
// the front end's checks and both backends.
#include <cstdint>

#include "../detail/string_view.hpp"
#include "dtype.hpp"

namespace streamdsl::ir {

enum class reduce_op : std::uint8_t { sum, prod, min, max, avg };
inline constexpr int reduce_op_count = static_cast<int>(reduce_op::avg) + 1;

// "sd::reduce_op::sum", ...: as the user writes it, for dumps and messages.
constexpr detail::string_view spelling_of(reduce_op op) {
  switch (op) {
    case reduce_op::sum: return "sd::reduce_op::sum";
    case reduce_op::prod: return "sd::reduce_op::prod";
    case reduce_op::min: return "sd::reduce_op::min";
    case reduce_op::max: return "sd::reduce_op::max";
    case reduce_op::avg: return "sd::reduce_op::avg";
  }
  return "?";
}

// The element types NCCL reduces (ncclDataType_t): every streamdsl type but
// bool, int16_t and uint16_t, which NCCL has no type for.
constexpr bool nccl_reduces(dtype t) {
  // FP8 too: NCCL reduces it only from 2.24 on sm_90, and FP8 values only
  // convert in streamdsl (no arithmetic on the host either); all_gather and
  // broadcast move it as bytes.
  return t != dtype::boolean && t != dtype::int16 && t != dtype::uint16 && t != dtype::float8_e4m3 &&
         t != dtype::float8_e5m2;
}

// Whether a reducing collective (all_reduce, reduce_scatter) applies `op` to
// elements of type `t`. avg only for the floating types: NCCL computes it
// for them as a sum of values premultiplied by 1/ranks, while for integers
// it divides with truncation (and not for every signed type in every NCCL
// version), an average no user asks for; sum, then divide with an
// elementwise statement, says which rounding is meant.
constexpr bool collective_supports(reduce_op op, dtype t) {
  if (!nccl_reduces(t)) return false;
  return op != reduce_op::avg || category_of(t) == dtype_category::floating;
}

}  // namespace streamdsl::ir

namespace streamdsl {
// sd::reduce_op::sum, ...: the user's spelling.
using reduce_op = ir::reduce_op;
}  // namespace streamdsl
