#include "helpers.hpp"

#include "core/sg.hpp"
#include "host/kvm.hpp"

#include <algorithm>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace vtick::test {

std::string temp_path(const std::string& name) {
  return "/tmp/vtick-test-" + std::to_string(getpid()) + "-" + name;
}

Scenario scenario(const std::string& toml, const std::vector<std::string>& sets) {
  std::string path = temp_path("scenario.toml");
  {
    std::ofstream f(path);
    f << toml;
  }
  Scenario sc = load_scenario(path, sets);
  std::remove(path.c_str());
  return sc;
}

std::vector<ModelEvent> Recorder::on_cpu(int cpu) const {
  std::vector<ModelEvent> v;
  for (const auto& e : events)
    if (e.cpu == cpu) v.push_back(e);
  return v;
}

// Runs a shell command line; returns its exit status and stdout.
EngineArgs::EngineArgs() {
  words.push_back("t");
  for (const auto& c : simgrid_env_cfg()) words.push_back("--cfg=" + c);
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  argc = static_cast<int>(words.size());
}

std::vector<std::string> files_ending(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) out.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

CliResult shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

void* keep_alive_raw(void* p) {
  static std::vector<void*>* kept = new std::vector<void*>;  // reachable to the end, never destroyed
  kept->push_back(p);
  return p;
}

CliResult run_cli(const std::string& args, const std::vector<std::string>& env) {
  std::string cmd;
  for (const auto& e : env) cmd += e + " ";
  return shell(cmd + std::string(VTICK_BIN) + " " + args + " 2>&1");
}

CliResult run_cli_apart(const std::string& args, std::string& err) {
  std::string err_path = temp_path("stderr.txt");
  CliResult r = shell(std::string(VTICK_BIN) + " " + args + " 2>" + err_path);
  err = read_file(err_path);
  std::remove(err_path.c_str());
  return r;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void device_irq_at(SimHooks& hooks, int vcpu, sim_ns at) {
  hooks.vm_setup = [vcpu, at](Kvm& vm, GuestKernel&) {
    KvmVcpu* v = &vm.vcpu(vcpu);
    spawn_actor("device", vm.machine().threads[0]->host(), [v, at] {
      sleep_until(at);
      v->inject_device_irq(now());
    });
  };
}

}  // namespace vtick::test
