#include "core/sg.hpp"

#include "core/own_queue.hpp"
#include "core/warn.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

namespace vtick {

namespace sg4 = simgrid::s4u;

static SgEventCounts g_counts;
static bool g_failed = false;
static bool g_stopping = false;
static std::string g_failure;
static std::vector<Doorbell*> g_bells;
int Doorbell::token_ = 0;

// Running ahead (conservative lookahead, as in parallel discrete-event simulation): the
// running actor may be ahead of the SimGrid clock by g_lag. Actors switch only inside
// the blocking calls below, each of which first lets the clock catch up (sync_lag), so
// g_lag always belongs to the running actor. Each other actor's earliest possible wake-up
// is kept in g_wake (its deadline, a lower bound on its work's end, or the time it was
// rung); the running actor never runs ahead past any of them, so nobody can act, or
// observe it, inside the window.
static sim_ns g_lag = 0;
static sim_ns g_quantum = 0;
static std::vector<sim_ns> g_wake;  // by actor pid
// Local stretches (see core/sg.hpp promise_local_until()): an actor's promise that until
// then it only reads and writes its own state; 0 when it has none. Others may run ahead
// up to it even while it is asleep at an earlier step's end.
static std::vector<sim_ns> g_promise;  // by actor pid

// SimGrid's clock in integer ns as of the running actor's last return from SimGrid: the
// clock moves only while every actor is blocked, so it is read once per resume (running(),
// an actor's start) instead of on every now() (millions of calls per simulated second).
static sim_ns g_clock = 0;
static void read_clock() { g_clock = from_seconds(sg4::Engine::get_clock()); }

// The scheduler of this engine: vtick's own queue (core/own_queue.hpp) or SimGrid's activities.
static StepScheduler g_scheduler = StepScheduler::Simgrid;
// The step count's mark (next_step_host_only()).
static bool g_next_host_only = false;
bool detail::g_own_on = false;
void set_step_scheduler(StepScheduler s) {
  g_scheduler = s;
  detail::g_own_on = s == StepScheduler::Vtick;
  own::reset();
  g_next_host_only = false;
  reset_run_state();
}
StepScheduler step_scheduler() { return g_scheduler; }
static bool own_on() { return detail::g_own_on; }

const SgEventCounts& sg_event_counts() {
  g_counts.handoffs = own::handoffs();
  if (own_on()) g_counts.run_aheads = own::run_aheads();
  return g_counts;
}

sim_ns detail::sg_now() { return g_clock + g_lag; }
sim_ns engine_clock() {
  if (own_on()) return own::now();
  read_clock();
  return g_clock;
}

std::vector<std::string> simgrid_env_cfg() {
  std::vector<std::string> out;
  const char* e = std::getenv("VTICK_SG_CFG");
  std::string s = e ? e : "", w;
  for (char c : s + " ") {
    if (c == ' ') {
      if (!w.empty()) out.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  return out;
}

void set_time_hook(std::function<void(sim_ns)> fn) {
  if (own_on()) {
    own::set_time_hook(std::move(fn));
    return;
  }
  static std::function<void(sim_ns)> hook;  // SimGrid's callback is connected once per process
  static bool connected = false;
  hook = std::move(fn);
  if (!connected) sg4::Engine::on_time_advance_cb([](double) {
    if (hook) hook(from_seconds(sg4::Engine::get_clock()));
  });
  connected = true;
}

void set_quantum_ns(sim_ns ns) { g_quantum = ns; }
sim_ns quantum_ns() { return g_quantum; }

static sim_ns& wake_slot(long pid) {
  auto i = static_cast<std::size_t>(pid);
  if (i >= g_wake.size()) g_wake.resize(i + 1, KTIME_MAX);
  return g_wake[i];
}
// The calling actor: under the vtick scheduler a fiber inside the run's one SimGrid actor.
static long self_pid() { return own_on() ? own::running() : sg4::this_actor::get_pid(); }
static sim_ns& promise_slot(long pid) {
  auto i = static_cast<std::size_t>(pid);
  if (i >= g_promise.size()) g_promise.resize(i + 1, 0);
  return g_promise[i];
}
// The earliest time actor i may act on anything another actor reads or writes.
static sim_ns effective_slot(std::size_t i) {
  sim_ns p = i < g_promise.size() ? g_promise[i] : 0;
  return std::max(g_wake[i], p);
}
// Another actor changed what actor pid's promise assumed (its run queue, a lock it took
// for private, an interrupt for it). The changer is at the clock (synced): no actor has
// passed it, and from here on the others may run ahead only up to pid's next step end.
static void revoke_promise(long pid) {
  if (pid < 0 || pid == self_pid()) return;
  promise_slot(pid) = 0;
}
static void blocking_until(sim_ns t) { wake_slot(self_pid()) = t; }
// A running actor can act at any time from now on. Its slot says so because it can lose
// the CPU without blocking: a non-blocking simcall (a mailbox put, a pstate change, a
// cancel) lets SimGrid run the other actors of this scheduling round, and none of them
// may run ahead past it meanwhile. A stretch whose end it has reached is over.
static void running() {
  long self = self_pid();
  read_clock();
  sim_ns t = g_clock;
  wake_slot(self) = t;
  sim_ns& p = promise_slot(self);
  if (p <= t) p = 0;
}

// The earliest the work can end: at the host's fastest pstate.
static sim_ns work_end_bound(const sg4::ExecPtr& w) {
  sg4::Host* h = w->get_host();
  double peak = 0;
  for (unsigned long i = 0; i < h->get_pstate_count(); ++i) peak = std::max(peak, h->get_pstate_speed(i));
  return now() + static_cast<sim_ns>(w->get_remaining() * 1e9 / peak);
}

bool run_ahead(sim_ns ns) {
  if (own_on()) return false;  // its sleep_until() costs no SimGrid call when nobody is due first
  sim_ns end = now() + ns;
  if (g_lag + ns > g_quantum) return false;
  const auto self = static_cast<std::size_t>(self_pid());
  sim_ns p = promise_slot(self_pid());
  // A step that reaches the promise's end is slept: the actor wakes there outside its
  // stretch (running()), so it never acts at or past the end without the others knowing.
  if (p > 0 && end >= p) return false;
  // Only an actor in its own stretch may pass another's step end on the strength of that
  // one's promise. Any other may write others' state (then ring or revoke, which lets the
  // clock catch up): while it waits for the clock nobody may wake to see the write early.
  for (std::size_t i = 0; i < g_wake.size(); ++i)
    if (i != self && (p > 0 ? effective_slot(i) : g_wake[i]) <= end) return false;
  g_lag += ns;
  ++g_counts.run_aheads;
  return true;
}

void sync_lag() {
  if (g_lag == 0) return;  // (always 0 under the vtick scheduler)
  sim_ns t = now();
  g_lag = 0;
  ++g_counts.waits;
  blocking_until(t);
  sg4::this_actor::sleep_until(to_seconds(t));
  running();
}

bool local_stretches() { return g_quantum > 0; }

void promise_local_until(sim_ns t) {
  if (!local_stretches() || t <= now()) return;
  if (own_on()) own::promise_local(t);
  else promise_slot(self_pid()) = t;
}

static sim_ns own_promise() { return own_on() ? own::promise_of_running() : promise_slot(self_pid()); }

bool in_local_stretch() {
  sim_ns p = own_promise();
  return p > 0 && p > now();
}

void broke_local_stretch(const char* what) {
  sim_ns p = own_promise();
  if (p == 0 || p <= now()) return;
  VTICK_WARN(true, "actor ", self_pid(), " acts on shared state (", what, ") at ", now(), " inside its local stretch (until ", p,
             ")");
  if (own_on()) own::clear_promise_of_running();
  else promise_slot(self_pid()) = 0;
}

void request_stop() {
  if (g_stopping) return;
  g_stopping = true;
  for (Doorbell* b : g_bells) b->ring();
}

bool stop_requested() { return g_stopping; }

void stop_all_actors(sg4::Host* any_host) {
  if (own_on()) {
    spawn_actor("stop", any_host, [] { request_stop(); });
    return;
  }
  sg4::Actor::create("stop", any_host, [] {
    read_clock();
    request_stop();
  });
}

static bool g_deadlock = false;
void watch_for_deadlock() {
  static bool registered = false;
  if (!registered) sg4::Engine::on_deadlock_cb([] { g_deadlock = true; });
  registered = true;
}
bool deadlock_detected() { return g_deadlock || own::deadlocked(); }

static void check_stop() {
  if (g_stopping) throw SimulationEnd{};
}

void fail_simulation(const std::string& message) {
  if (g_failed) return;
  g_failed = true;
  g_failure = message;
  request_stop();
}
bool simulation_failed() { return g_failed; }

// A run's stop, failure and clock state, so that a second run in one process (a test, a
// library user) does not start stopped: it would unwind at its first wait.
void reset_run_state() {
  g_failed = g_stopping = g_deadlock = false;
  g_failure.clear();
  g_lag = 0;
  g_clock = 0;
  g_wake.clear();
  g_promise.clear();
  g_counts = SgEventCounts{};
}

void warn_failed(const char* file, int line, const char* cond, const std::string& text) {
  std::string f = file;
  auto slash = f.rfind('/');
  if (slash != std::string::npos && slash > 0) slash = f.rfind('/', slash - 1);  // "guest/tick_sched.cpp"
  fail_simulation("WARN_ON(" + std::string(cond) + ") at " + f.substr(slash == std::string::npos ? 0 : slash + 1) + ":" +
                  std::to_string(line) + (text.empty() ? "" : ": " + text));
}
const std::string& failure_message() { return g_failure; }

// An actor's body; an exception escaping it fails the run (SimulationEnd is the run's end).
static void run_body(const std::string& name, const std::function<void()>& body) {
  try {
    body();
  } catch (const SimulationEnd&) {
    // the run is over
  } catch (const simgrid::ForcefulKillException&) {
    throw;  // the end of the simulation: SimGrid must see it
  } catch (const std::exception& e) {
    fail_simulation("actor " + name + ": " + e.what());
  } catch (...) {
    fail_simulation("actor " + name + ": unknown exception");
  }
}

void spawn_actor(const std::string& name, sg4::Host* host, std::function<void()> body, bool first_at_ties) {
  if (own_on()) {  // a fiber with a stack as large as a SimGrid actor's (contexts/stack-size, KiB)
    auto stack = static_cast<std::size_t>(simgrid::config::get_value<int>("contexts/stack-size")) * 1024;
    own::spawn([name, body = std::move(body)] { run_body(name, body); }, host, now(), first_at_ties, stack);
    return;
  }
  sg4::ActorPtr a = sg4::Actor::create(name, host, [name, body = std::move(body)]() {
    read_clock();
    struct Done {  // an actor that has ended never wakes again
      ~Done() {
        g_lag = 0;
        wake_slot(self_pid()) = KTIME_MAX;
        promise_slot(self_pid()) = 0;
      }
    } done;
    run_body(name, body);
  });
  wake_slot(a->get_pid()) = from_seconds(sg4::Engine::get_clock());  // runnable from now
}

Doorbell::Doorbell(const std::string& name)
    : mb_(sg4::Mailbox::by_name(name)), get_(new sg4::CommPtr()) {
  g_bells.push_back(this);
}

Doorbell::~Doorbell() {
  g_bells.erase(std::remove(g_bells.begin(), g_bells.end(), this), g_bells.end());
  delete get_;
}

void Doorbell::claim() { owner_ = self_pid(); }

void Doorbell::revoke_promise() {
  if (own_on()) {
    own::revoke(owner_);  // the caller acts in the queue's order: nobody has passed it
    return;
  }
  if (owner_ < 0 || promise_slot(owner_) == 0) return;
  sync_lag();
  vtick::revoke_promise(owner_);
}

void Doorbell::ring() {
  if (own_on()) {
    broke_local_stretch("a doorbell ring");
    if (own_.rung) return;
    ++g_counts.rings;
    own::revoke(owner_);  // something arrived for it
    own::ring(own_, owner_);
    return;
  }
  broke_local_stretch("a doorbell ring");
  // The put below is a simcall: SimGrid may run the woken owner (or any actor ready at
  // this clock) before the ringer resumes, and those must not see the ringer's lag
  // (they did: the owner took it as its own, slept it off and zeroed it, and the ringer's
  // time went back by it). So a ringer running ahead first lets the clock catch up; it
  // rings at its own time all the same.
  sync_lag();
  sim_ns t = now();
  if (rung_) {
    due_ = std::min(due_, t);
    return;
  }
  vtick::revoke_promise(owner_);  // something arrived for it
  rung_ = true;
  due_ = t;
  if (owner_ >= 0) wake_slot(owner_) = std::min(wake_slot(owner_), t);
  ++g_counts.rings;
  mb_->put_init(&token_, 0)->detach();
}

// The step count (vtick scheduler), with the steps whose continuation runs host code only.
void next_step_host_only() {
  if (own_on()) g_next_host_only = true;
}
static void count_step() {
  ++g_counts.steps;
  g_counts.host_only_steps += g_next_host_only;
  g_next_host_only = false;
}

// A blocking call under the vtick scheduler; SimulationEnd once the run is stopping.
static Woken own_wait(own::Bell* bell, own::Work* work, sim_ns deadline) {
  count_step();
  Woken r = own::wait(bell, work, deadline);
  check_stop();
  return r;
}

Woken wait_event(Doorbell& bell, const sg4::ExecPtr& work, sim_ns deadline) {
  if (own_on()) {
    VTICK_WARN(work != nullptr, "a SimGrid Exec under the vtick scheduler (work_is_timed() was not asked)");
    bell.owner_ = own::running();
    return own_wait(&bell.own_, nullptr, deadline);
  }
  sync_lag();  // before `work` starts, see start_work()
  bell.owner_ = self_pid();
  for (;;) {
    ++g_counts.waits;
    std::vector<sg4::ActivityPtr> acts;
    if (work) acts.push_back(work);
    sim_ns until = deadline;
    if (bell.received_) {
      until = std::min(until, bell.due_);  // a ring from ahead of the clock: due later
    } else {
      if (!*bell.get_) *bell.get_ = bell.mb_->get_async<void>(&bell.slot_);
      acts.push_back(*bell.get_);
    }
    double timeout = -1.0;
    if (until != KTIME_MAX) {
      sim_ns d = until - now();
      timeout = d > 0 ? to_seconds(d) : 0.0;
    }
    sim_ns bound = until;
    if (work) bound = std::min(bound, work_end_bound(work));
    if (bell.received_ || bell.rung_) bound = std::min(bound, bell.due_);
    blocking_until(bound);
    ssize_t r = -1;
    if (acts.empty()) sg4::this_actor::sleep_for(timeout);  // only the due ring to wait for
    else r = sg4::Activity::wait_any_for(acts, timeout);
    running();
    if (g_stopping) {
      if (work && work->get_state() != sg4::Activity::State::FINISHED) work->cancel();
      throw SimulationEnd{};
    }
    if (work && r == 0) return Woken::WorkDone;
    if (r >= 0 && !bell.received_) {  // the ring arrived
      bell.get_->reset();
      bell.received_ = true;
    }
    if (bell.received_ && bell.due_ <= now()) {
      bell.received_ = false;
      bell.rung_ = false;
      return Woken::Bell;
    }
    if (r < 0 && !(bell.received_ && bell.due_ < deadline)) return Woken::Deadline;
  }
}

Woken wait_event(Doorbell& bell, sim_ns deadline) { return wait_event(bell, sg4::ExecPtr(), deadline); }

sg4::ExecPtr start_work(sg4::Host* host, sim_ns ns) {
  sync_lag();  // the Exec starts at the actor's time
  ++g_counts.works;
  sg4::ExecPtr e = sg4::this_actor::exec_init(static_cast<double>(ns));
  e->set_host(host);
  e->start();
  return e;
}

sim_ns work_remaining(const sg4::ExecPtr& w) { return static_cast<sim_ns>(std::llround(w->get_remaining())); }
bool work_done(const sg4::ExecPtr& w) { return w->get_state() == sg4::Activity::State::FINISHED; }
void work_cancel(const sg4::ExecPtr& w) { w->cancel(); }

static sim_ns g_fast_ns = 0;
void set_fast_work_ns(sim_ns ns) { g_fast_ns = ns; }
sim_ns fast_work_ns() { return own_on() ? 0 : g_fast_ns; }  // vtick times all work exactly

sim_ns work_duration(sg4::Host* host, sim_ns ns) {
  double speed = own_on() ? own::speed(host) : host->get_speed();
  return static_cast<sim_ns>(std::llround(static_cast<double>(ns) * 1e9 / speed));
}

void execute(sg4::Host* host, sim_ns ns) {
  if (ns <= 0) return;
  if (ns <= fast_work_ns()) {
    sim_ns d = work_duration(host, ns);
    if (!run_ahead(d)) sleep_until(now() + d);
    return;
  }
  if (own_on()) {
    if (own::complete_alone(host, ns, nullptr, KTIME_MAX)) {
      count_step();
      check_stop();
      return;
    }
    own::Work w;
    own::work_start(w, host, ns);
    own_wait(nullptr, &w, KTIME_MAX);
    return;
  }
  sync_lag();
  ++g_counts.works;
  ++g_counts.executes;
  sg4::ExecPtr e = sg4::this_actor::exec_init(static_cast<double>(ns));
  e->set_host(host);
  e->start();
  blocking_until(work_end_bound(e));
  e->wait();
  running();
  check_stop();
}

static bool g_timed_work = false;
void set_timed_work(bool on) { g_timed_work = on; }
bool timed_work() { return g_timed_work; }
bool work_is_timed(bool smt_sibling) { return own_on() || (g_timed_work && !smt_sibling); }

void set_host_pstate(sg4::Host* host, unsigned long pstate) {
  if (own_on()) {
    // the sibling's work is timed from here: a stretch ahead of it would time it wrong
    broke_local_stretch("an SMT sibling's speed change");
    own::set_pstate(host, pstate);
    return;
  }
  sync_lag();  // SimGrid changes the speed at the clock's time: bring it to ours
  host->set_pstate(pstate);
}

bool wait_timed_work(Doorbell& bell, sg4::Host* host, sim_ns& left, sim_ns deadline) {
  if (own_on()) {
    bell.owner_ = own::running();
    if (own::complete_alone(host, left, &bell.own_, deadline)) {
      count_step();
      check_stop();
      left = 0;
      return true;
    }
    own::Work w;
    own::work_start(w, host, left);
    Woken r = own_wait(&bell.own_, &w, deadline);
    left = own::work_stop(w);
    return r == Woken::WorkDone;
  }
  sync_lag();
  double per_ns = host->get_speed() / 1e9;  // nominal ns of work per ns
  sim_ns start = now(), end = start + work_duration(host, left);
  wait_event(bell, std::min(deadline, end));
  if (now() >= end) {
    left = 0;
    return true;
  }
  // what an Exec's get_remaining() gives, in integer ns
  left = std::max<sim_ns>(0, std::llround(static_cast<double>(left) - static_cast<double>(now() - start) * per_ns));
  return false;
}

void sleep_until(sim_ns t) {
  if (own_on()) {
    own_wait(nullptr, nullptr, std::max(t, now()));
    return;
  }
  t = std::max(t, now());
  g_lag = 0;
  ++g_counts.waits;
  blocking_until(t);
  sg4::this_actor::sleep_until(to_seconds(t));
  running();
  check_stop();
}

}  // namespace vtick
