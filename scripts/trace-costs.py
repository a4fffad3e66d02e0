#!/usr/bin/env python3
"""Exit and path costs of a recorded machine from its trace-compare rows (issue 43).

vtick-probe cannot see some costs a recording shows directly: on the AMD guest of
docs/real-guest/trace-2026-12-06c calibrate writes ipi_send_ns "not identifiable from this
profile" and keeps the default IPI delivery. Four trace-compare intervals are each a sum of declared
costs in the model of which one is the machine's (docs/cli.md, trace-compare's rows):

  wrmsr.tsc_deadline p50   vmexit_ns + timer_write_ns          -> host.costs.timer_write_ns
  wrmsr.icr p50            vmexit_ns + ipi_send_ns (a polled   -> host.costs.ipi_send_ns
                           or running target: no kick)
  ipi_to_entry.CAL p50     the sender's exit (above) + ipi_deliver_ns (+ halt_resume_ns
                           for a halted target) + irq entry    -> host.costs.ipi_deliver_ns
                           (only when the recording lacks the three rows below)
  ipi_to_entry.CAL.to_running p50  the sender's exit + ipi_deliver_ns (posted) -> ipi_deliver_ns,
                           or without APICv / AVIC (host.kvm.apicv false) + vmexit_ns +
                           kick_ns (the kick's IRQ exit)                     -> host.costs.kick_ns
  ipi_to_entry.CAL.to_halted p50   the sender's exit + ipi_deliver_ns + halt_resume_ns
                                                               -> host.costs.halt_resume_ns
  halt_to_entry.CAL p50    vmexit_ns + hlt_exit_ns (the HLT exit, the interrupt pending
                           or arriving)                        -> host.costs.hlt_exit_ns
  pre_hlt_window p50       switch_idle_ns + idle_enter_ns      -> guest.costs.switch_idle_ns
                           (the tick retained, as got_tick)

Each moves by the real p50 less the model's, the model's taken from a run at the costs its
--sim JSON echoes, less the moves of the costs before it in the same interval (the
sender's exit, then a posted delivery). A
lognormal spread (guest.costs.sigma, host.costs.wake_sigma) puts the model's p50 below its
mean, so a second pass on a rerun closes what is left. A value outside its declared range
(vtick list keys) is an error, never clamped. Use one real run (r1) and keep the other (r2)
as the check.

usage: trace-costs.py --cmp CMP.json --sim RUN.json --vtick BIN
  CMP.json: scripts/trace-baseline.sh's OUT/cmp/NAME.rR.json (real and vtick rows)
  RUN.json: the vtick run beside it (OUT/sim/NAME.json: its config echoes the costs)
Prints one `--set KEY=VALUE` per cost on stdout, the derivation on stderr.
"""
import argparse
import json
import re
import subprocess
import sys

SEND = "host.costs.ipi_send_ns"
DELIVER = "host.costs.ipi_deliver_ns"
SPLIT = ("ipi_to_entry.CAL.to_running", "ipi_to_entry.CAL.to_halted", "halt_to_entry.CAL")


def rows_for(p50, apicv):
    """(trace-compare row, the key it moves, what the model adds up in that interval, the
    earlier moves inside that interval), in order: the split CAL rows when the recording
    has them, else ipi_to_entry.CAL whole."""
    rows = [("wrmsr.tsc_deadline", "host.costs.timer_write_ns", "vmexit_ns + timer_write_ns", ()),
            ("wrmsr.icr", SEND, "vmexit_ns + ipi_send_ns", ())]
    if all(p50.get(r, (None, None))[0] is not None for r in SPLIT):
        if apicv:
            rows.append((SPLIT[0], DELIVER, "send exit + ipi_deliver_ns (posted) + irq entry", (SEND,)))
        else:
            rows.append((SPLIT[0], "host.costs.kick_ns", "send exit + ipi_deliver_ns + vmexit_ns + kick_ns + irq entry",
                         (SEND,)))
        rows.append((SPLIT[1], "host.costs.halt_resume_ns", "send exit + ipi_deliver_ns + halt_resume_ns + irq entry",
                     (SEND, DELIVER)))
        rows.append((SPLIT[2], "host.costs.hlt_exit_ns", "vmexit_ns + hlt_exit_ns + irq entry", ()))
    else:
        rows.append(("ipi_to_entry.CAL", DELIVER, "send exit + ipi_deliver_ns (+ halt_resume_ns) + irq entry", (SEND,)))
    rows.append(("pre_hlt_window", "guest.costs.switch_idle_ns", "switch_idle_ns + finish_task_switch_ns + idle_enter_ns", ()))
    return rows


def die(msg):
    print(f"trace-costs.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        die(f"{path}: cannot read {what}: {e.strerror}")
    except json.JSONDecodeError as e:
        die(f"{path}: line {e.lineno}: not JSON ({e.msg}); expected {what}")


def ranges(vtick):
    try:
        out = subprocess.run([vtick, "list", "keys"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        die(f"--vtick {vtick}: `list keys` failed ({e})")
    r = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+(?:integer|number) \[([-\d.e+]+) \.\. ([-\d.e+]+)\]", line)
        if m:
            r[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cmp", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--vtick", required=True)
    a = ap.parse_args()
    cmp_ = load(a.cmp, "trace-baseline.sh's cmp/NAME.rR.json")
    sim = load(a.sim, "a vtick run --json")
    if not isinstance(cmp_, dict) or not isinstance(cmp_.get("rows"), list):
        die(f"{a.cmp}: no 'rows' list: not a trace-compare JSON")
    try:
        cfg = {"host.costs": sim["config"]["host"]["costs"], "guest.costs": sim["config"]["guest"]["costs"]}
        apicv = bool(sim["config"]["host"].get("kvm", {}).get("apicv", True))
    except (KeyError, TypeError, AttributeError):
        die(f"{a.sim}: no config.host.costs / config.guest.costs: not a vtick run --json")
    rng = ranges(a.vtick)
    p50 = {}
    for r in cmp_["rows"]:
        if not isinstance(r, dict) or "row" not in r:
            die(f"{a.cmp}: a row without 'row': {r!r}")
        if r.get("statistic") == "p50":
            p50[r["row"]] = (r.get("real"), r.get("sim"))
    moved = {}
    for row, key, model, before in rows_for(p50, apicv):
        section, name = key.rsplit(".", 1)
        if name not in cfg[section]:
            die(f"{a.sim}: config has no {key}")
        cur = float(cfg[section][name])
        real, mod = p50.get(row, (None, None))
        if real is None or mod is None:
            print(f"{row}: {'not in the recording' if real is None else 'none in vtick'}; {key} stays {cur:g}", file=sys.stderr)
            continue
        delta = (real - mod) * 1000.0  # rows are in us
        delta -= sum(moved.get(k, 0.0) for k in before)  # moved already, earlier in this interval
        new = round(cur + delta)
        lo, hi = rng.get(key, (None, None))
        if lo is None:
            die(f"--vtick {a.vtick}: `list keys` has no range for {key}")
        if not lo <= new <= hi:
            die(f"{a.cmp}: {row} p50 real {real:g} us, vtick {mod:g} us: {key} would be {new} ns, outside its "
                f"declared range [{lo:g} .. {hi:g}]: the model's {model} cannot hold this machine's figure")
        moved[key] = new - cur
        print(f"{row} p50: real {real:g} us, vtick {mod:g} us ({model}) -> {key} {cur:g} -> {new}", file=sys.stderr)
        print(f"--set {key}={new}")


if __name__ == "__main__":
    main()
