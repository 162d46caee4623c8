#!/bin/sh
# A replay is private to its owner: records PROGRAM (tests/gdb/stepping.c) and checks that
#  - `deja replay -s PORT` refuses connections from another user (nobody, through setpriv
#    or runuser): a gdb, hostile clients (a packet, random bytes, an over-long packet, a
#    silent one, a half-closed one, twenty that connect and go at once) and a client on an
#    IPv6 socket reaching the IPv4 port (::ffff:127.0.0.1); each refusal is said on deja's
#    stderr with the uid and address, nothing is served to them, deja keeps waiting, and
#    then the owner's gdb connects and debugs;
#  - `deja replay -s unix:PATH` makes its socket 0600 under umask 000 (nobody cannot
#    connect), refuses nobody by SO_PEERCRED once the socket is opened to all, then
#    serves the owner's gdb and removes the socket;
#  - `deja replay` (the gdb it starts, here through --debugger, a wrapper) connects gdb
#    through a unix socket in a 0700 directory of its own in $TMPDIR, which nobody cannot
#    open, deja holds no TCP socket, and the directory is gone once gdb has connected.
# It runs as root to become nobody; as another user it is reported not run (exit 77). A
# root that cannot switch to nobody fails.
# Usage: gdb_private_test.sh DEJA PROGRAM
set -u
DEJA=$1
PROGRAM=$2

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIPPED: this test connects as another user (nobody), which needs root; uid $(id -u)"
    exit 77
fi
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
show() {
    echo "---- $1 ----"
    cat "$2"
    echo "---- end of $1 ----"
}

# as_nobody COMMAND...: runs COMMAND as the user nobody (no supplementary groups).
NOBODY_UID=$(id -u nobody 2>/dev/null)
NOBODY_GID=$(id -g nobody 2>/dev/null)
if command -v setpriv >/dev/null 2>&1; then
    AS_NOBODY="setpriv --reuid=$NOBODY_UID --regid=$NOBODY_GID --clear-groups"
else
    AS_NOBODY="runuser -u nobody --"
fi
as_nobody() {
    $AS_NOBODY "$@"
}
if [ -z "$NOBODY_UID" ] || [ "$(as_nobody id -u 2>&1)" != "$NOBODY_UID" ]; then
    fail "cannot run a command as nobody (setpriv or runuser): $(as_nobody id -u 2>&1)"
    finish
fi
pass "commands run as nobody (uid $NOBODY_UID)"
# A python3 that nobody can run (a root-only pyenv shim may come first on PATH).
PY=
for candidate in /usr/bin/python3 /usr/local/bin/python3 "$(command -v python3)"; do
    if [ -n "$candidate" ] && as_nobody "$candidate" -c pass 2>/dev/null; then
        PY=$candidate
        break
    fi
done
if [ -z "$PY" ]; then
    fail "no python3 that nobody can run, for the hostile clients"
    finish
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/deja-private.XXXXXX") || exit 1
SERVER_PID=
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
export DEJA_TRACE_DIR="$WORK/traces"
TRACE=$WORK/trace
if ! "$DEJA" record -o "$TRACE" "$PROGRAM" >"$WORK/record.out" 2>"$WORK/record.err"; then
    fail "recording $PROGRAM failed"
    show "record stderr" "$WORK/record.err"
    finish
fi
EXE=$(ls "$TRACE"/files/stepping-* 2>/dev/null | head -n 1)

# Hostile clients: hostile KIND WHERE (KIND tcp, tcp6 or unix; WHERE a port or a path)
# connects in every way listed in the header; prints what each got back.
HOSTILE='
import os, socket, sys
kind, where = sys.argv[1], sys.argv[2]
def connect():
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX)
        s.connect(where)
    elif kind == "tcp6":
        s = socket.socket(socket.AF_INET6)
        s.connect(("::ffff:127.0.0.1", int(where)))
    else:
        s = socket.socket()
        s.connect(("127.0.0.1", int(where)))
    s.settimeout(20)
    return s
def attempt(name, send):
    try:
        s = connect()
        send(s)
        data = s.recv(4096)
        print(name, "got", "nothing" if not data else "data: %r" % data[:40])
    except OSError as e:
        print(name, "error", e)
attempt("packet", lambda s: s.sendall(b"$g#67"))
if kind != "tcp6":
    attempt("garbage", lambda s: s.sendall(os.urandom(65536)))
    attempt("long", lambda s: s.sendall(b"$" + b"m" * 200000 + b"#00"))
    attempt("silent", lambda s: None)
    attempt("half-closed", lambda s: s.shutdown(socket.SHUT_WR))
    for i in range(20):
        try:
            connect().close()
        except OSError as e:
            print("quick", "error", e)
'
hostile() {
    as_nobody timeout 120 "$PY" -c "$HOSTILE" "$@" >>"$WORK/hostile.out" 2>&1
}

# wait_for COUNT PATTERN FILE: waits (30 s at most) until FILE has COUNT lines matching.
wait_for() {
    for _ in $(seq 300); do
        [ "$(grep -s -c -E -e "$2" "$3")" -ge "$1" ] && return 0 # -s: not yet created
        sleep 0.1
    done
    return 1
}

# owner_gdb TARGET OUTPUT: the owner's gdb debugs the replay through TARGET.
owner_gdb() {
    timeout 120 gdb -batch -nx -iex "set remotetimeout 60" \
        -iex "handle SIGKILL nostop noprint pass" "$EXE" -ex "target extended-remote $1" \
        -ex "break main" -ex "continue" -ex "next" -ex "print a" -ex "continue" >"$2" 2>&1
    if grep -q '^Breakpoint 1, main ()' "$2" && grep -q '^\$1 = 3$' "$2"; then
        pass "the owner's gdb then debugs the replay (breakpoint, next, print)"
    else
        fail "the owner's gdb did not debug the replay through $1"
        show "owner's gdb" "$2"
    fi
}

# server_exits: deja replay -s exits with status 0 once the owner's gdb has gone.
server_exits() {
    for _ in $(seq 300); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
        fail "deja replay -s $1 still runs 30 s after the owner's gdb disconnected"
        return
    fi
    wait "$SERVER_PID"
    status=$?
    SERVER_PID=
    if [ "$status" -eq 0 ]; then
        pass "deja replay -s $1 exited with status 0 after the owner's gdb"
    else
        fail "deja replay -s $1 exited with status $status"
        show "deja replay -s $1" "$WORK/server.out"
    fi
}

# refusals PEER: how many connections of nobody's from PEER (an address pattern) deja said
# it refused: a line each for the first few, then counts once a second (the last peer
# named), so that a flood of connections cannot flood deja's stderr.
refusals() {
    FULL="refused a connection from uid $NOBODY_UID \\($1\\): only uid 0, who runs this replay, may connect; still waiting for gdb" \
    COUNTED="^deja: refused [0-9]+ more connections? since the last message, the last from uid $NOBODY_UID \\($1\\): only uid 0" \
    awk '$0 ~ ENVIRON["FULL"] { n++ }
        $0 ~ ENVIRON["COUNTED"] { n += $3 }
        END { print n + 0 }' "$WORK/server.out" 2>/dev/null || echo 0
}

# check_refusals KIND MIN PEER: deja said it refused nobody at least MIN times, naming
# PEER (an address pattern), kept waiting, served nobody, and is still running.
check_refusals() {
    said=0
    for _ in $(seq 300); do
        said=$(refusals "$3")
        [ "$said" -ge "$2" ] && break
        sleep 0.1
    done
    lines=$(grep -c "refused" "$WORK/server.out")
    if [ "$said" -ge "$2" ]; then
        pass "$1: deja refused nobody $said times (in $lines lines), saying uid and address"
    else
        fail "$1: deja did not say $2 times that it refused uid $NOBODY_UID from $3 (only $said)"
        show "deja replay -s" "$WORK/server.out"
    fi
    if grep -q 'data:' "$WORK/hostile.out"; then
        fail "$1: a client of nobody got an answer from deja"
        show "hostile clients" "$WORK/hostile.out"
    else
        pass "$1: no client of nobody got an answer"
    fi
    if kill -0 "$SERVER_PID" 2>/dev/null; then
        pass "$1: deja replay -s still waits after the refusals"
    else
        fail "$1: deja replay -s ended after the refusals"
        show "deja replay -s" "$WORK/server.out"
        finish
    fi
}

# --- -s PORT ---------------------------------------------------------------------------
port=
for attempt in 0 1 2 3 4; do
    try_port=$((20000 + ($$ + attempt * 89) % 20000))
    "$DEJA" replay -s "$try_port" "$TRACE" >"$WORK/server.out" 2>&1 &
    SERVER_PID=$!
    if wait_for 1 "listening for gdb" "$WORK/server.out"; then
        port=$try_port
        break
    fi
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    SERVER_PID=
done
if [ -z "$port" ]; then
    fail "deja replay -s PORT did not listen"
    show "deja replay -s" "$WORK/server.out"
    finish
fi
as_nobody timeout 60 gdb -batch -nx -iex "set remotetimeout 20" \
    -ex "target extended-remote 127.0.0.1:$port" -ex "info registers rip" >"$WORK/nobody-gdb.out" 2>&1
if grep -q '^rip ' "$WORK/nobody-gdb.out"; then
    fail "-s PORT: nobody's gdb read the replay's registers"
    show "nobody's gdb" "$WORK/nobody-gdb.out"
else
    pass "-s PORT: nobody's gdb read nothing"
fi
hostile tcp "$port"
check_refusals "-s PORT" 3 "127\\.0\\.0\\.1:[0-9]+"
if [ -e /proc/net/tcp6 ] && "$PY" -c 'import socket; socket.socket(socket.AF_INET6)' 2>/dev/null; then
    before=$(refusals "127\\.0\\.0\\.1:[0-9]+")
    hostile tcp6 "$port"
    check_refusals "-s PORT from an IPv6 socket (::ffff:127.0.0.1)" $((before + 1)) "127\\.0\\.0\\.1:[0-9]+"
else
    echo "not run: IPv6 sockets are off here, so no client reaches the port through ::ffff:127.0.0.1"
fi
owner_gdb "127.0.0.1:$port" "$WORK/owner-tcp.out"
server_exits PORT
if grep -q "refused a connection from uid 0 " "$WORK/server.out"; then
    fail "-s PORT refused the owner"
    show "deja replay -s" "$WORK/server.out"
fi

# --- -s unix:PATH ----------------------------------------------------------------------
mkdir "$WORK/sock" && chmod 755 "$WORK" "$WORK/sock" # nobody may reach the socket's file
SOCK=$WORK/sock/gdb.sock
: >"$WORK/hostile.out"
(umask 000 && exec "$DEJA" replay -s "unix:$SOCK" "$TRACE") >"$WORK/server.out" 2>&1 &
SERVER_PID=$!
if ! wait_for 1 "listening for gdb on unix:$SOCK" "$WORK/server.out"; then
    fail "deja replay -s unix:PATH did not listen"
    show "deja replay -s unix:PATH" "$WORK/server.out"
    finish
fi
mode=$(stat -c '%F %a' "$SOCK")
if [ "$mode" = "socket 600" ]; then
    pass "-s unix:PATH: the socket is 0600 under umask 000"
else
    fail "-s unix:PATH: the socket is '$mode', expected 'socket 600'"
fi
hostile unix "$SOCK"
if grep -q 'packet error .*Permission denied' "$WORK/hostile.out" && ! grep -q refused "$WORK/server.out"; then
    pass "-s unix:PATH: nobody cannot open the socket"
else
    fail "-s unix:PATH: nobody could open the 0600 socket"
    show "hostile clients" "$WORK/hostile.out"
fi
# Opened to all, the socket still serves no one but its owner (SO_PEERCRED).
chmod 666 "$SOCK"
: >"$WORK/hostile.out"
as_nobody timeout 60 gdb -batch -nx -iex "set remotetimeout 20" \
    -ex "target extended-remote $SOCK" -ex "info registers rip" >"$WORK/nobody-gdb.out" 2>&1
if grep -q '^rip ' "$WORK/nobody-gdb.out"; then
    fail "-s unix:PATH: nobody's gdb read the replay's registers"
    show "nobody's gdb" "$WORK/nobody-gdb.out"
else
    pass "-s unix:PATH: nobody's gdb read nothing"
fi
hostile unix "$SOCK"
check_refusals "-s unix:PATH opened to all" 10 "pid [0-9]+"
owner_gdb "$SOCK" "$WORK/owner-unix.out"
server_exits unix:PATH
if [ -e "$SOCK" ]; then
    fail "-s unix:PATH left its socket behind"
else
    pass "-s unix:PATH removed its socket"
fi

# --- the gdb deja starts ---------------------------------------------------------------
mkdir "$WORK/tmp" && chmod 1777 "$WORK/tmp"
# The debugger: a wrapper that, while deja waits for it, notes its arguments, deja's
# directory and whether nobody can connect to the socket it was given, then runs gdb.
cat >"$WORK/debugger" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$WORK/debugger.args"
sock=\$(sed -n 's/^target extended-remote //p' "$WORK/debugger.args")
echo "private dir: \$(stat -c '%a %U' "\${sock%/*}")" >"$WORK/debugger.notes"
$AS_NOBODY "$PY" -c 'import sys, socket; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "\$sock" 2>&1 |
    tail -n 1 | sed 's/^/nobody connecting: /' >>"$WORK/debugger.notes"
exec gdb "\$@"
EOF
chmod 755 "$WORK/debugger"
# Run from gdb while it debugs: deja's sockets (deja: gdb's ancestor of that name).
cat >"$WORK/inspect.sh" <<EOF
p=\$\$
while [ "\$p" -gt 1 ] && [ "\$(cat /proc/\$p/comm)" != deja ]; do p=\$(awk '{ print \$4 }' /proc/\$p/stat); done
inodes=\$(ls -l /proc/\$p/fd | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p')
tcp=0; unix=0
for i in \$inodes; do
    awk -v i=\$i '\$10 == i { found = 1 } END { exit !found }' /proc/net/tcp /proc/net/tcp6 && tcp=\$((tcp + 1))
    awk -v i=\$i '\$7 == i { found = 1 } END { exit !found }' /proc/net/unix && unix=\$((unix + 1))
done
echo "deja sockets: tcp \$tcp unix \$unix"
echo "in TMPDIR while gdb debugs: [\$(ls -A "$WORK/tmp")]"
EOF
TMPDIR=$WORK/tmp timeout 120 "$DEJA" replay --debugger "$WORK/debugger" "$TRACE" -- \
    -batch -nx -iex "set remotetimeout 60" -iex "handle SIGKILL nostop noprint pass" \
    -ex "shell sh $WORK/inspect.sh" \
    -ex "break main" -ex "continue" -ex "next" -ex "print a" -ex "continue" >"$WORK/own.out" 2>&1
status=$?
if [ "$status" -eq 0 ] && grep -q '^Breakpoint 1, main ()' "$WORK/own.out" &&
    grep -q '^\$1 = 3$' "$WORK/own.out"; then
    pass "deja replay --debugger WRAPPER: its gdb debugs the replay, status 0"
else
    fail "deja replay --debugger WRAPPER: status $status, or gdb did not debug"
    show "deja replay and its gdb" "$WORK/own.out"
fi
target=$(grep -A1 -x -e '-ex' "$WORK/debugger.args" 2>/dev/null | grep '^target ' | head -n 1)
case "$target" in
"target extended-remote $WORK/tmp/deja-gdb-"*/gdb.sock) pass "the debugger was given a unix socket in \$TMPDIR: $target" ;;
*) fail "the debugger was given '$target', expected a unix socket in \$TMPDIR" ;;
esac
if grep -q '^private dir: 700 root$' "$WORK/debugger.notes"; then
    pass "deja's directory for gdb's socket is 0700, deja's own"
else
    fail "deja's directory for gdb's socket is not 0700 and root's"
    show "the debugger's notes" "$WORK/debugger.notes"
fi
if grep -q '^nobody connecting: .*Permission denied' "$WORK/debugger.notes"; then
    pass "nobody cannot connect to the socket of the gdb deja started"
else
    fail "nobody was not denied the socket of the gdb deja started"
    show "the debugger's notes" "$WORK/debugger.notes"
fi
if grep -q '^deja sockets: tcp 0 unix [1-9]' "$WORK/own.out"; then
    pass "deja holds no TCP socket while its gdb debugs (unix only)"
else
    fail "deja's sockets while its gdb debugs: $(grep '^deja sockets' "$WORK/own.out")"
fi
if grep -q '^in TMPDIR while gdb debugs: \[\]$' "$WORK/own.out"; then
    pass "deja's directory is gone once its gdb has connected"
else
    fail "deja's directory is still there while gdb debugs: $(grep '^in TMPDIR while' "$WORK/own.out")"
fi
left=$(ls -A "$WORK/tmp")
if [ -z "$left" ]; then
    pass "deja removed its directory for gdb"
else
    fail "deja left in \$TMPDIR: $left"
fi
finish
