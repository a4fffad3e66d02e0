// Experimental designs of `vtick explain`: Morris elementary effects (Morris 1991, with
// the groups and the mu* measure of Campolongo, Cariboni and Saltelli 2007) and Latin
// hypercube samples (McKay, Beckman and Conover 1979), over the unit cube.
#pragma once
#include <cstdint>
#include <vector>

namespace vtick {

// One Morris trajectory over G groups: G + 1 points, point j+1 differing from point j in
// the factors of group moved[j] only, each by +-delta (sign[j][f] for factor f).
struct MorrisTrajectory {
  std::vector<std::vector<double>> points;  // G + 1 points of k coordinates
  std::vector<int> moved;                   // the group moved at each step
  std::vector<std::vector<int>> sign;       // per step, per factor: +1, -1 or 0 (not moved)
};

struct MorrisEffect {
  int n = 0;          // elementary effects (trajectories where it was defined)
  double mu = 0;      // mean effect
  double mu_star = 0; // mean absolute effect: the influence
  double sigma = 0;   // standard deviation: interaction or non-linearity
};

// r trajectories on a p-level grid (p even; delta = p / (2 (p - 1))); group[f] is factor
// f's group, 0 .. G-1 (each factor its own group: plain Morris).
std::vector<MorrisTrajectory> morris_design(const std::vector<int>& group, int r, int levels, std::uint64_t seed);
double morris_delta(int levels);

// The elementary effects of output y (y[t][j]: trajectory t's point j; NaN: undefined)
// per group. For a group the effect is the output's change over delta, its sign taken
// from the group's first factor (Campolongo et al. use mu* for groups, where it does not
// matter).
std::vector<MorrisEffect> morris_effects(const std::vector<MorrisTrajectory>& design, const std::vector<std::vector<double>>& y,
                                         int groups, int levels);

// n points, one in each of n equal strata per coordinate, at a uniform place inside it.
std::vector<std::vector<double>> latin_hypercube(int n, int k, std::uint64_t seed);

}  // namespace vtick
