// Test helpers: scenarios from inline TOML, event recording, running the CLI.
#pragma once
#include <string>
#include <vector>

#include "core/trace.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace vtick::test {

// Writes `toml` to a temporary file and loads it with `sets` applied.
Scenario scenario(const std::string& toml, const std::vector<std::string>& sets = {});

struct Recorder : EventSink {
  std::vector<ModelEvent> events;
  void on_event(const ModelEvent& e) override { events.push_back(e); }
  std::vector<ModelEvent> on_cpu(int cpu) const;
};

struct CliResult {
  int status;
  std::string output;  // stdout and stderr together
};
// `cmd` through the shell (popen): its exit status and its stdout.
CliResult shell(const std::string& cmd);
// A bare SimGrid engine's command line: the program name and VTICK_SG_CFG's options
// (core/sg.hpp simgrid_env_cfg(): thread contexts under make test-sanitize).
struct EngineArgs {
  std::vector<std::string> words;
  std::vector<char*> argv;
  int argc = 0;
  EngineArgs();
};
// An object that must outlive the SimGrid engine (its actors may still hold it at exit):
// never freed, and held where LeakSanitizer sees it (make test-sanitize).
void* keep_alive_raw(void* p);
template <class T>
T& keep_alive(T* p) {
  keep_alive_raw(p);
  return *p;
}
// hooks.vm_setup: a device interrupt posted to vCPU `vcpu` at `at` (kvm_apic_accept_irq()).
void device_irq_at(SimHooks& hooks, int vcpu, sim_ns at);
// The files of `dir` whose names end in `suffix`, as dir/name, sorted.
std::vector<std::string> files_ending(const std::string& dir, const std::string& suffix);
CliResult run_cli(const std::string& args, const std::vector<std::string>& env = {});  // runs the vtick binary (env: NAME=VALUE)
// The same with stdout apart: `output` is stdout only, `err` gets stderr.
CliResult run_cli_apart(const std::string& args, std::string& err);
std::string read_file(const std::string& path);
std::string temp_path(const std::string& name);

}  // namespace vtick::test
