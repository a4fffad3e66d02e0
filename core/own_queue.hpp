// Not kernel code: vtick's own event queue and its actors (run.scheduler = vtick).
// Internal to core/sg.cpp. The actors' code blocks in the calls of core/sg.hpp as under the
// simgrid scheduler, but each actor is a fiber (core/fiber.hpp) inside one SimGrid actor, and
// time and the choice of who runs next are vtick's: exactly one actor runs at a time, the
// one whose next event is earliest (ties: observers, then the one queued last, as
// SimGrid's scheduler gives statistically), and control passes to another actor (a jump
// to its stack) only when the next event is that actor's. A step whose next event is the
// running actor's own costs no switch at all.
// Work in flight is timed here too: its end follows its hardware thread's speed, which
// changes with the SMT sibling's activity class (the rule the SimGrid platform's pstates
// encode: platform/hw_thread.cpp), and is shared equally by the works on one thread, as
// SimGrid's CPU model shares a host.
#pragma once
#include <cstdint>
#include <functional>

#include <simgrid/forward.h>

#include "core/sg.hpp"

namespace vtick::own {

// A new engine: every slot, the queue and the clock start afresh.
void reset();
sim_ns now();

struct HostRate;
// Nominal work in flight on a hardware thread; removed from it when destroyed.
struct Work {
  HostRate* host = nullptr;
  double left = 0;      // nominal ns still to run, as of `since`
  sim_ns since = 0;
  sim_ns end = KTIME_MAX;  // when it completes at the thread's current rate
  long pid = -1;
  Work() = default;
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;
  ~Work();
};

// A new actor, runnable from `at`: a fiber on a stack of its own (core/fiber.hpp). The first
// one of an engine also creates the run's one SimGrid actor, on `host`, which runs them.
void spawn(std::function<void()> body, simgrid::s4u::Host* host, sim_ns at, bool first_at_ties, std::size_t stack_bytes);
long running();  // the id of the actor that holds control; -1: none (the SimGrid actor itself)

// Blocks the running actor until its work ends, its bell rings or `deadline`, whichever
// is first (work before bell before deadline at the same instant). Null bell / work: none.
Woken wait(Bell* bell, Work* work, sim_ns deadline);
void ring(Bell& b, long owner);  // owner: the actor that waits on it (Doorbell::owner_)

void work_start(Work& w, simgrid::s4u::Host* host, sim_ns nominal);
// The common case of work_start() + wait() + work_stop() without them: `nominal` ns alone on
// its hardware thread (so at its speed now, which only another actor can change), ending
// before `deadline`, any ring of `bell` and any other actor's next event. Then the clock
// moves to its end and true; else nothing happens and false.
bool complete_alone(simgrid::s4u::Host* host, sim_ns nominal, const Bell* bell, sim_ns deadline);
sim_ns work_stop(Work& w);  // the nominal ns it had left (0 when it completed)
// The hardware thread's speed (SimGrid pstate index) from now: settles and re-times its works.
void set_pstate(simgrid::s4u::Host* host, unsigned long pstate);
double speed(simgrid::s4u::Host* host);  // nominal ns of work per ns, times 1e9

std::uint64_t handoffs();  // times control passed to another actor (each one jump between fibers)
std::uint64_t run_aheads();  // steps a local stretch took past other actors' entries

// Local stretches (core/sg.hpp promise_local_until()): the running actor's promise, and
// another actor's revoked when its state is written.
void promise_local(sim_ns t);
sim_ns promise_of_running();
void clear_promise_of_running();
void revoke(long pid);
void set_time_hook(std::function<void(sim_ns)> fn);  // called as the clock moves
bool deadlocked();

}  // namespace vtick::own
