#!/usr/bin/env bash
# A short guided tour of deja: record a program whose output depends on the time and on
# random data, look at the trace, then replay it twice and show the output is identical.
# Usage: scripts/demo.sh [PATH/TO/deja]     (default: build/bin/deja)
# Exits non-zero when any step fails.
set -euo pipefail

deja=${1:-build/bin/deja}
repo_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(dirname "$(dirname "$deja")")
demo="$build_dir/examples/demo"

die() { echo "demo: $*" >&2; exit 1; }
[ -x "$deja" ] || die "no deja binary at $deja; run 'make' first"

# Shows a command the way a tutorial would, with 'deja' standing for the real binary.
show() { echo; echo "\$ $*"; }

work=$(mktemp -d /tmp/deja-demo-work-XXXXXX) || die "cannot create a temp directory"
trap 'rm -rf "$work"' EXIT
export DEJA_TRACE_DIR="$work/traces"

echo "== Building the demo program (examples/demo.c)"
show gcc -g -O0 -o "$demo" examples/demo.c
mkdir -p "$(dirname "$demo")"
gcc -g -O0 -Wall -Wextra -D_GNU_SOURCE -o "$demo" "$repo_dir/examples/demo.c" \
    || die "compiling examples/demo.c failed"

echo
echo "== Run natively twice: the time, the random bytes and the temp file name change"
show "$demo"
"$demo" >"$work/native1.out" || die "the demo program failed natively"
cat "$work/native1.out"
show "$demo"
"$demo" >"$work/native2.out" || die "the demo program failed natively"
cat "$work/native2.out"

echo
echo "== Record one run (traces go to \$DEJA_TRACE_DIR=$DEJA_TRACE_DIR)"
show deja record "$demo"
"$deja" record "$demo" | tee "$work/recorded.out" || die "deja record failed"

show deja ps
"$deja" ps || die "deja ps failed"

show "deja dump | head -n 15"
"$deja" dump >"$work/dump.txt" || die "deja dump failed"
head -n 15 "$work/dump.txt"
echo "... ($(wc -l <"$work/dump.txt") events in all)"

echo
echo "== Replay twice without a debugger: the recorded time and random data come back"
for run in 1 2; do
    show deja replay -a
    "$deja" replay -a | tee "$work/replay$run.out" || die "deja replay (run $run) failed"
done

echo
for run in 1 2; do
    show cmp recorded.out replay$run.out
    if cmp "$work/recorded.out" "$work/replay$run.out"; then
        echo "replay $run: output identical to the recorded run"
    else
        die "replay $run printed something other than the recorded run"
    fi
done
if cmp -s "$work/native1.out" "$work/native2.out"; then
    echo "(the two native runs happened to print the same; the point stands for replays)"
else
    echo "The two native runs differed, but every replay prints exactly what was recorded."
fi
