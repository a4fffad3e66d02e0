#!/usr/bin/env python3
"""Turn scripts/measure-guest.sh's raw snapshots into measure.json and measure.md.

usage: measure-guest-report.py RAWDIR OUT.json OUT.md

Per run: counter deltas over the window between snapshots A and B (/proc/stat,
/proc/interrupts, the workers' /proc/PID/task/*/sched and status, every process's CPU time,
perf stat's tracepoint counts), and for traced runs the packing episodes rebuilt from the
sched tracepoints (see measure_trace.py beside this file).
"""
import json
import os
import re
import sys

sys.dont_write_bytecode = True   # no __pycache__ left in scripts/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_trace  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
STAT_FIELDS = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]


def fail(msg):
    print(f"measure-guest-report.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")


def parse_meta(path):
    meta = {}
    for tok in read(path).split():
        if "=" not in tok:
            fail(f"{path}: token '{tok}' is not key=value")
        k, v = tok.split("=", 1)
        meta[k] = v
    return meta


def parse_stat(path):
    cpus, ctxt = {}, None
    for line in read(path).splitlines():
        f = line.split()
        if f and f[0].startswith("cpu"):
            cpus[f[0]] = dict(zip(STAT_FIELDS, map(int, f[1:9])))
        elif f and f[0] == "ctxt":
            ctxt = int(f[1])
    return cpus, ctxt


def parse_interrupts(path):
    lines = read(path).splitlines()
    ncpu = len(lines[0].split())
    rows = {}
    for line in lines[1:]:
        f = line.split()
        if not f:
            continue
        key = f[0].rstrip(":")
        vals = [int(x) for x in f[1:1 + ncpu] if x.isdigit()]
        if len(vals) == ncpu:
            rows[key] = vals
    return rows


def parse_procs(path):
    """pid -> (comm, utime+stime in ticks) from concatenated /proc/PID/stat lines."""
    out = {}
    for line in read(path).splitlines():
        if "(" not in line or ")" not in line:
            continue
        pid = int(line.split(" ", 1)[0])
        comm = line[line.index("(") + 1:line.rindex(")")]
        rest = line[line.rindex(")") + 2:].split()
        out[pid] = (comm, int(rest[11]) + int(rest[12]))
    return out


def parse_tasks(path):
    """tid -> {pid, nr_migrations, nr_switches, voluntary, involuntary, sum_exec_ms, processor}."""
    out, cur = {}, None
    for line in read(path).splitlines():
        m = re.match(r"=== pid=(\d+) tid=(\d+)", line)
        if m:
            cur = {"pid": int(m.group(1))}
            out[int(m.group(2))] = cur
            continue
        if cur is None:
            continue
        m = re.match(r"(se\.nr_migrations|nr_switches|se\.sum_exec_runtime)\s*:\s*([\d.]+)", line)
        if m:
            cur[m.group(1).replace("se.", "")] = float(m.group(2))
        m = re.match(r"(voluntary|nonvoluntary)_ctxt_switches:\s*(\d+)", line)
        if m:
            cur[m.group(1)] = int(m.group(2))
        if re.match(r"\d+ \(", line):
            rest = line[line.rindex(")") + 2:].split()
            cur["processor"] = int(rest[36])
    return out


def parse_perfstat(path):
    """(event, cpu) -> (count, enabled seconds)."""
    out = {}
    for line in read(path).splitlines():
        f = line.split(",")
        if len(f) < 5 or not f[0].startswith("CPU"):
            continue
        cpu = int(f[0][3:])
        count = int(f[1]) if f[1].isdigit() else None
        out[(f[3], cpu)] = (count, int(f[4]) / 1e9 if f[4].isdigit() else None)
    return out


def parse_sysbench(path):
    text = read(path)
    ev = re.search(r"total number of events:\s+(\d+)", text)
    tt = re.search(r"total time:\s+([\d.]+)s", text)
    fair = re.search(r"events \(avg/stddev\):\s+([\d.]+)/([\d.]+)", text)
    if not ev or not tt:
        fail(f"{path}: no 'total number of events' / 'total time' in sysbench's output")
    return {"events": int(ev.group(1)), "total_time_s": float(tt.group(1)),
            "events_per_thread_avg": float(fair.group(1)) if fair else None,
            "events_per_thread_stddev": float(fair.group(2)) if fair else None}


def r(x, nd=1):
    return None if x is None else round(x, nd)


def analyse_run(d):
    meta = parse_meta(os.path.join(d, "meta"))
    up_a = float(read(os.path.join(d, "A.uptime")))
    up_b = float(read(os.path.join(d, "B.uptime")))
    dt = up_b - up_a
    sa, ctxt_a = parse_stat(os.path.join(d, "A.stat"))
    sb, ctxt_b = parse_stat(os.path.join(d, "B.stat"))
    ia = parse_interrupts(os.path.join(d, "A.interrupts"))
    ib = parse_interrupts(os.path.join(d, "B.interrupts"))
    ps = parse_perfstat(os.path.join(d, "perfstat.csv"))
    ncpu = len([k for k in sa if k != "cpu"])
    run = {"name": meta["name"], "meta": meta, "window_s": r(dt, 3),
           "loadavg_start": read(os.path.join(d, "A.loadavg")).split()[:3]}

    def pstat(ev, cpu):
        c, en = ps.get((ev, cpu), (None, None))
        return None if c is None or not en else c / en

    cpus = []
    for c in range(ncpu):
        k = f"cpu{c}"
        delta = {f: sb[k][f] - sa[k][f] for f in STAT_FIELDS}
        # idle (NO_HZ idle sleeptime, exact) against wall time; user/system are tick samples
        wall = dt * CLK_TCK
        row = {"cpu": c,
               "idle_pct": r(100 * (delta["idle"] + delta["iowait"]) / wall),
               "steal_pct": r(100 * delta["steal"] / wall, 2),
               "user_pct": r(100 * (delta["user"] + delta["nice"]) / wall),
               "system_pct": r(100 * delta["system"] / wall),
               "irq_softirq_pct": r(100 * (delta["irq"] + delta["softirq"]) / wall, 2),
               "halts_per_s": r(pstat("power:cpu_idle", c)),
               "wake_idle_without_ipi_per_s": r(pstat("sched:sched_wake_idle_without_ipi", c)),
               "call_function_single_per_s": r(pstat("irq_vectors:call_function_single_entry", c)),
               "call_function_per_s": r(pstat("irq_vectors:call_function_entry", c)),
               "ipi_sent_per_s": r((pstat("ipi:ipi_send_cpu", c) or 0) + (pstat("ipi:ipi_send_cpumask", c) or 0)),
               "migrations_all_tasks_per_s": r(pstat("sched:sched_migrate_task", c)),
               "wakeups_per_s": r(pstat("sched:sched_wakeup", c))}
        for irq in ("LOC", "RES", "CAL", "TLB"):
            row[f"{irq}_per_s"] = r((ib[irq][c] - ia[irq][c]) / dt) if irq in ia else None
        cpus.append(row)
    run["cpus"] = cpus
    run["ctxt_per_s"] = r((ctxt_b - ctxt_a) / dt)

    if meta["threads"] != "0":
        outs = sorted(f for f in os.listdir(d) if f.startswith("sysbench") and f.endswith(".out"))
        sbs = [parse_sysbench(os.path.join(d, f)) for f in outs]
        run["sysbench"] = sbs
        run["events_per_s"] = r(sum(s["events"] / s["total_time_s"] for s in sbs))
    workers = [int(x) for x in read(os.path.join(d, "workers")).split()]
    ta = parse_tasks(os.path.join(d, "A.tasks"))
    tb = parse_tasks(os.path.join(d, "B.tasks"))
    wl = []
    for w in workers:
        a, b = ta.get(w), tb.get(w)
        if not a or not b:
            fail(f"{d}: worker {w} missing from the A or B task snapshot")
        wl.append({"tid": w,
                   "migrations": int(b["nr_migrations"] - a["nr_migrations"]),
                   "voluntary_switches": b["voluntary"] - a["voluntary"],
                   "involuntary_switches": b["nonvoluntary"] - a["nonvoluntary"],
                   "cpu_share_pct": r(100 * (b["sum_exec_runtime"] - a["sum_exec_runtime"]) / 1e3 / dt),
                   "cpu_at_end": b.get("processor")})
    run["workers"] = wl
    if wl:
        run["worker_migrations_per_s"] = r(sum(w["migrations"] for w in wl) / dt, 2)
        run["worker_voluntary_switches_per_s"] = r(sum(w["voluntary_switches"] for w in wl) / dt)
        run["worker_involuntary_switches_per_s"] = r(sum(w["involuntary_switches"] for w in wl) / dt)
    run["other_load"] = other_load(d, meta, sa, sb, dt, ncpu)
    tr = os.path.join(d, "trace.txt.gz")
    if os.path.exists(tr):
        run["trace"] = measure_trace.analyse(tr, workers, ncpu, meta, up_a, up_b)
        stats = read(os.path.join(d, "trace-stats"))
        run["trace"]["ftrace_overrun"] = sum(int(x) for x in re.findall(r"(?<!commit )overrun: (\d+)", stats))
        run["trace"]["ftrace_dropped"] = sum(int(x) for x in re.findall(r"dropped events: (\d+)", stats))
    return run


def other_load(d, meta, sa, sb, dt, ncpu):
    """CPU time in the window not spent by sysbench, the disturber or perf: other tenants."""
    pa = parse_procs(os.path.join(d, "A.procs"))
    pb = parse_procs(os.path.join(d, "B.procs"))
    mine = {int(p) for p in meta.get("sysbench_pids", "").split(",") if p}
    dist = int(meta["disturber_pid"]) if "disturber_pid" in meta else None
    busy_ticks = sum(sb["cpu"][f] - sa["cpu"][f] for f in ("user", "nice", "system", "irq", "softirq"))
    groups = {"sysbench": 0, "disturber": 0, "perf": 0}
    others = {}
    for pid, (comm, t) in pb.items():
        delta = t - pa[pid][1] if pid in pa else t
        if pid in mine:
            groups["sysbench"] += delta
        elif pid == dist:
            groups["disturber"] += delta
        elif comm == "perf":
            groups["perf"] += delta
        elif delta > 0:
            others[comm] = others.get(comm, 0) + delta
    top = sorted(others.items(), key=lambda kv: -kv[1])[:6]
    # other_* from the processes' own (runtime-based) utime+stime; /proc/stat's busy ticks are
    # tick samples and can come out below it (busy_cpu_s is kept for reference only)
    return {"busy_cpu_s_from_proc_stat": r(busy_ticks / CLK_TCK, 2),
            "sysbench_cpu_s": r(groups["sysbench"] / CLK_TCK, 2),
            "disturber_cpu_s": r(groups["disturber"] / CLK_TCK, 2),
            "perf_cpu_s": r(groups["perf"] / CLK_TCK, 2),
            "other_cpu_pct_of_one_cpu": r(100 * sum(others.values()) / CLK_TCK / dt),
            "other_top": [[c, r(t / CLK_TCK, 2)] for c, t in top]}


def parse_env(path):
    sections, cur = {}, None
    for line in read(path).splitlines():
        if line.startswith("=== "):
            cur = line[4:]
            sections[cur] = []
        elif cur:
            sections[cur].append(line)
    env = {k: "\n".join(v) for k, v in sections.items() if k != "stat"}
    cfg = dict(re.findall(r"^(CONFIG_\w+)=(\S+)", env.get("config", ""), re.M))
    steal = None
    for line in sections.get("stat", []):
        if line.startswith("cpu "):
            f = line.split()
            steal = {"steal_s": int(f[8]) / CLK_TCK,
                     "total_s": sum(int(x) for x in f[1:9]) / CLK_TCK}
    env["summary"] = {
        "kernel": env.get("uname", "").split()[2] if env.get("uname") else None,
        "CONFIG_HZ": cfg.get("CONFIG_HZ"),
        "NO_HZ": [k for k in ("CONFIG_NO_HZ_IDLE", "CONFIG_NO_HZ_FULL", "CONFIG_HZ_PERIODIC") if cfg.get(k) == "y"],
        "preempt": [k for k in ("CONFIG_PREEMPT_NONE", "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT",
                                "CONFIG_PREEMPT_LAZY", "CONFIG_PREEMPT_DYNAMIC") if cfg.get(k) == "y"],
        "cpuidle_driver": env.get("cpuidle_driver"),
        "cpuidle_governor": env.get("cpuidle_governor"),
        "clocksource": env.get("clocksource"),
        "steal_since_boot": steal,
        "clk_tck": CLK_TCK,
    }
    return env


def main():
    if len(sys.argv) != 4:
        fail("usage: measure-guest-report.py RAWDIR OUT.json OUT.md")
    raw, out_json, out_md = sys.argv[1:]
    env = parse_env(os.path.join(raw, "env.txt"))
    runs = []
    for name in sorted(os.listdir(raw)):
        d = os.path.join(raw, name)
        if os.path.isdir(d) and os.path.exists(os.path.join(d, "B.stat")):
            runs.append(analyse_run(d))
    runs.sort(key=lambda run: run["meta"].get("start_utc", ""))
    if not runs:
        fail(f"{raw}: no complete run (no */B.stat)")
    result = {"generated_by": "scripts/measure-guest.sh, scripts/measure-guest-report.py",
              "environment": env, "runs": runs}
    with open(out_json, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    import measure_markdown
    with open(out_md, "w") as f:
        f.write(measure_markdown.render(result))


if __name__ == "__main__":
    main()
