#!/bin/sh
# Signals from outside a recording: `kill -USR1` from another process reaches the program
# while it waits in pause(), and SIGTERM sent to `deja record` itself is passed on to the
# program (which dies of it: exit 143). The trace must replay with the same output and
# follow the trace (follows_trace.sh).
# usage: external_signal_test.sh DEJA TRACE_EDIT PROGRAM
set -u
deja=$1 edit=$2 prog=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$deja" record -o "$tmp/t" "$prog" >"$tmp/out" 2>"$tmp/err" &
deja_pid=$!
wait_for() { # wait_for PATTERN: until the program printed it (10 s at most)
  i=0
  while ! grep -q "$1" "$tmp/out" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 100 ] && fail "the program never printed '$1'; stderr: $(cat "$tmp/err")"
    sleep 0.1
  done
}
wait_for ready
child=$(pgrep -P "$deja_pid" | head -n 1)
[ -n "$child" ] || fail "cannot find the recorded program's pid"
kill -USR1 "$child"
wait_for "got User defined signal 1, si_code SI_USER"
kill -TERM "$deja_pid"
wait "$deja_pid"
status=$?
[ "$status" = 143 ] || fail "deja record exited $status, expected 143 (128+SIGTERM); stderr: $(cat "$tmp/err")"

timeout 120 "$deja" replay -a "$tmp/t" >"$tmp/rout" 2>"$tmp/rerr"
status=$?
[ "$status" = 0 ] || fail "replay exited $status; stderr: $(cat "$tmp/rerr")"
cmp -s "$tmp/out" "$tmp/rout" || fail "replay output differs: $(diff "$tmp/out" "$tmp/rout" | head -n 10)"
"$deja" ps "$tmp/t" | grep -q SIGTERM || fail "deja ps does not show the SIGTERM death: $("$deja" ps "$tmp/t")"
sh "$(dirname "$0")/follows_trace.sh" "$deja" "$edit" "$tmp/t" || fail "the replay does not follow the trace"
echo "1 passed, 0 failed"
