#!/bin/sh
# Consistency soak for reverse execution: records each PROGRAM, then replays it under gdb
# in three rounds of stops (its functions; the system calls it makes most, caught; `watch
# -l` on a global that changes), going forwards, back with reverse-continue and forwards
# again, with stepi/reverse-stepi pairs at each stop, and compares register and memory
# fingerprints (reverse_soak.py). Every difference is one line naming the program, the
# round, the stop and the registers or bytes that differ:
#   SOAK-DIFF: program=P round=R stop=N (what gdb said at it) phase: what differs
# A tool to run by hand over many programs (what it found became gdb tests: gdb_soak_*,
# gdb_watch_syscall). On a CPU without cpuid faulting the replay pins itself to the
# recorded CPU; a static glibc's copy of cpuid's answers is still not compared (below).
# Usage: reverse_soak.sh [--deja DEJA] [--rounds "functions calls watch"] [--stops N]
#            [--steps N] [--keep DIR] PROGRAM[:ARG,ARG...]...
# Exit status 0 when nothing differed, 1 otherwise, 2 on a usage error.
set -u

usage() {
    echo "usage: reverse_soak.sh [--deja DEJA] [--rounds LIST] [--stops N] [--steps N] [--keep DIR] PROGRAM[:ARG,ARG...]..." >&2
    exit 2
}
HERE=$(cd "$(dirname "$0")" && pwd)
DEJA=${DEJA:-deja}
ROUNDS="functions calls watch"
STOPS=8
STEPS=1
KEEP=
while [ $# -gt 0 ]; do
    case "$1" in
        --deja) DEJA=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --stops) STOPS=$2; shift 2 ;;
        --steps) STEPS=$2; shift 2 ;;
        --keep) KEEP=$2; shift 2 ;;
        --) shift; break ;;
        -*) usage ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || usage
command -v gdb >/dev/null 2>&1 || { echo "reverse_soak: gdb is not installed (apt-get install gdb)" >&2; exit 2; }

ulimit -c 0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/deja-soak.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
DEJA_TRACE_DIR=$WORK/traces
export DEJA_TRACE_DIR
total_diffs=0
failures=0

# functions_of PROGRAM: main and up to 12 text symbols around it by address (the
# program's own, in a static program too; the gdb script keeps 6, those with debug
# information first), else some of libc's.
functions_of() {
    names=$(nm -n --defined-only "$1" 2>/dev/null | awk '$2 ~ /^[tT]$/ && $3 !~ /^_/ && $3 !~ /\./ &&
            $3 !~ /^(frame_dummy|register_tm_clones|deregister_tm_clones)$/ { name[n++] = $3 }
        END {
            for (m = 0; m < n && name[m] != "main"; m++) ;
            if (m == n) exit
            print "main"
            for (i = m - 6; i <= m + 6; i++) if (i >= 0 && i < n && i != m) print name[i]
        }' | head -n 13)
    [ -n "$names" ] || names="malloc free write read"
    echo $names
}

# calls_of TRACE: the three traced system calls the trace has most of (not those gdb
# does not stop at backwards: exits, forks, execs, clones).
calls_of() {
    "$DEJA" dump "$1" 2>/dev/null | sed -n 's/^[0-9]* tid=[0-9]* syscall \([a-z0-9_]*\)(.*/\1/p' |
        grep -Ev '^(exit|exit_group|clone|clone3|fork|vfork|execve|execveat|rt_sigreturn)$' |
        sort | uniq -c | sort -rn | awk '{ print $2 }' | head -n 3 | tr '\n' ' '
}

# globals_of PROGRAM: its data objects of 1, 2, 4 or 8 bytes.
globals_of() {
    nm -S --defined-only "$1" 2>/dev/null | awk 'NF == 4 && $3 ~ /^[dDbB]$/ && $4 !~ /^_/ && $4 !~ /\./ &&
        ($2 == "0000000000000001" || $2 == "0000000000000002" || $2 == "0000000000000004" || $2 == "0000000000000008") { print $4 }' |
        head -n 40 | tr '\n' ' '
}

# ignored_of PROGRAM: ADDR:LEN of the bytes not compared: a static glibc's copy of cpuid's
# answers (the APIC id of the CPU it ran on, where cpuid cannot be made to fault and a
# virtual CPU moves between host CPUs).
ignored_of() {
    nm -S "$1" 2>/dev/null | awk '$4 == "_dl_x86_cpu_features" { print $1 ":" $2 }'
}

for spec in "$@"; do
    program=${spec%%:*}
    args=
    [ "$program" != "$spec" ] && args=$(echo "${spec#*:}" | tr ',' ' ')
    name=$(basename "$program")
    path=$(command -v "$program" 2>/dev/null || echo "$program")
    trace=$WORK/trace-$name
    rm -rf "$trace"
    # shellcheck disable=SC2086 # ARGs are split on purpose
    "$DEJA" record -o "$trace" "$path" $args >"$WORK/record.out" 2>"$WORK/record.err" </dev/null
    if [ ! -d "$trace" ]; then
        echo "SOAK-FAIL: program=$name: recording made no trace (deja record said: $(tail -n 3 "$WORK/record.err"))"
        failures=$((failures + 1))
        continue
    fi
    for round in $ROUNDS; do
        log=$WORK/$name.$round.log
        SOAK_PROGRAM=$name SOAK_ROUND=$round SOAK_STOPS=$STOPS SOAK_STEPS=$STEPS \
            SOAK_FUNCS=$(functions_of "$path") SOAK_CALLS=$(calls_of "$trace") \
            SOAK_GLOBALS=$(globals_of "$path") SOAK_IGNORE=$(ignored_of "$path") \
            timeout 900 "$DEJA" replay "$trace" -- -batch -nx -iex "set remotetimeout 120" \
            -x "$HERE/reverse_soak.py" >"$log" 2>&1 </dev/null
        status=$?
        grep -E '^(SOAK-DIFF|soak: watching|deja: )' "$log"
        done_line=$(grep '^SOAK-DONE: ' "$log")
        diffs=$(grep -c '^SOAK-DIFF: ' "$log")
        total_diffs=$((total_diffs + diffs))
        if [ -z "$done_line" ]; then
            echo "SOAK-FAIL: program=$name round=$round: the gdb script did not finish (deja replay exit status $status; 3 = divergence, 124 = timeout); last lines:"
            tail -n 15 "$log" | sed 's/^/    /'
            failures=$((failures + 1))
        elif [ "$status" -ne 0 ]; then
            echo "SOAK-FAIL: program=$name round=$round: deja replay exited with status $status (3 = divergence)"
            failures=$((failures + 1))
        else
            echo "$done_line"
        fi
        if [ -n "$KEEP" ]; then
            mkdir -p "$KEEP" && cp "$log" "$KEEP/"
        fi
    done
done
echo "reverse_soak: $# programs, $total_diffs differences, $failures failures"
[ "$total_diffs" -eq 0 ] && [ "$failures" -eq 0 ]
