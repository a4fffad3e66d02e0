#include "core/parse_num.hpp"
#include "core/param.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/time.hpp"

namespace vtick {

const char* pkind_name(PKind k) {
  switch (k) {
    case PKind::Int: return "integer";
    case PKind::Float: return "number";
    case PKind::Bool: return "boolean";
    case PKind::Duration: return "duration";
    case PKind::Enum: return "string";
    case PKind::Text: return "string";
    case PKind::CpuList: return "cpulist";
  }
  return "?";
}

namespace {

std::string num_text(double x) {
  std::ostringstream o;
  o.precision(12);
  o << x;
  return o.str();
}

}  // namespace

std::string pvalue_text(const PValue& v) {
  if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) return num_text(*d);
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

double pvalue_number(const PValue& v) {
  if (auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (auto* d = std::get_if<double>(&v)) return *d;
  return std::nan("");
}

const PCtx& default_pctx() {
  static const PCtx c{"x86_64", "skylake-sp"};
  return c;
}

Def& Def::on(const char* ctx, PValue v) {
  over_.push_back({ctx, std::move(v), false, 0, 0, ""});
  return *this;
}

Def& Def::on(const char* ctx, PValue v, double lo, double hi, const char* source) {
  over_.push_back({ctx, std::move(v), true, lo, hi, source});
  return *this;
}

Def& Def::only(const char* isa) {
  only_ = isa;
  return *this;
}

Def& Def::one_of(std::initializer_list<std::int64_t> values) {
  allowed_.assign(values.begin(), values.end());
  return *this;
}

Def Def::derived(const char* why) {
  Def d;
  d.v_ = std::int64_t{0};
  d.derived_ = why;
  return d;
}

namespace {

// The override that applies on `c`: the CPU model's beats the ISA's.
const Def::Override* find_override(const Def& d, const PCtx& c) {
  const Def::Override* isa = nullptr;
  for (const auto& o : d.overrides()) {
    if (o.ctx == c.arch) return &o;
    if (o.ctx == c.isa) isa = &o;
  }
  return isa;
}

}  // namespace

bool ParamInfo::applies(const PCtx& c) const { return dflt.only_isa().empty() || dflt.only_isa() == c.isa; }

PValue ParamInfo::default_for(const PCtx& c) const {
  const Def::Override* o = find_override(dflt, c);
  return o ? o->v : dflt.base();
}

std::pair<double, double> ParamInfo::range_for(const PCtx& c) const {
  const Def::Override* o = find_override(dflt, c);
  if (o && o->has_range) return {o->lo, o->hi};
  return {lo, hi};
}

const std::string& ParamInfo::source_for(const PCtx& c) const {
  const Def::Override* o = find_override(dflt, c);
  return o && o->has_range ? o->source : source;
}

std::string ParamInfo::value_text(const PValue& v) const {
  if (kind == PKind::Duration) {
    if (auto* i = std::get_if<std::int64_t>(&v)) return format_duration(*i);
  }
  if (kind == PKind::Enum || kind == PKind::Text || kind == PKind::CpuList) return "\"" + pvalue_text(v) + "\"";
  return pvalue_text(v);
}

std::string ParamInfo::range_text(const PCtx& c) const {
  if (!dflt.allowed().empty()) {
    std::string s;
    for (auto a : dflt.allowed()) s += (s.empty() ? "" : ", ") + std::to_string(a);
    return s;
  }
  auto [l, h] = range_for(c);
  if (l > h) return "";
  if (kind == PKind::Duration) return format_duration(static_cast<sim_ns>(l)) + " .. " + format_duration(static_cast<sim_ns>(h));
  return num_text(l) + " .. " + num_text(h);
}

std::string ParamInfo::type_text() const {
  std::string t = pkind_name(kind);
  if (!choices.empty()) {
    t += " {";
    for (std::size_t i = 0; i < choices.size(); ++i) t += (i ? "|" : "") + choices[i];
    t += "}";
  }
  std::string r = range_text(default_pctx());
  if (!r.empty()) t += " [" + r + "]";
  return t;
}

std::string ParamInfo::check_value(const PValue& v, const PCtx& c) const {
  double x = 0;
  switch (kind) {
    case PKind::Int:
    case PKind::Duration:
      x = static_cast<double>(std::get<std::int64_t>(v));
      break;
    case PKind::Float:
      x = std::get<double>(v);
      if (!std::isfinite(x)) return "must be a finite number";
      break;
    case PKind::Enum: {
      const std::string& s = std::get<std::string>(v);
      if (std::find(choices.begin(), choices.end(), s) == choices.end()) {
        std::string m = "allowed values: ";
        for (std::size_t i = 0; i < choices.size(); ++i) m += (i ? ", " : "") + choices[i];
        return m;
      }
      return "";
    }
    case PKind::CpuList: {
      std::uint64_t mask = 0;
      const std::string& s = std::get<std::string>(v);
      if (!s.empty() && !parse_cpulist(s, 64, mask)) return "a cpulist like \"0-1\" or \"0,2\" (empty: all)";
      return "";
    }
    default:
      return "";
  }
  if (!dflt.allowed().empty()) {
    auto n = static_cast<std::int64_t>(x);
    if (std::find(dflt.allowed().begin(), dflt.allowed().end(), n) == dflt.allowed().end())
      return "allowed values: " + range_text(c);
    return "";
  }
  auto [l, h] = range_for(c);
  if (l <= h && (x < l || x > h)) {
    std::string m = "out of range; allowed " + range_text(c);
    if (!unit.empty() && kind != PKind::Duration) m += " " + unit;
    return m;
  }
  return "";
}

bool parse_cpulist(const std::string& s, int nr_cpus, std::uint64_t& mask) {
  mask = 0;
  std::istringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    auto dash = part.find('-');
    std::string a = part.substr(0, dash), b = dash == std::string::npos ? a : part.substr(dash + 1);
    long long lo = 0, hi = 0;
    if (a.empty() || b.empty() || a[0] == '-' || b[0] == '-' || !parse_int(a, 0, 9999, lo) || !parse_int(b, 0, 9999, hi)) return false;
    if (lo > hi || hi >= nr_cpus || hi >= 64) return false;
    for (long long c = lo; c <= hi; ++c) mask |= 1ULL << c;
  }
  return mask != 0;
}

CpuList PConv<CpuList>::from(const PValue& v) {
  CpuList l;
  l.text = std::get<std::string>(v);
  if (l.text.empty() || !parse_cpulist(l.text, 64, l.mask)) l.mask = ~0ULL;
  return l;
}

void check_param_infos(const std::vector<const ParamInfo*>& rows) {
  std::set<std::string> keys;
  std::vector<PCtx> ctxs = {default_pctx()};
  for (const ParamInfo* p : rows) {
    if (!keys.insert(p->key).second) throw std::logic_error("parameter " + p->key + " declared twice");
    if (p->help.empty()) throw std::logic_error("parameter " + p->key + " has no help line");
    if (!p->dflt.derived_why().empty()) continue;
    std::vector<PCtx> where = {default_pctx()};
    for (const auto& o : p->dflt.overrides()) where.push_back({o.ctx, o.ctx});
    for (const auto& c : where) {
      PValue d = p->default_for(c);
      bool kind_ok = (p->kind == PKind::Int || p->kind == PKind::Duration) ? std::holds_alternative<std::int64_t>(d)
                     : p->kind == PKind::Float                             ? !std::holds_alternative<bool>(d) &&
                                                                                 !std::holds_alternative<std::string>(d)
                     : p->kind == PKind::Bool                              ? std::holds_alternative<bool>(d)
                                                                           : std::holds_alternative<std::string>(d);
      if (!kind_ok) throw std::logic_error("parameter " + p->key + ": default of the wrong kind");
      if (p->kind == PKind::Float && std::holds_alternative<std::int64_t>(d)) d = static_cast<double>(std::get<std::int64_t>(d));
      std::string err = p->check_value(d, c);
      if (!err.empty()) throw std::logic_error("parameter " + p->key + ": default " + pvalue_text(d) + " on " + c.arch + ": " + err);
    }
  }
}

}  // namespace vtick
