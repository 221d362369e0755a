// The user_kernel example built by nvcc: runs on the GPU when one is present.
#include "main.cpp"
