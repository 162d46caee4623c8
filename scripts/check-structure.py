#!/usr/bin/env python3
"""Checks the shape of the code against the rules in docs/ARCHITECTURE.md:

- no two source files call each other in a loop (read from the built objects: a file
  calls another when it uses a symbol the other defines), and no two folders either;
- no .c file over 900 lines and no function over 120 lines;
- no file-scope mutable state in src/replay/ (data or bss symbols in its objects): replay
  state belongs to the session, so that a checkpoint copies it.

Usage: check-structure.py BUILD_DIR [SRC_DIR]. Prints each breach and exits 1 if any.
"""
import os
import re
import subprocess
import sys

MAX_FILE_LINES = 900
MAX_FUNCTION_LINES = 120


def objects(build):
    """The objects of the program and the preload library, by source path under src/."""
    found = {}
    for target in ("dejacore.dir", "deja.dir", "deja-preload.dir"):
        root = os.path.join(build, "CMakeFiles", target)
        for folder, _, names in os.walk(root):
            for name in names:
                if name.endswith(".c.o"):
                    path = os.path.join(folder, name)
                    rel = os.path.relpath(path, root)[: -len(".o")]
                    found[(target, rel)] = path
    return found


def relro(path):
    """Symbols in .data.rel.ro sections: const data holding addresses (tables of handlers),
    which the loader makes read-only once it relocated them; nm calls them data."""
    out = subprocess.run(["objdump", "-t", path], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[-3].startswith(".data.rel.ro"):
            names.add(parts[-1])
    return names


def symbols(path):
    """(defined globals, undefined, mutable data) of one object, read with nm."""
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    defined, used, data = set(), set(), []
    for line in out.splitlines():
        parts = line.split()
        kind, name = parts[-2], parts[-1]
        if kind == "U":
            used.add(name)
        elif kind in "TDBRCVW":
            defined.add(name)
        if kind in "dDbB" and not name.startswith("."):
            data.append(name)
    if data:
        const = relro(path)
        data = [name for name in data if name not in const]
    return defined, used, data


def call_graph(objs):
    table = {key: symbols(path) for key, path in objs.items()}
    owner = {}
    for (target, rel), (defined, _, _) in table.items():
        for name in defined:
            owner[(target == "deja-preload.dir", name)] = rel
    edges = {rel: set() for _, rel in table}
    for (target, rel), (_, used, _) in table.items():
        for name in used:
            callee = owner.get((target == "deja-preload.dir", name))
            if callee and callee != rel:
                edges[rel].add(callee)
    return edges, table


def loops(edges):
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            child = next(it, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        top = stack.pop()
                        on.discard(top)
                        comp.append(top)
                        if top == node:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
            elif child not in index:
                index[child] = low[child] = counter[0]
                counter[0] += 1
                stack.append(child)
                on.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on:
                low[node] = min(low[node], index[child])
    return found


def folder_edges(edges):
    folders = {}
    for src, dsts in edges.items():
        for dst in dsts:
            a, b = os.path.dirname(src), os.path.dirname(dst)
            if a != b:
                folders.setdefault(a, set()).add(b)
                folders.setdefault(b, set())
    return folders


def long_functions(path):
    """(name, first line, length) of each function longer than the limit."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    depth, line, start, head, found = 0, 1, 0, "", []
    for ch in text:
        if ch == "\n":
            line += 1
        if ch == "{":
            if depth == 0:
                start = line
                is_function = ")" in head and "=" not in head.split(")")[-1]
                name = re.findall(r"(\w+)\s*\(", head)
                fname = name[0] if name and is_function else None
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                if fname and line - start + 1 > MAX_FUNCTION_LINES:
                    found.append((fname, start, line - start + 1))
                head = ""
        elif depth == 0:
            head = (head + ch)[-400:] if ch not in ";" else ""
    return found


def main():
    build = sys.argv[1]
    src = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "src")
    breaches = []
    edges, table = call_graph(objects(build))
    for comp in loops(edges):
        breaches.append("files calling each other in a loop: " + " ".join(comp))
    for comp in loops(folder_edges(edges)):
        breaches.append("folders calling each other in a loop: " + " ".join(comp))
    for (_, rel), (_, _, data) in sorted(table.items()):
        if rel.startswith("src/replay/") and data:
            breaches.append("%s: file-scope mutable state (%s): move it into the session" % (rel, ", ".join(sorted(data))))
    for folder, _, names in sorted(os.walk(src)):
        for name in sorted(names):
            if not name.endswith(".c"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, os.path.join(src, ".."))
            count = sum(1 for _ in open(path, encoding="utf-8"))
            if count > MAX_FILE_LINES:
                breaches.append("%s: %d lines (at most %d): split it by job" % (rel, count, MAX_FILE_LINES))
            for fname, first, length in long_functions(path):
                breaches.append("%s:%d: %s is %d lines (at most %d)" % (rel, first, fname, length, MAX_FUNCTION_LINES))
    for line in breaches:
        print(line)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
