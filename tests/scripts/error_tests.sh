#!/usr/bin/env bash
# deja's behaviour on errors: missing program, bad options, corrupt, truncated and
# missing traces, an unsupported system call, 32-bit programs, and a recorder killed with
# SIGKILL.
#
# usage: error_tests.sh DEJA PROGRAMS_DIR
#   PROGRAMS_DIR holds the built test programs (unsupported_syscall, sleep_loop, hello,
#   hello32).
set -u

if [ $# -ne 2 ]; then
  echo "usage: error_tests.sh DEJA PROGRAMS_DIR" >&2
  exit 2
fi
deja=$1
programs=$2
[ -x "$deja" ] || { echo "FAIL: deja binary '$deja' is missing (build it first)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/deja-error-tests.XXXXXX)
recorder_pid=""
cleanup() {
  if [ -n "$recorder_pid" ]; then kill -9 "$recorder_pid" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
export DEJA_TRACE_DIR="$tmp/traces"
mkdir -p "$DEJA_TRACE_DIR"

passed=0
failed=0
pass() {
  echo "PASS: $1"
  passed=$((passed + 1))
}
fail_case() {
  echo "FAIL: $1" >&2
  shift
  for file in "$@"; do
    echo "--- $(basename "$file") (first 20 lines):" >&2
    head -n 20 "$file" >&2
  done
  failed=$((failed + 1))
}

# run_deja NAME ARGS...: runs deja (60 s at most) with stdout/stderr in $tmp/NAME.out/.err
# and the exit status in $status.
run_deja() {
  local name=$1
  shift
  timeout 60 "$deja" "$@" </dev/null >"$tmp/$name.out" 2>"$tmp/$name.err"
  status=$?
}

# A fresh trace of `hello` at $tmp/NAME, for the corruption cases.
record_hello() {
  run_deja "$1.record" record -o "$tmp/$1" -- "$programs/hello"
  [ $status -eq 0 ] && [ -f "$tmp/$1/events" ]
}

case_missing_program() {
  local what="record of a program that does not exist"
  run_deja missing record -o "$tmp/missing" -- "$tmp/no-such-program"
  if [ $status -eq 0 ] || [ $status -ge 128 ]; then
    fail_case "$what: exit status $status, expected a non-zero status below 128" "$tmp/missing.err"
  elif ! grep -q "no-such-program" "$tmp/missing.err"; then
    fail_case "$what: the message does not name the program" "$tmp/missing.err"
  elif [ -e "$tmp/missing" ]; then
    local record_status=$status
    run_deja missing.replay replay -a "$tmp/missing"
    if [ $status -eq 0 ]; then
      status=$record_status
      pass "$what (status $status; the trace left behind replays)"
    else
      fail_case "$what: a trace was left behind and its replay exited $status" "$tmp/missing.replay.err"
    fi
  else
    pass "$what"
  fi
}

case_bad_record_option() {
  local what="record with an unknown option"
  run_deja badopt record --no-such-option "$programs/hello"
  if [ $status -ne 70 ]; then
    fail_case "$what: exit status $status, expected 70" "$tmp/badopt.err"
  elif ! grep -q -- "--no-such-option" "$tmp/badopt.err"; then
    fail_case "$what: the message does not name the option" "$tmp/badopt.err"
  elif grep -q "Hello" "$tmp/badopt.out"; then
    fail_case "$what: the program ran anyway" "$tmp/badopt.out"
  else
    pass "$what"
  fi
}

case_bad_replay_option() {
  local what="replay with an unknown option"
  run_deja badreplayopt replay --no-such-option
  if [ $status -ne 1 ]; then
    fail_case "$what: exit status $status, expected 1 (usage error)" "$tmp/badreplayopt.err"
  else
    pass "$what"
  fi
}

# expect_corrupt_trace_rejected NAME DESCRIPTION: replay of $tmp/NAME must exit 1 naming `events'.
expect_corrupt_trace_rejected() {
  local name=$1 what=$2
  run_deja "$name.replay" replay -a "$tmp/$name"
  if [ $status -ne 1 ]; then
    fail_case "$what: replay exited $status, expected 1" "$tmp/$name.replay.err"
  elif ! grep -q "events" "$tmp/$name.replay.err"; then
    fail_case "$what: the message does not name the events file" "$tmp/$name.replay.err"
  else
    pass "$what"
  fi
}

case_flipped_byte() {
  local what="replay of a trace with a flipped byte in the middle of events"
  if ! record_hello flipped; then
    fail_case "$what: recording hello failed (status $status, or no events file)" "$tmp/flipped.record.err"
    return
  fi
  local file="$tmp/flipped/events" size offset byte
  size=$(stat -c %s "$file")
  offset=$((size / 2))
  byte=$(od -An -tu1 -j "$offset" -N1 "$file" | tr -d ' ')
  printf "$(printf '\\%03o' $(((byte ^ 0xff) & 0xff)))" |
    dd of="$file" bs=1 seek="$offset" count=1 conv=notrunc status=none
  expect_corrupt_trace_rejected flipped "$what (byte $offset of $size)"
}

case_truncated() {
  local what="replay of a trace whose events file is cut in half"
  if ! record_hello truncated; then
    fail_case "$what: recording hello failed (status $status, or no events file)" "$tmp/truncated.record.err"
    return
  fi
  local file="$tmp/truncated/events"
  truncate -s $(($(stat -c %s "$file") / 2)) "$file"
  expect_corrupt_trace_rejected truncated "$what"
}

case_not_a_trace() {
  local what="replay of a directory that is not a trace"
  mkdir -p "$tmp/not-a-trace"
  echo "just a file" >"$tmp/not-a-trace/readme"
  run_deja notatrace replay -a "$tmp/not-a-trace"
  if [ $status -ne 1 ]; then
    fail_case "$what: exit status $status, expected 1" "$tmp/notatrace.err"
  elif ! [ -s "$tmp/notatrace.err" ]; then
    fail_case "$what: no message on stderr"
  else
    pass "$what"
  fi
}

case_missing_trace() {
  local what="replay of a trace name that does not exist"
  run_deja notrace replay -a no-such-trace-42
  if [ $status -ne 1 ]; then
    fail_case "$what: exit status $status, expected 1" "$tmp/notrace.err"
  elif ! grep -q "no-such-trace-42" "$tmp/notrace.err"; then
    fail_case "$what: the message does not name the trace" "$tmp/notrace.err"
  else
    pass "$what"
  fi
}

case_unsupported_syscall() {
  local what="record of a program making an unsupported system call (int \$0x80 from 64-bit code)"
  # Kernels without IA-32 emulation (and the PVM hypervisor) kill the program at the
  # int $0x80 itself (SIGSEGV): there is no call to refuse, so the case cannot run.
  "$programs/unsupported_syscall" >/dev/null 2>&1
  if [ $? -eq 139 ]; then
    echo "SKIPPED: $what: this kernel kills the program at int \$0x80 without deja (no IA-32 emulation)"
    return
  fi
  run_deja unsupported.record record -o "$tmp/unsupported" -- "$programs/unsupported_syscall"
  if [ $status -ne 70 ]; then
    fail_case "$what: record exited $status, expected 70" "$tmp/unsupported.record.err"
    return
  fi
  if ! grep -q "32-bit system call number 45 (int \$0x80)" "$tmp/unsupported.record.err"; then
    fail_case "$what: record's message does not name the 32-bit call" "$tmp/unsupported.record.err"
    return
  fi
  if ! grep -qx "before" "$tmp/unsupported.record.out"; then
    fail_case "$what: the program's 'before' line is missing from record's stdout" \
      "$tmp/unsupported.record.out"
    return
  fi
  run_deja unsupported.replay replay -a "$tmp/unsupported"
  if [ $status -ne 0 ]; then
    fail_case "$what: replay of the partial trace exited $status, expected 0" \
      "$tmp/unsupported.replay.err"
  elif ! grep -qx "before" "$tmp/unsupported.replay.out"; then
    fail_case "$what: replay did not print 'before'" "$tmp/unsupported.replay.out"
  else
    pass "$what"
  fi
}

case_32bit_program() {
  local what="record of a 32-bit program"
  run_deja m32 record -o "$tmp/m32" -- "$programs/hello32"
  if [ $status -ne 70 ]; then
    fail_case "$what: record exited $status, expected 70" "$tmp/m32.err"
  elif ! grep -q "hello32' is a 32-bit x86 program; deja records 64-bit x86-64 programs only" \
    "$tmp/m32.err"; then
    fail_case "$what: the message does not say why" "$tmp/m32.err"
  elif [ -e "$tmp/m32" ] || [ -s "$tmp/m32.out" ]; then
    fail_case "$what: the program ran or a trace was left" "$tmp/m32.out"
  else
    pass "$what"
  fi
  what="record of a shell that executes a 32-bit program"
  run_deja m32sh record -o "$tmp/m32sh" -- sh -c "echo before; $programs/hello32; echo after \$?"
  if [ $status -ne 0 ]; then
    fail_case "$what: record exited $status, expected 0 (the execve fails)" "$tmp/m32sh.err"
  elif ! grep -q "hello32', a 32-bit x86 program, fails with ENOEXEC" "$tmp/m32sh.err" ||
    ! grep -qx "after 126" "$tmp/m32sh.out"; then
    fail_case "$what: no ENOEXEC message, or the shell did not see the execve fail" \
      "$tmp/m32sh.err" "$tmp/m32sh.out"
  else
    run_deja m32sh.replay replay -a "$tmp/m32sh"
    if [ $status -ne 0 ] || ! grep -qx "after 126" "$tmp/m32sh.replay.out"; then
      fail_case "$what: the replay exited $status or printed otherwise" "$tmp/m32sh.replay.err" \
        "$tmp/m32sh.replay.out"
    else
      pass "$what"
    fi
  fi
}

case_missing_library() {
  local what="replay of a trace missing a preserved library"
  if ! record_hello nolib; then
    fail_case "$what: recording hello failed" "$tmp/nolib.record.err"
    return
  fi
  rm -f "$tmp/nolib/files/"libc.so*
  run_deja nolib.replay replay -a "$tmp/nolib"
  if [ $status -ne 1 ]; then
    fail_case "$what: exit status $status, expected 1" "$tmp/nolib.replay.err"
  elif ! grep -q "libc.so" "$tmp/nolib.replay.err"; then
    fail_case "$what: the message does not name the file" "$tmp/nolib.replay.err"
  else
    pass "$what"
  fi
}

case_missing_debugger() {
  local what="replay under a debugger that does not exist"
  if ! record_hello nodebugger; then
    fail_case "$what: recording hello failed" "$tmp/nodebugger.record.err"
    return
  fi
  run_deja nodebugger.replay replay --debugger "$tmp/no-such-gdb" "$tmp/nodebugger"
  if [ $status -ne 1 ]; then
    fail_case "$what: exit status $status, expected 1 (124 = it hung)" "$tmp/nodebugger.replay.err"
  elif ! grep -q "no-such-gdb" "$tmp/nodebugger.replay.err"; then
    fail_case "$what: the message does not name the debugger" "$tmp/nodebugger.replay.err"
  else
    pass "$what"
  fi
}

case_recorder_killed() {
  local what="replay of a trace whose recorder was killed with SIGKILL"
  "$deja" record -o "$tmp/killed" -- "$programs/sleep_loop" 5 </dev/null \
    >"$tmp/killed.record.out" 2>"$tmp/killed.record.err" &
  recorder_pid=$!
  # Wait for the program's first line (at most 20 s), then let it sleep a moment.
  local waited=0
  while ! grep -q "sleeping" "$tmp/killed.record.out" 2>/dev/null && [ $waited -lt 200 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  sleep 1
  kill -9 "$recorder_pid" 2>/dev/null
  wait "$recorder_pid" 2>/dev/null
  recorder_pid=""
  if ! [ -d "$tmp/killed" ]; then
    fail_case "$what: the recorder left no trace directory" "$tmp/killed.record.err"
    return
  fi
  run_deja killed.replay replay -a "$tmp/killed"
  if [ $status -eq 124 ]; then
    fail_case "$what: replay hung (killed after 60 s)" "$tmp/killed.replay.err"
  elif [ $status -ge 128 ]; then
    fail_case "$what: replay crashed (status $status)" "$tmp/killed.replay.err"
  elif [ $status -ne 0 ] && [ $status -ne 1 ]; then
    fail_case "$what: replay exited $status, expected 0 or 1" "$tmp/killed.replay.err"
  elif ! grep -qiE "incomplete|end marker|recorder was killed|truncated" "$tmp/killed.replay.err"; then
    fail_case "$what: replay does not say the trace is incomplete" "$tmp/killed.replay.err"
  else
    pass "$what (replay status $status)"
  fi
}

case_missing_program
case_bad_record_option
case_bad_replay_option
case_flipped_byte
case_truncated
case_not_a_trace
case_missing_trace
case_unsupported_syscall
case_32bit_program
case_missing_library
case_missing_debugger
case_recorder_killed

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
