// The one place the model touches SimGrid's activities: actors, work, waiting, doorbells.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <simgrid/forward.h>

#include "core/enum_names.hpp"
#include "core/sg_counts.hpp"
#include "core/time.hpp"

namespace vtick {

// Who orders the model's steps. Vtick: vtick's own event queue (core/own_queue.hpp), its
// actors fibers inside one SimGrid actor: one actor runs at a time, the one whose next
// event is earliest; a step costs a stack switch only when the next event is another
// actor's, and work is timed by vtick, SMT coupling included. Simgrid: every wait, ring
// and piece of work is a SimGrid activity (the reference), with running ahead
// (run.quantum) and timed work (run.timed_work) as options.
enum class StepScheduler { Vtick, Simgrid };
VTICK_ENUM_NAMES(StepScheduler, "vtick", "simgrid");
// Set before the actors are created, once per SimGrid engine.
void set_step_scheduler(StepScheduler s);
StepScheduler step_scheduler();
// SimGrid options from the environment, VTICK_SG_CFG="KEY:VALUE ..." (space-separated), for
// every engine of the process, e.g. contexts/factory:thread under AddressSanitizer (make
// test-sanitize); each becomes --cfg=KEY:VALUE on the engine's command line.
std::vector<std::string> simgrid_env_cfg();
// Called as the model's clock moves (progress lines).
void set_time_hook(std::function<void(sim_ns)> fn);

namespace detail {  // now()'s clock, read inline: the model asks for it millions of times a simulated second
extern bool g_own_on;     // run.scheduler = vtick
extern sim_ns g_own_now;  // the vtick scheduler's clock (core/own_queue.cpp)
sim_ns sg_now();          // the simgrid scheduler's: SimGrid's clock plus the running actor's lag
}  // namespace detail
// The calling actor's time in model nanoseconds (see run_ahead()).
inline sim_ns now() { return detail::g_own_on ? detail::g_own_now : detail::sg_now(); }
sim_ns engine_clock();  // SimGrid's clock in ns, outside an actor (after Engine::run)

// Runs `body` as an actor on `host`: a SimGrid actor under the simgrid scheduler, a fiber
// (with a stack of contexts/stack-size) under the vtick one. An exception escaping the
// body does not abort the process: it is recorded as the run's failure and the
// simulation stops.
// An observer (first_at_ties) acts before the others due at the same instant under the
// vtick scheduler: the run's snapshots are taken at the start of their nanosecond.
void spawn_actor(const std::string& name, simgrid::s4u::Host* host, std::function<void()> body, bool first_at_ties = false);
void fail_simulation(const std::string& message);  // from inside an actor
bool simulation_failed();
const std::string& failure_message();

// Ending a run. SimGrid 3.32 cannot kill an actor blocked in Activity::wait_any on an
// Exec ("The Impossible Did Happen"), so actors are never killed: request_stop() rings
// every doorbell, and each blocking call below then unwinds its actor by throwing
// SimulationEnd, which spawn_actor() catches. Call it from an actor.
struct SimulationEnd {};
void request_stop();
// Clears the previous run's stop, failure, clock and counts (set_step_scheduler() calls it
// at each run's start).
void reset_run_state();
bool stop_requested();
// Spawns an actor at the current time that calls request_stop() (for use from main).
void stop_all_actors(simgrid::s4u::Host* any_host);

// SimGrid reports a deadlock (every actor blocked, nothing scheduled) and returns from
// run_until() as if all were well; this turns its report into a flag.
void watch_for_deadlock();
bool deadlock_detected();

enum class Woken { WorkDone, Bell, Deadline };
class Doorbell;
namespace own {
struct Bell {  // a doorbell under the vtick scheduler (core/own_queue.hpp); its owner is the Doorbell's
  bool rung = false;
};
}  // namespace own
Woken wait_event(Doorbell& bell, const simgrid::s4u::ExecPtr& work, sim_ns deadline);

// A notification line into one actor (the "interrupt pin" of a hardware thread):
// any actor may ring it; its owner waits on it together with work and a deadline.
// Rings coalesce until the owner has seen them, like a level-triggered pin.
class Doorbell {
 public:
  explicit Doorbell(const std::string& name);
  ~Doorbell();
  Doorbell(const Doorbell&) = delete;
  Doorbell& operator=(const Doorbell&) = delete;
  void ring();
  // Another actor changed the owner's state without ringing: the owner's local stretch
  // (if any) ends. Lets the clock catch up first, as ring() does.
  void revoke_promise();
  // The calling actor owns it from now (wait_event() claims it too).
  void claim();

 private:
  friend Woken wait_event(Doorbell& bell, const simgrid::s4u::ExecPtr& work, sim_ns deadline);
  friend bool wait_timed_work(Doorbell& bell, simgrid::s4u::Host* host, sim_ns& left, sim_ns deadline);
  simgrid::s4u::Mailbox* mb_;
  simgrid::s4u::CommPtr* get_;  // the owner's pending receive
  void* slot_ = nullptr;
  bool rung_ = false;      // rung since the owner last saw it
  bool received_ = false;  // ... and the owner's receive has completed
  sim_ns due_ = 0;         // the (earliest) ring's time
  long owner_ = -1;        // pid of the actor that waits on it
  own::Bell own_;          // its state under the vtick scheduler
  static int token_;
};

// Blocks the calling (owner) actor until `work` (may be null) completes, the doorbell
// rings or the clock reaches `deadline` (KTIME_MAX: none). Work keeps running in the
// background after a Bell or Deadline return; the caller cancels it (keeping
// work_remaining()) and starts the rest anew. (Exec::suspend()/resume() are not used:
// in SimGrid 3.32 a suspended and resumed Exec was seen never to complete.)
Woken wait_event(Doorbell& bell, const simgrid::s4u::ExecPtr& work, sim_ns deadline);
Woken wait_event(Doorbell& bell, sim_ns deadline);  // no work in flight

// Work of `ns` nominal nanoseconds on `host`, started now.
simgrid::s4u::ExecPtr start_work(simgrid::s4u::Host* host, sim_ns ns);
sim_ns work_remaining(const simgrid::s4u::ExecPtr& work);  // nominal ns left
bool work_done(const simgrid::s4u::ExecPtr& work);
void work_cancel(const simgrid::s4u::ExecPtr& work);
// Runs `ns` of work to completion on `host` (no interruption).
void execute(simgrid::s4u::Host* host, sim_ns ns);

// Short work is timed at the host's speed when it starts, as a plain wait, instead of a
// SimGrid Exec (about a third of the events). Its only approximation: a speed change of
// the SMT sibling in the middle of it is not seen. 0 disables it. (The vtick scheduler
// times all work exactly, at no extra cost: fast_work_ns() is 0 there.)
void set_fast_work_ns(sim_ns ns);
sim_ns fast_work_ns();
// The wall duration of `ns` nominal ns on `host` at its current speed.
sim_ns work_duration(simgrid::s4u::Host* host, sim_ns ns);
void sleep_until(sim_ns t);

// Work on a host whose speed cannot change while it runs (a hardware thread without an
// SMT sibling) timed as a wait on the doorbell and the deadline, without a SimGrid Exec:
// true when it completed, else `left` is the nominal ns still to run. Off: callers use an
// Exec (the reference).
void set_timed_work(bool on);
bool timed_work();
// Whether work on a hardware thread (with or without an SMT sibling) is timed as a wait:
// always under the vtick scheduler, else timed_work() on a thread without a sibling.
bool work_is_timed(bool smt_sibling);
// A hardware thread's speed from now (its SimGrid pstate: its SMT sibling's activity).
void set_host_pstate(simgrid::s4u::Host* host, unsigned long pstate);
bool wait_timed_work(Doorbell& bell, simgrid::s4u::Host* host, sim_ns& left, sim_ns deadline);

// Running ahead (conservative lookahead): an actor whose next short step cannot be
// interrupted before it ends moves its own time on without a SimGrid event, when no other
// actor can wake before the step's end (their deadlines, work and rings are tracked), and
// never more than `quantum` ahead of the clock. Its next blocking call lets the clock
// catch up. 0 disables it.
void set_quantum_ns(sim_ns ns);
sim_ns quantum_ns();
bool run_ahead(sim_ns ns);  // true: the caller's time moved on by ns
// Local stretches: conservative lookahead that survives several busy actors. An actor
// promises that until `t` it reads and writes only its own state (a vCPU running one task
// through a private lock and sched_yield(): guest/task_program.cpp). While it sleeps at
// the end of an earlier short step, the others may run ahead up to `t`. A stretch ends
// when the actor wakes at or past `t`, or when another actor changes its state: a ring,
// or Doorbell::revoke_promise() (the guest's remote run-queue, lock and flag writes).
// On with run.quantum > 0; the guest makes no promise while tracing (events of different
// actors would come out of time order). Results are those of a run without them, up to
// the order of simultaneous events (tests/test_scenarios.cpp).
bool local_stretches();
void promise_local_until(sim_ns t);  // no-op when off or t <= now()
bool in_local_stretch();
// A check: shared state touched inside a stretch fails the run (WARN_ON).
void broke_local_stretch(const char* what);

// Lets the clock catch up with the calling actor. No other actor acts meanwhile (none
// can wake before the actor's time), so it may be called anywhere; needed before a
// change SimGrid applies at the clock's time (a host's speed).
void sync_lag();

const SgEventCounts& sg_event_counts();
// For that count (vtick scheduler): the running actor's next blocking call is a step
// whose continuation runs host code only. It changes nothing that runs.
void next_step_host_only();

}  // namespace vtick
