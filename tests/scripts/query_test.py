#!/usr/bin/env python3
"""deja query against recordings of tests/programs/query_target.c, whose writes, calls and
output are known: exact counts and values, the JSON lines parsed, a -g to a write's
position checked in gdb (stopped just before the writing instruction), bad input (exit 2
with what to pass instead), and the trace unchanged by every query.

Usage: query_test.py CASE DEJA PROGRAM
CASE: writes | threads (recorded twice) | fork | calls | output | goto | monitor | bad |
      nohw (writes and calls without debug registers or perf breakpoints: page protection
      and traps) | preempt (PROGRAM's sibling query_preempt, two threads computing past
      their time slices, recorded twice) | many (PROGRAM's sibling query_many: thousands
      of calls logged in the task, checked against their formulas and against the same
      query with every call trapped, DEJA_NO_CALL_LOG) | preempt_calls (PROGRAM's sibling
      query_calls_preempt: two threads calling step() across state points) | cpp
      (tests/programs/query_cpp.cc, built with g++: qualified C++ names)"""
import hashlib
import re
import json
import os
import shutil
import subprocess
import sys
import tempfile

CASE, DEJA, PROGRAM = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = tempfile.mkdtemp(prefix="deja-query-test-")
ENV = dict(os.environ, DEJA_TRACE_DIR=WORK)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args, **kw):
    return subprocess.run(args, env=ENV, capture_output=True, text=True, timeout=240, **kw)


def record(*args, program=PROGRAM):
    r = run([DEJA, "record"] + list(args) + [program])
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        sys.exit("recording failed")
    return os.path.join(WORK, os.readlink(os.path.join(WORK, "latest-trace")))


def trace_digest(trace):
    h = hashlib.sha256()
    for root, _, names in sorted(os.walk(trace)):
        for name in sorted(names):
            with open(os.path.join(root, name), "rb") as f:
                h.update(name.encode() + f.read())
    return h.hexdigest()


def query(trace, *args, status=0):
    opts = [a for i, a in enumerate(args) if a.startswith("--") or (i and args[i - 1].startswith("--"))]
    rest = [a for a in args if a not in opts]
    r = run([DEJA, "query", "--json"] + opts + [trace] + rest)
    check(r.returncode == status, f"query {args}: exit {r.returncode}, wanted {status}: {r.stderr}")
    rows = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    for row in rows:
        for key in ("pos", "event", "pid", "tid", "pc", "function", "file", "line"):
            check(key in row, f"query {args}: row without {key}: {row}")
    return rows


def check_counter(trace, with_child):
    rows = query(trace, "writes", "counter")
    news = [r["new"] for r in rows]
    want = [1, 3, 6, 10, 15, 100, 101, 102] + ([200] if with_child else [])
    check(news == want, f"counter's writes: {news}, wanted {want}")
    olds = [r["old"] for r in rows]
    check(olds[:8] == [0] + want[:7], f"counter's old values: {olds}")
    main = rows[0]["tid"]
    check(all(r["tid"] == main and r["function"] == "main" for r in rows[:5]), "main's writes")
    check(all(r["tid"] != main and r["function"] == "worker" for r in rows[5:8]),
          "the worker thread's writes, by another thread")
    check(all(r["pid"] == main for r in rows[:8]), "the threads' pid")
    check(all(r["file"].endswith("query_target.c") for r in rows), "file names")
    if with_child:
        check(rows[8]["pid"] != main and rows[8]["old"] == 102, f"the child's write: {rows[8]}")
    events = [(r["event"]) for r in rows]
    check(events == sorted(events), "recording order")
    return rows


def case_writes():
    trace = record()
    before = trace_digest(trace)
    check_counter(trace, False)
    ratio = query(trace, "writes", "ratio")
    check([(r["old"], r["new"]) for r in ratio] == [(0, 3), (3, 9)], f"ratio: {ratio}")
    same = query(trace, "writes", "same")
    check([(r["old"], r["new"]) for r in same] == [(0, 7), (7, 7)], f"same-value write: {same}")
    big = query(trace, "writes", "big")
    check(len(big) >= 1 and big[-1]["new"] == "x" * 24, f"big (a char array: a string): {big}")
    pairs = query(trace, "writes", "pairs")
    check([r["new"] for r in pairs] == [{"lo": 0, "hi": [0, 5, 0]}, {"lo": 9, "hi": [0, 5, 0]}],
          f"a struct, typed: {pairs}")
    hi = query(trace, "writes", "pairs.hi[1]")
    check([(r["old"], r["new"]) for r in hi] == [(0, 5)], f"a member's element: {hi}")
    addr = same[0]["pos"].split("/")[3]
    raw = query(trace, "writes", f"{addr}:8")
    check([r["new"] for r in raw] == ["0700000000000000"] * 2, f"ADDR:LEN: {raw}")
    limited = query(trace, "--limit", "2", "writes", "counter")
    check(len(limited) == 2, f"--limit 2: {len(limited)} rows")
    last = check_counter(trace, False)
    frm = query(trace, "--from", last[5]["pos"], "writes", "counter")
    check([r["new"] for r in frm] == [100, 101, 102], f"--from: {frm}")
    to = query(trace, "--to", last[1]["pos"], "writes", "counter")
    check([r["new"] for r in to] == [1, 3], f"--to: {to}")
    table = run([DEJA, "query", trace, "writes", "counter"])
    check(table.returncode == 0 and table.stdout.startswith("POS") and
          len(table.stdout.splitlines()) == 9, f"table: {table.stdout}")
    check(trace_digest(trace) == before, "the trace changed")


def case_threads():
    for _ in range(2):
        check_counter(record(), False)


def case_fork():
    trace = record()
    shutil.rmtree(trace)
    r = run([DEJA, "record", PROGRAM, "x"])
    check(r.returncode == 0, "recording with a child")
    trace = os.path.join(WORK, os.readlink(os.path.join(WORK, "latest-trace")))
    rows = check_counter(trace, True)
    only = query(trace, "--pid", str(rows[8]["pid"]), "writes", "counter")
    check([r["new"] for r in only] == [200], f"--pid: {only}")
    rc, out = gdb(trace, ["-g", rows[8]["pos"]], ["p counter",
                                                  "info inferiors", "stepi", "p counter"])
    check(rc == 0 and "$1 = 102" in out and "$2 = 200" in out and
          f"process {rows[8]['pid']}" in out, f"-g into the child, before its write: {out}")


def case_nohw():
    ENV["DEJA_NO_DEBUG_REGISTERS"] = ENV["DEJA_NO_PERF_BREAKPOINTS"] = "1"
    trace = record()
    check_counter(trace, False)
    case_calls(trace)
    rows = query(trace, "writes", "counter")
    rc, out = gdb(trace, ["-g", rows[3]["pos"]], ["p counter", "stepi", "p counter"])
    check(rc == 0 and "$1 = 6" in out and "$2 = 10" in out, f"-g without debug registers: {out}")


def case_preempt():
    program = os.path.join(os.path.dirname(PROGRAM), "query_preempt")
    for _ in range(2):
        trace = record(program=program)
        r = run([DEJA, "dump", trace])
        check(" state at " in r.stdout, "the recording has state points (preempted compute)")
        rows = query(trace, "writes", "result")
        check(sorted(r["new"] for r in rows) == [11, 22], f"result's writes: {rows}")
        check(len({r["tid"] for r in rows}) == 2 and all(r["function"] == "worker" for r in rows),
              f"one write by each worker: {rows}")
        check(rows and rows[0]["old"] == 0 and rows[-1]["old"] == rows[0]["new"],
              f"old values: {rows}")
        replayed = run([DEJA, "replay", "-a", trace])
        check(rows and f"result={rows[-1]['new']} " in replayed.stdout,
              f"the last write is what the program printed: {replayed.stdout}")


def query_env(trace, env, *args):
    r = subprocess.run([DEJA, "query", "--json"] + list(args[:-2]) + [trace] + list(args[-2:]),
                       env=dict(ENV, **env), capture_output=True, text=True, timeout=240)
    check(r.returncode == 0, f"query {args} with {env}: exit {r.returncode}: {r.stderr}")
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()], r.stderr


def case_many():
    trace = record(program=os.path.join(os.path.dirname(PROGRAM), "query_many"))
    mix, err = query_env(trace, {"DEJA_QUERY_DEBUG": "1"}, "calls", "mix")
    logged = re.search(r"calls logged in the task: (\d+) records", err)
    check(logged and int(logged.group(1)) >= 2 * 9300 - 2, f"the calls were logged: {err}")
    main = [r for r in mix if r["caller"] == "main"]
    worker = [r for r in mix if r["caller"] == "worker"]
    check(len(main) == 9000 and len(worker) == 300, f"mix: {len(main)} + {len(worker)} rows")
    want = [({"a": i, "d": i * 0.25, "k": i % 5}, 3 * i + i % 5 + (int(i * 0.25) if i * 0.25 > 1 else 0))
            for i in range(9000)]
    check([(r["args"], r["return"]) for r in main] == want, "mix's calls by main")
    want = [({"a": 1000 + i, "d": 0.5, "k": 7}, 3 * (1000 + i) + 7) for i in range(300)]
    check([(r["args"], r["return"]) for r in worker] == want, "mix's calls by the worker")
    check(len({r["tid"] for r in main}) == 1 and len({r["tid"] for r in worker}) == 1 and
          main[0]["tid"] != worker[0]["tid"], "mix's threads")
    last = {}
    for r in mix:  # the n-th arrival of its thread in its stretch, in order
        event, tid, n = r["event"], r["tid"], int(r["pos"].split("/")[-1])
        check(n == (last[tid][1] + 1 if tid in last and last[tid][0] == event else 1),
              f"position {r['pos']} after {last.get(tid)}")
        last[tid] = (event, n)
    avg = query(trace, "calls", "avg")
    check([(r["args"], r["return"]) for r in avg] == [({"a": i, "b": 1}, (i + 1) / 2) for i in range(500)],
          f"avg: {avg[:3]}")
    depth = query(trace, "calls", "depth")
    check([(r["args"]["n"], r["return"], r["caller"]) for r in depth] ==
          [(n, n * (n + 1) // 2, "main" if n == 40 else "depth") for n in range(40, -1, -1)],
          f"depth: {depth[:3]}")
    twice, err = query_env(trace, {"DEJA_QUERY_DEBUG": "1"}, "calls", "twice")
    logged = re.search(r"calls logged in the task: (\d+) records", err)
    check(logged and int(logged.group(1)) >= 2 * 100 - 2, f"twice's calls were logged: {err}")
    check([(r["args"], r["return"]) for r in twice] == [({"a": i}, 2 * i) for i in range(100)],
          f"twice: {twice[:3]}")
    trapped, _ = query_env(trace, {"DEJA_NO_CALL_LOG": "1"}, "calls", "twice")
    check(trapped == twice, f"twice with every call trapped: {trapped[:3]}")
    trapped, _ = query_env(trace, {"DEJA_NO_CALL_LOG": "1"}, "calls", "depth")
    check(trapped == depth, f"depth with every call trapped: {trapped[:3]}")
    trapped, _ = query_env(trace, {"DEJA_NO_CALL_LOG": "1"}, "--limit", "40", "calls", "mix")
    check(trapped == mix[:40], f"mix with every call trapped: {trapped[:3]}")
    rc, out = gdb(trace, ["-g", main[5000]["pos"]], ["p a", "p k"])
    check(rc == 0 and "$1 = 5000" in out and "$2 = 0" in out, f"-g to a logged call: {out}")


def case_preempt_calls():
    trace = record(program=os.path.join(os.path.dirname(PROGRAM), "query_calls_preempt"))
    r = run([DEJA, "dump", trace])
    check(" state at " in r.stdout, "the recording has state points (preempted compute)")
    rows = query(trace, "calls", "step")
    threads = {}
    for row in rows:
        threads.setdefault(row["tid"], []).append(row)
    check(len(threads) == 2 and all(len(t) == 5000 for t in threads.values()),
          f"5000 calls in each thread: {[len(t) for t in threads.values()]}")
    sums = []
    for t in threads.values():
        check(all(t[i + 1]["args"]["x"] == t[i]["return"] for i in range(len(t) - 1)) and
              t[0]["args"]["x"] in (1, 2), f"each call's argument is the last one's return: {t[:2]}")
        sums.append((t[0]["args"]["x"], sum(c["return"] for c in t) % (1 << 64)))
    printed = run([DEJA, "replay", "-a", trace]).stdout
    want = "sums " + " ".join(f"{s:x}" for _, s in sorted(sums))
    check(want in printed, f"the returns add up to what the program printed: {want}, {printed}")


def case_calls(trace=None):
    trace = trace or record()
    add = query(trace, "calls", "add")
    got = [(r["args"], r["return"], r["caller"]) for r in add]
    want = [({"a": a, "b": b}, a + b, "main") for a, b in [(0, 1), (1, 2), (3, 3), (6, 4), (10, 5)]]
    want += [({"a": 100, "b": i}, 100 + i, "worker") for i in range(3)]
    check(got == want, f"add: {got}")
    check(len({r["tid"] for r in add[:5]}) == 1 and add[5]["tid"] != add[0]["tid"] and
          len({r["tid"] for r in add[5:]}) == 1, f"add's callers' threads: {add}")
    check(all(r["function"] == "add" for r in add), "add's rows")
    scale = query(trace, "calls", "scale")
    check([(r["args"], r["return"]) for r in scale] == [({"x": 1.5, "k": 2}, 3), ({"x": 3, "k": 3}, 9)],
          f"scale: {scale}")
    first = query(trace, "--limit", "2", "calls", "add")
    check([r["return"] for r in first] == [1, 3], f"--limit 2 calls (returns awaited): {first}")
    # a function of a library ld.so loads after the first event, by its versioned name
    create = query(trace, "calls", "pthread_create")
    # (its second argument, attr, is NULL: typed where libc's debug information has it)
    check(len(create) == 1 and create[0]["caller"] == "main" and
          list(create[0]["args"].values())[1] in ("0x0", 0) and create[0]["return"] in ("0x0", 0),
          f"calls pthread_create (libc): {create}")
    # options after the expression
    r = run([DEJA, "query", trace, "calls", "add", "--json", "--limit", "1"])
    rows = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    check(r.returncode == 0 and [row["return"] for row in rows] == [1],
          f"options after FUNCTION: {r.returncode} {rows} {r.stderr}")
    raw = query(trace, "calls", add[0]["pc"][2:])
    check(len(raw) == 8 and raw[0]["args"]["rdi"] == "0x0" and raw[4]["return"] == "0xf",
          f"calls ADDR: {raw}")


def case_cpp():
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "programs",
                          "query_cpp.cc")
    program = os.path.join(WORK, "query_cpp")
    subprocess.run(["g++", "-g", "-O0", "-o", program, source], check=True)
    trace = record(program=program)
    out = run([DEJA, "replay", "-a", trace]).stdout
    k = int(re.search(r"k=(\d+)", out).group(1))
    bump = query(trace, "calls", "ns::Counter::bump")
    check([(r["args"]["by"], r["function"], r["caller"]) for r in bump] ==
          [(k + i, "ns::Counter::bump", "main") for i in range(3)], f"ns::Counter::bump: {bump}")
    check([r["return"] for r in bump] == [k, 2 * k + 1, 3 * k + 3], f"bump's returns: {bump}")
    glob = query(trace, "calls", "twice")
    inner = query(trace, "calls", "ns::twice")
    check([r["return"] for r in glob] == [3 * k] and [r["return"] for r in inner] == [2 * k],
          f"twice and ns::twice: {glob} {inner}")
    total = query(trace, "writes", "ns::Counter::total")
    check([r["new"] for r in total] == [k, 2 * k + 1, 3 * k + 3] and
          all(r["function"] == "ns::Counter::bump" for r in total), f"ns::Counter::total: {total}")
    counter = query(trace, "writes", "ns::counter")
    check([(r["old"], r["new"], r["function"]) for r in counter] == [(0, k, "ns::twice")],
          f"ns::counter: {counter}")


def case_output():
    for opts in ([], ["-n"]):
        trace = record(*opts)
        out = query(trace, "output", "counter=")
        check(len(out) == 1 and out[0]["fd"] == 1 and out[0]["text"].startswith("counter=102"),
              f"output {opts}: {out}")
        # buffered or traced, the printf's backtrace reaches main and starts in libc's
        # write, without deja's own library's frames; the row is at that first frame
        frames = out[0]["backtrace"] if out else []
        check(any(f.startswith("main ") for f in frames) and
              not any(f.startswith(("preload_", "sbuf_")) for f in frames) and
              out[0]["function"] == frames[0].split(" ")[0],
              f"backtrace {opts}: {out}")
        err = query(trace, "output", "query-marker")
        check(any(f.startswith("main ") for f in err[0]["backtrace"]) if err else False,
              f"write()'s backtrace reaches main {opts}: {err}")
        err = query(trace, "output", "query-marker")
        check(len(err) == 1 and err[0]["fd"] == 2 and err[0]["text"] == "query-marker\n",
              f"stderr {opts}: {err}")
        check(query(trace, "output", "no such text") == [], "no match")


def gdb(trace, args, cmds):
    ex = []
    for c in cmds:
        ex += ["-ex", c]
    r = run([DEJA, "replay"] + args + [trace, "--", "-batch", "-nx"] + ex)
    return r.returncode, r.stdout + r.stderr


def case_goto():
    trace = record()
    rows = query(trace, "writes", "counter")
    rc, out = gdb(trace, ["-g", rows[2]["pos"]], ["p/x $pc", "p counter", "stepi", "p counter"])
    check(rc == 0, f"replay -g: exit {rc}: {out}")
    check(f"= {rows[2]['pc']}" in out, f"-g stops at the writing instruction {rows[2]['pc']}: {out}")
    check("$2 = 3" in out and "$3 = 6" in out, f"just before the write (3, then 6): {out}")
    calls = query(trace, "calls", "scale")
    rc, out = gdb(trace, ["-g", calls[1]["pos"]], ["p x", "p k"])
    check(rc == 0 and "$1 = 3" in out and "$2 = 3" in out, f"-g to a call: {out}")
    rc, out = gdb(trace, [], [f"monitor goto {rows[6]['pos']}", "p counter", "p $_thread"])
    check(rc == 0 and "$1 = 100" in out, f"monitor goto: {out}")


def case_monitor():
    trace = record()
    rc, out = gdb(trace, [], ["monitor writes same", "monitor calls add"])
    check(rc == 0, f"exit {rc}")
    writes = [line.split() for line in out.splitlines() if "/w/" in line]
    check([w[-2:] for w in writes] == [["0", "7"], ["7", "7"]], f"monitor writes: {out}")
    calls = [line.split() for line in out.splitlines() if "/a/" in line]
    check([c[-1] for c in calls] == ["1", "3", "6", "10", "15", "100", "101", "102"] and
          [c[4] for c in calls] == ["main"] * 5 + ["worker"] * 3, f"monitor calls: {out}")


def case_bad():
    trace = record()
    before = trace_digest(trace)
    for args, words in ((["writes", "nosuch"], "ADDR:LEN"), (["writes", "a+b"], "ADDR[:LEN]"),
                        (["writes", "*p"], "cannot type"), (["calls", "nosuch"], "no function"),
                        (["writes", "pairs.nosuch"], "no member"),
                        (["writes", "pairs.hi[3]"], "outside"),
                        (["calls", "memset"], "IFUNC")):
        r = run([DEJA, "query", trace] + args)
        check(r.returncode == 2 and words in r.stderr, f"{args}: exit {r.returncode}: {r.stderr}")
    stripped = os.path.join(WORK, "stripped")
    subprocess.run(["objcopy", "--strip-debug", PROGRAM, stripped], check=True)
    r = run([DEJA, "record", stripped])
    strace = os.path.join(WORK, os.readlink(os.path.join(WORK, "latest-trace")))
    r = run([DEJA, "query", strace, "writes", "counter"])
    check(r.returncode == 2 and "no debug information" in r.stderr and "ADDR:LEN" in r.stderr,
          f"without debug info: {r.returncode}: {r.stderr}")
    r = run([DEJA, "query", trace, "writes"])
    check(r.returncode == 1, f"usage error: {r.returncode}")
    r = run([DEJA, "query", os.path.join(WORK, "none"), "writes", "counter"])
    check(r.returncode == 1, f"no trace: {r.returncode}")
    check(trace_digest(trace) == before, "the trace changed")


try:
    globals()["case_" + CASE]()
finally:
    shutil.rmtree(WORK, ignore_errors=True)
if failures:
    sys.exit(f"{len(failures)} checks failed")
print("ok")
