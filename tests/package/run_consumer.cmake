# Configures, builds and runs tests/package/consumer in a scratch directory.
# cmake -DMODE=package|subdirectory|fetchcontent -DSOURCE_DIR=<streamdsl> -DWORK_DIR=<scratch>
#       -DCXX_COMPILER=<c++> -DGENERATOR=<generator> -P run_consumer.cmake
# In package mode it first configures streamdsl alone (no tests, no CUDA) and
# installs it into WORK_DIR/prefix, as a user would from a fresh clone.
# MODE=package_cuda (with -DCUDA_COMPILER=<nvcc>) installs the same way, then
# configures and builds tests/package/consumer_cuda, without running it.
cmake_minimum_required(VERSION 3.25)
foreach(var IN ITEMS MODE SOURCE_DIR WORK_DIR CXX_COMPILER GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()

# Runs a command; on failure prints what it said and stops with the step's name.
function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${MODE}: ${name} failed (${rc})\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(common_args -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
    # The user's package registry must not decide which streamdsl is found.
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)

set(consumer_args -DCONSUME=${MODE})
set(consumer_dir "${CMAKE_CURRENT_LIST_DIR}/consumer")
if(MODE STREQUAL "package_cuda")
  set(consumer_dir "${CMAKE_CURRENT_LIST_DIR}/consumer_cuda")
  set(consumer_args -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER} -DCMAKE_CUDA_ARCHITECTURES=90)
endif()
if(MODE MATCHES "^package")
  set(prefix "${WORK_DIR}/prefix")
  run_step("configure streamdsl" ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/streamdsl-build" ${common_args}
           -DSTREAMDSL_BUILD_TESTS=OFF -DSTREAMDSL_BUILD_EXAMPLES=OFF -DSTREAMDSL_CUDA=OFF)
  run_step("install streamdsl" ${CMAKE_COMMAND} --install "${WORK_DIR}/streamdsl-build" --prefix "${prefix}")
  list(APPEND consumer_args -DCMAKE_PREFIX_PATH=${prefix} -DEXPECTED_PREFIX=${prefix})
else()
  list(APPEND consumer_args -DSTREAMDSL_SOURCE_DIR_FOR_TEST=${SOURCE_DIR})
endif()

set(consumer_build "${WORK_DIR}/consumer-build")
run_step("configure consumer" ${CMAKE_COMMAND} -S "${consumer_dir}" -B "${consumer_build}" ${common_args}
         ${consumer_args})
run_step("build consumer" ${CMAKE_COMMAND} --build "${consumer_build}")
if(MODE STREQUAL "package_cuda")
  message(STATUS "${MODE}: the CUDA consumer built with CMake ${CMAKE_VERSION}")
  return()
endif()
run_step("run consumer" "${consumer_build}/consumer")

# The printed plan: the side stream's fused kernel, the wait on `done`, main's kernel.
foreach(part IN ITEMS "stream side:" "wait done (recorded on side)" "y = t * 3;" "z = y + x;")
  string(FIND "${step_output}" "${part}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${MODE}: the consumer's output lacks '${part}':\n${step_output}")
  endif()
endforeach()
message(STATUS "${MODE}: consumer built and ran:\n${step_output}")
