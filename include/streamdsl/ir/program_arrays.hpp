#pragma once
// The arrays of a program's IR, listed once. Each use below expands the list
// with a macro of its own (member declarations, views, sizes, copies), so a
// new array is one line here and every place that holds, views, measures or
// copies the IR follows: ir/program.hpp, ir/program_view.hpp and the plan
// headers (plan/plan_arrays.hpp). An X-macro rather than a list of member
// pointers: it declares the members too, and costs the compilers nothing.
//
// X(element type, member): element types are spelled from the global
// namespace, since the list is expanded in streamdsl and streamdsl::ir.
#include <cstdint>

#include "entities.hpp"
#include "expr_node.hpp"
#include "region.hpp"
#include "statement.hpp"

// clang-format off
#define STREAMDSL_PROGRAM_ARRAYS(X)                                                            \
  X(char, pool)                             /* the characters of every name */                 \
  X(::streamdsl::ir::buffer_info, buffers)                                                     \
  X(::streamdsl::ir::param_info, params)                                                       \
  X(::streamdsl::ir::stream_info, streams)                                                     \
  X(::streamdsl::ir::event_info, events)                                                       \
  X(::streamdsl::ir::domain_info, domains)                                                     \
  X(::streamdsl::ir::call_info, calls)      /* the user's steps (p.call), by name */           \
  X(::streamdsl::ir::expr_node, nodes)                                                         \
  X(::streamdsl::ir::statement, stmts)                                                         \
  X(::streamdsl::ir::region, accesses)      /* what statements read and write (statement::accesses_first) */
// clang-format on
