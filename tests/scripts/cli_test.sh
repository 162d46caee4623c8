#!/bin/sh
# Tests of deja's command-line shell: version, help, ls, rm, pack, trace resolution.
# Usage: cli_test.sh PATH-TO-DEJA
# Traces are faked by hand (a directory holding an `events` file): no recording needed.
set -u

DEJA=${1:?usage: cli_test.sh PATH-TO-DEJA}
case $DEJA in /*) ;; *) DEJA=$(pwd)/$DEJA ;; esac

WORK=$(mktemp -d "${TMPDIR:-/tmp}/deja-cli-test.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
export DEJA_TRACE_DIR="$WORK/traces"
OUT=$WORK/out
ERR=$WORK/err
passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL: $1"
    echo "  stdout: $(cat "$OUT")"
    echo "  stderr: $(cat "$ERR")"
}

# run CMD...: runs deja, keeping stdout, stderr and the exit status in $status.
run() {
    "$DEJA" "$@" >"$OUT" 2>"$ERR"
    status=$?
}

# check NAME EXPECTED-STATUS [FILE PATTERN]: the last run's status, and a grep in FILE.
check() {
    name=$1 want=$2
    if [ "$status" -ne "$want" ]; then
        fail "$name: exit status $status, expected $want"
        return
    fi
    if [ $# -ge 4 ] && ! grep -q -- "$4" "$3"; then
        fail "$name: no match for '$4'"
        return
    fi
    pass
}

# check_stdout NAME EXPECTED: the last run's exact stdout.
check_stdout() {
    if [ "$(cat "$OUT")" = "$2" ]; then
        pass
    else
        fail "$1: stdout differs from: $(echo "$2" | tr '\n' ' ')"
    fi
}

# fake_trace NAME MTIME: a trace directory with an events file and the given mtime.
fake_trace() {
    mkdir -p "$DEJA_TRACE_DIR/$1/files"
    : >"$DEJA_TRACE_DIR/$1/events"
    touch -d "$2" "$DEJA_TRACE_DIR/$1"
}

latest_target() { readlink "$DEJA_TRACE_DIR/latest-trace"; }

# --- version and help
run --version;  check "--version" 0 "$OUT" '^deja [0-9]'
run version;    check "version" 0 "$OUT" '^deja [0-9]'
run help;       check "help" 0 "$OUT" 'deja ls'
run --help;     check "--help" 0 "$OUT" 'Exit status'
run -h;         check "-h" 0 "$OUT" 'Trace directory'
run help record; check "help record" 0 "$OUT" '--output-trace-dir'
run help record; check "help record chaos" 0 "$OUT" '--chaos'
run help replay; check "help replay" 0 "$OUT" '--autopilot'
run help replay; check "help replay dbgport" 0 "$OUT" '--dbgport'
run replay --help; check "replay --help" 0 "$OUT" '--onprocess'
run ls --help;  check "ls --help" 0 "$OUT" 'Usage: deja ls'
for c in dump ps ls rm pack help; do
    run help "$c"; check "help $c" 0 "$OUT" "Usage: deja $c"
done
run help nosuch; check "help of unknown command" 1 "$ERR" "unknown command"
run;            check "no command" 1 "$ERR" '^deja: no command'
run frobnicate; check "unknown command" 1 "$ERR" "^deja: unknown command .frobnicate"
run frobnicate; check "unknown command shows usage" 1 "$ERR" 'Usage: deja'

# --- ls
run ls;         check "ls without trace directory" 0
check_stdout "ls without trace directory prints nothing" ""
mkdir -p "$DEJA_TRACE_DIR"
run ls;         check "ls on empty trace directory" 0
check_stdout "ls on empty trace directory prints nothing" ""
run ls extra;   check "ls with a directory that is none" 1 "$ERR" 'Usage: deja ls'

fake_trace ls-1 "2024-01-01 10:00:02"
fake_trace ls-0 "2024-01-01 10:00:01"
fake_trace cat-0 "2024-01-01 10:00:03"
fake_trace b-0 "2024-01-01 10:00:00"
fake_trace a-0 "2024-01-01 10:00:00"
mkdir "$DEJA_TRACE_DIR/notatrace"
ln -s cat-0 "$DEJA_TRACE_DIR/latest-trace"
run ls;         check "ls with traces" 0
check_stdout "ls lists traces newest last, ties by name" "a-0
b-0
ls-0
ls-1
cat-0"

# --- resolving traces
run pack;       check "pack latest" 0 "$ERR" "trace .*cat-0 is self-contained"
run pack ls-0;  check "pack by name" 0 "$ERR" "ls-0 is self-contained"
run pack "$DEJA_TRACE_DIR/ls-1"; check "pack by path" 0 "$ERR" "ls-1 is self-contained"
(cd "$DEJA_TRACE_DIR" && "$DEJA" pack b-0 >"$OUT" 2>"$ERR"); status=$?
check "pack by name relative to cwd" 0 "$ERR" "b-0 is self-contained"
run pack nosuch; check "pack missing trace" 1 "$ERR" "^deja: no trace named nosuch in"
run pack /nonexistent/dir; check "pack missing path" 1 "$ERR" "^deja: no trace at /nonexistent/dir"
run pack notatrace; check "pack non-trace" 1 "$ERR" "not a deja trace"
run pack a b;   check "pack with two arguments" 1 "$ERR" 'Usage: deja pack'

# --- rm
run rm;         check "rm without argument" 1 "$ERR" 'Usage: deja rm'
run rm notatrace; check "rm refuses a non-trace" 1 "$ERR" "not a deja trace"
[ -d "$DEJA_TRACE_DIR/notatrace" ] && pass || fail "rm removed a non-trace"
run rm nosuch;  check "rm missing trace" 1 "$ERR" "no trace named nosuch"

# A symlink inside a trace must be removed, not followed.
mkdir "$WORK/outside" && : >"$WORK/outside/keep"
ln -s "$WORK/outside" "$DEJA_TRACE_DIR/ls-0/files/link"
run rm ls-0;    check "rm a trace" 0
[ ! -e "$DEJA_TRACE_DIR/ls-0" ] && pass || fail "rm left ls-0 behind"
[ -e "$WORK/outside/keep" ] && pass || fail "rm followed a symlink out of the trace"
[ "$(latest_target)" = cat-0 ] && pass || fail "rm of another trace moved latest-trace"

run rm cat-0;   check "rm the latest trace" 0
[ "$(latest_target)" = ls-1 ] && pass || fail "latest-trace not re-pointed at ls-1: $(latest_target)"
run pack;       check "latest after rm" 0 "$ERR" "ls-1 is self-contained"
run ls;         check "ls after rm" 0
check_stdout "ls after rm" "a-0
b-0
ls-1"

run rm "$DEJA_TRACE_DIR/ls-1"; check "rm by path" 0
[ "$(latest_target)" = b-0 ] && pass || fail "latest-trace not re-pointed at b-0: $(latest_target)"
run rm a-0;     check "rm a-0" 0
run rm b-0;     check "rm the last trace" 0
[ ! -L "$DEJA_TRACE_DIR/latest-trace" ] && pass || fail "latest-trace left after the last rm"
run pack;       check "no traces left" 1 "$ERR" "^deja: no traces yet in"
run ls;         check "ls with no traces left" 0
check_stdout "ls with no traces left prints nothing" ""

# A dangling latest-trace is reported, not crashed on.
ln -s gone-0 "$DEJA_TRACE_DIR/latest-trace"
run pack;       check "dangling latest-trace" 1 "$ERR" "no longer exists"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
