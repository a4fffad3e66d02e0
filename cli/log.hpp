// Diagnostics through spdlog on stderr ("vtick: MESSAGE", "vtick: warning: MESSAGE");
// tables and data stay on stdout. Every subcommand takes --log-level, -v and -q.
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace vtick {

struct LogOptions {
  std::string level;     // "" (info), trace, debug, info, warn, error, critical, off
  bool verbose = false;  // -v: debug
  bool quiet = false;    // -q: warn (warnings and errors only, no progress)
};

// Adds --log-level LEVEL, -v and -q to a subcommand.
void add_log_options(CLI::App* sub, LogOptions& o);

// The default logger: stderr, the "vtick: " pattern, level info. Call first in main().
void init_logging();

// Applies the options; returns 0, or 2 after naming the option and the allowed values.
int apply_log_options(const LogOptions& o);

// Progress lines and bars are info-level output written directly to stderr (a bar is
// redrawn in place, which a log line cannot be): shown at info and below.
bool progress_enabled();

}  // namespace vtick
