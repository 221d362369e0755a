// streamdsl's headers include no heavy standard header (docs/concepts.md,
// "Standard headers"): each of these costs every translation unit that
// includes streamdsl tenths of a second under nvcc. Compiled by g++ with the
// umbrella and the bindings, and by nvcc with the CUDA executor as well.
#include <streamdsl/backend/bindings.hpp>
#include <streamdsl/streamdsl.hpp>
#if defined(__CUDACC__)
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#endif

#if defined(_GLIBCXX_STRING)
#error "streamdsl includes <string>"
#endif
#if defined(_GLIBCXX_STRING_VIEW)
#error "streamdsl includes <string_view>"
#endif
#if defined(_GLIBCXX_STDEXCEPT)
#error "streamdsl includes <stdexcept>"
#endif
#if defined(_GLIBCXX_VECTOR)
#error "streamdsl includes <vector>"
#endif
#if defined(_GLIBCXX_SPAN)
#error "streamdsl includes <span>"
#endif
#if defined(_GLIBCXX_ARRAY)
#error "streamdsl includes <array>"
#endif
#if defined(_GLIBCXX_OPTIONAL)
#error "streamdsl includes <optional>"
#endif
