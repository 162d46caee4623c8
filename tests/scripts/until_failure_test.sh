#!/usr/bin/env bash
# deja record --until-failure (SPEC.md): a program that fails on its third run leaves
# exactly that run's trace as the latest and its exit status; one that never fails leaves
# nothing (latest-trace as it was) and exit 0; -o DIR is kept only for a failure; a bad N
# is refused; SIGINT to deja during a run stops it with 130 and keeps nothing of the run.
# usage: until_failure_test.sh DEJA FAIL_THIRD_RUN HELLO LONG_PROGRAM [LONG_ARG...]
set -u

deja=$1 third=$2 hello=$3
shift 3
long=("$@")
tmp=$(mktemp -d /tmp/deja-until-failure.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
export DEJA_TRACE_DIR="$tmp/traces"

fail() {
  echo "FAIL: $*"
  for f in "$tmp"/*.err; do
    [ -s "$f" ] && { echo "--- $f (last 10 lines):"; tail -n 10 "$f"; }
  done
  exit 1
}
traces() { find "$DEJA_TRACE_DIR" -mindepth 1 -maxdepth 1 -type d ! -name '.*' 2>/dev/null | sort; }
count() { traces | wc -l; }

# A trace that exists before: latest-trace must come back to it.
"$deja" record "$hello" >/dev/null 2>"$tmp/first.err" || fail "recording hello failed"
first=$(readlink "$DEJA_TRACE_DIR/latest-trace")

# Fails on the third run: exit 3, one more trace (that run's), latest-trace names it.
"$deja" record --until-failure=10 "$third" "$tmp/counter" >"$tmp/third.out" 2>"$tmp/third.err"
status=$?
[ "$status" = 3 ] || fail "--until-failure exited $status, expected the failing run's 3"
grep -q "failed in run 3 (exit status 3); 2 runs passed" "$tmp/third.err" ||
  fail "no message saying run 3 failed after 2 passing runs"
[ "$(count)" = 2 ] || fail "$(count) traces, expected the first one and the failing run's"
latest=$(readlink "$DEJA_TRACE_DIR/latest-trace")
[ "$latest" != "$first" ] && [ -d "$DEJA_TRACE_DIR/$latest" ] ||
  fail "latest-trace ($latest) does not name the failing run's trace"
[ "$(grep -c '^deja: Saving execution' "$tmp/third.err")" = 3 ] || fail "not 3 recordings"
"$deja" replay -a >"$tmp/replay.out" 2>"$tmp/replay.err" || fail "the failing trace does not replay"
[ "$(cat "$tmp/replay.out")" = "run 3" ] || fail "replay printed $(cat "$tmp/replay.out")"
echo "fails on run 3: exit 3, its trace kept and replayed"
"$deja" rm "$latest" >/dev/null 2>&1 || fail "cannot remove the failing trace"

# Never fails: N runs, exit 0, nothing kept, latest-trace back at the first trace.
"$deja" record --until-failure=4 "$hello" >"$tmp/pass.out" 2>"$tmp/pass.err"
status=$?
[ "$status" = 0 ] || fail "--until-failure on a passing program exited $status"
grep -q "no run failed in 4 runs; no trace is kept" "$tmp/pass.err" || fail "no 'no run failed' message"
[ "$(grep -c '^Hello, world' "$tmp/pass.out")" = 4 ] || fail "the program did not run 4 times"
[ "$(count)" = 1 ] || fail "traces of passing runs were kept"
[ -z "$(find "$DEJA_TRACE_DIR/.deja-store" -type f -links 1 2>/dev/null)" ] ||
  fail "preserved files only the deleted runs used were left in the content store"
[ "$(readlink "$DEJA_TRACE_DIR/latest-trace")" = "$first" ] || fail "latest-trace was not restored"
find "$DEJA_TRACE_DIR" -path '*/.deja-store/*' -type f -links 1 | grep -q . &&
  fail "the content store keeps files of deleted runs"
echo "never fails: 4 runs, exit 0, nothing kept, latest-trace restored"

# -o DIR: removed after passing runs, kept for the failing one.
"$deja" record -o "$tmp/o1" --until-failure=2 "$hello" >/dev/null 2>"$tmp/o1.err"
[ $? = 0 ] && [ ! -e "$tmp/o1" ] || fail "-o DIR of passing runs was kept"
rm -f "$tmp/counter"
"$deja" record -o "$tmp/o2" --until-failure=5 "$third" "$tmp/counter" >/dev/null 2>"$tmp/o2.err"
[ $? = 3 ] && [ -f "$tmp/o2/events" ] || fail "-o DIR of the failing run was not kept"
echo "-o DIR: kept only for the failing run"

# A bad N is refused before anything runs.
for bad in 0 -3 x 5x; do
  "$deja" record --until-failure="$bad" "$hello" >"$tmp/bad.out" 2>"$tmp/bad.err"
  status=$?
  [ "$status" = 70 ] || fail "--until-failure=$bad exited $status, expected 70"
  grep -q "needs a number of runs" "$tmp/bad.err" || fail "no message for --until-failure=$bad"
  [ -s "$tmp/bad.out" ] && fail "the program ran with --until-failure=$bad"
done
echo "bad N refused"

# SIGINT to deja during a run: exit 130, the run's trace deleted, latest-trace restored.
"$deja" record --until-failure=1000 "${long[@]}" >/dev/null 2>"$tmp/int.err" &
pid=$!
for _ in $(seq 100); do
  [ "$(count)" = 2 ] && break
  sleep 0.1
done
[ "$(count)" = 2 ] || fail "the long program's recording did not start"
sleep 0.3
kill -INT "$pid"
wait "$pid"
status=$?
[ "$status" = 130 ] || fail "SIGINT during --until-failure exited $status, expected 130"
grep -q "stopped by Interrupt during run" "$tmp/int.err" || fail "no message about the interruption"
[ "$(count)" = 1 ] || fail "the interrupted run's trace was kept"
[ "$(readlink "$DEJA_TRACE_DIR/latest-trace")" = "$first" ] || fail "latest-trace was not restored"
echo "SIGINT: exit 130, nothing kept of the interrupted run"
