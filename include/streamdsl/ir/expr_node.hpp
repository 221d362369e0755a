#pragma once
// One node of an elementwise expression tree. Trees live in a flat array and
// refer to their operands by index, so they survive constant evaluation.
#include <cstdint>

#include "dtype.hpp"
#include "op_table.hpp"

namespace streamdsl::ir {

struct expr_node {
  op code = op::literal;
  dtype type = dtype::float32;     // result type
  dtype compute = dtype::float32;  // type the operands are converted to
  std::int32_t a = -1, b = -1, c = -1;
  std::int32_t ref = -1;     // buffer or param id
  double fvalue = 0;         // literal value (floating view)
  std::int64_t ivalue = 0;   // literal value (exact integral view)
  std::int32_t domain = -1;  // iteration domain, -1 for a broadcast scalar
  // The shape iterated is 1/parts of the domain: a chunk's (1: the whole).
  // A load reads chunk `part` of its buffer.
  std::int32_t part = 0, parts = 1;
};

}  // namespace streamdsl::ir
