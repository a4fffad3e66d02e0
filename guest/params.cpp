#include "core/parse_num.hpp"
#include "guest/params.hpp"

#include <sstream>

namespace vtick {

VTICK_PARAM_TABLE(GuestCosts, VTICK_GUEST_COSTS)
VTICK_PARAM_CTOR(GuestCosts)
VTICK_PARAM_TABLE(NohzReasons, VTICK_NOHZ_REASONS)
VTICK_PARAM_CTOR(NohzReasons)
VTICK_PARAM_TABLE(GuestParams, VTICK_GUEST_PARAMS)
VTICK_PARAM_CTOR(GuestParams)

NohzPollSeries nohz_poll_series_switches(NohzPollSeriesVariant v) {
  NohzPollSeries s;
  if (v == NohzPollSeriesVariant::None) return s;
  s.p2 = true;
  s.p1_user_entry = true;
  s.p1_kick = v != NohzPollSeriesVariant::P2WithoutKick;
  s.p1_stopped_tick_fix = v != NohzPollSeriesVariant::P2WithoutStoppedTickFix;
  return s;
}

// haltpoll.<module parameter>: a row of HaltpollParams' table.
static const Param<HaltpollParams>* haltpoll_param(const std::string& key) {
  if (key.rfind("haltpoll.", 0) != 0) return nullptr;
  for (const auto& row : HaltpollParams::table())
    if ("haltpoll" + row.key == key) return &row;
  return nullptr;
}

static bool parse_uint(const std::string& v, std::uint64_t& out) {
  long long n = 0;
  if (v.empty() || v[0] == '-' || v.size() > 12 || !parse_int(v, 0, 999999999999LL, n)) return false;
  out = static_cast<std::uint64_t>(n);
  return true;
}

std::string parse_cmdline(const std::string& cmdline, GuestParams& p, int nr_cpus) {
  std::string allowed = "nohz=on|off, nohz_full=<cpulist>, idle=poll, nohlt, cpuidle.off=1, cpuidle_haltpoll.force=1";
  for (const auto& row : HaltpollParams::table()) allowed += ", haltpoll" + row.key + (row.kind == PKind::Bool ? "=Y|N" : "=N");
  std::istringstream in(cmdline);
  std::string tok;
  HaltpollParams& hp = p.cpuidle.haltpoll;
  bool cpuidle_off = false;
  while (in >> tok) {
    auto eq = tok.find('=');
    std::string key = tok.substr(0, eq);
    std::string val = eq == std::string::npos ? "" : tok.substr(eq + 1);
    std::uint64_t n = 0;
    auto number = [&](const char* what) -> std::string {
      if (!parse_uint(val, n)) return tok + ": " + what + " must be a non-negative integer";
      return "";
    };
    std::string err;
    if (key == "nohz") {
      if (val == "off") p.nohz = false;
      else if (val == "on") p.nohz = true;
      else return tok + ": allowed nohz=on or nohz=off";
    } else if (key == "nohz_full") {
      if (!parse_cpulist(val, nr_cpus, p.nohz_full))
        return tok + ": a cpulist like 2-3 or 1,3 of CPUs below " + std::to_string(nr_cpus);
    } else if (key == "idle") {
      if (val != "poll") return tok + ": only idle=poll is modelled";
      p.idle_poll = true;
    } else if (tok == "nohlt") {
      p.idle_poll = true;
    } else if (key == "cpuidle.off") {
      if (val != "1") return tok + ": allowed cpuidle.off=1";
      cpuidle_off = true;  // wherever it stands on the line: no driver registers
    } else if (key == "cpuidle_haltpoll.force") {
      if (val != "1") return tok + ": allowed cpuidle_haltpoll.force=1";
      p.cpuidle.driver = CpuidleDriver::Haltpoll;
    } else if (const Param<HaltpollParams>* hp_row = haltpoll_param(key)) {
      if (hp_row->kind == PKind::Bool) {
        if (val != "Y" && val != "N" && val != "1" && val != "0") return tok + ": allowed Y or N";
        hp_row->set(hp, val == "Y" || val == "1");
      } else {
        if (!(err = number(key.c_str() + 9)).empty()) return err;
        auto [lo, hi] = hp_row->range_for(default_pctx());
        if (static_cast<double>(n) < lo || static_cast<double>(n) > hi) return tok + ": out of range; allowed " + hp_row->range_text(default_pctx());
        hp_row->set(hp, static_cast<std::int64_t>(n));
      }
    } else {
      return "boot parameter '" + tok + "' is not modelled; allowed: " + allowed;
    }
  }
  if (cpuidle_off) p.cpuidle.driver = CpuidleDriver::None;  // cpuidle_not_available(), whatever else asked for a driver
  return "";
}

}  // namespace vtick
