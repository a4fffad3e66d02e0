// Time-in-state accounting: every entity is in exactly one state at any instant.
#pragma once
#include <array>
#include <cstddef>

#include "core/time.hpp"
#include "core/warn.hpp"

namespace vtick {

// States are a dense enum whose last enumerator is Count. Every transition closes
// the previous state at the same instant it opens the next, so the per-state
// totals of an entity always sum to the time it has been observed.
template <typename State>
class StateClock {
 public:
  static constexpr std::size_t N = static_cast<std::size_t>(State::Count);

  void start(State s, sim_ns now) { cur_ = s; since_ = now; }
  // Time never goes back for an entity: an actor that ran ahead of the clock (core/sg.hpp
  // run_ahead) and then one acting in its past would be a causality error of the engine.
  void enter(State s, sim_ns now) {
    if (VTICK_WARN(now < since_, "a state clock went back by ", since_ - now, " ns")) now = since_;
    total_[static_cast<std::size_t>(cur_)] += now - since_;
    cur_ = s;
    since_ = now;
  }
  State current() const { return cur_; }
  sim_ns since() const { return since_; }
  // Totals as of `now`, counting the open interval of the current state.
  std::array<sim_ns, N> totals(sim_ns now) const {
    auto t = total_;
    if (now > since_) t[static_cast<std::size_t>(cur_)] += now - since_;
    return t;
  }

 private:
  State cur_{};
  sim_ns since_ = 0;
  std::array<sim_ns, N> total_{};
};

}  // namespace vtick
