// drivers/cpuidle/cpuidle.h + governor.c: a CPU's idle-state table, its device history, and the governor interface.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/time.hpp"

namespace vtick::cpuidle {  // the host's cpuidle framework (the guest has its own: guest/cpuidle.hpp)

struct CpuidleState {            // struct cpuidle_state
  const char* name;
  sim_ns exit_latency_ns;
  sim_ns target_residency_ns;
  bool polling = false;          // CPUIDLE_FLAG_POLLING (x86 state 0, POLL)
  bool disabled = false;
};

struct CpuidleDevice {           // the parts of struct cpuidle_device the governors read
  sim_ns last_residency_ns = 0;  // set by the caller after each idle period (includes the exit latency; 0 = entry rejected)
  bool poll_time_limit = false;  // set by the caller when a POLL state ended by its time limit; governors clear it where the kernel does
};

struct IdleQuery {               // what select() may read (tick_nohz_get_sleep_length() and friends), computed by the caller
  sim_ns sleep_length;           // tick_nohz_get_sleep_length()'s return: next timer event (hrtimers incl.), the tick excluded if it may stop
  sim_ns delta_tick;             // its *delta_next: the next clock event including the tick
  bool tick_stopped;             // tick_nohz_tick_stopped()
  sim_ns latency_req;            // cpuidle_governor_latency_req(); use a huge value for "no constraint"
  sim_ns tick_nsec;              // TICK_NSEC of the host
};

enum class GovernorKind { Menu, Teo, Ladder };

class CpuidleGovernor {
 public:
  virtual ~CpuidleGovernor() = default;
  // governor->select(): the state index to enter; clears stop_tick (initially true) to retain the tick.
  virtual int select(const std::vector<CpuidleState>& states, CpuidleDevice& dev, const IdleQuery& q, bool& stop_tick) = 0;
  // governor->reflect(): after the idle period in `index` ended; tick_wakeup = tick_nohz_idle_got_tick().
  virtual void reflect(CpuidleDevice& dev, int index, bool tick_wakeup) = 0;
  virtual const char* name() const = 0;
  static std::unique_ptr<CpuidleGovernor> create(GovernorKind k, const std::vector<CpuidleState>& states);  // enable_device()
};

// drivers/cpuidle/governors/gov.h
inline constexpr sim_ns RESIDENCY_THRESHOLD_NS = 15 * NSEC_PER_USEC;

// menu.c's pure helpers, free so tests can feed them hand-worked samples.
inline constexpr int MENU_BUCKETS = 6;    // BUCKETS
inline constexpr int MENU_INTERVALS = 8;  // INTERVALS
unsigned int get_typical_interval(const unsigned int intervals[MENU_INTERVALS]);  // µs, or UINT_MAX
int which_bucket(std::uint64_t duration_ns);
// menu_select()'s timer prediction: next_timer_ns x factor/8192, rounded to the nearest µs.
unsigned int menu_timer_us(std::uint64_t next_timer_ns, unsigned int correction_factor);

// teo.c's metric decay (m -= m/8, small values snap to 0).
void teo_decay(unsigned int& metric);

// drivers/cpuidle/governors/menu.c
class MenuGovernor final : public CpuidleGovernor {
 public:
  explicit MenuGovernor(const std::vector<CpuidleState>& states);  // menu_enable_device()
  int select(const std::vector<CpuidleState>& states, CpuidleDevice& dev, const IdleQuery& q, bool& stop_tick) override;
  void reflect(CpuidleDevice& dev, int index, bool tick_wakeup) override;
  const char* name() const override { return "menu"; }

  unsigned int correction_factor(int bucket) const { return correction_factor_[bucket]; }
  unsigned int interval(int i) const { return intervals_[i]; }
  int interval_ptr() const { return interval_ptr_; }
  int bucket() const { return bucket_; }
  std::uint64_t next_timer_ns() const { return next_timer_ns_; }
  bool needs_update() const { return needs_update_; }

 private:
  int menu_select(const std::vector<CpuidleState>& states, CpuidleDevice& dev, const IdleQuery& q, bool& stop_tick);
  void menu_reflect(int index, bool tick_wakeup);
  void menu_update(const std::vector<CpuidleState>& states, const CpuidleDevice& dev, sim_ns tick_nsec);
  void menu_update_intervals(unsigned int interval_us);

  bool needs_update_ = false;
  bool tick_wakeup_ = false;
  int last_state_idx_ = 0;  // dev->last_state_idx
  std::uint64_t next_timer_ns_ = 0;
  int bucket_ = 0;
  unsigned int correction_factor_[MENU_BUCKETS];
  unsigned int intervals_[MENU_INTERVALS];
  int interval_ptr_ = 0;
};

// drivers/cpuidle/governors/teo.c
class TeoGovernor final : public CpuidleGovernor {
 public:
  explicit TeoGovernor(const std::vector<CpuidleState>& states);  // teo_enable_device()
  int select(const std::vector<CpuidleState>& states, CpuidleDevice& dev, const IdleQuery& q, bool& stop_tick) override;
  void reflect(CpuidleDevice& dev, int index, bool tick_wakeup) override;
  const char* name() const override { return "teo"; }

  unsigned int hits(int i) const { return bins_[i].hits; }
  unsigned int intercepts(int i) const { return bins_[i].intercepts; }
  unsigned int total() const { return total_; }
  unsigned int total_tick() const { return total_tick_; }
  unsigned int tick_intercepts() const { return tick_intercepts_; }
  unsigned int short_idles() const { return short_idles_; }
  sim_ns sleep_length_ns() const { return sleep_length_ns_; }

 private:
  struct Bin {  // struct teo_bin
    unsigned int intercepts = 0;
    unsigned int hits = 0;
  };
  int teo_select(const std::vector<CpuidleState>& states, CpuidleDevice& dev, const IdleQuery& q, bool& stop_tick);
  void teo_reflect(int state, bool tick_wakeup);
  void teo_update(const std::vector<CpuidleState>& states, CpuidleDevice& dev, sim_ns tick_nsec);

  sim_ns sleep_length_ns_ = 0;
  std::vector<Bin> bins_;
  unsigned int total_ = 0;
  unsigned int total_tick_ = 0;
  unsigned int tick_intercepts_ = 0;
  unsigned int short_idles_ = 0;
  bool tick_wakeup_ = false;
  int last_state_idx_ = -1;  // dev->last_state_idx; -1: no idle period to learn from yet
};

// drivers/cpuidle/governors/ladder.c
class LadderGovernor final : public CpuidleGovernor {
 public:
  explicit LadderGovernor(const std::vector<CpuidleState>& states);  // ladder_enable_device()
  int select(const std::vector<CpuidleState>& states, CpuidleDevice& dev, const IdleQuery& q, bool& stop_tick) override;
  void reflect(CpuidleDevice& dev, int index, bool tick_wakeup) override;
  const char* name() const override { return "ladder"; }

  int last_state_idx() const { return last_state_idx_; }
  int promotion_count(int i) const { return states_[i].promotion_count; }
  int demotion_count(int i) const { return states_[i].demotion_count; }

 private:
  struct LadderState {  // struct ladder_device_state: stats + threshold
    int promotion_count = 0;
    int demotion_count = 0;
    int promotion_count_threshold = 0;
    int demotion_count_threshold = 0;
    sim_ns promotion_time_ns = 0;
    sim_ns demotion_time_ns = 0;
  };
  int ladder_select_state(const std::vector<CpuidleState>& states, const CpuidleDevice& dev, const IdleQuery& q);
  void ladder_reflect(int index);
  void ladder_do_selection(int old_idx, int new_idx);

  std::vector<LadderState> states_;
  int last_state_idx_ = 0;  // dev->last_state_idx
};

}  // namespace vtick::cpuidle
