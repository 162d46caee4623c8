#!/usr/bin/env bash
# Checks that the system call buffer is really used and that its checks work:
#   used PROGRAM...   recording PROGRAM writes sbuf events holding at least 1000 calls,
#                     and with -n none at all; both replay.
#   restarted PROGRAM PROGRAM blocks in a buffered read another thread ends: deja is
#                     told (the thread's context-switch event) and restarts it as a
#                     traced read, which replays.
#   buffered NAME N PROGRAM  recording PROGRAM buffers at least N calls NAME (deja dump
#                     shows them in sbuf events); the recording replays.
#   dump TEXT N PROGRAM  at least N lines of deja dump of PROGRAM's recording hold TEXT;
#                     the recording replays.
#   output NAME N PROGRAM  recorded with stdout a pipe, PROGRAM buffers at least N calls
#                     NAME whose bytes the sbuf events keep as output to stdout and
#                     stderr; replay writes the same stdout and stderr again (the replayed
#                     bytes, compared with the recorded ones); the same with -n, where no
#                     NAME is buffered.
#   restarted-write PROGRAM  the same for a write (one that found a pipe full)
#   futex PROGRAM     PROGRAM's futex wakes and waits are buffered, its waits that blocked
#                     (untimed, and timed ones that then timed out: made again from the
#                     start) were restarted as traced calls, and it replays.
#   mmap-diverge TRACE_EDIT PROGRAM  the first buffered mmap of PROGRAM's recording is
#                     edited to have returned an address replay cannot map there (the
#                     program's own first page): replaying exits 3 naming the mmap.
#   diverge PROGRAM   replaying PROGRAM (whose buffered calls differ in replay) exits 3
#                     with a message naming the recorded and the replayed call.
# usage: syscallbuf_test.sh DEJA used|restarted|restarted-write|buffered|dump|output|futex|diverge ... PROGRAM [ARG...]
set -u
deja=$1 mode=$2
shift 2
tmp=$(mktemp -d /tmp/deja-sbuf-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The results of the calls restarted as traced ones after blocking in the buffer: a
# restarted call that blocked again is an "enter NAME (blocked)" line, its result the same
# task's next "syscall NAME(...)" line, with other tasks' events between them.
restarted_results() {
  awk '/then one restarted traced/ { want[$2] = 1; next }
       want[$2] && / syscall / { sub(/^[0-9]* /, ""); print; delete want[$2] }' "$1"
}

calls_in() { "$deja" dump "$1" | sed -n 's/.* sbuf \([0-9]*\) calls\{0,1\} (.*/\1/p' | awk '{ s += $1 } END { print s + 0 }'; }

case "$mode" in
used)
  "$deja" record -o "$tmp/on" "$@" >"$tmp/on.out" 2>"$tmp/on.err" || fail "record exited $?: $(tail -n 3 "$tmp/on.err")"
  n=$(calls_in "$tmp/on")
  [ "$n" -ge 1000 ] || fail "recording $* buffered $n system calls, expected at least 1000 (deja dump shows none in sbuf events)"
  "$deja" replay -a -q "$tmp/on" 2>"$tmp/on.rerr" || fail "replay of the buffered recording exited $?: $(tail -n 3 "$tmp/on.rerr")"
  "$deja" record -n -o "$tmp/off" "$@" >"$tmp/off.out" 2>"$tmp/off.err" || fail "record -n exited $?: $(tail -n 3 "$tmp/off.err")"
  n=$(calls_in "$tmp/off")
  [ "$n" -eq 0 ] || fail "record -n buffered $n system calls, expected none"
  "$deja" dump "$tmp/off" | grep -q ' sbuf ' && fail "record -n wrote sbuf events"
  "$deja" replay -a -q "$tmp/off" 2>"$tmp/off.rerr" || fail "replay of the -n recording exited $?: $(tail -n 3 "$tmp/off.rerr")"
  ;;
restarted | restarted-write)
  call=read
  [ "$mode" = restarted-write ] && call=write
  "$deja" record -o "$tmp/t" "$@" >"$tmp/out" 2>"$tmp/rec.err" || fail "record exited $?: $(tail -n 3 "$tmp/rec.err")"
  "$deja" dump "$tmp/t" >"$tmp/dump" || fail "deja dump failed"
  restarted_results "$tmp/dump" | grep -q " $call(" \
    || fail "no buffered $call was restarted as a traced one: $(grep -c ' sbuf ' "$tmp/dump") sbuf events"
  "$deja" replay -a -q "$tmp/t" 2>"$tmp/rep.err" || fail "replay exited $?: $(tail -n 3 "$tmp/rep.err")"
  ;;
buffered)
  name=$1 min=$2
  shift 2
  "$deja" record -o "$tmp/t" "$@" >"$tmp/out" 2>"$tmp/rec.err" || fail "record exited $?: $(tail -n 3 "$tmp/rec.err")"
  n=$("$deja" dump "$tmp/t" | grep ' sbuf ' | grep -o " $name=" | wc -l)
  [ "$n" -ge "$min" ] || fail "recording $* buffered $n $name calls, expected at least $min"
  "$deja" replay -a -q "$tmp/t" 2>"$tmp/rep.err" || fail "replay exited $?: $(tail -n 3 "$tmp/rep.err")"
  ;;
dump)
  text=$1 min=$2
  shift 2
  "$deja" record -o "$tmp/t" "$@" >"$tmp/out" 2>"$tmp/rec.err" || fail "record exited $?: $(tail -n 3 "$tmp/rec.err")"
  n=$("$deja" dump "$tmp/t" | grep -cF -- "$text")
  [ "$n" -ge "$min" ] || fail "deja dump of $* shows $n lines with '$text', expected at least $min"
  "$deja" replay -a -q "$tmp/t" 2>"$tmp/rep.err" || fail "replay exited $?: $(tail -n 3 "$tmp/rep.err")"
  ;;
output)
  name=$1 min=$2
  shift 2
  "$@" >"$tmp/native.out" 2>"$tmp/native.err" || fail "$* exited $? when run natively"
  for how in buffer nobuf; do
    args=()
    [ "$how" = nobuf ] && args=(-n)
    # stdout is a pipe (not a file: the library polls it before a write)
    { "$deja" record "${args[@]}" -o "$tmp/$how" "$@" 2>"$tmp/$how.err"; echo $? >"$tmp/$how.status"; } \
      | cat >"$tmp/$how.out"
    [ "$(cat "$tmp/$how.status")" = 0 ] || fail "record ($how) exited $(cat "$tmp/$how.status"): $(tail -n 3 "$tmp/$how.err")"
    cmp -s "$tmp/native.out" "$tmp/$how.out" || fail "the recorded program's stdout ($how) differs from a native run's"
    "$deja" dump "$tmp/$how" >"$tmp/$how.dump" || fail "deja dump ($how) failed"
    n=$(grep ' sbuf ' "$tmp/$how.dump" | grep -o " $name=" | wc -l)
    if [ "$how" = buffer ]; then
      [ "$n" -ge "$min" ] || fail "recording $* buffered $n $name calls, expected at least $min"
      for stream in stdout stderr; do
        grep ' sbuf ' "$tmp/$how.dump" | grep -q "output to $stream (" \
          || fail "no sbuf event of the recording keeps output to $stream"
      done
    else
      [ "$n" -eq 0 ] || fail "record -n buffered $n $name calls, expected none"
    fi
    "$deja" replay -a "$tmp/$how" >"$tmp/$how.rout" 2>"$tmp/$how.rerr" \
      || fail "replay ($how) exited $?: $(tail -n 3 "$tmp/$how.rerr")"
    cmp -s "$tmp/native.out" "$tmp/$how.rout" \
      || fail "replay ($how) wrote other stdout than the program: $(cmp "$tmp/native.out" "$tmp/$how.rout")"
    grep -v '^deja: ' "$tmp/$how.rerr" >"$tmp/$how.rerr.prog"
    cmp -s "$tmp/native.err" "$tmp/$how.rerr.prog" \
      || fail "replay ($how) wrote other stderr than the program: $(cmp "$tmp/native.err" "$tmp/$how.rerr.prog")"
  done
  ;;
futex)
  "$deja" record -o "$tmp/t" "$@" >"$tmp/out" 2>"$tmp/rec.err" || fail "record exited $?: $(tail -n 3 "$tmp/rec.err")"
  "$deja" dump "$tmp/t" >"$tmp/dump" || fail "deja dump failed"
  n=$(grep ' sbuf ' "$tmp/dump" | grep -o ' futex=' | wc -l)
  [ "$n" -ge 1000 ] || fail "$n buffered futex calls, expected at least 1000"
  restarted_results "$tmp/dump" >"$tmp/restarted"
  grep -q ' futex(.*) = 0$' "$tmp/restarted" \
    || fail "no blocked futex wait was restarted as a traced one and woken"
  grep -q ' futex(.*) = -110$' "$tmp/restarted" \
    || fail "no blocked timed futex wait was restarted as a traced one and timed out (ETIMEDOUT)"
  "$deja" replay -a -q "$tmp/t" 2>"$tmp/rep.err" || fail "replay exited $?: $(tail -n 3 "$tmp/rep.err")"
  ;;
mmap-diverge)
  edit=$1
  shift
  "$deja" record -o "$tmp/t" "$@" >/dev/null 2>"$tmp/rec.err" || fail "record exited $?: $(tail -n 3 "$tmp/rec.err")"
  line=$("$deja" dump "$tmp/t" | grep -m1 ' sbuf .* mmap=')
  [ -n "$line" ] || fail "no buffered mmap in the recording"
  ev=${line%% *}
  calls=${line#*: }
  n=0
  for c in $calls; do
    n=$((n + 1))
    case "$c" in mmap=*) break ;; esac
  done
  "$edit" "$tmp/t" "$ev" call-result "$n" 0x555555554000 || fail "trace_edit failed"
  "$deja" replay -a -q "$tmp/t" 2>"$tmp/rep.err"
  status=$?
  [ $status -eq 3 ] || fail "replay exited $status, expected 3 (divergence); stderr: $(cat "$tmp/rep.err")"
  grep -q "mmap returned -17 (.*) in replay, recorded 93824992231424 (0x555555554000)" "$tmp/rep.err" \
    || fail "the divergence message does not name the mmap and its addresses: $(cat "$tmp/rep.err")"
  ;;
diverge)
  "$deja" record -o "$tmp/t" "$@" >/dev/null 2>"$tmp/rec.err" || fail "record exited $?: $(tail -n 3 "$tmp/rec.err")"
  "$deja" replay -a -q "$tmp/t" 2>"$tmp/rep.err"
  status=$?
  [ $status -eq 3 ] || fail "replay exited $status, expected 3 (divergence); stderr: $(cat "$tmp/rep.err")"
  grep -q "recorded getuid .*replay made geteuid" "$tmp/rep.err" \
    || fail "the divergence message does not name the calls: $(cat "$tmp/rep.err")"
  ;;
*) fail "unknown mode $mode" ;;
esac
echo "PASS"
