#!/usr/bin/env python3
"""docs/validation.md's table of a `vtick explain` report (its explain.json): the model as
shipped, the best set inside the documented ranges, and the departures at 100 us and 1 ms,
each as its distance and the change on every constraint (mean ±95 % interval, ✓ inside the
band). Prints markdown; the block's figures come from the run, not from typing.

usage: explain-summary.py EXPLAIN.json [--label "set (full budget)"]
"""
import argparse
import json
import sys


def cell(c, ch):
    m, ci = ch['mean'], ch['ci95']
    inside = c['lo'] <= m <= c['hi']
    s = f"{m:+.1f} ±{ci:.1f}".replace('-', '−')
    return s + (' ✓' if inside else '')


def band(c):
    lo, hi = c['lo'], c['hi']
    if lo == -hi:
        return f"±{hi:g}"
    return f"{lo:g} .. {hi:g}".replace('-', '−')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('report')
    ap.add_argument('--label', default='set (full budget)')
    a = ap.parse_args()
    try:
        j = json.load(open(a.report))
    except (OSError, ValueError) as e:
        sys.exit(f"explain-summary.py: {a.report}: {e}")
    cons = j['constraints']
    ids = [c['id'] for c in cons]
    print(f"| {a.label} | distance | " + ' | '.join(i.replace('-', ' ').replace('standard', 's') for i in ids) + ' |')
    print('|---|---|' + '---|' * len(ids))
    print('| band | | ' + ' | '.join(band(c) for c in cons) + ' |')
    rows = [('as shipped', j['baseline']), ('best in range', j['best'][0])]
    for d in j['departures']:
        for t in d['tried']:
            if t['value'] in ('100us', '1ms'):
                rows.append((f"+ {t['value'].replace('us', ' µs').replace('ms', ' ms')} per tick wake-up", t))
    for name, r in rows:
        print(f"| {name} | {r['distance']:.2f} | " + ' | '.join(cell(c, r['change_pct'][c['id']]) for c in cons) + ' |')


if __name__ == '__main__':
    main()
