#!/usr/bin/env python3
"""Every parameter is declared once. The struct fields are generated from their
declaration rows (core/param.hpp), so a struct cannot hold a second default; what could
still hide one is code that spells a key with a literal default beside it, as the old
loader did (v.i("host.kvm.halt_poll_ns", 200000)). For every key `vtick list keys`
prints, this lists the lines of the model's sources that spell it and fails on any
that passes it first to a call with a literal next (a getter with a default). Usage: scripts/check-declarations.py VTICK [SOURCE_DIR]"""
import os, re, subprocess, sys

vtick = sys.argv[1]
root = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
keys = [l.split()[0] for l in subprocess.run([vtick, "list", "keys"], capture_output=True, text=True, check=True).stdout.splitlines() if l.strip()]
files = []
for d in ["guest", "host", "platform", "core", "sim", "cli"]:
    for dp, _, names in os.walk(os.path.join(root, d)):
        files += [os.path.join(dp, n) for n in sorted(names) if n.endswith((".cpp", ".hpp"))]
lines = [(f, i + 1, l) for f in sorted(files) for i, l in enumerate(open(f, encoding="utf-8"))]
rows = sum(1 for _, _, l in lines if re.match(r'\s*P\(', l))
bad, spelt = [], 0
for k in keys:
    lit = re.compile(r'\(\s*' + re.escape('"' + k + '"') + r'\s*,\s*([-0-9.]|true\b|false\b|"[^"]*"\s*\))')
    for f, n, l in lines:
        if '"' + k + '"' in l:
            spelt += 1
            if lit.search(l): bad.append(f"{os.path.relpath(f, root)}:{n}: {k} spelt with a literal default: {l.strip()}")
print(f"{len(keys)} keys, {rows} declaration rows; {spelt} lines spell a full key (lookups through the table), {len(bad)} with a literal default")
for b in bad: print(b)
sys.exit(1 if bad or not keys or not rows else 0)
