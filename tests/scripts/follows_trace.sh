#!/bin/sh
# Checks that `deja replay` replays the program from the trace rather than printing the
# trace or re-running the program: two altered copies of TRACE (valid, checksums right)
# must replay to a divergence (status 3) naming the altered event or a later one.
#   output  the last byte of the first recorded output changed: a replay that prints the
#           trace's output instead of the program's would print it and succeed (for
#           buffered writes the divergence is found at their task's next event)
#   result  a system call result changed (the first openat's descriptor, else the first
#           output write's byte count, else the first brk's address): a replay that does
#           not apply the recorded results would not notice
# A trace without output skips the first case (said so), a trace with no call to alter
# fails. Prints one line per case; exit status 0 when both hold, 1 otherwise.
# usage: follows_trace.sh DEJA TRACE_EDIT TRACE
set -u
deja=$1 edit=$2 trace=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/deja-follows.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
failed=0

"$deja" dump "$trace" >"$work/dump" 2>"$work/dump.err" ||
  { echo "FAIL: deja dump $trace: $(cat "$work/dump.err")"; exit 1; }

# altered NAME EVENT EXACT WHAT...: replays the copy $work/NAME, edited with trace_edit
# EVENT WHAT...; the divergence must name EVENT (EXACT=1) or a later event.
altered() {
  name=$1 ev=$2 exact=$3
  shift 3
  cp -a "$trace" "$work/$name"
  if ! "$edit" "$work/$name" "$ev" "$@" 2>"$work/$name.edit"; then
    echo "FAIL: trace_edit $ev $*: $(cat "$work/$name.edit")"
    failed=1
    return
  fi
  timeout 300 "$deja" replay -a -q "$work/$name" </dev/null >/dev/null 2>"$work/$name.err"
  status=$?
  at=$(sed -n 's/^deja: replay diverged at event \([0-9][0-9]*\) .*/\1/p' "$work/$name.err" | head -n 1)
  if [ "$status" -ne 3 ]; then
    echo "FAIL: with event $ev altered ($*), replay exited with status $status, expected 3 (a divergence): the replay does not follow the trace; stderr: $(head -c 600 "$work/$name.err")"
    failed=1
  elif [ -z "$at" ] || [ "$at" -lt "$ev" ] || { [ "$exact" = 1 ] && [ "$at" -ne "$ev" ]; }; then
    echo "FAIL: with event $ev altered ($*), the divergence names event '$at': $(head -c 600 "$work/$name.err")"
    failed=1
  else
    echo "ok: with event $ev altered ($*), replay diverged at event $at"
  fi
}

# The last byte of the first output (for writev, in its last buffer).
# Buffered writes (an sbuf event) are checked after their task's next event: a later one.
set -- $(awk '/ output to std(out|err) \(/ { n = $0; sub(/.* output to std(out|err) \(/, "", n)
                print $1, n - 1, ($3 == "sbuf") ? 0 : 1; exit }' "$work/dump")
if [ $# -eq 3 ]; then
  altered output "$1" "$3" output "$2"
else
  echo "ok: no recorded output to alter"
fi

# The first openat that returned a descriptor, else an output write, else brk.
set -- $(awk '$3 == "syscall" && $4 ~ /^openat\(/ && $NF ~ /^[0-9]+$/ && $(NF - 1) == "=" {
                print $1, $NF + 16; exit }' "$work/dump")
[ $# -eq 2 ] || set -- $(awk '/ output to std(out|err) \(/ {
                for (i = 4; i < NF; i++) if ($i == "=" && $(i + 1) > 0) { print $1, $(i + 1) - 1; exit } }' "$work/dump")
[ $# -eq 2 ] || set -- $(awk '$3 == "syscall" && $4 ~ /^brk\(/ { print $1, $NF + 4096; exit }' "$work/dump")
if [ $# -eq 2 ]; then
  altered result "$1" 0 result "$2"
else
  echo "FAIL: the trace has no openat, output or brk whose result could be altered"
  failed=1
fi
exit $failed
