#!/usr/bin/env bash
# How fast chaos mode finds bugs (`make chaos`). For each small flaky program
# (tests/programs/chaos_*.c: starvation of a worker, of the main thread and of a lone
# thread, a thread kept off the CPU inside a window of its run, wake-up races through a
# futex and a pipe, a core count and memory layouts the program assumes), it records
# HUNTS times with `deja record -h --until-failure=40` (or the limit the row names) and
# prints how many recordings each hunt needed (the median too); and it records the program
# PLAIN times without chaos mode, where it must never fail. Then how fast chaos mode
# records bench/syscalls.c's loop (goal: at most 4x native, best of 3).
# Usage: scripts/chaos_bench.sh [BUILD_DIR] [HUNTS] [PLAIN]   (defaults: build 5 20)
# Reports only; it exits non-zero when a program cannot run or fails without chaos mode.
set -u

build_dir=${1:-build}
hunts=${2:-5}
plain=${3:-20}
deja="$build_dir/bin/deja"
programs="$build_dir/tests/programs"

die() { echo "chaos bench: $*" >&2; exit 1; }
[ -x "$deja" ] || die "no deja binary at $deja; run 'make' first"
[ -x "$programs/chaos_starve_worker" ] || die "no test programs in $programs; run 'make' first"

DEJA_TRACE_DIR=$(mktemp -d /tmp/deja-chaos-bench-XXXXXX) || die "cannot create a temp dir"
export DEJA_TRACE_DIR
trap 'rm -rf "$DEJA_TRACE_DIR"' EXIT

workloads=(
    "chaos_starve_worker 2" "chaos_starve_worker 20" "chaos_starve_worker 100"
    "chaos_starve_worker 500"
    "chaos_starve_main 5" "chaos_starve_main 20" "chaos_starve_main 100" "chaos_starve_main 500"
    "chaos_starve_lone 50" "chaos_starve_lone 150" "chaos_starve_lone 500 1000"
    "chaos_wakeup_race futex" "chaos_wakeup_race pipe"
    "chaos_core_count" "chaos_mmap_adjacent"
    "chaos_starve_window 2 200 202" "chaos_starve_window 2 200 202 3"
    "12: chaos_starve_window 500 2000 2400" "12: chaos_starve_window 500 2000 2400 3"
    "chaos_mmap_bits" "chaos_mmap_below"
)

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'; }

# Prints the number of the run that failed, or "none".
hunt() {
    local err
    err=$("$deja" record "$@" 2>&1 >/dev/null)
    case $err in
    *"failed in run "*) echo "$err" | sed -n 's/.*failed in run \([0-9]*\).*/\1/p' | tail -1 ;;
    *"no run failed"*) echo none ;;
    *) echo "error: $(echo "$err" | tail -1)" ;;
    esac
    rm -rf "${DEJA_TRACE_DIR:?}"/*
}

status=0
printf '%-28s %12s %8s  %s\n' program "plain fails" median "recordings per hunt (chaos)"
for w in "${workloads[@]}"; do
    limit=40
    case $w in [0-9]*:*) limit=${w%%:*}; w=${w#*: } ;; esac
    read -r -a cmd <<<"$w"
    cmd[0]="$programs/${cmd[0]}"
    p=$(hunt --until-failure="$plain" "${cmd[@]}")
    if [ "$p" = none ]; then
        plain_fails="0/$plain"
    else
        plain_fails="run $p"
        status=1
    fi
    runs=()
    for _ in $(seq "$hunts"); do
        runs+=("$(hunt -h --until-failure=$limit "${cmd[@]}")")
    done
    med=$(printf '%s\n' "${runs[@]}" | sed "s/none/$((limit + 1))/" | median)
    [ "$med" = $((limit + 1)) ] && med=">$limit"
    printf '%-28s %12s %8s  %s\n' "$w" "$plain_fails" "$med" "${runs[*]}"
done

# The system-call loop (bench/syscalls.c, 200000 rounds) recorded under --chaos.
loop="$DEJA_TRACE_DIR/syscalls"
gcc -std=gnu11 -O2 -Wall -D_GNU_SOURCE -o "$loop" "$(dirname "$0")/../bench/syscalls.c" ||
    die "compiling bench/syscalls.c failed"
best() { sort -n | head -1; }
wall() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || return 1; e=$(date +%s.%N); echo "$s $e" | awk '{ printf "%.3f", $2 - $1 }'; }
natives=() chaos=()
for _ in 1 2 3; do
    natives+=("$(wall "$loop" 200000)")
    chaos+=("$(wall "$deja" record -h -o "$DEJA_TRACE_DIR/loop-trace" "$loop" 200000)") || die "recording the loop failed"
    rm -rf "$DEJA_TRACE_DIR/loop-trace"
done
n=$(printf '%s\n' "${natives[@]}" | best) c=$(printf '%s\n' "${chaos[@]}" | best)
ratio=$(awk -v a="$c" -v b="$n" 'BEGIN { printf "%.2f", a / b }')
verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 4) ? "met" : "NOT met" }')
echo "syscalls loop under --chaos: native $n s, record -h $c s (runs: ${chaos[*]}): ${ratio}x (goal <= 4x: $verdict)"
exit $status
