// FP8 on the host executor (filled below).
#include <catch2/catch.hpp>
