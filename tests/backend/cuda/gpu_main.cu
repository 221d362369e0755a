// Catch2 main for GPU tests: without a CUDA device the binary reports SKIPPED
// (exit code 77, which ctest shows as "Skipped"), never passed.
#define CATCH_CONFIG_RUNNER
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf(
        "SKIPPED: no CUDA device on this machine; the GPU tests run on the GPU machine (scripts/gpu.sh)\n");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
