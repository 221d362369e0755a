#pragma once
// streamdsl needs C++20 (concepts, constexpr allocation). The headers a user
// includes (streamdsl.hpp, the executors, cuda_graph.hpp) include this first
// and skip their contents without it, so a C++17 compile reports this one
// line rather than hundreds of errors from inside the library.
#if __cplusplus > 201703L || (defined(_MSVC_LANG) && _MSVC_LANG > 201703L)
#define STREAMDSL_CXX20 1
#else
#define STREAMDSL_CXX20 0
#error "streamdsl needs C++20: compile with -std=c++20 (g++, clang++ and nvcc alike)"
#endif
