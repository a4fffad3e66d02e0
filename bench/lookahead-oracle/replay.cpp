// Not kernel code: replays a step trace of bench/lookahead-oracle/instrument.patch (see run.sh).
// Replays a step trace (pid start cpu[h] obj[rw]...; h: the step runs host code only) and counts the
// hand-offs if each actor could run its next step ahead of other actors' earlier steps whenever the two
// touch no common object with a write. Mode "all": every step conflicts (the run as it was); "host":
// only host-only steps may run ahead (a lookahead over host-level interactions); default: every step.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>
struct Obj { int id; bool w; };
struct Step { long pid; long long t; std::vector<Obj> objs; };
static bool conflict(const Step& a, const Step& b) {
  for (const Obj& x : a.objs) for (const Obj& y : b.objs) if (x.id == y.id && (x.w || y.w)) return true;
  return false;
}
int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: replay STEPS [all|host]\n");
    return 2;
  }
  bool all = argc > 2 && !strcmp(argv[2], "all"), host = argc > 2 && !strcmp(argv[2], "host");
  FILE* f = fopen(argv[1], "r");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  std::vector<Step> st; char line[4096];
  while (fgets(line, sizeof line, f)) {
    Step s; int cpu; int n = 0; char* p = line;
    if (sscanf(p, "%ld %lld %d%n", &s.pid, &s.t, &cpu, &n) < 3) continue;
    p += n;
    bool host_only = *p == 'h';
    if (host_only) ++p;
    s.objs.push_back({cpu >= 0 ? cpu : 10000 + (int)s.pid, true});
    int id; char rw;
    while (sscanf(p, " %d%c%n", &id, &rw, &n) == 2) { s.objs.push_back({id, rw == 'w'}); p += n; }
    if (all || (host && !host_only)) s.objs.push_back({99999, true});
    st.push_back(std::move(s));
  }
  long maxpid = 0; for (auto& s : st) if (s.pid > maxpid) maxpid = s.pid;
  std::vector<std::vector<long>> q(maxpid + 1); for (long i = 0; i < (long)st.size(); ++i) q[st[i].pid].push_back(i);
  std::vector<size_t> ptr(maxpid + 1, 0);
  std::set<std::pair<long long, long>> next;  // (time, index) of each actor's next step
  for (long a = 0; a <= maxpid; ++a) if (!q[a].empty()) next.insert({st[q[a][0]].t, q[a][0]});
  long cur = -1, handoffs = 0, executed = 0, ahead = 0;
  auto exec = [&](long a) {
    long i = q[a][ptr[a]];
    next.erase({st[i].t, i});
    ++ptr[a]; ++executed;
    if (ptr[a] < q[a].size()) next.insert({st[q[a][ptr[a]]].t, q[a][ptr[a]]});
  };
  while (!next.empty()) {
    if (cur >= 0 && ptr[cur] < q[cur].size()) {
      long si = q[cur][ptr[cur]]; const Step& s = st[si];
      bool ok = true;
      for (auto it = next.begin(); ok && it != next.end() && (it->first < s.t || (it->first == s.t && it->second < si)); ++it) {
        long b = st[it->second].pid; if (b == cur) continue;
        for (size_t k = ptr[b]; k < q[b].size(); ++k) {
          const Step& u = st[q[b][k]];
          if (u.t > s.t || (u.t == s.t && q[b][k] > si)) break;
          if (conflict(s, u)) { ok = false; break; }
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
  printf("steps %ld hand-offs %ld (%.1f %%), steps run ahead of an earlier step %ld\n", executed, handoffs, 100.0 * handoffs / executed, ahead);
}
