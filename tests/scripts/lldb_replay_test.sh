#!/bin/sh
# Real LLDB against a deja replay: records PROGRAM, replays it with `deja replay
# --debugger LLDB TRACE -- -s COMMANDS` (LLDB started connected through the gdb remote
# protocol; not -b, which stops reading COMMANDS at a stop it takes for a crash, and
# stdin /dev/null ends LLDB after them), and checks that every pattern of EXPECT (one extended regular expression
# per line; blank and '#' lines ignored) matches a line of LLDB's output, in order, and
# that deja replay exits with status 0. Without LLDB the test exits 77 (skipped).
# Usage: lldb_replay_test.sh --deja DEJA --lldb LLDB --program PROGRAM --commands FILE
#            --expect FILE
set -u
DEJA= LLDB= PROGRAM= COMMANDS= EXPECT=
while [ $# -ge 2 ]; do
    case "$1" in
        --deja) DEJA=$2 ;;
        --lldb) LLDB=$2 ;;
        --program) PROGRAM=$2 ;;
        --commands) COMMANDS=$2 ;;
        --expect) EXPECT=$2 ;;
        *) echo "lldb_replay_test.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
[ -n "$DEJA" ] && [ -n "$LLDB" ] && [ -n "$PROGRAM" ] && [ -n "$COMMANDS" ] && [ -n "$EXPECT" ] || {
    echo "usage: lldb_replay_test.sh --deja DEJA --lldb LLDB --program P --commands F --expect F" >&2
    exit 2
}
if ! command -v "$LLDB" >/dev/null 2>&1; then
    echo "SKIPPED: $LLDB is not installed (apt-get install lldb-22)"
    exit 77
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/deja-lldb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
fail() {
    echo "FAIL: $*"
    echo "--- LLDB and deja output:"
    cat "$WORK/out" 2>/dev/null
    exit 1
}
"$DEJA" record -o "$WORK/trace" "$PROGRAM" >"$WORK/record.out" 2>"$WORK/record.err" ||
    { cat "$WORK/record.err"; echo "FAIL: recording $PROGRAM failed"; exit 1; }
timeout 120 "$DEJA" replay --debugger "$LLDB" "$WORK/trace" -- -s "$COMMANDS" \
    </dev/null >"$WORK/out" 2>&1
status=$?
[ "$status" -eq 124 ] && fail "deja replay under LLDB did not finish within 120 s"
[ "$status" -eq 0 ] || fail "deja replay under LLDB exited with status $status, expected 0"
# Each pattern, in order, on a line after the previous pattern's line.
line=0
while IFS= read -r pattern; do
    case "$pattern" in '' | '#'*) continue ;; esac
    found=$(tail -n +"$((line + 1))" "$WORK/out" | grep -n -E -m1 -e "$pattern" | cut -d: -f1)
    [ -n "$found" ] || fail "no line (after line $line) matches: $pattern"
    line=$((line + found))
done <"$EXPECT"
echo "PASS: every pattern of $(basename "$EXPECT") matched"
