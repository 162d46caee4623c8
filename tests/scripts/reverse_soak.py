# Consistency soak for reverse execution, run inside gdb (`deja replay TRACE -- -batch -x
# reverse_soak.py`) by reverse_soak.sh, which sets the environment below. One round:
#   forwards  `continue` up to SOAK_STOPS stops, each fingerprinted (thread, registers,
#             the stack from the red zone up, the executable's .data and .bss, the
#             watched bytes); at each, SOAK_STEPS stepi/reverse-stepi pairs must come
#             back to the same fingerprints;
#   backwards `reverse-continue` from the last stop must land on the forward stops in
#             reverse order (a watchpoint's stop is before its write: one stepi from it
#             must give the forward stop; a call's entry is not stopped at backwards);
#   forwards  `continue` from there must give the same stops again.
# Each mismatch is one line "SOAK-DIFF: program=P round=R stop=N (the stop) phase: what
# differs", and the round ends with "SOAK-DONE: P R stops=N diffs=D".
# The watch round runs to the exit and back to the start first, to pick a global that
# changes. Environment: SOAK_PROGRAM (name in messages), SOAK_ROUND (functions|calls|watch),
# SOAK_FUNCS, SOAK_CALLS, SOAK_GLOBALS (space-separated names), SOAK_IGNORE (ADDR:LEN, hex:
# bytes not compared), SOAK_STOPS (default 8), SOAK_STEPS (default 1).
import os
import re

import gdb

PROGRAM = os.environ.get("SOAK_PROGRAM", "?")
ROUND = os.environ.get("SOAK_ROUND", "functions")
MAX_STOPS = int(os.environ.get("SOAK_STOPS", "8"))
STEP_PAIRS = int(os.environ.get("SOAK_STEPS", "1"))
STACK_BELOW = 128  # the red zone: below it is no state of the program's
STACK_ABOVE = 1024
DATA_MAX = 256 * 1024  # of the executable's .data and .bss, compared
U64 = 2**64 - 1
ENOSYS_RAX = 2**64 - 38  # rax at a system call's entry
SYS_EXIT_GROUP = 231

REGS = ("rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip eflags "
        "cs ss ds es fs gs fs_base gs_base mxcsr").split() + ["xmm%d" % i for i in range(16)]

diffs = 0
watched = None  # (address, length, name) of the watch round's global
last_stop = None  # the latest stop or exit event, set by the handlers below


def say(text):
    gdb.write(text + "\n")
    gdb.flush()


def on_stop(event):
    global last_stop
    last_stop = event


def on_exit(event):
    global last_stop
    last_stop = "exit"


def quiet(command):
    try:
        return gdb.execute(command, to_string=True) or ""
    except gdb.error as e:
        return "error: %s" % e


def run(command):
    """Runs a gdb command that moves; returns (kind, description) of its stop (gdb prints
    the stop itself, out of to_string's reach: the stop event tells). Kinds: breakpoint,
    watch, sysentry, sysreturn (a catchpoint: rax is -ENOSYS at an entry), signal, step,
    history (a plain stop at the replay's first instruction), stopped (any other plain
    stop: deja's "Program stopped."), exit, error."""
    global last_stop
    last_stop = None
    try:
        gdb.execute(command, to_string=True)
    except gdb.error as e:
        return "error", "gdb error: %s" % e
    event = last_stop
    if event is None:
        return "error", "no stop after %s" % command
    if event == "exit" or not gdb.selected_thread() or not gdb.selected_thread().is_valid():
        return "exit", "the program exited"
    try:
        frame = gdb.newest_frame()
    except gdb.error as e:
        return "exit", "no frame (%s)" % e
    where = "pc 0x%x in %s, thread %d" % (frame.pc(), frame.name() or "??",
                                          gdb.selected_thread().ptid[1])
    if isinstance(event, gdb.BreakpointEvent):
        bp = event.breakpoints[0]
        if bp.type in (gdb.BP_WATCHPOINT, gdb.BP_HARDWARE_WATCHPOINT):
            return "watch", "watchpoint %d (%s) at %s" % (bp.number, bp.expression, where)
        if bp.location:
            return "breakpoint", "breakpoint %d (%s) at %s" % (bp.number, bp.location, where)
        rax = int(frame.read_register("rax")) & U64
        kind = "sysentry" if rax == ENOSYS_RAX else "sysreturn"
        if kind == "sysentry" and int(frame.read_register("orig_rax")) == SYS_EXIT_GROUP:
            return "exiting", "the program's exit_group at %s" % where
        return kind, "catchpoint %d (%s call %d) at %s" % (
            bp.number, "entry of" if kind == "sysentry" else "return of",
            int(frame.read_register("orig_rax")), where)
    if isinstance(event, gdb.SignalEvent):
        return "signal", "signal %s at %s" % (event.stop_signal, where)
    if command in ("stepi", "reverse-stepi"):
        return "step", where
    if frame.pc() == START_PC:
        return "history", "end of history at %s" % where
    return "stopped", "a plain stop (deja could not go on) at %s" % where


def read_mem(inferior, addr, length):
    """Bytes at addr, unreadable pages as None, so both sides compare alike."""
    out = []
    end = addr + length
    while addr < end:
        chunk = min(end, (addr | 0xFFF) + 1) - addr
        try:
            out.append(bytes(inferior.read_memory(addr, chunk)))
        except gdb.MemoryError:
            out.append(None)
        addr += chunk
    return out


def data_ranges():
    """The main executable's .data and .bss (from `info files`), capped at DATA_MAX."""
    ranges = []
    for line in quiet("info files").splitlines():
        m = re.match(r"\s*(0x[0-9a-f]+) - (0x[0-9a-f]+) is (\.data|\.bss)$", line)
        if m:
            lo, hi = int(m.group(1), 16), int(m.group(2), 16)
            ranges.append((m.group(3), lo, min(hi, lo + DATA_MAX)))
    return ranges


def ignored_ranges():
    """SOAK_IGNORE's "ADDR:LEN" (hex) ranges: bytes not compared."""
    out = []
    for item in os.environ.get("SOAK_IGNORE", "").split():
        addr, _, length = item.partition(":")
        try:
            out.append((int(addr, 16), int(length, 16)))
        except ValueError:
            pass
    return out


def blank_ignored(base, chunks):
    """CHUNKS (read at BASE) with the ignored bytes zeroed."""
    out = []
    addr = base
    for chunk in chunks:
        if chunk is not None:
            data = bytearray(chunk)
            for lo, length in IGNORED:
                for a in range(max(lo, addr), min(lo + length, addr + len(data))):
                    data[a - addr] = 0
            chunk = bytes(data)
            addr += len(chunk)
        else:
            addr = (addr | 0xFFF) + 1
        out.append(chunk)
    return out


def fingerprint():
    inferior = gdb.selected_inferior()
    thread = gdb.selected_thread()
    fp = {"thread": str(thread.ptid[1]) if thread else "none"}
    if not thread:
        return fp
    frame = gdb.newest_frame()
    for name in REGS:
        try:
            value = frame.read_register(name)
            if name.startswith("xmm"):
                fp["reg " + name] = int(value["uint128"]) & (2**128 - 1)
            else:
                fp["reg " + name] = int(value) & U64
        except (gdb.error, ValueError):
            pass
    rsp = fp.get("reg rsp")
    if rsp is not None:
        fp["mem stack"] = (rsp - STACK_BELOW,
                           read_mem(inferior, rsp - STACK_BELOW, STACK_BELOW + STACK_ABOVE))
    for name, lo, hi in DATA:
        fp["mem " + name] = (lo, blank_ignored(lo, read_mem(inferior, lo, hi - lo)))
    if watched:
        fp["mem watched"] = (watched[0], read_mem(inferior, watched[0], watched[1]))
    return fp


def describe_mem(key, expected, got):
    base, chunks_a = expected
    base_b, chunks_b = got
    if base != base_b:
        return None  # rsp differs, which is said already
    addr = base
    for ca, cb in zip(chunks_a, chunks_b):
        if ca != cb:
            if ca is None or cb is None:
                return "%s: page at 0x%x %s" % (key[4:], addr, "unreadable now" if cb is None
                                                else "readable now, was not")
            first = next(i for i, (x, y) in enumerate(zip(ca, cb)) if x != y)
            count = sum(1 for x, y in zip(ca, cb) if x != y)
            return "%s: byte at 0x%x is 0x%02x, expected 0x%02x (%d bytes differ in that page)" % (
                key[4:], addr + first, cb[first], ca[first], count)
        addr += len(ca) if ca is not None else len(cb or b"")
    return None


def compare(expected, got):
    """What differs between two fingerprints, as a list of short texts."""
    out = []
    if expected.get("thread") != got.get("thread"):
        out.append("thread %s, expected %s" % (got.get("thread"), expected.get("thread")))
    for key in sorted(set(expected) | set(got)):
        if key == "thread":
            continue
        a, b = expected.get(key), got.get(key)
        if a == b:
            continue
        if a is None or b is None:
            out.append("%s %s" % (key, "missing now" if b is None else "new"))
        elif key.startswith("reg "):
            out.append("%s=0x%x, expected 0x%x" % (key[4:], b, a))
        else:
            text = describe_mem(key, a, b)
            if text:
                out.append(text)
    return out


def diff(stop, what, phase, problems):
    global diffs
    diffs += 1
    say("SOAK-DIFF: program=%s round=%s stop=%d (%s) %s: %s" %
        (PROGRAM, ROUND, stop, what, phase, "; ".join(problems)))


def check(stop, what, phase, expected, got):
    problems = compare(expected, got)
    if problems:
        diff(stop, what, phase, problems)
    return not problems


def step_pairs(stop, what, here):
    """stepi / reverse-stepi pairs from a stop: each must come back where it started."""
    for pair in range(1, STEP_PAIRS + 1):
        kind, _ = run("stepi")
        if kind in ("exit", "exiting", "error", "stopped", "history"):
            return
        after = fingerprint()
        kind, said = run("reverse-stepi")
        if kind in ("error", "stopped", "history", "exit"):
            diff(stop, what, "reverse-stepi after stepi %d" % pair, ["%s: %s" % (kind, said)])
            return
        if not check(stop, what, "reverse-stepi after stepi %d" % pair, here, fingerprint()):
            return
        run("stepi")
        if not check(stop, what, "stepi again after reverse-stepi %d" % pair, after,
                     fingerprint()):
            return
        run("reverse-stepi")
        if not check(stop, what, "second reverse-stepi %d" % pair, here, fingerprint()):
            return


def pick_global():
    """The first of SOAK_GLOBALS whose value at the exit differs from the start's; the
    replay is run to its exit (a caught exit_group) and back to its start."""
    inferior = gdb.selected_inferior()
    candidates = []
    for name in os.environ.get("SOAK_GLOBALS", "").split():
        try:
            value = gdb.parse_and_eval("&'%s'" % name)
            size = value.dereference().type.sizeof
            addr = int(value.cast(gdb.lookup_type("long"))) & U64
        except gdb.error:
            continue
        if size in (1, 2, 4, 8):
            candidates.append((addr, size, name, read_mem(inferior, addr, size)))
    if not candidates:
        say("soak: no global of %s to watch" % PROGRAM)
        return None
    quiet("catch syscall exit_group")
    for _ in range(1000):  # signals stop on the way
        if run("continue")[0] in ("exiting", "exit", "error", "stopped"):
            break
    changed = [c for c in candidates if read_mem(inferior, c[0], c[1]) != c[3]]
    quiet("delete")
    kind, said = run("reverse-continue")  # nothing set: back to the start
    if kind != "history":
        diff(0, "the start", "reverse-continue with nothing set", ["%s: %s" % (kind, said)])
        return None
    if not changed:
        say("soak: none of the %d globals of %s changed" % (len(candidates), PROGRAM))
        return None
    return changed[0][:3]


def set_stops():
    """The round's stops, and the program's exit_group: the forward run ends there, where
    gdb can still go back (not after the exit)."""
    global watched
    if ROUND == "functions":
        names = os.environ.get("SOAK_FUNCS", "").split()
        # the program's own first: those with debug information (a static program's
        # neighbours of main are libc's too)
        own = [n for n in names if gdb.lookup_global_symbol(n) or gdb.lookup_static_symbol(n)]
        for name in (own or names)[:6]:
            quiet("break " + name)
    elif ROUND == "calls":
        calls = os.environ.get("SOAK_CALLS", "").split()
        if not calls:
            return False
        quiet("catch syscall " + " ".join(calls))
    elif ROUND == "watch":
        watched = pick_global()
        if not watched:
            return False
        say("soak: watching %s at 0x%x (%d bytes)" % (watched[2], watched[0], watched[1]))
        quiet("watch -l *(unsigned char (*)[%d])0x%x" % (watched[1], watched[0]))
    quiet("catch syscall exit_group")
    return True



def soak():
    if not set_stops():
        say("SOAK-DONE: %s %s stops=0 diffs=0" % (PROGRAM, ROUND))
        return
    # forwards
    stops = []
    ended = None  # how the forward run ended before MAX_STOPS
    while len(stops) < MAX_STOPS:
        kind, said = run("continue")
        if kind in ("exit", "exiting", "history"):
            ended = kind
            break
        if kind in ("error", "stopped"):
            diff(len(stops) + 1, said, "forwards", ["%s: %s" % (kind, said)])
            break
        here = fingerprint()
        stops.append((kind, said, here))
        say("soak: stop %d: %s" % (len(stops), said))
        step_pairs(len(stops), said, here)
    # backwards: each reverse stop is the latest earlier forward stop gdb stops at backwards
    # (from the exit_group, the last stop first; after an exit gdb cannot go back)
    index = landed = len(stops) if ended == "exiting" else len(stops) - 1
    if ended in ("exit", "history"):
        say("soak: %s ended without its exit_group: not gone back" % PROGRAM)
        index = 0
    while index > 0:
        expect = index - 1
        while expect >= 0 and stops[expect][0] == "sysentry":
            expect -= 1
        if expect < 0:
            break
        kind, said, forward = stops[expect]
        phase = "reverse-continue from %s" % ("stop %d" % (index + 1) if index < len(stops)
                                               else "the exit")
        got_kind, got_said = run("reverse-continue")
        if got_kind != kind:
            diff(expect + 1, said, phase, ["stopped at %s (%s)" % (got_said, got_kind)])
            break
        if kind == "watch":
            # backwards, a watchpoint stops before its write: one stepi makes it
            before = fingerprint()
            run("stepi")
            ok = check(expect + 1, said, phase + ", then stepi over the write", forward,
                       fingerprint())
            run("reverse-stepi")
            ok = check(expect + 1, said, phase + ", then stepi and reverse-stepi", before,
                       fingerprint()) and ok
            if not ok:
                break
        elif not check(expect + 1, said, phase, forward, fingerprint()):
            break
        index = landed = expect
    # forwards again
    for i in range(landed + 1, len(stops) if landed < len(stops) else 0):
        kind, said, forward = stops[i]
        phase = "continue after going back to stop %d" % (landed + 1)
        got_kind, got_said = run("continue")
        if got_kind != kind:
            diff(i + 1, said, phase, ["stopped at %s (%s)" % (got_said, got_kind)])
            break
        if not check(i + 1, said, phase, forward, fingerprint()):
            break
    say("SOAK-DONE: %s %s stops=%d diffs=%d" % (PROGRAM, ROUND, len(stops), diffs))


gdb.events.stop.connect(on_stop)
gdb.events.exited.connect(on_exit)
quiet("set pagination off")
quiet("set confirm off")
START_PC = gdb.newest_frame().pc()
DATA = data_ranges()
IGNORED = ignored_ranges()
soak()
