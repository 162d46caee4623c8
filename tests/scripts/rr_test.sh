#!/usr/bin/env bash
# Records one program with deja, replays it, and checks that the replay is faithful.
#
# usage: rr_test.sh --deja PATH --trace-edit PATH [--exit STATUS] [--differ] [--repeat N] [--stdin FILE]
#                   [--record-arg ARG]... -- PROGRAM [ARG...]
#
#   --trace-edit PATH  the trace-rewriting test helper (tests/tools/trace_edit.c)
#   --exit STATUS      exit status the recording must report (default 0)
#   --differ           record twice and require different stdout: the program prints
#                      live values (time, random) that must not be frozen during record
#   --repeat N         record N times (default 1), replaying and checking each
#                      recording: for programs whose runs differ (threads racing,
#                      timers), each run must replay faithfully. With --differ at
#                      least two recordings are made and the first two must differ.
#   --vary N           the program's runs differ (threads racing, timers): record until a
#                      recording differs from the first one, in its stdout or in its
#                      schedule (which task ran which events), at most N times; each
#                      recording is replayed. Fails when none differs: the test must show
#                      the nondeterminism it is about.
#   --vary-output N    the same, but only a different stdout counts
#   --ps FILE          the process tree `deja ps` must show: one line per process, in
#                      order, "PARENT EXIT CMD-REGEX": PARENT the line number of the
#                      parent process in FILE (-- for the first), EXIT as ps prints it
#   --stdin FILE       the program's stdin while recording (default /dev/null)
#   --record-arg ARG   extra option for `deja record` (given before `--`), repeatable
#   --record-in CMD    record under CMD (tests/tools/container_run: a default container)
#   --replay-in CMD    the quiet replay (replay -a -q) runs under CMD; replay -a does not
#   --step-timeout S   each record and replay step gets S seconds (default 60, below the
#                      test's own timeout): a step that hangs is reported by name, with what
#                      its processes were doing (run_step.sh), and killed
#
# Steps: record (status, "Saving execution" line), replay -a (status 0, same stdout,
# same program stderr), replay -a -q (status 0, no stdout), dump (events numbered from 1,
# the first an exec of the program's first process, its exit status at its last event,
# the recorded output as many bytes as the program wrote), ps (the first process with the
# command line and exit status, every other one a child of a listed process), and the
# first recording, with an output byte or a system call result altered, replays to a
# divergence (follows_trace.sh: the replay runs the program from the trace).
set -u

deja=""
trace_edit=""
expected_exit=0
differ=0
repeat=1
vary=0
vary_what=
ps_file=
stdin_file=/dev/null
record_args=()
record_in=()
replay_in=()
step_timeout=60
while [ $# -gt 0 ]; do
  case "$1" in
    --deja) deja="$2"; shift 2 ;;
    --trace-edit) trace_edit="$2"; shift 2 ;;
    --exit) expected_exit="$2"; shift 2 ;;
    --differ) differ=1; shift ;;
    --repeat) repeat="$2"; shift 2 ;;
    --vary) vary="$2"; vary_what="output or schedule"; shift 2 ;;
    --vary-output) vary="$2"; vary_what=output; shift 2 ;;
    --ps) ps_file="$2"; shift 2 ;;
    --stdin) stdin_file="$2"; shift 2 ;;
    --record-arg) record_args+=("$2"); shift 2 ;;
    --step-timeout) step_timeout="$2"; shift 2 ;;
    --record-in) record_in=("$2"); shift 2 ;;
    --replay-in) replay_in=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "rr_test.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if [ -z "$deja" ] || [ -z "$trace_edit" ] || [ $# -eq 0 ]; then
  echo "usage: rr_test.sh --deja PATH --trace-edit PATH [--exit N] [--differ] [--repeat N] [--stdin FILE] [--record-arg ARG]... -- PROGRAM [ARG...]" >&2
  exit 2
fi
if ! [[ "$repeat" =~ ^[1-9][0-9]*$ ]]; then
  echo "rr_test.sh: --repeat needs a positive whole number, not '$repeat'" >&2
  exit 2
fi
if ! [[ "$vary" =~ ^[0-9]+$ ]] || { [ -n "$vary_what" ] && [ "$vary" -lt 2 ]; }; then
  echo "rr_test.sh: --vary needs a whole number of at least 2, not '$vary'" >&2
  exit 2
fi
if ! [[ "$step_timeout" =~ ^[1-9][0-9]*$ ]]; then
  echo "rr_test.sh: --step-timeout needs a positive whole number of seconds, not '$step_timeout'" >&2
  exit 2
fi
run_step="$(dirname "$0")/run_step.sh"
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

# Fails when a step run by run_step.sh hung (status 124 and its HANG line: a program run
# under timeout(1) exits 124 by itself): what its processes were doing, as run_step.sh
# printed it at the end of the step's stderr FILE. $1 status, $2 FILE, $3 what the step was.
fail_if_hung() {
  [ "$1" = 124 ] && grep -q '^HANG: ' "$2" || return 0
  sed -n '/^HANG: /,$p' "$2" >&2
  fail "$3 hung: killed after $step_timeout s (see above what its processes were doing)"
}

# The program's own stderr: the recorder's stderr without deja's "deja: " lines.
program_stderr() {
  grep -v '^deja: ' "$1" || true
}

# record_once NAME: records into $tmp/NAME; leaves NAME.out, NAME.err, NAME.status.
record_once() {
  local name=$1
  shift
  "$run_step" "record ($name)" "$step_timeout" \
    "${record_in[@]}" "$deja" record -o "$tmp/$name" "${record_args[@]}" -- "$@" <"$stdin_file" \
    >"$tmp/$name.out" 2>"$tmp/$name.err"
  echo $? >"$tmp/$name.status"
}

# check_recording NAME: status, the "Saving execution" line.
check_recording() {
  local name=$1 status
  status=$(cat "$tmp/$name.status")
  fail_if_hung "$status" "$tmp/$name.err" "record ($name)"
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

# The exit status as deja ps shows it: the number, or SIGNAME for a death by a signal.
expected_ps_exit() {
  if [ "$expected_exit" -gt 128 ]; then
    echo "SIG$(kill -l $((expected_exit - 128)))"
  else
    echo "$expected_exit"
  fi
}

# check_dump NAME: the content of deja dump's lines.
check_dump() {
  local name=$1 problem
  problem=$(awk -v out_bytes="$(wc -c <"$tmp/$name.out")" \
                -v err_bytes="$(wc -c <"$tmp/$name.progerr")" -v status="$expected_exit" '
    $1 != NR { print "line " NR " is numbered \"" $1 "\""; bad = 1; exit }
    NR == 1 {
      if ($3 != "exec") { print "the first event is not an exec: " $0; bad = 1; exit }
      root = $2
    }
    / output to stdout \(/ { o = $0; sub(/.* output to stdout \(/, "", o); stdout += o + 0 }
    / output to stderr \(/ { o = $0; sub(/.* output to stderr \(/, "", o); stderr += o + 0 }
    $2 == root && $3 == "exit" { last_exit = $0 }
    END {
      if (bad) exit
      if (NR == 0) { print "no event line"; exit }
      if (stdout != out_bytes)
        print "the events record " stdout " bytes of output to stdout, the program wrote " out_bytes
      if (stderr != err_bytes)
        print "the events record " stderr " bytes of output to stderr, the program wrote " err_bytes
      want = status > 128 ? "killed by" : "status " status
      if (index(last_exit, want) == 0)
        print "the first process (" root ") does not end with \"" want "\": " last_exit
    }' "$tmp/$name.dump")
  if [ -n "$problem" ]; then
    show_file "dump" "$tmp/$name.dump"
    fail "dump of $name: $problem"
  fi
}

# check_ps NAME COMMAND...: the first process and the tree deja ps shows.
check_ps() {
  local name=$1 problem root want_exit
  shift
  root=$(awk 'NR == 1 { sub(/^tid=/, "", $2); print $2 }' "$tmp/$name.dump")
  want_exit=$(expected_ps_exit)
  # The command line as ps prints it: argv joined by spaces, control characters escaped.
  problem=$(CMD="$*" awk -F '\t' -v root="$root" -v want_exit="$want_exit" '
    BEGIN { cmd = ENVIRON["CMD"]; gsub(/\n/, "\\n", cmd); gsub(/\t/, "\\t", cmd) }
    NR == 1 {
      if ($0 != "PID\tPPID\tEXIT\tCMD") { print "the header is \"" $0 "\""; bad = 1; exit }
      next
    }
    NR == 2 {
      line = $0; sub(/^[^\t]*\t[^\t]*\t[^\t]*\t/, "", line)
      if ($1 != root || $2 != "--" || $3 != want_exit || line != cmd) {
        print "the first process is \"" $0 "\", expected " root ", --, " want_exit ", " cmd
        exit
      }
    }
    NR > 2 && !($2 in pids) { print "process " $1 " has parent " $2 ", which is not listed"; exit }
    NR > 2 && $3 == "none" { print "process " $1 " has no exit status"; exit }
    { pids[$1] = 1 }
    END { if (!bad && NR < 2) print "no process line" }' "$tmp/$name.ps")
  if [ -z "$problem" ] && [ -n "$ps_file" ]; then
    problem=$(awk -F '\t' '
      NR == FNR {
        if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/) next
        n++; split($0, f, " "); parent[n] = f[1]; status[n] = f[2]
        c = $0; sub(/^[^ ]+ [^ ]+ /, "", c); pattern[n] = c
        next
      }
      FNR == 1 { next }
      {
        k = FNR - 1; row[$1] = k
        line = $0; sub(/^[^\t]*\t[^\t]*\t[^\t]*\t/, "", line)
        p = $2 == "--" ? "--" : row[$2]
        if (k > n) { print "process line " k " is not expected: " $0; bad = 1; exit }
        if (p != parent[k] || $3 != status[k] || line !~ pattern[k]) {
          print "process line " k " is \"" $0 "\", expected parent line " parent[k] \
                ", exit " status[k] ", command matching " pattern[k]
          bad = 1
          exit
        }
      }
      END { if (!bad && FNR - 1 < n) print "ps lists " FNR - 1 " processes, expected " n }' \
      "$ps_file" "$tmp/$name.ps")
  fi
  if [ -n "$problem" ]; then
    show_file "ps" "$tmp/$name.ps"
    fail "ps of $name: $problem"
  fi
}

# schedule NAME: the order in which tasks ran which events, tasks numbered by first
# appearance (tids differ between recordings).
schedule() {
  awk '{ t = $2; if (!(t in n)) n[t] = ++count; e = $3
         if (e == "syscall" || e == "enter") { s = $4; sub(/\(.*/, "", s); e = e " " s }
         print n[t], e }' "$tmp/$1.dump"
}

# check_replay NAME: replay -a, replay -a -q, dump, ps against the recording NAME.
check_replay() {
  local name=$1 status
  shift
  "$run_step" "replay -a of $name" "$step_timeout" \
    "$deja" replay -a "$tmp/$name" </dev/null >"$tmp/$name.replay.out" 2>"$tmp/$name.replay.err"
  status=$?
  fail_if_hung "$status" "$tmp/$name.replay.err" "replay -a of $name"
  if [ $status -ne 0 ]; then
    show_file "replay stderr" "$tmp/$name.replay.err"
    fail "replay -a of $name exited with status $status, expected 0 (3 = divergence)"
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

  "$run_step" "replay -a -q of $name" "$step_timeout" \
    "${replay_in[@]}" "$deja" replay -a -q "$tmp/$name" </dev/null >"$tmp/$name.quiet.out" \
    2>"$tmp/$name.quiet.err"
  status=$?
  fail_if_hung "$status" "$tmp/$name.quiet.err" "replay -a -q of $name"
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
  check_dump "$name"

  timeout 120 "$deja" ps "$tmp/$name" >"$tmp/$name.ps" 2>"$tmp/$name.ps.err"
  status=$?
  if [ $status -ne 0 ]; then
    show_file "ps stderr" "$tmp/$name.ps.err"
    fail "ps of $name exited with status $status, expected 0"
  fi
  check_ps "$name" "$@"
}

recordings=$repeat
varied=
if [ $vary -gt 0 ]; then
  recordings=$vary
fi
if [ $differ -eq 1 ] && [ $recordings -lt 2 ]; then
  recordings=2
fi
for ((run = 1; run <= recordings; run++)); do
  record_once "t$run" "$@"
  check_recording "t$run"
  check_replay "t$run" "$@"
  if [ $run -eq 1 ]; then
    sh "$(dirname "$0")/follows_trace.sh" "$deja" "$trace_edit" "$tmp/t1" >"$tmp/follows" 2>&1 ||
      { cat "$tmp/follows" >&2; fail "replay of t1 does not follow the trace"; }
  fi
  if [ $vary -gt 0 ] && [ $run -ge 2 ]; then
    if ! cmp -s "$tmp/t1.out" "$tmp/t$run.out"; then
      varied="recording $run printed other output than the first"
    elif [ "$vary_what" != output ] && ! cmp -s <(schedule t1) <(schedule "t$run"); then
      varied="recording $run ran another schedule than the first"
    fi
    [ -n "$varied" ] && break
  fi
done
summary="recorded with status $expected_exit, replayed faithfully and follows the trace ($(wc -l <"$tmp/t1.dump") events)"
if [ $recordings -gt 1 ]; then
  summary="$summary; $recordings recordings, each replayed faithfully"
fi

if [ $vary -gt 0 ]; then
  if [ -z "$varied" ]; then
    show_file "stdout of the recordings" "$tmp/t1.out"
    fail "$recordings recordings did not differ in $vary_what: the test does not show the nondeterminism it is about"
  fi
  summary="recorded with status $expected_exit, $run recordings each replayed faithfully; $varied"
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
