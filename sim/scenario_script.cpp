// [[workload.task]] tables of workload.kind = "script": the task programs, checked line by
// line (guest/workloads.cpp parses each phase).
#include "sim/scenario_script.hpp"

#include <sstream>

#include "core/param.hpp"
#include "sim/scenario.hpp"

namespace vtick {

namespace {
[[noreturn]] void fail(const std::string& where, const std::string& msg) { throw InputError(where + ": " + msg); }
}  // namespace

std::vector<ScriptTask> parse_script_tasks(const toml::node& node, const std::string& file) {
  std::vector<ScriptTask> tasks;
  auto at = [&](const toml::node& n) {
    return file + ":" + std::to_string(n.source().begin.line) + ":" + std::to_string(n.source().begin.column);
  };
  const toml::array* arr = node.as_array();
  if (!arr || !arr->is_array_of_tables()) fail(at(node), "workload.task: expected [[workload.task]] tables");
  for (const toml::node& tn : *arr) {
    const toml::table& t = *tn.as_table();
    ScriptTask st;
    st.where = at(tn);
    for (auto&& [k, v] : t) {
      std::string key(k.str());
      std::string w = at(v);
      if (key == "name" && v.is_string()) st.name = v.as_string()->get();
      else if (key == "cpus" && v.is_string()) {
        if (!parse_cpulist(v.as_string()->get(), 64, st.cpus)) fail(w, "workload.task.cpus: a cpulist like \"0-1\"");
      } else if (key == "count" && v.is_integer()) {
        std::int64_t n = v.as_integer()->get();  // checked before narrowing: 2^32 + 1 read as 1
        if (n < 1 || n > 1024) fail(w, "workload.task.count: allowed 1 .. 1024");
        st.count = static_cast<int>(n);
      } else if (key == "program" && v.is_array()) {
        bool takes_time = false;  // lock, unlock, loop and mark can take no time at all (a user-space CAS)
        bool marked = false;
        std::string last;
        for (const toml::node& line : *v.as_array()) {
          if (!line.is_string()) fail(at(line), "workload.task.program: each phase is a string, e.g. \"run 100us\"");
          std::string err = check_script_phase(line.as_string()->get());
          if (!err.empty()) fail(at(line), "workload.task.program: " + err);
          std::istringstream words(line.as_string()->get());
          std::string op;
          long target = -1;
          words >> op;
          if (op == "loop" && st.program.empty())
            fail(at(line), "workload.task.program: '" + line.as_string()->get() + "': a loop cannot be the first phase");
          // (check_script_phase() above took the target as a whole integer)
          if (op == "loop" && words >> target && target >= static_cast<long>(st.program.size()))
            fail(at(line), "workload.task.program: '" + line.as_string()->get() + "': a loop jumps back to an earlier phase, 0 .. " +
                               std::to_string(static_cast<long>(st.program.size()) - 1));
          st.program.push_back(line.as_string()->get());
          if (op != "lock" && op != "unlock" && op != "loop" && op != "mark") takes_time = true;
          if (op == "mark") marked = true;
          last = op;
        }
        // the op a mark starts ends at the program's end: there must be one, after it
        if (marked && (last == "mark" || last == "exit"))
          fail(at(v), "workload.task.program: 'mark' starts the op that the end of the program finishes: it needs phases "
                      "after it, and a program that ends in 'exit' has no end to finish it");
        if (!st.program.empty() && !takes_time)
          fail(at(v), "workload.task.program: only lock, unlock and loop phases: the task would spin without time "
                      "passing; add a run, sleep, wait, wake, yield, io, net or exit phase");
      } else {
        fail(w, "workload.task." + key + ": unknown or mistyped; keys: name (string), cpus (cpulist string), count (integer), "
                "program (array of strings)");
      }
    }
    if (st.name.empty()) fail(st.where, "workload.task: needs a name");
    if (st.program.empty()) fail(st.where, "workload.task: needs a program");
    tasks.push_back(st);
  }
  return tasks;
}

}  // namespace vtick
