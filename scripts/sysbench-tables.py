#!/usr/bin/env python3
"""The tables of docs/validation.md for the reproduction on the reported workload (issue 11
item 8), from the run JSONs of scripts/sysbench-reproduction.sh. Writes a compact summary
(SUMMARY, committed: every cell's per-seed figures) and rewrites the blocks between
<!-- BEGIN sysbench-... --> and <!-- END sysbench-... --> in the document. Changes are
paired by seed: seed s of a policy against seed s of legacy, same shape and background.

usage: scripts/sysbench-tables.py [RAW] [SUMMARY] [docs/validation.md]"""
import glob, json, math, os, re, sys

RAW = sys.argv[1] if len(sys.argv) > 1 else "results/sysbench-2026/raw"
SUMMARY = sys.argv[2] if len(sys.argv) > 2 else "docs/data/sysbench-2026.json"
DOC = sys.argv[3] if len(sys.argv) > 3 else "docs/validation.md"

POLICIES = ["legacy", "got_tick", "force_retain", "loehle", "tglx_avg", "periodic"]
SMALL = [("VM.Standard2.1", "x86 Skylake-SP, 1 core / 2 HT, HZ=1000"),
         ("VM.Standard.A1.Flex.2", "arm64 Altra, 2 cores, HZ=250"),
         ("VM.Standard.E4.Flex.1", "x86 Milan, 1 core / 2 threads, HZ=1000")]
LARGE = ["VM.Standard2.1", "VM.Standard2.2", "VM.Standard2.4", "VM.Standard.A1.Flex.2", "VM.Standard.A1.Flex.4",
         "VM.Standard.A1.Flex.8", "VM.Standard.E4.Flex.1", "VM.Standard.E4.Flex.2", "VM.Standard.E4.Flex.4"]
LEVELS = [("measured", "measured"), ("cloud", "cloud"), ("cloud10", "cloud x 10")]
VARIANTS = [("base", "all paths on"), ("no_newidle_balance", "newidle balancing off"),
            ("no_periodic_balance", "periodic balancing off"), ("no_nohz_balance", "nohz idle balancing off"),
            ("no_active_balance", "active balancing off"), ("no_ttwu_queue", "wakelist (TTWU_QUEUE) off")]
DISTURB = ("VM.Standard2.1", "cloud", "disturb_5ms_50ms")
CAUSES = ["wakeup", "block", "newidle", "periodic", "nohz", "active", "other"]
LENS = ["lt_1ms", "1_10ms", "10_100ms", "ge_100ms"]
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}

def ci95(xs):
    n = len(xs)
    if n < 2:
        return 0.0
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return T95.get(n - 1, 1.96) * sd / math.sqrt(n)

def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")

NAME = re.compile(r"^(?P<shape>VM\.[A-Za-z0-9.]+?)-(?P<level>measured|cloud10|cloud)-(?P<variant>[a-z0-9_]+)-"
                  r"(?P<policy>legacy|got_tick|force_retain|loehle|tglx_avg|periodic)-s(?P<seed>\d+)\.json$")

def collect():
    """cells[(shape, level, variant, policy)][seed] = the figures of one run."""
    cells = {}
    for f in sorted(glob.glob(os.path.join(RAW, "*.json"))):
        m = NAME.match(os.path.basename(f))
        if not m:
            continue
        with open(f) as fh:
            d = json.load(fh)
        s, x = d["summary"], d["metrics"]
        dur = d["config"]["run"]["duration"]
        run = {"events_per_s": s["ops_per_s"], "packed_pct": s["packed_pct"], "packed_phases_per_s": s["packed_phases_per_s"],
               "lock_collisions_per_s": s["mutex_contended_per_s"], "futex_sleeps_per_s": s["futex_waits_per_s"],
               "halt_exits_per_s": s["halt_exits_per_s"], "ilb_kicks_per_s": s["ilb_kicks_per_s"],
               "migrations_per_s": s["migrations_per_s"], "episodes": x["packing.episodes"],
               "colocated_pct": s.get("colocated_pct", float("nan")),
               "packed_ns": x["packing.packed_ns"], "max_len_ns": x["packing.max_len_ns"], "duration": dur,
               "len": {k: x["packing.len." + k] for k in LENS},
               "start": {k: x["packing.start." + k] for k in CAUSES}, "end": {k: x["packing.end." + k] for k in CAUSES}}
        key = (m["shape"], m["level"], m["variant"], m["policy"])
        cells.setdefault(key, {})[int(m["seed"])] = run
    return cells

def causes(c):
    return ", ".join(f"{k} {v}" for k, v in c.items() if v) or "-"

def paired_delta(cells, key, base_key, field="events_per_s"):
    a, b = cells.get(key, {}), cells.get(base_key, {})
    seeds = sorted(set(a) & set(b))
    ds = [100.0 * (a[s][field] / b[s][field] - 1.0) for s in seeds if b[s][field]]
    return (mean(ds), ci95(ds), len(ds)) if ds else None

def stat(runs, field):
    xs = [r[field] for r in runs.values()]
    return mean(xs), ci95(xs)

def fmt_delta(d):
    return "baseline" if d is None else f"{d[0]:+.1f}% ± {d[1]:.1f}"

def mean_len_ms(runs):
    e = sum(r["episodes"] for r in runs.values())
    return sum(r["packed_ns"] for r in runs.values()) / e / 1e6 if e else 0.0

def summary(cells):
    out = []
    for (shape, level, variant, policy), runs in sorted(cells.items()):
        base = (shape, level, variant, "legacy")
        d = None if policy == "legacy" else paired_delta(cells, (shape, level, variant, policy), base)
        out.append({"shape": shape, "background": level, "variant": variant, "policy": policy, "seeds": sorted(runs),
                    "duration": next(iter(runs.values()))["duration"],
                    "events_per_s": [runs[s]["events_per_s"] for s in sorted(runs)],
                    "vs_legacy_pct": None if d is None else {"mean": d[0], "ci95": d[1], "n": d[2]},
                    "packed_pct": [runs[s]["packed_pct"] for s in sorted(runs)],
                    "packed_phases_per_s": [runs[s]["packed_phases_per_s"] for s in sorted(runs)],
                    "mean_phase_ms": mean_len_ms(runs), "max_phase_ms": max(r["max_len_ns"] for r in runs.values()) / 1e6,
                    "phase_lengths": {k: sum(r["len"][k] for r in runs.values()) for k in LENS},
                    "phase_start": {k: sum(r["start"][k] for r in runs.values()) for k in CAUSES},
                    "phase_end": {k: sum(r["end"][k] for r in runs.values()) for k in CAUSES},
                    "lock_collisions_per_s": mean([r["lock_collisions_per_s"] for r in runs.values()]),
                    "futex_sleeps_per_s": mean([r["futex_sleeps_per_s"] for r in runs.values()]),
                    "halt_exits_per_s": mean([r["halt_exits_per_s"] for r in runs.values()]),
                    "ilb_kicks_per_s": mean([r["ilb_kicks_per_s"] for r in runs.values()])})
    return out

def n_dur(cells, keys):
    runs = [r for k in keys for r in cells.get(k, {}).values()]
    seeds = {len(cells[k]) for k in keys if k in cells}
    return f"{'/'.join(str(s) for s in sorted(seeds))} seeds x {runs[0]['duration']}" if runs else "no runs"

def table_small(cells):
    keys = [k for k in cells if k[0] in dict(SMALL) and k[2] == "base"]
    out = [f"One sysbench thread per vCPU, {n_dur(cells, keys)} per cell; changes paired by seed (95%):", "",
           "| shape | background | policy | events/s | vs legacy | packed % | packed phases/s | mean / max phase [ms] "
           "| lock collisions/s | futex sleeps/s | HLT exits/s |", "|---" * 11 + "|"]
    for shape, what in SMALL:
        for level, lname in LEVELS:
            for p in POLICIES:
                runs = cells.get((shape, level, "base", p))
                if not runs:
                    continue
                ev, evci = stat(runs, "events_per_s")
                d = None if p == "legacy" else paired_delta(cells, (shape, level, "base", p), (shape, level, "base", "legacy"))
                pk, _ = stat(runs, "packed_pct")
                ph, _ = stat(runs, "packed_phases_per_s")
                mx = max(r["max_len_ns"] for r in runs.values()) / 1e6
                out.append(f"| {shape} | {lname} | {p} | {ev:,.0f} ± {evci:,.0f} | {fmt_delta(d)} | {pk:.4f} | {ph:.2f} | "
                           f"{mean_len_ms(runs):.3f} / {mx:.3f} | {stat(runs, 'lock_collisions_per_s')[0]:,.0f} | "
                           f"{stat(runs, 'futex_sleeps_per_s')[0]:,.0f} | {stat(runs, 'halt_exits_per_s')[0]:,.0f} |")
    return "\n".join(out)

def table_phases(cells):
    out = ["Packed phases summed over the seeds: how long, how each started and how it ended "
           "(start/end: wake-up placement, a worker blocking, newidle, periodic, nohz idle balancing, active balance, other):", "",
           "| shape | background | policy | phases | < 1 / 1-10 / 10-100 / >= 100 ms | started by | ended by |", "|---" * 7 + "|"]
    for shape, _ in SMALL:
        for level, lname in LEVELS:
            for p in ["legacy", "got_tick"]:
                runs = cells.get((shape, level, "base", p))
                if not runs:
                    continue
                ln = {k: sum(r["len"][k] for r in runs.values()) for k in LENS}
                st = {k: sum(r["start"][k] for r in runs.values()) for k in CAUSES}
                en = {k: sum(r["end"][k] for r in runs.values()) for k in CAUSES}
                out.append(f"| {shape} | {lname} | {p} | {sum(r['episodes'] for r in runs.values())} | "
                           f"{' / '.join(str(ln[k]) for k in LENS)} | {causes(st)} | {causes(en)} |")
    return "\n".join(out)

def table_large(cells):
    keys = [k for k in cells if k[1] == "cloud" and k[2] == "base" and k[3] in ("legacy", "got_tick")]
    out = [f"Background `cloud`, {n_dur(cells, keys)} per cell:", "",
           "| shape | legacy events/s | got_tick vs legacy | packed % legacy / got_tick | packed phases/s legacy / got_tick |",
           "|---" * 5 + "|"]
    for shape in LARGE:
        lg, gt = cells.get((shape, "cloud", "base", "legacy")), cells.get((shape, "cloud", "base", "got_tick"))
        if not lg or not gt:
            continue
        d = paired_delta(cells, (shape, "cloud", "base", "got_tick"), (shape, "cloud", "base", "legacy"))
        out.append(f"| {shape} | {stat(lg, 'events_per_s')[0]:,.0f} | {fmt_delta(d)} | {stat(lg, 'packed_pct')[0]:.4f} / "
                   f"{stat(gt, 'packed_pct')[0]:.4f} | {stat(lg, 'packed_phases_per_s')[0]:.2f} / {stat(gt, 'packed_phases_per_s')[0]:.2f} |")
    return "\n".join(out)

def table_ablation(cells):
    shape, level = "VM.Standard2.1", "cloud10"
    keys = [(shape, level, v, p) for v, _ in VARIANTS for p in ("legacy", "got_tick")]
    out = [f"{shape}, background cloud x 10, {n_dur(cells, keys)} per cell; each path switched off in turn:", "",
           "| variant | legacy events/s | vs all paths on (legacy) | got_tick vs legacy | packed % legacy / got_tick | "
           "packed phases/s legacy / got_tick | mean phase [ms] legacy / got_tick |", "|---" * 7 + "|"]
    for v, what in VARIANTS:
        lg, gt = cells.get((shape, level, v, "legacy")), cells.get((shape, level, v, "got_tick"))
        if not lg or not gt:
            continue
        vb = None if v == "base" else paired_delta(cells, (shape, level, v, "legacy"), (shape, level, "base", "legacy"))
        d = paired_delta(cells, (shape, level, v, "got_tick"), (shape, level, v, "legacy"))
        out.append(f"| {what} | {stat(lg, 'events_per_s')[0]:,.0f} | {'-' if vb is None else fmt_delta(vb)} | {fmt_delta(d)} | "
                   f"{stat(lg, 'packed_pct')[0]:.4f} / {stat(gt, 'packed_pct')[0]:.4f} | "
                   f"{stat(lg, 'packed_phases_per_s')[0]:.2f} / {stat(gt, 'packed_phases_per_s')[0]:.2f} | "
                   f"{mean_len_ms(lg):.3f} / {mean_len_ms(gt):.3f} |")
    return "\n".join(out)

def table_disturb(cells):
    shape, level, v = DISTURB
    keys = [(shape, level, v, p) for p in ("legacy", "got_tick", "loehle")]
    out = [f"{shape}, background cloud, a busy task pinned to vCPU 1 for 5 ms every 50 ms, {n_dur(cells, keys)} per cell:", "",
           "| policy | events/s | vs legacy | packed % | co-located % | packed phases/s | mean / max phase [ms] | "
           "started by | ended by |", "|---" * 9 + "|"]
    for p in ("legacy", "got_tick", "loehle"):
        runs = cells.get((shape, level, v, p))
        if not runs:
            continue
        d = None if p == "legacy" else paired_delta(cells, (shape, level, v, p), (shape, level, v, "legacy"))
        st = {k: sum(r["start"][k] for r in runs.values()) for k in CAUSES}
        en = {k: sum(r["end"][k] for r in runs.values()) for k in CAUSES}
        mx = max(r["max_len_ns"] for r in runs.values()) / 1e6
        out.append(f"| {p} | {stat(runs, 'events_per_s')[0]:,.0f} | {fmt_delta(d)} | {stat(runs, 'packed_pct')[0]:.3f} | "
                   f"{stat(runs, 'colocated_pct')[0]:.2f} | {stat(runs, 'packed_phases_per_s')[0]:.2f} | "
                   f"{mean_len_ms(runs):.3f} / {mx:.3f} | {causes(st)} | {causes(en)} |")
    return "\n".join(out)

def main():
    cells = collect()
    if not cells:
        sys.exit(f"sysbench-tables.py: no run JSON in {RAW} (scripts/sysbench-reproduction.sh writes them)")
    os.makedirs(os.path.dirname(SUMMARY) or ".", exist_ok=True)
    with open(SUMMARY, "w") as f:
        json.dump({"source": "scripts/sysbench-reproduction.sh + scripts/sysbench-tables.py", "cells": summary(cells)}, f, indent=1)
    with open(DOC) as f:
        doc = f.read()
    for name, fn in [("sysbench-reproduction", table_small), ("sysbench-phases", table_phases),
                     ("sysbench-large", table_large), ("sysbench-ablation", table_ablation),
                     ("sysbench-disturb", table_disturb)]:
        pat = re.compile(r"(<!-- BEGIN %s -->\n).*?(<!-- END %s -->)" % (name, name), re.S)
        if not pat.search(doc):
            sys.exit(f"{DOC}: no <!-- BEGIN {name} --> ... <!-- END {name} --> markers")
        doc = pat.sub(lambda m: m.group(1) + fn(cells) + "\n" + m.group(2), doc)
    with open(DOC, "w") as f:
        f.write(doc)
    print(f"{len(cells)} cells from {RAW}; {SUMMARY} and {DOC} written", file=sys.stderr)

main()
