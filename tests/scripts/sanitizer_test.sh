#!/usr/bin/env bash
# Builds deja with AddressSanitizer and UBSan (DEJA_SANITIZE=ON) in BUILD_DIR and runs
# rr_test.sh with that deja on a few representative programs.
#
# usage: sanitizer_test.sh SOURCE_DIR BUILD_DIR
set -u

if [ $# -ne 2 ]; then
  echo "usage: sanitizer_test.sh SOURCE_DIR BUILD_DIR" >&2
  exit 2
fi
source_dir=$1
build_dir=$2
scripts=$(cd "$(dirname "$0")" && pwd)
programs="$build_dir/tests/programs"
fuzz_corpora=$(ls -d "$source_dir"/tests/fuzz/corpus/*)
fuzz_targets=$(for c in $fuzz_corpora; do echo "fuzz_$(basename "$c")_corpus"; done)

# DEJA_NO_SANITIZER_TEST keeps the nested build from registering this test again.
if ! cmake -S "$source_dir" -B "$build_dir" -DDEJA_SANITIZE=ON -DDEJA_NO_SANITIZER_TEST=ON \
    >"$build_dir.configure.log" 2>&1; then
  echo "FAIL: configuring the sanitizer build in $build_dir failed:" >&2
  tail -n 30 "$build_dir.configure.log" >&2
  exit 1
fi
if ! cmake --build "$build_dir" -j "$(nproc)" --target deja trace_edit hello file_io mmap_anon \
    tcp_loopback mt_condvar_pingpong mt_timer_compute pt_fork_wait sig_segv_siginfo \
    sig_sigsuspend_timer cpu_count_view $fuzz_targets >"$build_dir.build.log" 2>&1; then
  echo "FAIL: building deja with sanitizers in $build_dir failed:" >&2
  tail -n 30 "$build_dir.build.log" >&2
  exit 1
fi

# Any sanitizer report makes deja exit non-zero, which rr_test.sh reports.
export ASAN_OPTIONS="abort_on_error=0:exitcode=86:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=86:${UBSAN_OPTIONS:-}"

deja="$build_dir/bin/deja"
failed=0
run() {
  if ! "$scripts/rr_test.sh" --deja "$deja" --trace-edit "$build_dir/tests/tools/trace_edit" "$@"; then
    echo "FAIL (sanitizer build): $*" >&2
    failed=$((failed + 1))
  fi
}
run -- "$programs/hello"
run -- "$programs/file_io"
run -- "$programs/mmap_anon"
run -- "$programs/tcp_loopback"
run --repeat 2 -- "$programs/mt_condvar_pingpong"
run --repeat 2 -- "$programs/mt_timer_compute"
run -- "$programs/pt_fork_wait"
run -- "$programs/sig_segv_siginfo"
run -- "$programs/sig_sigsuspend_timer"
run --repeat 2 --record-arg -h -- "$programs/mt_timer_compute"
run --repeat 2 --record-arg -h -- "$programs/cpu_count_view"
run --differ -- /usr/bin/python3 -c \
  "import random, time, os; print(random.random(), time.time(), os.getpid(), os.urandom(8).hex())"

# A gdb session on a replay, with breakpoints, stepping, reverse-stepi and
# reverse-continue (moves to an arrival at a breakpoint), checkpoints (forks of the
# replay) and going back to them.
trace=$(mktemp -d)
"$deja" record -o "$trace/t" "$programs/file_io" >/dev/null 2>&1
out=$("$deja" replay "$trace/t" -- -batch -nx -iex 'set remotetimeout 60' -ex 'break main' \
      -ex continue -ex checkpoint -ex next -ex stepi -ex 'info registers rip' -ex reverse-stepi \
      -ex reverse-continue -ex 'restart 1' -ex 'delete checkpoint 1' -ex continue \
      -ex reverse-stepi -ex continue -ex continue 2>&1)
status=$?
# (the first continue stops before the process ends, the next one ends it)
if [ $status -ne 0 ] || ! printf '%s\n' "$out" | grep -q "received signal SIGKILL" ||
    ! printf '%s\n' "$out" | grep -q "exited normally"; then
  echo "FAIL (sanitizer build): gdb session on a replay (status $status):" >&2
  printf '%s\n' "$out" | tail -n 20 >&2
  failed=$((failed + 1))
fi
# The same with threads: a checkpoint while both players run, and going back to it
# (their threads recreated in the fork).
"$deja" record -o "$trace/m" "$programs/mt_condvar_pingpong" >/dev/null 2>&1
out=$("$deja" replay "$trace/m" -- -batch -nx -iex 'set remotetimeout 60' -ex 'break player' \
      -ex continue -ex continue -ex checkpoint -ex delete -ex 'catch syscall exit_group' \
      -ex continue -ex 'restart 1' -ex 'info threads' -ex delete -ex continue -ex continue 2>&1)
status=$?
rm -rf "$trace"
if [ $status -ne 0 ] || ! printf '%s\n' "$out" | grep -q "exited normally" ||
    [ "$(printf '%s\n' "$out" | grep -c '^[ *] [0-9]  *Thread ')" -ne 3 ]; then
  echo "FAIL (sanitizer build): gdb session with a checkpoint of threads (status $status):" >&2
  printf '%s\n' "$out" | tail -n 20 >&2
  failed=$((failed + 1))
fi
# The fuzz targets' corpora (tests/fuzz): an input that once read or wrote out of bounds
# fails here even where it does not crash the normal build.
for corpus in $fuzz_corpora; do
  name=$(basename "$corpus")
  if ! out=$("$build_dir/tests/fuzz/fuzz_${name}_corpus" "$corpus" 2>&1); then
    echo "FAIL (sanitizer build): the fuzz corpus $name:" >&2
    printf '%s\n' "$out" | tail -n 30 >&2
    failed=$((failed + 1))
  fi
done
if [ $failed -ne 0 ]; then
  echo "$failed sanitizer run(s) failed" >&2
  exit 1
fi
echo "all sanitizer runs passed"
