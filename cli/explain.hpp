// vtick explain: the state of a search for parameter sets that reproduce a reported
// signature (sim/explain_target.hpp), shared by the driver (cli/explain.cpp) and the
// report (cli/explain_report.cpp).
#pragma once
#include <string>
#include <vector>

#include "sim/designs.hpp"
#include "sim/explain_space.hpp"
#include "sim/explain_target.hpp"
#include "sim/stats.hpp"

namespace vtick {

struct Scenario;

// How much work a search does (--budget).
struct ExplainBudget {
  std::string name;
  std::string duration;   // run.duration of every run (the scenario's warm-up is kept)
  int screen_seeds;       // seeds per point while screening, designing and refining
  int morris_r;           // Morris trajectories
  int levels;             // Morris grid levels
  bool grouped;           // Morris over mechanisms (groups of factors) instead of factors
  int lhs_points;         // Latin hypercube points over the influential factors
  int top;                // how many factors are influential enough to search
  int starts;             // local refinements, from the best points so far
  int evals_per_start;    // evaluations of each refinement
  int confirm_seeds;      // seeds of the best sets, the baseline and the departures
  int best_sets;          // best sets confirmed and reported
  int batch;              // runs per Slurm array task
};
const ExplainBudget* find_budget(const std::string& name);  // "small", "full"

// One point of the space, evaluated on every constraint with seeds paired.
struct Evaluated {
  std::string phase;                // baseline, screen, design, refine, best, departure
  std::vector<double> u;            // factor coordinates; NaN: the scenario's own value
  std::vector<std::string> extra;   // key=value beyond the space (a departure)
  int seeds = 0;
  std::vector<SampleStats> change;  // per constraint: % change variant vs base
  std::vector<double> miss;         // per constraint: distance outside its band, in half-bands
  double distance = 0;              // root mean square of miss
  bool meets = false;               // every mean inside its band
  bool meets_noise = false;         // every 95% interval overlaps its band
};

struct FactorRank {
  int factor;                                // index in the space
  MorrisEffect on_distance;
  std::vector<MorrisEffect> on_constraint;   // effect on each constraint's change (% per unit)
};

struct DepartureResult {
  TargetDeparture departure;
  std::vector<Evaluated> tried;  // one per value, in order
  int smallest = -1;             // the first value meeting every constraint, -1: none
};

struct ExplainResult {
  ExplainTarget target;
  Space space;
  ExplainBudget budget;
  std::vector<std::string> groups;   // Morris groups (factor keys, or mechanisms)
  std::vector<int> group_of;         // factor -> group
  Evaluated baseline;
  std::vector<FactorRank> ranking;   // by mu* on the distance, most influential first (per group when grouped)
  std::vector<int> searched;         // factors of the design and the refinement
  std::vector<Evaluated> evaluated;  // every screened, designed and refined point
  std::vector<Evaluated> best;       // the best sets, confirmed with more seeds
  std::vector<DepartureResult> departures;
  int runs = 0;                      // distinct simulation runs behind the report
  std::string verdict;
};

// Writes DIR/explain.md, DIR/explain.json and DIR/figures/*.svg; false after logging.
bool write_explain_report(const ExplainResult& r, const std::vector<Scenario>& scenarios, const std::string& dir,
                          const std::string& manifest_json);

std::string explain_verdict(const ExplainResult& r);

// Text of a point's settings: "host.costs.vmexit_ns=u0.42 (2520ns on standard2.1) ..."
std::string point_sets_text(const ExplainResult& r, const Evaluated& e, const std::vector<Scenario>& scenarios);

}  // namespace vtick
