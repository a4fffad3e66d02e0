// Not kernel code: the lookahead of guest/local_stretch.hpp.
#include "guest/local_stretch.hpp"

#include "core/trace.hpp"
#include "guest/kernel.hpp"

namespace vtick {

namespace {

// The CPU's scheduler has nothing to do but let `t` go on: sched_yield() picks it again
// (pick_next_task_fair() on a queue of one), no wake-up, kick or stopper is pending.
bool cpu_alone(GuestCpu& c, const Task& t) {
  GuestKernel& k = c.kernel();
  return !tracing() && c.curr == &t && c.rq.empty() && c.wake_list.empty() && !c.active_balance && c.nohz_flags == 0 &&
         c.nohz_flags_pending == 0 && !c.offline_pending && c.online() && !k.tick_nohz_full_cpu(c.id()) && !c.need_resched;
}

bool lock_private(GuestCpu& c, const Task& t, const Phase& ph) {
  if (ph.obj >= 0 || t.cur_lock < 0) return false;
  const Mutex& m = c.kernel().mutex(t.cur_lock);
  return !m.named && m.pickers == 1 && m.waiters.empty() && (m.owner == nullptr || m.owner == &t);
}

// The least time a phase takes (nominal work: SMT siblings only slow it).
sim_ns min_phase_ns(GuestCpu& c, const Phase& ph) {
  const GuestCosts& costs = c.kernel().params().costs;
  switch (ph.kind) {
    case PhaseKind::Yield:  // syscall, then schedule() keeps it; a drawn cost (guest.costs.sigma) has no floor
      return costs.sigma > 0 ? 0 : costs.syscall_ns + costs.schedule_noswitch_ns;
    case PhaseKind::Run: return ph.jitter > 0 ? static_cast<sim_ns>(static_cast<double>(ph.ns) * (1.0 - ph.jitter)) : ph.ns;
    default: return 0;
  }
}

// The phase's own part of phase_is_local(), the CPU's state aside.
bool kind_local(GuestCpu& c, const Task& t, const Phase& ph) {
  switch (ph.kind) {
    case PhaseKind::Run:
    case PhaseKind::Yield:
    case PhaseKind::Mark:
    case PhaseKind::Loop: return true;
    case PhaseKind::Lock:
    case PhaseKind::Unlock: return lock_private(c, t, ph);
    default: return false;
  }
}

}  // namespace

bool phase_is_local(GuestCpu& c, const Task& t, const Phase& ph) { return cpu_alone(c, t) && kind_local(c, t, ph); }

sim_ns local_horizon(GuestCpu& c, const Task& t) {
  if (!cpu_alone(c, t)) return 0;
  const auto& prog = t.program;
  std::size_t j = t.pc;
  for (; j < prog.size() && prog[j].kind != PhaseKind::Loop; ++j)
    if (!kind_local(c, t, prog[j])) return 0;
  if (j == prog.size()) return 0;
  auto body = static_cast<std::size_t>(prog[j].obj);
  if (body > t.pc) return 0;
  sim_ns per_pass = 0;
  for (std::size_t i = body; i < j; ++i) {
    if (!kind_local(c, t, prog[i])) return 0;
    per_pass += min_phase_ns(c, prog[i]);
  }
  // Task::loop_left: passes left, counting this one (0: the loop has not started).
  sim_ns left = j < t.loop_left.size() && t.loop_left[j] > 0 ? t.loop_left[j] : prog[j].ns;
  sim_ns after = left - 1;  // whole passes after this one, all local
  if (after <= 0 || per_pass <= 0) return 0;
  return c.now() + after * per_pass;
}

}  // namespace vtick
