#!/usr/bin/env python3
"""Compares two counter snapshots (scripts/counter-snapshot.sh): the values of the
counters both have, and which counters one of them lacks.
usage: scripts/compare-counters.py BEFORE_DIR AFTER_DIR"""
import json, os, re, sys

a, b = sys.argv[1], sys.argv[2]
norm = lambda k: re.sub(r'^(vcpu|pcpu)\d+', r'\1<N>', k)
changed, new, gone, n = 0, set(), set(), 0
for f in sorted(os.listdir(a)):
    ma = json.load(open(os.path.join(a, f)))["metrics"]
    mb = json.load(open(os.path.join(b, f)))["metrics"]
    common = set(ma) & set(mb)
    n += len(common)
    diff = sorted(k for k in common if ma[k] != mb[k])
    new |= {norm(k) for k in set(mb) - set(ma)}
    gone |= {norm(k) for k in set(ma) - set(mb)}
    if diff:
        changed += 1
        print(f"{f}: {len(diff)} differ, e.g. " + ", ".join(f"{k} {ma[k]} -> {mb[k]}" for k in diff[:3]))
print(f"{len(os.listdir(a))} files, {n} values compared, {changed} files with a difference")
print("new counters:", ", ".join(sorted(new)) or "none")
print("removed counters:", ", ".join(sorted(gone)) or "none")
sys.exit(1 if changed or gone else 0)
