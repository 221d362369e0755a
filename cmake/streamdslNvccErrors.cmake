# streamdsl_readable_nvcc_errors(<target>...): nvcc prints the message of a
# streamdsl compile error as a list of characters ({'r', 'a', 'c', 'e', ...});
# this puts the streamdsl-nvcc-errors launcher in front of the CUDA compiler of
# each target, which rewrites those lists into text and leaves everything else
# as nvcc prints it. A launcher the target already has (ccache) stays, after it.
#
# The launcher's path is STREAMDSL_NVCC_ERRORS_LAUNCHER, set before this file
# is included (by streamdslConfig.cmake, or by streamdsl's CMakeLists.txt).
set_property(GLOBAL PROPERTY streamdsl_nvcc_errors_launcher "${STREAMDSL_NVCC_ERRORS_LAUNCHER}")

function(streamdsl_readable_nvcc_errors)
  get_property(launcher GLOBAL PROPERTY streamdsl_nvcc_errors_launcher)
  foreach(target IN LISTS ARGN)
    if(NOT TARGET ${target})
      message(FATAL_ERROR "streamdsl_readable_nvcc_errors: '${target}' is not a target")
    endif()
    get_target_property(existing ${target} CUDA_COMPILER_LAUNCHER)
    if(NOT existing)
      set(existing "")
    endif()
    if(NOT launcher IN_LIST existing)
      set_property(TARGET ${target} PROPERTY CUDA_COMPILER_LAUNCHER ${launcher} ${existing})
    endif()
  endforeach()
endfunction()
