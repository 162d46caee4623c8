#!/usr/bin/env bash
# cpuid in the program interpreter answered without a trap (src/task/cpuid_patch.h):
#   - PROGRAM (tests/programs/cpuid_ldso: what ld.so learnt from cpuid) recorded with a
#     cold site cache, a warm one and a corrupt one: each exec event names a cpuid page
#     with sites, and each recording prints what a recording without patching
#     (DEJA_CPUID_PATCH=0) prints, with fewer trapped instructions;
#   - every recording replays with the recorded output;
#   - DEJA_CPUID_NATIVE=1 (cpuid not trapped) patches nothing.
# Where the CPU cannot fault cpuid nothing is patched: the test says so and checks that.
# usage: cpuid_patch_test.sh DEJA PROGRAM
set -u
deja=$1 program=$2
tmp=$(mktemp -d /tmp/deja-cpuid-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export XDG_CACHE_HOME=$tmp/cache

record() { # NAME: records PROGRAM into $tmp/NAME, dumps and replays it
  local name=$1
  "$deja" record -o "$tmp/$name" "$program" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
    fail "record ($name) exited $?: $(tail -n 3 "$tmp/$name.err")"
  "$deja" dump "$tmp/$name" >"$tmp/$name.dump" 2>/dev/null || fail "dump ($name) exited $?"
  "$deja" replay -a "$tmp/$name" >"$tmp/$name.rout" 2>"$tmp/$name.rerr" ||
    fail "replay ($name) exited $?: $(grep deja: "$tmp/$name.rerr" | tail -n 3)"
  cmp -s "$tmp/$name.out" "$tmp/$name.rout" || fail "replay ($name): stdout differs"
}
sites() { sed -n 's/.* cpuid page at 0x[0-9a-f]* for \([0-9]*\) sites:.*/\1/p' "$tmp/$1.dump" | head -n 1; }
insns() { grep -c ' insn at ' "$tmp/$1.dump"; }

DEJA_CPUID_PATCH=0 record off
[ -z "$(sites off)" ] || fail "DEJA_CPUID_PATCH=0: the exec event names a cpuid page"
record cold
if grep -q 'cannot trap cpuid' "$tmp/cold.err"; then
  [ -z "$(sites cold)" ] || fail "cpuid is not trapped here, yet the interpreter was patched"
  echo "PASS (this CPU cannot fault cpuid: nothing to patch)"
  exit 0
fi
ls "$XDG_CACHE_HOME"/deja/cpuid-sites-* >/dev/null 2>&1 || fail "no site cache file was written"
record warm
for f in "$XDG_CACHE_HOME"/deja/cpuid-sites-*; do
  head -c 4000 "$f" >"$f.cut" && printf 'garbage' >>"$f.cut" && mv "$f.cut" "$f"
done
record corrupt
for name in cold warm corrupt; do
  n=$(sites $name)
  [ -n "$n" ] && [ "$n" -ge 1 ] || fail "$name: the exec event names no cpuid page with sites"
  [ "$n" = "$(sites cold)" ] || fail "$name: $n sites patched, the cold recording $(sites cold)"
  cmp -s "$tmp/off.out" "$tmp/$name.out" ||
    fail "$name: the program saw other cpuid answers than without patching: $(diff "$tmp/off.out" "$tmp/$name.out" | head -n 4)"
  [ $(($(insns off) - $(insns $name))) -ge "$n" ] ||
    fail "$name: $(insns $name) trapped instructions, $(insns off) without patching"
done
DEJA_CPUID_NATIVE=1 "$deja" record -o "$tmp/native" "$program" >/dev/null 2>&1 ||
  fail "record with DEJA_CPUID_NATIVE=1 exited $?"
"$deja" dump "$tmp/native" 2>/dev/null | grep -q 'cpuid page' &&
  fail "DEJA_CPUID_NATIVE=1: the interpreter was patched"
echo "PASS ($(sites cold) sites; $(insns cold) trapped instructions, $(insns off) without patching)"
