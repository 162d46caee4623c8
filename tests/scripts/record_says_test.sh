#!/usr/bin/env bash
# Records a program and checks that the recording says something on stderr (a message
# of deja's matching a regular expression), that it exits 0 and that it replays with the
# same stdout.
#
# usage: record_says_test.sh DEJA REGEX PROGRAM [ARG...]
set -u
if [ $# -lt 3 ]; then
  echo "usage: record_says_test.sh DEJA REGEX PROGRAM [ARG...]" >&2
  exit 2
fi
deja=$1
regex=$2
shift 2
tmp=$(mktemp -d /tmp/deja-says-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
timeout 60 "$deja" record -o "$tmp/t" -- "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 0 ] || { head -n 20 "$tmp/err" >&2; fail "record exited with status $status"; }
grep -Eq "^deja: .*$regex" "$tmp/err" || { head -n 20 "$tmp/err" >&2; fail "the recording does not say: $regex"; }
timeout 60 "$deja" replay -a "$tmp/t" </dev/null >"$tmp/rout" 2>"$tmp/rerr"
status=$?
[ $status -eq 0 ] || { head -n 20 "$tmp/rerr" >&2; fail "replay -a exited with status $status"; }
cmp -s "$tmp/out" "$tmp/rout" || fail "the replay's stdout differs from the recording's"
echo "PASS: the recording of $* says /$regex/ and replays"
