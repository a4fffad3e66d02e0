#!/usr/bin/env python3
"""Runs scenarios/nohz-full-idle-poll.toml under each 2026 series variant and prints the
markdown table of docs/validation.md (per-CPU counters and the probe timers)."""
import json, subprocess, sys, tempfile, os

vtick = sys.argv[1] if len(sys.argv) > 1 else "build/cli/vtick"
variants = ["none", "p1p2", "p2_without_kick", "p2_without_stopped_tick_fix"]
rows = []
for v in variants:
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        subprocess.run([vtick, "run", "scenarios/nohz-full-idle-poll.toml", "--quiet", "--json", out,
                        "--set", "guest.nohz_poll_series=" + v], check=True)
        m = json.load(open(out))["metrics"]
    probes = []
    for i in range(3):
        f, late = m[f"probe.timer{i}.fired_ns"], m[f"probe.timer{i}.lateness_ns"] / 1e6
        probes.append(f"{late:.2f} ms" if f >= 0 else f"lost (> {late:.0f} ms)")
    rows.append([v, m["vcpu2.tick.ticks_user"], m["vcpu2.tick.ticks_polling"], m["vcpu3.tick.ticks_polling"],
                 m["vcpu0.tick.ticks"], m["vcpu1.tick.ticks_polling"], m["vcpu2.tick.user_entry_stops"]] + probes)
print("| variant | CPU2 ticks in user space | CPU2 ticks while polling | CPU3 ticks while polling "
      "| CPU0 ticks | CPU1 ticks while polling | CPU2 P1(c) stops | 1st check: timer | 2nd check: 1st timer | 2nd check: 2nd timer |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print("| `" + r[0] + "` | " + " | ".join(str(int(x)) if isinstance(x, (int, float)) else x for x in r[1:]) + " |")
