#!/usr/bin/env bash
# tools/streamdsl-nvcc-errors as a launcher in front of nvcc:
#   - a compile that succeeds with a warning prints exactly what nvcc prints,
#     byte for byte, on the same streams, with nvcc's exit status (0);
#   - a compile-fail case prints what nvcc prints with each character list
#     decoded (the decoder the compile-fail suite checks every case with), and
#     exits with nvcc's status;
#   - a compiler that cannot start, or one that fails, gives its status;
#   - every escape nvcc writes in a character list is decoded as documented,
#     and lines without a list pass through --decode byte for byte.
#
#   check_launcher.sh LAUNCHER NVCC SCRATCH_DIR FAILING_CASE LAUNCHER_CASES_DIR [NVCC_FLAGS...]
# LAUNCHER_CASES_DIR holds compiles_with_warning.cu and escapes.cu.
set -u
launcher=$1 nvcc=$2 scratch=$3 failing=$4 cases=$5
shift 5
warning=$cases/compiles_with_warning.cu
rm -rf "$scratch" && mkdir -p "$scratch" || exit 2
failed=0
fail() { echo "FAILED: $*"; failed=1; }

# run NAME COMMAND...: stdout, stderr and status into $scratch/NAME.{out,err,rc}
run() {
  local name=$1
  shift
  "$@" >"$scratch/$name.out" 2>"$scratch/$name.err"
  echo $? >"$scratch/$name.rc"
}
same() {  # same FILE_A FILE_B WHAT
  if cmp -s "$1" "$2"; then echo "ok: $3"; else fail "$3 differs:" && diff "$1" "$2" | head -n 20; fi
}

# 1. A successful compile with a warning: byte-identical.
run plain "$nvcc" "$@" "$warning"
run launched "$launcher" "$nvcc" "$@" "$warning"
[ "$(cat "$scratch/plain.rc")" = 0 ] || fail "nvcc did not compile $warning: $(cat "$scratch/plain.err")"
grep -q 'warning' "$scratch/plain.out" "$scratch/plain.err" || fail "nvcc printed no warning for $warning"
same "$scratch/plain.out" "$scratch/launched.out" "a successful compile: stdout through the launcher is nvcc's"
same "$scratch/plain.err" "$scratch/launched.err" "a successful compile: stderr through the launcher is nvcc's"
same "$scratch/plain.rc" "$scratch/launched.rc" "a successful compile: the launcher's exit status is nvcc's (0)"

# 2. A compile error: nvcc's status, nvcc's output with the lists decoded.
run plain_error "$nvcc" "$@" "$failing"
run launched_error "$launcher" "$nvcc" "$@" "$failing"
[ "$(cat "$scratch/plain_error.rc")" != 0 ] || fail "$failing compiled, but it must not"
same "$scratch/plain_error.rc" "$scratch/launched_error.rc" \
  "a compile error: the launcher's exit status is nvcc's ($(cat "$scratch/plain_error.rc"))"
for stream in out err; do
  "$launcher" --decode <"$scratch/plain_error.$stream" >"$scratch/decoded_error.$stream"
  same "$scratch/decoded_error.$stream" "$scratch/launched_error.$stream" \
    "a compile error: std$stream through the launcher is nvcc's, decoded"
done
if grep -q "{'" "$scratch/plain_error.err" && ! grep -q "{'" "$scratch/launched_error.err" &&
  grep -q 'fixed_string<[0-9]*UL>{"' "$scratch/launched_error.err"; then
  echo "ok: the launcher turned nvcc's character lists into strings"
else
  fail "nvcc printed no character list, or the launcher left one"
fi

# 3. Other statuses: nvcc's for an unknown option, 127 for a compiler that is not there.
run plain_option "$nvcc" --no-such-option
run launched_option "$launcher" "$nvcc" --no-such-option
[ "$(cat "$scratch/plain_option.rc")" != 0 ] || fail "nvcc accepted --no-such-option"
same "$scratch/plain_option.rc" "$scratch/launched_option.rc" "an unknown option: the launcher's exit status is nvcc's"
same "$scratch/plain_option.err" "$scratch/launched_option.err" "an unknown option: stderr through the launcher is nvcc's"
run missing "$launcher" "$scratch/no-such-compiler"
[ "$(cat "$scratch/missing.rc")" = 127 ] && echo "ok: a compiler that is not there: status 127" ||
  fail "a compiler that is not there: status $(cat "$scratch/missing.rc"), not 127"

# 4. Every kind of escape (escapes.cu), and lines without a list untouched.
run escapes "$launcher" "$nvcc" "$@" "$cases/escapes.cu"
expected="[with T=text<16U>{\"q'\"\\ \\t\\n\\001\\177$(printf '\303\251') \\000 z\"}]"
if grep -Fq -- "$expected" "$scratch/escapes.err"; then
  echo "ok: escapes decoded: $expected"
else
  fail "escapes: no line has $expected; the launcher printed:" && cat "$scratch/escapes.err"
fi
printf "a \377\tb\r\n<'a', 'b'> 'x', 'y' {'x' 'y'} {}\n  const char s[] = {'a', 'b'};  // a user's source line, echoed\n\nno newline at the end" >"$scratch/untouched.in"
"$launcher" --decode <"$scratch/untouched.in" >"$scratch/untouched.out"
same "$scratch/untouched.in" "$scratch/untouched.out" "--decode passes lines without a list through byte for byte"

[ $failed -eq 0 ] && echo "ok" || exit 1
