#!/usr/bin/env python3
"""Rewrites the measured part of docs/performance.md from one `make bench` output.

Usage: make bench > bench.txt; scripts/bench-table.py bench.txt [docs/performance.md] [DATE]
Replaces the text between <!-- bench:begin --> and <!-- bench:end --> with the run's
loops, the per-workload table, the scaling rows and the memory rows. Exit 2 on input that
is not a full `make bench` output.
"""
import datetime
import re
import sys

LABELS = {
    ("default.toml", "legacy"): "default (pingpong, Standard2.1), legacy",
    ("default.toml", "got_tick"): "default, got_tick",
    ("oci/standard2.1-oltp.toml", "legacy"): "oci/standard2.1-oltp, legacy",
    ("oci/a1.flex.2-oltp.toml", "legacy"): "oci/a1.flex.2-oltp, legacy",
    ("oci/standard2.1-sysbench_threads.toml", "legacy"): "oci/standard2.1-sysbench_threads (2 s)",
    ("../bench/scenarios/hackbench.toml", "legacy"): "bench/scenarios/hackbench (-g 2 -f 4, sockets)",
    ("../bench/scenarios/periodic.toml", "legacy"): "bench/scenarios/periodic (4 tasks, 300/700 µs)",
    ("script-example.toml", "legacy"): "script-example (producer, 2 consumers, block I/O)",
    ("oci/a1.flex.2-sysbench_threads.toml", "legacy"): "oci/a1.flex.2-sysbench_threads (2 s)",
}
ROW = re.compile(
    r"^(?P<label>.+?)\s+(?P<policy>legacy|got_tick)\s+(?P<sched>vtick|simgrid)\s*:\s+(?P<sim>\d+) s simulated in\s+"
    r"(?P<wall>[\d.]+) s wall =\s+(?P<rate>[\d.]+) sim s/wall s, (?P<pervcpu>[\d.]+) wall s per vCPU-s;\s+(?P<acts>\d+) "
    r"SimGrid activities =\s+\d+ per wall s,\s+(?P<acts_s>\d+) per sim s;\s+(?P<steps>\d+) model steps per sim s;\s+"
    r"(?P<handoffs>\d+) hand-offs per sim s; peak RSS (?P<rss>\d+) MiB; (?P<metric>\d+ [^;]+?/s)(?P<rest>( FAILED)?(; hand-off floor \d+% of wall)?)$")


def k(n):
    n = float(n)
    return f"{n / 1e6:.2f} M" if n >= 1e6 else f"{n / 1e3:.0f} k" if n >= 1e3 else f"{n:.0f}"


def fail(msg):
    print(f"bench-table.py: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    if len(sys.argv) < 2:
        fail("usage: bench-table.py BENCH_OUTPUT [docs/performance.md] [DATE]")
    src = sys.argv[1]
    doc = sys.argv[2] if len(sys.argv) > 2 else "docs/performance.md"
    date = sys.argv[3] if len(sys.argv) > 3 else datetime.date.today().isoformat()
    lines = open(src, encoding="utf-8").read().splitlines()
    loops = {}
    for ln in lines:
        m = re.match(r"bare SimGrid timer loop\s*: .* = (\d+) events per wall second", ln)
        if m:
            loops["timer"] = int(m.group(1))
        m = re.match(r"bare SimGrid hand-off loop: .*\((\d+) ns each\)", ln)
        if m:
            loops["handoff"] = int(m.group(1))
        m = re.match(r"bare fiber hand-off loop: .*\(([\d.]+) ns each\)", ln)
        if m:
            loops["fiber"] = float(m.group(1))
        m = re.match(r"scaling \(periodic, (\d) tasks? per vCPU, wall s per vCPU-s\): x([\d.]+) from 1 to 64 vCPUs, "
                     r"x([\d.]+) from 2 to 64, max/min x[\d.]+; hand-offs per vCPU-s (\d+) at 1 vCPU \((\d+) actors\), "
                     r"(\d+) at 64 \((\d+) actors\); newidle balances per vCPU-s (\d+) at 64; steps running host code only "
                     r"([\d.]+) % at 64; steps passing control ([\d.]+) % at 64", ln)
        if m:
            loops.setdefault("scaling", {})[int(m.group(1))] = m.groups()[1:]
        m = re.match(r"bare (\d+)-actor fiber loop: .* = ([\d.]+) ns each, ([\d.]+) % passing control", ln)
        if m:
            loops.setdefault("actors", {})[int(m.group(1))] = (m.group(2), m.group(3))
        m = re.match(r"bare (\d+)-entry priority-queue loop: .* = (\d+) events per wall second, ([\d.]+) ns each", ln)
        if m:
            loops.setdefault("queue_n", {})[int(m.group(1))] = (int(m.group(2)), m.group(3))
        m = re.match(r"scaling row: periodic, (\d+) vCPUs, (\d+) tasks: .* = ([\d.]+) wall s per vCPU-s;", ln)
        if m:
            n, tasks = int(m.group(1)), int(m.group(2))
            loops.setdefault("rows", {}).setdefault(tasks // n, []).append(f"{m.group(3)} ({n})")
    rows = [ROW.match(ln) for ln in lines]
    rows = [r for r in rows if r]
    if any(" FAILED" in r["rest"] for r in rows):
        fail(f"{src}: a run FAILED")
    if (len(loops) < 6 or sorted(loops["scaling"]) != [1, 2] or len(loops["actors"]) != 2 or 1 not in loops["actors"]
            or len(loops["queue_n"]) != 3 or 1 not in loops["queue_n"] or 4 not in loops["queue_n"] or len(rows) < 17):
        fail(f"{src}: not a full `make bench` output ({len(rows)} rows, loops {sorted(loops)})")
    table, memory, big = [], [], None
    scaling = loops.get("rows", {})
    for r in rows:
        label = r["label"].strip()
        floor = re.search(r"hand-off floor (\d+)% of wall", r["rest"])
        floor = f"{floor.group(1)} %" if floor else "-"
        if ", " in label and "vCPUs" in label:
            # (a periodic scaling row prints this line only when it failed, which fails above)
            if not label.startswith("periodic"):
                big = f"64-vCPU OLTP {r['rate']} simulated s per wall s ({r['pervcpu']} wall s per vCPU-s)"
            continue
        key = (label, r["policy"])
        if key == ("oci/standard2.1-oltp.toml", "legacy") and r["sim"] in ("5", "60"):
            memory.append(f"{r['sim']} s run {r['rss']} MiB")
            continue
        name = LABELS.get(key)
        if name is None:
            fail(f"{src}: a row the table does not know: {label} {r['policy']}")
        rate = r["rate"]
        if key in (("oci/standard2.1-oltp.toml", "legacy"), ("oci/a1.flex.2-oltp.toml", "legacy")) and r["sched"] == "vtick":
            rate = f"**{rate}**"
        table.append(f"| {name} | {r['sched']} | {rate} | {r['pervcpu']} | {k(r['acts_s'])} | {k(r['steps'])} | {k(r['handoffs']) if r['sched'] == 'vtick' else '-'} | {floor} | {r['metric']} |")
    if sorted(scaling) != [1, 2] or any(len(v) != 7 for v in scaling.values()) or big is None or len(memory) != 2:
        fail(f"{src}: the scaling or memory rows are incomplete")
    q = loops["queue_n"][4][0], float(loops["queue_n"][4][1])
    sc = loops["scaling"]
    one_actor, many = loops["actors"][1], [(n, v) for n, v in loops["actors"].items() if n > 1][0]
    q1, qn = loops["queue_n"][1][1], loops["queue_n"][many[0]][1]

    def series(t):
        x1, x2, h1, a1, h64, a64, nb, host, passing = sc[t]
        return (f"{', '.join(scaling[t])}: **x{x1} from 1 to 64 vCPUs**, x{x2} from 2 to 64; hand-offs per "
                f"vCPU-second {k(h1)} at 1 vCPU ({a1} actors), {k(h64)} at 64 ({a64} actors: {passing} % of the "
                f"steps pass control); newidle balances per vCPU-second at 64 vCPUs {k(nb)}; steps whose "
                f"continuation runs host code only at 64 vCPUs {host} % (the rest run guest code)")
    out = [
        f"## Speed per workload (`make bench`, {date}, one run per process)",
        "",
        "This machine is a small VM whose speed drifts by up to 1.5x from one minute to the next",
        "(the bare SimGrid timer loop has measured 0.76 M to 2.03 M events per wall second), so read",
        "a figure next to the bare loops of the same run. This run: bare SimGrid timer loop",
        f"{loops['timer'] / 1e6:.2f} M events per wall second, bare fiber hand-off {loops['fiber']:.1f} ns "
        f"(two of the vtick scheduler's fibers passing control; two SimGrid actors passing it through maestro, as "
        f"the vtick scheduler did before its fibers: {loops['handoff']} ns), bare `std::priority_queue` loop "
        f"{q[0] / 1e6:.0f} M ({q[1]:.0f} ns an event). 10 simulated seconds unless said. *Hand-off floor*: the run's "
        "hand-offs at the bare fiber loop's cost, as a share of its wall time.",
        "",
        "| scenario | scheduler | sim s per wall s | wall s per vCPU-s | SimGrid activities per sim s | model steps per sim s | hand-offs per sim s | hand-off floor | metric |",
        "|---|---|---|---|---|---|---|---|---|",
        *table,
        "",
        "Scaling rows (periodic 300/700 µs tasks, generic skylake-sp without SMT, 256 vCPU-seconds each:",
        "256 simulated seconds at 1 vCPU .. 4 at 64; the fastest of three runs), wall s per vCPU-second (vCPUs):",
        "",
        f"- two tasks per vCPU (the issue's rows): {series(2)};",
        f"- one task per vCPU (no second task to pull): {series(1)}.",
        "",
        f"A bare simulator of the same shape (an actor per fiber, a `std::priority_queue` of their next events, no",
        f"model work): {one_actor[0]} ns an event with 1 actor ({one_actor[1]} % passing control), {many[1][0]} ns with "
        f"{many[0]} ({many[1][1]} %); its `std::priority_queue` alone: {q1} ns an event with 1 entry, {qn} ns with "
        f"{many[0]}. {big[0].upper()}{big[1:]}.",
        f"Peak RSS of OLTP on VM.Standard2.1: {', '.join(memory)}.",
    ]
    text = open(doc, encoding="utf-8").read()
    b, e = "<!-- bench:begin -->", "<!-- bench:end -->"
    if b not in text or e not in text:
        fail(f"{doc}: no {b} ... {e} section to replace")
    head, rest = text.split(b, 1)
    _, tail = rest.split(e, 1)
    open(doc, "w", encoding="utf-8").write(head + b + "\n" + "\n".join(out) + "\n" + e + tail)
    print(f"{doc}: bench section rewritten from {src} ({len(table)} rows)")


if __name__ == "__main__":
    main()
