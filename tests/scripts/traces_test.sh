#!/usr/bin/env bash
# Traces at any size and traces that cost little disk (issue 11).
#
# usage: traces_test.sh DEJA PROGRAMS_DIR CASE
#   sparse   huge sparse files, a memfd and a deleted file mapped: small trace, replays
#   store    ten recordings share their files (disk use of ten / one <= 1.5); rm and pack
#            keep the store consistent; traces replay after the others are removed
#   known    a file stored before is linked by its identity (not hashed again); one
#            changed in place is stored anew; rm removes the identity links with the store
#   rebuilt  a trace replays after its program was overwritten in place (same inode)
#   damaged  a missing or corrupt preserved file (also one an earlier replay found good):
#            replay exits 1 naming the file
#   big_heap state points larger than a trace chunk (64 MiB), recorded with bounded memory
#   stack_limit a trace replays under another stack limit (ulimit -s) than it was recorded
#            with: the recorded limit applies (stack growth, mmap layout)
#   disk_full the disk fills up while recording: a message, exit 70, the trace replays
#            (a small tmpfs in a private mount namespace: unshare -m, or -rm when not root)
set -u
deja=${1:?usage: traces_test.sh DEJA PROGRAMS_DIR CASE}
programs=${2:?}
case_name=${3:?}

# disk_full runs in a private mount namespace, where it may mount a small tmpfs.
if [ "$case_name" = disk_full ] && [ "${DEJA_IN_NAMESPACE:-}" != 1 ]; then
  ns=(-m)
  [ "$(id -u)" -eq 0 ] || ns=(-r -m)
  command -v unshare >/dev/null || { echo "FAIL: unshare (util-linux) is needed" >&2; exit 1; }
  DEJA_IN_NAMESPACE=1 exec unshare "${ns[@]}" "$0" "$deja" "$programs" disk_full
fi

tmp=$(mktemp -d /tmp/deja-files-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export DEJA_TRACE_DIR="$tmp/traces"
mkdir -p "$DEJA_TRACE_DIR"
store="$DEJA_TRACE_DIR/.deja-store"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# record NAME PROGRAM [ARG...]: records into the trace directory as NAME; NAME.out kept.
record() {
  local name=$1
  shift
  "$deja" record -o "$DEJA_TRACE_DIR/$name" -- "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
    { cat "$tmp/$name.err" >&2; fail "recording $name of $* failed"; }
}

# replays NAME: replay -a succeeds with the recorded output.
replays() {
  local name=$1 status
  "$deja" replay -a "$DEJA_TRACE_DIR/$name" >"$tmp/$name.rout" 2>"$tmp/$name.rerr"
  status=$?
  [ $status -eq 0 ] || { cat "$tmp/$name.rerr" >&2; fail "replay of $name exited with $status"; }
  cmp -s "$tmp/$name.out" "$tmp/$name.rout" || fail "replay of $name printed other output"
}

kib() { du -sk "$@" | awk '{s += $1} END {print s}'; }

case $case_name in
sparse)
  record t "$programs/sparse_map"
  replays t
  # Every preserved file of 1 GiB or more must use (almost) no disk.
  found=0
  for f in "$DEJA_TRACE_DIR"/t/files/*; do
    size=$(stat -c %s "$f")
    if [ "$size" -ge 1073741824 ]; then
      found=$((found + 1))
      used=$(kib "$f")
      [ "$used" -le 64 ] || fail "$f: a ${size}-byte sparse file uses $used KiB of disk"
    fi
  done
  [ $found -eq 2 ] || fail "expected 2 huge preserved files (sparse file, memfd), found $found"
  ls "$DEJA_TRACE_DIR"/t/files/ | grep -q '^deleted' || fail "the deleted file was not preserved"
  total=$(kib "$DEJA_TRACE_DIR/t")
  [ "$total" -le 8192 ] || fail "the trace uses $total KiB"
  echo "PASS: sparse mappings: trace uses $total KiB"
  ;;
store)
  prog=/usr/bin/python3
  [ -x $prog ] || prog=$programs/hello
  args=()
  [ $prog = /usr/bin/python3 ] && args=(-c pass)
  record one $prog "${args[@]}"
  one=$(kib "$DEJA_TRACE_DIR/one")
  for i in 2 3 4 5 6 7 8 9 10; do
    record "r$i" $prog "${args[@]}"
  done
  ten=$(kib "$DEJA_TRACE_DIR")
  ratio=$(awk -v a="$ten" -v b="$one" 'BEGIN {printf "%.2f", a / b}')
  awk -v r="$ratio" 'BEGIN {exit !(r <= 1.5)}' ||
    fail "ten recordings use $ten KiB, one $one KiB: ratio $ratio > 1.5"
  [ -d "$store" ] || fail "no content store at $store"
  for f in "$DEJA_TRACE_DIR"/one/files/*; do
    [ "$(stat -c %h "$f")" -eq 11 ] || fail "$f has $(stat -c %h "$f") links, expected 11"
  done
  # rm: the others keep replaying; the store keeps what they use.
  for i in 2 3 4 5 6 7 8 9; do
    "$deja" rm "r$i" 2>"$tmp/rm.err" || { cat "$tmp/rm.err" >&2; fail "rm r$i failed"; }
  done
  for f in "$DEJA_TRACE_DIR"/one/files/*; do
    [ "$(stat -c %h "$f")" -eq 3 ] || fail "after rm, $f has $(stat -c %h "$f") links, expected 3"
  done
  replays one
  replays r10
  # pack: the trace gets its own copies and still replays, moved elsewhere.
  "$deja" pack one 2>"$tmp/pack.err" || { cat "$tmp/pack.err" >&2; fail "pack failed"; }
  grep -q "self-contained" "$tmp/pack.err" || fail "pack did not say the trace is self-contained"
  for f in "$DEJA_TRACE_DIR"/one/files/*; do
    [ "$(stat -c %h "$f")" -eq 1 ] || fail "after pack, $f has $(stat -c %h "$f") links"
  done
  for f in "$DEJA_TRACE_DIR"/r10/files/*; do
    [ "$(stat -c %h "$f")" -eq 2 ] || fail "after pack, $f has $(stat -c %h "$f") links, expected 2"
  done
  mkdir "$tmp/elsewhere" && mv "$DEJA_TRACE_DIR/one" "$tmp/elsewhere/one"
  DEJA_TRACE_DIR="$tmp/elsewhere" replays one
  replays r10
  # A trace deleted without deja rm: the next recording removes what only it used.
  record gone "$programs/sparse_map"
  rm -rf "$DEJA_TRACE_DIR/gone"
  record hello "$programs/hello"
  unused=$(find "$store" -type f -links 1 | wc -l)
  [ "$unused" -eq 0 ] || fail "$unused unused store entries left after a recording"
  "$deja" rm hello 2>"$tmp/rm.err" || { cat "$tmp/rm.err" >&2; fail "rm hello failed"; }
  "$deja" rm r10 2>"$tmp/rm.err" || { cat "$tmp/rm.err" >&2; fail "rm r10 failed"; }
  [ ! -e "$store" ] || fail "the content store is left after its last trace was removed: $(ls -a "$store")"
  echo "PASS: ten recordings use $ten KiB, one $one KiB (ratio $ratio); rm and pack keep the store consistent"
  ;;
known)
  # A file stored before is linked by its identity, not read and hashed again; a file
  # changed in place (same size and modification time) is stored anew.
  cp "$programs/hello" "$tmp/prog"
  head -c 400000 /dev/zero >>"$tmp/prog" # large enough to be known by identity
  record t1 "$tmp/prog"
  ids=$(ls -a "$store" | grep -c '^\.id-')
  [ "$(find "$store" -type l -lname "$(ls "$DEJA_TRACE_DIR"/t1/files/ | sed -n 's/^prog-//p')" | wc -l)" -eq 1 ] ||
    fail "the store keeps no identity link to the program: $(ls -a "$store")"
  record t2 "$tmp/prog"
  [ "$(stat -c %i "$DEJA_TRACE_DIR"/t1/files/prog-*)" = "$(stat -c %i "$DEJA_TRACE_DIR"/t2/files/prog-*)" ] ||
    fail "the second recording stored its program again"
  touch -r "$tmp/prog" "$tmp/stamp"
  ino=$(stat -c %i "$tmp/prog")
  at=$(grep -obUa 'Hello, world!' "$tmp/prog" | head -n 1 | cut -d: -f1)
  printf 'HELLO, WORLD!' | dd of="$tmp/prog" bs=1 seek="$at" conv=notrunc 2>/dev/null
  touch -r "$tmp/stamp" "$tmp/prog"
  grep -q 'HELLO, WORLD' "$tmp/prog" && [ "$(stat -c %i "$tmp/prog")" = "$ino" ] ||
    fail "could not change the program in place"
  record t3 "$tmp/prog"
  grep -q 'HELLO, WORLD' "$tmp/t3.out" || fail "the changed program printed $(cat "$tmp/t3.out")"
  [ "$(ls -a "$store" | grep -c '^\.id-')" -eq $((ids + 1)) ] ||
    fail "the changed program got no identity link of its own"
  replays t1
  replays t3
  "$deja" rm t1 2>/dev/null && "$deja" rm t2 2>/dev/null && "$deja" rm t3 2>/dev/null ||
    fail "rm failed"
  [ ! -e "$store" ] || fail "the content store is left after its last trace was removed: $(ls -a "$store")"
  echo "PASS: stored files are known by identity; a file changed in place is stored again"
  ;;
rebuilt)
  cp "$programs/sparse_map" "$tmp/prog"
  record t "$tmp/prog"
  # Overwritten in place: same inode, another program's bytes.
  ino=$(stat -c %i "$tmp/prog")
  cat "$programs/hello" >"$tmp/prog"
  [ "$(stat -c %i "$tmp/prog")" = "$ino" ] || fail "the program was not rewritten in place"
  replays t
  echo "PASS: the trace replays after its program was rebuilt in place"
  ;;
damaged)
  record t "$programs/hello"
  libc=$(ls "$DEJA_TRACE_DIR"/t/files/ | grep '^libc')
  # A replay marks the store entries it found good (later ones do not hash them again)...
  replays t
  [ -L "$store/.ok-${libc##*-}" ] || fail "the replay left no good mark for $libc: $(ls -a "$store")"
  # ...but a change made after that is still found. Corrupt the store's entry (the trace's
  # file is the same inode).
  entry="$store/${libc##*-}"
  [ -f "$entry" ] || fail "no store entry $entry"
  printf 'XX' | dd of="$entry" bs=1 seek=100 conv=notrunc status=none
  "$deja" replay -a "$DEJA_TRACE_DIR/t" >/dev/null 2>"$tmp/err"
  status=$?
  [ $status -eq 1 ] || { cat "$tmp/err" >&2; fail "replay with a corrupt file exited $status, not 1"; }
  grep -q "files/$libc.*corrupt.*incomplete" "$tmp/err" || { cat "$tmp/err" >&2; fail "no message naming the corrupt file"; }
  rm -f "$entry" "$DEJA_TRACE_DIR/t/files/$libc"
  "$deja" replay -a "$DEJA_TRACE_DIR/t" >/dev/null 2>"$tmp/err"
  status=$?
  [ $status -eq 1 ] || { cat "$tmp/err" >&2; fail "replay with a missing file exited $status, not 1"; }
  grep -q "files/$libc.*missing.*incomplete" "$tmp/err" || { cat "$tmp/err" >&2; fail "no message naming the missing file"; }
  echo "PASS: a corrupt or missing preserved file makes an incomplete trace (exit 1, named)"
  ;;
big_heap)
  # Preemption depends on timing: up to three recordings to get a state point of the heap.
  for attempt in 1 2 3; do
    rm -rf "$DEJA_TRACE_DIR/t"
    DEJA_STATS=1 record t "$programs/big_heap_preempt" 80
    biggest=$("$deja" dump "$DEJA_TRACE_DIR/t" | sed -n 's/.* state at .*, \([0-9]*\) changed page.*/\1/p' |
      sort -n | tail -n 1)
    [ "${biggest:-0}" -ge 16384 ] && break
  done
  [ "${biggest:-0}" -ge 16384 ] || fail "no state point of 64 MiB or more in three recordings (largest: ${biggest:-none} pages)"
  peak=$(sed -n "s/.*deja's peak memory \([0-9]*\) kB.*/\1/p" "$tmp/t.err")
  [ -n "$peak" ] || { cat "$tmp/t.err" >&2; fail "no stats line from DEJA_STATS=1"; }
  [ "$peak" -le 102400 ] || fail "deja used $peak kB while recording 80 MiB state points"
  replays t
  echo "PASS: a state point of $biggest pages recorded (deja's peak memory $peak kB) and replayed"
  ;;
stack_limit)
  (ulimit -s 8192 && record t "$programs/stack_growth" inherit)
  for limit in 16384 unlimited; do
    (ulimit -s $limit && replays t) || fail "replay under ulimit -s $limit"
  done
  echo "PASS: a trace recorded with an 8 MiB stack replays the same under ulimit -s 16384 and unlimited"
  ;;
disk_full)
  small="$tmp/small"
  mkdir "$small"
  mount -t tmpfs -o size=4000k tmpfs "$small" || fail "cannot mount a small tmpfs at $small"
  # 6.4 MB of random bytes read by dd: more than fits.
  "$deja" record -o "$small/t" dd if=/dev/urandom of=/dev/null bs=64k count=100 >/dev/null 2>"$tmp/err"
  status=$?
  [ $status -eq 70 ] || { cat "$tmp/err" >&2; fail "recording onto a full disk exited $status, not 70"; }
  grep -q "^deja: the disk is full.*the trace up to event [0-9]* replays" "$tmp/err" ||
    { cat "$tmp/err" >&2; fail "no message saying the disk is full"; }
  "$deja" replay -a -q "$small/t" 2>"$tmp/rerr"
  status=$?
  [ $status -eq 0 ] || { cat "$tmp/rerr" >&2; fail "the trace of a full disk does not replay (status $status)"; }
  umount "$small"
  echo "PASS: a full disk stops the recording with a message and exit 70; the trace replays"
  ;;
*) fail "unknown case $case_name" ;;
esac
