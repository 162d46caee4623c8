#!/bin/sh
# Signals ignored by deja's caller stay ignored for the recorded program (as nohup and a
# shell's background jobs leave them) and for the replayed one: a shell that sends itself
# SIGHUP and SIGINT, both ignored from outside, survives them in the recording and in
# the replay. Without the `signals` note the replay would die of them (a divergence).
# usage: inherited_signals_test.sh DEJA
set -u
deja=$1
tmp=$(mktemp -d /tmp/deja-inherited.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
prog='kill -HUP $$; kill -INT $$; echo survived; trap'
(trap '' HUP INT && "$deja" record -o "$tmp/t" sh -c "$prog") >"$tmp/out" 2>"$tmp/err"
status=$?
if [ $status -ne 0 ] || ! grep -q survived "$tmp/out"; then
  echo "FAIL: the recorded shell did not survive the signals its caller ignored (exit $status)"
  cat "$tmp/out" "$tmp/err"
  exit 1
fi
grep -q "ignored 0x3 " "$tmp/t/signals" || { echo "FAIL: the signals note: $(cat "$tmp/t/signals")"; exit 1; }
timeout 60 "$deja" replay -a "$tmp/t" >"$tmp/rout" 2>"$tmp/rerr"
status=$?
if [ $status -ne 0 ] || ! cmp -s "$tmp/out" "$tmp/rout"; then
  echo "FAIL: the replay (exit $status) differs:"
  diff "$tmp/out" "$tmp/rout"
  cat "$tmp/rerr"
  exit 1
fi
echo "PASS: ignored SIGHUP and SIGINT stay ignored in record and replay"
