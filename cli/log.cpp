#include "cli/log.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstring>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace vtick {

namespace {

// %* in the pattern: the level as a word where it adds something ("warning: "); errors
// keep the plain "vtick: MESSAGE" form users and scripts already read.
class LevelPrefix : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const char* p = "";
    switch (msg.level) {
      case spdlog::level::trace: p = "trace: "; break;
      case spdlog::level::debug: p = "debug: "; break;
      case spdlog::level::warn: p = "warning: "; break;
      default: break;
    }
    dest.append(p, p + std::strlen(p));
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<LevelPrefix>(); }
};

const char* const kLevels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};

}  // namespace

void add_log_options(CLI::App* sub, LogOptions& o) {
  sub->add_option("--log-level", o.level, "diagnostics on stderr: trace|debug|info|warn|error|critical|off (default info)");
  auto* v = sub->add_flag("-v", o.verbose, "verbose: --log-level debug");
  auto* q = sub->add_flag("-q", o.quiet, "only warnings and errors, no progress: --log-level warn");
  v->excludes(q);
  q->excludes(v);
}

void init_logging() {
  auto logger = std::make_shared<spdlog::logger>("vtick", std::make_shared<spdlog::sinks::stderr_sink_st>());
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<LevelPrefix>('*').set_pattern("vtick: %*%v");
  logger->set_formatter(std::move(f));
  logger->set_level(spdlog::level::info);
  logger->flush_on(spdlog::level::trace);  // forked children and the parent interleave whole lines
  spdlog::set_default_logger(logger);
}

int apply_log_options(const LogOptions& o) {
  spdlog::level::level_enum l = spdlog::level::info;
  if (o.verbose) l = spdlog::level::debug;
  if (o.quiet) l = spdlog::level::warn;
  if (!o.level.empty()) {  // explicit level wins over -v / -q
    auto it = std::find(std::begin(kLevels), std::end(kLevels), o.level);
    if (it == std::end(kLevels)) {
      spdlog::error("--log-level '{}': allowed trace, debug, info, warn, error, critical, off", o.level);
      return 2;
    }
    l = static_cast<spdlog::level::level_enum>(it - std::begin(kLevels));
  }
  spdlog::set_level(l);
  return 0;
}

bool progress_enabled() { return spdlog::should_log(spdlog::level::info); }

}  // namespace vtick
