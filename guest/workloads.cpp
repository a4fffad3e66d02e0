// Guest workloads as task programs. Each kind's parameters are documented in the table
// below (docs/model.md prints it); costs of system calls and switches are the guest's.
#include "guest/workloads.hpp"

#include <sstream>
#include <stdexcept>

#include "core/rng.hpp"
#include "guest/kernel.hpp"

namespace vtick {

static std::uint64_t only(int cpu) { return 1ULL << cpu; }
static const double US = 1e3, MS = 1e6, S = 1e9;

const std::vector<WorkloadKind>& workload_kinds_table() {
  static const std::vector<WorkloadKind> k = {
      {WorkloadKindId::Idle, "no tasks: the guest only idles and ticks", "ops", {}},
      {WorkloadKindId::Periodic, "N tasks each alternating work W and sleep S from a random phase", "loops",
       {{"tasks", 'i', 0, 0, 4096, "number of tasks (0: one per vCPU), task i starts on CPU i mod vCPUs"},
        {"work", 'd', 300 * US, 1, 10 * S, "CPU work per loop"},
        {"sleep", 'd', 700 * US, 1, 10 * S, "sleep per loop (nanosleep, with timer slack)"},
        {"jitter", 'f', 0.1, 0, 1, "work and sleep vary uniformly by +/- this fraction"},
        {"pinned", 'i', 1, 0, 1, "1: each task pinned to its CPU; 0: free to move"}}},
      {WorkloadKindId::Pingpong, "two tasks on two CPUs hand a token back and forth by futex wait/wake", "round trips",
       {{"work", 'd', 50 * US, 1, 10 * S, "CPU work per turn"},
        {"jitter", 'f', 0.1, 0, 1, "work varies uniformly by +/- this fraction"},
        {"cpu_a", 'i', 0, 0, 511, "CPU of the first task"},
        {"cpu_b", 'i', 1, 0, 511, "CPU of the second task"}}},
      {WorkloadKindId::NohzFullTest, "the 2026 nohz_full idle=poll series' test (sleep/work loops, then probe timers)", "loops",
       {{"cpu", 'i', 2, 0, 511, "the nohz_full CPU under test"},
        {"work", 'd', 10 * MS, 1, 10 * S, "user work per loop"},
        {"sleep", 'd', 100 * US, 1, 10 * S, "sleep per loop"},
        {"loops", 'i', 200, 1, 1e6, "sleep/work iterations"}}},
      {WorkloadKindId::SysbenchThreads, "sysbench threads: each event is thread_yields x {lock one of thread_locks mutexes, sched_yield(), unlock}",
       "events",
       {{"threads", 'i', 0, 0, 4096, "--threads (0: one per vCPU)"},
        {"thread_yields", 'i', 1000, 1, 1e6, "--thread-yields: iterations per event"},
        {"thread_locks", 'i', 8, 1, 4096, "--thread-locks: mutexes; event n uses lock n mod thread_locks"},
        {"iteration_work", 'd', 200, 0, 1 * MS, "user work per iteration besides the calls [EST]"}}},
      {WorkloadKindId::Oltp, "sysbench OLTP against a MySQL-like server in the guest: one client and one server thread per connection, "
               "queries over a local socket, a table lock, commits flushed by a log writer through the block device, a purge thread",
       "transactions",
       {{"clients", 'i', 0, 0, 4096, "client threads = connections = server threads (0: one per vCPU)"},
        {"queries", 'i', 18, 1, 1000, "statements per transaction, the last is the commit (oltp_read_write: 18)"},
        {"client_work", 'd', 15 * US, 0, 10 * MS, "client CPU per statement (Lua, protocol) [EST]"},
        {"query_work", 'd', 40 * US, 0, 10 * MS, "server CPU per statement (parse, execute) [EST]"},
        {"lock_work", 'd', 5 * US, 0, 10 * MS, "server CPU under the table lock per statement [EST]"},
        {"commit_work", 'd', 30 * US, 0, 10 * MS, "server CPU for the commit before the log flush [EST]"},
        {"log_work", 'd', 10 * US, 0, 10 * MS, "log writer CPU per flush [EST]"},
        {"purge_period", 'd', 10 * MS, 1 * MS, 10 * S, "purge thread period"},
        {"purge_work", 'd', 300 * US, 0, 100 * MS, "purge thread CPU per period [EST]"},
        {"jitter", 'f', 0.3, 0, 1, "CPU bursts vary uniformly by +/- this fraction"}}},
      {WorkloadKindId::Hackbench, "hackbench: groups of senders and receivers over socketpairs (or pipes); each sender writes loops "
                    "messages to each receiver of its group, blocking while the receiver's buffer is full; the run ends "
                    "when all are done",
       "messages",
       {{"groups", 'i', 2, 1, 100, "-g: groups"},
        {"fds", 'i', 4, 1, 100, "-f: senders and receivers per group (hackbench's default is 20)"},
        {"loops", 'i', 100, 1, 1e6, "-l: messages per sender and receiver pair"},
        {"msg_work", 'd', 2 * US, 0, 1 * MS, "write or read of one 100-byte message in the kernel [EST]"},
        {"threads", 'i', 0, 0, 1, "0: process mode, 1: thread mode (-T)"},
        {"pipe", 'i', 0, 0, 1, "0: AF_UNIX socketpairs (hackbench's default), 1: pipes (-p)"}}},
      {WorkloadKindId::Script, "tasks written in the scenario ([[workload.task]] with name, cpus, count, program)", "loops", {}},
  };
  return k;
}

const WorkloadKind& workload_kind(WorkloadKindId id) {
  const WorkloadKind& k = workload_kinds_table().at(static_cast<std::size_t>(id));
  if (k.id != id) throw std::logic_error("workload_kinds_table() is not in WorkloadKindId order");
  return k;
}

VTICK_PARAM_TABLE(WorkloadSpec, VTICK_WORKLOAD_PARAMS)
VTICK_PARAM_CTOR(WorkloadSpec)

std::uint64_t timer_probe_token(int count, sim_ns delay) {
  return (1ULL << 63) | (static_cast<std::uint64_t>(count) << 32) | static_cast<std::uint64_t>(delay / 1000);
}
bool is_timer_probe_token(std::uint64_t t) { return t >> 63; }

// ---- script ------------------------------------------------------------------

namespace {

struct ScriptNames {
  std::map<std::string, int> mutexes, events;
};

Phase parse_phase(const std::string& line, GuestKernel* k, ScriptNames* names, std::string& err) {
  std::istringstream in(line);
  std::string op, a, b;
  in >> op >> a >> b;
  Phase p;
  auto dur = [&](const std::string& s, sim_ns& out) {
    if (!parse_duration(s, out) || out <= 0) {
      err = "'" + line + "': '" + s + "' is not a positive duration (e.g. 100us)";
      return false;
    }
    return true;
  };
  static std::map<std::string, int> scratch;  // names when only checking
  auto name = [&](std::map<std::string, int>& m, bool mutex) {
    if (a.empty()) {
      err = "'" + line + "': needs a name";
      return -1;
    }
    if (!k) return 0;
    auto it = m.find(a);
    if (it != m.end()) return it->second;
    int id = mutex ? k->add_mutex() : k->add_event();
    m[a] = id;
    return id;
  };
  if (op == "run" || op == "sleep") {
    p.kind = op == "run" ? PhaseKind::Run : PhaseKind::Sleep;
    if (!dur(a, p.ns)) return p;
    if (!b.empty()) {
      double j = -1;
      std::istringstream(b) >> j;
      if (j < 0 || j > 1) err = "'" + line + "': jitter must be a fraction 0 .. 1";
      p.jitter = j;
    }
  } else if (op == "lock" || op == "unlock") {
    p.kind = op == "lock" ? PhaseKind::Lock : PhaseKind::Unlock;
    p.obj = name(names ? names->mutexes : scratch, true);
  } else if (op == "wait" || op == "wake") {
    p.kind = op == "wait" ? PhaseKind::Wait : PhaseKind::Wake;
    p.obj = name(names ? names->events : scratch, false);
  } else if (op == "yield") {
    p.kind = PhaseKind::Yield;
  } else if (op == "io") {
    p.kind = PhaseKind::Io;
  } else if (op == "net") {
    p.kind = PhaseKind::Net;
  } else if (op == "exit") {
    p.kind = PhaseKind::Exit;
  } else if (op == "loop") {
    p.kind = PhaseKind::Loop;
    int target = -1, count = -1;
    std::istringstream(a) >> target;
    std::istringstream(b) >> count;
    if (target < 0 || count < 1) err = "'" + line + "': loop TARGET_PHASE COUNT, e.g. 'loop 0 10'";
    p.obj = target;
    p.ns = count;
  } else {
    err = "'" + line + "': unknown phase; allowed: run D [jitter], sleep D [jitter], lock M, unlock M, wait E, wake E, "
                       "yield, io, net, loop TARGET COUNT, exit";
  }
  return p;
}

}  // namespace

std::string check_script_phase(const std::string& line) {
  std::string err;
  parse_phase(line, nullptr, nullptr, err);
  return err;
}

// ---- install -------------------------------------------------------------------

WorkloadInfo install_workload(GuestKernel& k, const WorkloadSpec& w, std::uint64_t seed) {
  const int n = k.nr_cpus();
  const std::uint64_t all = n >= 64 ? ~0ULL : (1ULL << n) - 1;
  const WorkloadKind* kind = &workload_kind(w.kind);
  auto count_or_vcpus = [&](const char* key) { return w.geti(key) > 0 ? w.geti(key) : n; };

  if (w.kind == WorkloadKindId::Periodic) {
    bool pinned = w.geti("pinned") != 0;
    for (int i = 0; i < count_or_vcpus("tasks"); ++i) {
      int cpu = i % n;
      Rng rng(seed, "workload/periodic/task" + std::to_string(i));
      Task& t = k.add_task("periodic-" + std::to_string(i),
                           {{PhaseKind::Run, w.getd("work"), -1, w.get("jitter")}, {PhaseKind::Sleep, w.getd("sleep"), -1, w.get("jitter")}},
                           cpu, pinned ? only(cpu) : all);
      k.delay_start(t, rng.uniform(0, w.getd("work") + w.getd("sleep") - 1));
    }
  } else if (w.kind == WorkloadKindId::Pingpong) {
    int ping = k.add_event(), pong = k.add_event();
    int a = w.geti("cpu_a"), b = w.geti("cpu_b");
    double j = w.get("jitter");
    k.add_task("ping", {{PhaseKind::Run, w.getd("work"), -1, j}, {PhaseKind::Wake, 0, pong}, {PhaseKind::Wait, 0, ping}}, a, only(a));
    k.add_task("pong", {{PhaseKind::Wait, 0, pong}, {PhaseKind::Run, w.getd("work"), -1, j}, {PhaseKind::Wake, 0, ping}}, b, only(b));
  } else if (w.kind == WorkloadKindId::NohzFullTest) {
    int never = k.add_event(), cpu = w.geti("cpu");
    k.add_task("nohz-test", {{PhaseKind::Sleep, w.getd("sleep"), -1}, {PhaseKind::Run, w.getd("work"), -1},
                             {PhaseKind::Loop, w.geti("loops"), 0}, {PhaseKind::Wait, 0, never}}, cpu, only(cpu));
  } else if (w.kind == WorkloadKindId::SysbenchThreads) {
    // sb_threads.c: lock_num = req_performed++ % thread_locks, then thread_yields x
    // {pthread_mutex_lock, sched_yield, pthread_mutex_unlock}
    int locks = w.geti("thread_locks");
    int base = k.add_mutex();
    for (int i = 1; i < locks; ++i) k.add_mutex();
    for (int i = 0; i < count_or_vcpus("threads"); ++i)
      k.add_task("sysbench-" + std::to_string(i),
                 {{PhaseKind::PickLock, locks, base},
                  {PhaseKind::Lock, 0, -1},
                  {PhaseKind::Yield, 0, -1},
                  {PhaseKind::Unlock, 0, -1},
                  {PhaseKind::Run, w.getd("iteration_work"), -1},
                  {PhaseKind::Loop, w.geti("thread_yields"), 1}},
                 i % n, all);
  } else if (w.kind == WorkloadKindId::Oltp) {
    int table = k.add_mutex(), log = k.add_mutex();
    int log_req = k.add_event(), commit_done = k.add_event();
    double j = w.get("jitter");
    int queries = w.geti("queries");
    for (int i = 0; i < count_or_vcpus("clients"); ++i) {
      int req = k.add_event(), rep = k.add_event();
      std::vector<Phase> client = {{PhaseKind::Run, w.getd("client_work"), -1, j},
                                   {PhaseKind::Wake, 0, req},
                                   {PhaseKind::Wait, 0, rep},
                                   {PhaseKind::Loop, queries, 0}};
      std::vector<Phase> server;
      if (queries > 1)
        server = {{PhaseKind::Wait, 0, req},
                  {PhaseKind::Run, w.getd("query_work"), -1, j},
                  {PhaseKind::Lock, 0, table},
                  {PhaseKind::Run, w.getd("lock_work"), -1, j},
                  {PhaseKind::Unlock, 0, table},
                  {PhaseKind::Wake, 0, rep},
                  {PhaseKind::Loop, queries - 1, 0}};
      // the commit: write the redo record under the log mutex, hand it to the log
      // writer and wait for its flush
      std::vector<Phase> commit = {{PhaseKind::Wait, 0, req},
                                   {PhaseKind::Run, w.getd("commit_work"), -1, j},
                                   {PhaseKind::Lock, 0, log},
                                   {PhaseKind::Run, w.getd("lock_work"), -1, j},
                                   {PhaseKind::Unlock, 0, log},
                                   {PhaseKind::Wake, 0, log_req},
                                   {PhaseKind::Wait, 0, commit_done},
                                   {PhaseKind::Wake, 0, rep}};
      server.insert(server.end(), commit.begin(), commit.end());
      Task& c = k.add_task("sysbench-" + std::to_string(i), client, i % n, all);
      c.measure_ops = true;
      k.add_task("mysqld-conn" + std::to_string(i), server, (i + 1) % n, all);
    }
    k.add_task("log-writer", {{PhaseKind::Wait, 0, log_req}, {PhaseKind::Run, w.getd("log_work"), -1, j}, {PhaseKind::Io, 0, -1},
                              {PhaseKind::Wake, 0, commit_done}}, 0, all);
    Task& purge = k.add_task("purge", {{PhaseKind::Sleep, w.getd("purge_period"), -1, 0.1}, {PhaseKind::Run, w.getd("purge_work"), -1, j}},
                             n - 1, all);
    Rng rng(seed, "workload/oltp/purge");
    k.delay_start(purge, rng.uniform(0, w.getd("purge_period")));
  } else if (w.kind == WorkloadKindId::Hackbench) {
    // each receiver reads fds x loops messages; each sender writes loops messages to
    // each receiver of its group. A write wakes the reader; a write to a full buffer
    // sleeps until the reader has made room (the buffer's room is a second counter).
    int fds = w.geti("fds"), loops = w.geti("loops");
    sim_ns msg = w.getd("msg_work");
    if (w.geti("threads") == 0) msg += 300;  // process mode: mm switch on each context switch [EST]
    // messages of 100 bytes a buffer holds: a pipe's 16 pages (64 KiB); a socket's
    // sk_sndbuf (212992) over each message's skb truesize (~768 bytes) [EST]. A writer
    // blocked on a full buffer is woken when a pipe page is free again (pipe_read()) or
    // when the socket's unread data falls to a quarter of sndbuf (unix_writable()).
    const bool pipe = w.geti("pipe");
    const int capacity = pipe ? 65536 / 100 : 212992 / 768;
    const int wake_at = pipe ? 4096 / 100 : capacity - capacity / 4;
    for (int g = 0; g < w.geti("groups"); ++g) {
      std::vector<int> data, room;
      for (int r = 0; r < fds; ++r) {
        data.push_back(k.add_event());
        room.push_back(k.add_event());
        k.event(room.back()).count = capacity;
        k.event(room.back()).wake_at = wake_at;
      }
      for (int r = 0; r < fds; ++r)
        k.add_task("hb-recv" + std::to_string(g) + "." + std::to_string(r),
                   {{PhaseKind::Wait, 0, data[static_cast<size_t>(r)]}, {PhaseKind::Run, msg, -1},
                    {PhaseKind::Wake, 0, room[static_cast<size_t>(r)], 0, true}, {PhaseKind::Loop, fds * loops, 0}, {PhaseKind::Exit}},
                   (g * 2 * fds + r) % n, all);
      for (int s = 0; s < fds; ++s) {
        std::vector<Phase> prog;
        for (int r = 0; r < fds; ++r) {
          prog.push_back({PhaseKind::Wait, 0, room[static_cast<size_t>(r)], 0, true});  // write(): room, then
          prog.push_back({PhaseKind::Run, msg, -1});                                   // copy the message,
          prog.push_back({PhaseKind::Wake, 0, data[static_cast<size_t>(r)]});          // wake the reader
        }
        prog.push_back({PhaseKind::Loop, loops, 0});
        prog.push_back({PhaseKind::Exit});
        k.add_task("hb-send" + std::to_string(g) + "." + std::to_string(s), prog, (g * 2 * fds + fds + s) % n, all);
      }
    }
  } else if (w.kind == WorkloadKindId::Script) {
    ScriptNames names;
    for (const auto& st : w.script)
      for (int c = 0; c < st.count; ++c) {
        std::vector<Phase> prog;
        for (const auto& line : st.program) {
          std::string err;
          prog.push_back(parse_phase(line, &k, &names, err));
          if (!err.empty()) throw std::invalid_argument(st.where + ": " + err);
        }
        int cpu = 0;
        while (cpu < n && !((st.cpus >> cpu) & 1)) ++cpu;
        k.add_task(st.count > 1 ? st.name + "-" + std::to_string(c) : st.name, prog, cpu % n, st.cpus & all);
      }
  }
  return {kind->ops_name};
}

std::uint64_t workload_ops(GuestKernel& k, const WorkloadSpec& w) {
  if (w.kind == WorkloadKindId::Idle) return 0;
  if (w.kind == WorkloadKindId::NohzFullTest) {  // iterations done: the Loop phase (index 2) counts down
    const Task& t = *k.tasks().front();
    if (t.ops > 0 || t.pc == 3) return static_cast<std::uint64_t>(w.geti("loops"));
    sim_ns left = t.loop_left.size() > 2 ? t.loop_left[2] : 0;
    return left ? static_cast<std::uint64_t>(w.geti("loops") - left) : 0;
  }
  if (w.kind == WorkloadKindId::Pingpong) return k.tasks().front()->ops;
  std::uint64_t ops = 0;
  for (const auto& t : k.tasks()) {
    if (w.kind == WorkloadKindId::Oltp && !t->measure_ops) continue;           // transactions: the clients'
    if (w.kind == WorkloadKindId::Hackbench) {                                  // messages: reads done
      if (t->comm.rfind("hb-recv", 0) != 0) continue;
      sim_ns total = w.geti("fds") * w.geti("loops");
      sim_ns left = t->loop_left.size() > 3 ? t->loop_left[3] : 0;  // the receiver's Loop phase
      if (t->state == TaskState::Exited) ops += static_cast<std::uint64_t>(total);
      else if (left > 0) ops += static_cast<std::uint64_t>(total - left);
      continue;
    }
    ops += t->ops;
  }
  return ops;
}

}  // namespace vtick
