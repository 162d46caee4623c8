#!/bin/sh
# A test of the tests: runs a record-and-replay test against a fake deja whose `replay`
# does not replay, and requires the test to FAIL. MODE is the fake:
#   print-trace  replay prints each event's recorded output and runs nothing
#   no-results   replay runs the program for real with the recorded argv and
#                environment, applying none of the recorded results
# Either fake exits 0 like a faithful replay (the program it runs is stopped after 20 s); every other command (record, dump, ps) is
# the real deja's. A test that passes against a fake cannot tell a replay from its fake.
# usage: fake_replay_test.sh MODE DEJA TRACE_EDIT -- TEST-COMMAND...
#        (every argument of TEST-COMMAND equal to DEJA is replaced by the fake)
set -u
mode=$1 deja=$2 edit=$3
shift 3
[ "${1:-}" = -- ] && shift
case "$mode" in
  print-trace) verb=print-output ;;
  no-results) verb=run ;;
  *) echo "usage: fake_replay_test.sh print-trace|no-results DEJA TRACE_EDIT -- TEST-COMMAND..." >&2; exit 2 ;;
esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/deja-fake.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/deja" <<FAKE
#!/bin/sh
# fake deja ($mode)
if [ "\$1" = replay ]; then
  shift
  quiet= trace=
  for arg; do
    case "\$arg" in
      -q|--quiet) quiet=-q ;;
      -*) ;;
      *) trace=\$arg ;;
    esac
  done
  timeout 20 "$edit" "\$trace" $verb \$quiet
  exit 0
fi
exec "$deja" "\$@"
FAKE
chmod +x "$tmp/deja"

# The test command with the fake in place of deja.
n=$#
while [ $n -gt 0 ]; do
  arg=$1
  shift
  [ "$arg" = "$deja" ] && arg=$tmp/deja
  set -- "$@" "$arg"
  n=$((n - 1))
done
"$@" >"$tmp/out" 2>&1
status=$?
if [ "$status" -eq 1 ] && grep -q 'FAIL' "$tmp/out"; then
  echo "ok: the test fails against the $mode fake replay:"
  grep 'FAIL' "$tmp/out" | head -n 3
  exit 0
fi
echo "FAIL: the test exited with status $status against the $mode fake replay (expected 1, a test failure): it cannot tell a replay from the fake"
tail -n 20 "$tmp/out"
exit 1
