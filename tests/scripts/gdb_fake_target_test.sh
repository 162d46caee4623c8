#!/bin/sh
# Real gdb against deja's remote protocol server, serving a live ptrace-stopped process
# (tests/gdb/fake_target.c): registers (incl. SSE/AVX/AVX-512 and fs_base), memory,
# disassembly, backtrace, shared libraries, monitor commands, breakpoints, stepping, exit.
# Usage: gdb_fake_target_test.sh PATH-TO-FAKE-TARGET
set -u

FAKE=${1:?usage: gdb_fake_target_test.sh PATH-TO-FAKE-TARGET}
if ! command -v gdb >/dev/null 2>&1; then
    echo "FAIL: gdb is not installed; deja's debugging needs it (make installs it as root: apt-get install gdb)"
    echo "0 passed, 1 failed"
    exit 1
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/deja-gdb-test.XXXXXX") || exit 1
FAKE_PID=
cleanup() {
    [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
passed=0
failed=0

"$FAKE" >"$WORK/port" 2>"$WORK/fake.err" &
FAKE_PID=$!
port=
for _ in $(seq 100); do
    port=$(sed -n 's/^port //p' "$WORK/port")
    [ -n "$port" ] && break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "FAIL: fake target did not start: $(cat "$WORK/fake.err")"
    echo "0 passed, 1 failed"
    exit 1
fi

timeout 60 gdb -batch -nx \
    -ex "target remote 127.0.0.1:$port" \
    -ex 'info registers rip' \
    -ex 'p/x $xmm0.v2_int64' \
    -ex 'p/x $ymm0.v4_int64' \
    -ex 'p/x $zmm0.v8_int64' \
    -ex 'p/x $fs_base' \
    -ex 'p $orig_rax' \
    -ex 'x/4i $pc' \
    -ex 'bt' \
    -ex 'info float' \
    -ex 'info sharedlibrary' \
    -ex 'monitor hello' \
    -ex 'break target_function' \
    -ex 'continue' \
    -ex 'p i' \
    -ex 'stepi' \
    -ex 'delete' \
    -ex 'continue' \
    >"$WORK/out" 2>&1
OUT=$WORK/out

# check NAME PATTERN: an extended regex that must match a line of gdb's output.
check() {
    if grep -Eq -- "$2" "$OUT"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $1: no line matches '$2'"
    fi
}
# check_not NAME PATTERN: no line may match.
check_not() {
    if grep -Eq -- "$2" "$OUT"; then
        failed=$((failed + 1))
        echo "FAIL: $1: unexpected '$(grep -E -- "$2" "$OUT" | head -1)'"
    else
        passed=$((passed + 1))
    fi
}

check "stopped in stop_here" 'in stop_here \(\)'
check "rip" '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <stop_here\+[0-9]+>'
check "xmm0" '= \{0x1111111111111111, 0x2222222222222222\}'
# (the child runs with ASLR: its TLS is in the top mmap area, 0x7e... or 0x7f...)
check "fs_base" '^\$[0-9]+ = 0x7[ef][0-9a-f]{10}$'
check "orig_rax is kill" '^\$[0-9]+ = 62$'
check "disassembly" '^=> 0x[0-9a-f]+ <stop_here\+[0-9]+>:'
check "backtrace" '^#1 .* in child_main \(\)|^#1 .*main \(\)'
check "x87 control word" '^Control Word: +0x037f'
check "libc loaded" 'libc\.so'
check "monitor" 'hello from the fake target'
check "breakpoint hit" '^Breakpoint 1, target_function \(i=(i@entry=)?1\)'
check "argument" '^\$[0-9]+ = 1$'
check "exit code" 'exited with code 07'
check_not "no errors" 'Remote failure|Protocol error|Invalid|Cannot access|Remote connection closed'

if grep -qw avx /proc/cpuinfo; then
    check "ymm0" '^\$[0-9]+ = \{0x1111111111111111, 0x2222222222222222, 0x3333333333333333, 0x4444444444444444\}$'
fi
if grep -qw avx512f /proc/cpuinfo; then
    check "zmm0" '^\$[0-9]+ = \{0x1111111111111111, 0x2222222222222222, 0x3333333333333333, 0x4444444444444444, 0x5555555555555555, 0x6666666666666666, 0x7777777777777777, 0x8888888888888888\}$'
fi

if [ "$failed" -ne 0 ]; then
    echo "--- gdb output:"
    cat "$OUT"
    echo "--- fake target stderr:"
    cat "$WORK/fake.err"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
