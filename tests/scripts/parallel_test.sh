#!/usr/bin/env bash
# Recording on several CPUs (record/record_slots.c, --cpus N): processes that share no memory run
# at the same time, those that share writable memory never do, and the program is told
# as many CPUs as deja records on. Reads the recorder's own account (DEJA_STATS=1: "tasks
# of different processes ran at once for S s").
# usage: parallel_test.sh DEJA PAR_COMPUTE PAR_SHARED_MAP PAR_SEM
# Exits 77 (skipped, and says why) on a machine that gives deja one CPU.
set -u
deja=$1 compute=$2 shared=$3 sem=$4
tmp=$(mktemp -d /tmp/deja-parallel-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export DEJA_TRACE_DIR="$tmp/traces"
fail() { echo "FAIL: $*" >&2; exit 1; }
cpus=$(nproc)
if [ "$cpus" -lt 2 ]; then
  echo "SKIP: deja may use $cpus CPU here; recording on several CPUs needs two" >&2
  exit 77
fi
want=$((cpus < 64 ? cpus : 64))

# record NAME [deja record options] -- PROGRAM...: the trace at $tmp/NAME, stderr kept.
record() {
  local name=$1
  shift
  DEJA_STATS=1 "$deja" record -o "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
    { cat "$tmp/$name.err" >&2; fail "record ($name) failed"; }
  "$deja" replay -a "$tmp/$name" >"$tmp/$name.replay" 2>"$tmp/$name.replay.err" ||
    { cat "$tmp/$name.replay.err" >&2; fail "replay ($name) failed"; }
  cmp -s "$tmp/$name.out" "$tmp/$name.replay" || fail "replay ($name) printed other output"
}

# The seconds the recording of NAME says processes ran at once; "none" without the line.
overlap() {
  sed -n 's/^deja: stats: [0-9]* CPUs; tasks of different processes ran at once for \([0-9.]*\) s$/\1/p' \
    "$tmp/$1.err" | grep . || echo none
}

# Two processes that only compute run at once for most of their run.
record compute --cpus=$want -- "$compute" 200000000
s=$(overlap compute)
[ "$s" != none ] || { cat "$tmp/compute.err" >&2; fail "the recorder does not say it recorded on $want CPUs"; }
grep -q "stats: $want CPUs;" "$tmp/compute.err" || fail "the recorder did not use $want CPUs"
awk -v s="$s" 'BEGIN { exit !(s > 0.05) }' ||
  fail "two computing processes ran at once for $s s only: they were serialised"

# Processes sharing writable memory (a shared anonymous and a MAP_SHARED file mapping)
# never run at once; the lost updates between them replay exactly.
record shared --cpus=$want -- "$shared"
s=$(overlap shared)
[ "$s" = 0.000 ] || fail "processes sharing memory ran at once for $s s"
# ...also when a read-only shared mapping was made writable by mprotect (which the library
# otherwise buffers: with a shared mapping it is traced, so the recorder sees it).
record shared_later --cpus=$want -- "$shared" mprotect
s=$(overlap shared_later)
[ "$s" = 0.000 ] || fail "processes sharing memory made writable by mprotect ran at once for $s s"

# Processes sharing only semaphores of sem_open (deja makes their operations) run at once,
# but not without the buffer (-n: the library does not route them, glibc makes them).
record sem --cpus=$want -- "$sem" 500000
s=$(overlap sem)
awk -v s="$s" 'BEGIN { exit !(s > 0.05) }' ||
  fail "processes sharing only semaphores ran at once for $s s only: they were serialised"
record sem_nobuf --cpus=$want -n -- "$sem" 20000
s=$(overlap sem_nobuf)
[ "$s" = 0.000 ] || fail "with -n processes sharing semaphores ran at once for $s s"

# --cpus 1 records on one CPU as rr does; the default is every CPU deja may use.
record one --cpus 1 -- "$compute" 20000000
[ "$(overlap one)" = none ] || fail "--cpus 1 still recorded on several CPUs"
record default -- "$compute" 20000000
grep -q "stats: $want CPUs;" "$tmp/default.err" ||
  fail "without --cpus deja did not record on the $want CPUs it may use"

# The program is told as many CPUs as deja records on, wherever it looks.
record nproc --cpus=$want -- nproc
[ "$(cat "$tmp/nproc.out")" = "$want" ] || fail "nproc under deja says $(cat "$tmp/nproc.out"), not $want"
record online --cpus 1 -- getconf _NPROCESSORS_ONLN
[ "$(cat "$tmp/online.out")" = 1 ] || fail "with --cpus 1 the program sees $(cat "$tmp/online.out") CPUs online"
"$deja" record --cpus 0 true 2>"$tmp/bad.err" && fail "--cpus 0 was accepted"
grep -q -- "--cpus N needs a number of CPUs of at least 1, got \`0'" "$tmp/bad.err" ||
  fail "--cpus 0 did not say what is wrong: $(cat "$tmp/bad.err")"
echo "PASS: processes ran at once on $want CPUs, sharing ones one at a time"
