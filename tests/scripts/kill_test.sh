#!/bin/sh
# A killed recorder or replayer leaves nothing running (issue 33). kill_tree (threads
# spinning and sleeping, a forked child, a setsid'ed daemon, optionally a PID namespace
# with a daemon of its own, optionally deaf to SIGINT/TERM/HUP) is recorded or replayed,
# deja is sent SIGNAL, and every process of the tree (and the gdb deja started) must be
# gone within a bounded time.
#   record: SIGKILL ends deja and the tree at once. SIGINT/SIGTERM/SIGHUP go on to the
#     program (its main process dies of it, unless deaf; the rest of the tree lives on);
#     a second one ends the recording: deja kills the tree, exits 128+N, and the trace
#     replays up to there, saying the recording was stopped.
#   replay (-s unix:PATH, waiting for gdb at an event where the whole tree exists) and
#   replay-gdb (the gdb deja starts, connected): any of the four signals ends deja, the
#     replayed tree and that gdb.
# usage: kill_test.sh DEJA KILL_TREE record|replay|replay-gdb KILL|TERM|INT|HUP tree|pidns|deaf
set -u
[ -n "${TRACE_STEPS:-}" ] && set -x
deja=$1 prog=$2 target=$3 sig=$4 shape=$5
tmp=$(mktemp -d /tmp/deja-kill.XXXXXX) || exit 1
marker="deja-kill-test-$$-$sig"
deja_pid=
cleanup() {
  [ -n "$deja_pid" ] && kill -KILL "$deja_pid" 2>/dev/null
  for p in $(tree_pids) $(cat "$tmp/tracees" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
  exec 3>&- 2>/dev/null
  [ -n "${KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $target, SIG$sig, $shape: $*"
  for f in "$tmp"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }; done
  exit 1
}

# The processes whose argv holds the marker (the recorded tree), deja aside.
tree_pids() { pgrep -f -- "$marker" | grep -vx "${deja_pid:-none}"; }
# The tasks deja traces (TracerPid), each as PID:STARTTIME so that a reused pid is not
# taken for a survivor.
traced_by() {
  grep -l "^TracerPid:[[:space:]]*$1\$" /proc/[0-9]*/status 2>/dev/null | while read -r f; do
    p=${f#/proc/}
    p=${p%/status}
    echo "$p:$(start_time "$p")"
  done
}
start_time() { { cut -d' ' -f22 "/proc/$1/stat"; } 2>/dev/null; }
alive() { # alive PID:STARTTIME...: those still running (zombies are gone enough)
  for ps in "$@"; do
    p=${ps%%:*}
    [ "$(start_time "$p")" = "${ps#*:}" ] || continue
    state=$({ awk '/^State:/ {print $2}' "/proc/$p/status"; } 2>/dev/null)
    [ -n "$state" ] && [ "$state" != Z ] && echo "$p"
  done
}
# wait_until SECONDS CMD...: polls CMD every 0.05 s until it succeeds; false at the end.
wait_until() {
  n=$(($1 * 20))
  shift
  while [ $n -gt 0 ]; do
    "$@" && return 0
    sleep 0.05
    n=$((n - 1))
  done
  return 1
}
# where PID: what a stuck deja waits for (its state, kernel wait channel, stack), for the report.
where() {
  echo "state $(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null), in $(cat "/proc/$1/wchan" 2>/dev/null), pending $(grep -E '^(ShdPnd|SigPnd)' "/proc/$1/status" 2>/dev/null | tr '\n\t' '  ')"
  timeout 20 gdb -batch -nx -p "$1" -ex "thread apply all bt" 2>/dev/null | grep -E '^#' | head -n 20
}
# delivered PID: no signal is pending for the process PID any more.
delivered() {
  awk '$1 == "ShdPnd:" || $1 == "SigPnd:" { if ($2 !~ /^0+$/) busy = 1 } END { exit busy }' \
    "/proc/$1/status" 2>/dev/null
}
printed() { grep -q "$1" "$2" 2>/dev/null; }
gone() { ! kill -0 "$1" 2>/dev/null; }
no_tree_left() { [ -z "$(tree_pids)" ]; }
none_alive() { [ -z "$(alive $(cat "$tmp/tracees"))" ]; }

signum() { case $1 in HUP) echo 1 ;; INT) echo 2 ;; KILL) echo 9 ;; TERM) echo 15 ;; esac; }

shape_args=
case $shape in
tree) ;;
pidns) shape_args=pidns ;;
deaf) shape_args=deaf ;;
*) echo "unknown shape $shape"; exit 2 ;;
esac

# record_tree: deja record of the tree in the background until it printed "ready".
record_tree() {
  "$deja" record -o "$tmp/t" "$prog" "$marker" $shape_args </dev/null >"$tmp/record.out" \
    2>"$tmp/record.err" &
  deja_pid=$!
  wait_until 60 printed ready "$tmp/record.out" || fail "the program never printed ready"
  grep -q "no PID namespace" "$tmp/record.out" && { echo "not run: no PID namespace here"; exit 77; }
  [ -n "$(tree_pids)" ] || fail "no process of the recorded tree found"
}

# stop_recording: sends the signal (twice unless KILL) and checks deja's end and status.
stop_recording() {
  for p in $(tree_pids); do echo "$p:$(start_time "$p")"; done >"$tmp/tracees"
  kill -"$sig" "$deja_pid"
  if [ "$sig" != KILL ]; then
    # The first goes to the program: deja records on (the daemon and child live on). The
    # second is sent once deja has taken the first (two pending ones would be one).
    wait_until 10 delivered "$deja_pid" || fail "deja did not take the first SIG$sig: $(where "$deja_pid")"
    sleep 0.2
    gone "$deja_pid" && fail "deja record ended at the first SIG$sig"
    kill -"$sig" "$deja_pid"
  fi
  wait_until 30 gone "$deja_pid" || fail "deja record still runs 30 s after SIG$sig: $(where "$deja_pid")"
  wait "$deja_pid"
  status=$?
  deja_pid=
  want=$((128 + $(signum "$sig")))
  [ "$status" = "$want" ] || fail "deja record exited $status, expected $want"
}

if [ "$target" = record ]; then
  record_tree
  stop_recording
  wait_until 30 no_tree_left || fail "left running after SIG$sig: $(tree_pids | tr '\n' ' ')"
  wait_until 10 none_alive || fail "left running after SIG$sig: $(alive $(cat "$tmp/tracees"))"
  # The trace replays up to the end of the recording.
  timeout 120 "$deja" replay -a "$tmp/t" >"$tmp/replay.out" 2>"$tmp/replay.err"
  status=$?
  if [ "$sig" = KILL ]; then
    [ $status -le 1 ] || fail "the replay of the trace of a killed recorder exited $status"
  else
    [ $status = 0 ] || fail "the trace does not replay (status $status)"
    grep -q "second time" "$tmp/record.err" || fail "deja record did not say why it stopped"
    grep -q "the recording was stopped" "$tmp/replay.err" ||
      fail "the replay does not say the recording was stopped"
    grep -q ready "$tmp/replay.out" || fail "the replay did not print ready"
  fi
  echo "PASS: $target, SIG$sig, $shape: nothing left running"
  exit 0
fi

# Replay: a trace of the whole tree, stopped by two SIGTERMs.
sig_wanted=$sig
sig=TERM
record_tree
stop_recording
wait_until 30 no_tree_left || fail "the recording left processes running"
sig=$sig_wanted
# The event after the tree's last clone: the whole tree exists in the replay there.
event=$("$deja" dump "$tmp/t" | awk '/ syscall (clone|clone3|fork|vfork)\(/ {n = $1} END {print n + 1}')
if [ "$target" = replay ]; then
  "$deja" replay -q -g "$event" -s "unix:$tmp/sock" "$tmp/t" </dev/null >"$tmp/replay.out" \
    2>"$tmp/replay.err" &
  deja_pid=$!
  wait_until 60 printed "listening for gdb" "$tmp/replay.err" || fail "deja replay -s never listened"
else
  mkfifo "$tmp/gdb.in"
  exec 3<>"$tmp/gdb.in" # gdb reads its commands from here: none come, it waits
  cat >"$tmp/gdb" <<GDB
#!/bin/sh
echo \$\$ >"$tmp/gdb.pid"
exec gdb -nx -q "\$@" -ex "echo $marker-connected\\\\n" <"$tmp/gdb.in" >"$tmp/gdb.out" 2>&1
GDB
  chmod +x "$tmp/gdb"
  "$deja" replay -q -g "$event" --debugger "$tmp/gdb" "$tmp/t" </dev/null >"$tmp/replay.out" \
    2>"$tmp/replay.err" &
  deja_pid=$!
  wait_until 60 printed "$marker-connected" "$tmp/gdb.out" || fail "gdb never connected"
fi
traced_by "$deja_pid" >"$tmp/tracees"
[ "$(wc -l <"$tmp/tracees")" -ge 3 ] || fail "only $(wc -l <"$tmp/tracees") replayed processes at event $event (expected the 3 of the tree and checkpoints)"
[ -f "$tmp/gdb.pid" ] && echo "$(cat "$tmp/gdb.pid"):$(start_time "$(cat "$tmp/gdb.pid")")" >>"$tmp/tracees"
kill -"$sig" "$deja_pid"
wait_until 30 gone "$deja_pid" || fail "deja replay still runs 30 s after SIG$sig: $(where "$deja_pid")"
wait "$deja_pid"
status=$?
deja_pid=
want=$((128 + $(signum "$sig")))
[ "$status" = "$want" ] || fail "deja replay exited $status, expected $want (killed by SIG$sig)"
wait_until 30 none_alive || fail "left running after SIG$sig: $(alive $(cat "$tmp/tracees") | tr '\n' ' ')"
echo "PASS: $target, SIG$sig, $shape: nothing left running"
