// Not kernel code: replays a step trace of bench/lookahead-oracle/instrument.patch (see run.sh).
// A line per step, in the order the steps ran: actor, start (ns), its vCPU (-1: none), "h" when the
// step runs host code only, then the objects it touched besides its own ("<id>r" / "<id>w"). A vCPU's
// own objects: its guest CPU (id) and its host side (100000 + id: inflight interrupts, its thread);
// a host-only step writes only the host side. Counts the hand-offs if each actor could run its next
// step ahead of other actors' earlier steps whenever the two share no object that one of them writes
// (control goes to the earliest step otherwise). Modes: "all": no step runs ahead (every step
// conflicts: the run as it was); "host": only host-only steps may (a lookahead over host-level
// interactions); default: any step may. Then optionally classes of objects to leave out (as if
// their accesses never conflicted: which shared state costs the most hand-offs): cpus (other CPUs'
// guest state), hosts (other vCPUs' host side), nohz (1001), jiffies (1000), tick_cpu (1002),
// overload (1003), futex. (Leaving most of them out is slow: the actors run far ahead, and each
// step is checked against all the earlier steps it passes.)
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>
struct Obj {
  long id;
  bool w;
};
struct Step {
  long pid;
  long long t;
  bool host_only;
  std::vector<Obj> objs;
};
static bool conflict(const Step& a, const Step& b) {
  for (const Obj& x : a.objs)
    for (const Obj& y : b.objs)
      if (x.id == y.id && (x.w || y.w)) return true;
  return false;
}
int main(int argc, char** argv) {
  const char* usage = "usage: replay STEPS [all|host|any] [cpus|hosts|nohz|jiffies|tick_cpu|overload|futex ...]\n";
  if (argc < 2 || (argc > 2 && strcmp(argv[2], "all") && strcmp(argv[2], "host") && strcmp(argv[2], "any"))) {
    std::fprintf(stderr, "%s", usage);
    return 2;
  }
  const bool all = argc > 2 && !strcmp(argv[2], "all"), host = argc > 2 && !strcmp(argv[2], "host");
  // the classes left out: object id ranges [lo, hi)
  std::vector<std::pair<long, long>> ignored;
  for (int i = 3; i < argc; ++i) {
    const std::string c = argv[i];
    if (c == "cpus") ignored.push_back({0, 1000});
    else if (c == "hosts") ignored.push_back({100000, 200000});
    else if (c == "jiffies") ignored.push_back({1000, 1001});
    else if (c == "nohz") ignored.push_back({1001, 1002});
    else if (c == "tick_cpu") ignored.push_back({1002, 1003});
    else if (c == "overload") ignored.push_back({1003, 1004});
    else if (c == "futex") ignored.push_back({200000, 2000000});
    else {
      std::fprintf(stderr, "replay: unknown class %s\n%s", argv[i], usage);
      return 2;
    }
  }
  auto left_out = [&](long id) {
    for (const auto& r : ignored)
      if (id >= r.first && id < r.second) return true;
    return false;
  };
  std::ifstream in(argv[1]);
  if (!in) {
    std::perror(argv[1]);
    return 2;
  }
  std::vector<Step> st;
  std::string line;
  long lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    Step s{};
    std::string cpu, o;
    if (!(ls >> s.pid >> s.t >> cpu) || cpu.empty()) {
      std::fprintf(stderr, "%s:%ld: not a step line\n", argv[1], lineno);
      return 2;
    }
    s.host_only = cpu.back() == 'h';
    long c = std::stol(s.host_only ? cpu.substr(0, cpu.size() - 1) : cpu);
    if (c < 0) s.objs.push_back({10000 + s.pid, true});  // an actor that is no vCPU: its own state
    else {
      s.objs.push_back({100000 + c, true});
      if (!s.host_only) s.objs.push_back({c, true});
    }
    while (ls >> o) {
      if (o.size() < 2 || (o.back() != 'r' && o.back() != 'w')) {
        std::fprintf(stderr, "%s:%ld: bad object %s\n", argv[1], lineno, o.c_str());
        return 2;
      }
      long id = std::stol(o.substr(0, o.size() - 1));
      if (!left_out(id)) s.objs.push_back({id, o.back() == 'w'});
    }
    st.push_back(std::move(s));
  }
  long maxpid = 0;
  for (const Step& s : st) maxpid = std::max(maxpid, s.pid);
  std::vector<std::vector<long>> q(static_cast<std::size_t>(maxpid) + 1);
  for (long i = 0; i < static_cast<long>(st.size()); ++i) q[static_cast<std::size_t>(st[i].pid)].push_back(i);
  std::vector<std::size_t> ptr(q.size(), 0);
  std::set<std::pair<long long, long>> next;  // (start, index) of each actor's next step
  for (const auto& a : q)
    if (!a.empty()) next.insert({st[a[0]].t, a[0]});
  long cur = -1, handoffs = 0, executed = 0, ahead = 0;
  auto exec = [&](long a) {
    auto& p = ptr[static_cast<std::size_t>(a)];
    const auto& qa = q[static_cast<std::size_t>(a)];
    next.erase({st[qa[p]].t, qa[p]});
    ++p;
    ++executed;
    if (p < qa.size()) next.insert({st[qa[p]].t, qa[p]});
  };
  auto earlier = [&](long long t, long i, long long t2, long i2) { return t < t2 || (t == t2 && i < i2); };
  while (!next.empty()) {
    const auto& qc = cur >= 0 ? q[static_cast<std::size_t>(cur)] : q[0];
    if (cur >= 0 && ptr[static_cast<std::size_t>(cur)] < qc.size()) {
      long si = qc[ptr[static_cast<std::size_t>(cur)]];
      const Step& s = st[si];
      bool ok = !all && !(host && !s.host_only);
      // every other actor's steps before s must share nothing written with it
      for (auto it = next.begin(); ok && it != next.end() && earlier(it->first, it->second, s.t, si); ++it) {
        long b = st[it->second].pid;
        if (b == cur) continue;
        const auto& qb = q[static_cast<std::size_t>(b)];
        for (std::size_t k = ptr[static_cast<std::size_t>(b)]; k < qb.size() && earlier(st[qb[k]].t, qb[k], s.t, si); ++k)
          if (conflict(s, st[qb[k]])) {
            ok = false;
            break;
          }
      }
      if (ok) {
        if (next.begin()->second != si) ++ahead;
        exec(cur);
        continue;
      }
    }
    long b = st[next.begin()->second].pid;
    if (b != cur) ++handoffs;
    cur = b;
    exec(cur);
  }
  std::printf("steps %ld hand-offs %ld (%.1f %%), steps run ahead of an earlier step %ld\n", executed, handoffs,
              executed ? 100.0 * static_cast<double>(handoffs) / static_cast<double>(executed) : 0.0, ahead);
}
