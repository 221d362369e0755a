# Finds NCCL (nccl.h and libnccl) and defines the imported target NCCL::nccl,
# which streamdsl::nccl links. CMake's FindCUDAToolkit has no NCCL target, so
# this looks where NCCL is installed beside CUDA (include/ and lib64/ of the
# toolkit, as here and on the GPU machines), then under NCCL_ROOT or
# $ENV{NCCL_ROOT} / $ENV{NCCL_HOME} (a separate NCCL install, a conda or pip
# one). Needs find_package(CUDAToolkit) first. Sets streamdsl_NCCL_FOUND.
if(TARGET NCCL::nccl)
  set(streamdsl_NCCL_FOUND TRUE)
  return()
endif()
set(streamdsl_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} $ENV{NCCL_HOME})
find_path(STREAMDSL_NCCL_INCLUDE_DIR nccl.h
  HINTS ${streamdsl_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}
  PATH_SUFFIXES include)
find_library(STREAMDSL_NCCL_LIBRARY nccl
  HINTS ${streamdsl_nccl_hints} ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}
  PATH_SUFFIXES lib64 lib)
if(STREAMDSL_NCCL_INCLUDE_DIR AND STREAMDSL_NCCL_LIBRARY)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION "${STREAMDSL_NCCL_LIBRARY}"
                                              INTERFACE_INCLUDE_DIRECTORIES "${STREAMDSL_NCCL_INCLUDE_DIR}")
  # NCCL's calls take CUDA streams: its users link the CUDA runtime.
  target_link_libraries(NCCL::nccl INTERFACE CUDA::cudart)
  set(streamdsl_NCCL_FOUND TRUE)
else()
  set(streamdsl_NCCL_FOUND FALSE)
endif()
