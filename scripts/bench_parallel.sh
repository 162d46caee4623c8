#!/usr/bin/env bash
# Recording on several CPUs (issue 30): workloads of several processes, each timed native,
# recorded on every CPU (--cpus $(nproc)) and with --cpus 1 (one CPU, as rr records), and
# replayed, best of 3 runs alternating the four; the goal next to each.
#   make_j2    make -j2 of a generated project of 24 C files (gcc -O2 -c each)
#   compute2   two processes that only compute (tests/programs/par_compute)
#   py_pool    a python3 multiprocessing pool of 2 workers mapping a computation
# Usage: scripts/bench_parallel.sh [BUILD_DIR]   (scripts/bench.sh runs it)
# It reports; it fails only when it cannot run.
set -u
build_dir=${1:-build}
deja="$build_dir/bin/deja"
runs=3
die() { echo "bench_parallel: $*" >&2; exit 1; }
[ -x "$deja" ] || die "no deja binary at $deja; run 'make' first"
compute="$build_dir/tests/programs/par_compute"
[ -x "$compute" ] || die "$compute is not built (make builds the test programs)"
work=$(mktemp -d /tmp/deja-bench-parallel-XXXXXX) || die "cannot create a temp directory"
trap 'rm -rf "$work"' EXIT
export DEJA_TRACE_DIR="$work/traces"
mkdir -p "$DEJA_TRACE_DIR" "$work/proj"

# The generated project: 24 files of a few functions each, one object per file.
for i in $(seq 1 24); do
    cat >"$work/proj/f$i.c" <<SRC
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct item$i { int key[32]; double weight; char name[48]; };
static int by_key$i(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
int f$i(int n) {
  struct item$i x;
  memset(&x, 0, sizeof x);
  for (int k = 0; k < 32; k++) x.key[k] = (n * k * $i) % 97;
  qsort(x.key, 32, sizeof x.key[0], by_key$i);
  snprintf(x.name, sizeof x.name, "item %d of %d", n, $i);
  return x.key[n % 32] + (int)strlen(x.name);
}
SRC
done
printf 'OBJS := $(patsubst %%.c,%%.o,$(wildcard f*.c))\nall: $(OBJS)\n%%.o: %%.c\n\tgcc -O2 -c $< -o $@\n' \
    >"$work/proj/Makefile"
cat >"$work/pool.py" <<'PY'
import multiprocessing as mp
def work(n):
    h = 0
    for i in range(n):
        h = (h * 31 + i) % 1000003
    return h
if __name__ == "__main__":
    with mp.Pool(2) as pool:
        print(sum(pool.map(work, [300000] * 16)))
PY

now() { date +%s.%N; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
# Runs "$@" (a make clean first for make_j2) quietly; prints its wall time.
time_run() {
    rm -f "$work"/proj/*.o
    local start end
    start=$(now)
    "$@" >/dev/null 2>"$work/last-stderr" || return 1
    end=$(now)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

names=(make_j2 compute2 py_pool)
goals=(1.3 1.15 1.5)
commands=("make -s -j2 -C $work/proj" "$compute 400000000" "/usr/bin/python3 $work/pool.py")
printf '%-9s %9s %9s %9s %9s %13s %13s %13s  %s\n' workload "native s" "record s" "1 CPU s" \
    "replay s" record/native 1-CPU/native replay/native "goal (record/native)"
for ((w = 0; w < ${#names[@]}; w++)); do
    read -r -a cmd <<<"${commands[w]}"
    nat="" rec="" one="" rep="" failure=""
    for ((run = 1; run <= runs; run++)); do
        rm -rf "$DEJA_TRACE_DIR/t"
        t=$(time_run "${cmd[@]}") || { failure="native run failed"; break; }
        nat=$(min "$nat" "$t")
        t=$(time_run "$deja" record --cpus=1 -o "$DEJA_TRACE_DIR/one" "${cmd[@]}") ||
            { failure="deja record --cpus 1 failed: $(tail -n 1 "$work/last-stderr")"; break; }
        one=$(min "$one" "$t")
        rm -rf "$DEJA_TRACE_DIR/one"
        t=$(time_run "$deja" record --cpus="$(nproc)" -o "$DEJA_TRACE_DIR/t" "${cmd[@]}") ||
            { failure="deja record failed: $(tail -n 1 "$work/last-stderr")"; break; }
        rec=$(min "$rec" "$t")
        t=$(time_run "$deja" replay -a -q "$DEJA_TRACE_DIR/t") ||
            { failure="deja replay failed: $(tail -n 1 "$work/last-stderr")"; break; }
        rep=$(min "$rep" "$t")
    done
    if [ -n "$failure" ]; then
        printf '%-9s FAILED: %s\n' "${names[w]}" "$failure"
        continue
    fi
    r=$(ratio "$rec" "$nat")
    verdict="NOT met"
    awk -v r="$r" -v g="${goals[w]}" 'BEGIN { exit !(r <= g) }' && verdict=met
    printf '%-9s %9s %9s %9s %9s %13s %13s %13s  <= %s: %s\n' "${names[w]}" "$nat" "$rec" "$one" \
        "$rep" "$r" "$(ratio "$one" "$nat")" "$(ratio "$rep" "$nat")" "${goals[w]}" "$verdict"
done
echo "recorded on $(nproc) CPUs (1 CPU: --cpus 1, as rr records); best of $runs runs each"
