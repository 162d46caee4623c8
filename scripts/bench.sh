#!/usr/bin/env bash
# Measures deja's recording and replay overhead on workloads built from bench/*.c
# (CPU-bound, system-call heavy, file mapping, two compute threads, futex-heavy threads:
# a contended lock, condition variable handoffs, a semaphore queue) and on real programs
# (tar czf, grep -r, git log -p, a python3 script), then the disk cost of ten recordings
# of one program and state points of a 500 MB process, reverse execution, processes
# recorded on several CPUs (scripts/bench_parallel.sh), queries (bench_query.sh) and a gdb
# continue onto a late breakpoint (bench_continue.sh).
# Prints one table row per workload with its goal beside it (record/native, issue 35), the
# replay's ratio, and where the recording's time goes: system calls traced (each two ptrace
# stops), instructions trapped (rdtsc, cpuid: one stop each), system call buffer flushes,
# state points per second of recording, and the replay time spent restoring them.
# Usage: scripts/bench.sh [BUILD_DIR]     (default: build; deja is BUILD_DIR/bin/deja)
# DEJA_RECORD_ARGS: extra `deja record` options (e.g. -n: without the system call
# buffer, which is on by default).
# BENCH_SYSCALLS_ITERATIONS: the syscalls workload's loop count (default 400000).
# BENCH_WORKLOADS: only these workloads (names as in the table, e.g. "grep_r python3"),
# without the disk, state point and reverse-execution parts (default: everything).
# The bench reports; it does not fail on slow numbers. It fails only when it cannot run.
set -u

build_dir=${1:-build}
repo_dir=$(cd "$(dirname "$0")/.." && pwd)
deja="$build_dir/bin/deja"
bench_bin="$build_dir/bench"
runs=3
cpu_goal=1.25

# Each program is a bench/NAME.c, built into $bench_bin/NAME; a workload runs one with
# arguments, against a goal for record/native ("-": none).
programs=(cpu syscalls mmap threads_cpu locks timed_handoff)
workloads=(cpu syscalls syscalls_20k mmap threads_cpu locks timed_handoff)
workload_commands=(cpu "syscalls ${BENCH_SYSCALLS_ITERATIONS:-400000}" "syscalls 20000" mmap
    threads_cpu locks timed_handoff)
workload_goals=("$cpu_goal" 2 2.5 - - - 2)
syscalls_goal=2
real_goal=1.5
startup_goal_ms=5
record_args=(${DEJA_RECORD_ARGS:-})

die() { echo "bench: $*" >&2; exit 1; }

[ -x "$deja" ] || die "no deja binary at $deja; run 'make' first"
mkdir -p "$bench_bin" || die "cannot create $bench_bin"
for name in "${programs[@]}"; do
    gcc -std=gnu11 -O2 -pthread -Wall -Wextra -Werror -D_GNU_SOURCE \
        -o "$bench_bin/$name" "$repo_dir/bench/$name.c" \
        || die "compiling bench/$name.c failed"
done

DEJA_TRACE_DIR=$(mktemp -d /tmp/deja-bench-XXXXXX) || die "cannot create a temp trace directory"
export DEJA_TRACE_DIR
trap 'rm -rf "$DEJA_TRACE_DIR"' EXIT

# Real programs (name and command line), run on inputs made here: a copy of
# /usr/include/linux as the source tree, this repository's history, a Python script.
work="$DEJA_TRACE_DIR/work"
mkdir -p "$work/tree" || die "cannot create $work"
cp -r /usr/include/linux "$work/tree/" || die "cannot copy /usr/include/linux"
cp "$repo_dir/bench/python_work.py" "$work/" || die "cannot copy bench/python_work.py"
real_names=(tar_czf grep_r git_log_p python3 gcc_c)
real_commands=(
    "tar czf $work/out.tgz -C $work tree"
    "grep -r -c define $work/tree"
    "git -C $repo_dir log -p -n 300"
    "/usr/bin/python3 $work/python_work.py"
    "gcc -O2 -c -o $work/reverse.o $repo_dir/bench/reverse.c"
)
real_goals=(1.5 2.5 1.5 1.5 1.5)
git -C "$repo_dir" rev-parse HEAD >/dev/null 2>&1 || die "$repo_dir is not a git repository"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

# Runs "$@" with its output into a file; prints its wall time, or returns non-zero on
# failure. Not /dev/null: a program's writes to a /dev/null of its own would then be
# writes to deja's stdout (the same file), which deja records as traced output.
time_run() {
    local start end
    start=$(now)
    "$@" >"$DEJA_TRACE_DIR/last-stdout" 2>"$DEJA_TRACE_DIR/last-stderr" || return 1
    end=$(now)
    elapsed "$start" "$end"
}

row_format='%-13s %9s %9s %9s %13s %6s %13s %8s %6s %8s %8s %12s %9s %9s\n'
printf "$row_format" workload "native s" "record s" "replay s" record/native goal \
    replay/native traced traps flushes events "trace bytes" "states/s" "restore s"

selected() { [ -z "${BENCH_WORKLOADS:-}" ] || [[ " $BENCH_WORKLOADS " == *" $1 "* ]]; }

cpu_record_ratio="" syscalls_ratios="" real_record_ratios="" replay_slower=""
for ((w = 0; w < ${#workloads[@]} + ${#real_names[@]}; w++)); do
    if ((w < ${#workloads[@]})); then
        name=${workloads[w]}
        goal=${workload_goals[w]}
        read -r -a command <<<"${workload_commands[w]}"
        command[0]="$bench_bin/${command[0]}"
    else
        name=${real_names[w - ${#workloads[@]}]}
        goal=${real_goals[w - ${#workloads[@]}]}
        read -r -a command <<<"${real_commands[w - ${#workloads[@]}]}"
    fi
    selected "$name" || continue
    trace="$DEJA_TRACE_DIR/$name"
    best_native="" best_record="" best_replay="" failure=""
    # Alternate native, record, replay so that machine noise hits all three alike.
    for ((run = 1; run <= runs; run++)); do
        rm -rf "$trace"
        t=$(time_run "${command[@]}") || { failure="native run failed"; break; }
        best_native=$(min "$best_native" "$t")
        t=$(time_run "$deja" record "${record_args[@]}" -o "$trace" "${command[@]}") \
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

    "$deja" dump "$trace" >"$DEJA_TRACE_DIR/dump" 2>/dev/null
    events=$(wc -l <"$DEJA_TRACE_DIR/dump")
    traced=$(grep -c '^[0-9]* tid=[0-9]* syscall ' "$DEJA_TRACE_DIR/dump")
    traps=$(grep -c '^[0-9]* tid=[0-9]* insn ' "$DEJA_TRACE_DIR/dump")
    flushes=$(grep -c '^[0-9]* tid=[0-9]* sbuf [0-9]' "$DEJA_TRACE_DIR/dump")
    trace_bytes=$(du -sB1 "$trace" | cut -f1)
    events_bytes=$(stat -c %s "$trace/events" 2>/dev/null || echo 0)
    states=$(grep -c ' state' "$DEJA_TRACE_DIR/dump")
    restore=$(sed -n 's/.*state points restored in \([0-9.]*\) s.*/\1/p' "$DEJA_TRACE_DIR/last-stderr" | tail -n 1)
    record_ratio=$(ratio "$best_record" "$best_native")
    replay_ratio=$(ratio "$best_replay" "$best_native")
    [ "$name" = cpu ] && cpu_record_ratio=$record_ratio
    if [ "$name" = syscalls ]; then
        syscalls_ratios="$record_ratio $replay_ratio"
        # Buffered calls, their records' bytes (32 per call plus the data the calls
        # returned), and the events file's bytes per buffered call.
        syscalls_sbuf=$(sed -n 's/.* sbuf \([0-9]*\) calls\{0,1\} (\([0-9]*\) bytes).*/\1 \2/p' \
            "$DEJA_TRACE_DIR/dump" | awk -v f="$events_bytes" '{ n += $1; b += $2 } END { if (n) printf "%d buffered calls, %.1f record bytes per call (%.1f of them data), %.2f trace bytes per call", n, b / n, b / n - 32, f / n; else print "no buffered calls" }')
    fi
    ((w >= ${#workloads[@]})) && real_record_ratios="$real_record_ratios $record_ratio"
    awk -v a="$best_replay" -v b="$best_record" 'BEGIN { exit !(a > b) }' \
        && replay_slower="$replay_slower $name"
    printf "$row_format" "$name" "$best_native" "$best_record" "$best_replay" "$record_ratio" \
        "$goal" "$replay_ratio" "$traced" "$traps" "$flushes" "$events" "$trace_bytes" \
        "$(ratio "$states" "$best_record")" "${restore:-0}"
    rm -rf "$trace"
done

# Start-up: `deja record /bin/true`, best of 5, in milliseconds, with DEJA_STATS's phases
# of the best run (set-up, the program's start, its run, finishing the trace).
startup() {
    local best_native="" best_record="" phases="" t i
    for ((i = 1; i <= 5; i++)); do
        t=$(time_run /bin/true) || die "/bin/true failed"
        best_native=$(min "$best_native" "$t")
        t=$(DEJA_STATS=1 time_run "$deja" record "${record_args[@]}" -o "$DEJA_TRACE_DIR/startup-$i" /bin/true) \
            || die "deja record /bin/true failed: $(tail -n 1 "$DEJA_TRACE_DIR/last-stderr")"
        if [ "$(min "$best_record" "$t")" != "$best_record" ]; then
            best_record=$t
            phases=$(sed -n 's/.*stats: \([0-9.]*\) ms setting up.*, \([0-9.]*\) ms starting.*, \([0-9.]*\) ms recording.*, \([0-9.]*\) ms finishing.*/set-up \1, start \2, run \3, finish \4 ms/p' "$DEJA_TRACE_DIR/last-stderr")
        fi
    done
    "$deja" dump "$DEJA_TRACE_DIR/startup-1" >"$DEJA_TRACE_DIR/dump" 2>/dev/null
    local traced traps ms native_ms verdict="NOT met"
    traced=$(grep -c '^[0-9]* tid=[0-9]* syscall ' "$DEJA_TRACE_DIR/dump")
    traps=$(grep -c '^[0-9]* tid=[0-9]* insn ' "$DEJA_TRACE_DIR/dump")
    ms=$(awk -v t="$best_record" 'BEGIN { printf "%.1f", t * 1000 }')
    native_ms=$(awk -v t="$best_native" 'BEGIN { printf "%.1f", t * 1000 }')
    awk -v m="$ms" -v g="$startup_goal_ms" 'BEGIN { exit !(m <= g) }' && verdict=met
    echo "start-up: deja record /bin/true $ms ms (native $native_ms ms; goal <= $startup_goal_ms ms: $verdict);" \
        "$traced system calls traced and $traps instructions trapped before the buffer is on; ${phases:-no phases}"
    rm -rf "$DEJA_TRACE_DIR"/startup-*
}
selected startup && { echo; startup; }

# Traces at any size, at little disk cost (issue 11).
disk_and_state_points() {
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
}
[ -z "${BENCH_WORKLOADS:-}" ] && disk_and_state_points

echo
echo "times: best of $runs wall-clock runs; trace bytes: disk used by the trace directory (du);"
echo "traced: system calls recorded at ptrace stops (two each); traps: rdtsc/cpuid trapped (one stop"
echo "each); flushes: system call buffer flushes (one stop each, more when a buffered call blocked)."
if [ -z "$cpu_record_ratio" ]; then
    echo "goal: record/native <= $cpu_goal for cpu-bound: NOT met (the cpu workload did not run)"
elif awk -v r="$cpu_record_ratio" -v g="$cpu_goal" 'BEGIN { exit !(r <= g) }'; then
    echo "goal: record/native <= $cpu_goal for cpu-bound: met ($cpu_record_ratio)"
else
    echo "goal: record/native <= $cpu_goal for cpu-bound: NOT met ($cpu_record_ratio)"
fi
if [ -n "$syscalls_ratios" ]; then
    set -- $syscalls_ratios
    verdict="met"
    awk -v a="$1" -v b="$2" -v g="$syscalls_goal" 'BEGIN { exit !(a <= g && b <= g) }' || verdict="NOT met"
    echo "goal: record and replay <= ${syscalls_goal}x native for syscalls: $verdict (record $1, replay $2)"
fi
[ -n "${syscalls_sbuf:-}" ] && echo "syscalls: $syscalls_sbuf (goal: <= 32 plus the data)"
geomean=$(echo "$real_record_ratios" | awk '{ s = 0; n = 0; for (i = 1; i <= NF; i++) if ($i > 0) { s += log($i); n++ }
    if (n) printf "%.2f", exp(s / n); else print "-" }')
if awk -v m="$geomean" -v g="$real_goal" 'BEGIN { exit !(m != "-" && m <= g) }'; then
    echo "goal: geometric mean of record/native <= $real_goal for real programs: met ($geomean)"
else
    echo "goal: geometric mean of record/native <= $real_goal for real programs: NOT met ($geomean)"
fi
if [ -z "$replay_slower" ]; then
    echo "goal: each workload's replay no slower than its record: met"
else
    echo "goal: each workload's replay no slower than its record: NOT met ($replay_slower )"
fi
[ -z "${BENCH_WORKLOADS:-}" ] && "$repo_dir/scripts/bench_reverse.sh" "$build_dir"
[ -z "${BENCH_WORKLOADS:-}" ] && "$repo_dir/scripts/bench_continue.sh" "$build_dir"
# Processes recorded on several CPUs at once, against one CPU (issue 30).
[ -z "${BENCH_WORKLOADS:-}" ] && { echo; "$repo_dir/scripts/bench_parallel.sh" "$build_dir"; }
[ -z "${BENCH_WORKLOADS:-}" ] && "$repo_dir/scripts/bench_query.sh" "$build_dir"
exit 0
