#!/usr/bin/env python3
"""A VS Code-style debug session against a deja replay, through lldb-dap (LLDB's Debug
Adapter Protocol server, what VS Code's LLDB extension runs).

Records PROGRAM, serves the replay with `deja replay -s unix:SOCK`, and drives lldb-dap
over stdio as an editor would: initialize, attach (attachCommands connect to the replay
through the gdb remote protocol), setBreakpoints on SOURCE:LINE, configurationDone, wait
for the breakpoint's stopped event, stackTrace (the top frame must be at that line),
scopes and variables (VARIABLE must have VALUE), continue to the end (the exited event
with the program's status 0), disconnect. Exits 0 when every step behaved, 1 otherwise (saying which), 77 when lldb-dap
is missing.

usage: dap_test.py DEJA LLDB_DAP PROGRAM SOURCE LINE VARIABLE VALUE
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Dap:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.seq = 0
        self.events = []

    def send(self, command, **arguments):
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command,
                           "arguments": arguments}).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()
        return self.seq

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError("lldb-dap closed its output")
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(length))

    def wait(self, pred, what, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            msg = self.read()
            if msg.get("type") == "event":
                self.events.append(msg)
            if pred(msg):
                return msg
        raise TimeoutError("no " + what + " within %d s" % timeout)

    def request(self, command, **arguments):
        seq = self.send(command, **arguments)
        msg = self.wait(lambda m: m.get("type") == "response" and m.get("request_seq") == seq,
                        "response to " + command)
        if not msg.get("success"):
            raise RuntimeError("%s failed: %s" % (command, msg.get("message")))
        return msg.get("body") or {}

    def event(self, name):
        for i, e in enumerate(self.events):
            if e.get("event") == name:
                return self.events.pop(i)
        return self.wait(lambda m: m.get("type") == "event" and m.get("event") == name,
                         name + " event")


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def main():
    if len(sys.argv) != 8:
        print(__doc__)
        return 2
    deja, lldb_dap, program, source, line, variable, value = sys.argv[1:]
    if not shutil.which(lldb_dap):
        print("SKIPPED: %s is not installed (apt-get install lldb-22)" % lldb_dap)
        return 77
    work = tempfile.mkdtemp(prefix="deja-dap.")
    trace, sock = os.path.join(work, "trace"), os.path.join(work, "r.sock")
    if subprocess.run([deja, "record", "-o", trace, program], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        fail("recording %s failed" % program)
    server = subprocess.Popen([deja, "replay", "-s", "unix:" + sock, trace],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.1)
    dap = Dap([lldb_dap])
    try:
        dap.request("initialize", adapterID="lldb-dap", clientID="deja-test",
                    linesStartAt1=True, columnsStartAt1=True, pathFormat="path")
        exe = next(os.path.join(trace, "files", f) for f in os.listdir(os.path.join(trace, "files"))
                   if f.startswith(os.path.basename(program) + "-"))
        dap.send("attach", program=exe,
                 attachCommands=["process connect --plugin gdb-remote unix-connect://" + sock])
        dap.event("initialized")
        bps = dap.request("setBreakpoints", source={"path": source},
                          breakpoints=[{"line": int(line)}])
        if not bps.get("breakpoints") or not bps["breakpoints"][0].get("verified"):
            fail("the breakpoint at %s:%s was not verified: %s" % (source, line, bps))
        dap.request("configurationDone")  # lldb-dap resumes the attached process
        stop = dap.event("stopped")
        while stop["body"].get("reason") != "breakpoint":
            dap.request("continue", threadId=stop["body"].get("threadId", 0))
            stop = dap.event("stopped")
        tid = stop["body"]["threadId"]
        frames = dap.request("stackTrace", threadId=tid, startFrame=0, levels=5)["stackFrames"]
        if not frames or frames[0].get("line") != int(line):
            fail("the top frame is not at line %s: %s" % (line, frames[:1]))
        print("stopped at %s:%d in %s" % (frames[0]["source"]["name"], frames[0]["line"],
                                          frames[0]["name"]))
        scopes = dap.request("scopes", frameId=frames[0]["id"])["scopes"]
        seen = {}
        for scope in scopes:
            ref = scope["variablesReference"]
            for v in dap.request("variables", variablesReference=ref)["variables"]:
                seen[v["name"]] = v["value"]
        if seen.get(variable) != value:
            fail("%s is %r, expected %r (variables: %s)" % (variable, seen.get(variable), value,
                                                         sorted(seen)[:20]))
        print("%s = %s" % (variable, value))
        dap.request("setBreakpoints", source={"path": source}, breakpoints=[])
        dap.request("continue", threadId=tid)
        while True:
            e = dap.wait(lambda m: m.get("type") == "event" and
                         m.get("event") in ("stopped", "exited", "terminated"), "the end")
            if e["event"] == "stopped":  # the replay's last stop before the exit (SIGKILL)
                dap.request("continue", threadId=e["body"].get("threadId", tid))
                continue
            break
        if e["event"] == "exited" and e["body"].get("exitCode") != 0:
            fail("the program exited with %s, expected 0" % e["body"].get("exitCode"))
        print("the program ran to its end: %s" % e["event"])
        try:
            dap.request("disconnect", terminateDebuggee=True)
        except (RuntimeError, EOFError, TimeoutError):
            pass
    except (RuntimeError, EOFError, TimeoutError) as err:
        fail(str(err))
    finally:
        dap.p.kill()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            fail("deja replay -s did not end after lldb-dap disconnected")
        shutil.rmtree(work, ignore_errors=True)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
