// Speed benchmark: the default scenario (2 vCPUs, HZ=1000) and the OCI shapes' workloads,
// with and without running ahead of the clock (run.quantum), next to a bare SimGrid timer
// loop measured in the same run. Prints figures; asserts nothing (speed is measured
// here, not in tests). Usage: vtick_bench [DURATION] (simulated time per row, default 10s)
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <queue>
#include <sys/mman.h>
#include <sys/resource.h>
#include <simgrid/s4u.hpp>
#include <simgrid/simix.hpp>
#include <string>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>
#include <xbt/log.h>

#include "core/fiber.hpp"
#include "sim/results.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

using namespace vtick;

namespace sg4 = simgrid::s4u;

// A bare SimGrid engine (one 1 Gflop/s host, no logging): `setup` creates the actors on the
// host; returns the wall seconds of the engine's run.
template <typename F>
static double run_bare(F setup) {
  xbt_log_control_set("root.thres:critical");
  int argc = 1;
  char a0[] = "bench";
  char* argv[] = {a0, nullptr};
  sg4::Engine e(&argc, argv);
  auto* z = sg4::create_full_zone("z");
  auto* h = z->create_host("h", 1e9);
  z->seal();
  setup(h);
  auto t0 = std::chrono::steady_clock::now();
  e.run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// 4 actors sleeping with skewed periods: one SimGrid timer event per wake-up.
static void bare_timer_loop(long events) {
  long per = events / 4;
  double wall = run_bare([per](sg4::Host* h) {
    for (int i = 0; i < 4; ++i)
      sg4::Actor::create("a" + std::to_string(i), h, [per, i] {
        double period = 1e-6 * (1.0 + 0.137 * i);
        for (long k = 0; k < per; ++k) sg4::this_actor::sleep_for(period);
      });
  });
  std::printf("bare SimGrid timer loop : %ld sleeps in %.2f s wall = %.0f events per wall second\n", per * 4, wall, per * 4 / wall);
}

// What the rows' children pass back (mmap, shared).
constexpr int kSizes[] = {1, 2, 4, 8, 16, 32, 64};  // the scaling rows' vCPUs
constexpr std::size_t kNSizes = std::size(kSizes);
struct Shared {
  double fiber_ns = 0;  // the bare fiber loop's hand-off (the hand-off floor)
  struct Row {  // the fastest of its runs: its totals (model steps, those running host code only, ...)
    int runs = 0, vcpus = 0;
    double wall_s = 0, sim_s = 0, steps = 0, handoffs = 0, host_only_steps = 0, newidle = 0;
    long actors = 0;
    double per_vcpu_s(double x) const { return sim_s > 0 && vcpus > 0 ? x / (sim_s * vcpus) : 0; }
    double share(double x) const { return steps > 0 ? 100.0 * x / steps : 0; }  // % of the steps
  } scaling[2][kNSizes];  // [two tasks per vCPU, one][size]
};
static Shared* g_shared = nullptr;
static Shared::Row* g_row_result = nullptr;  // where the current row writes its figures, quietly (null: it prints them)

// Two SimGrid actors passing control back and forth (resume the other, suspend oneself; no
// simulated time passes): the floor of one hand-off on SimGrid's public API, which the
// vtick scheduler paid before its actors became fibers.
static void bare_handoff_loop(long handoffs) {
  static int turn = 0;
  static sg4::ActorPtr actors[2];
  long per = handoffs / 2;
  double wall = run_bare([per](sg4::Host* h) {
    for (int i = 0; i < 2; ++i)
      actors[i] = sg4::Actor::create("a" + std::to_string(i), h, [per, i] {
        for (long k = 0; k < per; ++k) {
          while (turn != i) sg4::this_actor::suspend();
          turn = 1 - i;
          simgrid::kernel::actor::simcall_answered([a = actors[1 - i].get()] {
            if (a->is_suspended()) a->resume();
          });
        }
      });
  });
  std::printf("bare SimGrid hand-off loop: %ld hand-offs in %.2f s wall = %.0f per wall second (%.0f ns each)\n", per * 2,
              wall, per * 2 / wall, wall * 1e9 / static_cast<double>(per * 2));
  actors[0] = actors[1] = nullptr;
}

// Two of vtick's fibers passing control back and forth with the vtick scheduler's own switch
// (core/fiber.hpp, what own_queue.cpp's hand_to() calls): the floor of one hand-off now.
static void bare_fiber_loop(long handoffs) {
  static long left = 0;
  left = handoffs;
  fiber::reset();
  for (long i = 0; i < 2; ++i)
    fiber::create(
        [i] {
          while (--left > 0) fiber::switch_to(1 - i);
          return left == 0 ? 1 - i : fiber::kDriver;  // the first to finish lets the other end too
        },
        64 * 1024);
  auto t0 = std::chrono::steady_clock::now();
  fiber::switch_to(0);  // back when one of them ends
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("bare fiber hand-off loop: %ld hand-offs in %.3f s wall = %.0f per wall second (%.1f ns each)\n", handoffs,
              wall, handoffs / wall, wall * 1e9 / static_cast<double>(handoffs));
  g_shared->fiber_ns = wall * 1e9 / static_cast<double>(handoffs);
}

// n of vtick's fibers, each with its own period, and their next events in a
// std::priority_queue of (time, actor): the actor whose event is earliest runs it, queues its
// next one and passes control (one switch) when the earliest is then another's. What an
// event costs a bare simulator of this shape (an actor per fiber, a heap of their next
// events) with no model work: at 1 actor no event passes control and the heap holds one
// entry; with as many actors as the 64-vCPU rows nearly every event passes control.
static void bare_actors_loop(long n, long events) {
  using Ev = std::pair<double, long>;
  static std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> q;
  static long left = 0, passes = 0;
  static bool stop = false;
  static std::vector<char> ended;
  q = {};
  left = events;
  passes = 0;
  stop = false;
  ended.assign(static_cast<std::size_t>(n), 0);
  fiber::reset();
  for (long i = 0; i < n; ++i) {
    if (i > 0) q.push({0.0, i});  // every actor's first event at 0; actor 0 runs first
    fiber::create(
        [i, n] {
          double t = 0, period = 1e-6 * (1.0 + 0.137 * static_cast<double>(i));
          while (!stop) {
            if (--left < 0) {
              stop = true;
              break;
            }
            t += period;
            q.push({t, i});
            Ev e = q.top();
            q.pop();
            if (e.second != i) {
              ++passes;
              fiber::switch_to(e.second);  // back when our event is the earliest (or the loop stops)
            }
          }
          ended[static_cast<std::size_t>(i)] = 1;
          for (long j = 0; j < n; ++j)  // each one left ends in turn
            if (!ended[static_cast<std::size_t>(j)]) return j;
          return fiber::kDriver;
        },
        64 * 1024);
  }
  auto t0 = std::chrono::steady_clock::now();
  fiber::switch_to(0);  // back when every actor has ended
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double ns = wall * 1e9 / static_cast<double>(events);
  std::printf("bare %ld-actor fiber loop: %ld events in %.3f s wall = %.1f ns each, %.1f %% passing control\n", n, events,
              wall, ns, 100.0 * static_cast<double>(passes) / static_cast<double>(events));
}

// n skewed periods as a bare std::priority_queue of (time, actor): what one event costs
// without any simulator around it.
static void bare_queue_loop(long events, int n) {
  using Ev = std::pair<double, int>;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> q;
  for (int i = 0; i < n; ++i) q.push({0.0, i});
  auto t0 = std::chrono::steady_clock::now();
  double sink = 0;
  for (long k = 0; k < events; ++k) {
    Ev e = q.top();
    q.pop();
    sink += e.first;
    q.push({e.first + 1e-6 * (1.0 + 0.137 * e.second), e.second});
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("bare %d-entry priority-queue loop: %ld events in %.3f s wall = %.0f events per wall second, %.1f ns each (%g)\n",
              n, events, wall, events / wall, wall * 1e9 / static_cast<double>(events), sink > 0 ? 1.0 : 0.0);
}

static long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

static void model_run_sets(const std::string& scenario, const std::string& policy, const std::string& duration,
                           const std::string& scheduler, const std::vector<std::string>& extra);

static void model_run(const std::string& scenario, const std::string& policy, const std::string& duration,
                      const std::string& scheduler) {
  model_run_sets(scenario, policy, duration, scheduler, {});
}

// Under the vtick scheduler: its hand-offs' floor (the bare fiber loop's cost each) as a
// share of the run's wall time.
static std::string handoff_share(StepScheduler s, double handoffs, double wall) {
  double handoff_ns = g_shared ? g_shared->fiber_ns : 0;
  if (s != StepScheduler::Vtick || handoff_ns <= 0 || wall <= 0) return "";
  char b[64];
  std::snprintf(b, sizeof b, "; hand-off floor %.0f%% of wall", 100.0 * handoffs * handoff_ns * 1e-9 / wall);
  return b;
}

// One run; `scheduler` empty: the default (vtick). Model steps: the blocking calls of
// core/sg.hpp (under the simgrid scheduler its waits plus the steps run ahead).
static void model_run_sets(const std::string& scenario, const std::string& policy, const std::string& duration,
                           const std::string& scheduler, const std::vector<std::string>& extra) {
  std::vector<std::string> sets = {"guest.tick_policy=" + policy, "run.duration=" + duration};
  if (!scheduler.empty()) sets.push_back("run.scheduler=" + scheduler);
  sets.insert(sets.end(), extra.begin(), extra.end());
  Scenario sc = load_scenario(VTICK_SOURCE_DIR "/scenarios/" + scenario, sets);
  RunResult r = run_simulation(sc);
  double sim_s = static_cast<double>(sc.run.duration) * 1e-9;
  std::string label = scenario;
  if (!extra.empty()) label = scenario.substr(scenario.rfind('/') + 1) + ", " + std::to_string(sc.vcpus) + " vCPUs";
  if (!extra.empty() && sc.workload.kind == WorkloadKindId::Periodic) label += ", " + std::to_string(sc.workload.geti("tasks")) + " tasks";
  const SgEventCounts& d = r.sg_detail;
  double steps = static_cast<double>(sc.run.scheduler == StepScheduler::Vtick ? d.steps : d.waits + d.run_aheads);
  double handoffs = static_cast<double>(d.handoffs);
  if (!g_row_result || r.failed)
    std::printf("%-36s %-8s %-7s: %4.0f s simulated in %6.2f s wall = %5.2f sim s/wall s, %.5f wall s per vCPU-s; "
              "%9llu SimGrid activities = %7.0f per wall s, %7.0f per sim s; %7.0f model steps per sim s; "
              "%7.0f hand-offs per sim s; peak RSS %ld MiB; %.0f %s/s%s%s\n",
              label.c_str(), policy.c_str(), enum_name(sc.run.scheduler), sim_s, r.wall_seconds, sim_s / r.wall_seconds,
              r.wall_seconds / (sim_s * sc.vcpus), static_cast<unsigned long long>(r.sg_events),
              static_cast<double>(r.sg_events) / r.wall_seconds, static_cast<double>(r.sg_events) / sim_s, steps / sim_s,
              handoffs / sim_s, peak_rss_kb() / 1024, r.metrics.get("workload.ops") / sim_s, r.ops_name.c_str(), r.failed ? " FAILED" : "",
              handoff_share(sc.run.scheduler, handoffs, r.wall_seconds).c_str());
  if (g_row_result && (g_row_result->runs++ == 0 || r.wall_seconds < g_row_result->wall_s)) {
    g_row_result->vcpus = sc.vcpus;
    g_row_result->wall_s = r.wall_seconds;
    g_row_result->sim_s = sim_s;
    g_row_result->steps = steps;
    g_row_result->handoffs = handoffs;
    g_row_result->host_only_steps = static_cast<double>(d.host_only_steps);
    g_row_result->newidle = r.metrics.get("sched.newidle_balances");
    // every actor of the run was a fiber, and they are forgotten only when the next engine
    // starts (own::reset()), so the count is still the run's
    g_row_result->actors = fiber::count();
  }
}

// One simulation per process (SimGrid's engine is a singleton).
template <typename F>
static void in_child(F f) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    f();
    std::fflush(nullptr);
    _exit(0);
  }
  int st;
  waitpid(pid, &st, 0);
}

int main(int argc, char** argv) {
  CLI::App app{"vtick speed benchmark (make bench): bare SimGrid and priority-queue loops, then every shipped workload, "
               "peak RSS and the scaling rows"};
  std::string duration = "10s";
  app.add_option("duration", duration, "simulated time of each scenario row, e.g. 10s (default 10s)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  sim_ns d = 0;
  if (!parse_duration(duration, d) || d <= 0) {
    std::fprintf(stderr, "vtick_bench: duration '%s': a positive duration with a unit, e.g. 10s\n", duration.c_str());
    return 2;
  }
  std::printf("%s\n", version_line().c_str());
  in_child([] { bare_timer_loop(2000000); });
  void* shared = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    std::perror("vtick_bench: mmap");
    return 1;
  }
  g_shared = new (shared) Shared;
  in_child([] { bare_handoff_loop(2000000); });
  in_child([] { bare_fiber_loop(20000000); });
  in_child([] { bare_queue_loop(20000000, 4); });
  for (const char* q : {"", "simgrid"}) {
    in_child([&] { model_run("default.toml", "legacy", duration, q); });
    in_child([&] { model_run("default.toml", "got_tick", duration, q); });
    in_child([&] { model_run("oci/standard2.1-oltp.toml", "legacy", duration, q); });
    in_child([&] { model_run("oci/a1.flex.2-oltp.toml", "legacy", duration, q); });
    in_child([&] { model_run("oci/standard2.1-sysbench_threads.toml", "legacy", "2s", q); });
  }
  // the other workloads, under the default scheduler
  for (const char* s : {"../bench/scenarios/hackbench.toml", "../bench/scenarios/periodic.toml", "script-example.toml",
                        "oci/a1.flex.2-sysbench_threads.toml"})
    in_child([&] { model_run(s, "legacy", std::string(s).find("sysbench") != std::string::npos ? "2s" : duration, ""); });
  // flat memory: a long OLTP run's peak RSS against a short one's
  in_child([&] { model_run("oci/standard2.1-oltp.toml", "legacy", "5s", ""); });
  in_child([&] { model_run("oci/standard2.1-oltp.toml", "legacy", "60s", ""); });
  // scaling at a constant load per vCPU: periodic, 1 .. 64 vCPUs, each row 256 vCPU-seconds
  // (256 s at 1 vCPU .. 4 s at 64: equally long to measure; OLTP's table lock saturates near
  // 16 vCPUs), the fastest of three runs (a row of 0.1-1 s wall moves by 1.5x from one run
  // to the next on this machine). Two 300/700 us tasks per vCPU (the rows: some CPU
  // has two runnable, so the root domain is overloaded and every CPU going idle balances
  // over all of them), then one (no second task to pull: the simulator's own cost with more
  // actors). Then 64-vCPU OLTP.
  for (int series = 0; series < 2; ++series) {
    const int per_vcpu = 2 - series;
    for (std::size_t k = 0; k < kNSizes; ++k) {
      const int n = kSizes[k];
      for (int run = 0; run < 3; ++run)
        in_child([&] {
          g_row_result = &g_shared->scaling[series][k];
          model_run_sets("../bench/scenarios/periodic.toml", "legacy", std::to_string(256 / n) + "s", "",
                         {"platform.shape=generic", "platform.arch=skylake-sp", "platform.threads_per_core=1",
                          "platform.cores=" + std::to_string(n), "workload.tasks=" + std::to_string(per_vcpu * n)});
        });
      const Shared::Row& r = g_shared->scaling[series][k];
      std::printf("scaling row: periodic, %d vCPUs, %d tasks: %.0f s simulated in %.3f s wall (fastest of %d runs) = %.5f "
                  "wall s per vCPU-s; %.0f hand-offs per vCPU-s; %.0f model steps per vCPU-s, %.1f %% of them host "
                  "code only; %ld actors\n",
                  n, per_vcpu * n, r.sim_s, r.wall_s, r.runs, r.per_vcpu_s(r.wall_s), r.per_vcpu_s(r.handoffs),
                  r.per_vcpu_s(r.steps), r.share(r.host_only_steps), r.actors);
    }
  }
  // a bare simulator's cost per event with 1 actor (as at 1 vCPU) and as many as at 64, and
  // of its priority queue alone with as many entries
  const long actors = g_shared->scaling[0][kNSizes - 1].actors;
  in_child([] { bare_actors_loop(1, 20000000); });
  if (actors > 1) in_child([actors] { bare_actors_loop(actors, 20000000); });
  in_child([] { bare_queue_loop(20000000, 1); });
  if (actors > 1) in_child([actors] { bare_queue_loop(20000000, static_cast<int>(actors)); });
  for (int series = 0; series < 2; ++series) {
    const Shared::Row* row = g_shared->scaling[series];
    auto wall = [](const Shared::Row& r) { return r.per_vcpu_s(r.wall_s); };
    double lo = wall(row[0]), hi = lo;
    for (std::size_t k = 0; k < kNSizes; ++k) {
      lo = std::min(lo, wall(row[k]));
      hi = std::max(hi, wall(row[k]));
    }
    if (lo <= 0) continue;
    const Shared::Row &one = row[0], &two = row[1], &big = row[kNSizes - 1];
    std::printf("scaling (periodic, %d task%s per vCPU, wall s per vCPU-s): x%.2f from 1 to 64 vCPUs, x%.2f from 2 to 64, "
                "max/min x%.2f; hand-offs per vCPU-s %.0f at 1 vCPU (%ld actors), %.0f at 64 (%ld actors); "
                "newidle balances per vCPU-s %.0f at 64; steps running host code only %.1f %% at 64; "
                "steps passing control %.1f %% at 64\n",
                2 - series, series == 0 ? "s" : "", wall(big) / wall(one), wall(big) / wall(two), hi / lo,
                one.per_vcpu_s(one.handoffs), one.actors, big.per_vcpu_s(big.handoffs), big.actors,
                big.per_vcpu_s(big.newidle), big.share(big.host_only_steps), big.share(big.handoffs));
  }
  in_child([&] {
    model_run_sets("oci/standard2.1-oltp.toml", "legacy", "1s", "",
                   {"platform.shape=generic", "platform.arch=skylake-sp", "platform.threads_per_core=1", "platform.cores=64"});
  });
  return 0;
}
