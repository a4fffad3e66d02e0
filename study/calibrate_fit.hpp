// vtick calibrate's search: a mixed Latin hypercube over continuous costs and discrete
// choices (the halt-poll window between the probe's gaps, the host governor, timer
// advance), then NLopt's BOBYQA on the costs alternated with sweeps of the choices, and
// the uncertainty of each: the Jacobian for a cost, the re-fitted runner-up for a choice.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace vtick {

struct FitParam {
  std::string key, unit;
  double dflt, lo, hi;  // continuous: the default and the range searched; discrete: the default's level
  bool log = false;       // log scale (lo > 0)
  bool duration = false;  // written with its unit
  // discrete: the values tried (as --set writes them) and how each is printed; the search
  // works on the level's index (x) and never between levels
  std::vector<std::string> levels, level_text;

  bool discrete() const { return !levels.empty(); }
  double to_x(double u) const;  // u in [0, 1] to the value (discrete: the level's index)
  double to_u(double x) const;
  std::string set_text(double x) const;    // "key=value" for --set
  std::string value_text(double x) const;  // the value as the tables print it
};

struct FitResult {
  std::vector<double> x;         // the best point (discrete: level index)
  std::vector<double> sigma_ln;  // continuous: sigma of ln x (log) or of x; NaN: not identifiable
  std::vector<bool> identifiable;
  // discrete: the best chi2 found at each level (the runner-up re-fitted, the others with
  // the costs at the best point), the runner-up and its chi2 above the best
  std::vector<std::vector<double>> level_chi2;
  std::vector<int> runner_up;
  std::vector<double> delta_chi2;
  double chi2 = 0;
  double chi2_consistent = 0;  // the largest chi2 consistent with the profile's noise
  double scale = 1;            // chi2 per degree of freedom, at least 1
  bool consistent = false;     // the best point is
  int n = 0;
};

struct FitObjective {
  std::vector<FitParam> params;
  // the residuals of the figures at x (one value per parameter, as FitParam::to_x gives)
  std::function<std::vector<double>(const std::vector<double>&)> residuals;
  std::function<int()> evaluations;  // how many distinct points were run so far
  bool quiet = false;
};

FitResult fit(const FitObjective& ob, int max_evals);

}  // namespace vtick
