#!/usr/bin/env bash
# A forward continue onto a breakpoint hit late (bench/continue_bp.c: four threads compute
# for about a second, preempted in loops and libc's string functions, then late() is
# called once). Prints the seconds of the program natively (and its CPU time), of `deja
# replay -a`, of gdb's
# `continue` to the end without a breakpoint (every preempted stretch restored), and with
# `break late` (every stretch that may reach it runs for real, its state point found by a
# jump hook; without one it is tried on a forked copy first), and how many state points
# the recording has.
# Usage: scripts/bench_continue.sh [BUILD_DIR]
set -u
build_dir=${1:-build}
repo_dir=$(cd "$(dirname "$0")/.." && pwd)
deja="$build_dir/bin/deja"
work=$(mktemp -d /tmp/deja-bench-continue-XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
gcc -std=gnu11 -O2 -g -pthread -Wall -Wextra -Werror -o "$work/continue_bp" \
    "$repo_dir/bench/continue_bp.c" ||
    { echo "bench: compiling bench/continue_bp.c failed" >&2; exit 1; }

now() { date +%s.%N; }
d() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# the program's CPU time too: replay runs its threads one at a time
TIMEFORMAT='%U %S'
t0=$(now); cpu=$( { time "$work/continue_bp" >/dev/null; } 2>&1 | awk '{ printf "%.2f", $1 + $2 }'); t1=$(now)
DEJA_STATS=1 "$deja" record -o "$work/trace" "$work/continue_bp" >/dev/null 2>"$work/record.err" ||
    { echo "continue: recording failed: $(tail -n 1 "$work/record.err")"; exit 0; }
states=$(sed -n 's/.* events, \([0-9]*\) state points.*/\1/p' "$work/record.err")
t2=$(now); "$deja" replay -a -q "$work/trace" >/dev/null 2>&1; t3=$(now)
timeout 900 "$deja" replay -q "$work/trace" -- -batch -nx -ex continue >/dev/null 2>&1
t4=$(now)
timeout 900 "$deja" replay -q "$work/trace" -- -batch -nx -ex 'break late' -ex continue \
    >"$work/gdb.out" 2>&1
t5=$(now)
if ! grep -q "Breakpoint 1, late" "$work/gdb.out"; then
    echo "continue onto a late breakpoint: FAILED: gdb did not stop at late()"
    exit 0
fi
printf '\n%-34s %8s %8s %8s %14s %14s\n' "continue ($states state points)" "native s" \
    "CPU s" "replay s" "gdb continue s" "break, cont s"
printf '%-34s %8s %8s %8s %14s %14s\n' "4 threads, loops and libc strings" "$(d "$t0" "$t1")" \
    "$cpu" "$(d "$t2" "$t3")" "$(d "$t3" "$t4")" "$(d "$t4" "$t5")"
goal=$(awk -v c="$cpu" -v g="$(d "$t3" "$t4")" 'BEGIN { printf "%.2f", 2 * c + g }')
if awk -v b="$(d "$t4" "$t5")" -v g="$goal" 'BEGIN { exit !(b <= g) }'; then met=met; else met="NOT met"; fi
echo "goal: a continue onto a late breakpoint costs about one run of the stretches," \
     "one thread at a time (break, cont <= 2 x CPU + gdb continue = $goal s): $met"
