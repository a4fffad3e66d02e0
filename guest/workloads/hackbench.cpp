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
                   {{PhaseKind::Wait, 0, data[static_cast<size_t>(r)]}, {PhaseKind::Run, msg, -1},
                    {PhaseKind::Wake, 0, room[static_cast<size_t>(r)], 0, true}, {PhaseKind::Loop, fds * loops, 0}, {PhaseKind::Exit}},
                   (g * 2 * fds + r) % n, all_cpus(n));
        if (processes) reader.mm = reader.pid;  // fork() without CLONE_VM
        receivers_.push_back(&reader);
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
        Task& sender = add_task(k, "hb-send" + std::to_string(g) + "." + std::to_string(s), prog, (g * 2 * fds + fds + s) % n, all_cpus(n));
        if (processes) sender.mm = sender.pid;
      }
    }
  }
  std::uint64_t ops(const GuestKernel&) const override {  // messages: the reads done
    std::uint64_t ops = 0;
    for (const Task* r : receivers_) {
      sim_ns left = r->loop_left.size() > 3 ? r->loop_left[3] : 0;  // the receiver's Loop phase
      if (r->state == TaskState::Exited) ops += static_cast<std::uint64_t>(per_receiver_);
      else if (left > 0) ops += static_cast<std::uint64_t>(per_receiver_ - left);
    }
    return ops;
  }

 private:
  std::vector<const Task*> receivers_;
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
        {"pipe", 'i', 0, 0, 1, "0: AF_UNIX socketpairs (hackbench's default), 1: pipes (-p)"}},
          factory<Hackbench>()};
}

}  // namespace vtick
