#!/usr/bin/env bash
# How fast chaos mode finds bugs (`make chaos`). For each small flaky program
# (tests/programs/chaos_*.c: starvation of a worker, of the main thread and of a lone
# thread, wake-up races through a futex and a pipe, a core count and a memory layout the
# program assumes), it records HUNTS times with `deja record -h --until-failure=40` and
# prints how many recordings each hunt needed (the median too); and it records the program
# PLAIN times without chaos mode, where it must never fail.
# Usage: scripts/chaos_bench.sh [BUILD_DIR] [HUNTS] [PLAIN]   (defaults: build 5 20)
# Reports only; it exits non-zero when a program cannot run or fails without chaos mode.
set -u

build_dir=${1:-build}
hunts=${2:-5}
plain=${3:-20}
deja="$build_dir/bin/deja"
programs="$build_dir/tests/programs"
limit=40

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
exit $status
