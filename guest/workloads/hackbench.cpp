// hackbench: groups of senders and receivers over AF_UNIX socketpairs (or pipes); each
// sender writes loops messages to each receiver of its group; the run ends when all are done.
#include "guest/workloads/kinds.hpp"

namespace vtick {

namespace {
class Hackbench final : public Workload {
 public:
  void install(GuestKernel& k, const WorkloadSpec& w, std::uint64_t) override {
    const int n = k.nr_cpus();
    // each receiver reads fds x loops messages; each sender writes loops messages to
    // each receiver of its group. A write wakes the reader; a write to a full buffer
    // sleeps until the reader has made room (the buffer's room is a second counter).
    int fds = w.geti("fds"), loops = w.geti("loops");
    per_receiver_ = static_cast<sim_ns>(fds) * loops;
    sim_ns msg = w.getd("msg_work");
    // process mode: each task its own process, so a switch between two of them switches
    // the mm (guest.costs.switch_mm_ns); thread mode: one process
    const bool processes = w.geti("threads") == 0;
    // messages of 100 bytes a buffer holds: a pipe's 16 pages (64 KiB); a socket's
    // sk_sndbuf (212992) over each message's skb truesize (~768 bytes) [EST]. A writer
    // blocked on a full buffer is woken when a pipe page is free again (pipe_read()) or
    // when the socket's unread data falls to a quarter of sndbuf (unix_writable()).
    const bool pipe = w.geti("pipe");
    const int capacity = pipe ? 65536 / 100 : 212992 / 768;
    const int wake_at = pipe ? 4096 / 100 : capacity - capacity / 4;
    // hackbench's start (main(), group(), ready()): the parent forks every task; each
    // writes a byte to the ready pipe and poll()s the wake pipe; the parent reads the
    // bytes, starts its clock and writes one byte to the wake pipe (every poller woken),
    // then wait()s for each task's exit. start = 0: every task runnable at boot.
    const bool start = w.geti("start") != 0;
    const int ready = k.add_event(), go = k.add_event(), exited = k.add_event();
    const std::size_t head = start ? 3 : 0;  // the phases before a task's own loop
    auto prologue = [&](std::vector<Phase> body) {
      if (!start) return body;
      std::vector<Phase> prog = {{PhaseKind::Run, w.getd(processes ? "child_start_work" : "thread_start_work"), -1},
                                 {PhaseKind::Wake, 0, ready}, {PhaseKind::Wait, 0, go}};
      for (Phase& ph : body) {
        if (ph.kind == PhaseKind::Loop) ph.obj += static_cast<int>(head);
        if (ph.kind == PhaseKind::Exit) ph = {PhaseKind::Exit, w.getd(processes ? "exit_work" : "thread_exit_work"), exited};
        prog.push_back(ph);
      }
      return prog;
    };
    std::vector<int> children;
    for (int g = 0; g < w.geti("groups"); ++g) {
      std::vector<int> data, room;
      for (int r = 0; r < fds; ++r) {
        data.push_back(k.add_event());
        room.push_back(k.add_event());
        k.event(room.back()).count = capacity;
        k.event(room.back()).wake_at = wake_at;
      }
      for (int r = 0; r < fds; ++r) {
        Task& reader = add_task(k, "hb-recv" + std::to_string(g) + "." + std::to_string(r),
                   prologue({{PhaseKind::Wait, 0, data[static_cast<size_t>(r)]}, {PhaseKind::Run, msg, -1},
                    {PhaseKind::Wake, 0, room[static_cast<size_t>(r)], 0, true}, {PhaseKind::Loop, fds * loops, 0}, {PhaseKind::Exit}}),
                   start ? 0 : (g * 2 * fds + r) % n, all_cpus(n), !start);
        if (processes) reader.mm = reader.pid;  // fork() without CLONE_VM
        receivers_.push_back(&reader);
        children.push_back(reader.pid);
      }
      for (int s = 0; s < fds; ++s) {
        std::vector<Phase> prog;
        for (int r = 0; r < fds; ++r) {
          prog.push_back({PhaseKind::Wait, 0, room[static_cast<size_t>(r)], 0, true});  // write(): room, then
          prog.push_back({PhaseKind::Run, msg, -1});                                   // copy the message,
          prog.push_back({PhaseKind::Wake, 0, data[static_cast<size_t>(r)]});          // wake the reader
        }
        prog.push_back({PhaseKind::Loop, loops, 0});
        prog.push_back({PhaseKind::Exit});
        Task& sender = add_task(k, "hb-send" + std::to_string(g) + "." + std::to_string(s), prologue(prog),
                                start ? 0 : (g * 2 * fds + fds + s) % n, all_cpus(n), !start);
        if (processes) sender.mm = sender.pid;
        children.push_back(sender.pid);
      }
    }
    receiver_loop_ = head + 3;
    if (!start) return;
    // the parent, on CPU 0 as the shell started it
    const int nr = static_cast<int>(children.size());
    std::vector<Phase> prog;
    for (int pid : children) prog.push_back({PhaseKind::Fork, w.getd(processes ? "fork_work" : "thread_fork_work"), pid});
    const int reads = static_cast<int>(prog.size());
    prog.push_back({PhaseKind::Wait, 0, ready});  // read(readyfds[0], 1) for each task
    prog.push_back({PhaseKind::Loop, nr, reads});
    prog.push_back({PhaseKind::Mark});  // gettimeofday(&start)
    Phase kick{PhaseKind::Wake, 0, go};
    kick.all = true;
    prog.push_back(kick);
    const int reaps = static_cast<int>(prog.size());
    prog.push_back({PhaseKind::Wait, 0, exited});  // wait() for each task
    prog.push_back({PhaseKind::Loop, nr, reaps});
    prog.push_back({PhaseKind::Exit});
    parent_ = &add_task(k, "hackbench", prog, 0, all_cpus(n));
  }
  // hackbench's Time: from the kick to the last task reaped (the parent's exit)
  void report(const GuestKernel& k, sim_ns now, const Report& out) const override {
    Workload::report(k, now, out);
    if (parent_ && parent_->state == TaskState::Exited)
      out("workload.timed_ns", static_cast<double>(parent_->exited_at - parent_->op_start), false);
  }
  std::uint64_t ops(const GuestKernel&) const override {  // messages: the reads done
    std::uint64_t ops = 0;
    for (const Task* r : receivers_) {
      sim_ns left = r->loop_left.size() > receiver_loop_ ? r->loop_left[receiver_loop_] : 0;  // the receiver's Loop phase
      if (r->state == TaskState::Exited) ops += static_cast<std::uint64_t>(per_receiver_);
      else if (left > 0) ops += static_cast<std::uint64_t>(per_receiver_ - left);
    }
    return ops;
  }

 private:
  std::vector<const Task*> receivers_;
  const Task* parent_ = nullptr;
  std::size_t receiver_loop_ = 3;  // the receiver's Loop phase
  sim_ns per_receiver_ = 0;  // fds x loops messages each
};
}  // namespace

WorkloadKind hackbench_kind() {
  return {WorkloadKindId::Hackbench, "hackbench: groups of senders and receivers over socketpairs (or pipes); each sender writes loops "
                    "messages to each receiver of its group, blocking while the receiver's buffer is full; the run ends "
                    "when all are done",
       "messages",
       {{"groups", 'i', 2, 1, 100, "-g: groups"},
        {"fds", 'i', 4, 1, 100, "-f: senders and receivers per group (hackbench's default is 20)"},
        {"loops", 'i', 100, 1, 1e6, "-l: messages per sender and receiver pair"},
        {"msg_work", 'd', 2 * US, 0, 1 * MS, "write or read of one 100-byte message in the kernel [EST]; the part beyond the syscall's entry and exit (the Wake or Wait phase's syscall_ns): vtick-probe's exit_cost pipe_msg_ns (a pipe write and read) / 2 less syscall_ns, 190-330 ns on a 2026 AMD EPYC (Milan) KVM guest"},
        {"threads", 'i', 0, 0, 1, "0: process mode, 1: thread mode (-T)"},
        {"pipe", 'i', 0, 0, 1, "0: AF_UNIX socketpairs (hackbench's default), 1: pipes (-p)"},
        {"start", 'i', 1, 0, 1, "1: hackbench's start: a parent forks every task, each says it is ready and poll()s until the parent kicks them all at once, and the parent wait()s for each exit; 0: every task runnable at boot, none forked"},
        {"fork_work", 'd', 455 * US, 0, 100 * MS, "the parent's time on CPU for one fork() (copy_process() of hackbench's process, wake_up_new_task()): 449-463 us a fork in process mode on a 2026 AMD EPYC (Milan) nested KVM guest (docs/real-guest/trace-2026-12-06c/hackbench-start.txt)"},
        {"child_start_work", 'd', 535 * US, 0, 100 * MS, "a new task's first run, from ret_from_fork() to its poll() (its copy-on-write faults on the parent's pages): 534-540 us p50 in process mode on the same guest (hackbench-start.txt)"},
        {"exit_work", 'd', 450 * US, 0, 100 * MS, "do_exit() of a task (exit_mm(), its files) to its last switch: 422-494 us p50 in process mode on the same guest (hackbench-start.txt)"},
        {"thread_fork_work", 'd', 18 * US, 0, 100 * MS, "fork_work in thread mode (-T: pthread_create(), a clone() sharing the mm): 15-22 us a thread on the same guest (hackbench-start.txt)"},
        {"thread_start_work", 'd', 38 * US, 0, 100 * MS, "child_start_work in thread mode: a new thread's first run to its poll(), 31-44 us p50 on the same guest (hackbench-start.txt)"},
        {"thread_exit_work", 'd', 20 * US, 0, 100 * MS, "exit_work in thread mode: a thread's do_exit() (no exit_mm()) to its last switch, 19-22 us p50 on the same guest (hackbench-start.txt)"}},
          factory<Hackbench>()};
}

}  // namespace vtick
