"""Figures of scripts/story3.sh: /proc/stat samples (vtick run --proc-stat-csv) of the old
and the new idle cputime scheme side by side, one figure per claim of the series."""
import csv
import subprocess
import sys

tmp, out = sys.argv[1], sys.argv[2]


def load(name, scheme):
    rows = list(csv.DictReader(open(f"{tmp}/{name}-{scheme}.csv")))
    return rows


def series(rows, col, cpu=None):
    """time (ms) -> value (ms), summed over CPUs unless one is given"""
    acc = {}
    for r in rows:
        if cpu is not None and int(r["cpu"]) != cpu:
            continue
        t = int(r["t_ns"]) / 1e6
        acc[t] = acc.get(t, 0) + int(r[col]) / 1e6
    return sorted(acc.items())


def plot(name, title, ylabel, lines):
    data, plots = "", []
    for i, (label, pts) in enumerate(lines):
        data += f"$d{i} << EOD\n" + "".join(f"{t:.3f} {v:.6f}\n" for t, v in pts) + "EOD\n"
        # a line equal to an earlier one would hide under it: dashed, and named so
        same = next((lines[j][0] for j in range(i) if lines[j][1] == pts), None)
        style = "lw 2" if same is None else "lw 3 dt 2"
        title = label if same is None else f"{label} (= {same})"
        plots.append(f"$d{i} using 1:2 with lines {style} title '{title}'")
    script = (f"set terminal svg size 800,420 dynamic font 'sans,11' noenhanced\nset output '{out}/{name}.svg'\n"
              f"set title '{title}'\nset xlabel 'simulated time (ms)'\nset ylabel '{ylabel}'\nset grid\nset key left top\n"
              + data + "plot " + ", ".join(plots) + "\n")
    subprocess.run(["gnuplot"], input=script.encode(), check=True)


o, n = load("offline", "old"), load("offline", "new")
plot("offline", "idle time of all CPUs in /proc/stat; vCPU 1 offline from 40 to 70 ms", "idle (ms)",
     [("old scheme", series(o, "idle_ns")), ("new scheme", series(n, "idle_ns"))])
o, n = load("idle-steal", "old"), load("idle-steal", "new")
plot("idle-steal", "vCPU 1 napping while host threads take its hardware thread", "ms",
     [("idle, old", series(o, "idle_ns", 1)), ("idle, new", series(n, "idle_ns", 1)),
      ("steal, old", series(o, "steal_ns", 1)), ("steal, new", series(n, "steal_ns", 1))])
o, n = load("nohz-full-user", "old"), load("nohz-full-user", "new")
plot("nohz-full-user", "a nohz_full vCPU 1 running user work (VIRT_CPU_ACCOUNTING_GEN)", "user (ms)",
     [("user, old", series(o, "user_ns", 1)), ("user, new", series(n, "user_ns", 1)),
      ("user of the ticking vCPU 0, old", series(o, "user_ns", 0))])

def plus(*ss):
    """pointwise sum of series with the same times"""
    return [(p[0][0], sum(x[1] for x in p)) for p in zip(*ss)]


def minus(a, b):
    return [(x[0], x[1] - y[1]) for x, y in zip(a, b)]


def idle_of(rows, cpu):
    return plus(series(rows, "idle_ns", cpu), series(rows, "iowait_ns", cpu))


lines = []
for tag, label in (("irq-time", "IRQ_TIME_ACCOUNTING=n"), ("irq-time-on", "=y")):
    for s in ("old", "new"):
        r = load(tag, s)
        lines.append((f"idle+iowait, {s}, {label}", idle_of(r, 1)))
        if tag == "irq-time-on" and s == "new":
            lines.append(("irq, =y (both schemes)", series(r, "irq_ns", 1)))
lines.append(("idle task (the model truth)", series(load("irq-time", "old"), "idle_task_ns", 1)))
plot("irq-time", "vCPU 1 waiting on block I/O: device interrupts inside idle", "ms", lines)
plot("blind-spots", "idle task time not in /proc/stat idle+iowait (vCPU 1, ping-pong)", "ms",
     [(f"{s} scheme", minus(series(load("blind-spots", s), "idle_task_ns", 1), idle_of(load("blind-spots", s), 1)))
      for s in ("old", "new")])

# the figures' numbers for docs/validation.md
def drop(pts):
    return max([0.0] + [a[1] - b[1] for a, b in zip(pts, pts[1:])])
print("offline: largest drop of summed idle, old %.3f ms, new %.3f ms" %
      (drop(series(load("offline", "old"), "idle_ns")), drop(series(load("offline", "new"), "idle_ns"))))
for s in ("old", "new"):
    r = load("idle-steal", s)
    print("idle-steal %s: vCPU 1 idle %.2f ms, steal %.2f ms at the end" % (s, series(r, "idle_ns", 1)[-1][1], series(r, "steal_ns", 1)[-1][1]))
    r = load("nohz-full-user", s)
    print("nohz-full-user %s: vCPU 1 user %.2f ms at %.1f ms" % (s, series(r, "user_ns", 1)[-1][1], series(r, "user_ns", 1)[-1][0]))
for tag in ("irq-time", "irq-time-on"):
    for s in ("old", "new"):
        r = load(tag, s)
        last = lambda col: series(r, col, 1)[-1][1]
        print("%s %s: vCPU 1 idle %.3f iowait %.3f irq %.3f ms; idle task %.3f ms" %
              (tag, s, last("idle_ns"), last("iowait_ns"), last("irq_ns"), last("idle_task_ns")))
for s in ("old", "new"):
    r = load("blind-spots", s)
    d = minus(series(r, "idle_task_ns", 1), idle_of(r, 1))
    print("blind-spots %s: idle task minus idle+iowait at the end %.3f ms (range %.3f .. %.3f)" %
          (s, d[-1][1], min(x[1] for x in d), max(x[1] for x in d)))
