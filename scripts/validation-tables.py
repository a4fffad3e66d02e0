#!/usr/bin/env python3
"""Rewrites the generated tables of docs/validation.md from the output directory of
scripts/reproduce.sh (default results/reproduction). Each table sits between
<!-- BEGIN name --> and <!-- END name --> markers; the prose around them is hand-written
and names the figures it discusses, so read it again after regenerating. A table whose
input is missing (a partial run) is kept as it was, and the script says so.

usage: scripts/validation-tables.py [DIR] [docs/validation.md]"""
import json, os, re, sys

DIR = sys.argv[1] if len(sys.argv) > 1 else "results/reproduction"
DOC = sys.argv[2] if len(sys.argv) > 2 else "docs/validation.md"
SHAPES = [("standard2.1", "VM.Standard2.1 (x86, 1 core / 2 HT, HZ=1000)", "333 -> 236 (−29.1%)"),
          ("a1.flex.2", "VM.Standard.A1.Flex.2 (arm64, 2 cores, HZ=250)", "1286 -> 1152 (−10.4%)")]

def load(name):
    with open(os.path.join(DIR, name)) as f:
        return json.load(f)

def by_value(c):
    return {p["value"]: p["summary"] for p in c["policies"]}

def paired(c):
    """Change of ops/s against the first policy, per seed, with its 95% interval."""
    return {p["value"]: p.get("ops_delta_pct_paired") for p in c["policies"]}

def cell_paired(s, d):
    t = f"{s['mean']:.1f} ± {s['ci95']:.1f}"
    if d:
        t += f" (**{d['mean']:+.1f}% ± {d['ci95']:.1f}**)"
    return t

def reproduction():
    pols = ["legacy", "got_tick", "force_retain", "loehle", "tglx_avg"]
    out = ["| shape | workload | reported legacy -> got_tick | " + " | ".join(pols) + " |", "|---" * (3 + len(pols)) + "|"]
    for key, shape, reported in SHAPES:
        c = load(f"{key}-oltp.json")
        s, d = by_value(c), paired(c)
        cells = [cell_paired(s[p]["ops_per_s"], d[p]) for p in pols]
        out.append(f"| {shape} | OLTP, tps | {reported} | " + " | ".join(cells) + " |")
    for key, shape, _ in SHAPES:
        c = load(f"{key}-sysbench_threads.json")
        s, d = by_value(c), paired(c)
        cells = [cell_paired(s[p]["ops_per_s"], d[p]) if p in s else "" for p in pols]
        out.append(f"| {shape} | sysbench threads, events/s | | " + " | ".join(cells) + " |")
    return "\n".join(out)

COUNTERS = [("tick_wakeups_per_s", "tick wake-ups of halted vCPUs /s", "%.1f"), ("tick_stops_per_s", "tick stops /s", "%.0f"),
            ("timer_exits_per_s", "timer-write exits /s", "%.0f"), ("halt_exits_per_s", "HLT/WFI exits /s", "%.0f"),
            ("exits_per_s", "VM exits /s (all)", "%.0f"), ("halt_poll_time_pct", "halt-poll time (% of vCPU time)", "%.1f"),
            ("wake_latency_p50_us", "wake-up latency p50 (µs)", "%.1f")]

def counters():
    out = ["| counter | " + " | ".join(f"{s.split(' (')[0]} legacy | got_tick" for _, s, _ in SHAPES) + " |",
           "|---" * (1 + 2 * len(SHAPES)) + "|"]
    for key, label, fmt in COUNTERS:
        row = [label]
        for shape, _, _ in SHAPES:
            s = by_value(load(f"{shape}-oltp.json"))
            row += [fmt % s["legacy"][key]["mean"], fmt % s["got_tick"][key]["mean"]]
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out)

WHAT = {"tick_wakeup_cost": "halting and waking a vCPU costs the host nothing", "halt_polling": "no host halt polling",
        "smt": "SMT siblings do not slow each other", "cstate_latency": "host C-states exit instantly",
        "load_balancing": "no guest load balancing", "timer_write_exits": "guest timer writes do not exit",
        "mitigations": "no VM-entry mitigations"}

def ablation():
    out = []
    for key, shape, _ in SHAPES:
        a = load(f"{key}-oltp-ablate.json")
        b = a["ablation_baseline_delta_pct"]
        out += [f"**{shape}, OLTP**", "", "| switched off | | got_tick vs legacy | shift [points] | carried |", "|---|---|---|---|---|",
                f"| (nothing) | the model as configured | {b['mean']:+.1f}% ± {b['ci95']:.1f} | | |"]
        for r in a["ablation"]:
            d, sh = r["delta_pct"], r["shift_points"]
            car = "-" if r["carried_pct"] is None else f"{r['carried_pct']:.0f}%"
            out.append(f"| `{r['mechanism']}` | {WHAT.get(r['mechanism'], '')} | {d['mean']:+.1f}% ± {d['ci95']:.1f} | "
                       f"{sh['mean']:+.1f} ± {sh['ci95']:.1f} | {car} |")
        out.append("")
    return "\n".join(out).rstrip()

def md_rows(name):
    with open(os.path.join(DIR, name)) as f:
        return [l for l in f.read().splitlines() if l.startswith("| ") and not l.startswith("| scenario")]

# The report's facts each row is held against (issue: -29% +-5 points, -10% +-4, loehle
# within +-3% of legacy on both).
BANDS = {"standard2.1": (-34.0, -24.0), "a1.flex.2": (-14.0, -6.0)}

def verdict(key, g, l):
    lo, hi = BANDS[key]
    gv, lv = float(g.split("%")[0]), float(l.split("%")[0])
    ok_g, ok_l = lo <= gv <= hi, abs(lv) <= 3.0
    if ok_g and ok_l:
        return "**yes**"
    why = [] if ok_g else [f"got_tick outside {lo:.0f} .. {hi:.0f}%"]
    if not ok_l:
        why.append("loehle not within ±3%")
    return "no: " + ", ".join(why)

# H10 (packing) is read on the reported workload, sysbench threads, not on OLTP: its rows
# come from the reproduction of scripts/sysbench-reproduction.sh (scripts/sysbench-tables.py
# writes the summary), one per background level.
PACKING = "docs/data/sysbench-2026.json"
PACKING_SHAPES = {"standard2.1": "VM.Standard2.1", "a1.flex.2": "VM.Standard.A1.Flex.2"}
LEVELS = [("measured", "measured"), ("cloud", "cloud"), ("cloud10", "cloud x 10")]

def packing_rows(key):
    if not os.path.exists(PACKING):
        print(f"hypotheses: no H10 rows ({PACKING} is not there)", file=sys.stderr)
        return []
    with open(PACKING) as f:
        cells = {(c["shape"], c["background"], c["policy"]): c for c in json.load(f)["cells"] if c["variant"] == "base"}
    rows, shape = [], PACKING_SHAPES[key]
    for level, lname in LEVELS:
        lg, gt, lo = (cells.get((shape, level, p)) for p in ("legacy", "got_tick", "loehle"))
        if not (lg and gt and lo):
            continue
        g = f"{gt['vs_legacy_pct']['mean']:+.1f}% ± {gt['vs_legacy_pct']['ci95']:.1f}"
        l = f"{lo['vs_legacy_pct']['mean']:+.1f}% ± {lo['vs_legacy_pct']['ci95']:.1f}"
        ev = sum(lg["events_per_s"]) / len(lg["events_per_s"])
        rows.append(f"| packing | H10 on sysbench threads (one per vCPU), background {lname}; events/s, "
                    f"{len(lg['seeds'])} seeds x {lg['duration']} | {ev:.0f} | {g} | {l} | {verdict(key, g, l)} |")
    return rows

def hypotheses():
    out = ["| hypothesis | what | legacy tps | got_tick vs legacy | loehle vs legacy | reproduces the report? |",
           "|---|---|---|---|---|---|"]
    current = None
    for r in md_rows("hypotheses.md") + [None]:
        c = [x.strip() for x in r.strip("|").split("|")] if r else None
        key = [k for k, s, _ in SHAPES if c[0].startswith(k)][0] if c else None
        if key != current:
            if current:
                out += packing_rows(current)
            if key:
                out.append(f"| **{[s for k, s, _ in SHAPES if k == key][0]}** | | | | | |")
            current = key
        if not c:
            break
        name, what = c[1].split(": ", 1)
        out.append(f"| {name} | {what} | {c[2]} | {c[3].replace('+-', '± ')} | {c[4].replace('+-', '± ')} | {verdict(key, c[3], c[4])} |")
    return "\n".join(out)

def amplifier():
    out = ["| shape | host.tick_wakeup_cost | legacy tps | got_tick vs legacy | loehle vs legacy | reproduces the report? |",
           "|---|---|---|---|---|---|"]
    for r in md_rows("amplifier.md"):
        c = [x.strip() for x in r.strip("|").split("|")]
        key = [k for k, s, _ in SHAPES if c[0].startswith(k)][0]
        shape = [s for k, s, _ in SHAPES if c[0].startswith(k)][0].split(" (")[0]
        out.append(f"| {shape} | {c[1].split(':')[0].replace('amplifier ', '')} | {c[2]} | "
                   f"{c[3].replace('+-', '± ')} | {c[4].replace('+-', '± ')} | {verdict(key, c[3], c[4])} |")
    return "\n".join(out)

def validation_suite():  # vtick validate-suite --markdown, written by scripts/reproduce.sh
    with open(os.path.join(DIR, "validation-suite.md")) as f:
        return f.read().rstrip("\n")

def main():
    with open(DOC) as f:
        doc = f.read()
    for name, fn in [("validation-suite", validation_suite), ("reproduction", reproduction), ("counters", counters), ("ablation", ablation),
                     ("hypotheses", hypotheses), ("amplifier", amplifier)]:
        pat = re.compile(r"(<!-- BEGIN %s -->\n).*?(<!-- END %s -->)" % (name, name), re.S)
        if not pat.search(doc):
            sys.exit(f"{DOC}: no <!-- BEGIN {name} --> ... <!-- END {name} --> markers")
        try:
            table = fn()
        except FileNotFoundError as e:  # a partial run: that table stays as it was
            print(f"{name}: kept ({os.path.basename(e.filename)} is not in {DIR})", file=sys.stderr)
            continue
        doc = pat.sub(lambda m: m.group(1) + table + "\n" + m.group(2), doc)
    with open(DOC, "w") as f:
        f.write(doc)

main()
