// vtick subcommands; each returns the process exit status (0 ok, 1 failure, 2 bad input).
#pragma once
#include <string>
#include <vector>

namespace vtick {

// Writes through a temporary file and a rename: readers never see half a file.
bool write_file_atomic(const std::string& path, const std::string& text);

struct RunOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string json_path;
  std::string events_path;  // model events as text lines
  std::string trace_path;   // Chrome/Perfetto trace-event JSON
  std::string ftrace_path;  // ftrace text
  std::string trace_window; // START:END
  bool quiet = false;
  bool timing = false;
};

int cmd_run(const RunOptions& o);
int cmd_validate(const std::string& scenario, const std::vector<std::string>& sets);
int cmd_list(const std::string& what);
// Renders a trace written by `vtick run --trace` as an SVG timeline.
int cmd_timeline(const std::string& trace, const std::string& svg, const std::string& window);

struct CompareOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::vector<std::string> policies;  // values of `key`
  std::string key = "guest.tick_policy";
  int seeds = 1;
  int jobs = 0;  // 0: number of cores
  std::string json_path;
  bool quiet = false;
  bool ablate = false;
};
int cmd_compare(const CompareOptions& o);

}  // namespace vtick
