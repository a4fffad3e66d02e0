// Not kernel code: the event queue of core/own_queue.hpp.
#include "core/own_queue.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include "core/warn.hpp"

namespace vtick::own {

namespace sg4 = simgrid::s4u;

struct HostRate {
  std::vector<double> pstate_speed;  // read once: SimGrid's getters are simcalls
  double speed = 0;
  std::vector<Work*> works;
};

namespace {

struct Slot {
  sg4::SemaphorePtr sem;     // parked on it while another actor runs
  std::uint64_t seq = 0;     // its entry in the queue; 0: none
  bool first = false;        // goes first among the actors due at one instant
  bool alive = false;
  sim_ns at = KTIME_MAX;     // its entry's time (KTIME_MAX: none)
  sim_ns promise = 0;        // a local stretch until then (core/sg.hpp); 0: none
  sim_ns deadline = KTIME_MAX;
  Bell* bell = nullptr;      // while parked: the bell that wakes it
  Work* work = nullptr;      // while parked: the work whose end wakes it
};

// Order: time, then observers, then the entry queued *last* first. The model's costs are
// exact, so two vCPUs in step act in the same nanosecond often, and who goes first decides
// races (a mutex, an IPI to a CPU about to halt). Real machines have no exact ties; of
// the two simple rules, last-queued-first is what SimGrid's scheduler gives statistically
// (docs/performance.md: first-queued-first moves mutex contention on A1.Flex.2 OLTP by
// +7 % and transactions/s by +0.45 %, last-queued-first matches the reference).
struct Entry {
  sim_ns at;
  bool later;  // not a first-at-ties actor
  std::uint64_t seq;
  long pid;
  bool operator>(const Entry& o) const {
    if (at != o.at) return at > o.at;
    if (later != o.later) return later;
    return seq < o.seq;
  }
};

sim_ns g_now = 0;      // the running actor's time (in a local stretch, ahead of others')
sim_ns g_reached = 0;  // the latest time any actor reached (the time hook's)
long g_running = -1;  // the actor that holds control (or was just handed it)
std::uint64_t g_seq = 0, g_handoffs = 0, g_run_aheads = 0;
bool g_deadlock = false;
std::vector<Slot> g_slots;  // by SimGrid pid
std::priority_queue<Entry, std::vector<Entry>, std::greater<>> g_queue;
std::unordered_map<const sg4::Host*, HostRate> g_hosts;  // looked up, never iterated
// a direct-mapped cache in front of it (the map's nodes do not move)
constexpr std::size_t kHostCache = 64;
const sg4::Host* g_cache_key[kHostCache];
HostRate* g_cache_val[kHostCache];
std::function<void(sim_ns)> g_time_hook;

// Every actor that blocks here was added (add_actor) and has its slot.
Slot& slot(long pid) { return g_slots[static_cast<std::size_t>(pid)]; }

// Entries are never removed from the middle: re-queueing an actor gives it a new seq and
// leaves the old entry behind, dropped when it reaches the top.
void drop_stale() {
  while (!g_queue.empty() && g_slots[static_cast<std::size_t>(g_queue.top().pid)].seq != g_queue.top().seq) g_queue.pop();
}

void queue(long pid, sim_ns at) {
  Slot& s = slot(pid);
  s.seq = ++g_seq;
  s.at = at;
  g_queue.push({at, !s.first, s.seq, pid});
}

// Control to `e`'s actor, whose semaphore the caller releases; the caller then parks or ends.
void hand_to(const Entry& e) {
  g_running = e.pid;
  ++g_handoffs;
  g_slots[static_cast<std::size_t>(e.pid)].sem->release();
}

Entry pop() {
  Entry e = g_queue.top();
  g_queue.pop();
  Slot& s = g_slots[static_cast<std::size_t>(e.pid)];
  s.seq = 0;
  s.at = KTIME_MAX;
  return e;
}

// The clock is the running actor's: it goes back when control passes to an actor that a
// stretch left behind (each entity's own state clock still only moves forward).
void set_now(sim_ns t) {
  g_now = t;
  if (t > g_reached) {
    g_reached = t;
    if (g_time_hook) g_time_hook(t);
  }
}

// Local stretches: the running actor, in its own stretch until after `at`, may move on to
// `at` past other actors' entries when each of them is queued after `at` or has promised
// to stay local past it (what core/sg.cpp run_ahead() asks of SimGrid's actors).
bool passable(long self, sim_ns at) {
  const Slot& me = g_slots[static_cast<std::size_t>(self)];
  if (me.promise <= at) return false;
  for (std::size_t i = 0; i < g_slots.size(); ++i) {
    const Slot& o = g_slots[i];
    if (static_cast<long>(i) == self || !o.alive) continue;
    if (std::max(o.at, o.promise) <= at) return false;
  }
  return true;
}

// An actor that wakes at or past its promise is out of its stretch.
void end_stretch_if_reached(long self) {
  Slot& s = g_slots[static_cast<std::size_t>(self)];
  if (s.promise > 0 && s.promise <= g_now) s.promise = 0;
}

// Gives control to the earliest queued actor; returns once the caller is picked again.
void pass_on(long self) {
  drop_stale();
  if (g_queue.empty()) {
    // every actor waits for a ring nobody can send: what SimGrid calls a deadlock
    g_deadlock = true;
    g_running = -1;
    slot(self).sem->acquire();  // SimGrid then finds every actor blocked and ends the run
    return;
  }
  Entry e = pop();
  set_now(e.at);
  if (e.pid == self) return;
  hand_to(e);
  slot(self).sem->acquire();
}

void block(long self, sim_ns at) {
  drop_stale();
  // nobody is due before `at`; one due at `at` too would follow it (queued earlier), unless
  // it is an observer and the caller is not
  if (at != KTIME_MAX && (g_queue.empty() || g_queue.top().at > at || (g_queue.top().at == at && (slot(self).first || g_queue.top().later)))) {
    set_now(at);
    end_stretch_if_reached(self);
    return;
  }
  if (at != KTIME_MAX && passable(self, at)) {
    set_now(at);
    ++g_run_aheads;
    return;
  }
  if (at != KTIME_MAX) queue(self, at);
  pass_on(self);
  end_stretch_if_reached(self);
}

long self_pid() { return g_running; }

HostRate& rate_of(sg4::Host* h) {
  std::size_t c = (reinterpret_cast<std::uintptr_t>(h) >> 4) % kHostCache;
  if (g_cache_key[c] == h) return *g_cache_val[c];
  g_cache_key[c] = h;
  auto it = g_hosts.find(h);
  if (it != g_hosts.end()) return *(g_cache_val[c] = &it->second);
  HostRate& r = *(g_cache_val[c] = &g_hosts[h]);
  for (unsigned long i = 0; i < h->get_pstate_count(); ++i) r.pstate_speed.push_back(h->get_pstate_speed(i));
  r.speed = h->get_speed();
  return r;
}

double per_ns(const HostRate& h) { return h.speed / 1e9 / static_cast<double>(h.works.size()); }

// The works' progress up to `t` at the rate they had.
void settle(HostRate& h, sim_ns t) {
  if (h.works.empty()) return;
  double r = per_ns(h);
  for (Work* w : h.works) {
    w->left = std::max(0.0, w->left - static_cast<double>(t - w->since) * r);
    w->since = t;
  }
}

// Their ends at the current rate; a parked owner's wake-up moves with its work's end.
void retime(HostRate& h) {
  if (h.works.empty()) return;
  double rate = h.speed / static_cast<double>(h.works.size());
  for (Work* w : h.works) {
    w->end = w->since + static_cast<sim_ns>(std::llround(w->left * 1e9 / rate));
    Slot& s = slot(w->pid);
    if (s.work == w && w->pid != g_running) queue(w->pid, std::min(s.deadline, w->end));
  }
}

}  // namespace

void reset() {
  // An actor left parked (a run that deadlocked) still holds its semaphore, and SimGrid
  // aborts when a semaphore in use is destroyed: such slots are kept for good.
  static auto* kept = new std::vector<Slot>();
  if (g_deadlock) kept->insert(kept->end(), g_slots.begin(), g_slots.end());
  g_now = g_reached = 0;
  g_running = -1;
  g_seq = g_handoffs = g_run_aheads = 0;
  g_deadlock = false;
  g_slots.clear();
  g_queue = {};
  g_hosts.clear();
  std::fill(std::begin(g_cache_key), std::end(g_cache_key), nullptr);
  g_time_hook = nullptr;
}

sim_ns now() { return g_now; }

void add_actor(long pid, sim_ns at, bool first_at_ties) {
  auto i = static_cast<std::size_t>(pid);
  if (i >= g_slots.size()) g_slots.resize(i + 1);
  Slot& s = g_slots[i];
  s.sem = sg4::Semaphore::create(0);
  s.first = first_at_ties;
  s.alive = true;
  queue(pid, at);
}

void actor_start(long pid) {
  if (g_running < 0) {  // the first actor SimGrid runs at the start picks the earliest
    g_running = pid;
    pass_on(pid);
    return;
  }
  slot(pid).sem->acquire();
}

void actor_end(long pid) {
  Slot& s = slot(pid);
  s.seq = 0;
  s.at = KTIME_MAX;
  s.promise = 0;
  s.alive = false;
  s.bell = nullptr;
  s.work = nullptr;
  drop_stale();
  if (g_queue.empty()) {
    g_running = -1;
    return;
  }
  Entry e = pop();
  set_now(e.at);
  hand_to(e);
}

Woken wait(Bell* bell, Work* work, sim_ns deadline) {
  long self = self_pid();
  for (;;) {
    if (work && work->end <= g_now) return Woken::WorkDone;
    if (bell && bell->rung) {
      bell->rung = false;
      return Woken::Bell;
    }
    if (deadline <= g_now) return Woken::Deadline;
    Slot& s = slot(self);
    s.bell = bell;
    s.work = work;
    s.deadline = deadline;
    block(self, std::min(deadline, work ? work->end : KTIME_MAX));
    Slot& r = slot(self);  // (the slots may have grown meanwhile)
    r.bell = nullptr;
    r.work = nullptr;
    r.deadline = KTIME_MAX;
    if (stop_requested()) return Woken::Bell;  // the caller unwinds
  }
}

void ring(Bell& b, long owner) {
  if (b.rung) return;
  b.rung = true;
  if (owner < 0 || owner == g_running) return;
  Slot& o = slot(owner);
  if (o.bell == &b) queue(owner, g_now);
}

Work::~Work() {
  if (host) work_stop(*this);
}

void work_start(Work& w, sg4::Host* host, sim_ns nominal) {
  HostRate& h = rate_of(host);
  settle(h, g_now);
  w.host = &h;
  w.left = static_cast<double>(nominal);
  w.since = g_now;
  w.pid = self_pid();
  h.works.push_back(&w);
  retime(h);
}

sim_ns work_stop(Work& w) {
  HostRate& h = *w.host;
  settle(h, g_now);
  sim_ns left = w.end <= g_now ? 0 : std::max<sim_ns>(0, std::llround(w.left));
  h.works.erase(std::find(h.works.begin(), h.works.end(), &w));
  w.host = nullptr;
  retime(h);
  return left;
}

void set_pstate(sg4::Host* host, unsigned long pstate) {
  HostRate& h = rate_of(host);
  VTICK_WARN(pstate >= h.pstate_speed.size(), "pstate ", pstate, " of ", h.pstate_speed.size());
  if (pstate >= h.pstate_speed.size() || h.speed == h.pstate_speed[pstate]) return;
  settle(h, g_now);
  h.speed = h.pstate_speed[pstate];
  retime(h);
}

double speed(sg4::Host* host) { return rate_of(host).speed; }

std::uint64_t handoffs() { return g_handoffs; }
std::uint64_t run_aheads() { return g_run_aheads; }

void promise_local(sim_ns t) {
  if (t > g_now) slot(g_running).promise = t;
}
sim_ns promise_of_running() { return g_running < 0 ? 0 : slot(g_running).promise; }
void clear_promise_of_running() {
  if (g_running >= 0) slot(g_running).promise = 0;
}
void revoke(long pid) {
  if (pid >= 0 && static_cast<std::size_t>(pid) < g_slots.size()) g_slots[static_cast<std::size_t>(pid)].promise = 0;
}
void set_time_hook(std::function<void(sim_ns)> fn) { g_time_hook = std::move(fn); }
bool deadlocked() { return g_deadlock; }

}  // namespace vtick::own
