#!/bin/sh
# Bad input to every command (issue 33): a missing trace, a trace directory that is a
# file, an empty directory, a trace of a newer format version, truncated, empty or
# corrupt events, a truncated or corrupt content store entry, positions that do not
# exist or are malformed, unknown options and stray arguments. Each must end with the
# exit status SPEC.md gives (1 for replay's usage errors and unreadable traces, 70 for
# record's, 1 for the other commands) and a message on stderr naming what is wrong:
# never a crash, a hang (30 s at most each) or silence.
# usage: bad_input_test.sh DEJA PROGRAMS_DIR TRACE_EDIT
set -u
deja=$1 programs=$2 edit=$3
tmp=$(mktemp -d /tmp/deja-bad-input.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
export DEJA_TRACE_DIR="$tmp/traces"
passed=0 failed=0

# check WHAT STATUS PATTERN CMD...: CMD exits STATUS and its stderr matches PATTERN (an
# extended regular expression, case-insensitive).
check() {
  what=$1 want=$2 pattern=$3
  shift 3
  timeout 30 "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ $got = 124 ]; then
    echo "FAIL: $what: hung (killed after 30 s): $*"
  elif [ $got -ge 128 ]; then
    echo "FAIL: $what: crashed (status $got): $*"
  elif [ $got != "$want" ]; then
    echo "FAIL: $what: exit status $got, expected $want: $*"
  elif ! grep -qiE -- "$pattern" "$tmp/err"; then
    echo "FAIL: $what: stderr does not say /$pattern/: $*"
  else
    [ -n "${SHOW:-}" ] && echo "ok: $what: $(head -n 2 "$tmp/err" | tr "\n" " ")"
    passed=$((passed + 1))
    return
  fi
  sed -n '1,5s/^/    /p' "$tmp/err"
  failed=$((failed + 1))
}

# A good trace, and broken copies of it.
"$deja" record -o "$tmp/good" "$programs/hello" >/dev/null 2>"$tmp/record.err" ||
  { echo "FAIL: cannot record hello: $(cat "$tmp/record.err")"; exit 1; }
"$deja" record "$programs/hello" >/dev/null 2>&1 # a latest trace in DEJA_TRACE_DIR
copy() { cp -a "$tmp/good" "$tmp/$1"; }
copy newer
"$edit" "$tmp/newer" format-version 999 || exit 1
copy older
"$edit" "$tmp/older" format-version 1 || exit 1
copy newer-bad-header # the version alone changed: the header's checksum no longer matches
printf '\347\003\000\000' | dd of="$tmp/newer-bad-header/events" bs=1 seek=8 conv=notrunc status=none
copy flipped
f="$tmp/flipped/events"
byte=$(od -An -tu1 -j $(($(stat -c %s "$f") / 2)) -N1 "$f" | tr -d ' ')
printf "$(printf '\\%03o' $(((byte ^ 0xff) & 0xff)))" |
  dd of="$f" bs=1 seek=$(($(stat -c %s "$f") / 2)) conv=notrunc status=none
copy truncated
truncate -s $(($(stat -c %s "$tmp/good/events") / 2)) "$tmp/truncated/events"
copy empty-events
: >"$tmp/empty-events/events"
copy events-dir
rm "$tmp/events-dir/events" && mkdir "$tmp/events-dir/events"
copy garbage
head -c 4096 /dev/urandom >"$tmp/garbage/events"
: >"$tmp/a-file"
mkdir "$tmp/empty-dir" "$tmp/not-a-trace"
echo keep >"$tmp/not-a-trace/keep"
# Preserved files are copies (cp -a of hard links), so each breakage stays in its trace.
libc() { ls "$tmp/$1/files/" | grep '^libc\.so'; }
copy store-truncated
f="$tmp/store-truncated/files/$(libc store-truncated)"
truncate -s $(($(stat -c %s "$f") / 2)) "$f"
copy store-corrupt
f="$tmp/store-corrupt/files/$(libc store-corrupt)"
printf 'X' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") / 2)) conv=notrunc status=none
copy store-missing
rm "$tmp/store-missing/files/$(libc store-missing)"
copy files-a-file
rm -r "$tmp/files-a-file/files" && : >"$tmp/files-a-file/files"

# --- Every command that reads a trace -------------------------------------------------
for cmd in "replay -a" dump ps; do
  check "$cmd: no such trace" 1 "no-such-trace" $deja $cmd "$tmp/no-such-trace"
  check "$cmd: no such trace name" 1 "no trace named" $deja $cmd no-such-name
  check "$cmd: a file, not a directory" 1 "a-file.*(not a|directory)" $deja $cmd "$tmp/a-file"
  check "$cmd: an empty directory" 1 "not a deja trace|no events" $deja $cmd "$tmp/empty-dir"
  check "$cmd: a newer format version" 1 "version 999 \\(written by deja [^)]*\\), a newer format.*reads version" \
    $deja $cmd "$tmp/newer"
  check "$cmd: an older format version" 1 "version 1 \\(written by deja [^)]*\\), an older format" \
    $deja $cmd "$tmp/older"
  check "$cmd: a newer version in a corrupt header" 1 "version 999, a newer format.*corrupt header" \
    $deja $cmd "$tmp/newer-bad-header"
  check "$cmd: a flipped byte in events" 1 "events.*(checksum|corrupt)" $deja $cmd "$tmp/flipped"
  check "$cmd: events cut in half" 1 "events.*(truncated|incomplete|end|killed)" $deja $cmd "$tmp/truncated"
  check "$cmd: empty events" 1 "events" $deja $cmd "$tmp/empty-events"
  check "$cmd: events is a directory" 1 "events" $deja $cmd "$tmp/events-dir"
  check "$cmd: events of random bytes" 1 "events.*(not a deja|magic|corrupt)" $deja $cmd "$tmp/garbage"
  check "$cmd: unknown option" 1 "unknown .*option \`--no-such-option'" $deja $cmd --no-such-option
  check "$cmd: two traces" 1 "usage|unexpected|at most one" $deja $cmd "$tmp/good" "$tmp/good"
done
check "replay: a truncated content store entry" 1 "libc\\.so.*(truncated|damaged|changed|size|hash)" \
  $deja replay -a "$tmp/store-truncated"
check "replay: a corrupt content store entry" 1 "libc\\.so.*(damaged|changed|hash|corrupt)" \
  $deja replay -a "$tmp/store-corrupt"
check "replay: a missing content store entry" 1 "libc\\.so.*missing" $deja replay -a "$tmp/store-missing"
check "replay: files/ is a file" 1 "files" $deja replay -a "$tmp/files-a-file"

# --- Positions and options of replay --------------------------------------------------
last=$("$deja" dump "$tmp/good" | tail -n 1 | cut -d' ' -f1)
check "replay -g past the end" 1 "ends before event $((last + 10))" \
  $deja replay -g $((last + 10)) -s "unix:$tmp/sock" "$tmp/good"
check "replay -g far past the end" 1 "ends before event" \
  $deja replay -g 4611686018427387904 -s "unix:$tmp/sock" "$tmp/good"
check "replay -g beyond any number" 1 "-g needs a number.*99999999999999999999999" \
  $deja replay -g 99999999999999999999999 "$tmp/good"
check "replay -g a malformed position" 1 "-g needs a number.*12abc" $deja replay -g 12abc "$tmp/good"
check "replay -g negative" 1 "-g needs a number" $deja replay -g -3 "$tmp/good"
check "replay -g without a value" 1 "-g|incomplete" $deja replay "$tmp/good" -g
check "replay -p of a process never recorded" 1 "process" \
  $deja replay -p 999999 -s "unix:$tmp/sock" "$tmp/good"
check "replay -p 0" 1 "-p needs a number" $deja replay -p 0 "$tmp/good"
check "replay -s a port out of range" 1 "port.*70000" $deja replay -s 70000 "$tmp/good"
check "replay -s not a port" 1 "port.*abc" $deja replay -s abc "$tmp/good"
check "replay -s unix: without a path" 1 "port number or unix:PATH" $deja replay -s unix: "$tmp/good"
check "replay -s unix: a path in a missing directory" 1 "no-such-dir" \
  $deja replay -s "unix:$tmp/no-such-dir/sock" "$tmp/good"
check "replay: a stray argument" 1 "unexpected argument" $deja replay "$tmp/good" stray
check "replay --debugger that does not exist" 1 "no-such-debugger" \
  $deja replay --debugger "$tmp/no-such-debugger" "$tmp/good"

# --- record ---------------------------------------------------------------------------
check "record: unknown option" 70 "--no-such-option" $deja record --no-such-option "$programs/hello"
check "record: no program" 70 "no program" $deja record
check "record: -o a directory that exists" 70 "good.*exists" $deja record -o "$tmp/good" "$programs/hello"
check "record: -o under a file" 70 "a-file" $deja record -o "$tmp/a-file/t" "$programs/hello"
check "record: a program that does not exist" 127 "no-such-program" $deja record "$tmp/no-such-program"
check "record: a directory as the program" 127 "empty-dir' \\(a directory, not a program" \
  $deja record -o "$tmp/dir-prog" "$tmp/empty-dir"
[ ! -e "$tmp/dir-prog" ] && passed=$((passed + 1)) ||
  { echo "FAIL: record of a directory left a trace behind"; failed=$((failed + 1)); }
check "record: --env without =" 70 "NAME=VALUE" $deja record --env JUSTNAME "$programs/hello"
check "record: --until-failure=0" 70 "at least 1" $deja record --until-failure=0 "$programs/hello"

# --- ls, rm, pack, help, the command itself -------------------------------------------
check "rm: no trace given" 1 "usage|TRACE" $deja rm
check "rm: no such trace" 1 "no-such-trace" $deja rm "$tmp/no-such-trace"
check "rm: a directory that is not a trace" 1 "not-a-trace.*not a deja trace" $deja rm "$tmp/not-a-trace"
[ -f "$tmp/not-a-trace/keep" ] && passed=$((passed + 1)) ||
  { echo "FAIL: rm deleted a directory that is not a trace"; failed=$((failed + 1)); }
check "rm: a file" 1 "a-file" $deja rm "$tmp/a-file"
check "rm: unknown option" 1 "rm: unknown option \`--no-such-option'" $deja rm --no-such-option
check "pack: no such trace" 1 "no-such-trace" $deja pack "$tmp/no-such-trace"
check "pack: a file" 1 "a-file" $deja pack "$tmp/a-file"
check "pack: unknown option" 1 "pack: unknown option \`--no-such-option'" $deja pack --no-such-option
check "pack: files/ is a file" 1 "files" $deja pack "$tmp/files-a-file"
check "ls: a stray argument" 1 "usage|argument|ls" $deja ls stray
check "help: an unknown command" 1 "no-such-command" $deja help no-such-command
check "an unknown command" 1 "no-such-command" $deja no-such-command
check "no command" 1 "no command" $deja
DEJA_TRACE_DIR="$tmp/a-file" check "ls: the trace directory is a file" 1 "a-file" $deja ls
DEJA_TRACE_DIR="$tmp/a-file" check "replay: the trace directory is a file" 1 "a-file is not a directory" $deja replay -a
DEJA_TRACE_DIR="$tmp/a-file" check "dump: the trace directory is a file" 1 "a-file is not a directory" $deja dump
DEJA_TRACE_DIR="$tmp/empty-dir" check "replay: no traces yet" 1 "no traces" $deja replay -a
ln -s no-such-trace "$tmp/empty-dir/latest-trace"
DEJA_TRACE_DIR="$tmp/empty-dir" check "replay: latest-trace names nothing" 1 "latest-trace|no-such-trace|no traces" $deja replay -a

echo "$passed passed, $failed failed"
[ $failed = 0 ]
