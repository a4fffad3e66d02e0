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
  update_max_interval();
  nr_busy_cpus = nr_cpus;  // sd_llc_shared->nr_busy_cpus starts at the LLC's weight
  packing_ = std::make_unique<Packing>(nr_cpus);
  pack_.resize(static_cast<std::size_t>(nr_cpus));
  for (int i = 0; i < nr_cpus; ++i) pack_dirty_.push_back(i);
}

void GuestCpu::rq_changed() { k_.pack_touch(id_); }

namespace {
// A CPU's share of the packing reading (guest/packing.hpp): >= 2 runnable, idle, >= 2 of
// the workload's tasks (background tasks have no user space). Offline: none of them.
struct PackRead {
  bool busy = false, idle = false, own2 = false;
};
PackRead pack_read(const GuestCpu& c) {
  PackRead r;
  if (!c.online()) return r;
  r.busy = c.nr_running() >= 2;
  r.idle = c.idle_cpu();
  auto mine = [](const Task* t) { return t && t->user ? 1 : 0; };
  int own = mine(c.curr ? c.curr : c.switching_to);
  for (const Task* t : c.rq) own += mine(t);
  r.own2 = own >= 2;
  return r;
}
}  // namespace

void GuestKernel::pack_refresh() const {
  Packing::Queues& q = pack_queues_;
  for (int cpu : pack_dirty_) {
    PackCpu& pc = pack_[static_cast<std::size_t>(cpu)];
    PackRead r = pack_read(*cpus_[static_cast<std::size_t>(cpu)]);
    pc.dirty = false;
    if (r.busy != pc.busy) {
      auto at = std::lower_bound(q.busy.begin(), q.busy.end(), cpu);
      if (r.busy) q.busy.insert(at, cpu);
      else q.busy.erase(at);
    }
    q.idle_cpus += static_cast<int>(r.idle) - static_cast<int>(pc.idle);
    pack_own2_ += static_cast<int>(r.own2) - static_cast<int>(pc.own2);
    pc.busy = r.busy;
    pc.idle = r.idle;
    pc.own2 = r.own2;
  }
  pack_dirty_.clear();
  q.colocated = pack_own2_ > 0;
}

Packing::Queues GuestKernel::pack_scan() const {
  Packing::Queues q;
  int own2 = 0;
  for (std::size_t i = 0; i < cpus_.size(); ++i) {
    PackRead r = pack_read(*cpus_[i]);
    if (r.busy) q.busy.push_back(static_cast<int>(i));
    q.idle_cpus += r.idle;
    own2 += r.own2;
  }
  q.colocated = own2 > 0;
  return q;
}

// The packing observer after a run-queue change (guest/packing.hpp), from the CPUs read
// again since the last one (pack_touch()): the same reading as one of every CPU, which a
// check compares now and then (a run-queue change without pack_touch() is a model bug).
void GuestKernel::packing_update(sim_ns now, LbCause why) {
  pack_refresh();
  Packing::Queues& q = pack_queues_;
  q.first_idle = -1;
  if (!packing_->on() && q.idle_cpus > 0 && !q.busy.empty()) {  // a phase starts: its idle CPU for the trace
    for (std::size_t i = 0; i < cpus_.size() && q.first_idle < 0; ++i)
      if (pack_[i].idle) q.first_idle = static_cast<int>(i);
  }
  if (++pack_calls_ % kPackCheckEvery == 0) {
    Packing::Queues full = pack_scan();
    VTICK_WARN(full.busy != q.busy || full.idle_cpus != q.idle_cpus || full.colocated != q.colocated,
               "the packing reading kept from pack_touch() differs from one of every CPU (a run-queue change "
               "without GuestCpu::rq_changed())");
  }
  packing_->update(now, why, q);
}

Task& GuestKernel::add_task(std::string comm, std::vector<Phase> program, int cpu, std::uint64_t allowed, bool start) {
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
  if (start) enqueue_task(this->cpu(cpu), *raw, false, true);
  else raw->state = TaskState::New;  // sched_fork(): p->__state = TASK_NEW
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
  c.rq_changed();
  t.state = TaskState::Sleeping;
  c.boot_sleepers.emplace_back(&t, delay);
}

}  // namespace vtick
