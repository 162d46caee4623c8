#!/usr/bin/env bash
# rdtsc where the kernel does not trap it (src/task/tsc_patch.h):
#   - a recording says it patched rdtsc (the trace's `rdtsc` file, one line of deja dump)
#     exactly when this machine does not trap rdtsc (TSC_TRAPS prints "runs");
#   - with DEJA_TSC_PATCH=1 (patching even where the kernel traps) PROGRAM is recorded
#     twice; each recording says so, replays with the recorded output, and holds an
#     insn event for each of its rdtsc/rdtscp (at least MIN_INSNS); the two differ;
#   - with DEJA_TSC_PATCH=0 the recording says nothing.
# usage: tsc_patch_test.sh DEJA TSC_TRAPS MIN_INSNS PROGRAM [ARG...]
set -u
deja=$1 tsc_traps=$2 min_insns=$3
shift 3
tmp=$(mktemp -d /tmp/deja-tsc-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

record() { # NAME PROGRAM...: records PROGRAM into $tmp/NAME
  local name=$1
  shift
  "$deja" record -o "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
    fail "record ($name) exited $?: $(tail -n 3 "$tmp/$name.err")"
}
says_patched() { # NAME: the trace's note and deja dump's line agree; 0 when patched
  local note=no line=no
  [ -f "$tmp/$1/rdtsc" ] && grep -q '^patched$' "$tmp/$1/rdtsc" && note=yes
  "$deja" dump "$tmp/$1" >"$tmp/$1.dump" 2>"$tmp/$1.dump.err" || fail "dump ($1) exited $?"
  grep -q 'rdtsc and rdtscp were patched into traps' "$tmp/$1.dump.err" && line=yes
  [ "$note" = "$line" ] ||
    fail "$1: the trace's rdtsc note says $note, deja dump's line says $line: $(cat "$tmp/$1.dump.err")"
  [ "$note" = yes ]
}

kind=$("$tsc_traps") || fail "$tsc_traps failed"
echo "this machine: rdtsc $kind after PR_SET_TSC"

record plain "$@"
if [ "$kind" = runs ]; then
  says_patched plain || fail "the kernel does not trap rdtsc here, but the recording did not patch it"
else
  says_patched plain && fail "the kernel traps rdtsc here, but the recording patched it"
fi

for n in 1 2; do
  DEJA_TSC_PATCH=1 record "forced$n" "$@"
  says_patched "forced$n" || fail "DEJA_TSC_PATCH=1: recording $n did not patch rdtsc"
  "$deja" replay -a "$tmp/forced$n" >"$tmp/forced$n.rout" 2>"$tmp/forced$n.rerr" ||
    fail "replay of recording $n exited $?: $(grep deja: "$tmp/forced$n.rerr" | tail -n 3)"
  cmp -s "$tmp/forced$n.out" "$tmp/forced$n.rout" || fail "replay of recording $n: stdout differs"
  insns=$(grep -c ' insn at ' "$tmp/forced$n.dump")
  [ "$insns" -ge "$min_insns" ] ||
    fail "recording $n holds $insns insn events, expected at least $min_insns (one per rdtsc)"
done
cmp -s "$tmp/forced1.out" "$tmp/forced2.out" && fail "two recordings printed the same counters"

DEJA_TSC_PATCH=0 record off "$@"
says_patched off && fail "DEJA_TSC_PATCH=0: the recording patched rdtsc"
echo "PASS"
