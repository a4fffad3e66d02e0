#!/usr/bin/env python3
"""Writes the "this machine" section of docs/probe.md from a profile and the JSON of
`vtick calibrate --json` with and without --check.
usage: scripts/probe-tables.py PROFILE FIT.json CHECK.json > section.md"""
import json
import sys


def ns(v):
    if v is None:
        return "n/a"
    v = float(v)
    if abs(v) >= 1e6:
        return f"{v / 1e6:.3g} ms"
    if abs(v) >= 1e3:
        return f"{v / 1e3:.3g} µs"
    return f"{v:.0f} ns"


def main():
    prof, fit, check = (json.load(open(p)) for p in sys.argv[1:4])
    env = prof["environment"]
    out = []
    out.append(f"- Guest: {env['cpu_model']['name']} (family {env['cpu_model']['family']} model "
               f"{env['cpu_model']['model']}), {env['online_cpus']} vCPUs, kernel {env['kernel']}, "
               f"CONFIG_HZ={env['config']['CONFIG_HZ']}, NO_HZ_IDLE={env['config']['CONFIG_NO_HZ_IDLE']}, "
               f"cpuidle {env['cpuidle']['driver']} (guest_halt_poll_ns="
               f"{env['cpuidle']['haltpoll'].get('guest_halt_poll_ns')}), clockevent {env['clockevent']}, "
               f"hypervisor {env['hypervisor'].get('signature')}; taken {prof['started']} in {prof['duration_s']:.0f} s.")
    steal = ", ".join(f"cpu{c['cpu']} {c['steal_pct']:.1f} %" for c in prof["steal"]["cpus"])
    out.append(f"- Steal over the run: {steal}.")
    out.append("")
    out.append("The fit on every figure (`vtick calibrate this-guest-profile.json -o this-guest.toml`):")
    out.append("")
    out.append("| parameter | default | fitted | 1 sigma | range searched |")
    out.append("|---|---|---|---|---|")
    for p in fit["parameters"]:
        if "levels" in p:  # a choice: its levels, the runner-up re-fitted
            ru = next((lv["text"] for lv in p["levels"] if lv["value"] == p["runner_up"]), "none")
            dflt = next(lv["text"] for lv in p["levels"] if lv["value"] == p["default"])
            state = "identified" if p["identifiable"] else "not identifiable"
            out.append(f"| `{p['key']}` | {dflt} | {p['fitted_text']} | {state}: next {ru} at delta chi2 "
                       f"{p['delta_chi2']:.1f} | {len(p['levels'])} levels |")
            continue
        edge = p["fitted"] <= p["lo"] * 1.001 or p["fitted"] >= p["hi"] * 0.999
        if p["identifiable"]:
            sig = f"×/÷ {2.718281828 ** p['sigma']:.2f}" if p["log_scale"] else f"± {ns(p['sigma'])}"
        else:
            sig = "not identifiable from this profile"
        out.append(f"| `{p['key']}` | {ns(p['default'])} | {ns(p['fitted'])}{' (at its edge)' if edge else ''} | "
                   f"{sig} | {ns(p['lo'])} .. {ns(p['hi'])} |")
    out.append("")
    out.append(f"chi2 {fit['chi2_fit']:.0f} over {sum(f['role'] != 'compared' for f in fit['figures'])} figures ({fit['evaluations']} evaluations). "
               f"Verdict: {fit['verdict']}.")
    out.append("")
    out.append("`--check` (fit on the exit, the ping-pong, the remote futex wake, the spin round trips and the 1 ns-slack idle "
               "timers; predict the rest): measured p50, vtick's at the fit, error:")
    out.append("")
    out.append("| figure | measured | vtick | error | role |")
    out.append("|---|---|---|---|---|")
    def show(f, v):
        return ns(v) if f["unit"] == "ns" else ("n/a" if v is None else f"{v:.1f}{f['unit']}")
    for f in check["figures"]:
        err = "n/a" if f["error_pct"] is None else f"{f['error_pct']:+.0f} %"
        out.append(f"| `{f['id']}` | {show(f, f['measured'])} | {show(f, f['vtick'])} | {err} | {f['role']} |")
    held = [abs(f["error_pct"]) for f in check["figures"] if f["role"] == "predicted"]
    fitted = [abs(f["error_pct"]) for f in check["figures"] if f["role"] == "fit"]
    out.append("")
    out.append(f"Median absolute error: {sorted(fitted)[len(fitted) // 2]:.0f} % on the {len(fitted)} fitted "
               f"figures, {sorted(held)[len(held) // 2]:.0f} % on the {len(held)} predicted ones "
               f"(chi2 {check['chi2_fit']:.0f} fitted, {check['chi2_predicted']:.0f} predicted).")
    print("\n".join(out))


if __name__ == "__main__":
    main()
