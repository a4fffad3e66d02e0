#!/usr/bin/env python3
"""vtick's side of the real-guest measurement (scripts/measure-guest.sh): runs the same
sysbench-threads setups on scenarios/validation/this-guest-sysbench.toml and prints the
table of docs/validation.md's real-guest section (the same columns as
docs/real-guest/README.md's key figures).

Usage: scripts/validation-guest.py [--vtick build/cli/vtick] [--seeds 3] [--duration 10s] [--out DIR]
"""
import argparse
import json
import os
import subprocess
import sys

# name, --set options: the runs of scripts/measure-guest.sh
RUNS = [
    ("n1", ["workload.threads=1"]),
    ("n2 quiet", []),
    ("n4", ["workload.threads=4"]),
    ("n8", ["workload.threads=8"]),
    ("n2-locks1", ["workload.thread_locks=1"]),
    ("n2-apart (pinned)", ["workload.pin_apart=1"]),
    ("n2-together (cpu0)", ["workload.cpus_mask=1"]),
    ("n2-busy (loop on cpu1)", ["workload.disturber_cpu=1"]),
    ("n2-periodic (5 ms / 50 ms on cpu1)", ["workload.disturber_cpu=1", "workload.disturber_run=5ms", "workload.disturber_period=50ms"]),
]
SCENARIO = "scenarios/validation/this-guest-sysbench.toml"


def window_s(d):
    def ns(text):
        units = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
        for u in ("ns", "us", "ms", "s"):
            if text.endswith(u) and text[: -len(u)].replace(".", "", 1).isdigit():
                return float(text[: -len(u)]) * units[u]
        raise ValueError(text)
    r = d["config"]["run"]
    return (ns(r["duration"]) - ns(r["warmup"])) / 1e9


def figures(d):
    m, w = d["metrics"], window_s(d)
    per = lambda k: [m[f"vcpu{c}.{k}"] / w for c in (0, 1)]
    return {
        "events/s": d["summary"]["ops_per_s"],
        "idle %": [100 * m[f"vcpu{c}.proc_stat.idle_ns"] / (w * 1e9) for c in (0, 1)],
        "halts/s": per("idle.halts"),
        "LOC/s": per("irqs.local_timer"),
        "RES/s": per("irqs.reschedule"),
        "CAL/s": per("irqs.call_function"),
        "ctxt/s": m["sched.switches"] / w,
        "migr/s": m["sched.migrations"] / w,
        "futex sleeps/s": m["sched.futex_waits"] / w,
        "packed %": 100 * m["packing.packed_ns"] / (w * 1e9),
        "packed episodes": m["packing.episodes"],
        "max episode ms": m["packing.max_len_ns"] / 1e6,
        "co-located %": 100 * m["packing.colocated_ns"] / (w * 1e9),
    }


def fmt(v):
    if isinstance(v, list):
        return " / ".join(fmt(x) for x in v)
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.1f}" if abs(v) >= 1 or v == 0 else f"{v:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vtick", default="build/cli/vtick")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", default="10s")
    ap.add_argument("--out", default="results/validation-guest")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cols = None
    rows = []
    for i, (name, sets) in enumerate(RUNS):
        print(f"[{i + 1}/{len(RUNS)}] {name}", file=sys.stderr, flush=True)
        per_seed = []
        for seed in range(1, a.seeds + 1):
            out = os.path.join(a.out, f"{i}-{seed}.json")
            cmd = [a.vtick, "run", SCENARIO, "--duration", a.duration, "--seed", str(seed), "--quiet", "--json", out]
            for s in sets:
                cmd += ["--set", s]
            subprocess.run(cmd, check=True)
            per_seed.append(figures(json.load(open(out))))
        cols = list(per_seed[0].keys())
        # range over seeds, as the real-guest table gives ranges over passes
        cells = []
        for c in cols:
            vals = [f[c] for f in per_seed]
            if isinstance(vals[0], list):
                lo = [min(v[j] for v in vals) for j in range(2)]
                hi = [max(v[j] for v in vals) for j in range(2)]
                cells.append(" / ".join(fmt(l) if fmt(l) == fmt(h) else f"{fmt(l)}–{fmt(h)}" for l, h in zip(lo, hi)))
            else:
                lo, hi = min(vals), max(vals)
                cells.append(fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)}–{fmt(hi)}")
        rows.append((name, cells))
    print(f"vtick {SCENARIO}, {a.seeds} seeds x {a.duration} (ranges over seeds; per-CPU cells cpu0 / cpu1)\n")
    print("| run | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for name, cells in rows:
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
