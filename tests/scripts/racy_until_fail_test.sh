#!/bin/sh
# Records a racy program with --chaos until a recording fails (at most 10 tries), then
# replays that failing trace three times: each replay must reproduce its output exactly
# and replay faithfully (exit 0), and the replay must follow the trace (follows_trace.sh).
# usage: racy_until_fail_test.sh DEJA TRACE_EDIT PROGRAM
set -u
deja=$1 edit=$2 prog=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
try=0
while :; do
  try=$((try + 1))
  rm -rf "$tmp/t"
  "$deja" record --chaos -o "$tmp/t" "$prog" >"$tmp/out" 2>"$tmp/err"
  status=$?
  [ "$status" = 1 ] && break
  if [ "$status" != 0 ]; then
    echo "FAIL: deja record exited $status; stderr:"; cat "$tmp/err"; exit 1
  fi
  if [ $try -ge 10 ]; then
    echo "FAIL: the race never showed in 10 recordings (last: $(cat "$tmp/out"))"; exit 1
  fi
done
echo "the race showed in recording $try: $(cat "$tmp/out")"
for i in 1 2 3; do
  timeout 300 "$deja" replay -a "$tmp/t" >"$tmp/rout" 2>"$tmp/rerr"
  status=$?
  [ "$status" = 0 ] || { echo "FAIL: replay $i exited $status:"; cat "$tmp/rerr"; exit 1; }
  cmp -s "$tmp/out" "$tmp/rout" || { echo "FAIL: replay $i printed $(cat "$tmp/rout")"; exit 1; }
done
sh "$(dirname "$0")/follows_trace.sh" "$deja" "$edit" "$tmp/t" || { echo "FAIL: the replay does not follow the trace"; exit 1; }
echo "1 passed, 0 failed"
