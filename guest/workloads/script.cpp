// Tasks written by the user in the scenario ([[workload.task]]), rt-app style: a program
// of phases per task (docs/cli.md, "Task programs").
#include "core/parse_num.hpp"
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>

#include "guest/workloads/kinds.hpp"

namespace vtick {

namespace {

struct ScriptNames {
  std::map<std::string, int> mutexes, events;
};

// A whole word as an integer in [lo, hi] (no "1e3", "x", "10abc", overflow).
bool whole_int(const std::string& s, long lo, long hi, long& out) {
  long long v = 0;
  if (!parse_int(s, lo, hi, v)) return false;
  out = static_cast<long>(v);
  return true;
}

// The phase's arguments for its op: how many it takes at least and at most.
bool arity(const std::string& op, std::size_t& lo, std::size_t& hi) {
  if (op == "run" || op == "sleep") lo = 1, hi = 2;
  else if (op == "lock" || op == "unlock" || op == "wait" || op == "wake") lo = hi = 1;
  else if (op == "loop") lo = hi = 2;
  else if (op == "yield" || op == "io" || op == "net" || op == "mark" || op == "exit") lo = hi = 0;
  else return false;
  return true;
}

Phase parse_phase(const std::string& line, GuestKernel* k, ScriptNames* names, std::string& err) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  std::string op = words.empty() ? "" : words[0], a = words.size() > 1 ? words[1] : "", b = words.size() > 2 ? words[2] : "";
  Phase p;
  std::size_t lo = 0, hi = 0;
  if (arity(op, lo, hi) && (words.size() - 1 < lo || words.size() - 1 > hi)) {
    err = "'" + line + "': " + op + " takes " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi)) +
          " argument" + (hi == 1 ? "" : "s") + ", not " + std::to_string(words.size() - 1);
    return p;
  }
  auto dur = [&](const std::string& s, sim_ns& out) {
    if (!parse_duration(s, out) || out <= 0) {
      err = "'" + line + "': '" + s + "' is not a positive duration (e.g. 100us)";
      return false;
    }
    return true;
  };
  static std::map<std::string, int> scratch;  // names when only checking
  auto name = [&](std::map<std::string, int>& m, bool mutex) {
    if (a.empty()) {
      err = "'" + line + "': needs a name";
      return -1;
    }
    if (!k) return 0;
    auto it = m.find(a);
    if (it != m.end()) return it->second;
    int id = mutex ? k->add_mutex() : k->add_event();
    m[a] = id;
    return id;
  };
  if (op == "run" || op == "sleep") {
    p.kind = op == "run" ? PhaseKind::Run : PhaseKind::Sleep;
    if (!dur(a, p.ns)) return p;
    if (!b.empty()) {
      double j = -1;
      if (!parse_number(b, j) || !(j >= 0 && j <= 1)) err = "'" + line + "': jitter must be a fraction 0 .. 1";
      p.jitter = j;
    }
  } else if (op == "lock" || op == "unlock") {
    p.kind = op == "lock" ? PhaseKind::Lock : PhaseKind::Unlock;
    p.obj = name(names ? names->mutexes : scratch, true);
  } else if (op == "wait" || op == "wake") {
    p.kind = op == "wait" ? PhaseKind::Wait : PhaseKind::Wake;
    p.obj = name(names ? names->events : scratch, false);
  } else if (op == "yield") {
    p.kind = PhaseKind::Yield;
  } else if (op == "io") {
    p.kind = PhaseKind::Io;
  } else if (op == "net") {
    p.kind = PhaseKind::Net;
  } else if (op == "mark") {
    p.kind = PhaseKind::Mark;
  } else if (op == "exit") {
    p.kind = PhaseKind::Exit;
  } else if (op == "loop") {
    p.kind = PhaseKind::Loop;
    long target = -1, count = -1;
    if (!whole_int(a, 0, 1000000, target) || !whole_int(b, 1, 1000000000, count))
      err = "'" + line + "': loop TARGET_PHASE COUNT, integers, e.g. 'loop 0 10' (COUNT 1 .. 1000000000)";
    p.obj = static_cast<int>(target);
    p.ns = count;
  } else {
    err = "'" + line + "': unknown phase; allowed: run D [jitter], sleep D [jitter], lock M, unlock M, wait E, wake E, "
                       "yield, io, net, mark, loop TARGET COUNT, exit";
  }
  return p;
}

}  // namespace

std::string check_script_phase(const std::string& line) {
  std::string err;
  parse_phase(line, nullptr, nullptr, err);
  return err;
}

namespace {
class Script final : public Workload {
 public:
  void install(GuestKernel& k, const WorkloadSpec& w, std::uint64_t) override {
    const int n = k.nr_cpus();
    ScriptNames names;
    for (const auto& st : w.script)
      for (int c = 0; c < st.count; ++c) {
        std::vector<Phase> prog;
        for (const auto& line : st.program) {
          std::string err;
          prog.push_back(parse_phase(line, &k, &names, err));
          if (!err.empty()) throw std::invalid_argument(st.where + ": " + err);
        }
        int cpu = 0;
        while (cpu < n && !((st.cpus >> cpu) & 1)) ++cpu;
        bool marked = std::any_of(prog.begin(), prog.end(), [](const Phase& p) { return p.kind == PhaseKind::Mark; });
        Task& t = add_task(k, st.count > 1 ? st.name + "-" + std::to_string(c) : st.name, prog, cpu % n, st.cpus & all_cpus(n));
        t.measure_ops = marked;  // op latency: from its mark to the program's end
      }
  }
};
}  // namespace

WorkloadKind script_kind() {
  return {WorkloadKindId::Script, "tasks written in the scenario ([[workload.task]] with name, cpus, count, program)", "loops", {},
          factory<Script>()};
}

}  // namespace vtick
