#!/bin/sh
# Real gdb against a deja replay: records PROGRAM, replays it under gdb running the gdb
# commands in COMMANDS, and checks that every pattern of EXPECT appears in gdb's output,
# in order, and that deja replay exits with status 0 (a divergence under gdb fails). The
# patterns check what gdb reads from the replayed process (values, stops, exit codes),
# not the program's printed output, which deja writes from the trace's events. EXPECT
# holds one extended regular expression per line, matched against one line of output
# each; blank lines and lines starting with '#' are ignored, a line starting with
# 'avx: ' is checked only on CPUs with AVX, one starting with 'frames: ' only where deja can
# read page frame numbers (CAP_SYS_ADMIN: reverse-continue passes over windows whose pages
# show no hit), a line starting with '!' is a pattern no line of the output may match, and
# one starting with 'once: ' a pattern exactly one line matches (output printed once).
# gdb commands may append the process groups of the replay to $DEJA_TEST_PGIDS (`shell ps -o
# pgid= --ppid $(ps -o ppid= -p $PPID) >>$DEJA_TEST_PGIDS`): once deja replay has exited no
# live process may be left in them (checkpoint forks are killed when the session ends).
# COMMANDS holds one gdb command per line (blank lines and '#' lines ignored); each is
# given to gdb as its own -ex, so that a command that fails does not stop the rest.
# Usage: gdb_replay_test.sh --deja DEJA --program PROGRAM --commands COMMANDS
#            --expect EXPECT [--exit STATUS] [--mode MODE]
# MODE: gdb      `deja replay TRACE -- gdb arguments' (the default)
#       twice    the same, in two gdb sessions; the values gdb prints ($N = V) must be the
#                same in both and equal the lines the program printed while recorded
#       goto     `deja replay -g N', N the event of the program's first write(); gdb's
#                `monitor when' must report N or later
#       server   `deja replay -s PORT' in the background, gdb started here from the
#                "connect with" line; deja must exit once gdb disconnects
#       library  PROGRAM and LIBRARY (--library) are copied to a directory of their own
#                (PROGRAM finds LIBRARY there by its $ORIGIN rpath) and recorded there;
#                REPLACEMENT (--replacement) is copied over the library before the replay
#       child    `deja replay -p PID', PID the program's first child process (deja ps)
# --repeat N records the program N times and checks each recording (programs whose runs
# differ: threads, signals between processes).
# --record-option OPT (repeatable) is given to deja record (-n: every call traced).
# --requires CAP (repeatable): a processor feature `deja caps' must report (e.g.
# debug-registers); without it the test exits 77, which CTest reports as skipped.
set -u

usage() {
    echo "usage: gdb_replay_test.sh --deja DEJA --program PROGRAM --commands FILE --expect FILE [--exit STATUS] [--repeat N] [--mode gdb|twice|goto|server|child|library --library LIB --replacement LIB]" >&2
    exit 2
}
DEJA= PROGRAM= COMMANDS= EXPECT= EXIT_STATUS=0 MODE=gdb LIBRARY= REPLACEMENT= REQUIRES= REPEAT=1
RECORD_OPTIONS=
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage
    case "$1" in
        --deja) DEJA=$2 ;;
        --program) PROGRAM=$2 ;;
        --commands) COMMANDS=$2 ;;
        --expect) EXPECT=$2 ;;
        --exit) EXIT_STATUS=$2 ;;
        --mode) MODE=$2 ;;
        --library) LIBRARY=$2 ;;
        --replacement) REPLACEMENT=$2 ;;
        --repeat) REPEAT=$2 ;;
        --requires) REQUIRES="$REQUIRES $2" ;;
        --record-option) RECORD_OPTIONS="$RECORD_OPTIONS $2" ;;
        *) usage ;;
    esac
    shift 2
done
[ -n "$DEJA" ] && [ -n "$PROGRAM" ] && [ -n "$COMMANDS" ] && [ -n "$EXPECT" ] || usage
case "$REPEAT" in '' | *[!0-9]* | 0) usage ;; esac

for cap in $REQUIRES; do
    if ! "$DEJA" caps | grep -qx "$cap: yes"; then
        echo "SKIPPED: this test needs $cap, which this machine does not have (deja caps: $("$DEJA" caps | grep "^$cap:"))"
        exit 77
    fi
done

# Several recordings: this script once for each.
if [ "$REPEAT" -gt 1 ]; then
    runs_failed=0
    for run in $(seq "$REPEAT"); do
        echo "---- recording $run of $REPEAT ----"
        sh "$0" --deja "$DEJA" --program "$PROGRAM" --commands "$COMMANDS" --expect "$EXPECT" \
            --exit "$EXIT_STATUS" --mode "$MODE" ${LIBRARY:+--library "$LIBRARY"} \
            $(for opt in $RECORD_OPTIONS; do printf ' --record-option %s' "$opt"; done) \
            ${REPLACEMENT:+--replacement "$REPLACEMENT"} || runs_failed=$((runs_failed + 1))
    done
    echo "recordings: $((REPEAT - runs_failed)) passed, $runs_failed failed"
    [ "$runs_failed" -eq 0 ]
    exit $?
fi

if ! command -v gdb >/dev/null 2>&1; then
    echo "FAIL: gdb is not installed; deja's debugging needs it (make installs it as root: apt-get install gdb)"
    echo "0 passed, 1 failed"
    exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/deja-gdb-replay.XXXXXX") || exit 1
SERVER_PID=
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
DEJA_TRACE_DIR=$WORK/traces
export DEJA_TRACE_DIR
mkdir -p "$DEJA_TRACE_DIR"
TRACE=$WORK/trace
DEJA_TEST_PGIDS=$WORK/pgids
export DEJA_TEST_PGIDS
# gdb gives up on a packet after 2 s by default, which a loaded test machine can exceed.
REMOTE_TIMEOUT=60
passed=0
failed=0

pass() {
    echo "ok: $1"
    passed=$((passed + 1))
}
fail() {
    echo "FAIL: $1"
    failed=$((failed + 1))
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}
show_output() {
    echo "---- $1 ----"
    cat "$2"
    echo "---- end of $1 ----"
}

# check_patterns OUTPUT: every pattern of EXPECT, in order, each on a later line than the
# one before it. Prints one "ok:" or "FAIL:" line per pattern.
check_patterns() {
    has_avx=0
    grep -qw avx /proc/cpuinfo 2>/dev/null && has_avx=1
    # CAP_SYS_ADMIN is bit 21 of the effective capabilities
    caps=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
    has_frames=$(( (0x${caps:-0} >> 21) & 1 ))
    awk -v has_avx=$has_avx -v has_frames=$has_frames '
        NR == FNR {
            if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/) next
            if ($0 ~ /^avx: /) {
                if (!has_avx) { print "skipped (no AVX on this CPU): " $0; next }
                sub(/^avx: /, "")
            }
            if ($0 ~ /^frames: /) {
                if (!has_frames) { print "skipped (page frames not readable): " $0; next }
                sub(/^frames: /, "")
            }
            if ($0 ~ /^!/) { absent[nabsent++] = substr($0, 2); next }
            if ($0 ~ /^once: /) { once[nonce++] = substr($0, 7); next }
            patterns[npatterns++] = $0
            next
        }
        { lines[nlines++] = $0 }
        END {
            position = 0
            failures = 0
            for (i = 0; i < npatterns; i++) {
                found = 0
                for (j = position; j < nlines; j++)
                    if (lines[j] ~ patterns[i]) { found = 1; position = j + 1; break }
                if (found) print "ok: " patterns[i]
                else { print "FAIL: no line matches (after the previous match): " patterns[i]; failures++ }
            }
            for (i = 0; i < nabsent; i++) {
                found = 0
                for (j = 0; j < nlines; j++)
                    if (lines[j] ~ absent[i]) { found = 1; break }
                if (found) { print "FAIL: a line matches what must not appear: " absent[i]; failures++ }
                else print "ok: no line matches " absent[i]
            }
            for (i = 0; i < nonce; i++) {
                found = 0
                for (j = 0; j < nlines; j++)
                    if (lines[j] ~ once[i]) found++
                if (found == 1) print "ok: one line matches " once[i]
                else { print "FAIL: " found " lines match, expected one: " once[i]; failures++ }
            }
        }' "$EXPECT" "$1" >"$WORK/check"
    cat "$WORK/check"
    passed=$((passed + $(grep -c '^ok: ' "$WORK/check")))
    pattern_failures=$(grep -c '^FAIL: ' "$WORK/check")
    failed=$((failed + pattern_failures))
    [ "$pattern_failures" -eq 0 ] || show_output "gdb output" "$1"
}

# --- record ------------------------------------------------------------------------------
if [ "$MODE" = library ]; then
    mkdir "$WORK/program" && cp "$PROGRAM" "$LIBRARY" "$WORK/program/" || exit 1
    PROGRAM=$WORK/program/$(basename "$PROGRAM")
fi
# shellcheck disable=SC2086 # (the options are words)
"$DEJA" record $RECORD_OPTIONS -o "$TRACE" "$PROGRAM" >"$WORK/record.out" 2>"$WORK/record.err"
status=$?
if [ "$status" -eq "$EXIT_STATUS" ]; then
    pass "recording exited with status $status"
else
    fail "recording exited with status $status, expected $EXIT_STATUS"
    show_output "recording stderr" "$WORK/record.err"
    finish
fi

# run_with_commands COMMAND...: runs COMMAND with one "-ex LINE" per command of COMMANDS.
# deja stops a replay under gdb before the debugged process ends (gdb shows SIGKILL, as
# with rr), so that gdb can go back from there; the tests' gdb passes over that stop (the
# process exits as recorded) unless their commands say `handle SIGKILL stop print`.
PASS_EXIT_STOP="handle SIGKILL nostop noprint pass"

run_with_commands() {
    while IFS= read -r line; do
        case "$line" in
            '' | '#'*) ;;
            *) set -- "$@" -ex "$line" ;;
        esac
    done <"$COMMANDS"
    "$@"
}

# check_no_strays: no live process is left in the process groups gdb's commands noted.
check_no_strays() {
    [ -s "$DEJA_TEST_PGIDS" ] || return 0
    left=
    for group in $(sort -u "$DEJA_TEST_PGIDS"); do
        left="$left$(ps -eo pgid=,pid=,stat=,comm= | awk -v g="$group" '$1 == g && $3 !~ /^Z/')"
    done
    if [ -z "$left" ]; then
        pass "no process of the replay is left after deja replay exited"
    else
        fail "processes of the replay are left after deja replay exited: $left"
    fi
    rm -f "$DEJA_TEST_PGIDS"
}

# replay_under_gdb OUTPUT [deja replay options]: gdb runs COMMANDS against the replay.
replay_under_gdb() {
    output=$1
    shift
    run_with_commands timeout 120 "$DEJA" replay "$@" "$TRACE" -- -batch -nx \
        -iex "set remotetimeout $REMOTE_TIMEOUT" -iex "$PASS_EXIT_STOP" >"$output" 2>&1
    status=$?
    check_no_strays
    if [ "$status" -eq 124 ]; then
        fail "deja replay $* under gdb did not finish within 120 s"
    elif [ "$status" -ne 0 ]; then
        fail "deja replay $* under gdb exited with status $status, expected 0 (3 = divergence)"
        show_output "gdb and deja output" "$output"
    else
        pass "deja replay $* under gdb exited with status 0"
    fi
}

case "$MODE" in
gdb)
    replay_under_gdb "$WORK/gdb.out"
    check_patterns "$WORK/gdb.out"
    ;;
library)
    cp "$REPLACEMENT" "$WORK/program/$(basename "$LIBRARY")" || exit 1
    replay_under_gdb "$WORK/gdb.out"
    check_patterns "$WORK/gdb.out"
    ;;
twice)
    replay_under_gdb "$WORK/gdb1.out"
    replay_under_gdb "$WORK/gdb2.out"
    check_patterns "$WORK/gdb1.out"
    sed -n 's/^\$[0-9][0-9]* = //p' "$WORK/gdb1.out" >"$WORK/values1"
    sed -n 's/^\$[0-9][0-9]* = //p' "$WORK/gdb2.out" >"$WORK/values2"
    if [ ! -s "$WORK/values1" ]; then
        fail "gdb printed no values"
        show_output "gdb output" "$WORK/gdb1.out"
    elif cmp -s "$WORK/values1" "$WORK/values2"; then
        pass "two gdb sessions printed the same values"
    else
        fail "two gdb sessions on the same trace printed different values"
        show_output "first session" "$WORK/gdb1.out"
        show_output "second session" "$WORK/gdb2.out"
    fi
    if cmp -s "$WORK/values1" "$WORK/record.out"; then
        pass "gdb printed the values the program printed while recorded"
    else
        fail "gdb's values differ from what the program printed while recorded"
        show_output "recorded stdout" "$WORK/record.out"
        show_output "gdb values" "$WORK/values1"
    fi
    ;;
child)
    child=$("$DEJA" ps "$TRACE" 2>"$WORK/ps.err" | awk -F '\t' 'NR == 3 { print $1 }')
    if [ -z "$child" ]; then
        fail "deja ps shows no child process of the program"
        show_output "deja ps stderr" "$WORK/ps.err"
        finish
    fi
    replay_under_gdb "$WORK/gdb.out" -p "$child"
    check_patterns "$WORK/gdb.out"
    ;;
goto)
    "$DEJA" dump "$TRACE" >"$WORK/dump" 2>&1
    # a traced write, or buffered ones (an sbuf event)
    event=$(awk '/ syscall write\(/ || / sbuf .* write=/ { print $1; exit }' "$WORK/dump")
    if [ -z "$event" ]; then
        fail "deja dump shows no write() event"
        show_output "deja dump" "$WORK/dump"
        finish
    fi
    echo "the program's first write() is event $event"
    replay_under_gdb "$WORK/gdb.out" -g "$event"
    check_patterns "$WORK/gdb.out"
    current=$(sed -n 's/^Current event: \([0-9][0-9]*\)\.$/\1/p' "$WORK/gdb.out" | head -n 1)
    if [ -n "$current" ] && [ "$current" -ge "$event" ]; then
        pass "monitor when reports event $current (started at $event)"
    else
        fail "monitor when reports event '${current}', expected $event or later"
        show_output "gdb output" "$WORK/gdb.out"
    fi
    # The program's output is written once, whether before or after the start event.
    first_line=$(head -n 1 "$WORK/record.out")
    copies=$(grep -c -x -F -e "$first_line" "$WORK/gdb.out")
    if [ "$copies" -eq 1 ]; then
        pass "the program's output appears once in the replay"
    else
        fail "the program's output '$first_line' appears $copies times in the replay, expected once"
        show_output "gdb output" "$WORK/gdb.out"
    fi
    ;;
server)
    # Ports from a range picked by this shell's pid; try the next if one is taken.
    port=
    for attempt in 0 1 2 3 4; do
        try_port=$((20000 + ($$ + attempt * 97) % 20000))
        "$DEJA" replay -s "$try_port" "$TRACE" >"$WORK/server.out" 2>&1 &
        SERVER_PID=$!
        for _ in $(seq 100); do
            grep -q listening "$WORK/server.out" && break
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.1
        done
        if grep -q listening "$WORK/server.out"; then
            port=$try_port
            break
        fi
        kill "$SERVER_PID" 2>/dev/null
        wait "$SERVER_PID" 2>/dev/null
        SERVER_PID=
    done
    if [ -z "$port" ]; then
        fail "deja replay -s did not print \"listening\""
        show_output "deja replay -s output" "$WORK/server.out"
        finish
    fi
    pass "deja replay -s listens on port $port"
    # The line after "connect with:" is "deja:   gdb EXECUTABLE -ex '...'".
    exe=$(sed -n 's/^deja: *gdb \(.*\) -ex .*/\1/p' "$WORK/server.out" | head -n 1)
    if [ -n "$exe" ] && [ -f "$exe" ]; then
        pass "the connect line names the preserved executable $exe"
    else
        fail "no preserved executable in deja's connect line"
        show_output "deja replay -s output" "$WORK/server.out"
        finish
    fi
    run_with_commands timeout 120 gdb -batch -nx -iex "set remotetimeout $REMOTE_TIMEOUT" \
        -iex "$PASS_EXIT_STOP" "$exe" \
        -ex "target extended-remote 127.0.0.1:$port" >"$WORK/gdb.out" 2>&1
    check_patterns "$WORK/gdb.out"
    exited=0
    for _ in $(seq 300); do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            exited=1
            break
        fi
        sleep 0.1
    done
    if [ "$exited" -eq 1 ]; then
        wait "$SERVER_PID"
        status=$?
        SERVER_PID=
        if [ "$status" -eq 0 ]; then
            pass "deja replay -s exited with status 0 after gdb disconnected"
        else
            fail "deja replay -s exited with status $status after gdb disconnected, expected 0"
            show_output "deja replay -s output" "$WORK/server.out"
        fi
    else
        fail "deja replay -s still runs 30 s after gdb disconnected"
        show_output "deja replay -s output" "$WORK/server.out"
    fi
    ;;
*)
    usage
    ;;
esac
finish
