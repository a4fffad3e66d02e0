// Counters that describe themselves, after KVM's stats descriptors (struct _kvm_stats_desc,
// STATS_DESC_COUNTER() in include/linux/kvm_host.h) and gem5's ADD_STAT: a stats struct
// lists its fields once,
//   C(type, field, "name as the kernel/KVM spells it", "unit", Counter|Gauge, "meaning")
// and VTICK_STATS() makes the members, their descriptors (descs()) and a visitor
// (for_each_stat()). The results (sim/collect.cpp) and `vtick list metrics` read both.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace vtick {

enum class StatKind {
  Counter,  // additive over time: differenced over the warm-up
  Gauge,    // a state at the end of the run
};

struct StatDesc {
  std::string name;  // relative to its scope ("kvm.halt_exits" under "vcpu<N>.")
  std::string unit;  // "count", "ns", ...
  StatKind kind;
  std::string help;
};

// A family of stats indexed by an enum: "host_time.<state>_ns" for every VcpuState.
// `names` are the enum's names; the pattern's "{}" is replaced by each.
std::vector<StatDesc> stat_family(const std::string& pattern, const std::vector<std::string>& names, const std::string& unit,
                                  StatKind kind, const std::string& help);
std::string stat_name(const std::string& pattern, const std::string& name);  // "{}" -> name

}  // namespace vtick

#define VTICK_STAT_FIELD(T, field, name, unit, kind, help) T field = 0;
#define VTICK_STAT_DESC(T, field, name, unit, kind, help) ::vtick::StatDesc{name, unit, ::vtick::StatKind::kind, help},
#define VTICK_STAT_VISIT(T, field, name, unit, kind, help) f(d[i++], static_cast<double>(field));
#define VTICK_STATS(LIST)                                                  \
  LIST(VTICK_STAT_FIELD)                                                   \
  static const std::vector<::vtick::StatDesc>& descs() {                  \
    static const std::vector<::vtick::StatDesc> d = {LIST(VTICK_STAT_DESC)}; \
    return d;                                                              \
  }                                                                        \
  template <class F>                                                       \
  void for_each_stat(F&& f) const {                                        \
    const auto& d = descs();                                               \
    std::size_t i = 0;                                                     \
    LIST(VTICK_STAT_VISIT)                                                 \
    (void)i;                                                               \
  }
