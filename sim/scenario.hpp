// Scenario files: TOML in, every key validated, one fully resolved configuration out.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/param.hpp"
#include "core/sg.hpp"
#include "core/time.hpp"
#include "guest/params.hpp"
#include "guest/workloads.hpp"
#include "host/kvm_params.hpp"
#include "platform/arch.hpp"
#include "platform/shapes.hpp"

namespace vtick {

// Bad input (file, key, value): the CLI reports it and exits with status 2. The message
// quotes what the user gave, which may hold a NUL or another control character: those are
// written as escapes (\0, \x1b), so what() (a C string) is never cut and prints cleanly.
std::string printable_message(const std::string& s);
struct InputError : std::runtime_error {
  explicit InputError(const std::string& what) : std::runtime_error(printable_message(what)) {}
  explicit InputError(const char* what) : std::runtime_error(printable_message(what)) {}
};

// [platform]: the keys as written; the loader resolves the shape into Scenario::shape.
#define VTICK_PLATFORM_PARAMS(P)                                                                                     \
  P(std::string, shape, ".shape", Text, "VM.Standard2.1", kNoMin, kNoMax, "", "the report's x86 shape (domain/mission.md)", \
    "shape from the catalog (vtick list shapes), or generic")                                                        \
  P(std::string, arch, ".arch", Text, "skylake-sp", kNoMin, kNoMax, "", "platform/arch.cpp",                         \
    "host CPU model and its cost table (generic shape only; a catalog shape fixes it)")                             \
  P(int, cores, ".cores", Int, 1, 1, 256, "count", "", "host cores (generic shape only)")                           \
  P(int, threads_per_core, ".threads_per_core", Int, Def::derived("2 when the CPU model has SMT, else 1"), 1, 2, "count", "", \
    "SMT threads per core (generic shape only)")                                                                     \
  P(int, vcpus, ".vcpus", Int, Def::derived("every hardware thread of the shape"), 1, 512, "count", "",              \
    "vCPUs, each pinned to a hardware thread")
struct PlatformSpec {
  VTICK_PARAMS(PlatformSpec, VTICK_PLATFORM_PARAMS);
};

#define VTICK_RUN_PARAMS(P)                                                                                          \
  P(sim_ns, duration, ".duration", Duration, 1000000000LL, 1000, 3600e9, "ns", "", "simulated time")               \
  P(sim_ns, warmup, ".warmup", Duration, 0, 0, 3600e9, "ns", "", "simulated time before measuring")                 \
  P(std::uint64_t, seed, ".seed", Int, 1, 0, 9.0e15, "", "", "seed of every random stream")                         \
  P(sim_ns, fast_work, ".fast_work", Duration, 2000, 0, 10000, "ns",                                               \
    "an approximation on SMT threads: an SMT sibling's speed change inside the step is missed (OLTP on VM.Standard2.1: transactions/s -0.5 %, docs/performance.md)", \
    "simgrid scheduler: work up to this long is timed as a wait at the speed it starts with, not a SimGrid Exec (0: always Exec); the vtick scheduler times all work exactly")                                 \
  P(bool, timed_work, ".timed_work", Bool, true, kNoMin, kNoMax, "", "results do not depend on it (tests/test_scenarios.cpp)", \
    "simgrid scheduler: work on a hardware thread without an SMT sibling (its speed cannot change) is timed as a wait, not a SimGrid Exec (false: an Exec)") \
  P(StepScheduler, scheduler, ".scheduler", Enum, "vtick", kNoMin, kNoMax, "",                                    \
    "results do not depend on it, up to the order of simultaneous events (tests/test_scenarios.cpp, docs/performance.md)", \
    "who orders the model's steps: vtick (its own event queue, its actors fibers: a stack switch only when control passes to another actor) or simgrid (every actor a SimGrid actor, every step a SimGrid activity: the reference)") \
  P(sim_ns, quantum, ".quantum", Duration, 100000, 0, 1000000, "ns",                                              \
    "results do not depend on it, up to the order of simultaneous events (tests/test_core.cpp, tests/test_scenarios.cpp)", \
    "simgrid scheduler: short work runs ahead of the SimGrid clock without an event, never past another actor's next possible action (a vCPU in a local stretch: its promise), at most this far; both schedulers: 0 turns local stretches off")
// (the step scheduler's enum, StepScheduler, is core/sg.hpp's)
struct RunSpec {
  VTICK_PARAMS(RunSpec, VTICK_RUN_PARAMS);
};

// [ablate]: a mechanism switched off, outside the documented ranges on purpose.
#define VTICK_ABLATE_PARAMS(P)                                                                                       \
  P(bool, tick_wakeup_cost, ".tick_wakeup_cost", Bool, false, kNoMin, kNoMax, "", "",                              \
    "ablation: halting and waking a vCPU costs the host nothing")                                                   \
  P(bool, halt_polling, ".halt_polling", Bool, false, kNoMin, kNoMax, "", "", "ablation: no host halt polling")     \
  P(bool, smt, ".smt", Bool, false, kNoMin, kNoMax, "", "", "ablation: SMT siblings do not slow each other")        \
  P(bool, cstate_latency, ".cstate_latency", Bool, false, kNoMin, kNoMax, "", "", "ablation: host C-states exit instantly") \
  P(bool, load_balancing, ".load_balancing", Bool, false, kNoMin, kNoMax, "", "", "ablation: no guest load balancing") \
  P(bool, timer_write_exits, ".timer_write_exits", Bool, false, kNoMin, kNoMax, "", "",                            \
    "ablation: guest timer writes do not exit")                                                                      \
  P(bool, mitigations, ".mitigations", Bool, false, kNoMin, kNoMax, "", "", "ablation: no VM-entry mitigations")
struct AblateSpec {
  VTICK_PARAMS(AblateSpec, VTICK_ABLATE_PARAMS);
};

using ConfigScalar = PValue;

struct Scenario {
  std::string source;    // file path, or "<built-in>"
  PlatformSpec platform; // the [platform] keys, resolved
  Shape shape;
  ArchCosts costs;       // the shape's table with [host.costs] overrides
  int vcpus = 0;         // platform.vcpus
  HostParams host;
  GuestParams guest;
  WorkloadSpec workload;
  RunSpec run;
  AblateSpec ablate;
  // every key with its effective value, in declaration order, for the results manifest
  std::vector<std::pair<std::string, ConfigScalar>> resolved;
};

// Every scenario key: the declaration rows of the structs above, mounted at their
// sections ("host.kvm" + ".halt_poll_ns"). [workload] keys of each kind come from
// workload_kinds_table().
const ParamTable<Scenario>& scenario_params();
const Param<Scenario>* find_scenario_param(const std::string& key);

// Loads `path` (empty: the built-in default scenario) and applies "section.key=value"
// overrides. Throws InputError naming the file, line, key and what is allowed.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets);
// An option standing for one key (--seed: run.seed): InputError naming the option if bad.
void check_option_value(const std::string& option, const std::string& key, const std::string& value);
// InputError unless `path` is a regular file or a pipe (what: "a scenario file (...)").
void check_input_file(const std::string& path, const std::string& what);

// All accepted keys with their type and allowed values (for docs and `vtick list keys`).
std::vector<std::pair<std::string, std::string>> scenario_keys();

}  // namespace vtick
