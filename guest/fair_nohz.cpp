// kernel/sched/fair.c: nohz idle balancing (nohz_balance_enter_idle(), nohz_balancer_kick(),
// kick_ilb(), nohz_csd_func(), _nohz_idle_balance()).
#include <algorithm>

#include "core/trace.hpp"
#include "guest/kernel.hpp"

namespace vtick {

namespace {
constexpr sim_ns LOAD_AVG_PERIOD_MS = 32;  // kernel/sched/sched-pelt.h
}

// nohz_balance_enter_idle(): from tick_nohz_idle_stop_tick() when the tick becomes
// stopped. The CPU joins nohz.idle_cpus_mask (nohz_full CPUs, not housekeeping, never do)
// and has blocked load to decay.
void GuestKernel::nohz_balance_enter_idle(GuestCpu& c) {
  if (!p_.sched.load_balance || !c.online() || tick_nohz_full_cpu(c.id())) return;
  c.has_blocked_load = true;
  if (!c.nohz_tick_stopped) {
    if (c.sd.empty()) return;  // on_null_domain()
    c.nohz_tick_stopped = true;
    ++nohz.nr_cpus;
    --nr_busy_cpus;  // set_cpu_sd_state_idle()
    nohz.needs_update = true;
    ++sched_stats.nohz_idle_enter;
  }
  nohz.has_blocked = true;
}

// nohz_balance_exit_idle(): at the first busy tick (and when the CPU goes down).
void GuestKernel::nohz_balance_exit_idle(GuestCpu& c) {
  if (!c.nohz_tick_stopped) return;
  c.nohz_tick_stopped = false;
  --nohz.nr_cpus;
  ++nr_busy_cpus;  // set_cpu_sd_state_busy()
  ++sched_stats.nohz_idle_exit;
}

// find_new_ilb(): the first idle CPU of nohz.idle_cpus_mask other than this one.
int GuestKernel::find_new_ilb(const GuestCpu& self) const {
  for (const auto& c : cpus_)
    if (c->nohz_tick_stopped && c.get() != &self && c->idle_cpu()) return c->id();
  return -1;
}

// kick_ilb(): a CALL_FUNCTION_SINGLE IPI (nohz_csd) to the idle load balancer, unless it
// already has kick work pending.
void GuestKernel::kick_ilb(GuestCpu& self, unsigned flags) {
  sim_ns now = self.now();
  if (flags & NOHZ_BALANCE_KICK) nohz.next_balance = (static_cast<sim_ns>(jiffies_at(now)) + 1) * tick_nsec_;
  int ilb = find_new_ilb(self);
  if (ilb < 0) {
    ++sched_stats.ilb_no_cpu;
    return;
  }
  GuestCpu& t = *cpus_[static_cast<size_t>(ilb)];
  unsigned old = t.nohz_flags;
  t.hw().revoke_local();
  t.nohz_flags |= flags;
  if (old & NOHZ_KICK_MASK) return;
  ++sched_stats.nohz_kicks;
  if (flags & NOHZ_BALANCE_KICK) ++sched_stats.ilb_kicks_balance;
  else if (flags & NOHZ_STATS_KICK) ++sched_stats.ilb_kicks_stats;
  else ++sched_stats.ilb_kicks_next;
  if (tracing()) trace::nohz_kick(now, self.id(), ilb, flags);
  self.send_call_function_single_ipi(t, "generic_exec_single");  // smp_call_function_single_async()
}

// nohz_balancer_kick(): from every busy tick. The CPU leaves the nohz mask; then, if some
// CPUs sit in it: NOHZ_STATS_KICK once per LOAD_AVG_PERIOD while they have blocked load,
// NOHZ_BALANCE_KICK once nohz.next_balance is due and this CPU has >= 2 tasks (or more
// than one CPU of the LLC is busy), NOHZ_NEXT_KICK when a CPU entered the mask meanwhile.
void GuestKernel::nohz_balancer_kick(GuestCpu& c) {
  if (c.idle_balance) return;  // idle CPUs do not kick
  nohz_balance_exit_idle(c);
  if (!p_.sched.nohz_balance || nohz.nr_cpus == 0) return;
  sim_ns now = c.now();
  std::uint64_t j = jiffies_at(now);
  unsigned flags = 0;
  if (nohz.has_blocked && j > jiffies_at(nohz.next_blocked)) flags = NOHZ_STATS_KICK;
  if (j >= jiffies_at(nohz.next_balance)) {
    if (c.nr_running() >= 2 || nr_busy_cpus > 1) flags = NOHZ_STATS_KICK | NOHZ_BALANCE_KICK;
  }
  if (nohz.needs_update) flags |= NOHZ_NEXT_KICK;
  if (flags) kick_ilb(c, flags);
}

// nohz_csd_func(): the kick's call on the idle CPU; SCHED_SOFTIRQ runs the balance on the
// way out of the interrupt.
void GuestKernel::nohz_csd_func(GuestCpu& ilb) {
  unsigned flags = ilb.nohz_flags & NOHZ_KICK_MASK;
  ilb.nohz_flags = 0;
  ilb.idle_balance = ilb.idle_cpu();
  if (!ilb.idle_balance || !flags) return;
  ilb.nohz_flags_pending = flags;  // rq->nohz_idle_balance
  sched_balance_softirq(ilb);
}

// update_nohz_stats(): decay an idle CPU's blocked load; true while some is left.
bool GuestKernel::update_nohz_stats(GuestCpu& c, sim_ns now) {
  if (!c.has_blocked_load || !c.nohz_tick_stopped) return false;
  c.has_blocked_load = blocked_load(c.id(), now) >= 1.0;  // cfs_rq_has_blocked(): load_avg != 0
  return c.has_blocked_load;
}

// _nohz_idle_balance(): for every CPU in the mask that is still idle, update its blocked
// load (STATS) and run its due balance (BALANCE, as CPU_IDLE), then set nohz.next_balance
// to the earliest of theirs.
void GuestKernel::_nohz_idle_balance(GuestCpu& ilb, unsigned flags) {
  sim_ns now = ilb.now();
  if (flags & NOHZ_STATS_KICK) nohz.has_blocked = false;
  if (flags & NOHZ_NEXT_KICK) nohz.needs_update = false;
  sim_ns next_balance = now + 60 * NSEC_PER_SEC;
  bool update_next_balance = false, has_blocked_load = false;
  const int n = nr_cpus();
  for (int i = 1; i <= n; ++i) {
    GuestCpu& c = *cpus_[static_cast<size_t>((ilb.id() + i) % n)];
    if (!c.nohz_tick_stopped || !c.idle_cpu()) continue;
    if (!ilb.idle_cpu() && ilb.need_resched) {  // this CPU got work: the next owner goes on
      has_blocked_load |= (flags & NOHZ_STATS_KICK) != 0;
      if (flags & NOHZ_NEXT_KICK) nohz.needs_update = true;
      if (has_blocked_load) nohz.has_blocked = true;
      return;
    }
    if (flags & NOHZ_STATS_KICK) {
      ilb.kernel_work(p_.costs.load_balance_ns / 4);  // sched_balance_update_blocked_averages() [EST]
      has_blocked_load |= update_nohz_stats(c, ilb.now());
    }
    if ((flags & NOHZ_BALANCE_KICK) && ilb.now() >= c.next_balance) {
      sched_balance_domains(ilb, c, CpuIdleType::Idle);
      if (!c.idle_cpu() && &c != &ilb) resched_curr(c, ilb);
    }
    if (next_balance > c.next_balance) {
      next_balance = c.next_balance;
      update_next_balance = true;
    }
  }
  if (update_next_balance) nohz.next_balance = next_balance;
  if (flags & NOHZ_STATS_KICK) nohz.next_blocked = ilb.now() + msecs_to_jiffies_ns(LOAD_AVG_PERIOD_MS * NSEC_PER_MSEC);
  if (has_blocked_load) nohz.has_blocked = true;
}

}  // namespace vtick
