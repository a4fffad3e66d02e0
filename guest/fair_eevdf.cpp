// kernel/sched/fair.c as of v6.6 (EEVDF, 147f3efaa241 and 5e963f2bd465; RUN_TO_PARITY 63304558ba5d):
// avg_vruntime(), entity_eligible(), update_entity_lag(), place_entity(), update_deadline(),
// pick_eevdf(). guest.sched.fair = "eevdf" selects it; v6.12's DELAY_DEQUEUE is guest/fair_delay_dequeue.cpp,
// yield_task_fair() (with v6.17's forfeit, 79104becf42b) GuestCpu::sched_yield() in guest/syscalls.cpp.
#include <algorithm>

#include "core/warn.hpp"
#include "guest/kernel.hpp"

namespace vtick {

// The queued entities and curr: the kernel's cfs_rq->avg_vruntime sums over the tree and
// adds curr apart while it is on the queue, which a blocking task still is when its lag
// is taken (dequeue_entity()); a task __schedule() put back is in rq, curr then null.
template <class F>
void GuestCpu::for_each_entity(F&& f) const {
  for (Task* t : rq) f(*t);
  for (Task* t : delayed) f(*t);
  if (curr) f(*curr);
}

// cfs_rq->avg_vruntime and avg_load with curr added: the sum of weight x (v - v0), v0 =
// min_vruntime, and the sum of weights.
std::pair<__int128, long long> GuestCpu::weighted_keys() const {
  __int128 sum = 0;
  long long load = 0;
  for_each_entity([&](const Task& t) {
    sum += static_cast<__int128>(t.vruntime - min_vruntime) * t.weight;
    load += t.weight;
  });
  return {sum, load};
}

// avg_vruntime(): the load-weighted mean vruntime of the queue, floored as div_s64 of a
// negative sum is in the kernel (`avg -= load - 1`); an empty queue gives min_vruntime.
sim_ns GuestCpu::avg_vruntime() const {
  auto [sum, load] = weighted_keys();
  if (load == 0) return min_vruntime;
  if (sum < 0) sum -= load - 1;
  return min_vruntime + static_cast<sim_ns>(sum / load);
}

// entity_eligible(): lag >= 0, i.e. V >= v_i, compared as the kernel does without the
// division (sum >= (v_i - v0) * load).
bool GuestCpu::entity_eligible(const Task& se) const {
  const auto [sum, load] = weighted_keys();
  return sum >= static_cast<__int128>(se.vruntime - min_vruntime) * load;
}

// update_entity_lag(): at dequeue (sleep or migration), vlag = V - v_i, clamped to the
// virtual time of max(2 slices, one tick).
void GuestCpu::update_entity_lag(Task& se) {
  const sim_ns limit = calc_delta_fair(std::max<sim_ns>(2 * k_.sched_slice(), k_.tick_nsec()), se);
  se.vlag = std::clamp(avg_vruntime() - se.vruntime, -limit, limit);
}

// place_entity(): with PLACE_LAG the entity keeps its lag, inflated by the weight it adds
// to the queue (so that the lag it has once queued is vlag); the deadline one virtual
// slice on, half of one for a new task (PLACE_DEADLINE_INITIAL). Called before `se`
// joins rq.
void GuestCpu::place_entity(Task& se, bool initial) {
  const sim_ns vslice = calc_delta_fair(k_.sched_slice(), se);
  sim_ns lag = 0;
  const long long load = weighted_keys().second;
  if (load > 0) lag = static_cast<sim_ns>(static_cast<__int128>(se.vlag) * (load + se.weight) / load);
  se.vruntime = avg_vruntime() - lag;
  se.deadline = se.vruntime + (initial ? vslice / 2 : vslice);
}

// update_deadline(): once curr's vruntime reaches its deadline it gets a new one a slice
// on (and with others queued the kernel reschedules: the caller's part, sched_tick()).
bool GuestCpu::update_deadline() {
  if (!curr || curr->vruntime < curr->deadline) return false;
  curr->deadline = curr->vruntime + calc_delta_fair(k_.sched_slice(), *curr);
  return true;
}

// pick_eevdf(): of the eligible entities the one with the earliest virtual deadline.
// `running` is the task that ran until now when it is still runnable (curr in the
// kernel): considered only while eligible, and kept outright while it has its slice
// from the pick (RUN_TO_PARITY: set_next_entity() stashed its deadline in vlag).
Task* GuestCpu::pick_eevdf(Task* running) const {
  if (running && !entity_eligible(*running)) running = nullptr;
  if (running && running->vlag == running->deadline) return running;
  // the queue in deadline order, the first queued first on a tie; curr only if strictly
  // earlier (entity_before())
  // (delayed sleepers, DELAY_DEQUEUE, compete as queued entities)
  Task* best = nullptr;
  Task* least = nullptr;
  for (const auto* q : {&rq, &delayed})
    for (Task* t : *q) {
      if (!least || t->vruntime < least->vruntime) least = t;
      if (t == running || !entity_eligible(*t)) continue;
      if (!best || t->deadline < best->deadline) best = t;
    }
  if (running && (!best || running->deadline < best->deadline)) best = running;
  // the entity with the least vruntime is always eligible
  VTICK_WARN(!best && least, "pick_eevdf: no eligible entity on CPU ", id_);
  return best ? best : least;
}

}  // namespace vtick
