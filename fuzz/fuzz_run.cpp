// Fuzz target, end to end: a scenario that validates runs for 1 ms of simulated time in a
// child process (SimGrid's engine is one per process) and must end cleanly: a failed run
// (a WARN_ON, a broken invariant, an exception) or a signal is a crash.
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/fuzz_input.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = vtick::fuzz::as_file(data, size, ".run.toml");
  vtick::Scenario sc;
  try {
    sc = vtick::load_scenario(path, {"run.duration=1ms", "run.warmup=0ns"});
  } catch (const vtick::InputError&) {
    return 0;
  }
  pid_t pid = fork();
  if (pid == 0) {
    alarm(20);  // a hang: SIGALRM, reported below
    // AddressSanitizer follows actors on threads only (SimGrid's raw contexts switch stacks
    // behind its back: false stack-use-after-scope reports)
    vtick::SimHooks hooks;
    hooks.sg_cfg = {"contexts/factory:thread"};
    vtick::RunResult r = vtick::run_simulation(sc, hooks);
    _exit(r.failed && !r.input_error ? 3 : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) std::abort();
  return 0;
}
