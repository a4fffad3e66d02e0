#!/usr/bin/env python3
"""The rows of `vtick trace-compare` for one trace.dat, counted by an independent path:
the text of `trace-cmd report -N -t FILE` (libtraceevent's printing, ns timestamps), paired
as docs/cli.md ("trace-compare") defines the rows. Prints JSON {row: {statistic: value}}.
usage: trace_report_rows.py FILE.dat"""
import json
import re
import subprocess
import sys

LINE = re.compile(r'^(?:\S+:\s+)?.*?-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\w+):\s+(.*)$')
EXIT = 4294967295


def fields(text):
    return dict(re.findall(r'(\w+)=(\S+)', text))


def quantile(v, q):  # numpy's default: linear between order statistics
    if not v:
        return None
    v = sorted(v)
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def main():
    text = subprocess.run(['trace-cmd', 'report', '-N', '-t', sys.argv[1]], capture_output=True, text=True,
                          check=True).stdout
    recs = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            recs.append((int(m[3]) * 10**9 + int(m[4]), int(m[2]), m[5], m[6]))
    recs.sort(key=lambda r: r[0])  # stable: report's order among equal times
    first = {}
    for ts, cpu, _, _ in recs:
        first.setdefault(cpu, ts)
    t0 = max(first.values())
    recs = [r for r in recs if r[0] >= t0]
    t1 = recs[-1][0]
    counts, iv = {}, {}

    def count(name):
        counts[name] = counts.get(name, 0) + 1

    def sample(name, a, b):
        iv.setdefault(name, []).append((b - a) * 1e-3)

    curr, idle_since, idle_ns, to_idle, entry, sent = {}, {}, {}, {}, {}, {}
    halted = {}  # cpu -> this idle episode had a cpu_idle entry
    state = {}  # cpu -> the state of its cpu_idle entry not yet exited
    cal_class = {}  # cpu -> its unanswered CAL: 'halted' at the send, a halt's ts after it, or 'running'
    waking, running = {}, {}
    woken_running, switched_out = {}, {}  # pid -> its waking while it ran; its last switch-out
    for ts, cpu, ev, args in recs:
        f = fields(args)
        if ev == 'sched_switch':
            count('context_switches')
            prev, nxt = int(f['prev_pid']), int(f['next_pid'])
            if prev == 0:
                idle_ns[cpu] = idle_ns.get(cpu, 0) + ts - idle_since.get(cpu, t0)
            idle_ns.setdefault(cpu, 0)
            running.pop(prev, None)
            if prev > 0:
                switched_out[prev] = ts
                if prev in woken_running:
                    wts = woken_running.pop(prev)
                    if nxt == 0:
                        sample('waking_to_switch_out.on_cpu', wts, ts)
            curr[cpu] = nxt
            halted[cpu] = False
            to_idle.pop(cpu, None)
            if nxt == 0:
                idle_since[cpu] = ts
                to_idle[cpu] = ts
            else:
                running[nxt] = cpu
                if nxt in waking:
                    wts, wcpu = waking.pop(nxt)
                    sample('wake_to_run.same_cpu' if wcpu == cpu else 'wake_to_run.other_cpu', wts, ts)
        elif ev == 'sched_waking':
            count('wakeups')
            pid = int(f['pid'])
            if pid > 0 and pid in running:
                count('wakeups.on_cpu')
                woken_running.setdefault(pid, ts)
            elif pid > 0 and pid not in waking:
                if pid in switched_out:
                    sample('switch_out_to_waking', switched_out[pid], ts)
                waking[pid] = (ts, cpu)
        elif ev == 'sched_migrate_task':
            count('migrations')
        elif ev == 'cpu_idle':
            st = int(f['state'])
            if st == EXIT:
                if cpu in entry:
                    sample('cpu_idle_residency', entry.pop(cpu), ts)
            else:
                count('cpu_idle_entries')
                halted[cpu] = True
                if st >= 1:
                    count('halts')
                    if cal_class.get(cpu) == 'running':
                        cal_class[cpu] = ts
                if cpu in to_idle:
                    sample('pre_hlt_window', to_idle.pop(cpu), ts)
                entry[cpu] = ts
                state[cpu] = st
        elif ev in ('ipi_send_cpu', 'ipi_send_cpumask'):
            count('ipi_sends')
            # %pS of NULL prints 0x0 (or (nil)); a symbol or an address otherwise
            kind = 'RES' if f['callback'] in ('0x0', '0', '(nil)') else 'CAL'
            if ev == 'ipi_send_cpu':
                dests = [int(f['cpu'])]
            else:  # cpumask=0-1 or 1,3
                dests = []
                for part in f['cpumask'].split(','):
                    a, _, b = part.partition('-')
                    dests += range(int(a), int(b or a) + 1)
            for d in dests:
                if (d, kind) not in sent and kind == 'CAL':
                    cal_class[d] = 'halted' if d in entry and state[d] >= 1 else 'running'
                sent.setdefault((d, kind), ts)
        elif ev in ('call_function_single_entry', 'call_function_entry', 'reschedule_entry'):
            kind = 'RES' if ev == 'reschedule_entry' else 'CAL'
            count('ipi.' + kind)
            if (cpu, kind) in sent:
                at = sent.pop((cpu, kind))
                sample('ipi_to_entry.' + kind, at, ts)
                if kind == 'CAL':
                    c = cal_class.pop(cpu)
                    if c == 'halted':
                        sample('ipi_to_entry.CAL.to_halted', at, ts)
                    elif c == 'running':
                        sample('ipi_to_entry.CAL.to_running', at, ts)
                    else:
                        sample('halt_to_entry.CAL', c, ts)
        elif ev == 'tick_stop':
            if f['success'] == '1':
                count('tick_stops')
                if curr.get(cpu) == 0 and not halted.get(cpu):
                    count('tick_stops.before_first_halt')
        elif ev == 'local_timer_entry':
            count('local_timer')
        elif ev == 'hrtimer_start':
            count('hrtimer_start')
        elif ev == 'write_msr':
            count('msr_write.0x' + args.split(',')[0].strip().lower())
    for cpu, c in curr.items():
        if c == 0:
            idle_ns[cpu] += t1 - idle_since[cpu]
    out = {'seconds': (t1 - t0) * 1e-9, 'counts': counts, 'intervals': {}, 'idle_share': {}}
    for name, v in iv.items():
        out['intervals'][name] = {'n': len(v), 'p10': quantile(v, 0.1), 'p50': quantile(v, 0.5),
                                  'p90': quantile(v, 0.9)}
    for cpu, ns in idle_ns.items():
        out['idle_share']['cpu%d' % cpu] = ns / (t1 - t0)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


main()
