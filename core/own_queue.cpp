// Not kernel code: the event queue of core/own_queue.hpp.
#include "core/own_queue.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Host.hpp>

#include "core/fiber.hpp"
#include "core/warn.hpp"

namespace vtick {
sim_ns detail::g_own_now = 0;
}

namespace vtick::own {

namespace sg4 = simgrid::s4u;

struct HostRate {
  std::uint64_t engine = 0;          // the reset() it belongs to (g_engine): older ones are stale
  std::vector<double> pstate_speed;  // read once: SimGrid's getters are simcalls
  double speed = 0;
  double speed_per_ns = 0;  // speed / 1e9, kept with speed
  std::vector<Work*> works;
  // from speed and works.size(), kept with them (divisions are the cost of timing work)
  double per_ns = 0;  // nominal ns each work runs per ns
  double rate = 0;    // each work's speed (nominal ns per s)
};

namespace {

struct Slot {
  std::uint64_t seq = 0;     // its entry in the queue; 0: none
  long pos = -1;             // its entry's index in the heap; -1: none
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
// An entry: (at, first, seq) of a slot; at most one per actor.
struct Entry {
  sim_ns at;
  long pid;
};

sim_ns& g_now = detail::g_own_now;  // the running actor's time (in a local stretch, ahead of others')
sim_ns g_reached = 0;  // the latest time any actor reached (the time hook's)
long g_running = -1;  // the actor that holds control (or was just handed it); -1: the driver
bool g_unwinding = false;  // drive(): the actors left after a deadlock are ending
std::uint64_t g_seq = 0, g_handoffs = 0, g_run_aheads = 0;
bool g_deadlock = false;
std::vector<Slot> g_slots;  // by actor id (its fiber's)
struct HeapEntry {
  sim_ns at;
  std::uint64_t order;  // order_key(): who goes first at one instant
  long pid;
};
std::vector<HeapEntry> g_heap;  // the queued actors, a 4-ary heap (Slot::pos indexes it)
std::uint64_t g_engine = 0;  // counts reset()s: a host's HostRate from an earlier one is stale
std::function<void(sim_ns)> g_time_hook;
bool g_driver_made = false;  // the run's one SimGrid actor (drive()) exists: made at the first spawn

// Every actor that blocks here was added (add_actor) and has its slot.
Slot& slot(long pid) { return g_slots[static_cast<std::size_t>(pid)]; }

// The queue is a heap whose entries carry their order inline (no look-up of the
// slot per comparison) and whose slots know their position, so that re-queueing an actor
// moves its one entry (no stale entries left behind to skip). An entry's order key: the
// observer bit clear first, then the larger seq (queued last) first.
constexpr std::size_t kArity = 4;  // a 4-ary heap: half the levels of a binary one, for 100+ actors
std::uint64_t order_key(bool first, std::uint64_t seq) {
  return (first ? 0 : std::uint64_t{1} << 63) | (~seq & ((std::uint64_t{1} << 63) - 1));
}
bool before(const HeapEntry& x, const HeapEntry& y) { return x.at != y.at ? x.at < y.at : x.order < y.order; }
void place(std::size_t i, const HeapEntry& e) {
  g_heap[i] = e;
  slot(e.pid).pos = static_cast<long>(i);
}
void sift_up(std::size_t i) {
  HeapEntry e = g_heap[i];
  while (i > 0 && before(e, g_heap[(i - 1) / kArity])) {
    place(i, g_heap[(i - 1) / kArity]);
    i = (i - 1) / kArity;
  }
  place(i, e);
}
void sift_down(std::size_t i) {
  HeapEntry e = g_heap[i];
  const std::size_t n = g_heap.size();
  for (;;) {
    std::size_t first = kArity * i + 1, c = first;
    if (first >= n) break;
    for (std::size_t k = first + 1; k < std::min(first + kArity, n); ++k)
      if (before(g_heap[k], g_heap[c])) c = k;
    if (!before(g_heap[c], e)) break;
    place(i, g_heap[c]);
    i = c;
  }
  place(i, e);
}
// Restores the heap around a changed entry at i: up if it is now earlier than its parent,
// else down.
void resift(std::size_t i) {
  if (i > 0 && before(g_heap[i], g_heap[(i - 1) / kArity])) sift_up(i);
  else sift_down(i);
}
void unqueue(long pid) {
  Slot& s = slot(pid);
  s.seq = 0;
  s.at = KTIME_MAX;
  if (s.pos < 0) return;
  auto i = static_cast<std::size_t>(s.pos);
  s.pos = -1;
  HeapEntry last = g_heap.back();
  g_heap.pop_back();
  if (i == g_heap.size()) return;
  place(i, last);
  resift(i);
}
bool queue_empty() { return g_heap.empty(); }
Entry queue_top() { return {g_heap[0].at, g_heap[0].pid}; }

void queue(long pid, sim_ns at) {
  Slot& s = slot(pid);
  s.seq = ++g_seq;
  s.at = at;
  HeapEntry e{at, order_key(s.first, s.seq), pid};
  if (s.pos < 0) {
    g_heap.push_back(e);
    s.pos = static_cast<long>(g_heap.size() - 1);
    sift_up(static_cast<std::size_t>(s.pos));
    return;
  }
  auto i = static_cast<std::size_t>(s.pos);
  g_heap[i] = e;
  resift(i);
}

// Control passes to `to` by one jump to its fiber (core/fiber.hpp); the caller's fiber stays
// suspended until it is handed control again.
void hand_to(long to) {
  g_running = to;
  ++g_handoffs;
  fiber::switch_to(to);
}

Entry pop() {
  Entry e = queue_top();
  unqueue(e.pid);
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
// to stay local past it (what core/sg.cpp run_ahead() asks of the simgrid scheduler's actors).
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
  if (queue_empty()) {
    // every actor waits for a ring nobody can send: the driver unwinds them (drive())
    g_deadlock = true;
    g_running = -1;
    fiber::switch_to(fiber::kDriver);
    return;
  }
  Entry e = pop();
  set_now(e.at);
  if (e.pid == self) return;
  hand_to(e.pid);
}

// Nobody is due before `at`; one due at `at` too would follow the caller (queued earlier),
// unless it is an observer and the caller is not.
bool first_until(long self, sim_ns at) {
  return queue_empty() || queue_top().at > at || (queue_top().at == at && (slot(self).first || !slot(g_heap[0].pid).first));
}

void block(long self, sim_ns at) {
  if (g_unwinding) return;  // the run is over: every blocking call returns, and its actor unwinds
  if (at != KTIME_MAX && first_until(self, at)) {
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

void set_speed(HostRate& h, double speed) {
  h.speed = speed;
  h.speed_per_ns = speed / 1e9;
}

// A hardware thread's rates hang on its SimGrid host (an extension the host owns and frees):
// one index into the host's extensions per look-up, at every work start and stop.
HostRate& rate_of(sg4::Host* h) {
  static const simgrid::xbt::Extension<sg4::Host, HostRate> ext = sg4::Host::extension_create<HostRate>();
  HostRate* r = h->extension(ext);
  if (r && r->engine == g_engine) return *r;
  if (!r) {
    r = new HostRate;
    h->extension_set(ext, r);
  }
  *r = HostRate{};
  r->engine = g_engine;
  for (unsigned long i = 0; i < h->get_pstate_count(); ++i) r->pstate_speed.push_back(h->get_pstate_speed(i));
  set_speed(*r, h->get_speed());
  return *r;
}

// std::llround() of x >= 0 without the libm call (this runs on every piece of work): the
// integer part, up by one when the fraction is a half or more (x - floor(x) is exact).
sim_ns round_ns(double x) {
  auto r = static_cast<sim_ns>(x);
  return x - static_cast<double>(r) >= 0.5 ? r + 1 : r;
}

// The ns that `left` nominal ns take at `rate`: round_ns(left * 1e9 / rate). At nominal
// speed (1e9, one work: no SMT sibling, nothing beside it) a whole number of ns below 2^53 /
// 1e9 is its own result (the product and the quotient are exact), without the division.
sim_ns end_after(double left, double rate) {
  if (rate == 1e9 && left < 9e6) {
    auto whole = static_cast<sim_ns>(left);
    if (static_cast<double>(whole) == left) return whole;
  }
  return round_ns(left * 1e9 / rate);
}

// After a change of speed or of the number of works: the same expressions as before, once.
void rates(HostRate& h) {
  if (h.works.size() == 1) {  // (x / 1.0 is x)
    h.per_ns = h.speed_per_ns;
    h.rate = h.speed;
  } else if (!h.works.empty()) {
    auto n = static_cast<double>(h.works.size());
    h.per_ns = h.speed / 1e9 / n;
    h.rate = h.speed / n;
  }
}

// The works' progress up to `t` at the rate they had.
void settle(HostRate& h, sim_ns t) {
  if (h.works.empty()) return;
  double r = h.per_ns;
  for (Work* w : h.works) {
    w->left = std::max(0.0, w->left - static_cast<double>(t - w->since) * r);
    w->since = t;
  }
}

// Their ends at the current rate; a parked owner's wake-up moves with its work's end.
void retime(HostRate& h) {
  if (h.works.empty()) return;
  double rate = h.rate;
  for (Work* w : h.works) {
    w->end = w->since + end_after(w->left, rate);
    Slot& s = slot(w->pid);
    if (s.work == w && w->pid != g_running) queue(w->pid, std::min(s.deadline, w->end));
  }
}

}  // namespace

void reset() {
  g_now = g_reached = 0;
  g_running = -1;
  g_seq = g_handoffs = g_run_aheads = 0;
  g_deadlock = g_unwinding = false;
  g_driver_made = false;
  fiber::reset();
  g_slots.clear();
  g_heap.clear();
  ++g_engine;
  g_time_hook = nullptr;
}

sim_ns now() { return g_now; }
long running() { return g_running; }

namespace {
void add_actor(long pid, sim_ns at, bool first_at_ties) {
  auto i = static_cast<std::size_t>(pid);
  if (i >= g_slots.size()) g_slots.resize(i + 1);
  Slot& s = g_slots[i];
  s.first = first_at_ties;
  s.alive = true;
  queue(pid, at);
}

// An actor ends: the one to pass control on to (the driver when none is queued, or while
// the actors left are unwound).
long actor_end(long pid) {
  unqueue(pid);
  Slot& s = slot(pid);
  s.promise = 0;
  s.alive = false;
  s.bell = nullptr;
  s.work = nullptr;
  if (g_unwinding || queue_empty()) {
    g_running = -1;
    return fiber::kDriver;
  }
  Entry e = pop();
  set_now(e.at);
  g_running = e.pid;
  ++g_handoffs;
  return e.pid;
}

// The one SimGrid actor of a run: it runs the actors (fibers) from the earliest entry on,
// and gets control back when none can go on: all have ended, or those left wait for rings
// nobody can send (a deadlock: they are woken with the run stopping, and unwind).
void drive() {
  if (!queue_empty()) {
    Entry e = pop();
    set_now(e.at);
    g_running = e.pid;
    fiber::switch_to(e.pid);
  }
  for (const Slot& s : g_slots)
    if (s.alive) g_deadlock = true;
  if (!g_deadlock) return;
  request_stop();
  g_unwinding = true;
  for (std::size_t pid = 0; pid < g_slots.size(); ++pid) {
    if (!g_slots[pid].alive) continue;
    g_running = static_cast<long>(pid);
    fiber::switch_to(g_running);
  }
  g_running = -1;
}
}  // namespace

void spawn(std::function<void()> body, sg4::Host* host, sim_ns at, bool first_at_ties, std::size_t stack_bytes) {
  if (!g_driver_made) {
    g_driver_made = true;
    sg4::Actor::create("vtick", host, drive);
  }
  const long pid = fiber::count();  // the id create() gives it
  fiber::create(
      [pid, body = std::move(body)] {
        if (!g_unwinding) body();  // (one that never ran has nothing to unwind)
        return actor_end(pid);
      },
      stack_bytes);
  add_actor(pid, at, first_at_ties);
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

bool complete_alone(sg4::Host* host, sim_ns nominal, const Bell* bell, sim_ns deadline) {
  if (bell && bell->rung) return false;
  HostRate& h = rate_of(host);
  if (!h.works.empty()) return false;
  sim_ns end = g_now + end_after(static_cast<double>(nominal), h.speed);  // what work_start() gives it
  if (end > deadline || (end > g_now && !first_until(g_running, end))) return false;
  set_now(end);
  end_stretch_if_reached(g_running);
  return true;
}

void work_start(Work& w, sg4::Host* host, sim_ns nominal) {
  HostRate& h = rate_of(host);
  settle(h, g_now);
  w.host = &h;
  w.left = static_cast<double>(nominal);
  w.since = g_now;
  w.pid = self_pid();
  h.works.push_back(&w);
  rates(h);
  retime(h);
}

sim_ns work_stop(Work& w) {
  HostRate& h = *w.host;
  settle(h, g_now);
  sim_ns left = w.end <= g_now ? 0 : round_ns(std::max(0.0, w.left));
  h.works.erase(std::find(h.works.begin(), h.works.end(), &w));
  w.host = nullptr;
  rates(h);
  retime(h);
  return left;
}

void set_pstate(sg4::Host* host, unsigned long pstate) {
  HostRate& h = rate_of(host);
  VTICK_WARN(pstate >= h.pstate_speed.size(), "pstate ", pstate, " of ", h.pstate_speed.size());
  if (pstate >= h.pstate_speed.size() || h.speed == h.pstate_speed[pstate]) return;
  settle(h, g_now);
  set_speed(h, h.pstate_speed[pstate]);
  rates(h);
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
