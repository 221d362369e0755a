// streamdsl's headers include no heavy standard header (docs/concepts.md,
// "Standard headers"): each of these costs every translation unit that
// includes streamdsl tenths of a second under nvcc. Compiled by g++ with the
// umbrella and the bindings, and by nvcc with the CUDA executor as well; with
// -DSTREAMDSL_CHECK_HOST_EXECUTOR the host executor, which may use <optional>
// (host_options::stress_mode) but not <vector> (a seventh of its parse).
// Reads libstdc++'s include guards (the library nvcc's host compiler and g++
// use here); any other library is an error, not a pass.
#include <streamdsl/backend/bindings.hpp>
#include <streamdsl/streamdsl.hpp>
#if defined(__CUDACC__)
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#endif
#if defined(STREAMDSL_CHECK_HOST_EXECUTOR)
#include <streamdsl/backend/host/host_executor.hpp>
#endif

#if !defined(__GLIBCXX__)
#error "light_includes.cpp reads libstdc++'s include guards; this standard library is not libstdc++"
#endif

#if defined(_GLIBCXX_STRING) || defined(_BASIC_STRING_H)
#error "streamdsl includes <string>"
#endif
#if defined(_GLIBCXX_STRING_VIEW)
#error "streamdsl includes <string_view>"
#endif
#if defined(_GLIBCXX_STDEXCEPT) || defined(_GLIBCXX_SYSTEM_ERROR)
#error "streamdsl includes <stdexcept> or <system_error>"
#endif
#if defined(_GLIBCXX_SPAN)
#error "streamdsl includes <span>"
#endif
#if defined(_GLIBCXX_ARRAY)
#error "streamdsl includes <array>"
#endif
#if defined(_GLIBCXX_TUPLE) || defined(_GLIBCXX_MEMORY) || defined(_GLIBCXX_FUNCTIONAL) || \
    defined(_GLIBCXX_ALGORITHM)
#error "streamdsl includes <tuple>, <memory>, <functional> or <algorithm>"
#endif
#if defined(_GLIBCXX_OSTREAM) || defined(_GLIBCXX_ISTREAM) || defined(_GLIBCXX_SSTREAM) || \
    defined(_GLIBCXX_IOSFWD)
#error "streamdsl includes an iostream header"
#endif
#if defined(_GLIBCXX_MAP) || defined(_GLIBCXX_UNORDERED_MAP) || defined(_GLIBCXX_VARIANT) || \
    defined(_GLIBCXX_RANGES)
#error "streamdsl includes <map>, <unordered_map>, <variant> or <ranges>"
#endif
#if defined(_GLIBCXX_FORMAT) || defined(_GLIBCXX_CHRONO)
#error "streamdsl includes <format> or <chrono>"
#endif
#if defined(_GLIBCXX_VECTOR)
#error "streamdsl includes <vector>"
#endif
#if !defined(STREAMDSL_CHECK_HOST_EXECUTOR) && defined(_GLIBCXX_OPTIONAL)
#error "streamdsl includes <optional> outside the host executor"
#endif
