#!/usr/bin/env bash
# A flaky program chaos mode must catch (tests/programs/chaos_*.c; each prints one line
# per run and exits 1 when its bug shows):
#  1. recorded PLAIN times without chaos mode (record --until-failure=PLAIN): it never
#     fails, and no trace is kept;
#  2. recorded with `record -h --until-failure=40`: it fails (exit 1) within 40 runs,
#     exactly one trace is kept and latest-trace names it;
#  3. that trace replays faithfully (exit 0, the failing run's output) REPLAYS times.
# Prints how many recordings the hunt took.
# usage: chaos_test.sh DEJA [--plain N] [--replays N] -- PROGRAM [ARG...]
set -u

deja=$1
shift
plain=3
replays=2
while [ $# -gt 0 ]; do
  case "$1" in
    --plain) plain=$2; shift 2 ;;
    --replays) replays=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "chaos_test.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done

tmp=$(mktemp -d /tmp/deja-chaos-test.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
export DEJA_TRACE_DIR="$tmp/traces"

fail() {
  echo "FAIL: $*"
  for f in "$tmp"/*.out "$tmp"/*.err; do
    [ -s "$f" ] && { echo "--- $f (last 15 lines):"; tail -n 15 "$f"; }
  done
  exit 1
}

traces() { find "$DEJA_TRACE_DIR" -mindepth 1 -maxdepth 1 -type d ! -name '.*' 2>/dev/null | wc -l; }

# 1. Without chaos mode the program passes.
"$deja" record --until-failure="$plain" "$@" >"$tmp/plain.out" 2>"$tmp/plain.err"
status=$?
[ "$status" = 0 ] || fail "recorded without chaos mode the program failed (status $status)"
grep -q "no run failed in $plain runs" "$tmp/plain.err" || fail "no 'no run failed' message"
[ "$(traces)" = 0 ] || fail "traces of passing runs were kept"
[ -e "$DEJA_TRACE_DIR/latest-trace" ] && fail "latest-trace names a deleted trace"
[ -e "$DEJA_TRACE_DIR/.deja-store" ] && fail "the content store keeps the deleted runs' files"
echo "without chaos mode: $plain of $plain recordings passed"

# 2. With chaos mode it fails within 40 recordings.
start=$(date +%s)
"$deja" record -h --until-failure=40 "$@" >"$tmp/chaos.out" 2>"$tmp/chaos.err"
status=$?
[ "$status" = 1 ] || fail "chaos mode did not make the program fail in 40 runs (status $status)"
runs=$(sed -n 's/.*failed in run \([0-9]*\).*/\1/p' "$tmp/chaos.err")
[ -n "$runs" ] || fail "no 'failed in run N' message"
[ "$(traces)" = 1 ] || fail "$(traces) traces kept, expected exactly the failing run's"
latest=$(readlink "$DEJA_TRACE_DIR/latest-trace")
[ -d "$DEJA_TRACE_DIR/$latest" ] || fail "latest-trace does not name the kept trace"
tail -n 1 "$tmp/chaos.out" >"$tmp/failing.out"
grep -q '^FAIL' "$tmp/failing.out" || fail "the last run's output is not a failure"
echo "with chaos mode: failed in recording $runs ($(($(date +%s) - start)) s): $(cat "$tmp/failing.out")"

# 3. The failing trace replays faithfully, every time.
for i in $(seq "$replays"); do
  "$deja" replay -a >"$tmp/replay.out" 2>"$tmp/replay.err"
  status=$?
  [ "$status" = 0 ] || fail "replay $i of the failing trace exited $status"
  cmp -s "$tmp/failing.out" "$tmp/replay.out" || fail "replay $i printed $(cat "$tmp/replay.out")"
done
echo "the failing trace replayed faithfully $replays times"
