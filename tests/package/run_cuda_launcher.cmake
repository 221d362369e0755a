# Builds tests/package/cuda_launcher, whose targets compile a streamdsl error
# through streamdsl-nvcc-errors as CMake's CUDA compiler launcher (set by
# streamdsl_readable_nvcc_errors() and by CMAKE_CUDA_COMPILER_LAUNCHER): each
# build must fail and show the message in words, with no character list left.
# cmake -DSOURCE_DIR=<streamdsl> -DWORK_DIR=<scratch> -DCUDA_COMPILER=<nvcc> -DCXX_COMPILER=<c++>
#       -DGENERATOR=<generator> -DCASE=<compile-fail case> -DEXPECT=<text> -P run_cuda_launcher.cmake
cmake_minimum_required(VERSION 3.25)
foreach(var IN ITEMS SOURCE_DIR WORK_DIR CUDA_COMPILER CXX_COMPILER GENERATOR CASE EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_cuda_launcher.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/cuda_launcher" -B "${WORK_DIR}" -G "${GENERATOR}"
                        -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}
                        -DCMAKE_CUDA_ARCHITECTURES=90 -DSTREAMDSL_SOURCE_DIR_FOR_TEST=${SOURCE_DIR}
                        -DFAILING_CASE=${CASE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed (${rc})\n${out}\n${err}")
endif()
foreach(target IN ITEMS via_function via_variable)
  execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}" --target ${target}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  if(rc EQUAL 0)
    message(FATAL_ERROR "${target}: the build succeeded, but the case must not compile\n${all}")
  endif()
  string(FIND "${all}" "${EXPECT}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${target}: the build output lacks '${EXPECT}':\n${all}")
  endif()
  if(all MATCHES "{'[^']', '")
    message(FATAL_ERROR "${target}: the build output still has a character list:\n${all}")
  endif()
  message(STATUS "${target}: the build failed with the message in words: ${EXPECT}")
endforeach()
