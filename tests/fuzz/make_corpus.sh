#!/bin/sh
# Makes the seed corpora of the fuzz targets (tests/fuzz/corpus/NAME/) from real traces
# and real gdb sessions on this machine. Run it by hand after a normal build when the
# trace format or the protocol changes (the corpora are committed; `make fuzz` and the
# fuzz_corpus_* tests only read them):
#   tests/fuzz/make_corpus.sh BUILD-DIR
# trace_stream: events files of small recordings, a few with their chunks rewritten as
#   raw zstd blocks (seed_tool rawblocks), one with records split across chunks.
# trace_event: one record of each kind and flags seen, the smallest two.
# trace_store: preserved files by their hash.
# gdb_server: the bytes gdb sent in a session of a gdb test (its .gdb commands against
#   `deja replay -s`, through gdb_capture.py), cut into pieces of 3 KB behind a flags
#   byte (split_session.py, fuzz_target.h), and packets of every kind gdb did not send
#   (command_seeds.py); gdb_packet: pieces of some of the sessions; gdb_agent: the
#   conditions gdb sent in Z0 packets (text and bytecode); gdb_vfile: the vFile requests
#   of the sessions, one a line.
# Inputs the fuzzers found that crashed (regressions) are kept in the corpora as
#   crash-*: this script does not remove them.
set -eu
BUILD=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
DEJA=$BUILD/bin/deja
CORPUS=$HERE/corpus
WORK=$(mktemp -d "${TMPDIR:-/tmp}/deja-corpus.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
DEJA_TRACE_DIR=$WORK/traces
export DEJA_TRACE_DIR
mkdir -p "$DEJA_TRACE_DIR"
for name in trace_stream trace_event trace_store gdb_server gdb_packet gdb_agent gdb_vfile; do
    mkdir -p "$CORPUS/$name"
    find "$CORPUS/$name" -type f ! -name 'crash-*' -delete
done

cc -O1 -g -D_GNU_SOURCE -I"$SRC/src" "$HERE/seed_tool.c" "$BUILD/libdejacore.a" \
    -lzstd -lxxhash -ldl -lm -o "$WORK/seed_tool"
SEED=$WORK/seed_tool

# ---- traces ----
PROGRAMS="hello file_io mmap_file mmap_data_file shared_file_grow mremap_file pt_fork_wait
pt_dev_zero pt_vfork_exec mt_racy_counter sig_segv_siginfo sig_trap_int3 sig_death_abort
rdtsc cpuid br_ptrace_child br_seccomp_filter unsupported_syscall"
mkdir -p "$WORK/records"
for p in $PROGRAMS; do
    "$DEJA" record "$BUILD/tests/programs/$p" </dev/null >/dev/null 2>&1 || true
    events=$DEJA_TRACE_DIR/$p-0/events
    [ -f "$events" ] || { echo "make_corpus: no trace of $p" >&2; continue; }
    "$SEED" records "$events" "$WORK/records"
    # the small ones whole (compressed as recorded)
    if [ "$(stat -c %s "$events")" -le 12000 ]; then
        cp "$events" "$CORPUS/trace_stream/$p.events"
    fi
done
for p in hello sig_segv_siginfo; do
    "$SEED" rawblocks "$DEJA_TRACE_DIR/$p-0/events" "$CORPUS/trace_stream/$p.raw-blocks.events"
done
# records split across chunks, and one dropped after its first fragment
"$SEED" split "$DEJA_TRACE_DIR/sig_segv_siginfo-0/events" 12 "$CORPUS/trace_stream/split-records.events"
# per kind and flags the smallest two records (the smallest exec only: it holds a stack)
for f in "$WORK"/records/*; do
    key=$(basename "$f" | sed -E 's/^.*-0-([a-z]+-[0-9a-f]+)-[0-9]+$/\1/')
    echo "$(stat -c %s "$f") $key $f"
done | sort -k2,2 -k1,1n | awk '{ if (c[$2]++ < ($2 ~ /^exec/ ? 1 : 2)) print $3 }' |
    while read -r f; do cp "$f" "$CORPUS/trace_event/"; done

# preserved files: a small text file, and a library's first page
printf 'preserved file contents\n' >"$WORK/small"
head -c 4096 "$(ldd "$DEJA" | awk '/libc.so/ {print $3}')" >"$WORK/libc-page"
"$SEED" store 0 notes.txt "$WORK/small" "$CORPUS/trace_store/small-text"
"$SEED" store 2 notes.txt "$WORK/small" "$CORPUS/trace_store/small-text-stored"
"$SEED" store 7 libc.so.6 "$WORK/libc-page" "$CORPUS/trace_store/libc-page-large-stored"
printf '\002name-without-hash\000.ok-link\000bytes' >"$CORPUS/trace_store/no-hash"

# ---- gdb sessions ----
# test name, program (tests/gdb/NAME.gdb holds the commands)
SESSIONS="cond_breaks:cond_breaks breakpoints:breakpoints watchpoints:watchpoints calls:calls
registers:registers forks:forks syscalls:syscalls reverse:reverse sigusr1:sigusr1
process_info:process_info threads:threads writes_refused:writes"
port=7400
for s in $SESSIONS; do
    test=${s%%:*} program=${s#*:}
    port=$((port + 2))
    "$DEJA" record "$BUILD/tests/gdb/$program" </dev/null >/dev/null 2>&1 || true
    trace=$(ls -d "$DEJA_TRACE_DIR/$program"-* | tail -1)
    "$DEJA" replay -q -s $port "$trace" >"$WORK/server.out" 2>&1 &
    server=$!
    sleep 1
    python3 "$HERE/gdb_capture.py" $((port + 1)) $port "$WORK/$test.gdbin" &
    proxy=$!
    sleep 0.5
    set -- -batch -nx -ex 'set remotetimeout 60' \
        -ex "target extended-remote 127.0.0.1:$((port + 1))"
    while IFS= read -r line; do
        case "$line" in '' | '#'*) continue ;; esac
        set -- "$@" -ex "$line"
    done <"$SRC/tests/gdb/$test.gdb"
    timeout 120 gdb "$@" </dev/null >/dev/null 2>&1 || true
    kill $server $proxy 2>/dev/null || true
    wait $server $proxy 2>/dev/null || true
    in=$WORK/$test.gdbin
    [ -s "$in" ] || { echo "make_corpus: no gdb session for $test" >&2; continue; }
    # flags: threads, xsave, writable, conditions, restart, detach, checksums fixed
    python3 "$HERE/split_session.py" "$in" 0xbf "$CORPUS/gdb_server/$test"
    case $test in cond_breaks | calls | forks | reverse)
        python3 "$HERE/split_session.py" "$in" 0x06 "$CORPUS/gdb_packet/$test" 6000 ;;
    esac
    # the agent expressions of the conditional breakpoints: text, and each one's bytecode
    tr '$' '\n' <"$in" | sed -n 's/^[Zz][01],[0-9a-f]*,[0-9a-f]*\(;X[^#]*\)#.*/\1/p' | sort -u |
        while IFS= read -r conds; do
            sum=$(printf '%s' "$conds" | cksum | cut -d' ' -f1)
            printf '\037%s' "$conds" >"$CORPUS/gdb_agent/$test-conds-$sum"
            printf '%s' "$conds" | sed 's/^;X[0-9a-f]*,//; s/;X.*//' | xxd -r -p |
                { printf '\036'; cat; } >"$CORPUS/gdb_agent/$test-code-$sum"
        done
    tr '$' '\n' <"$in" | sed -n 's/^vFile:\([^#]*\)#.*/\1/p' | head -40 >"$WORK/vfile"
    if [ -s "$WORK/vfile" ]; then
        { printf '\003'; cat "$WORK/vfile"; } >"$CORPUS/gdb_vfile/$test.requests"
    fi
done
python3 "$HERE/command_seeds.py" "$CORPUS/gdb_server/commands"
# gdb_agent: sessions without conditions gave none; the vFile paths read as the fake
# target names its files
printf '\000open:2f6d697373696e67,0,0\nopen:2f646972,0,0\nfstat:0\nreadlink:2f6c6f6e67\nreadlink:2f6d697373696e67\nsetfs:0\nopen:2f612f62,0,0\npread:1,4000,0\npread:1,10,fffffffffffffff0\nclose:1\nclose:1\n' \
    >"$CORPUS/gdb_vfile/fake-target-files"
du -sh "$CORPUS"/*
