#!/usr/bin/env bash
# Runs one step of a test with a time limit, and says what hung when it runs past it.
#
# usage: run_step.sh WHAT SECONDS COMMAND [ARG...]
#
# COMMAND runs with this script's stdin, stdout and stderr; its exit status is this
# script's. Past SECONDS, it prints on stderr "HANG: WHAT did not finish within SECONDS s"
# and, for every process under COMMAND, its ps line and, for each of its threads, where
# the kernel has it waiting (wchan, kernel stack, system call) and its state, tracer and
# signal masks (/proc/PID/task/TID/status); then it kills them all and exits with 124 (as
# timeout(1) does). Used by rr_test.sh, whose ctest timeout would otherwise kill a hung
# step without a word.
set -u
if [ $# -lt 3 ]; then
  echo "usage: run_step.sh WHAT SECONDS COMMAND [ARG...]" >&2
  exit 2
fi
what=$1
limit=$2
shift 2

# The processes under PID (children first found, then theirs), PID included.
tree() {
  local all
  all=$(ps -eo pid=,ppid=)
  local list=$1 frontier=$1 next p
  while [ -n "$frontier" ]; do
    next=
    for p in $frontier; do
      next="$next $(awk -v parent="$p" '$2 == parent { print $1 }' <<<"$all")"
    done
    frontier=$(echo $next)
    list="$list $frontier"
  done
  echo $list
}

# What each process and thread under PID is doing.
describe() {
  local pids t f
  pids=$(tree "$1")
  ps -o pid,ppid,stat,wchan:32,etime,args -p "$(echo $pids | tr ' ' ',')" 2>&1
  for p in $pids; do
    for t in /proc/"$p"/task/*; do
      [ -d "$t" ] || continue
      echo "-- task ${t##*/} of process $p: wchan $(cat "$t/wchan" 2>/dev/null)," \
        "syscall $(cut -d' ' -f1 "$t/syscall" 2>/dev/null)"
      grep -E '^(Name|State|TracerPid|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt):' "$t/status" 2>/dev/null |
        tr '\n' ' '
      echo
      f="$t/stack"
      [ -r "$f" ] && sed 's/^/   /' "$f" 2>/dev/null | head -n 12
    done
  done
}

# A background job of a shell without job control ignores SIGINT and SIGQUIT; the
# command must get them as it would in the foreground (rr_sig_death_quit raises SIGQUIT).
(
  trap - INT QUIT
  exec "$@"
) <&0 &
pid=$!
end=$((SECONDS + limit)) # the wall clock: a loaded machine makes each sleep longer
while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do
  sleep 0.1
done
if ! kill -0 "$pid" 2>/dev/null; then
  wait "$pid"
  exit $?
fi
{
  echo "HANG: $what did not finish within $limit s; its processes:"
  describe "$pid"
} >&2
pids=$(tree "$pid")
kill -STOP $pids 2>/dev/null # none runs on (or forks) while the others die
kill -KILL $pids 2>/dev/null
wait "$pid" 2>/dev/null
exit 124
