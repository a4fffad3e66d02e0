#include "core/sg.hpp"

#include <algorithm>
#include <cmath>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

namespace vtick {

namespace sg4 = simgrid::s4u;

static SgEventCounts g_counts;
static bool g_failed = false;
static bool g_stopping = false;
static std::string g_failure;
static std::vector<Doorbell*> g_bells;
int Doorbell::token_ = 0;

const SgEventCounts& sg_event_counts() { return g_counts; }

sim_ns now() { return from_seconds(sg4::Engine::get_clock()); }

void request_stop() {
  if (g_stopping) return;
  g_stopping = true;
  for (Doorbell* b : g_bells) b->ring();
}

bool stop_requested() { return g_stopping; }

void stop_all_actors(sg4::Host* any_host) {
  sg4::Actor::create("stop", any_host, [] { request_stop(); });
}

static bool g_deadlock = false;
void watch_for_deadlock() {
  static bool registered = false;
  if (!registered) sg4::Engine::on_deadlock_cb([] { g_deadlock = true; });
  registered = true;
}
bool deadlock_detected() { return g_deadlock; }

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
const std::string& failure_message() { return g_failure; }

void spawn_actor(const std::string& name, sg4::Host* host, std::function<void()> body) {
  sg4::Actor::create(name, host, [name, body = std::move(body)]() {
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
  });
}

Doorbell::Doorbell(const std::string& name)
    : mb_(sg4::Mailbox::by_name(name)), get_(new sg4::CommPtr()) {
  g_bells.push_back(this);
}

Doorbell::~Doorbell() {
  g_bells.erase(std::remove(g_bells.begin(), g_bells.end(), this), g_bells.end());
  delete get_;
}

void Doorbell::ring() {
  if (rung_) return;
  rung_ = true;
  ++g_counts.rings;
  mb_->put_init(&token_, 0)->detach();
}

Woken wait_event(Doorbell& bell, const sg4::ExecPtr& work, sim_ns deadline) {
  ++g_counts.waits;
  if (!*bell.get_) *bell.get_ = bell.mb_->get_async<void>(&bell.slot_);
  std::vector<sg4::ActivityPtr> acts;
  if (work) acts.push_back(work);
  acts.push_back(*bell.get_);
  double timeout = -1.0;
  if (deadline != KTIME_MAX) {
    sim_ns d = deadline - now();
    timeout = d > 0 ? to_seconds(d) : 0.0;
  }
  ssize_t r = sg4::Activity::wait_any_for(acts, timeout);
  if (g_stopping) {
    if (work && work->get_state() != sg4::Activity::State::FINISHED) work->cancel();
    throw SimulationEnd{};
  }
  if (work && r == 0) return Woken::WorkDone;
  if (r >= 0) {
    bell.get_->reset();
    bell.rung_ = false;
    return Woken::Bell;
  }
  return Woken::Deadline;
}

Woken wait_event(Doorbell& bell, sim_ns deadline) { return wait_event(bell, sg4::ExecPtr(), deadline); }

sg4::ExecPtr start_work(sg4::Host* host, sim_ns ns) {
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
sim_ns fast_work_ns() { return g_fast_ns; }

sim_ns work_duration(sg4::Host* host, sim_ns ns) {
  return static_cast<sim_ns>(std::llround(static_cast<double>(ns) * 1e9 / host->get_speed()));
}

void execute(sg4::Host* host, sim_ns ns) {
  if (ns <= 0) return;
  if (ns <= g_fast_ns) {
    sleep_until(now() + work_duration(host, ns));
    return;
  }
  ++g_counts.works;
  ++g_counts.executes;
  sg4::ExecPtr e = sg4::this_actor::exec_init(static_cast<double>(ns));
  e->set_host(host);
  e->wait();
  check_stop();
}

void sleep_until(sim_ns t) {
  ++g_counts.waits;
  sg4::this_actor::sleep_until(to_seconds(t));
  check_stop();
}

}  // namespace vtick
