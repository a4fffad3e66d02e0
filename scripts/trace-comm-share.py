#!/usr/bin/env python3
"""Each task name's share of a trace's CPU time, from its sched_switch records: on each
CPU, the time from one switch to the next belongs to the switch's prev_comm (swapper is
the idle task). The window is the one every CPU has records in (the latest CPU's first
switch to the last switch). Shows what else ran beside a recorded workload: the
2026-12-06 03:16 recordings had a compile (cc1plus, lto1) in them.
usage: trace-comm-share.py FILE.dat   (prints 'share_pct comm', largest first, then 'total')"""
import re
import subprocess
import sys

LINE = re.compile(r'\[(\d+)\]\s+(\d+)\.(\d{9}):\s+sched_switch:\s+prev_comm=(.*?) prev_pid=')


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: trace-comm-share.py FILE.dat')
    # no -F: trace-cmd 3.1.6 crashes on exit with an event filter (the text is whole, the
    # status is not)
    p = subprocess.run(['trace-cmd', 'report', '-N', '-t', sys.argv[1]],
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        print(f'trace-comm-share.py: {sys.argv[1]}: trace-cmd report failed: {p.stderr.strip()[:200]}',
              file=sys.stderr)
        sys.exit(2)
    per_cpu = {}  # cpu -> [(ts, prev_comm)]
    ncpus = 0
    for line in p.stdout.splitlines():
        if line.startswith('cpus='):
            ncpus = int(line[5:])
        m = LINE.search(line)
        if m:
            per_cpu.setdefault(int(m.group(1)), []).append((int(m.group(2)) * 10**9 + int(m.group(3)), m.group(4)))
    if not per_cpu:
        print(f'trace-comm-share.py: {sys.argv[1]}: no sched_switch records', file=sys.stderr)
        sys.exit(2)
    for cpu in range(ncpus):
        if len(per_cpu.get(cpu, ())) < 2:  # one task throughout, and which one is unknown
            print(f'trace-comm-share.py: {sys.argv[1]}: CPU {cpu} has fewer than 2 sched_switch records: '
                  'left out of the shares', file=sys.stderr)
    per_cpu = {c: v for c, v in per_cpu.items() if len(v) >= 2}
    if not per_cpu:
        print(f'trace-comm-share.py: {sys.argv[1]}: no CPU has 2 sched_switch records', file=sys.stderr)
        sys.exit(2)
    start = max(v[0][0] for v in per_cpu.values())
    end = max(v[-1][0] for v in per_cpu.values())
    share = {}
    for recs in per_cpu.values():
        for (t0, _), (t1, comm) in zip(recs, recs[1:]):
            lo, hi = max(t0, start), min(t1, end)
            if hi > lo:
                share[comm] = share.get(comm, 0) + hi - lo
    total = sum(share.values())
    if total <= 0:
        print(f'trace-comm-share.py: {sys.argv[1]}: an empty window', file=sys.stderr)
        sys.exit(2)
    for comm, ns in sorted(share.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f'{100 * ns / total:7.3f} {comm}')
    print(f'total {total / 1e9:.6f} CPU-s over {len(per_cpu)} CPUs, window {(end - start) / 1e9:.6f} s')


if __name__ == '__main__':
    main()
