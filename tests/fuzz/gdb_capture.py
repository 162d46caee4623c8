#!/usr/bin/env python3
"""Logs what gdb sends to a gdb remote protocol server: listens on 127.0.0.1:LISTEN,
forwards one connection to 127.0.0.1:SERVER both ways, and writes the bytes the client
sent to OUT (the seed corpus of the gdb fuzz targets, tests/fuzz/make_corpus.sh).
Usage: gdb_capture.py LISTEN SERVER OUT"""
import select
import socket
import sys


def main():
    listen_port, server_port, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", listen_port))
    ls.listen(1)
    client, _ = ls.accept()
    server = socket.create_connection(("127.0.0.1", server_port))
    with open(out, "wb") as log:
        peers = {client: server, server: client}
        while True:
            ready, _, _ = select.select(list(peers), [], [])
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                if s is client:
                    log.write(data)
                peers[s].sendall(data)


if __name__ == "__main__":
    main()
