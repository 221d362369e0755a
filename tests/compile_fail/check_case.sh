#!/usr/bin/env bash
# Compile-fail driver: compiles one case and checks what the compiler says.
#
#   check_case.sh gcc|nvcc COMPILER SOURCE [FLAGS...]
#
# A case must NOT compile, and every expected regex written in it must match
# the compiler's output (grep -E, one line at a time):
#   // expect: REGEX        the message text: matched against g++'s output with
#                           its \' and \" unescaped, and against nvcc's output
#                           with its character lists ({'r', 'a', ...}) decoded
#                           into strings, so both compilers must produce it
#   // expect-nvcc: REGEX   matched against nvcc's raw output, as a user reads
#                           it (the template name, the static_assert summary)
#   // expect-not: REGEX    must match no line of the output that `expect`
#                           lines are matched against
# A case containing the line "// expect-compiles" must compile cleanly instead
# (the suite's positive control: a driver that fails everything fails it).
#
# With STREAMDSL_ERRORS_DOC set to docs/errors.md, the g++ lines that the page
# quotes for this case (the text block after "<!-- g++ output of
# tests/compile_fail/NAME -->") must each appear in g++'s output, so the page
# shows what the compiler prints today.
set -u

if [ $# -lt 3 ]; then
  echo "usage: $0 gcc|nvcc COMPILER SOURCE [FLAGS...]" >&2
  exit 2
fi
flavour=$1 compiler=$2 source=$3
shift 3
case "$flavour" in gcc | nvcc) ;; *)
  echo "unknown compiler flavour '$flavour' (gcc or nvcc)" >&2
  exit 2
  ;;
esac
if [ ! -r "$source" ]; then
  echo "cannot read case $source" >&2
  exit 2
fi

# Regexes after a marker, one per line, marker and leading space removed.
patterns() { sed -n "s|^[[:space:]]*// $1:[[:space:]]*||p" "$source"; }

# g++ prints the message as a string literal: unescape quotes.
unescape_gcc() { sed -e "s/\\\\'/'/g" -e 's/\\"/"/g'; }

# nvcc prints the message as a character list; turn each list back into text.
# Quote and backslash characters go through placeholders (\x01, \x02) so the
# general rule cannot see them.
decode_nvcc() {
  sed -E \
    -e "s/'\\\\000'(, )?//g" \
    -e "s/'\\\\''(, )?/\x01/g" \
    -e "s/'\\\\\\\\'(, )?/\x02/g" \
    -e "s/'\\\\\"'(, )?/\"/g" \
    -e "s/'([^'\\\\])'(, )?/\\1/g" \
    -e "s/\x01/'/g" -e "s/\x02/\\\\/g"
}

output=$("$compiler" "$@" "$source" 2>&1)
status=$?
name=$(basename "$source")

if grep -q '^[[:space:]]*// expect-compiles' "$source"; then
  if [ $status -ne 0 ]; then
    echo "FAIL: $name must compile with $flavour but did not (exit $status):"
    echo "$output"
    exit 1
  fi
  echo "ok: $name compiles with $flavour"
  exit 0
fi

if [ $status -eq 0 ]; then
  echo "FAIL: $name compiled with $flavour, but it must not compile"
  [ -n "$output" ] && echo "$output"
  exit 1
fi

message_patterns=$(patterns expect)
raw_patterns=""
[ "$flavour" = nvcc ] && raw_patterns=$(patterns expect-nvcc)
if [ -z "$message_patterns" ]; then
  echo "FAIL: $name has no '// expect:' line, so any error would pass"
  exit 1
fi
if [ "$flavour" = nvcc ] && [ -z "$raw_patterns" ]; then
  echo "FAIL: $name has no '// expect-nvcc:' line for what nvcc shows in words"
  exit 1
fi

if [ "$flavour" = gcc ]; then
  readable=$(printf '%s\n' "$output" | unescape_gcc)
else
  readable=$(printf '%s\n' "$output" | decode_nvcc)
fi

failed=0
check() {  # check LABEL TEXT PATTERNS [absent]
  local label=$1 text=$2 want=${4:-present} pattern found
  while IFS= read -r pattern; do
    [ -z "$pattern" ] && continue
    found=absent
    printf '%s\n' "$text" | grep -Eq -- "$pattern" && found=present
    if [ "$found" = "$want" ]; then
      echo "  ok $label: $pattern"
    else
      echo "  FAILED $label ($found): $pattern"
      failed=1
    fi
  done <<<"$3"
}
echo "$name fails to compile with $flavour (exit $status), as it must; checking its message:"
check expect "$readable" "$message_patterns"
[ -n "$raw_patterns" ] && check expect-nvcc "$output" "$raw_patterns"
check expect-not "$readable" "$(patterns expect-not)" absent

if [ "$flavour" = gcc ] && [ -n "${STREAMDSL_ERRORS_DOC:-}" ]; then
  quoted=$(awk -v marker="<!-- g++ output of tests/compile_fail/$name -->" '
    $0 == marker { inside = 1; next }
    inside && /^```text/ { next }
    inside && /^```/ { exit }
    inside { print }' "$STREAMDSL_ERRORS_DOC")
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    if printf '%s\n' "$output" | grep -Fq -- "$line"; then
      echo "  ok docs/errors.md quotes: ${line:0:80}..."
    else
      echo "  FAILED docs/errors.md quotes a line g++ no longer prints: $line"
      failed=1
    fi
  done <<<"$quoted"
fi

if [ $failed -ne 0 ]; then
  echo "FAIL: $name: the $flavour output lacks an expected message. The output was:"
  echo "$output"
  if [ "$flavour" = nvcc ]; then
    echo "--- with character lists decoded:"
    echo "$readable"
  fi
  exit 1
fi
echo "ok"
