// drivers/cpuidle/governors/{menu,teo,ladder}.c: hand-worked cases of host/cpuidle_gov (research doc §2.7, §3, §4).
#include <catch2/catch.hpp>

#include <climits>
#include <string>
#include <vector>

#include "host/cpuidle_gov.hpp"

using namespace vtick;
using namespace vtick::cpuidle;

namespace {

constexpr sim_ns US = NSEC_PER_USEC;
constexpr sim_ns MS = NSEC_PER_MSEC;
constexpr sim_ns NO_QOS = 2000LL * NSEC_PER_SEC;  // PM_QOS_CPU_LATENCY_DEFAULT_VALUE, 2000 s
constexpr int POLL = 0, C1 = 1, C1E = 2, C6 = 3;

// intel_idle skx_cstates with POLL prepended (exit / target residency, µs).
std::vector<CpuidleState> skx() {
  return {
      {"POLL", 0, 0, true},
      {"C1", 2 * US, 2 * US},
      {"C1E", 10 * US, 20 * US},
      {"C6", 133 * US, 600 * US},
  };
}

IdleQuery query(sim_ns sleep_length, sim_ns delta_tick, sim_ns tick_nsec = 1 * MS, bool tick_stopped = false,
                sim_ns latency_req = NO_QOS) {
  return IdleQuery{sleep_length, delta_tick, tick_stopped, latency_req, tick_nsec};
}

struct Pick {
  int idx;
  bool stop_tick;
};

Pick pick(CpuidleGovernor& g, const std::vector<CpuidleState>& st, CpuidleDevice& dev, const IdleQuery& q) {
  bool stop_tick = true;
  const int idx = g.select(st, dev, q, stop_tick);
  return {idx, stop_tick};
}

// The caller's side of one idle period: woken `wake_ns` after entry, residency includes the exit latency.
void wake(CpuidleGovernor& g, const std::vector<CpuidleState>& st, CpuidleDevice& dev, int idx, sim_ns wake_ns,
          bool tick_wakeup = false) {
  dev.last_residency_ns = wake_ns + st[idx].exit_latency_ns;
  g.reflect(dev, idx, tick_wakeup);
}

// Eight idle periods on SKX, each ended by an interrupt 30 µs after entry, next timer 50 ms away, tick running
// (each wakeup leaves the idle loop, so the tick is restarted). Returns the picks of the 8 selects.
//
// Residency = 30 µs + exit latency: C6 163 000 <= 2*133 000, so menu halves it: 81 500 ns -> 81 µs;
// C1E 40 000 > 2*10 000: 40 000 - 10 000 = 30 µs. Every select queries the timer (typical > 15 µs or
// UINT_MAX), so the bucket is always which_bucket(50 ms) = 4 and predicted = min(timer, typical).
// Slot 0 gets UINT_MAX at S1 (fresh device: no update pending, last_residency_ns 0); slots start at 0.
//  S1 [U,0x7]: kept samples all 0 -> UINT_MAX -> timer 50 000 µs -> C6.
//  S2 [U,81,0x6]: 7 kept, avg 81/7=11, meansq 6561/7=937, var 816 -> rejected; 28>24; 11-0 < 81-11 -> max_thresh 81;
//     pass 2 all zeros -> UINT_MAX -> C6 (cf 7169: (50e6*7169+4 096 000)/8 192 000 = 43 756 µs).
//  S3 [U,81x2,0x5]: avg 23, var 1345 rejected; 23 < 58 -> zeros left -> UINT_MAX -> C6.
//  S4 [U,81x3,0x4]: avg 34, var 1655 rejected; 34 < 47 -> zeros -> UINT_MAX -> C6.
//  S5 [U,81x4,0x3]: avg 46, var 1633 rejected; 46 > 35 -> min_thresh 0; pass 2: four 81s, var 0 -> 81 µs.
//     predicted 81 000: C1E (20 µs) fits, C6 (600 µs) does not, 81 µs < TICK -> C1E, tick kept.
//  S6 [U,81x4,30,0x2]: avg 50, var 1377 rejected; 50 > 31 -> min_thresh 0; pass 2 {81x4,30}: avg 70, meansq 5428,
//     var 528 rejected; 5 samples: 20 <= 24 -> UINT_MAX -> C6 (cf 4206 -> 25 671 µs).
//  S7 [U,81x4,30,81,0]: avg 62, var 971; min_thresh 0; pass 2 {81x5,30}: avg 72, var 5617-5184=433 rejected;
//     24 <= 24 -> UINT_MAX -> C6.
//  S8 [U,81x4,30,81,81]: 7 kept, avg 73, var 5752-5329=423 rejected; 73-30=43 > 8 -> min_thresh 30; six 81s -> 81 -> C1E.
// cf[4] after the updates at S2..S8: 7169, 6274, 5491, 4806, 4206 (30 µs adds 1024*30000/50e6 = 0), 3682, 3223.
std::vector<int> menu_learn_30us(MenuGovernor& m, const std::vector<CpuidleState>& st, CpuidleDevice& dev) {
  const IdleQuery q = query(50 * MS, 1 * MS);
  std::vector<int> picks;
  for (int i = 0; i < 8; ++i) {
    const Pick p = pick(m, st, dev, q);
    picks.push_back(p.idx);
    wake(m, st, dev, p.idx, 30 * US);
  }
  return picks;
}

}  // namespace

TEST_CASE("cpuidle governors: get_typical_interval hand-worked cases", "[cpuidle_gov]") {
  // [100 x8]: avg 100, variance 0 -> 100.
  const unsigned int flat[8] = {100, 100, 100, 100, 100, 100, 100, 100};
  CHECK(get_typical_interval(flat) == 100);

  // [100 x7, 5000]: sum 5700 >> 3 = 712; sumsq 25 070 000 >> 3 = 3 133 750; var 3 133 750 - 506 944 = 2 626 806;
  // rejected (506 944 < 36 var, var > 400); 712-100 = 612 < 5000-712 = 4288 -> max_thresh 5000; seven 100s -> 100.
  const unsigned int one_outlier[8] = {100, 100, 100, 5000, 100, 100, 100, 100};
  CHECK(get_typical_interval(one_outlier) == 100);

  // [100 x6, 5000 x2]: pass 1 rejected; both 5000s dropped; 6 samples, var 0 <= 400 -> 100 (no sample count needed).
  const unsigned int two_outliers[8] = {5000, 100, 100, 100, 100, 5000, 100, 100};
  CHECK(get_typical_interval(two_outliers) == 100);

  // Noisy doubling set [10,20,...,1280]:
  //  pass 1: sum 2550 >> 3 = 318, sumsq 2 184 500 >> 3 = 273 062, var 273 062 - 101 124 = 171 938 -> rejected;
  //          318-10 = 308 < 1280-318 = 962 -> max_thresh 1280.
  //  pass 2 (7): avg 1270/7 = 181, meansq 546 100/7 = 78 014, var 45 253 -> rejected; 171 < 459 -> max_thresh 640.
  //  pass 3 (6): avg 630/6 = 105, meansq 136 500/6 = 22 750, var 11 725 -> rejected; 6*4 = 24 <= 24 -> UINT_MAX.
  const unsigned int noisy[8] = {10, 20, 40, 80, 160, 320, 640, 1280};
  CHECK(get_typical_interval(noisy) == UINT_MAX);

  // [1000 x7, 10]: sum 7010 >> 3 = 876, sumsq 7 000 100 >> 3 = 875 012, var 107 636 -> rejected;
  // 876-10 = 866 > 1000-876 = 124 -> min_thresh 10 (the low side goes); seven 1000s -> 1000.
  const unsigned int low_outlier[8] = {1000, 1000, 10, 1000, 1000, 1000, 1000, 1000};
  CHECK(get_typical_interval(low_outlier) == 1000);

  // [1000,1100,900,...]: avg 8000 >> 3 = 1000, meansq 8 040 000 >> 3 = 1 005 000, var 5000 > 400 but
  // 1000^2 = 1 000 000 > 36*5000 = 180 000 with 8 samples -> 1000.
  const unsigned int spread[8] = {1000, 1100, 900, 1000, 1000, 1100, 900, 1000};
  CHECK(get_typical_interval(spread) == 1000);

  // A UINT_MAX marker (rejected entry) is excluded by the initial max_thresh: seven 100s -> 100.
  const unsigned int marker[8] = {UINT_MAX, 100, 100, 100, 100, 100, 100, 100};
  CHECK(get_typical_interval(marker) == 100);

  // [80,120 x4]: avg 100, meansq (6400+14400)/2 = 10 400, var 400; 10 000 > 36*400 fails, but var <= 400 -> 100.
  const unsigned int var400[8] = {80, 120, 80, 120, 80, 120, 80, 120};
  CHECK(get_typical_interval(var400) == 100);

  // [50,150 x4]: avg 100, var 12 500 - 10 000 = 2500 -> rejected; a tie (50 == 50) drops the high side -> four 50s -> 50.
  const unsigned int tie[8] = {50, 150, 50, 150, 50, 150, 50, 150};
  CHECK(get_typical_interval(tie) == 50);

  // Nothing but zeros: max == 0 -> UINT_MAX.
  const unsigned int zeros[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  CHECK(get_typical_interval(zeros) == UINT_MAX);
}

TEST_CASE("cpuidle governors: which_bucket and the menu timer prediction", "[cpuidle_gov]") {
  CHECK(which_bucket(9999) == 0);
  CHECK(which_bucket(10 * US) == 1);
  CHECK(which_bucket(100 * US - 1) == 1);
  CHECK(which_bucket(100 * US) == 2);
  CHECK(which_bucket(1 * MS) == 3);
  CHECK(which_bucket(10 * MS) == 4);
  CHECK(which_bucket(50 * MS) == 4);
  CHECK(which_bucket(100 * MS) == 5);

  // cf 8192, 4 ms: (4e6*8192 + 4 096 000) / 8 192 000 = 4000.5 -> 4000 µs.
  CHECK(menu_timer_us(4 * MS, 8192) == 4000);
  // 4 000 500 ns: 4000.5 + 0.5 = 4001 exactly -> 4001; 4 000 499 ns: 4000.999 -> 4000.
  CHECK(menu_timer_us(4000500, 8192) == 4001);
  CHECK(menu_timer_us(4000499, 8192) == 4000);
  // cf 7389: (29 556 000 000 + 4 096 000) / 8 192 000 = 3608.4 -> 3608 µs.
  CHECK(menu_timer_us(4 * MS, 7389) == 3608);

  // Through the governor: a fresh menu, 4 ms timer -> bucket 3, predicted 4000 µs >= TICK -> C6, tick may stop.
  const auto st = skx();
  MenuGovernor m(st);
  CpuidleDevice dev;
  const Pick p = pick(m, st, dev, query(4 * MS, 1 * MS));
  CHECK(p.idx == C6);
  CHECK(p.stop_tick);
  CHECK(m.next_timer_ns() == 4000000u);
  CHECK(m.bucket() == 3);
}

TEST_CASE("cpuidle governors: menu correction factor update 8192 -> 7389", "[cpuidle_gov]") {
  const auto st = skx();
  MenuGovernor m(st);
  CpuidleDevice dev;
  const IdleQuery q = query(4 * MS, 1 * MS);
  REQUIRE(pick(m, st, dev, q).idx == C6);  // as in the timer-prediction case
  CHECK(m.interval(0) == UINT_MAX);        // fresh device: last_residency_ns 0 reads as a rejected entry
  CHECK(m.correction_factor(3) == 8192);

  dev.last_residency_ns = 1 * MS;
  m.reflect(dev, C6, false);
  CHECK(m.needs_update());
  CHECK(m.correction_factor(3) == 8192);  // lazy: nothing learnt until the next select

  // measured = 1 000 000 - 133 000 = 867 000 (> 2*133 000); cf 8192 - 1024 = 7168 + 1024*867 000/4e6 (221) = 7389.
  // Next typical: [U,867,0x6]: avg 123, var 92 255 rejected; 123 < 744 -> zeros -> UINT_MAX; timer 3608 µs -> C6.
  const Pick p = pick(m, st, dev, q);
  CHECK(!m.needs_update());
  CHECK(m.correction_factor(3) == 7389);
  CHECK(m.interval(1) == 867);
  CHECK(m.interval_ptr() == 2);
  for (int b : {0, 1, 2, 4, 5}) CHECK(m.correction_factor(b) == 8192);
  CHECK(p.idx == C6);
  CHECK(p.stop_tick);
}

TEST_CASE("cpuidle governors: menu on a blocked vCPU (SKX, 300 us hrtimer) picks C1E and keeps the tick",
          "[cpuidle_gov]") {
  // No history (UINT_MAX); timer (300e3*8192 + 4 096 000)/8 192 000 = 300.5 -> 300 µs; bucket 2.
  // POLL, C1, C1E fit; C6 600 > 300: C1E is not polling; 300 µs < TICK -> break. Step 9: tick kept,
  // C1E 20 µs <= delta_tick 300 µs, no demotion.
  const auto st = skx();
  MenuGovernor m(st);
  CpuidleDevice dev;
  const Pick p = pick(m, st, dev, query(300 * US, 300 * US));
  CHECK(p.idx == C1E);
  CHECK_FALSE(p.stop_tick);
  CHECK(m.bucket() == 2);
}

TEST_CASE("cpuidle governors: menu learns 30 us idles under a 50 ms timer and picks C1E, not C6", "[cpuidle_gov]") {
  const auto st = skx();
  MenuGovernor m(st);
  CpuidleDevice dev;
  CHECK(menu_learn_30us(m, st, dev) == std::vector<int>{C6, C6, C6, C6, C1E, C6, C6, C1E});

  // S9: the update stores 30 (slot 0 wraps): [30,81x4,30,81,81]: avg 546 >> 3 = 68, meansq 41 166 >> 3 = 5145,
  // var 521 rejected; 68-30 = 38 > 13 -> min_thresh 30; six 81s -> 81 µs -> C1E, tick kept.
  // cf[4] = 3223 - 402 + 0 = 2821; timer 17 218 µs, so the pattern (81 µs) wins.
  const Pick p = pick(m, st, dev, query(50 * MS, 1 * MS));
  CHECK(p.idx == C1E);
  CHECK_FALSE(p.stop_tick);
  CHECK(m.correction_factor(4) == 2821);
  CHECK(m.bucket() == 4);
}

TEST_CASE("cpuidle governors: menu tick wakeups on a far timer push it back to C6", "[cpuidle_gov]") {
  const auto st = skx();
  const IdleQuery q = query(50 * MS, 1 * MS);
  MenuGovernor m(st);
  CpuidleDevice dev;
  menu_learn_30us(m, st, dev);
  REQUIRE(pick(m, st, dev, q).idx == C1E);  // S9, tick kept

  // The kept tick ends the C1E idle (no timer within 50 ms): next_timer 50 ms > TICK -> measured 45 ms.
  // S10: slot 1 = 45000: [30,45000,81x3,30,81,81]: pass 1 var 220 832 836 rejected, 5653 < 39 317 -> max_thresh 45000;
  // pass 2 {30,81x3,30,81,81}: avg 66, var 587 rejected, 36 > 15 -> min_thresh 30; five 81s -> 81 -> still C1E.
  // cf[4] = 2821 - 352 + 1024*45e6/50e6 (921) = 3390.
  wake(m, st, dev, C1E, 1 * MS, true);
  Pick p = pick(m, st, dev, q);
  CHECK(m.interval(1) == 45000);
  CHECK(m.correction_factor(4) == 3390);
  CHECK(p.idx == C1E);
  CHECK_FALSE(p.stop_tick);

  // S11: slot 2 = 45000: pass 1 rejected, 11 268 < 33 702 -> max_thresh 45000; pass 2 {30,81,81,30,81,81}: avg 64,
  // var 4674-4096 = 578 rejected; 24 <= 24 -> UINT_MAX. cf[4] = 3390 - 423 + 921 = 3888 -> timer 23 730 µs -> C6,
  // predicted >= TICK -> the tick may stop.
  wake(m, st, dev, C1E, 1 * MS, true);
  p = pick(m, st, dev, q);
  CHECK(m.interval(2) == 45000);
  CHECK(m.correction_factor(4) == 3888);
  CHECK(p.idx == C6);
  CHECK(p.stop_tick);

  // No substitution when the timer was within a tick: 800 µs timer -> predicted 800 µs -> C6 with the tick kept
  // (600 <= delta_tick 800). Woken by the tick at 800 µs: measured = 933 000 - 133 000 = 800 000 -> 800 µs;
  // cf[2] = 7168 + 1024*800 000/800 000 = 8192.
  MenuGovernor m2(st);
  CpuidleDevice dev2;
  const IdleQuery near = query(800 * US, 800 * US);
  p = pick(m2, st, dev2, near);
  CHECK(p.idx == C6);
  CHECK_FALSE(p.stop_tick);
  wake(m2, st, dev2, C6, 800 * US, true);
  pick(m2, st, dev2, near);
  CHECK(m2.interval(1) == 800);
  CHECK(m2.correction_factor(2) == 8192);
}

TEST_CASE("cpuidle governors: menu with the tick stopped uses next_timer_ns for a short prediction", "[cpuidle_gov]") {
  const auto st = skx();
  // Same history as the learning case; at S9 the pattern says 81 µs (< TICK).
  MenuGovernor running(st), stopped(st);
  CpuidleDevice dev_r, dev_s;
  menu_learn_30us(running, st, dev_r);
  menu_learn_30us(stopped, st, dev_s);

  // Tick running: C1E, tick kept (see the learning case).
  const Pick r = pick(running, st, dev_r, query(50 * MS, 1 * MS));
  CHECK(r.idx == C1E);
  CHECK_FALSE(r.stop_tick);

  // Tick already stopped (next event = the 50 ms timer): predicted 81 µs < TICK -> predicted = next_timer_ns = 50 ms;
  // every state fits -> C6; step 9 is skipped, stop_tick is left as it was.
  const Pick s = pick(stopped, st, dev_s, query(50 * MS, 50 * MS, 1 * MS, true));
  CHECK(s.idx == C6);
  CHECK(s.stop_tick);
  CHECK(stopped.next_timer_ns() == 50000000u);
}

TEST_CASE("cpuidle governors: tick retention depends on TICK_NSEC (HZ=1000 vs HZ=250)", "[cpuidle_gov]") {
  const auto st = skx();
  // 2 ms hrtimer, the tick farther: menu predicts (2e6*8192 + 4 096 000)/8 192 000 = 2000 µs; every state fits -> C6.
  // HZ=1000: 2 ms >= TICK 1 ms -> the tick may stop. HZ=250: 2 ms < TICK 4 ms -> kept (C6's 600 µs <= 2 ms).
  for (const sim_ns tick : {1 * MS, 4 * MS}) {
    MenuGovernor m(st);
    CpuidleDevice dev;
    const Pick p = pick(m, st, dev, query(2 * MS, 2 * MS, tick));
    CHECK(p.idx == C6);
    CHECK(p.stop_tick == (tick == 1 * MS));
  }
  // teo, fresh: candidate C6, no intercepts, no shortcut; sleep 2 ms >= 600 µs -> C6; duration 2 ms vs TICK decides.
  for (const sim_ns tick : {1 * MS, 4 * MS}) {
    TeoGovernor t(st);
    CpuidleDevice dev;
    const Pick p = pick(t, st, dev, query(2 * MS, 2 * MS, tick));
    CHECK(p.idx == C6);
    CHECK(p.stop_tick == (tick == 1 * MS));
  }
}

TEST_CASE("cpuidle governors: menu and teo fit the state before the tick when they keep it", "[cpuidle_gov]") {
  const auto st = skx();
  // 800 µs hrtimer, the tick 500 µs away. menu: predicted 800 µs -> C6 fits; 800 µs < TICK -> tick kept;
  // C6's 600 µs > delta_tick 500 µs -> walk down: C1E (20 <= 500).
  MenuGovernor m(st);
  CpuidleDevice dev;
  Pick p = pick(m, st, dev, query(800 * US, 500 * US));
  CHECK(p.idx == C1E);
  CHECK_FALSE(p.stop_tick);
  // teo: C6 (600 <= 800); duration 800 µs < TICK; 600 > 500 -> teo_find_shallower_state(500 µs) -> C1E.
  TeoGovernor t(st);
  CpuidleDevice dev_t;
  p = pick(t, st, dev_t, query(800 * US, 500 * US));
  CHECK(p.idx == C1E);
  CHECK_FALSE(p.stop_tick);

  // menu step 7e: a deeper state (C10 3 ms) beyond a 2 ms prediction with the tick running: predicted becomes
  // C6's 600 µs < TICK -> tick kept, C6 (600 <= delta_tick 1 ms). With the tick stopped (delta_tick 2 ms):
  // C10's 3 ms > 2 ms -> C6 returned at once, stop_tick untouched.
  std::vector<CpuidleState> deep = skx();
  deep.erase(deep.begin() + C1E);
  deep.push_back({"C10", 500 * US, 3 * MS});  // POLL, C1, C6 (2), C10 (3)
  MenuGovernor m2(deep), m3(deep);
  CpuidleDevice d2, d3;
  p = pick(m2, deep, d2, query(2 * MS, 1 * MS));
  CHECK(p.idx == 2);
  CHECK_FALSE(p.stop_tick);
  p = pick(m3, deep, d3, query(2 * MS, 2 * MS, 1 * MS, true));
  CHECK(p.idx == 2);
  CHECK(p.stop_tick);
}

TEST_CASE("cpuidle governors: menu with the tick stopped takes a deeper state that fits before the next event",
          "[cpuidle_gov]") {
  // POLL, C1, C6 (600 µs), C10 (3 ms). Eight idles of 2 ms (residency 2 ms + exit latency -> measured 2 ms) under a
  // 5 ms timer, tick running. Every select queries the timer (a mix of 2000s with 0/UINT_MAX never passes, and the
  // zeros-only pass gives UINT_MAX), so bucket 3: cf 8192 -> 7577 -> ... -> 4965 (each + 1024*2e6/5e6 = 409).
  // Select 9: all eight slots 2000 -> typical 2000 µs; timer (5e6*4965 + 4 096 000)/8 192 000 = 3030 µs -> 2 ms.
  std::vector<CpuidleState> deep = skx();
  deep.erase(deep.begin() + C1E);
  deep.push_back({"C10", 500 * US, 3 * MS});
  MenuGovernor stopped(deep), running(deep);
  CpuidleDevice ds, dr;
  for (MenuGovernor* m : {&stopped, &running}) {
    CpuidleDevice& d = m == &stopped ? ds : dr;
    for (int i = 0; i < 8; ++i) wake(*m, deep, d, pick(*m, deep, d, query(5 * MS, 1 * MS)).idx, 2 * MS);
  }
  // Tick stopped, next event the 5 ms timer: 2 ms >= TICK, no replacement; C6 fits; C10 3 ms > 2 ms, but C6 is
  // below a tick and C10 fits before delta_tick 5 ms -> C10 at once, stop_tick untouched.
  Pick p = pick(stopped, deep, ds, query(5 * MS, 5 * MS, 1 * MS, true));
  CHECK(stopped.correction_factor(3) == 4965u);
  CHECK(p.idx == 3);
  CHECK(p.stop_tick);
  // Tick running (delta_tick 1 ms): predicted becomes C6's 600 µs < TICK -> C6, tick kept.
  p = pick(running, deep, dr, query(5 * MS, 1 * MS));
  CHECK(p.idx == 2);
  CHECK_FALSE(p.stop_tick);
}

TEST_CASE("cpuidle governors: menu prefers C1 to polling for very short predictions", "[cpuidle_gov]") {
  const auto st = skx();
  // S1 fresh: timer 50 ms -> C6. Residency 3000 ns <= 2*133 000 -> measured 1500 -> 1 µs.
  // S2: [U,1,0x6]: 7 kept, avg 1/7 = 0, var 0 -> typical 0 µs. 0 <= 15 µs: no timer query, next_timer KTIME_MAX,
  // bucket 5, delta_tick TICK/2. POLL fits (0 <= 0); C1 (2 µs) does not, but the choice so far polls and
  // 2 µs < 15 µs and <= KTIME_MAX -> C1, predicted 2 µs -> tick kept (2 µs <= 500 µs, no demotion).
  const IdleQuery q = query(50 * MS, 1 * MS);
  MenuGovernor m(st);
  CpuidleDevice dev;
  REQUIRE(pick(m, st, dev, q).idx == C6);
  dev.last_residency_ns = 3000;
  m.reflect(dev, C6, false);
  Pick p = pick(m, st, dev, q);
  CHECK(p.idx == C1);
  CHECK_FALSE(p.stop_tick);
  CHECK(m.bucket() == 5);
  CHECK(m.next_timer_ns() == static_cast<std::uint64_t>(KTIME_MAX));

  // Same with C1 disabled: C1E's 20 µs is not < 15 µs; 0 < TICK -> break at POLL; polling keeps the tick.
  auto no_c1 = skx();
  no_c1[C1].disabled = true;
  MenuGovernor m2(no_c1);
  CpuidleDevice dev2;
  REQUIRE(pick(m2, no_c1, dev2, q).idx == C6);
  dev2.last_residency_ns = 3000;
  m2.reflect(dev2, C6, false);
  p = pick(m2, no_c1, dev2, q);
  CHECK(p.idx == POLL);
  CHECK_FALSE(p.stop_tick);
}

TEST_CASE("cpuidle governors: a polling timeout counts as a long idle (menu, teo)", "[cpuidle_gov]") {
  const auto st = skx();
  // menu, latency_req 1 µs < C1's exit 2 µs -> state 0 at once, polling keeps the tick; timer 50 ms (bucket 4).
  // POLL ends by its 20 µs limit. With poll_time_limit: measured = next_timer_ns = 50 ms -> interval 50 000;
  // cf[4] = 7168 + 1024 (50 ms is not < MAX_INTERESTING). Without: measured 20 000 -> 20; cf 7168 + 0.
  const IdleQuery q = query(50 * MS, 1 * MS, 1 * MS, false, 1 * US);
  for (const bool limit : {true, false}) {
    MenuGovernor m(st);
    CpuidleDevice dev;
    const Pick p = pick(m, st, dev, q);
    CHECK(p.idx == POLL);
    CHECK_FALSE(p.stop_tick);
    dev.poll_time_limit = limit;
    wake(m, st, dev, POLL, 20 * US);
    pick(m, st, dev, q);
    CHECK(m.interval(1) == (limit ? 50000u : 20u));
    CHECK(m.correction_factor(4) == (limit ? 8192u : 7168u));
    CHECK(dev.poll_time_limit == limit);  // menu leaves it (poll_idle() resets it on entry)
  }

  // teo, latency_req 1 µs: constraint_idx 0 -> POLL; 1 µs < 7.5 µs -> no sleep-length query, tick kept.
  // With poll_time_limit: cleared, measured S64_MAX; sleep length KTIME_MAX -> idx_timer = idx_duration = C6 -> a hit.
  // Without: measured 20 000 - 0 = 20 µs (not short); idx_duration C1E (20 <= 20) != idx_timer C6 -> intercept,
  // and 20 µs <= TICK -> tick_intercepts.
  for (const bool limit : {true, false}) {
    TeoGovernor t(st);
    CpuidleDevice dev;
    const Pick p = pick(t, st, dev, q);
    CHECK(p.idx == POLL);
    CHECK_FALSE(p.stop_tick);
    CHECK(t.sleep_length_ns() == KTIME_MAX);
    dev.poll_time_limit = limit;
    wake(t, st, dev, POLL, 20 * US);
    pick(t, st, dev, q);
    CHECK_FALSE(dev.poll_time_limit);
    CHECK(t.hits(C6) == (limit ? 1024u : 0u));
    CHECK(t.intercepts(C1E) == (limit ? 0u : 1024u));
    CHECK(t.tick_intercepts() == (limit ? 0u : 1024u));
    CHECK(t.short_idles() == 0u);
    CHECK(t.total() == 1024u);
  }
}

TEST_CASE("cpuidle governors: latency_req limits the depth (menu, teo, ladder)", "[cpuidle_gov]") {
  const auto st = skx();
  struct Case {
    sim_ns latency_req;
    int menu_idx;
    bool menu_stop;
    int teo_idx;
    bool teo_stop;
  };
  // 50 ms timer, fresh governors.
  // 50 µs: menu breaks at C6 (133 > 50) -> C1E; predicted 50 ms >= TICK -> may stop.
  //        teo constraint_idx C1E; 20 µs >= 15 µs -> query; 20 µs <= 50 ms; duration >= TICK -> may stop.
  // 5 µs:  menu C1 (C1E's 10 > 5), may stop. teo constraint C1; 2 µs < 15 µs and 2*0 >= 0 (fresh) -> shortcut:
  //        C1, tick kept, no sleep-length query.
  // 0:     menu state 0 at once, POLL keeps the tick. teo: constraint 0 -> shortcut -> POLL, tick kept.
  const Case cases[] = {
      {50 * US, C1E, true, C1E, true},
      {5 * US, C1, true, C1, false},
      {0, POLL, false, POLL, false},
  };
  for (const Case& c : cases) {
    const IdleQuery q = query(50 * MS, 1 * MS, 1 * MS, false, c.latency_req);
    MenuGovernor m(st);
    TeoGovernor t(st);
    CpuidleDevice dm, dt;
    const Pick pm = pick(m, st, dm, q);
    const Pick pt = pick(t, st, dt, q);
    CHECK(pm.idx == c.menu_idx);
    CHECK(pm.stop_tick == c.menu_stop);
    CHECK(pt.idx == c.teo_idx);
    CHECK(pt.stop_tick == c.teo_stop);
  }

  // ladder: 8 long idles climb C1 -> C1E -> C6 (see the ladder case); then latency_req 50 µs: C6's 133 µs
  // violates it -> jump to the deepest allowed rung above first_idx: C1E. latency_req 0 -> state 0.
  LadderGovernor l(st);
  CpuidleDevice dl;
  const IdleQuery free_q = query(50 * MS, 1 * MS);
  int idx = pick(l, st, dl, free_q).idx;
  for (int i = 0; i < 8; ++i) {
    wake(l, st, dl, idx, 1 * MS);
    idx = pick(l, st, dl, free_q).idx;
  }
  REQUIRE(idx == C6);
  wake(l, st, dl, C6, 1 * MS);
  CHECK(pick(l, st, dl, query(50 * MS, 1 * MS, 1 * MS, false, 50 * US)).idx == C1E);
  // latency_req 1 µs: C1E's 10 µs violates it and no rung above first_idx is allowed -> first_idx (C1), not POLL.
  wake(l, st, dl, C1E, 1 * MS);
  CHECK(pick(l, st, dl, query(50 * MS, 1 * MS, 1 * MS, false, 1 * US)).idx == C1);
  wake(l, st, dl, C1, 1 * MS);
  CHECK(pick(l, st, dl, query(50 * MS, 1 * MS, 1 * MS, false, 0)).idx == POLL);
}

TEST_CASE("cpuidle governors: teo on a blocked vCPU (SKX, 300 us hrtimer) picks C1E and keeps the tick",
          "[cpuidle_gov]") {
  // Fresh metrics: candidate C6; 2*0 > 0-0 is false; C6's 600 µs >= 15 µs -> query; 300 µs < 600 µs ->
  // shallower: C1E (20 <= 300); tick_intercepts 0 is not > 0; duration 300 µs < TICK -> keep the tick,
  // C1E's 20 µs <= delta_tick.
  const auto st = skx();
  TeoGovernor t(st);
  CpuidleDevice dev;
  const Pick p = pick(t, st, dev, query(300 * US, 300 * US));
  CHECK(p.idx == C1E);
  CHECK_FALSE(p.stop_tick);
  CHECK(t.sleep_length_ns() == 300 * US);
}

TEST_CASE("cpuidle governors: teo learns intercepts and picks a shallower state than the sleep length allows",
          "[cpuidle_gov]") {
  // SKX, 50 ms timer, tick running, interrupts 30 µs after every entry.
  // Select 1 (fresh): C6, tick may stop. Residency 163 000 >= 133 000 -> measured 163 000 - 66 500 = 96 500 (not short).
  // Update: idx_timer C6 (600 <= 50 ms), idx_duration C1E (20 <= 96.5 < 600) -> intercepts[C1E] = 1024,
  // 96.5 µs <= TICK -> tick_intercepts 1024, total 0 + 1024.
  // Select 2: candidate C6 with shallower intercepts 1024: 2048 > 1024 - 0 -> walk down: C1E, 2*1024 > 1024 -> C1E.
  // 20 µs >= 15 µs -> query; 20 µs <= 50 ms; tick_intercepts 1024 > 512 + 128 -> duration TICK/2 -> tick kept.
  // Residency in C1E 40 000 -> measured 35 000; same bins again: intercepts[C1E] = 1024 - 128 + 1024 = 1920 = total
  // = tick_intercepts. With every pulse in one bin, intercepts[C1E] == total == tick_intercepts at every step,
  // so the tests above stay true: C1E with the tick kept from select 2 on.
  const auto st = skx();
  const IdleQuery q = query(50 * MS, 1 * MS);
  TeoGovernor t(st);
  CpuidleDevice dev;
  Pick p = pick(t, st, dev, q);
  CHECK(p.idx == C6);
  CHECK(p.stop_tick);
  wake(t, st, dev, p.idx, 30 * US);

  p = pick(t, st, dev, q);
  CHECK(p.idx == C1E);
  CHECK_FALSE(p.stop_tick);
  CHECK(t.intercepts(C1E) == 1024u);
  CHECK(t.total() == 1024u);
  CHECK(t.tick_intercepts() == 1024u);
  wake(t, st, dev, p.idx, 30 * US);

  p = pick(t, st, dev, q);
  CHECK(p.idx == C1E);
  CHECK_FALSE(p.stop_tick);
  CHECK(t.intercepts(C1E) == 1920u);
  CHECK(t.total() == 1920u);
  CHECK(t.tick_intercepts() == 1920u);
  for (int i : {POLL, C1, C1E, C6}) CHECK(t.hits(i) == 0u);

  for (int n = 0; n < 20; ++n) {
    wake(t, st, dev, p.idx, 30 * US);
    p = pick(t, st, dev, q);
    CHECK(p.idx == C1E);
    CHECK_FALSE(p.stop_tick);
    CHECK(t.intercepts(C1E) == t.total());
  }
}

TEST_CASE("cpuidle governors: teo counts a tick wakeup as a hit on the deepest state when tick wakeups dominate",
          "[cpuidle_gov]") {
  // Select 1 (fresh, 50 ms): C6. Woken 30 µs after entry (measured 96.5 µs, an intercept in C1E's bin).
  // With tick_wakeup: total_tick 1024, 3*1024 > 2*1024 (total) -> hits[C6] += 1024 instead, and select 2 sees no
  // shallower intercepts -> C6 again, tick may stop. Without: the intercept case above -> C1E, tick kept.
  const auto st = skx();
  const IdleQuery q = query(50 * MS, 1 * MS);
  for (const bool tick : {true, false}) {
    TeoGovernor t(st);
    CpuidleDevice dev;
    REQUIRE(pick(t, st, dev, q).idx == C6);
    wake(t, st, dev, C6, 30 * US, tick);
    const Pick p = pick(t, st, dev, q);
    CHECK(t.total_tick() == (tick ? 1024u : 0u));
    CHECK(t.hits(C6) == (tick ? 1024u : 0u));
    CHECK(t.intercepts(C1E) == (tick ? 0u : 1024u));
    CHECK(t.tick_intercepts() == (tick ? 0u : 1024u));
    CHECK(p.idx == (tick ? C6 : C1E));
    CHECK(p.stop_tick == tick);
  }
}

TEST_CASE("cpuidle governors: teo takes half the exit latency off the residency", "[cpuidle_gov]") {
  const auto st = skx();
  // Fresh, 50 ms: C6. Residency 700 000 >= 133 000 -> measured 700 000 - 66 500 = 633 500 >= 600 000: C6's bin,
  // which is also the sleep length's -> a hit.
  TeoGovernor t(st);
  CpuidleDevice dev;
  REQUIRE(pick(t, st, dev, query(50 * MS, 1 * MS)).idx == C6);
  dev.last_residency_ns = 700 * US;
  t.reflect(dev, C6, false);
  pick(t, st, dev, query(50 * MS, 1 * MS));
  CHECK(t.hits(C6) == 1024u);
  CHECK(t.intercepts(C1E) == 0u);
  CHECK(t.short_idles() == 0u);

  // Blocked vCPU (300 µs): C1E. Residency 20 000 -> 15 000, not < 15 µs: not short; idx_duration C1 (2 <= 15 < 20)
  // vs idx_timer C1E (20 <= 300) -> intercept in C1's bin, within a tick.
  TeoGovernor t2(st);
  CpuidleDevice dev2;
  const IdleQuery q300 = query(300 * US, 300 * US);
  REQUIRE(pick(t2, st, dev2, q300).idx == C1E);
  dev2.last_residency_ns = 20 * US;
  t2.reflect(dev2, C1E, false);
  Pick p = pick(t2, st, dev2, q300);
  CHECK(t2.short_idles() == 0u);
  CHECK(t2.intercepts(C1) == 1024u);
  CHECK(t2.tick_intercepts() == 1024u);
  CHECK(t2.total() == 1024u);
  // That select: 2*1024 > 1024 -> walk down: C1E's bin adds 0, C1's 1024 -> C1. 2*0 >= 1024 fails -> query;
  // 2 µs <= 300 µs; tick_intercepts 1024 > 640 -> TICK/2 -> tick kept.
  CHECK(p.idx == C1);
  CHECK_FALSE(p.stop_tick);
  // In C1 (exit 2 µs) residency 15 999 -> 14 999 < 15 µs: short.
  dev2.last_residency_ns = 15999;
  t2.reflect(dev2, C1, false);
  pick(t2, st, dev2, q300);
  CHECK(t2.short_idles() == 1024u);
  // That select: intercepts[C1] = 896 + 1024 = 1920 = total -> C1 again; 2 µs < 15 µs and 2*1024 >= 1920 ->
  // mostly short idles: no sleep-length query, tick kept.
  CHECK(t2.sleep_length_ns() == KTIME_MAX);
}

TEST_CASE("cpuidle governors: teo_decay", "[cpuidle_gov]") {
  unsigned int m = 1024;
  teo_decay(m);
  CHECK(m == 896u);  // 1024 - 128
  m = 8;
  teo_decay(m);
  CHECK(m == 7u);  // 8 - 1
  m = 7;
  teo_decay(m);
  CHECK(m == 0u);  // 7 >> 3 == 0 -> snapped to 0
}

TEST_CASE("cpuidle governors: ladder promotes after 4 long residencies and demotes after 1 short one", "[cpuidle_gov]") {
  // SKX: POLL polls -> first_idx 1. C1: promotion time 2 µs; C1E: promotion 10 µs, demotion 10 µs; C6: demotion 133 µs.
  // Select 1 (last_residency 0): 0 - 2000 < 0 -> stays C1. Then 1 ms idles: 998 000 > 2000 -> promotion_count
  // 1, 2, 3 (stay), 4 -> C1E. In C1E a 5 µs idle: residency 15 000 - 10 000 = 5000 < 10 000 -> demote after 1 -> C1.
  const auto st = skx();
  const IdleQuery q = query(50 * MS, 1 * MS);
  LadderGovernor l(st);
  CpuidleDevice dev;
  CHECK(l.last_state_idx() == C1);
  std::vector<int> picks;
  std::vector<bool> stops;
  Pick p = pick(l, st, dev, q);
  picks.push_back(p.idx);
  stops.push_back(p.stop_tick);
  for (int i = 0; i < 4; ++i) {
    wake(l, st, dev, p.idx, 1 * MS);
    p = pick(l, st, dev, q);
    picks.push_back(p.idx);
    stops.push_back(p.stop_tick);
    if (i == 2) CHECK(l.promotion_count(C1) == 3);
  }
  CHECK(picks == std::vector<int>{C1, C1, C1, C1, C1E});
  CHECK(l.promotion_count(C1) == 0);  // reset on leaving the rung

  wake(l, st, dev, C1E, 5 * US);
  p = pick(l, st, dev, q);
  stops.push_back(p.stop_tick);
  CHECK(p.idx == C1);
  CHECK(l.demotion_count(C1E) == 0);
  for (bool s : stops) CHECK(s);  // ladder never retains the tick

  // Four more long idles in C1 -> C1E, four in C1E (990 000 > 10 000) -> C6; a 100 µs idle in C6
  // (233 000 - 133 000 = 100 000 < 133 000) -> C1E.
  for (int i = 0; i < 8; ++i) {
    wake(l, st, dev, p.idx, 1 * MS);
    p = pick(l, st, dev, q);
  }
  CHECK(p.idx == C6);
  wake(l, st, dev, C6, 100 * US);
  CHECK(pick(l, st, dev, q).idx == C1E);

  // A POLL entry (index 0) does not move the ladder: still on C1E.
  dev.last_residency_ns = 1000;
  l.reflect(dev, POLL, false);
  CHECK(l.last_state_idx() == C1E);
}

TEST_CASE("cpuidle governors: create() runs enable_device for each governor", "[cpuidle_gov]") {
  const auto st = skx();
  auto menu = CpuidleGovernor::create(GovernorKind::Menu, st);
  auto teo = CpuidleGovernor::create(GovernorKind::Teo, st);
  auto ladder = CpuidleGovernor::create(GovernorKind::Ladder, st);
  REQUIRE(menu);
  REQUIRE(teo);
  REQUIRE(ladder);
  CHECK(std::string(menu->name()) == "menu");
  CHECK(std::string(teo->name()) == "teo");
  CHECK(std::string(ladder->name()) == "ladder");
  auto* m = dynamic_cast<MenuGovernor*>(menu.get());
  REQUIRE(m);
  for (int b = 0; b < MENU_BUCKETS; ++b) CHECK(m->correction_factor(b) == 8192u);
  // The blocked-vCPU query through the base interface gives the same answers as above.
  CpuidleDevice d1, d2;
  CHECK(pick(*menu, st, d1, query(300 * US, 300 * US)).idx == C1E);
  CHECK(pick(*teo, st, d2, query(300 * US, 300 * US)).idx == C1E);
}
