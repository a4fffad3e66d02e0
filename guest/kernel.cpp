// kernel/sched/core.c: try_to_wake_up(), resched_curr(); guest kernel assembly.
#include "guest/kernel.hpp"

#include <algorithm>
#include <stdexcept>

namespace vtick {

GuestKernel::GuestKernel(GuestParams p, int nr_cpus, std::uint64_t seed) : p_(std::move(p)), seed_(seed) {
  policy_ = find_tick_policy(p_.tick_policy);
  if (!policy_) throw std::invalid_argument("unknown tick policy " + p_.tick_policy);
  tick_nsec_ = p_.tick_nsec();
  tick_next_period = tick_nsec_;
  for (int i = 0; i < nr_cpus; ++i) cpus_.push_back(std::make_unique<GuestCpu>(*this, i));
}

Task& GuestKernel::add_task(std::string comm, std::vector<Phase> program, int cpu, std::uint64_t allowed) {
  auto t = std::make_unique<Task>();
  t->pid = static_cast<int>(tasks_.size()) + 1;
  t->comm = std::move(comm);
  t->program = std::move(program);
  t->cpu = cpu;
  t->allowed = allowed;
  t->rng = Rng(seed_, "task/" + std::to_string(t->pid) + "/" + t->comm);
  Task* raw = t.get();
  t->sleep_timer.name = "hrtimer_wakeup";
  t->sleep_timer.function = [this, raw](sim_ns) {
    GuestCpu& c = this->cpu(raw->cpu);
    c.hw().run(p_.costs.hrtimer_wakeup_ns);
    try_to_wake_up(*raw, c);
    return HrtimerRestart::NoRestart;
  };
  this->cpu(cpu).rq.push_back(raw);
  tasks_.push_back(std::move(t));
  return *raw;
}

sim_ns GuestKernel::sched_slice() const {
  int n = std::min(nr_cpus(), 8), log2 = 0;
  while ((1 << (log2 + 1)) <= n) ++log2;
  return 750 * NSEC_PER_USEC * (1 + log2);
}

void GuestKernel::delay_start(Task& t, sim_ns delay) {
  if (delay <= 0) return;
  GuestCpu& c = cpu(t.cpu);
  for (auto it = c.rq.begin(); it != c.rq.end(); ++it)
    if (*it == &t) { c.rq.erase(it); break; }
  t.state = TaskState::Sleeping;
  c.boot_sleepers.emplace_back(&t, delay);
}

// try_to_wake_up(): the wakee goes back to the CPU it last ran on (tasks are pinned
// here); an idle target is told to reschedule.
void GuestKernel::try_to_wake_up(Task& p, GuestCpu& waker) {
  waker.kernel_work(p_.costs.ttwu_ns);
  GuestCpu& target = cpu(p.cpu);
  p.state = TaskState::Runnable;
  p.woken_at = waker.now();
  ++p.wakeups;
  target.rq.push_back(&p);
  if (&target == &waker) ++sched_stats.wakeups_local;
  else ++sched_stats.wakeups_remote;
  if (!target.curr) resched_curr(target, waker);  // wakeup_preempt_idle()
}

// resched_curr(): set TIF_NEED_RESCHED; a remote CPU needs an IPI unless its idle
// task is polling (set_nr_and_not_polling()).
void GuestKernel::resched_curr(GuestCpu& target, GuestCpu& self) {
  if (target.need_resched) return;
  target.need_resched = true;
  if (&target == &self) return;
  if (target.polling) {
    ++sched_stats.wake_idle_without_ipi;
    return;
  }
  ++sched_stats.resched_ipis;
  self.hw().send_ipi(target.id(), IrqVector::Reschedule);
}

}  // namespace vtick
