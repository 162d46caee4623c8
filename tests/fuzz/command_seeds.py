#!/usr/bin/env python3
"""Writes seeds of fuzz_gdb_server that hold a packet of every kind the server parses, well
formed and not (tests/fuzz/make_corpus.sh): gdb's own sessions never send some of them
(G, qfThreadInfo, M, vRun...). Each seed is a flags byte (fuzz_target.h: all of the target
offered, checksums fixed) and packets with their checksums and gdb's acks.
Usage: command_seeds.py OUTPREFIX"""
import sys

OPENING = ["qSupported:multiprocess+;swbreak+;hwbreak+;fork-events+;vfork-events+;exec-events+"]
GROUPS = {
    "registers": ["g", "gx", "p10", "p200", "p2z", "P10=0000000000000000", "P10=00", "Pff=00",
                  "P39=ffffffffffffffff", "P28=" + "00" * 16, "G" + "00" * 8 * 17,
                  "G" + "xx" * 8 * 3 + "0011", "G" + "00" * 4000, "Gzz"],
    "memory": ["m1000,10", "m1000,0", "m0,10", "m10f8,100", "m1000,ffffffffffff", "m1000",
               "M1000,2:beef", "M1000,2:be", "M1000,1:zz", "Mff00,1:00", "X1000,2:ab",
               "X1000,3:}]}\x03}", "X1000,0:", "M1000,4000:00"],
    "breakpoints": ["Z0,1000,1", "Z0,1000,1;X3,220127", "Z0,1000,1;X3,220127;X2,2227;cmds:0,1",
                    "Z0,1000,1;X3,22012", "Z1,1001,1", "Z1,1000,1;X1,27", "Z2,1000,4",
                    "Z3,1000,8", "Z4,1000,1", "Z5,1000,1", "z0,1000,1", "z2,1000,4", "Z0,zz"],
    "threads": ["Hg64", "Hgp64.65", "Hc-1", "Hg0", "Hgp-1.-1", "Hgp64.-1", "Hx1", "Hg99",
                "T64", "T65", "Tp64.66", "Tzz", "qfThreadInfo", "qsThreadInfo", "qC",
                "qAttached:64", "qXfer:threads:read::0,fff", "qXfer:threads:read::10,5"],
    "resume": ["c", "C05", "s", "S05", "bc", "bs", "bx", "vCont?", "vCont;c", "vCont;s:65;c",
               "vCont;C05:p64.-1", "vCont;S05:p64.64;c", "vCont;x", "vCont;c:zz", "vCont;",
               "vCont;s:p64.65;s:p64.64", "?", "!"],
    "files": ["vFile:setfs:0", "vFile:open:2f612f62,0,0", "vFile:pread:0,10,0",
              "vFile:fstat:0", "vFile:close:0", "vFile:readlink:2f6c6f6e67",
              "vFile:pwrite:0,0,ab", "vFile:open:2f646972,0,0", "vFile:pread:0,4000,0",
              "vFile:unlink:2f61", "vFile:open:2f6d697373696e67,1,0", "vFile:bogus"],
    "filters": ["QPassSignals:e;14", "QPassSignals:zz", "QPassSignals:", "QProgramSignals:1",
                "QCatchSyscalls:1", "QCatchSyscalls:1;3c;e7", "QCatchSyscalls:0",
                "QCatchSyscalls:2", "QCatchSyscalls:1;zz", "c", "qSymbol::", "qTStatus",
                "vMustReplyEmpty"],
    "xfer": ["qXfer:features:read:target.xml:0,fff", "qXfer:features:read:target.xml:fff,fff",
             "qXfer:features:read:other.xml:0,10", "qXfer:auxv:read::0,10",
             "qXfer:auxv:read::100,1000", "qXfer:exec-file:read:64:0,fff",
             "qXfer:exec-file:read::0,fff", "qXfer:exec-file:read:1:0,fff",
             "qXfer:siginfo:read::0,80", "qXfer:siginfo:write::0:abcd",
             "qXfer:siginfo:write::0:}", "qXfer:unknown:read::0,1", "qXfer:auxv:write::0:ab",
             "qXfer:" + "o" * 40 + ":read::0,1", "qXfer:auxv:read:" + "a" * 200 + ":0,1"],
    "monitor": ["qRcmd,7768656e", "qRcmd,6c6f6e67", "qRcmd,6661696c", "qRcmd,zz", "qRcmd,61",
                "qRcmd,616", "qRcmd," + "61" * 1100],
    "run": ["vRun;", "vRun;2f62696e;6331", "vRun;;78", "vRun;2f62696e;" + "61" * 300,
            "vKill;c8", "vKill;64", "D;c8", "D;zz", "D"],
}


def frame(payload):
    data = payload.encode("latin-1")
    return b"$" + data + b"#" + b"%02x" % (sum(data) % 256) + b"+"


def main():
    prefix = sys.argv[1]
    for name, packets in GROUPS.items():
        with open("%s-%s" % (prefix, name), "wb") as out:
            out.write(bytes([0xbf]))
            for p in OPENING + packets:
                out.write(frame(p))


if __name__ == "__main__":
    main()
