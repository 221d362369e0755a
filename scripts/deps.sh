#!/usr/bin/env bash
# Installs what the build and tests need when it is missing (Debian packages).
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
[ -f /usr/include/catch2/catch.hpp ] || need+=(catch2)
command -v python3 >/dev/null || need+=(python3)
[ -f /usr/include/benchmark/benchmark.h ] || need+=(libbenchmark-dev)
# The format check is version-sensitive: the tree is formatted with clang-format 14.
command -v clang-format-14 >/dev/null || need+=(clang-format-14)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
