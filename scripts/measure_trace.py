"""Packing episodes, idle entries and wake-ups from a measure-guest.sh trace (ftrace text).

The trace has sched_switch only to/from idle and when a task blocks or is preempted, plus
sched_wakeup(_new), sched_migrate_task, sched_process_exit, power:cpu_idle (state 1: the HLT
in default_idle_call()), the IRQ vector entries, sched_wake_idle_without_ipi and
csd:csd_queue_cpu. From it, per instant:
  same_cpu   the sysbench workers are assigned to one run queue (task_cpu), sleeping or not;
  colocated  >= 2 workers runnable on one vCPU;
  packed     colocated while another vCPU runs its idle task.
Each transition is labelled with the event that caused it; a migration's cause is inferred
from where and in which context sched_migrate_task fired (see classify_migration()).

Not every event reaches the trace on this kind of guest: some sched_switch and
sched_migrate_task records never appear (seen with ftrace too, not perf losses; they involve
the sandbox's own processes). Every record names the task current on its CPU, so the state is
corrected from that: a CPU seen running a task is not idle, a worker seen running on a CPU is
there and runnable. Those corrections are counted ("unseen_*") and labelled "not traced".
"""
import gzip
import re

# "comm-pid [cpu] flags timestamp: event: payload", as /sys/kernel/tracing/trace prints it
LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?(\d+\.\d+):\s+(\w+):\s?(.*)$")
SYSTEM = {"sched_switch": "sched", "sched_wakeup": "sched", "sched_wakeup_new": "sched",
          "sched_migrate_task": "sched", "sched_process_exit": "sched", "sched_wake_idle_without_ipi": "sched",
          "local_timer_entry": "irq_vectors", "reschedule_entry": "irq_vectors",
          "call_function_single_entry": "irq_vectors", "call_function_entry": "irq_vectors",
          "cpu_idle": "power", "csd_queue_cpu": "csd"}
SWITCH = re.compile(r"prev_comm=(.*) prev_pid=(\d+) prev_prio=-?\d+ prev_state=(\S+) ==> next_comm=(.*) next_pid=(\d+)")
WAKE = re.compile(r"comm=(.*) pid=(\d+) prio=-?\d+ target_cpu=(\d+)")
MIGRATE = re.compile(r"comm=(.*) pid=(\d+) prio=-?\d+ orig_cpu=(\d+) dest_cpu=(\d+)")
EXIT = re.compile(r"comm=(.*) pid=(\d+) prio")
CSD = re.compile(r"cpu=(\d+) callsite=\S* func=(\S+)")
CPUF = re.compile(r"cpu=(\d+)")
IRQS = {"irq_vectors:local_timer_entry": "LOC", "irq_vectors:reschedule_entry": "RES",
        "irq_vectors:call_function_single_entry": "CAL(single)",
        "irq_vectors:call_function_entry": "CAL(many)"}
KINDS = ("packed", "colocated", "same_cpu")


def load(path):
    events, lost = [], 0
    with gzip.open(path, "rt", errors="replace") as f:
        for line in f:
            if line.startswith("#"):
                continue
            if "LOST" in line:
                lost += 1
                continue
            m = LINE.match(line)
            if m and m.group(5) in SYSTEM:
                comm, tid, cpu, t, ev, rest = m.groups()
                events.append((float(t), int(cpu), int(tid), comm, f"{SYSTEM[ev]}:{ev}", rest))
    events.sort(key=lambda e: e[0])
    return events, lost


def dist(xs):
    if not xs:
        return None
    s = sorted(xs)
    return {"count": len(s), "min": round(s[0], 3), "median": round(s[len(s) // 2], 3),
            "p90": round(s[min(len(s) - 1, int(0.9 * len(s)))], 3), "max": round(s[-1], 3)}


def comm_class(comm, pid, disturber):
    if disturber is not None and pid == disturber:
        return "disturber"
    return comm.split("/")[0]


def analyse(path, workers, ncpu, meta, t0, t1):
    """t0, t1: the counter window (snapshots A and B, CLOCK_MONOTONIC like perf -k monotonic)."""
    events, lost = load(path)
    W = set(workers)
    disturber = int(meta["disturber_pid"]) if "disturber_pid" in meta else None
    nxt = [None] * len(events)       # index of the next event on the same CPU
    last_on = {}
    for i in range(len(events) - 1, -1, -1):
        nxt[i] = last_on.get(events[i][1])
        last_on[events[i][1]] = i
    born = {}
    died = {}
    for t, cpu, tid, comm, ev, rest in events:
        if ev in ("sched:sched_wakeup_new", "sched:sched_process_exit"):
            m = (WAKE if ev.endswith("new") else EXIT).match(rest)
            if m and int(m.group(2)) in W:
                (born if ev.endswith("new") else died).setdefault(int(m.group(2)), t)
    if set(born) != W:
        return {"error": "the trace does not show every worker's creation (sched_wakeup_new)"}
    if not (events[0][0] < t0 < t1 < events[-1][0]) or max(born.values()) > t0 or (died and min(died.values()) < t1):
        return {"error": f"the counter window {t0}..{t1} is not inside the trace's worker lifetime"}
    unseen = {"switch_from_idle": 0, "switch_to_idle": 0, "worker_migration": 0, "worker_wakeup": 0}

    loc, run = {}, {}
    idle = [None] * ncpu
    last_irq = [dict() for _ in range(ncpu)]      # kind -> time
    last_block = {}
    last_move_asleep = {}
    on = {k: False for k in KINDS}
    started = {k: None for k in KINDS}
    time_in = {k: 0.0 for k in KINDS}
    episodes = {k: [] for k in KINDS}
    truncated = {k: 0 for k in KINDS}
    st = {"futex_sleeps": 0, "preemptions": 0, "preempted_by": {}, "migrations": {}}
    cpu_st = [{"idle_entries": 0, "halts": 0, "halting_entries": 0, "halt_to_exit_us": [],
               "idle_period_us": [], "irq": {}, "wake_without_ipi": 0, "exit_by": {}} for _ in range(ncpu)]
    idle_since = [None] * ncpu
    halted_at = [None] * ncpu
    idle_irq = [None] * ncpu     # last interrupt taken in the current idle period
    polled = [False] * ncpu      # a wake-up found it polling (no IPI) in this idle period
    waking = [None] * ncpu       # time a wake-up ended its idle period, until its task shows
    csd = {}
    prev_t = events[0][0]
    idle_time = [0.0] * ncpu

    def inwin(t):
        return t0 <= t <= t1

    def state():
        assigned, runnable = {}, {}
        for w in W:
            if w in loc:
                assigned[loc[w]] = assigned.get(loc[w], 0) + 1
                if run.get(w):
                    runnable[loc[w]] = runnable.get(loc[w], 0) + 1
        col = [c for c, n in runnable.items() if n >= 2]
        packed = any(idle[o] for c in col for o in range(ncpu) if o != c)
        return {"same_cpu": any(n >= 2 for n in assigned.values()),
                "colocated": bool(col), "packed": packed}

    def enter_idle(c, t, win):
        idle[c], waking[c] = True, None
        idle_since[c], halted_at[c], idle_irq[c], polled[c] = t, None, None, False
        if win:
            cpu_st[c]["idle_entries"] += 1

    def leave_idle(c, t, win):
        idle[c] = False
        if win and idle_since[c] is not None:
            cs = cpu_st[c]
            cs["idle_period_us"].append(1e6 * (t - idle_since[c]))
            if halted_at[c] is not None:
                cs["halting_entries"] += 1
                cs["halt_to_exit_us"].append(1e6 * (t - halted_at[c]))
            # what ended it: an IPI means the CPU had left polling (about to HLT, or halted)
            why = ("IPI " + idle_irq[c] if idle_irq[c] in ("CAL(single)", "CAL(many)", "RES") else
                   "polling, no IPI" if polled[c] else "timer" if idle_irq[c] == "LOC" else "other")
            cs["exit_by"][why] = cs["exit_by"].get(why, 0) + 1
        idle_since[c] = None

    def classify_migration(i, w, dst):
        t, cpu, tid, comm, _, _ = events[i]
        if not run.get(w):
            return "wake-up placement (select_task_rq_fair)"
        if comm.startswith("migration/"):
            return "active balance / stopper (migration/N)"
        if cpu != dst:
            return f"pushed by {comm_class(comm, tid, disturber)} on cpu{cpu}"
        if tid == 0:
            recent = {k: v for k, v in last_irq[cpu].items() if t - v < 0.002}
            if not recent:
                return "idle pull (no interrupt seen)"
            if "ilb_kick" in recent:   # kick_ilb()'s csd, then its IPI (or a polling wake-up)
                return "nohz idle balance (kick_ilb)"
            kind = max(recent, key=recent.get)
            return "idle balance at its own tick" if kind == "LOC" else f"idle pull after {kind}"
        j = nxt[i]
        if j is not None and events[j][4] == "sched:sched_switch" and events[j][0] - t < 0.0005:
            m = SWITCH.match(events[j][5])
            if m and int(m.group(2)) == tid:
                return "newidle balance"
        if t - last_irq[cpu].get("LOC", -1) < 0.001:
            return "busy balance at its tick"
        return "pull by a busy cpu (other)"

    def evaluate(t, label):
        now = state()
        for k in KINDS:
            if now[k] and not on[k]:
                started[k] = (t, label)
            elif on[k] and not now[k]:
                s, why = started[k]
                if s >= t0 and t <= t1:
                    episodes[k].append((s - t0, 1e3 * (t - s), why, label))
                elif t >= t0 and s <= t1:
                    truncated[k] += 1
            on[k] = now[k]

    for i, (t, cpu, tid, comm, ev, rest) in enumerate(events):
        # time spent in the states that held until this event, clipped to the window
        a, b = max(prev_t, t0), min(t, t1)
        if b > a:
            for k in KINDS:
                if on[k]:
                    time_in[k] += b - a
            for c in range(ncpu):
                if idle[c]:
                    idle_time[c] += b - a
        prev_t = t
        label = None
        win = inwin(t)
        if tid >= 0:   # the record's own task is what runs on its CPU now
            if tid != 0:
                waking[cpu] = None
            if idle[cpu] is None:
                idle[cpu] = tid == 0
            elif tid == 0 and waking[cpu] is not None and t - waking[cpu] < 0.001:
                pass   # woken, still in the idle task on its way to the switch
            elif idle[cpu] != (tid == 0):
                if tid == 0:
                    enter_idle(cpu, t, win)
                    label = "other vCPU went idle (not traced)"
                else:
                    leave_idle(cpu, t, win)
                    label = "other vCPU busy (not traced)"
                if win:
                    unseen["switch_to_idle" if tid == 0 else "switch_from_idle"] += 1
            if tid in W and (loc.get(tid) != cpu or not run.get(tid)) and tid in loc:
                key = "worker_migration" if loc.get(tid) != cpu else "worker_wakeup"
                label = "worker migration (not traced)" if key == "worker_migration" else "worker wake-up (not traced)"
                loc[tid], run[tid] = cpu, True
                if win:
                    unseen[key] += 1
                    if key == "worker_migration":
                        st["migrations"][label] = st["migrations"].get(label, 0) + 1
            if label is not None:
                evaluate(t, label)
                label = None
        if ev == "sched:sched_switch":
            m = SWITCH.match(rest)
            if not m:
                continue
            pprev, pstate, ncomm, npid = int(m.group(2)), m.group(3), m.group(4), int(m.group(5))
            if pprev in W and not pstate.startswith("R"):
                run[pprev] = False
                last_block[pprev] = t
                label = "worker blocked (futex wait)"
                if win:
                    st["futex_sleeps"] += 1
            elif pprev in W and win:
                st["preemptions"] += 1
                who = comm_class(ncomm, npid, disturber)
                st["preempted_by"][who] = st["preempted_by"].get(who, 0) + 1
            if npid == 0:
                enter_idle(cpu, t, win)
                label = label or "other vCPU went idle"
            elif idle[cpu]:
                leave_idle(cpu, t, win)
                label = label or f"other vCPU busy: {comm_class(ncomm, npid, disturber)}"
        elif ev in ("sched:sched_wakeup", "sched:sched_wakeup_new"):
            m = WAKE.match(rest)
            if m:
                w, tgt = int(m.group(2)), int(m.group(3))
                if tgt < ncpu and idle[tgt]:
                    # a task enqueued on an idle CPU ends its idle period: the switch out of
                    # idle follows within microseconds (and is not always traced, see above)
                    leave_idle(tgt, t, win)
                    waking[tgt] = t
                    label = "other vCPU busy: wake-up"
                if w in W:
                    moved = last_move_asleep.get(w, -1) >= last_block.get(w, -1) and w in last_move_asleep
                    run[w], loc[w] = True, tgt
                    label = ("thread start" if ev.endswith("new") else
                             "wake-up moved it here" if moved else "wake-up on its previous cpu")
                    last_move_asleep.pop(w, None)
        elif ev == "sched:sched_migrate_task":
            m = MIGRATE.match(rest)
            if m and int(m.group(2)) in W:
                w, dst = int(m.group(2)), int(m.group(4))
                label = classify_migration(i, w, dst)
                if not run.get(w):
                    last_move_asleep[w] = t
                if win:
                    st["migrations"][label] = st["migrations"].get(label, 0) + 1
                loc[w] = dst
        elif ev == "sched:sched_process_exit":
            m = EXIT.match(rest)
            if m and int(m.group(2)) in W:
                run[int(m.group(2))] = False
                label = "thread exit"
        elif ev == "power:cpu_idle":
            halted_at[cpu] = t
            if win:
                cpu_st[cpu]["halts"] += 1
        elif ev in IRQS:
            last_irq[cpu][IRQS[ev]] = t
            if idle[cpu]:
                idle_irq[cpu] = IRQS[ev]
            if win:
                k = IRQS[ev]
                cpu_st[cpu]["irq"][k] = cpu_st[cpu]["irq"].get(k, 0) + 1
        elif ev == "sched:sched_wake_idle_without_ipi":
            m = CPUF.match(rest)
            if m and int(m.group(1)) < ncpu:
                polled[int(m.group(1))] = True
                if win:
                    cpu_st[int(m.group(1))]["wake_without_ipi"] += 1
        elif ev == "csd:csd_queue_cpu":
            m = CSD.match(rest)
            if m:
                tgt, func = int(m.group(1)), m.group(2)
                if func == "nohz_csd_func" and tgt < ncpu:
                    last_irq[tgt]["ilb_kick"] = t
                if win:
                    csd[func] = csd.get(func, 0) + 1
        if label is not None:
            evaluate(t, label)
    for k in KINDS:
        if on[k] and started[k][0] <= t1:
            truncated[k] += 1

    dur = t1 - t0
    out = {"window_s": round(dur, 3), "lost_event_records": lost, "unseen_in_window": unseen,
           "note": "window: the counter window (snapshots A to B)"}
    for k in KINDS:
        eps = episodes[k]
        starts, ends = {}, {}
        for _, _, s, e in eps:
            starts[s] = starts.get(s, 0) + 1
            ends[e] = ends.get(e, 0) + 1
        out[k] = {"time_pct": round(100 * time_in[k] / dur, 3), "time_ms": round(1e3 * time_in[k], 2),
                  "episodes": len(eps), "episodes_cut_by_window": truncated[k],
                  "episodes_per_s": round(len(eps) / dur, 2),
                  "length_ms": dist([e[1] for e in eps]),
                  "start_causes": dict(sorted(starts.items(), key=lambda kv: -kv[1])),
                  "end_causes": dict(sorted(ends.items(), key=lambda kv: -kv[1])),
                  # [start s into the window, length ms, started by, ended by]; all same_cpu
                  # phases, the first 200 of the (many, µs-long) runnable-based ones
                  "episodes_list": [[round(a, 4), round(b, 3), c, d]
                                    for a, b, c, d in eps[:2000 if k == "same_cpu" else 200]]}
    out["workers"] = {"futex_sleeps_per_s": round(st["futex_sleeps"] / dur, 1),
                      "preemptions_per_s": round(st["preemptions"] / dur, 1),
                      "preempted_by": st["preempted_by"],
                      "migrations_by_cause": st["migrations"]}
    cpus = []
    for c, cs in enumerate(cpu_st):
        cpus.append({"cpu": c, "idle_pct": round(100 * idle_time[c] / dur, 2),
                     # no power:cpu_idle at all while idle: the HLT is not observable on this CPU
                     "halt_tracepoint_silent": cs["halts"] == 0 and len(cs["idle_period_us"]) >= 50,
                     "idle_entries_per_s": round(cs["idle_entries"] / dur, 1),
                     "halts_per_s": round(cs["halts"] / dur, 1),
                     "idle_periods_with_halt_pct": round(100 * cs["halting_entries"] / len(cs["idle_period_us"]), 1)
                     if cs["idle_period_us"] else None,
                     "idle_period_us": dist(cs["idle_period_us"]),
                     "last_halt_to_idle_exit_us": dist(cs["halt_to_exit_us"]),
                     "irq_per_s": {k: round(v / dur, 1) for k, v in sorted(cs["irq"].items())},
                     "wake_idle_without_ipi_per_s": round(cs["wake_without_ipi"] / dur, 1),
                     "idle_exits_per_s_by": {k: round(v / dur, 1) for k, v in
                                             sorted(cs["exit_by"].items(), key=lambda kv: -kv[1])}})
    out["cpus"] = cpus
    out["csd_queued_per_s"] = {k: round(v / dur, 1) for k, v in sorted(csd.items(), key=lambda kv: -kv[1])}
    return out
