#!/usr/bin/env bash
# Measures deja's recording and replay overhead on three workloads (bench/*.c), then
# the disk cost of ten recordings of one program and state points of a 500 MB process:
# CPU-bound, system-call heavy, file mapping, two compute threads, two threads contending for
# a lock. Prints one table row per workload, with state points (preemptions) per second of
# recording and the replay time spent restoring them.
# Usage: scripts/bench.sh [BUILD_DIR]     (default: build; deja is BUILD_DIR/bin/deja)
# The bench reports; it does not fail on slow numbers. It fails only when it cannot run.
set -u

build_dir=${1:-build}
repo_dir=$(cd "$(dirname "$0")/.." && pwd)
deja="$build_dir/bin/deja"
bench_bin="$build_dir/bench"
runs=3
cpu_goal=1.25

# Each name is a bench/NAME.c program, built into $bench_bin/NAME.
workloads=(cpu syscalls mmap threads_cpu locks)

die() { echo "bench: $*" >&2; exit 1; }

[ -x "$deja" ] || die "no deja binary at $deja; run 'make' first"
mkdir -p "$bench_bin" || die "cannot create $bench_bin"
for name in "${workloads[@]}"; do
    gcc -std=gnu11 -O2 -pthread -Wall -Wextra -Werror -D_GNU_SOURCE \
        -o "$bench_bin/$name" "$repo_dir/bench/$name.c" \
        || die "compiling bench/$name.c failed"
done

DEJA_TRACE_DIR=$(mktemp -d /tmp/deja-bench-XXXXXX) || die "cannot create a temp trace directory"
export DEJA_TRACE_DIR
trap 'rm -rf "$DEJA_TRACE_DIR"' EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

# Runs "$@" with output discarded; prints its wall time, or returns non-zero on failure.
time_run() {
    local start end
    start=$(now)
    "$@" >/dev/null 2>"$DEJA_TRACE_DIR/last-stderr" || return 1
    end=$(now)
    elapsed "$start" "$end"
}

printf '%-11s %9s %9s %9s %13s %13s %8s %12s %12s %9s %13s\n' \
    workload "native s" "record s" "replay s" record/native replay/native events \
    "trace bytes" "bytes/event" "states/s" "restore s"

cpu_record_ratio=""
for name in "${workloads[@]}"; do
    program="$bench_bin/$name"
    trace="$DEJA_TRACE_DIR/$name"
    best_native="" best_record="" best_replay="" failure=""
    # Alternate native, record, replay so that machine noise hits all three alike.
    for ((run = 1; run <= runs; run++)); do
        rm -rf "$trace"
        t=$(time_run "$program") || { failure="native run failed"; break; }
        best_native=$(min "$best_native" "$t")
        t=$(time_run "$deja" record -o "$trace" "$program") \
            || { failure="deja record failed: $(tail -n 1 "$DEJA_TRACE_DIR/last-stderr")"; break; }
        best_record=$(min "$best_record" "$t")
        t=$(DEJA_STATS=1 time_run "$deja" replay -a -q "$trace") \
            || { failure="deja replay failed: $(tail -n 1 "$DEJA_TRACE_DIR/last-stderr")"; break; }
        best_replay=$(min "$best_replay" "$t")
    done
    if [ -n "$failure" ]; then
        printf '%-9s %s\n' "$name" "FAILED: $failure"
        continue
    fi

    events=$("$deja" dump "$trace" | wc -l)
    trace_bytes=$(du -sB1 "$trace" | cut -f1)
    events_bytes=$(stat -c %s "$trace/events" 2>/dev/null || echo 0)
    states=$("$deja" dump "$trace" | grep -c ' state' || true)
    restore=$(sed -n 's/.*state points restored in \([0-9.]*\) s.*/\1/p' "$DEJA_TRACE_DIR/last-stderr" | tail -n 1)
    record_ratio=$(ratio "$best_record" "$best_native")
    [ "$name" = cpu ] && cpu_record_ratio=$record_ratio
    printf '%-11s %9s %9s %9s %13s %13s %8s %12s %12s %9s %13s\n' \
        "$name" "$best_native" "$best_record" "$best_replay" "$record_ratio" \
        "$(ratio "$best_replay" "$best_native")" "$events" "$trace_bytes" \
        "$(ratio "$events_bytes" "$events")" "$(ratio "$states" "$best_record")" "${restore:-0}"
    rm -rf "$trace"
done

# Traces at any size, at little disk cost (issue 11).
echo
ten_prog=(/usr/bin/python3 -c pass)
[ -x /usr/bin/python3 ] || ten_prog=("$bench_bin/cpu")
ten_dir="$DEJA_TRACE_DIR/ten"
mkdir -p "$ten_dir"
for ((i = 1; i <= 10; i++)); do
    DEJA_TRACE_DIR="$ten_dir" "$deja" record "${ten_prog[@]}" >/dev/null 2>&1 || die "recording ${ten_prog[*]} failed"
done
ten_kb=$(du -sk "$ten_dir" | cut -f1)
one_kb=$(du -sk "$(ls -d "$ten_dir"/*-0)" | cut -f1)
ten_ratio=$(ratio "$ten_kb" "$one_kb")
verdict="NOT met"; awk -v r="$ten_ratio" 'BEGIN { exit !(r <= 1.5) }' && verdict=met
echo "ten recordings of ${ten_prog[*]}: $ten_kb KiB on disk, one: $one_kb KiB; ratio $ten_ratio (goal <= 1.5: $verdict)"
rm -rf "$ten_dir"

heap_prog="$build_dir/tests/programs/big_heap_preempt"
if [ -x "$heap_prog" ]; then
    DEJA_STATS=1 "$deja" record -o "$DEJA_TRACE_DIR/heap" "$heap_prog" 500 >/dev/null 2>"$DEJA_TRACE_DIR/heap.err" \
        || die "recording big_heap_preempt 500 failed: $(tail -n 1 "$DEJA_TRACE_DIR/heap.err")"
    stats=$(grep 'stats:' "$DEJA_TRACE_DIR/heap.err")
    sp_s=$(sed -n 's/.*state points (\([0-9.]*\) s, .*/\1/p' <<<"$stats")
    sp_mb=$(sed -n 's/.* s, \([0-9.]*\) MB saved.*/\1/p' <<<"$stats")
    sp_n=$(sed -n 's/.* \([0-9]*\) state points.*/\1/p' <<<"$stats")
    peak_kb=$(sed -n "s/.*deja's peak memory \([0-9]*\) kB.*/\1/p" <<<"$stats")
    verdict="NOT met"; [ "${peak_kb:-999999}" -le 102400 ] && verdict=met
    echo "state points of a process with 500 MB written: $sp_n taking $sp_s s for $sp_mb MB ($(ratio "$sp_mb" "$sp_s") MB/s);" \
        "deja's peak memory $((${peak_kb:-0} / 1024)) MB (goal < 100 MB: $verdict)"
    rm -rf "$DEJA_TRACE_DIR/heap"
else
    echo "state point of a 500 MB process: NOT measured ($heap_prog is not built)"
fi

echo
echo "times: best of $runs wall-clock runs; trace bytes: disk used by the trace directory (du);"
echo "bytes/event: size of the trace's events file divided by the number of events."
if [ -z "$cpu_record_ratio" ]; then
    echo "goal: record/native <= $cpu_goal for cpu-bound: NOT met (the cpu workload did not run)"
elif awk -v r="$cpu_record_ratio" -v g="$cpu_goal" 'BEGIN { exit !(r <= g) }'; then
    echo "goal: record/native <= $cpu_goal for cpu-bound: met ($cpu_record_ratio)"
else
    echo "goal: record/native <= $cpu_goal for cpu-bound: NOT met ($cpu_record_ratio)"
fi
"$repo_dir/scripts/bench_reverse.sh" "$build_dir"
exit 0
