// kernel/sched/core.c: try_to_wake_up(), resched_curr(); guest kernel assembly.
#include "guest/kernel.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/warn.hpp"

namespace vtick {

GuestKernel::GuestKernel(GuestParams p, int nr_cpus, std::uint64_t seed) : p_(std::move(p)), seed_(seed) {
  policy_ = &tick_policy(p_.tick_policy);
  tick_nsec_ = p_.tick_nsec();
  tick_next_period = tick_nsec_;
  for (int i = 0; i < nr_cpus; ++i) cpus_.push_back(std::make_unique<GuestCpu>(*this, i));
  // sched_init() / build_sched_domains(): avg_idle starts at twice the migration cost
  auto domains = build_sched_domains(nr_cpus, p_.sched.topology, p_.sched.balance_interval, p_.sched.busy_factor);
  for (int i = 0; i < nr_cpus; ++i) {
    GuestCpu& c = *cpus_[static_cast<size_t>(i)];
    c.sd = std::move(domains[static_cast<size_t>(i)]);
    c.avg_idle = 2 * p_.sched.migration_cost;
    c.max_idle_balance_cost = p_.sched.migration_cost;
  }
  nr_busy_cpus = nr_cpus;  // sd_llc_shared->nr_busy_cpus starts at the LLC's weight
  packing_ = std::make_unique<Packing>(nr_cpus);
}

// The packing observer after a run-queue change (guest/packing.hpp).
void GuestKernel::packing_update(sim_ns now, LbCause why) {
  Packing::Queues& q = pack_queues_;
  q.busy.clear();
  q.idle_cpus = 0;
  q.first_idle = -1;
  q.colocated = false;
  auto mine = [](const Task* t) { return t && t->user ? 1 : 0; };  // the workload's; background tasks have none
  for (std::size_t i = 0; i < cpus_.size(); ++i) {
    const GuestCpu& c = *cpus_[i];
    if (!c.online()) continue;
    if (c.nr_running() >= 2) q.busy.push_back(static_cast<int>(i));
    if (c.idle_cpu() && q.idle_cpus++ == 0) q.first_idle = static_cast<int>(i);
    if (q.colocated) continue;  // one CPU with two of the workload's tasks is enough
    int own = mine(c.curr ? c.curr : c.switching_to);
    for (const Task* t : c.rq) own += mine(t);
    q.colocated = own >= 2;
  }
  packing_->update(now, why, q);
}

Task& GuestKernel::add_task(std::string comm, std::vector<Phase> program, int cpu, std::uint64_t allowed) {
  auto t = std::make_unique<Task>();
  t->pid = static_cast<int>(tasks_.size()) + 1;
  t->comm = std::move(comm);
  t->program = std::move(program);
  for (const Phase& ph : t->program)
    if ((ph.kind == PhaseKind::Lock || ph.kind == PhaseKind::Unlock) && ph.obj >= 0 &&
        static_cast<std::size_t>(ph.obj) < mutexes_.size())
      mutexes_[static_cast<std::size_t>(ph.obj)].named = true;
  t->cpu = cpu;
  t->allowed = allowed;
  t->rng = Rng(seed_, "task/" + std::to_string(t->pid) + "/" + t->comm);
  Task* raw = t.get();
  t->sleep_timer.name = "hrtimer_wakeup";
  t->sleep_timer.function = [this, raw](sim_ns) {
    GuestCpu& c = this->cpu(raw->sleep_timer.base_cpu);  // the CPU it fires on (moved there if its own went offline)
    c.hw().run(p_.costs.hrtimer_wakeup_ns);
    try_to_wake_up(*raw, c);
    return HrtimerRestart::NoRestart;
  };
  raw->last_cpu = -1;
  enqueue_task(this->cpu(cpu), *raw, false);
  tasks_.push_back(std::move(t));
  return *raw;
}

sim_ns GuestKernel::sched_slice() const {
  int n = std::min(nr_cpus(), 8), log2 = 0;
  while ((1 << (log2 + 1)) <= n) ++log2;
  return 750 * NSEC_PER_USEC * (1 + log2);
}

int GuestKernel::first_online_cpu() const {
  for (const auto& c : cpus_)
    if (c->online() && !c->offline_pending) return c->id();
  return 0;
}

int GuestKernel::select_fallback_rq(Task& p) {
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& c : cpus_)
      if (c->online() && !c->offline_pending && allowed_on(p, c->id())) return c->id();
    // "process %d (%s) no longer affine to cpu%d": do_set_cpus_allowed(p, task_cpu_possible_mask(p))
    ++sched_stats.affinity_broken;
    p.allowed = ~0ULL;
  }
  return first_online_cpu();
}

void GuestKernel::cpu_down(int c) {
  GuestCpu& cc = cpu(c);
  if (!cc.online()) return;
  cc.hw().revoke_local();
  cc.offline_pending = true;
  cc.need_resched = true;
}

std::uint64_t GuestKernel::add_request(std::function<void(GuestCpu&)> complete) {
  requests_.emplace(next_request_, std::move(complete));
  return next_request_++;
}

void GuestKernel::complete_request(std::uint64_t id, GuestCpu& c) {
  auto it = requests_.find(id);
  if (VTICK_WARN(it == requests_.end(), "CPU ", c.id(), ": completion of request ", id, ", not in flight")) return;
  auto done = std::move(it->second);
  requests_.erase(it);
  done(c);
}

void GuestKernel::delay_start(Task& t, sim_ns delay) {
  if (delay <= 0) return;
  GuestCpu& c = cpu(t.cpu);
  for (auto it = c.rq.begin(); it != c.rq.end(); ++it)
    if (*it == &t) { c.rq.erase(it); break; }
  t.state = TaskState::Sleeping;
  c.boot_sleepers.emplace_back(&t, delay);
}

}  // namespace vtick
