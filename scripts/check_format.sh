#!/usr/bin/env bash
# Checks that the C++ sources follow .clang-format (fails listing the files
# that differ). With --fix, reformats them in place instead.
#   bash scripts/check_format.sh [--fix]
# CLANG_FORMAT selects the binary (default: clang-format-14, which
# scripts/deps.sh installs; the result depends on the version).
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$clang_format" >/dev/null; then
  echo "check_format: $clang_format not found (Debian package clang-format-14; bash scripts/deps.sh installs it)" >&2
  exit 2
fi

mapfile -d '' files < <(git ls-files -z --cached --others --exclude-standard -- include tests examples bench |
                        grep -zE '\.(hpp|cpp|cu|cuh|h|cc)$' || true)
if [ ${#files[@]} -eq 0 ]; then
  echo "check_format: no C++ files found" >&2
  exit 2
fi

if [ "${1:-}" = "--fix" ]; then
  "$clang_format" -i "${files[@]}"
  echo "check_format: formatted ${#files[@]} files"
  exit 0
fi

bad=()
for f in "${files[@]}"; do
  "$clang_format" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format: ${#bad[@]} of ${#files[@]} files differ from .clang-format ($("$clang_format" --version)):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "see the changes with: $clang_format --dry-run <file>; apply them with: bash scripts/check_format.sh --fix" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files ok"
