#!/bin/sh
# A trace recorded where cpuid runs natively (DEJA_CPUID_NATIVE=1 makes deja record as on
# a CPU that cannot fault it) replays on the CPU it was recorded on, even when deja is
# started on another one. usage: cpu_bind_test.sh DEJA PROGRAM
deja=$1
program=$2
if [ "$(nproc)" -lt 2 ]; then
  echo "SKIP: needs two CPUs"
  exit 77
fi
tmp=$(mktemp -d /tmp/deja-cpu-bind.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# Some hypervisors (PVM) pass the physical CPU's APIC id through: a vCPU's changes when the
# host moves it. A replay that fails while the program, run natively on the recording's
# CPU, no longer prints what it printed then is tried again (at most three times).
for rec in 0 1; do
  other=$((1 - rec))
  for try in 1 2 3; do
    rm -rf "$tmp/t$rec"
    DEJA_CPUID_NATIVE=1 taskset -c $rec "$deja" record -o "$tmp/t$rec" -- "$program" \
      >"$tmp/rec$rec.out" 2>"$tmp/rec$rec.err" || { cat "$tmp/rec$rec.err"; echo "FAIL: record on CPU $rec"; exit 1; }
    [ "$(cat "$tmp/t$rec/cpu" 2>/dev/null)" = "$rec" ] || { echo "FAIL: the trace does not name CPU $rec"; exit 1; }
    if taskset -c $other "$deja" replay -a "$tmp/t$rec" >"$tmp/rep$rec.out" 2>"$tmp/rep$rec.err"; then
      break
    fi
    taskset -c $rec "$program" >"$tmp/native$rec.out" 2>&1
    if [ "$try" -lt 3 ] && ! cmp -s "$tmp/rec$rec.out" "$tmp/native$rec.out"; then
      echo "note: CPU $rec's APIC id changed since the recording ($(cat "$tmp/rec$rec.out") -> $(cat "$tmp/native$rec.out")): recording again"
      continue
    fi
    cat "$tmp/rep$rec.err"; echo "FAIL: replay on CPU $other of a trace recorded on CPU $rec"; exit 1
  done
  cmp -s "$tmp/rec$rec.out" "$tmp/rep$rec.out" || { echo "FAIL: replay output differs"; exit 1; }
done
if cmp -s "$tmp/rec0.out" "$tmp/rec1.out"; then
  echo "FAIL: both CPUs report the same APIC id; the test cannot tell them apart"
  exit 1
fi
echo "PASS: traces recorded on CPU 0 and 1 replay from the other CPU"
