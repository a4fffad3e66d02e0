#!/usr/bin/env python3
"""The trace-compare baseline table (issue 42, item 4), from scripts/trace-baseline.sh's
outputs: every row of every workload, real repeats beside vtick, with the bands of the
bands file; OUT/baseline.md and OUT/baseline.json. --splice FILE rewrites the block
between the '<!-- trace-baseline: begin -->' and '<!-- trace-baseline: end -->' lines.
--to DIR writes baseline.md and baseline.json there instead of into --out; --marker NAME
splices between '<!-- NAME: begin -->' and '<!-- NAME: end -->'; --summary-only leaves out
the per-workload tables.
usage: trace-baseline-table.py --recording DIR --out DIR --bands FILE [--to DIR] [--splice FILE]
                               [--marker NAME] [--summary-only] NAME..."""
import argparse
import glob
import json
import math
import os
import re
import sys
import tomllib



# hackbench -p -g 4 -l 2000 (scripts/trace-baseline.sh's recording and stand-in): 4 groups
# of 20 senders x 20 receivers, 2000 messages a pair
HACKBENCH_MESSAGES = 4 * 20 * 20 * 2000


def die(msg):
    print('trace-baseline-table.py: ' + msg, file=sys.stderr)
    sys.exit(2)


def load_reasons(path, recording, bands, out_name):
    """The measured reasons for this recording's misses (validation/trace/reasons.toml); a
    reason with `outs` holds only for the model runs in those out directories."""
    out = {'rows': set(), 'list': []}
    if not os.path.exists(path):
        return out
    try:
        doc = tomllib.load(open(path, 'rb'))
    except (OSError, tomllib.TOMLDecodeError) as e:
        die('%s: %s' % (path, e))
    for k in doc:
        if k != 'reason':
            die('%s: unknown key %r (allowed: [[reason]] tables)' % (path, k))
    keys = ('recording', 'workload', 'rows', 'measured', 'why')
    for i, r in enumerate(doc.get('reason', [])):
        where = '%s: reason %d' % (path, i + 1)
        for k in r:
            if k not in keys + ('outs',):
                die('%s: unknown key %r (allowed: %s, outs)' % (where, k, ', '.join(keys)))
        if 'outs' in r and (not isinstance(r['outs'], list) or not r['outs'] or not all(isinstance(x, str) for x in r['outs'])):
            die('%s: outs must be a list of out directory names (e.g. ["costs6"])' % where)
        for k in keys:
            if k not in r:
                die('%s: needs %r' % (where, k))
        if not isinstance(r['rows'], list) or not r['rows'] or not all(isinstance(x, str) for x in r['rows']):
            die('%s: rows must be a list of "INTERVAL STATISTIC" strings' % where)
        for x in r['rows']:
            parts = x.split(' ')
            if x != 'throughput' and (len(parts) != 2 or tuple(parts) not in bands):
                die('%s: row %r is not a band of the bands file ("INTERVAL STATISTIC", or throughput)' % (where, x))
        if r['recording'] != recording or ('outs' in r and out_name not in r['outs']):
            continue
        out['list'].append(r)
        for x in r['rows']:
            out['rows'].add((r['workload'], x))
    return out


def real_throughput(name, out_text):
    """Untraced throughput of a recording, and its unit."""
    if name.startswith('sb-'):
        ev = re.search(r'total number of events:\s+(\d+)', out_text)
        t = re.search(r'total time:\s+([\d.]+)s', out_text)
        return (int(ev[1]) / float(t[1]) if ev and t else None), 'events/s'
    if name.startswith('pipe-'):
        m = re.search(r'(\d+) ops/sec', out_text)
        return (float(m[1]) if m else None), 'round trips/s'
    if name == 'hackbench':
        m = re.search(r'Time: ([\d.]+)', out_text)
        return (HACKBENCH_MESSAGES / float(m[1]) if m else None), 'messages/s'
    return None, ''


def sim_throughput(name, sim):
    s = sim['summary']
    if name == 'hackbench':  # as real_throughput: the messages over hackbench's Time (kick to last reap);
        # a run without the start modelled (workload.start = 0): over the time to the last exit
        t = s.get('timed_ms') or s.get('completion_ms')
        return HACKBENCH_MESSAGES / (t / 1e3) if t else None
    v = s.get('ops_per_s')
    if v is None:
        return None
    if name.startswith('pipe-'):  # the script workload counts a pass of each task: two a round trip
        return v / 2
    return v


def fmt(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return '-'
    a = abs(v)
    return '%.0f' % v if a >= 1000 else '%.1f' % v if a >= 10 else '%.2f' % v if a >= 1 else '%.3f' % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--recording', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--bands', required=True)
    ap.add_argument('--splice')
    ap.add_argument('--to')
    ap.add_argument('--marker', default='trace-baseline')
    ap.add_argument('--summary-only', action='store_true')
    ap.add_argument('--reasons', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'validation',
                                                       'trace', 'reasons.toml'))
    ap.add_argument('names', nargs='+')
    a = ap.parse_args()
    try:
        bands_doc = tomllib.load(open(a.bands, 'rb'))
    except (OSError, tomllib.TOMLDecodeError) as e:
        die('%s: %s' % (a.bands, e))
    bands = {(b['interval'], b['statistic']): b.get('within') for b in bands_doc.get('band', [])}
    reasons = load_reasons(a.reasons, os.path.basename(os.path.normpath(a.recording)), bands,
                           os.path.basename(os.path.normpath(a.out)))
    tp_within = bands_doc.get('throughput', {}).get('within')
    env = dict(l.split(': ', 1) for l in open(os.path.join(a.recording, 'env.txt')).read().splitlines() if ': ' in l)
    doc = {'environment': env, 'workloads': {}}
    sets_path = os.path.join(a.out, 'sets.txt')  # trace-baseline.sh --set, on top of the calibrated scenario
    sets = open(sets_path).read().strip() if os.path.exists(sets_path) else ''
    doc['sets'] = sets
    md = []
    md.append('Recorded %s on a %s-vCPU KVM guest (%s, kernel %s, HZ=%s, cpuidle driver %s, clocksource %s; '
              'pinned pipe %s then %s µs/op at start and end) with `scripts/record-guest-trace.sh`; vtick on the '
              'scenario `vtick calibrate` wrote from a `vtick-probe` profile of the same machine that hour, '
              '`scripts/trace-baseline.sh%s(1.2 s simulated, traced from 200 ms). Ratios: vtick / mean of the real runs. '
              'Bands: `%s` (✗: outside).' % (
                  env.get('date', '?'), env.get('vcpus', '?'), env.get('cpu_model', '?'), env.get('kernel', '?'),
                  env.get('hz', '?'), env.get('cpuidle_driver', '?'), env.get('clocksource', '?'),
                  env.get('speed_ref_pipe_pinned_us_per_op_start', '?'), env.get('speed_ref_pipe_pinned_us_per_op_end', '?'),
                  ' ' + sets + '` ' if sets else '` ',
                  os.path.relpath(a.bands, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))))
    rev_path = os.path.join(a.out, 'revision.txt')
    first = sorted(glob.glob(os.path.join(a.out, 'cmp', a.names[0] + '.r*.json')))
    if first and 'real_from' in json.load(open(first[0])):  # scripts/trace-baseline.sh --real-from
        rev = open(rev_path).read().strip() if os.path.exists(rev_path) else 'unknown'
        md[0] += (' Rerun on vtick %s (`--real-from`): the real rows are the kept trace-compare outputs of '
                  'the recording above, the model side is that revision\'s.' % rev)
    elif os.path.exists(rev_path):
        md[0] += ' vtick %s.' % open(rev_path).read().strip()
    misses = []  # (severity, workload, row, statistic, ratio, within)
    summary_rows = []
    for name in a.names:
        cmps = sorted(glob.glob(os.path.join(a.out, 'cmp', name + '.r*.json')))
        if not cmps:
            die('no trace-compare output for %s in %s/cmp' % (name, a.out))
        reps = [json.load(open(c)) for c in cmps]
        sim = json.load(open(os.path.join(a.out, 'sim', name + '.json')))
        cmd = open(os.path.join(a.recording, name + '.r1.cmd')).read().strip()
        tcmd_path = os.path.join(a.recording, name + '.r1.traced.cmd')
        tcmd = open(tcmd_path).read().strip() if os.path.exists(tcmd_path) else cmd
        rows = {}
        for rep in reps:
            for r in rep['rows']:
                rows.setdefault((r['row'], r['statistic']), {'real': [], 'sim': r['sim']})['real'].append(r['real'])
        tps = []
        for c in cmps:
            out = os.path.join(a.recording, os.path.basename(c)[:-5] + '.out')
            tps.append(real_throughput(name, open(out).read())[0] if os.path.exists(out) else None)
        unit = real_throughput(name, '')[1]
        stp = sim_throughput(name, sim)
        wl = {'command': cmd, 'traced_command': tcmd, 'rows': [], 'throughput': {'real': tps, 'sim': stp, 'unit': unit}}
        md.append('')
        md.append('#### %s: `%s`' % (name, cmd))
        md.append('')
        md.append('Traced: `%s`. vtick: `scenarios/%s.toml` here (its throughput in %s).' % (tcmd, name, sim['summary'].get('ops_name', 'ops')))
        md.append('')
        md.append('| row | statistic | ' + ' | '.join('real r%d' % (i + 1) for i in range(len(reps))) + ' | vtick | vtick/real | band |')
        md.append('|---|---|' + '---:|' * len(reps) + '---:|---:|---|')
        worst = []
        for (row, stat), v in rows.items():
            reals = [x for x in v['real'] if x is not None]
            mean = sum(reals) / len(reals) if reals else None
            ratio = v['sim'] / mean if mean and v['sim'] is not None else None
            w = bands.get((row, stat))
            verdict = ''
            if w:
                both0 = (mean == 0 and v['sim'] == 0) or (mean is None and v['sim'] is None)
                ok = both0 or (ratio is not None and 1 / w <= ratio <= w)
                verdict = ('%.3gx' % w) + ('' if ok else ' ✗')
                if not ok:
                    sev = math.inf if ratio in (None, 0) else abs(math.log(ratio)) / math.log(w)
                    misses.append((sev, name, row, stat, ratio, w))
                    mark = ' †' if (name, row + ' ' + stat) in reasons['rows'] else ''
                    worst.append('%s %s %s%s' % (row, stat, fmt(ratio) if ratio is not None else 'none in vtick', mark))
            unit_s = {'rate': '/s', 'share': '', 'p10': ' µs', 'p50': ' µs', 'p90': ' µs'}[stat]
            md.append('| %s | %s%s | %s | %s | %s | %s |' % (row, stat, unit_s, ' | '.join(fmt(x) for x in v['real']),
                                                         fmt(v['sim']), fmt(ratio), verdict))
            wl['rows'].append({'row': row, 'statistic': stat, 'real': v['real'], 'sim': v['sim'], 'ratio': ratio,
                               'within': w})
        treal = [x for x in tps if x]
        tmean = sum(treal) / len(treal) if treal else None
        tratio = stp / tmean if tmean and stp else None
        tverdict = ''
        if tp_within and tmean:
            ok = tratio is not None and 1 / tp_within <= tratio <= tp_within
            tverdict = ('%.3gx' % tp_within) + ('' if ok else ' ✗')
            if not ok:
                sev = math.inf if not tratio else abs(math.log(tratio)) / math.log(tp_within)
                misses.append((sev, name, 'throughput', unit, tratio, tp_within))
                worst.append('throughput %s%s' % (fmt(tratio), ' †' if (name, 'throughput') in reasons['rows'] else ''))
        if unit:  # idle has none
            md.append('| throughput (untraced) | %s | %s | %s | %s | %s |' % (unit, ' | '.join(fmt(x) for x in tps),
                                                                         fmt(stp), fmt(tratio), tverdict))
        summary_rows.append('| %s | %s |' % (name, ', '.join(worst) if worst else 'all met'))
        doc['workloads'][name] = wl
    # the rows furthest out of band, each row once (its worst workload)
    misses.sort(key=lambda m: -m[0])
    seen, top = set(), []
    for m in misses:
        if (m[2], m[3]) not in seen:
            seen.add((m[2], m[3]))
            top.append(m)
    doc['furthest_out_of_band'] = [{'workload': m[1], 'row': m[2], 'statistic': m[3], 'ratio': m[4], 'within': m[5]}
                                   for m in top[:3]]
    head = ['', '| workload | bands missed (vtick/real) |', '|---|---|'] + summary_rows + ['']
    if top:
        def how(m):
            return 'vtick/real %s' % fmt(m[4]) if m[4] else 'none in vtick' if m[4] is None else 'vtick 0'
        head.append('Furthest out of band (|log ratio| over log band, each row at its worst workload; none or 0 in '
                    'vtick first): ' +
                    '; '.join('%s %s (%s: %s, band %.3gx)' % (m[2], m[3], m[1], how(m), m[5]) for m in top[:3]) + '.')
    if reasons['list']:
        head.append('')
        head.append('† measured reason (`%s`):' % os.path.relpath(a.reasons, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')))
        head.append('')
        for r in reasons['list']:
            head.append('- %s (%s): %s. Why: %s.' % (r['workload'], ', '.join(r['rows']), r['measured'], r['why']))
    doc['reasons'] = reasons['list']
    text = '\n'.join([md[0]] + head + ([] if a.summary_only else md[1:])) + '\n'
    to = a.to or a.out
    open(os.path.join(to, 'baseline.md'), 'w').write(text)
    json.dump(doc, open(os.path.join(to, 'baseline.json'), 'w'), indent=1)
    if a.splice:
        BEGIN, END = '<!-- %s: begin -->' % a.marker, '<!-- %s: end -->' % a.marker
        old = open(a.splice).read()
        if BEGIN not in old or END not in old:
            die('%s has no %s ... %s block' % (a.splice, BEGIN, END))
        pre, rest = old.split(BEGIN, 1)
        _, post = rest.split(END, 1)
        gen = '%s\n<!-- generated by scripts/trace-baseline.sh (scripts/trace-baseline-table.py); do not edit -->\n%s%s' % (
            BEGIN, text, END)
        open(a.splice, 'w').write(pre + gen + post)


if __name__ == '__main__':
    main()
