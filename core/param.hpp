// Declared parameters, in the spirit of ns-3's TypeId::AddAttribute and gem5's Param:
// every knob is one row beside the struct it lives in (key, kind, default per
// architecture, range or choices, unit, source, help). The scenario loader, --set,
// `vtick validate`, `vtick list keys`, the resolved configuration in the JSON and the
// tables of docs/model.md all read these rows; nothing else spells a default.
//
// A struct declares its fields with an X-macro list, one row per field:
//   P(C++ type, field, key, kind, default, min, max, unit, source, help)
// and VTICK_PARAMS() turns the list into the members (in the struct) while
// VTICK_PARAM_TABLE() turns it into the table (in a .cpp file; see host/kvm_params.hpp).
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/enum_names.hpp"

namespace vtick {

// How a value is written in a scenario and what it means.
enum class PKind {
  Int,       // integer
  Float,     // number
  Bool,      // true / false
  Duration,  // "10ms" (stored as ns)
  Enum,      // one of the declared names (stored as a C++ enum)
  Text,      // free string (parsed by the loader: a command line, a list of events)
  CpuList,   // "0-1,3": a cpulist (empty: all)
};
const char* pkind_name(PKind k);

// A parameter value as the loader and the resolved configuration see it. Enum values
// travel as their names; durations as ns.
using PValue = std::variant<std::int64_t, double, bool, std::string>;
std::string pvalue_text(const PValue& v);
double pvalue_number(const PValue& v);  // integers and numbers; NaN for the rest

// Where a default, a range or a source applies: an ISA ("x86_64", "arm64") or a host
// CPU model's cost table ("skylake-sp", "milan", "altra"); the model's name wins.
struct PCtx {
  std::string isa;
  std::string arch;
};
// The built-in scenario's platform (VM.Standard2.1: Skylake-SP, x86_64): what a struct
// built without a scenario gets, so code and scenario files see the same machine.
const PCtx& default_pctx();

// The default of one parameter, with per-architecture differences.
class Def {
 public:
  Def(int v) : v_(std::int64_t{v}) {}
  Def(long v) : v_(std::int64_t{v}) {}
  Def(long long v) : v_(static_cast<std::int64_t>(v)) {}
  Def(unsigned long long v) : v_(static_cast<std::int64_t>(v)) {}
  Def(double v) : v_(v) {}
  Def(bool v) : v_(v) {}
  Def(const char* v) : v_(std::string(v)) {}

  // On `ctx` (an ISA or arch name) the default is `v` (and the range lo..hi with its
  // own source, when given).
  Def& on(const char* ctx, PValue v);
  Def& on(const char* ctx, PValue v, double lo, double hi, const char* source);
  // The key exists only on this ISA (an x86 or arm64 KVM module parameter).
  Def& only(const char* isa);
  // Integer values the kernel allows (Kconfig choices such as HZ_100 .. HZ_1000).
  Def& one_of(std::initializer_list<std::int64_t> values);
  // No fixed default: the loader derives it (from the shape, another key); `why` says how.
  static Def derived(const char* why);

  struct Override {
    std::string ctx;
    PValue v;
    bool has_range = false;
    double lo = 0, hi = 0;
    std::string source;
  };
  const PValue& base() const { return v_; }
  const std::vector<Override>& overrides() const { return over_; }
  const std::string& only_isa() const { return only_; }
  const std::vector<std::int64_t>& allowed() const { return allowed_; }
  const std::string& derived_why() const { return derived_; }
  Def() = default;

 private:
  PValue v_;
  std::vector<Override> over_;
  std::string only_;
  std::vector<std::int64_t> allowed_;
  std::string derived_;
};

inline constexpr double kNoMin = 1, kNoMax = 0;  // min > max: no numeric range

// One declared parameter, independent of the struct it lives in.
struct ParamInfo {
  std::string key;     // full key: "host.kvm.halt_poll_ns"
  PKind kind;
  Def dflt;
  double lo, hi;       // numeric range (durations in ns); lo > hi: none
  std::string unit;    // "ns", "factor", "Hz", "count", ...
  std::string source;  // a citation, "[EST] ..." or "[VERIFY] ..."
  std::string help;
  std::vector<std::string> choices;  // Enum: the names

  bool applies(const PCtx& c) const;              // false: a key of another ISA
  PValue default_for(const PCtx& c) const;
  bool has_range() const { return lo <= hi; }
  std::pair<double, double> range_for(const PCtx& c) const;
  const std::string& source_for(const PCtx& c) const;
  // "" or why `v` (of the right kind) is not allowed on `c`.
  std::string check_value(const PValue& v, const PCtx& c) const;
  std::string value_text(const PValue& v) const;  // as a scenario file writes it
  std::string type_text() const;                  // "duration [0 .. 10ms]", "{menu|promote}"
  std::string range_text(const PCtx& c) const;    // "0 .. 10ms", "" when none
};

// A parameter bound to its field in struct S.
template <class S>
struct Param : ParamInfo {
  std::function<void(S&, const PValue&)> set;
  std::function<PValue(const S&)> get;
};
template <class S>
using ParamTable = std::vector<Param<S>>;

// ---- value conversion between PValue and a field's C++ type ----

// A cpulist key: the text as written and the mask it selects (empty text: every CPU).
struct CpuList {
  std::string text;
  std::uint64_t mask = ~0ULL;
};
bool parse_cpulist(const std::string& s, int nr_cpus, std::uint64_t& mask);  // "2-3,5"

template <class T, class = void>
struct PConv;
template <class T>
struct PConv<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  static T from(const PValue& v) {
    return std::holds_alternative<double>(v) ? static_cast<T>(std::llround(std::get<double>(v))) : static_cast<T>(std::get<std::int64_t>(v));
  }
  static PValue to(T x) { return static_cast<std::int64_t>(x); }
};
template <>
struct PConv<double> {
  static double from(const PValue& v) {
    return std::holds_alternative<std::int64_t>(v) ? static_cast<double>(std::get<std::int64_t>(v)) : std::get<double>(v);
  }
  static PValue to(double x) { return x; }
};
template <>
struct PConv<bool> {
  static bool from(const PValue& v) { return std::get<bool>(v); }
  static PValue to(bool x) { return x; }
};
template <>
struct PConv<std::string> {
  static std::string from(const PValue& v) { return std::get<std::string>(v); }
  static PValue to(const std::string& x) { return x; }
};
template <>
struct PConv<CpuList> {
  static CpuList from(const PValue& v);  // the text; the mask over 64 CPUs (the loader bounds it)
  static PValue to(const CpuList& x) { return x.text; }
};
template <class E>
struct PConv<E, std::enable_if_t<std::is_enum_v<E>>> {
  static E from(const PValue& v) {
    E e{};
    parse_enum(std::get<std::string>(v), e);  // checked against the choices before
    return e;
  }
  static PValue to(E e) { return std::string(enum_name(e)); }
};

template <class T>
std::vector<std::string> pchoices() {
  if constexpr (std::is_enum_v<T>) return enum_names_of<T>();
  else return {};
}

template <class S, class T>
Param<S> make_param(const char* key, PKind kind, Def d, double lo, double hi, const char* unit, const char* source,
                    const char* help, T S::*field) {
  Param<S> p;
  p.key = key;
  p.kind = kind;
  p.dflt = std::move(d);
  p.lo = lo;
  p.hi = hi;
  p.unit = unit;
  p.source = source;
  p.help = help;
  p.choices = pchoices<T>();
  p.set = [field](S& s, const PValue& v) { s.*field = PConv<T>::from(v); };
  p.get = [field](const S& s) { return PConv<T>::to(s.*field); };
  return p;
}

// Checks a table once at start-up (a default outside its range or choices, a duplicate
// key): a programming error, thrown as std::logic_error.
void check_param_infos(const std::vector<const ParamInfo*>& rows);

// Sets every field of `s` to its default on `c`.
template <class S>
void apply_defaults(S& s, const ParamTable<S>& t, const PCtx& c) {
  for (const auto& p : t)
    if (p.dflt.derived_why().empty()) p.set(s, p.default_for(c));
}

// The rows of a nested struct's table, re-bound to the outer struct and with `prefix`
// put before their keys.
template <class Outer, class Inner>
void mount(ParamTable<Outer>& out, const std::string& prefix, const ParamTable<Inner>& in, std::function<Inner&(Outer&)> at) {
  for (const auto& p : in) {
    Param<Outer> q;
    static_cast<ParamInfo&>(q) = p;
    q.key = prefix + p.key;
    auto set = p.set;
    auto get = p.get;
    q.set = [set, at](Outer& o, const PValue& v) { set(at(o), v); };
    q.get = [get, at](const Outer& o) { return get(at(const_cast<Outer&>(o))); };
    out.push_back(std::move(q));
  }
}

}  // namespace vtick

// The members of a struct from its list: P(type, field, ...) -> `type field{};`.
#define VTICK_PARAM_FIELD(T, field, key, kind, dflt, lo, hi, unit, source, help) T field{};
#define VTICK_PARAM_FIELDS(LIST) LIST(VTICK_PARAM_FIELD)
// The table of struct `S` from its list (in a .cpp file: S::table()).
#define VTICK_PARAM_ROW(T, field, key, kind, dflt, lo, hi, unit, source, help) \
  ::vtick::make_param<Self>(key, ::vtick::PKind::kind, ::vtick::Def(dflt), lo, hi, unit, source, help, &Self::field),
#define VTICK_PARAM_TABLE(S, LIST)                                   \
  const ::vtick::ParamTable<S>& S::table() {                         \
    using Self = S;                                                  \
    static const ::vtick::ParamTable<S> t = {LIST(VTICK_PARAM_ROW)}; \
    return t;                                                        \
  }
// S(): the defaults of the built-in platform.
#define VTICK_PARAM_CTOR(S) \
  S::S() { ::vtick::apply_defaults(*this, table(), ::vtick::default_pctx()); }
// Inside the struct: its members, its table and its default constructor (declared).
#define VTICK_PARAMS(S, LIST)                   \
  VTICK_PARAM_FIELDS(LIST)                      \
  static const ::vtick::ParamTable<S>& table(); \
  S()
