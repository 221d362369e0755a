#!/usr/bin/env bash
# Instructions g++'s compiler proper (cc1plus) executes on one unit, under
# valgrind: deterministic, unlike CPU seconds on a shared machine, so a few
# percent between two header sets can be told apart in one run each.
#
#   count_instructions.sh UNIT.cpp INCLUDE_DIR
set -euo pipefail
unit=$1 inc=$2
cc1=$(g++ -print-prog-name=cc1plus)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=$(g++ -std=c++20 -fsyntax-only -fconstexpr-ops-limit=4294967296 -I"$inc" "$unit" -### 2>&1 |
  grep cc1plus | sed 's/^ *//' | cut -d' ' -f2- | tr -d '"')
# shellcheck disable=SC2086  # the driver's arguments, split as it wrote them
valgrind --tool=callgrind --callgrind-out-file="$work/out" "$cc1" $args -quiet >/dev/null 2>"$work/log"
grep -o "Collected : [0-9]*" "$work/log" | awk '{print $3}'
