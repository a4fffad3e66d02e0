// Background load of a real guest (guest/background.hpp): kernel threads and housekeeping.
#include "guest/background.hpp"

#include <string>

#include "guest/kernel.hpp"

namespace vtick {

VTICK_PARAM_TABLE(BackgroundParams, VTICK_BACKGROUND_PARAMS)
VTICK_PARAM_CTOR(BackgroundParams)

namespace {
const char* kMeasured = "docs/real-guest/README.md: 120 s perf sched trace of the quiet 2-vCPU guest (2026-12-01)";
// measured: what the quiet guest of docs/real-guest ran (wake-ups/s and CPU share from the
// 120 s `n2-long` trace and /proc/PID/stat); a work figure marked [EST] was not resolved
const std::vector<BackgroundSource> kMeasuredSources = {
    {"kdamond.0", false, 2.0, 1700000, 0, kMeasured},            // 0.35 % of a CPU: ~1.7 ms per wake-up
    {"agent", false, 20.0, 50000, -10, kMeasured},               // pid 1 (process_api) at nice -10: 0.1 %
    {"kworker", true, 1.5, 20000, 0, "measured rate (3/s in all); 20 us per item [EST]"},
    {"kcompactd0", false, 2.0, 30000, 0, "measured rate; 30 us per pass [EST]"},
    {"rcu_preempt", false, 0.7, 10000, 0, "measured rate; 10 us per grace-period step [EST]"},
};
// cloud: the measured set plus what a cloud image adds [EST]: an agent's plugins gathering
// metrics once a second for a few ms, and a journal flushing a few times a second
const std::vector<BackgroundSource> kCloudExtra = {
    {"cloud-agent", false, 1.0, 8000000, 0, "[EST] monitoring agent plugin run: 8 ms once a second (0.4 % of 2 vCPUs)"},
    {"journald", false, 5.0, 100000, 0, "[EST] log flush: 100 us five times a second"},
};

// sched_prio_to_weight[] (kernel/sched/core.c) for the nice values the sources use.
int weight_of(int nice) {
  switch (nice) {
    case -10: return 9548;
    case -5: return 3121;
    case 5: return 335;
    case 10: return 110;
    default: return 1024;
  }
}
}  // namespace

const std::vector<BackgroundSource>& background_sources(BackgroundPreset p) {
  static const std::vector<BackgroundSource> none;
  static const std::vector<BackgroundSource> cloud = [] {
    auto v = kMeasuredSources;
    v.insert(v.end(), kCloudExtra.begin(), kCloudExtra.end());
    return v;
  }();
  switch (p) {
    case BackgroundPreset::Measured: return kMeasuredSources;
    case BackgroundPreset::Cloud: return cloud;
    default: return none;
  }
}

void install_background(GuestKernel& k, const BackgroundParams& p) {
  if (p.scale <= 0) return;
  const int n = k.nr_cpus();
  const std::uint64_t all = n >= 64 ? ~0ULL : (1ULL << n) - 1;
  int index = 0;
  for (const BackgroundSource& s : background_sources(p.preset)) {
    int home = index++ % n;  // unbound sources start spread over the vCPUs
    double hz = s.hz * p.scale;
    sim_ns period = static_cast<sim_ns>(1e9 / hz);
    // a random interval (uniform around the mean, so the source is not phase-locked to
    // the tick) and a work length varying by half either way
    Phase sleep{PhaseKind::Sleep, period, -1, 0.95};
    Phase work{PhaseKind::Run, s.work, -1, 0.5};
    for (int c = 0; c < (s.per_cpu ? n : 1); ++c) {
      std::string comm = s.per_cpu ? std::string(s.comm) + "/" + std::to_string(c) : s.comm;
      Task& t = k.add_task(comm, {sleep, work}, s.per_cpu ? c : home, s.per_cpu ? 1ULL << c : all);
      t.weight = weight_of(s.nice);
      k.delay_start(t, static_cast<sim_ns>(t.rng.uniform01() * static_cast<double>(period)));
    }
  }
}

}  // namespace vtick
