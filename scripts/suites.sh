#!/usr/bin/env bash
# Real projects' own test suites and builds under deja (issue 29), as a user would try
# them: each case runs natively, then recorded, then replayed (`deja replay -a`), and one
# line says whether the recording ended as the native run did (exit status), whether the
# replay succeeded and whether it printed exactly what the recording printed.
#   python: modules of the Python regression suite (the `test` package: pyenv's builds
#           have it, Debian's python3 needs libpython3.X-testsuite)
#   build:  `make -j2` of deja's own source tree (a C project of ~200 files, configured
#           natively with cmake, built recorded)
#   shell:  a shell harness: the suite's own shell drivers' kind of script, many small
#           processes, pipes, traps, background jobs and waits
# Usage: scripts/suites.sh BUILD_DIR [python|build|shell ...]   (default: all three)
# SUITES_PYTHON: the interpreter (default: the first python3 on PATH with `test.test_os`).
# SUITES_PY_MODULES: the modules to run (default: the list below).
# It reports; it exits 1 only when a case differs, 2 when it cannot run.
set -u
build_dir=$(readlink -f "${1:-build}")
shift || true
deja="$build_dir/bin/deja"
repo_dir=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "suites: $*" >&2; exit 2; }
[ -x "$deja" ] || die "no deja binary at $deja; run 'make' first"
work=$(mktemp -d /tmp/deja-suites-XXXXXX) || die "cannot create a temp directory"
trap 'rm -rf "$work"' EXIT
export DEJA_TRACE_DIR="$work/traces"
mkdir -p "$DEJA_TRACE_DIR"
differ=0

seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# Runs one case NAME DIR PREPARE COMMAND...: native, recorded, replayed; prints its
# line. PREPARE (a shell command run in DIR) runs before the native run and the recording.
run_case() {
    local name=$1 dir=$2 prepare=$3
    shift 3
    local t="$DEJA_TRACE_DIR/$name" start mid end native recorded replayed verdict
    (cd "$dir" && eval "$prepare")
    start=$(date +%s.%N)
    (cd "$dir" && "$@") >"$work/native.out" 2>&1
    native=$?
    (cd "$dir" && eval "$prepare")
    mid=$(date +%s.%N)
    (cd "$dir" && "$deja" record -o "$t" "$@") >"$work/record.out" 2>"$work/record.err"
    recorded=$?
    end=$(date +%s.%N)
    "$deja" replay -a "$t" >"$work/replay.out" 2>"$work/replay.err"
    replayed=$?
    verdict=same
    if [ "$recorded" != "$native" ]; then
        verdict="RECORD EXIT $recorded (native $native): $(tail -n 1 "$work/record.err")"
    elif [ "$replayed" != 0 ]; then
        verdict="REPLAY FAILED ($replayed): $(grep -m 1 'deja' "$work/replay.err")"
    elif ! cmp -s "$work/record.out" "$work/replay.out"; then
        verdict="REPLAY OUTPUT DIFFERS from the recording's"
    fi
    [ "$verdict" = same ] || differ=1
    printf '%-24s %8s %8s  exit %-3s %s\n' "$name" "$(seconds "$start" "$mid")" \
        "$(seconds "$mid" "$end")" "$native" "$verdict"
    rm -rf "$t"
}

find_python() {
    local p
    for p in ${SUITES_PYTHON:-} $(which -a python3 python3.13 python3.12 python3.11 2>/dev/null); do
        # the interpreter itself, not a wrapper script (pyenv's shims are shell scripts)
        "$p" -c 'import sys, test.test_os, test.libregrtest; print(sys.executable)' 2>/dev/null &&
            return
    done
}

suite_python() {
    local py modules m
    py=$(find_python)
    if [ -z "$py" ]; then
        echo "python: skipped: no python3 with the regression suite (apt-get install libpython3-testsuite, or set SUITES_PYTHON)"
        return
    fi
    modules=${SUITES_PY_MODULES:-"test_epoll test_poll test_select test_selectors test_fcntl test_os
        test_threading test_thread test_queue test_subprocess test_signal test_socket test_mmap
        test_sqlite3 test_tempfile test_shutil test_time test_pty test_zlib test_json"}
    echo "python: $py ($("$py" --version 2>&1))"
    for m in $modules; do
        run_case "py:$m" "$work" true "$py" -m test -q "$m"
    done
}

suite_build() {
    local b="$work/deja-build"
    cmake -S "$repo_dir" -B "$b" -DCMAKE_BUILD_TYPE=Release >/dev/null 2>&1 ||
        { echo "build: skipped: cmake cannot configure $repo_dir"; return; }
    echo "build: make -j2 of $repo_dir (the deja target and its library)"
    make -C "$b" -s -j2 deja >/dev/null 2>&1 # warm the caches; each run builds from clean
    run_case "build:make-j2" "$b" "make -s clean" make -s -j2 deja
}

suite_shell() {
    cat >"$work/harness.sh" <<'SH'
# A test harness of the usual shape: each case in a subshell, results counted.
pass=0 fail=0
check() { if [ "$2" = "$3" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1: '$2' != '$3'"; fi; }
for i in $(seq 1 40); do
    check "pipe $i" "$(seq 1 $i | sort -rn | head -1)" "$i"
    check "subst $i" "$(echo "x$i" | sed 's/x//' | tr 0-9 a-j | wc -c)" "$(( ${#i} + 1 ))"
    ( sleep 0.00$((i % 7)); echo "$i" >"job.$i" ) &
done
wait
check jobs "$(cat job.* | sort -n | tail -1)" 40
trap 'echo trapped' USR1
kill -USR1 $$
check "here-doc" "$(cat <<EOF | awk '{s+=$1} END {print s}'
1
2
3
EOF
)" 6
tmp=$(mktemp); printf 'b\na\n' >"$tmp"; check "tmpfile" "$(sort "$tmp" | head -1)" a; rm -f "$tmp"
check "exit status" "$(sh -c 'exit 3'; echo $?)" 3
echo "passed $pass failed $fail"
SH
    echo "shell: a harness of $(grep -c check "$work/harness.sh") checks in sh"
    mkdir -p "$work/shell"
    run_case "shell:harness" "$work/shell" "rm -f job.*" sh "$work/harness.sh"
}

printf '%-24s %8s %8s  %s\n' case "native s" "record s" "result"
for suite in ${*:-python build shell}; do
    case "$suite" in
    python | build | shell) "suite_$suite" ;;
    *) die "unknown suite '$suite' (python, build or shell)" ;;
    esac
done
exit $differ
