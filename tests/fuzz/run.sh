#!/bin/sh
# Runs every fuzz target of a DEJA_FUZZ build for SECONDS each, one after the other
# (`make fuzz`, FUZZ_SECONDS): each starts from its committed seed corpus
# (tests/fuzz/corpus/NAME) and a working corpus in BUILD/corpus/NAME that keeps what
# earlier runs found. A crash, leak, hang or sanitizer report stops with the input saved
# as BUILD/artifacts/NAME-crash-* (add it to the seed corpus as crash-* once fixed) and
# fails. Usage: run.sh BUILD SECONDS [NAME...]
set -u
BUILD=$1
SECONDS_EACH=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
names=${*:-$(cd "$HERE/corpus" && ls)}
mkdir -p "$BUILD/artifacts"
export UBSAN_OPTIONS="print_stacktrace=1:${UBSAN_OPTIONS:-}"
status=0
for name in $names; do
    bin=$BUILD/tests/fuzz/fuzz_$name
    [ -x "$bin" ] || { echo "fuzz: no target $bin" >&2; status=1; continue; }
    mkdir -p "$BUILD/corpus/$name"
    dict=
    [ -f "$HERE/$name.dict" ] && dict=-dict=$HERE/$name.dict
    # FUZZ_SEED: the same mutations every run (CI), so a landing does not hinge on luck
    [ -n "${FUZZ_SEED:-}" ] && dict="$dict -seed=$FUZZ_SEED"
    echo "fuzz: $name for ${SECONDS_EACH}s"
    # -timeout: a run over 10 s is a hang; -rss_limit_mb: a 2 GB run is a memory blow-up
    if ! "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$name-" $dict \
        "$BUILD/corpus/$name" "$HERE/corpus/$name" >"$BUILD/artifacts/$name.log" 2>&1; then
        echo "fuzz: $name FAILED (log: $BUILD/artifacts/$name.log):" >&2
        grep -E "^(==[0-9]+==|SUMMARY|fuzz oracle|.*runtime error)" "$BUILD/artifacts/$name.log" |
            head -5 >&2
        status=1
        continue
    fi
    grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+.*DONE" \
        "$BUILD/artifacts/$name.log" | sed "s/^/fuzz: $name: /"
done
exit $status
