#!/usr/bin/env python3
"""The hypothesis search of docs/validation.md: for each shape scenario and each
mechanism setting, runs `vtick compare --policies legacy,got_tick,loehle` and prints the
throughput deltas with their 95% confidence intervals as a markdown table.

With --amplifier LIST (e.g. 100us,300us), runs the amplifier sweep instead: upstream KVM
plus host.tick_wakeup_cost = each value.

usage: scripts/hypotheses.py [--seeds N] [--duration D] [--only NAME] [--amplifier LIST] SCENARIO..."""
import json, os, subprocess, sys, tempfile

VTICK = os.environ.get("VTICK", "build/cli/vtick")

# Each hypothesis is a list of --set overrides on top of the scenario (upstream KVM).
HYPOTHESES = [
    ("upstream", "upstream KVM, host defaults (menu, C6, adaptive polling)", []),
    ("no-halt-poll", "M2/M3 off: host halt_poll_ns=0", ["host.kvm.halt_poll_ns=0"]),
    ("c1-only", "M4 off: host C-states limited to C1", ["host.max_cstate=C1"]),
    ("no-lb", "H6 off: no guest load balancing", ["guest.sched.load_balance=false"]),
    ("noise", "H7: host noise on the VM's threads (2 threads, 500 Hz, 50 us)",
     ["host.noise.threads=2", "host.noise.hz=500", "host.noise.work=50us"]),
    ("no-mitigations", "H8 off: no L1D flush / VERW", ["host.mitigations.l1d_flush=never", "host.mitigations.mds_clear=false"]),
    ("timer-poll", "H9: poll up to a guest timer within 1 ms", ["host.timer_poll=extend", "host.timer_poll_threshold=1ms"]),
    ("reclaim", "H9: reclaim vCPUs with far timers, keep near ones spinning (5 ms)",
     ["host.reclaim=true", "host.reclaim_threshold=5ms"]),
    # every cost that a retained tick pays at the top of its documented range, every cost
    # it saves at the bottom (x86 keys are dropped on arm64, see arch_sets)
    ("adverse-costs", "in-range costs most adverse to got_tick (wake-up, block, halt exit and resume, kick, IRQ, C1 exit at max; timer writes at min; spin SMT 0.7)",
     ["host.costs.vcpu_wakeup_ns=10000", "host.costs.vcpu_block_ns=10000", "host.costs.hlt_exit_ns=5000",
      "host.costs.timer_expiry_ns=5000", "host.costs.host_irq_ns=6000",
      "x86:host.costs.c1_exit_ns=5000", "arm64:host.costs.c1_exit_ns=1000",
      "x86:host.costs.halt_resume_ns=3000", "arm64:host.costs.halt_resume_ns=5000", "arm64:host.costs.kick_ns=3000",
      "x86:host.costs.timer_write_ns=100", "x86:host.costs.timer_ctl_ns=200", "x86:host.costs.smt_factor_spin=0.7"]),
    # combinations
    ("no-poll+c1", "M2/M3 and M4 off together", ["host.kvm.halt_poll_ns=0", "host.max_cstate=C1"]),
    ("noise+timer-poll", "H7 and H9 polling together", ["host.noise.threads=2", "host.noise.hz=500", "host.noise.work=50us",
                                                       "host.timer_poll=extend", "host.timer_poll_threshold=1ms"]),
    ("noise+reclaim", "H7 and H9 reclaim together", ["host.noise.threads=2", "host.noise.hz=500", "host.noise.work=50us",
                                                     "host.reclaim=true", "host.reclaim_threshold=5ms"]),
]

def arch_sets(scenario, sets):
    """Keys prefixed "x86:" apply only to x86 shapes, "arm64:" only to arm64 ones (the A1
    scenarios)."""
    arm = os.path.basename(scenario).startswith("a1.")
    mine, other = ("arm64:", "x86:") if arm else ("x86:", "arm64:")
    return [s[len(mine):] for s in sets if s.startswith(mine)] + [s for s in sets if not s.startswith((mine, other))]

def run(scenario, sets, seeds, duration):
    sets = arch_sets(scenario, sets)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "c.json")
        cmd = [VTICK, "compare", scenario, "--policies", "legacy,got_tick,loehle", "--seeds", str(seeds),
               "--quiet", "--json", out, "--set", "run.duration=" + duration]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return json.load(open(out))

def delta(c, i):
    """Change of ops/s against the first policy, with the 95% interval of the per-seed
    (paired) differences that vtick compare reports."""
    d = c["policies"][i]["ops_delta_pct_paired"]
    return d["mean"], d["ci95"]

def main():
    args = sys.argv[1:]
    seeds, duration, only, amplifier = 3, "3s", None, None
    while args and args[0].startswith("--"):
        if args[0] == "--seeds": seeds = int(args[1])
        elif args[0] == "--duration": duration = args[1]
        elif args[0] == "--only": only = args[1]
        elif args[0] == "--amplifier": amplifier = args[1].split(",")
        args = args[2:]
    print(f"| scenario | hypothesis | legacy ops/s | got_tick vs legacy | loehle vs legacy |")
    print("|---|---|---|---|---|")
    hyps = HYPOTHESES
    if amplifier:
        hyps = [("amplifier " + a, "upstream + host.tick_wakeup_cost=" + a, ["host.tick_wakeup_cost=" + a]) for a in amplifier]
    for scenario in args:
        for name, what, sets in hyps:
            if only and name != only:
                continue
            c = run(scenario, sets, seeds, duration)
            base = c["policies"][0]["summary"]["ops_per_s"]["mean"]
            g, gci = delta(c, 1)
            l, lci = delta(c, 2)
            print(f"| {os.path.basename(scenario)} | {name}: {what} | {base:.0f} | {g:+.1f}% +-{gci:.1f} | {l:+.1f}% +-{lci:.1f} |",
                  flush=True)

main()
