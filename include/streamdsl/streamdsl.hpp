#pragma once
// streamdsl: multi-stream GPU programs written as statements in stream
// scopes, scheduled at compile time. Include this one header.
#include "detail/require_cxx20.hpp"
#if STREAMDSL_CXX20  // else require_cxx20.hpp has said why
#include "backend/chrome_trace.hpp"
#include "dsl/builder.hpp"
#include "dsl/functions.hpp"
#include "ops/call.hpp"
#include "ops/collective.hpp"
#include "ops/copy.hpp"
#include "ops/matmul.hpp"
#include "ops/reduce.hpp"
#include "ops/scan.hpp"
#include "passes/options.hpp"
#include "program.hpp"

#ifndef STREAMDSL_NO_SD_ALIAS
namespace sd = streamdsl;
#endif
#endif  // STREAMDSL_CXX20
