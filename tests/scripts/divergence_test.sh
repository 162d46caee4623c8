#!/bin/sh
# Traces that are valid (every checksum right, `deja dump` reads them) but wrong must
# replay to a divergence: exit status 3 and a message naming the event. Each case edits a
# copy of one recording of div_target with trace_edit (tests/tools/trace_edit.c):
#   exe     the preserved executable swapped for another build of the program
#   result  a system call's result altered (getppid, whose result the program prints)
#   output  a byte of the recorded output altered
#   state   a state point's registers altered (rip; the last state point of a thread
#           before it runs on, since a later state point would overwrite it)
# The unaltered trace must replay with status 0 first, so the divergences are the edits'.
# The output case is replayed under gdb too: `deja replay` must exit 3 there as well.
# usage: divergence_test.sh DEJA TRACE_EDIT PROGRAM OTHER_BUILD
set -u
deja=$1 edit=$2 prog=$3 other=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/deja-divergence.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

"$deja" record -o "$tmp/t" "$prog" >"$tmp/record.out" 2>"$tmp/record.err" ||
  { bad "recording $prog failed: $(cat "$tmp/record.err")"; finish; }
"$deja" dump "$tmp/t" >"$tmp/dump" || { bad "deja dump of the recording failed"; finish; }
timeout 300 "$deja" replay -a "$tmp/t" >"$tmp/replay.out" 2>"$tmp/replay.err"
status=$?
if [ "$status" -eq 0 ] && cmp -s "$tmp/record.out" "$tmp/replay.out"; then
  ok "the unaltered trace replays (status 0, same output)"
else
  bad "the unaltered trace replays with status $status: $(cat "$tmp/replay.err")"
  finish
fi

# expect_divergence CASE FIRST_EVENT [PATTERN]: the edited copy $tmp/CASE replays to exit 3
# with "replay diverged at event N", N >= FIRST_EVENT, and a message matching PATTERN.
expect_divergence() {
  name=$1 first=$2 pattern=${3:-.}
  if ! "$deja" dump "$tmp/$name" >/dev/null 2>"$tmp/$name.dump.err"; then
    bad "$name: the edited trace is not valid: $(cat "$tmp/$name.dump.err")"
    return
  fi
  timeout 120 "$deja" replay -a "$tmp/$name" >"$tmp/$name.out" 2>"$tmp/$name.err"
  status=$?
  event=$(sed -n 's/^deja: replay diverged at event \([0-9][0-9]*\) .*/\1/p' "$tmp/$name.err" | head -n 1)
  if [ "$status" -ne 3 ]; then
    bad "$name: replay exited with status $status, expected 3 (divergence); stderr: $(cat "$tmp/$name.err")"
  elif [ -z "$event" ] || [ "$event" -lt "$first" ]; then
    bad "$name: the divergence names event '$event', expected event $first or later: $(cat "$tmp/$name.err")"
  elif ! grep -q -E -e "$pattern" "$tmp/$name.err"; then
    bad "$name: the divergence message does not match '$pattern': $(cat "$tmp/$name.err")"
  else
    ok "$name: divergence at event $event ($(head -n 1 "$tmp/$name.err" | cut -c1-160))"
  fi
}

# exe: the preserved executable replaced by another build of the same source (a preserved
# file of its own: overwriting the trace's copy would make it corrupt, exit 1).
ev=$(awk '$3 == "exec" { print $1; exit }' "$tmp/dump")
cp -a "$tmp/t" "$tmp/exe"
if [ -n "$ev" ] && "$edit" "$tmp/exe" "$ev" file "$other"; then
  expect_divergence exe 1
else
  bad "exe: no exec event to alter, or trace_edit failed"
fi

# result: getppid's result altered.
ev=$(awk '$3 == "syscall" && $4 ~ /^getppid\(/ { print $1; exit }' "$tmp/dump")
cp -a "$tmp/t" "$tmp/result"
if [ -n "$ev" ] && "$edit" "$tmp/result" "$ev" result 1; then
  expect_divergence result "$ev"
else
  bad "result: no getppid event to alter, or trace_edit failed"
fi

# output: one byte of the first output to stdout altered; the divergence is that event
# (buffered writes, an sbuf event: the task's next event, where they are checked).
set -- $(awk '/ output to stdout/ { print $1, $3; exit }' "$tmp/dump")
ev=${1:-} at=${1:-}
[ "${2:-}" = sbuf ] && at="[0-9]*"
cp -a "$tmp/t" "$tmp/output"
if [ -n "$ev" ] && "$edit" "$tmp/output" "$ev" output 4; then
  expect_divergence output "$ev" \
    "at event $at .*descriptor 1 .*differs from the recorded output at byte 4 "
  timeout 120 "$deja" replay "$tmp/output" -- -batch -nx -iex "set remotetimeout 60" \
    -ex continue >"$tmp/gdb.out" 2>&1
  status=$?
  if [ "$status" -eq 3 ] && grep -q "^deja: replay diverged at event $at " "$tmp/gdb.out"; then
    ok "output under gdb: deja replay exited with status 3, divergence at event $ev"
  else
    bad "output under gdb: deja replay exited with status $status, expected 3 and a divergence at event $ev: $(tail -n 5 "$tmp/gdb.out")"
  fi
else
  bad "output: no output event to alter, or trace_edit failed"
fi

# state: rip of a thread's last state point before its next other event.
ev=$(awk '{ tid = $2 }
  $3 == "state" { last[tid] = $1; next }
  (tid in last) { print last[tid]; exit }' "$tmp/dump")
cp -a "$tmp/t" "$tmp/state"
if [ -z "$ev" ]; then
  bad "state: the recording has no state point (no thread was preempted): $(grep -c ' state ' "$tmp/dump") state events"
elif "$edit" "$tmp/state" "$ev" reg rip 0x1; then
  expect_divergence state "$ev"
else
  bad "state: trace_edit failed"
fi
finish
