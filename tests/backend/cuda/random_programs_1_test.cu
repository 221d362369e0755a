// Compile-time random programs, seeds 10 to 19, on the GPU against the
// sequential reference and the host executor (split in files of 10 seeds to
// keep each nvcc compile short).
#define STREAMDSL_COMPILED_FIRST_SEED 10
#define STREAMDSL_COMPILED_SEEDS 10
// Some seeds reduce (sd::min, sd::max): CUB's part of the executor.
#include <streamdsl/backend/cuda/reductions.cuh>

#include "../../random/compiled_programs_test.cpp"
