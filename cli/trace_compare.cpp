// vtick trace-compare: parses nothing itself beyond its options; the engine is study/.
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "study/trace_compare.hpp"

namespace vtick {

int cmd_trace_compare(const TraceCompareOptions& o) {
  std::vector<Band> bands;
  if (!o.bands_path.empty()) bands = load_bands(o.bands_path);  // bad bands fail before reading traces
  if (!o.json_path.empty())
    if (int rc = check_output("--json", o.json_path)) return rc;
  TraceSummary real = summarize_trace(o.real_path);
  TraceSummary sim = summarize_trace(o.sim_path);
  std::vector<CompareRow> rows = compare_traces(real, sim);
  std::vector<BandMiss> misses = check_bands(rows, bands);
  bool json_to_stdout = !o.json_path.empty() && output_is_stdout(o.json_path);
  if (!json_to_stdout) std::fputs(compare_table(real, sim, rows).c_str(), stdout);
  if (!o.json_path.empty() && !write_output("--json", o.json_path, compare_json(real, sim, rows, bands, misses).dump(1) + "\n"))
    return 1;
  for (const BandMiss& m : misses)
    spdlog::error("out of band: {} {} ({}): {}", m.band.interval, m.band.statistic, m.band.where, m.why);
  if (!bands.empty() && misses.empty() && !json_to_stdout)
    std::printf("all %zu bands of %s met\n", bands.size(), o.bands_path.c_str());
  return misses.empty() ? 0 : 1;
}

}  // namespace vtick
