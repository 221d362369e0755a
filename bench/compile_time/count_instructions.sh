#!/usr/bin/env bash
# Instructions g++'s compiler proper (cc1plus) executes on one unit, under
# valgrind: deterministic, unlike CPU seconds on a shared machine, so a few
# percent between two header sets can be told apart in one run each.
#
#   count_instructions.sh UNIT.cpp INCLUDE_DIR [codegen]
#
# Without `codegen`: -fsyntax-only (parse, instantiation, constant
# evaluation). With it: -O2 -c as the benchmark compiles, so the code
# generation of the unit's run-time functions is counted too.
set -euo pipefail
unit=$1 inc=$2 mode=${3:-syntax}
cc1=$(g++ -print-prog-name=cc1plus)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$mode" = codegen ]; then
  flags="-O2 -c -o $work/unit.o"
else
  flags="-fsyntax-only"
fi
# shellcheck disable=SC2086  # flags: several arguments
args=$(g++ -std=c++20 $flags -fconstexpr-ops-limit=4294967296 -I"$inc" "$unit" -### 2>&1 |
  grep cc1plus | sed 's/^ *//' | cut -d' ' -f2- | tr -d '"')
# With -c the driver names a temporary assembler file for cc1plus: write it here.
if [ "$mode" = codegen ]; then args="${args% -o *} -o $work/unit.s"; fi
# shellcheck disable=SC2086  # the driver's arguments, split as it wrote them
valgrind --tool=callgrind --callgrind-out-file="$work/out" "$cc1" $args -quiet >/dev/null 2>"$work/log"
grep -o "Collected : [0-9]*" "$work/log" | awk '{print $3}'
