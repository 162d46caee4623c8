#!/usr/bin/env bash
# deja query's goals (issue 31), each as a row: the measured time of the query, of a plain
# `deja replay -a -q` of the same trace (best of 3 each), their ratio and the goal.
#   writes  `deja query writes value` on bench/reverse.c (single-threaded: `value` written
#           once before and once after about one second of compute); goal <= 3x
#   calls   `deja query calls step` on bench/query_calls.c (`step` called 100 000 times
#           across about a second of compute); goal <= 5x
# Usage: scripts/bench_query.sh [BUILD_DIR]
set -u
build_dir=${1:-build}
repo_dir=$(cd "$(dirname "$0")/.." && pwd)
deja="$build_dir/bin/deja"
work=$(mktemp -d /tmp/deja-bench-query-XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
export DEJA_TRACE_DIR=$work

for name in reverse query_calls; do
    gcc -std=gnu11 -O2 -g -pthread -Wall -Wextra -Werror -D_GNU_SOURCE -o "$work/$name" \
        "$repo_dir/bench/$name.c" || { echo "bench: compiling bench/$name.c failed" >&2; exit 1; }
done

# The best of three wall-clock runs of "$@" (output discarded), in seconds; empty when a
# run fails.
best() {
    local best="" t0 t1 t
    for _ in 1 2 3; do
        t0=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || { echo ""; return; }
        t1=$(date +%s.%N)
        t=$(echo "$t1 - $t0" | bc)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
    done
    printf '%.3f' "$best"
}

# row NAME PROGRAM GOAL QUERY...: records PROGRAM, times the replay and the query.
row() {
    local name=$1 program=$2 goal=$3
    shift 3
    local trace="$work/$name"
    "$deja" record -o "$trace" "$work/$program" >/dev/null 2>&1 ||
        { printf '%-8s recording failed\n' "$name"; return; }
    local replay query ratio verdict
    replay=$(best "$deja" replay -a -q "$trace")
    query=$(best "$deja" query "$trace" "$@")
    if [ -z "$replay" ] || [ -z "$query" ]; then
        printf '%-8s the replay or the query failed\n' "$name"
        return
    fi
    ratio=$(printf "%.2f" "$(echo "scale=3; $query / $replay" | bc)")
    verdict="NOT met"
    [ "$(echo "$ratio <= $goal" | bc)" = 1 ] && verdict="met"
    printf '%-8s %9s %9s %7sx %7s  %s\n' "$name" "$replay" "$query" "$ratio" "<= ${goal}x" "$verdict"
}

echo
echo "deja query (issue 31): best of 3 wall-clock runs"
printf '%-8s %9s %9s %8s %7s  %s\n' query replay_s query_s ratio goal verdict
row writes reverse 3 writes value
row calls query_calls 5 calls step
exit 0
