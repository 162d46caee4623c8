#!/usr/bin/env bash
# Records one program with deja, replays it, and checks that the replay is faithful.
#
# usage: rr_test.sh --deja PATH [--exit STATUS] [--differ] [--repeat N] [--stdin FILE]
#                   [--record-arg ARG]... -- PROGRAM [ARG...]
#
#   --exit STATUS      exit status the recording must report (default 0)
#   --differ           record twice and require different stdout: the program prints
#                      live values (time, random) that must not be frozen during record
#   --repeat N         record N times (default 1), replaying and checking each
#                      recording: for programs whose runs differ (threads racing,
#                      timers), each run must replay faithfully. With --differ at
#                      least two recordings are made and the first two must differ.
#   --stdin FILE       the program's stdin while recording (default /dev/null)
#   --record-arg ARG   extra option for `deja record` (given before `--`), repeatable
#
# Steps: record (status, "Saving execution" line), replay -a (status 0, same stdout,
# same program stderr), replay -a -q (no stdout), dump (some lines), ps (status 0).
set -u

deja=""
expected_exit=0
differ=0
repeat=1
stdin_file=/dev/null
record_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --deja) deja="$2"; shift 2 ;;
    --exit) expected_exit="$2"; shift 2 ;;
    --differ) differ=1; shift ;;
    --repeat) repeat="$2"; shift 2 ;;
    --stdin) stdin_file="$2"; shift 2 ;;
    --record-arg) record_args+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "rr_test.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if [ -z "$deja" ] || [ $# -eq 0 ]; then
  echo "usage: rr_test.sh --deja PATH [--exit N] [--differ] [--repeat N] [--stdin FILE] [--record-arg ARG]... -- PROGRAM [ARG...]" >&2
  exit 2
fi
if ! [[ "$repeat" =~ ^[1-9][0-9]*$ ]]; then
  echo "rr_test.sh: --repeat needs a positive whole number, not '$repeat'" >&2
  exit 2
fi
if [ ! -x "$deja" ]; then
  echo "FAIL: deja binary '$deja' does not exist or is not executable (build it first)" >&2
  exit 1
fi

tmp=$(mktemp -d /tmp/deja-rr-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export DEJA_TRACE_DIR="$tmp/traces"
mkdir -p "$DEJA_TRACE_DIR"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Shows the first 20 lines of the differences between two files.
show_diff() {
  echo "--- $1 / +++ $2 (first 20 lines of the diff):" >&2
  diff -u "$1" "$2" | head -n 22 | tail -n +3 >&2
}

# Prints a file (labelled) on stderr, limited to 20 lines, to explain a failure.
show_file() {
  echo "--- $1 (first 20 lines):" >&2
  head -n 20 "$2" >&2
}

# The program's own stderr: the recorder's stderr without deja's "deja: " lines.
program_stderr() {
  grep -v '^deja: ' "$1" || true
}

# record_once NAME: records into $tmp/NAME; leaves NAME.out, NAME.err, NAME.status.
record_once() {
  local name=$1
  shift
  "$deja" record -o "$tmp/$name" "${record_args[@]}" -- "$@" <"$stdin_file" \
    >"$tmp/$name.out" 2>"$tmp/$name.err"
  echo $? >"$tmp/$name.status"
}

# check_recording NAME: status, the "Saving execution" line.
check_recording() {
  local name=$1 status
  status=$(cat "$tmp/$name.status")
  if [ "$status" != "$expected_exit" ]; then
    show_file "record stderr" "$tmp/$name.err"
    fail "record ($name) exited with status $status, expected $expected_exit"
  fi
  # deja may print the directory in canonical form: only its last component is checked.
  if ! grep -q "^deja: Saving execution to trace directory \`.*/$name'\.\$" "$tmp/$name.err"; then
    show_file "record stderr" "$tmp/$name.err"
    fail "record ($name) stderr lacks the line: deja: Saving execution to trace directory \`$tmp/$name'."
  fi
  [ -d "$tmp/$name" ] || fail "record ($name) did not create the trace directory $tmp/$name"
  [ -f "$tmp/$name/events" ] || fail "trace $tmp/$name has no 'events' file"
  program_stderr "$tmp/$name.err" >"$tmp/$name.progerr"
}

# check_replay NAME: replay -a, replay -a -q, dump, ps against the recording NAME.
check_replay() {
  local name=$1 status
  timeout 300 "$deja" replay -a "$tmp/$name" </dev/null >"$tmp/$name.replay.out" 2>"$tmp/$name.replay.err"
  status=$?
  if [ $status -ne 0 ]; then
    show_file "replay stderr" "$tmp/$name.replay.err"
    fail "replay -a of $name exited with status $status, expected 0 (3 = divergence, 124 = timeout)"
  fi
  if ! cmp -s "$tmp/$name.out" "$tmp/$name.replay.out"; then
    show_diff "$tmp/$name.out" "$tmp/$name.replay.out"
    fail "replay -a of $name: stdout differs from the recording's stdout"
  fi
  program_stderr "$tmp/$name.replay.err" >"$tmp/$name.replay.progerr"
  if ! cmp -s "$tmp/$name.progerr" "$tmp/$name.replay.progerr"; then
    show_diff "$tmp/$name.progerr" "$tmp/$name.replay.progerr"
    fail "replay -a of $name: the program's stderr differs from the recording's"
  fi

  timeout 300 "$deja" replay -a -q "$tmp/$name" </dev/null >"$tmp/$name.quiet.out" 2>"$tmp/$name.quiet.err"
  status=$?
  if [ $status -ne 0 ]; then
    show_file "replay -q stderr" "$tmp/$name.quiet.err"
    fail "replay -a -q of $name exited with status $status, expected 0"
  fi
  if [ -s "$tmp/$name.quiet.out" ]; then
    show_file "replay -q stdout" "$tmp/$name.quiet.out"
    fail "replay -a -q of $name wrote to stdout; -q must not reproduce output"
  fi

  timeout 120 "$deja" dump "$tmp/$name" >"$tmp/$name.dump" 2>"$tmp/$name.dump.err"
  status=$?
  if [ $status -ne 0 ]; then
    show_file "dump stderr" "$tmp/$name.dump.err"
    fail "dump of $name exited with status $status, expected 0"
  fi
  [ "$(wc -l <"$tmp/$name.dump")" -ge 1 ] || fail "dump of $name printed no event line"

  timeout 120 "$deja" ps "$tmp/$name" >"$tmp/$name.ps" 2>"$tmp/$name.ps.err"
  status=$?
  if [ $status -ne 0 ]; then
    show_file "ps stderr" "$tmp/$name.ps.err"
    fail "ps of $name exited with status $status, expected 0"
  fi
}

recordings=$repeat
if [ $differ -eq 1 ] && [ $recordings -lt 2 ]; then
  recordings=2
fi
for ((run = 1; run <= recordings; run++)); do
  record_once "t$run" "$@"
  check_recording "t$run"
  check_replay "t$run"
done
summary="recorded with status $expected_exit, replayed faithfully ($(wc -l <"$tmp/t1.dump") events)"
if [ $recordings -gt 1 ]; then
  summary="$summary; $recordings recordings, each replayed faithfully"
fi

if [ $differ -eq 1 ]; then
  if cmp -s "$tmp/t1.out" "$tmp/t2.out"; then
    show_file "stdout of both recordings" "$tmp/t1.out"
    fail "two recordings printed the same stdout: time/random values were not live during record"
  fi
  summary="$summary; the first two recordings differ"
fi

echo "PASS: $* — $summary"
exit 0
