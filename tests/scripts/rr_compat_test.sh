#!/bin/sh
# Tools made for rr drive deja as rr (VS Code's Midas, with its rr path set to deja): this
# runs what Midas runs, in its order, over a recording of PROGRAM (tests/gdb/reverse.c),
# and checks the answers it parses:
#  - `deja ls DIR -t -r` and `deja ls -t -r`: trace names, the first word of each line;
#  - `deja ps TRACE`: a header, then PID PPID EXIT CMD;
#  - `deja gdbinit`: gdb commands a gdb sources (Midas sources them, then connects);
#  - `deja replay -h 127.0.0.1 -s PORT -p PID -k TRACE` (and -f PID): gdb connects with
#    `target extended-remote 127.0.0.1:PORT' and runs Midas's commands: checkpoint, `info
#    checkpoints' (rr's table: ID, When, Where as FILE:LINE, tab-separated), restart N,
#    delete checkpoint, run N (Midas's run to event), and rr's qRRCmd packets (`maint packet'): Midas's and
#    Delve's hex-named form, rr's gdbinit form NAME:TID:HEX-ARG, an unknown command;
#  - with -k a second gdb connects after the first left and finds the replay where the
#    first left it; SIGTERM then ends deja, nothing of the replay left running;
#  - refusals: -h with an address other than this machine's loopback, -k without -s.
# Usage: rr_compat_test.sh DEJA PROGRAM SOURCE
set -u
DEJA=$1
PROGRAM=$2
SOURCE=$3
tmp=$(mktemp -d)
deja_pid=
cleanup() {
    [ -n "$deja_pid" ] && kill "$deja_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
[ -n "${KEEP_TMP:-}" ] && trap - EXIT
export DEJA_TRACE_DIR="$tmp/traces"
failed=0
fail() {
    echo "FAIL: $1"
    failed=$((failed + 1))
}
ok() { echo "ok: $1"; }
# check NAME FILE ERE: FILE has a line matching ERE
check() {
    if grep -Eq -- "$3" "$2"; then ok "$1"; else fail "$1 (no line matches /$3/ in:)"; sed 's/^/    /' "$2"; fi
}

"$DEJA" record "$PROGRAM" >"$tmp/record.out" 2>&1 || { cat "$tmp/record.out"; fail "deja record"; exit 1; }

# Midas: `rr ls DIR -t -r', the first word of each line a trace, latest-trace not one
"$DEJA" ls "$DEJA_TRACE_DIR" -t -r >"$tmp/ls" 2>&1
trace=$(awk 'NR == 1 { print $1 }' "$tmp/ls")
[ -d "$DEJA_TRACE_DIR/$trace" ] && [ "$trace" != latest-trace ] && ok "ls DIR -t -r names $trace" ||
    fail "ls DIR -t -r: $(cat "$tmp/ls")"
"$DEJA" ls -t -r >"$tmp/ls2" 2>&1
cmp -s "$tmp/ls" "$tmp/ls2" && ok "ls -t -r: the trace directory's" || fail "ls -t -r: $(cat "$tmp/ls2")"
"$DEJA" ls -x >"$tmp/ls3" 2>&1 && fail "ls -x accepted"
check "ls -x refused" "$tmp/ls3" "unexpected argument \`-x'"

# Midas: `rr ps TRACE', the header skipped, whitespace-separated PID PPID EXIT CMD
"$DEJA" ps "$DEJA_TRACE_DIR/$trace" >"$tmp/ps"
check "ps header" "$tmp/ps" "^PID	PPID	EXIT	CMD$"
pid=$(awk 'NR == 2 { print $1 }' "$tmp/ps")
check "ps row" "$tmp/ps" "^$pid	--	0	.*reverse$"

# Midas: `rr gdbinit' into a file gdb sources before it connects
"$DEJA" gdbinit >"$tmp/rrinit" || fail "deja gdbinit"
check "gdbinit defines checkpoint" "$tmp/rrinit" "^define checkpoint$"

# Midas: rr replay -h ADDRESS -s PORT -p PID -k TRACE, in a terminal of its own
start_replay() {
    "$DEJA" replay -h 127.0.0.1 -s 0 "$@" -k "$DEJA_TRACE_DIR/$trace" >"$tmp/replay.out" 2>"$tmp/replay.err" &
    deja_pid=$!
    port=
    for _ in $(seq 300); do
        port=$(sed -n 's/^deja: listening for gdb on 127\.0\.0\.1:\([0-9]*\);.*/\1/p' "$tmp/replay.err" | head -1)
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { fail "deja replay $* did not listen: $(cat "$tmp/replay.err")"; exit 1; }
}
# gdb as Midas sets it up: non-stop off, the gdbinit sourced, then the target
run_gdb() {
    timeout 120 gdb -q -nx -batch -ex 'set non-stop off' -x "$tmp/rrinit" \
        -ex "target extended-remote 127.0.0.1:$port" "$@" </dev/null >"$tmp/gdb.out" 2>&1
}
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
start_replay -p "$pid"
run_gdb -ex 'break mark' -ex continue -ex checkpoint -ex 'info checkpoints' \
    -ex continue -ex checkpoint -ex 'info checkpoints' \
    -ex "maint packet qRRCmd:$(hex when)" \
    -ex "maint packet qRRCmd:when-tid:-1" \
    -ex "maint packet qRRCmd:$(hex 'info checkpoints')" \
    -ex "maint packet qRRCmd:checkpoint:-1:$(hex 'here.c:7')" \
    -ex "maint packet qRRCmd:$(hex 'delete checkpoint'):$(hex 3)" \
    -ex "maint packet qRRCmd:$(hex no-such-command)" \
    -ex 'restart 1' -ex 'print v' -ex 'delete checkpoint 1' -ex 'info checkpoints' \
    -ex delete -ex 'break main' -ex 'run 1' -ex 'print value' -ex detach
decode() { # the text of gdb's Nth `received: "HEX"' line
    sed -n 's/^received: "\(.*\)"$/\1/p' "$tmp/gdb.out" | sed -n "${1}p" | xxd -r -p
}
line=$(grep -n 'value = v;' "$SOURCE" | cut -d: -f1)
check "checkpoint at gdb's place" "$tmp/gdb.out" "^Checkpoint 1 at .*reverse\.c:$line \(event [0-9]+\)\.$"
check "info checkpoints: rr's header" "$tmp/gdb.out" "^ID	When	Where$"
check "info checkpoints: ID, event, FILE:LINE" "$tmp/gdb.out" "^1	[0-9]+	/.*reverse\.c:$line$"
check "info checkpoints: the second" "$tmp/gdb.out" "^2	[0-9]+	/.*reverse\.c:$line$"
decode 1 >"$tmp/r1"
check "qRRCmd, hex name (Midas): when" "$tmp/r1" "^Current event: [0-9]+\.$"
decode 2 >"$tmp/r2"
check "qRRCmd NAME:TID (rr's gdbinit): when-tid" "$tmp/r2" "^Current tid: $pid\.$"
decode 3 >"$tmp/r3"
check "qRRCmd info checkpoints: the table" "$tmp/r3" "^2	[0-9]+	/.*reverse\.c:$line$"
decode 4 >"$tmp/r4"
check "qRRCmd checkpoint with a place" "$tmp/r4" "^Checkpoint 3 at here\.c:7 \(event [0-9]+\)\.$"
decode 5 >"$tmp/r5"
check "qRRCmd delete checkpoint N" "$tmp/r5" "^Deleted checkpoint 3\.$"
decode 6 >"$tmp/r6"
check "qRRCmd unknown command" "$tmp/r6" "^Command 'no-such-command' not found\.$"
check "restart 1: back at the first stop" "$tmp/gdb.out" '^\$1 = 10$'
check "delete checkpoint 1" "$tmp/gdb.out" "^Deleted checkpoint 1\.$"
check "run 1: from event 1 to main" "$tmp/gdb.out" "^Breakpoint [0-9]+, main \(\) at .*reverse\.c"
check "run 1: value before mark" "$tmp/gdb.out" '^\$2 = 1$'
when_left=$(grep -c . "$tmp/gdb.out")
# -k: the next gdb finds the replay where the first left it (at main)
for _ in $(seq 300); do grep -q "gdb left" "$tmp/replay.err" && break; sleep 0.1; done
check "-k: deja listens again" "$tmp/replay.err" "gdb left; listening for the next one"
run_gdb -ex 'info breakpoints' -ex 'frame' -ex 'break mark' -ex continue -ex 'print v' -ex 'continue'
check "-k: a second gdb, none of the first's breakpoints" "$tmp/gdb.out" "^No breakpoints or watchpoints\.$"
check "-k: where the first left" "$tmp/gdb.out" "main \(\) at .*reverse\.c"
check "-k: debugs on" "$tmp/gdb.out" '^\$1 = 10$'
kill -TERM "$deja_pid"
wait "$deja_pid"
deja_pid=
# (killed processes can take a moment to go on a loaded machine)
for _ in $(seq 50); do pgrep -f "$DEJA_TRACE_DIR/$trace/files/" >/dev/null || break; sleep 0.1; done
pgrep -f "$DEJA_TRACE_DIR/$trace/files/" >/dev/null && fail "a replayed process is left after SIGTERM"
[ "$when_left" -gt 0 ] || fail "no gdb output"

# -f PID (rr's --onfork) as -p
start_replay -f "$pid"
run_gdb -ex 'info inferiors'
check "-f PID" "$tmp/gdb.out" "process $pid"
kill -TERM "$deja_pid"
wait "$deja_pid"
deja_pid=

"$DEJA" replay -h 10.1.2.3 -s 0 "$DEJA_TRACE_DIR/$trace" >"$tmp/bad" 2>&1 && fail "-h 10.1.2.3 accepted"
check "-h elsewhere refused" "$tmp/bad" "deja serves gdb on this machine only"
"$DEJA" replay -k "$DEJA_TRACE_DIR/$trace" >"$tmp/bad" 2>&1 && fail "-k without -s accepted"
check "-k without -s refused" "$tmp/bad" "needs -s PORT"
"$DEJA" replay -h >"$tmp/help" 2>&1
check "replay -h alone: the usage" "$tmp/help" "^Usage: deja replay"

[ "$failed" -eq 0 ] && echo "all passed"
[ "$failed" -eq 0 ]
