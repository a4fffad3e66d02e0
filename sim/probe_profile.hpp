// A vtick-probe profile (probe/, docs/probe.md) read for vtick calibrate: the guest's
// shape as the profile's environment says it, and the figures vtick can compute itself,
// each with the vtick scenario that repeats its experiment.
#pragma once
#include <string>
#include <vector>

#include "core/time.hpp"
#include "sim/simulation.hpp"

namespace vtick {

// One experiment of the probe that vtick repeats (the same threads, sleeps and pinning).
enum class ProbeExperiment {
  ExitCost,    // CPUID minus getppid(): a null exit's round trip (no scenario: one exit)
  Pingpong,    // futex round trip between cpu_a and cpu_b, back to back
  FutexWake,   // the waker's FUTEX_WAKE of a task blocked on the idle cpu_b (`arg`: the sleep before)
  WakeSpin,    // round trip after the server's vCPU idled `arg` (the client spins)
  WakeSleep,   // the same with the client sleeping (both vCPUs idle)
  TimerIdle,   // clock_nanosleep(arg) overshoot on an idle vCPU, slack `slack`
  TimerBusy,   // the same beside a spinning task
  IrqRate,     // an interrupt or halt rate of one vCPU over one of the windows below
};

// irq_rates' windows: every vCPU idle (vCPU 0 read), vCPU 1 busy (read), vCPU 0 beside it.
enum class IrqWindow { Idle, Busy, IdleBesideBusy };

struct ProbeFigure {
  std::string id;  // "pingpong", "futex_wake.remote", "wake_spin.1ms", "timer_idle.slack1.100us", ...
  ProbeExperiment exp = ProbeExperiment::ExitCost;
  sim_ns arg = 0;    // gap or sleep length
  sim_ns slack = 0;  // timer slack of the sleeping task
  double value = 0;  // the measured p50, ns
  double rel_sigma = 0;  // the p50's relative uncertainty: spread / sqrt(n), with a floor
  int n = 0;
  bool fit = true;  // in the fit set of --check (false: held back and predicted)
  // compared only, never fitted: a figure of the guest rather than its host (irq_rates:
  // an idle guest's interrupts are its own timers', the background preset's business)
  bool compared = false;
  std::string unit = "ns";  // "ns", or "/s" for a rate
  IrqWindow window = IrqWindow::Idle;
  std::string counter;  // IrqRate: vtick's per-vCPU counter ("irqs.local_timer")
};

struct Profile {
  std::string path;
  std::string isa;       // "x86_64" | "arm64"
  std::string arch;      // vtick's host CPU model for the vendor
  std::string vendor, cpu_name, kernel, started;
  int cores = 0, threads_per_core = 1;
  int hz = 0;            // 0: not in the profile
  std::string hz_from;   // where hz came from
  std::string cpuidle_driver;  // none | haltpoll
  std::string cmdline_tokens;  // guest.cmdline vtick understands (haltpoll.*, nohz=, nohz_full=)
  bool mds_affected = true, l1tf_affected = true;
  // The guest's own speed (figures.exit_cost, p50 ns; 0: not in the profile): written into
  // the scenario's [guest.costs] as measured, never fitted.
  double syscall_ns = 0, sched_yield_ns = 0, sched_yield_switch_ns = 0;
  double futex_wake_local_ns = 0;  // figures.futex_wake.local_ns: a wake-up on the waker's CPU
  // figures.futex_wake.local_hot_ns / local_nobody_ns: FUTEX_WAKE in a same-CPU ping-pong,
  // waking the other thread / nobody (0: not in the profile)
  double futex_wake_hot_ns = 0, futex_wake_nobody_ns = 0;
  std::vector<std::string> notes;  // assumptions, printed and written into the scenario
  std::vector<ProbeFigure> figures;
};

// Reads and checks a profile (schema vtick-probe/1); InputError names the file and key.
Profile load_profile(const std::string& path);

// The scenario of the calibrated VM (no [workload]: the user's run adds one).
std::string profile_base_toml(const Profile& p);
// What repeats `f`'s experiment on `base` (as profile_base_toml writes it): the full
// scenario text and the keys set on top of it (the task's timer slack).
struct ProbeRun {
  std::string toml;
  std::vector<std::string> sets;
};
ProbeRun figure_run(const std::string& base, const ProbeFigure& f);
std::vector<std::string> figure_sets(const ProbeFigure& f);  // figure_run's sets alone
// The figure computed from a run (NaN if it measured no op).
double figure_value(const ProbeFigure& f, const RunResult& r);

// An IrqRate figure's place in a profile: figures.irq_rates.<window>.<rate>
// ("idle_beside_busy", "loc_per_s").
struct IrqRatePath {
  std::string window, rate;
};
IrqRatePath irq_rate_path(const ProbeFigure& f);

// The catalogue of figures a profile can carry, in a fixed order (ids as above).
std::vector<ProbeFigure> probe_figure_catalogue();

}  // namespace vtick
