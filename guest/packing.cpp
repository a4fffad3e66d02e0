// vtick's observer of packed phases (no kernel counterpart); see guest/packing.hpp.
#include "guest/packing.hpp"

#include <algorithm>

#include "core/trace.hpp"

namespace vtick {

void Packing::flush(sim_ns now) {
  if (now <= last_) return;
  sim_ns dt = now - last_;
  for (int c : packed_) packed_ns_[static_cast<std::size_t>(c)] += dt;
  if (on_) st_.packed_ns += dt;
  if (colocated_) st_.colocated_ns += dt;
  last_ = now;
}

void Packing::update(sim_ns now, LbCause why, const Queues& q) {
  now = std::max(now, last_);  // vCPU clocks may differ by their run-ahead: keep it monotonic
  flush(now);
  if (q.colocated && !colocated_) ++st_.colocated_episodes;
  colocated_ = q.colocated;
  if (q.idle_cpus > 0) packed_ = q.busy;
  else packed_.clear();
  bool any = !packed_.empty();
  int first = any ? packed_.front() : -1, idle_one = q.first_idle;
  if (any == on_) return;
  std::uint64_t* start[] = {&st_.start_wakeup, &st_.start_block, &st_.start_newidle, &st_.start_periodic,
                            &st_.start_nohz, &st_.start_active, &st_.start_other};
  std::uint64_t* end[] = {&st_.end_wakeup, &st_.end_block, &st_.end_newidle, &st_.end_periodic,
                          &st_.end_nohz, &st_.end_active, &st_.end_other};
  auto i = static_cast<std::size_t>(why);
  if (any) {
    ++st_.episodes;
    ++*start[i];
    since_ = now;
    packed_cpu_ = first;
    if (tracing()) trace::pack_start(now, first, idle_one, lb_cause_name(why));
  } else {
    sim_ns len = now - since_;
    ++*end[i];
    if (len < NSEC_PER_MSEC) ++st_.len_lt_1ms;
    else if (len < 10 * NSEC_PER_MSEC) ++st_.len_1_10ms;
    else if (len < 100 * NSEC_PER_MSEC) ++st_.len_10_100ms;
    else ++st_.len_ge_100ms;
    st_.max_len_ns = std::max(st_.max_len_ns, len);
    if (tracing()) trace::pack_end(now, packed_cpu_, lb_cause_name(why), len);
  }
  on_ = any;
}

}  // namespace vtick
