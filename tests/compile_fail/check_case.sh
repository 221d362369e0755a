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
# nvcc's output is decoded by tools/streamdsl-nvcc-errors --decode, the
# decoder of the launcher users put in front of nvcc (STREAMDSL_NVCC_ERRORS
# names it; by default the one in this source tree). After decoding, no
# character list may remain.
#
# The message itself (the string in the fixed_string<N>{"...", N} template
# argument) must be the same sentence under both compilers: a g++ run with
# STREAMDSL_MESSAGE_OUT set writes its message there, and an nvcc run with
# STREAMDSL_MESSAGE_GCC set to that file checks that its decoded message is
# the same text (CMake orders the two runs with a test fixture).
#
# With STREAMDSL_ERRORS_DOC set to docs/errors.md, the lines that the page
# quotes for this case must each appear in the compiler's output, so the page
# shows what the compiler prints today: for g++ the text block after
# "<!-- g++ output of tests/compile_fail/NAME -->", for nvcc the blocks after
# "<!-- nvcc output of tests/compile_fail/NAME -->" (checked against the raw
# output) and "<!-- nvcc output through streamdsl-nvcc-errors of
# tests/compile_fail/NAME -->" (checked against the decoded output). A quoted
# line may be part of a line (grep -F): the file name and line number in front
# of it are left out.
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

# nvcc prints the message as a character list: the launcher's decoder turns
# each list back into text.
decoder=${STREAMDSL_NVCC_ERRORS:-$(dirname "$0")/../../tools/streamdsl-nvcc-errors}
decode_nvcc() { "$decoder" --decode; }

# The message in the first fixed_string<N>{"...", N} of the output.
message_of() { sed -n 's/.*fixed_string<[0-9]*U*L*>{"\(.*\)", [0-9]*U*L*}.*/\1/p' | head -n 1; }

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
  if ! readable=$(printf '%s\n' "$output" | decode_nvcc); then
    echo "FAIL: $name: the decoder $decoder did not run (it needs python3)"
    exit 1
  fi
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

# Every character list was decoded: no "{" followed by two character literals
# is left.
if [ "$flavour" = nvcc ]; then
  left=$(printf '%s\n' "$readable" | grep -Eo -- "\\{'([^'\\]|\\\\[^ ]{1,3})', '.{0,40}" | head -n 1)
  if [ -n "$left" ]; then
    echo "  FAILED decoding: a character list is left in the decoded output: $left"
    failed=1
  else
    echo "  ok decoding: no character list is left"
  fi
fi

# The same sentence under both compilers.
# g++ escapes \' \" \\ in it; the decoded nvcc output escapes none of them.
if [ "$flavour" = gcc ]; then
  message=$(printf '%s\n' "$output" | message_of | sed 's/\\\(.\)/\1/g')
else
  message=$(printf '%s\n' "$readable" | message_of)
fi
if [ -n "${STREAMDSL_MESSAGE_OUT:-}" ]; then
  mkdir -p "$(dirname "$STREAMDSL_MESSAGE_OUT")" && printf '%s\n' "$message" >"$STREAMDSL_MESSAGE_OUT"
fi
if [ -n "${STREAMDSL_MESSAGE_GCC:-}" ]; then
  if [ ! -r "$STREAMDSL_MESSAGE_GCC" ]; then
    echo "  FAILED same message as g++: g++'s message $STREAMDSL_MESSAGE_GCC is missing (run compile_fail.gcc.${name%.cpp})"
    failed=1
  elif [ "$message" = "$(cat "$STREAMDSL_MESSAGE_GCC")" ]; then
    if [ -n "$message" ]; then
      echo "  ok same message as g++: ${message:0:80}..."
    else
      echo "  ok same message as g++: neither has a fixed_string message (an error outside streamdsl's diagnostics)"
    fi
  else
    echo "  FAILED same message as g++:"
    echo "    g++:  $(cat "$STREAMDSL_MESSAGE_GCC")"
    echo "    nvcc: $message"
    failed=1
  fi
fi

# The lines that docs/errors.md quotes after MARKER must be in TEXT.
check_quotes() {  # check_quotes MARKER TEXT WHAT
  local quoted line
  quoted=$(awk -v marker="$1" '
    $0 == marker { inside = 1; next }
    inside && /^```text/ { next }
    inside && /^```/ { inside = 0 }
    inside { print }' "$STREAMDSL_ERRORS_DOC")
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    if printf '%s\n' "$2" | grep -Fq -- "$line"; then
      echo "  ok docs/errors.md quotes: ${line:0:80}..."
    else
      echo "  FAILED docs/errors.md quotes a line $3 no longer prints: $line"
      failed=1
    fi
  done <<<"$quoted"
}
if [ -n "${STREAMDSL_ERRORS_DOC:-}" ]; then
  if [ "$flavour" = gcc ]; then
    check_quotes "<!-- g++ output of tests/compile_fail/$name -->" "$output" "g++"
  else
    check_quotes "<!-- nvcc output of tests/compile_fail/$name -->" "$output" "nvcc"
    check_quotes "<!-- nvcc output through streamdsl-nvcc-errors of tests/compile_fail/$name -->" "$readable" \
      "nvcc through streamdsl-nvcc-errors"
  fi
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
