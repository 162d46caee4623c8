#!/bin/sh
# A trace is private to its owner whatever the umask (SPEC.md "Trace directory"): under
# umask 000 every directory of a fresh trace, of a packed one and of the content store is
# 0700 and every file 0600 (0700 for preserved files, which replay executes), also when
# the recorded program sets its own umask; the program still gets the user's umask (and
# under umask 0777 deja can still write and replay its trace); a content store that is
# not private (a symbolic link, another user's directory) is not used.
# usage: private_trace_test.sh DEJA
set -u
deja=$1
tmp=$(mktemp -d /tmp/deja-private.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# open_modes DIR: the entries under DIR (symbolic links aside) that others could open,
# or whose mode is not 0700 (directories) or 0600/0700 (files).
open_modes() {
  find "$1" ! -type l \( \( -type d ! -perm 0700 \) -o \( -type f ! -perm 0600 ! -perm 0700 \) \
    -o -perm /077 \) -printf '%m %p\n'
}
check_private() { # check_private WHAT DIR...
  what=$1
  shift
  bad=$(for d in "$@"; do open_modes "$d"; done)
  if [ -n "$bad" ]; then fail "$what: not private: $(echo "$bad" | head -n 5)"; else pass "$what"; fi
}

# 1. umask 000, a program that sets umask 000 itself and creates a file.
export DEJA_TRACE_DIR="$tmp/traces"
(umask 000 && "$deja" record sh -c "umask 000; ls / >/dev/null; : >$tmp/made; echo ok") \
  >"$tmp/out" 2>"$tmp/err"
status=$?
trace="$DEJA_TRACE_DIR/$(readlink "$DEJA_TRACE_DIR/latest-trace")"
if [ $status -ne 0 ] || [ ! -f "$trace/events" ]; then
  fail "record under umask 000 exited $status: $(cat "$tmp/err")"
else
  check_private "a fresh trace and its store under umask 000" "$DEJA_TRACE_DIR"
  [ -d "$DEJA_TRACE_DIR/.deja-store" ] || fail "no content store was made (the check above saw none)"
  mode=$(stat -c %a "$tmp/made")
  [ "$mode" = 666 ] && pass "the program's own file follows its umask (0$mode)" ||
    fail "the program's file is 0$mode, expected 0666 (its umask 000)"
  # A second recording links the store's entries (and its identity links) again.
  (umask 000 && "$deja" record sh -c "ls / >/dev/null") >/dev/null 2>&1
  check_private "the store after a second recording" "$DEJA_TRACE_DIR"
  (umask 000 && "$deja" pack "$trace") >/dev/null 2>"$tmp/err" || fail "pack failed: $(cat "$tmp/err")"
  check_private "a packed trace and the store after pack" "$DEJA_TRACE_DIR"
  links=$(find "$trace/files" -type f -links +1 | head -n 3)
  [ -z "$links" ] && pass "the packed trace shares no file" || fail "the packed trace shares: $links"
  timeout 60 "$deja" replay -a "$trace" >"$tmp/rout" 2>"$tmp/rerr" && grep -q ok "$tmp/rout" &&
    pass "the packed trace replays" || fail "the packed trace does not replay: $(cat "$tmp/rerr")"
fi

# 2. umask 0777: deja writes and replays its trace; the program sees the user's umask.
(umask 0777 && "$deja" record -o "$tmp/u777" sh -c umask) >"$tmp/out" 2>"$tmp/err"
status=$?
if [ $status -ne 0 ] || ! grep -qx 0777 "$tmp/out"; then
  fail "record under umask 0777: exit $status, output '$(cat "$tmp/out")' (expected 0777): $(cat "$tmp/err")"
else
  check_private "a trace under umask 0777" "$tmp/u777"
  (umask 0777 && timeout 60 "$deja" replay -a "$tmp/u777") >"$tmp/rout" 2>"$tmp/rerr" &&
    cmp -s "$tmp/out" "$tmp/rout" && pass "a trace recorded under umask 0777 replays" ||
    fail "the umask 0777 trace does not replay: $(cat "$tmp/rerr")"
fi

# 3. A content store that is not private is not used: a symbolic link to another
# directory, and (as root) a directory of nobody's open to everyone.
refused_store() { # refused_store WHAT DIR: DIR/.deja-store is set up; record into DIR/t
  what=$1 dir=$2
  "$deja" record -o "$dir/t" sh -c "echo ok" >"$tmp/out" 2>"$tmp/err"
  status=$?
  shared=$(find "$dir/t/files" -type f -links +1 | head -n 3)
  if [ $status -ne 0 ]; then
    fail "$what: record exited $status: $(cat "$tmp/err")"
  elif ! grep -q "not using the content store" "$tmp/err"; then
    fail "$what: deja did not say it refused the store: $(cat "$tmp/err")"
  elif [ -n "$shared" ] || [ -n "$(ls -A "$dir/elsewhere" 2>/dev/null)" ]; then
    fail "$what: the store was used anyway: $shared $(ls -A "$dir/elsewhere" 2>/dev/null)"
  elif ! timeout 60 "$deja" replay -a "$dir/t" >/dev/null 2>"$tmp/rerr"; then
    fail "$what: the trace does not replay: $(cat "$tmp/rerr")"
  else
    pass "$what"
  fi
}
mkdir -p "$tmp/s1/elsewhere"
ln -s "$tmp/s1/elsewhere" "$tmp/s1/.deja-store"
refused_store "a content store that is a symbolic link is not used" "$tmp/s1"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$tmp/s2/.deja-store"
  chown nobody "$tmp/s2/.deja-store" && chmod 0777 "$tmp/s2/.deja-store"
  refused_store "a content store of another user's is not used" "$tmp/s2"
else
  echo "not run: a content store of another user's (needs root to make one)"
fi
mkdir -m 0755 -p "$tmp/s3/.deja-store"
"$deja" record -o "$tmp/s3/t" true >/dev/null 2>&1
mode=$(stat -c %a "$tmp/s3/.deja-store")
[ "$mode" = 700 ] && pass "a store of the user's open to others is made 0700" ||
  fail "a store of the user's left 0$mode"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
