#!/usr/bin/env python3
"""Cuts what gdb sent in a session (gdb_capture.py) into small inputs for the gdb fuzz
targets (tests/fuzz/make_corpus.sh): a fuzzer runs a 3 KB input many times faster than a
whole session. Each piece starts with FLAGS (one byte, fuzz_target.h) and gdb's opening
(qSupported, QStartNoAckMode: the features the rest relies on), then packets of the
session in order; a packet kind repeated more than 4 times in a row (memory reads, file
reads) is kept only 4 times.
Usage: split_session.py SESSION FLAGS OUTPREFIX [MAX-BYTES]"""
import re
import sys


def main():
    session, flags, prefix = sys.argv[1], int(sys.argv[2], 0), sys.argv[3]
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else 3000
    data = open(session, "rb").read()
    packets = re.findall(rb"\$[^$#]*#..", data)
    opening = [p for p in packets if p.startswith((b"$qSupported", b"$QStartNoAckMode"))]
    head = bytes([flags]) + b"".join(opening)
    pieces, piece, last, run = [], b"", None, 0
    for p in packets:
        if p in opening:
            continue
        kind = p[:6]
        run = run + 1 if kind == last else 1
        last = kind
        if run > 4:
            continue
        if piece and len(head) + len(piece) + len(p) > limit:
            pieces.append(piece)
            piece = b""
        piece += p
    if piece:
        pieces.append(piece)
    for i, piece in enumerate(pieces):
        with open("%s-%02d" % (prefix, i), "wb") as out:
            out.write(head + piece)


if __name__ == "__main__":
    main()
