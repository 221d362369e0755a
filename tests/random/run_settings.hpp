#pragma once
// How many random programs a run covers, from which seed: the defaults suit
// CI; STREAMDSL_RANDOM_PROGRAMS (e.g. 10000 for the long mode) and
// STREAMDSL_RANDOM_SEED (to replay one failing seed with
// STREAMDSL_RANDOM_PROGRAMS=1) override them.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace streamdsl::random_test {

inline std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const auto n = std::strtoull(v, &end, 10);
  if (end == v || *end != '\0')
    throw std::invalid_argument(std::string(name) + " must be a whole number, got '" + v + "'");
  return n;
}

struct run_settings {
  std::uint64_t programs;
  std::uint64_t first_seed;
};

inline run_settings settings_from_env(std::uint64_t default_programs) {
  return {env_number("STREAMDSL_RANDOM_PROGRAMS", default_programs), env_number("STREAMDSL_RANDOM_SEED", 1)};
}

}  // namespace streamdsl::random_test
