#!/usr/bin/env bash
# Reverse execution workload (bench/reverse.c): `value` written once before and once after
# about one second of compute, single-threaded, with two threads computing past their
# time slices, and with two threads making a system call every 15 000 iterations (about
# 40 000 events), and single-threaded with the compute storing beside `value` three
# million times (`beside`: with watchpoints by page protection, the store hooks). A gdb
# session stops at exit, sets `watch -l value` and does two
# reverse-continues, each followed by a reverse-stepi right after its stop; prints the
# seconds each took. Then it takes 20 checkpoints (a stepi between two) and prints the
# resident memory of the session: deja, the replayed process and every checkpoint fork
# (their number), as the sum of their RSS (pages shared by forks counted in each) and of
# their PSS (shared pages divided among the sharers: what the forks cost). Last, a
# reverse-continue onto a breakpoint at the worker's write from the exit of the threads
# run (its preempted stretches may reach it), and two onto a conditional breakpoint
# (bench/cond_calls.c). The session
# starts at the last event (-g): a breakpoint set while the compute runs would make every
# preempted stretch run for real (`calls' continues there from the start instead, as a
# session that ran forwards under gdb does).
# Usage: scripts/bench_reverse.sh [BUILD_DIR]
set -u
build_dir=${1:-build}
repo_dir=$(cd "$(dirname "$0")/.." && pwd)
deja="$build_dir/bin/deja"
work=$(mktemp -d /tmp/deja-bench-reverse-XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
export DEJA_TRACE_DIR=$work
gcc -std=gnu11 -O2 -g -pthread -Wall -Wextra -Werror -D_GNU_SOURCE -o "$work/reverse" \
    "$repo_dir/bench/reverse.c" || { echo "bench: compiling bench/reverse.c failed" >&2; exit 1; }

# gdb prints the time around each command with `shell'; the differences are the costs.
cat >"$work/session.gdb" <<'GDB'
watch -l value
shell date +%s.%N
reverse-continue
shell date +%s.%N
reverse-stepi
shell date +%s.%N
reverse-continue
shell date +%s.%N
reverse-stepi
shell date +%s.%N
delete
GDB
for i in $(seq 20); do printf 'checkpoint\nstepi\n' >>"$work/session.gdb"; done
# gdb's shell's parent is gdb, whose parent is deja; deja's other children are the replayed
# process and the checkpoint forks
cat >>"$work/session.gdb" <<'GDB'
shell d=$(ps -o ppid= -p $PPID); n=0; rss=0; pss=0; for p in $d $(ps -o pid= --ppid $d); do [ $p = $PPID ] && continue; n=$((n+1)); rss=$((rss+$(awk '/^Rss:/ {print $2}' /proc/$p/smaps_rollup))); pss=$((pss+$(awk '/^Pss:/ {print $2}' /proc/$p/smaps_rollup))); done; echo "memory $n $rss $pss"
GDB

d() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
printf '\n%-16s %9s %9s %9s %9s %28s\n' "reverse workload" "1st bc s" "then bs s" "2nd bc s" \
    "then bs s" "processes RSS/PSS KiB (20 cp)"
for mode in single threads calls beside; do
    trace="$work/trace-$mode"
    arg=; [ "$mode" != single ] && arg=$mode
    "$deja" record -o "$trace" "$work/reverse" $arg >/dev/null 2>"$work/record.err" \
        || { echo "$mode: recording failed: $(tail -n 1 "$work/record.err")"; continue; }
    args=()
    # calls: gdb runs forwards to the exit (no breakpoint: nothing to run for real), so
    # the session has the checkpoints taken on the way, as after a plain `continue'
    start=(-g "$("$deja" dump "$trace" 2>/dev/null | wc -l)")
    [ "$mode" = calls ] && start=() && args=(-ex 'catch syscall exit_group' -ex continue -ex delete)
    while IFS= read -r l; do args+=(-ex "$l"); done <"$work/session.gdb"
    timeout 600 "$deja" replay -q "${start[@]}" "$trace" -- -batch -nx -iex "set remotetimeout 600" \
        "${args[@]}" >"$work/gdb.out" 2>&1
    times=($(grep -E '^[0-9]{9,}\.[0-9]+$' "$work/gdb.out"))
    mem=($(sed -n 's/^memory //p' "$work/gdb.out" | tail -n 1))
    if [ ${#times[@]} -lt 5 ] || ! grep -q 'Old value = 2' "$work/gdb.out"; then
        echo "$mode: FAILED: the gdb session did not go back to the writes"
        continue
    fi
    printf '%-16s %9s %9s %9s %9s %28s\n' "$mode" "$(d "${times[0]}" "${times[1]}")" \
        "$(d "${times[1]}" "${times[2]}")" "$(d "${times[2]}" "${times[3]}")" \
        "$(d "${times[3]}" "${times[4]}")" "${mem[0]:-?} ${mem[1]:-?}/${mem[2]:-?}"
done
echo "goal: each reverse-continue under 2 s; a reverse-stepi under 50 ms"

# A breakpoint instead of the watchpoint: from the exit of the two threads' run back onto
# the second write (after the worker's compute, past its preempted stretches, each of
# which may reach it: tried on a copy, stretch_probe.c)
line=$(grep -n 'value = 2; /\* the second write' "$repo_dir/bench/reverse.c" | cut -d: -f1)
trace="$work/trace-threads"
if [ -n "$line" ] && [ -d "$trace" ]; then
    timeout 900 "$deja" replay -q -g "$("$deja" dump "$trace" 2>/dev/null | wc -l)" "$trace" -- \
        -batch -nx -iex "set remotetimeout 900" -ex "break reverse.c:$line" \
        -ex 'shell date +%s.%N' -ex reverse-continue -ex 'shell date +%s.%N' \
        >"$work/gdb.out" 2>&1
    times=($(grep -E '^[0-9]{9,}\.[0-9]+$' "$work/gdb.out"))
    if [ ${#times[@]} -lt 2 ] || ! grep -q "Breakpoint 1, worker" "$work/gdb.out"; then
        echo "threads, breakpoint: FAILED: the gdb session did not go back to the write"
    else
        echo "threads, breakpoint: reverse-continue $(d "${times[0]}" "${times[1]}") s (goal: under 2 s)"
    fi
fi

# A conditional breakpoint (deja evaluates gdb's condition at each arrival): from the exit
# back onto the last two of 100 000 calls where it holds, all in one stretch
gcc -std=gnu11 -O0 -g -o "$work/cond_calls" "$repo_dir/bench/cond_calls.c" ||
    { echo "bench: compiling bench/cond_calls.c failed" >&2; exit 1; }
trace="$work/trace-cond"
if "$deja" record -o "$trace" "$work/cond_calls" >/dev/null 2>&1; then
    timeout 900 "$deja" replay -q -g "$("$deja" dump "$trace" 2>/dev/null | wc -l)" "$trace" -- \
        -batch -nx -iex "set remotetimeout 900" -ex 'break fib if n == 17' \
        -ex 'shell date +%s.%N' -ex reverse-continue -ex 'shell date +%s.%N' \
        -ex reverse-continue -ex 'shell date +%s.%N' >"$work/gdb.out" 2>&1
    times=($(grep -E '^[0-9]{9,}\.[0-9]+$' "$work/gdb.out"))
    if [ ${#times[@]} -lt 3 ] || [ "$(grep -c 'Breakpoint 1, fib (n=17)' "$work/gdb.out")" != 2 ]; then
        echo "conditional breakpoint: FAILED: the gdb session did not stop at fib(17) twice"
    else
        echo "conditional breakpoint (100 000 calls): 1st reverse-continue $(d "${times[0]}" "${times[1]}") s, 2nd $(d "${times[1]}" "${times[2]}") s"
    fi
else
    echo "conditional breakpoint: recording failed"
fi
