#!/usr/bin/env bash
# docs/errors.md covers every error kind (a "## `kind`" section for each name
# in diag/error_kind.hpp), and each g++ or nvcc output it quotes belongs to a
# case that exists (check_case.sh then checks the quoted lines against the
# compiler).
#
#   check_docs.sh ERROR_KIND_HPP ERRORS_MD CASES_DIR
set -u
kinds_header=$1 doc=$2 cases=$3
failed=0
kinds=$(sed -n 's/.*return "\([a-z0-9_]*\)";.*/\1/p' "$kinds_header" | grep -vx none)
[ -n "$kinds" ] || { echo "FAIL: no error kinds found in $kinds_header"; exit 1; }
for kind in $kinds; do
  if grep -qx "## \`$kind\`" "$doc"; then
    echo "ok: $kind is documented"
  else
    echo "FAIL: error kind $kind has no '## \`$kind\`' section in $doc"
    failed=1
  fi
done
for quoted in $(sed -n -e 's|^<!-- g++ output of tests/compile_fail/\(.*\) -->$|\1|p' \
  -e 's|^<!-- nvcc output\( through streamdsl-nvcc-errors\)\{0,1\} of tests/compile_fail/\(.*\) -->$|\2|p' "$doc"); do
  if [ -f "$cases/$quoted" ]; then
    echo "ok: quoted case $quoted exists"
  else
    echo "FAIL: $doc quotes the output of $quoted, which is not a case in $cases"
    failed=1
  fi
done
exit $failed
