#!/usr/bin/env bash
# Records a program and checks that the recording exits with STATUS and says something
# on stderr (a message of deja's matching a regular expression), and that the trace
# replays (exit 0; with STATUS 0, with the recording's stdout).
#
# usage: record_says_test.sh DEJA STATUS REGEX PROGRAM [ARG...]
set -u
if [ $# -lt 4 ]; then
  echo "usage: record_says_test.sh DEJA STATUS REGEX PROGRAM [ARG...]" >&2
  exit 2
fi
deja=$1
want=$2
regex=$3
shift 3
tmp=$(mktemp -d /tmp/deja-says-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
timeout 60 "$deja" record -o "$tmp/t" -- "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq "$want" ] || { head -n 20 "$tmp/err" >&2; fail "record exited with status $status, expected $want"; }
grep -Eq "^deja: .*$regex" "$tmp/err" || { head -n 20 "$tmp/err" >&2; fail "the recording does not say: $regex"; }
timeout 60 "$deja" replay -a "$tmp/t" </dev/null >"$tmp/rout" 2>"$tmp/rerr"
status=$?
[ $status -eq 0 ] || { head -n 20 "$tmp/rerr" >&2; fail "replay -a exited with status $status"; }
if [ "$want" -eq 0 ]; then
  cmp -s "$tmp/out" "$tmp/rout" || fail "the replay's stdout differs from the recording's"
fi
echo "PASS: the recording of $* exits $want, says /$regex/ and replays"
