// Model event hooks: the model reports what happens; sinks (tests, trace writers) listen.
#pragma once
#include <cstdint>

#include "core/time.hpp"

namespace vtick {

// One thing that happened on one (v)CPU (host CPUs are -1, -2, ...). `what` is a static
// string naming the kernel or KVM event ("tick_stop", "kvm_vcpu_halt", ...); `a` and `b`
// carry its arguments and `arg` an optional static string one (an exit reason, a timer's
// function, a register).
struct ModelEvent {
  sim_ns t;
  int cpu;
  const char* what;
  std::int64_t a = 0;
  std::int64_t b = 0;
  const char* arg = nullptr;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_event(const ModelEvent& e) = 0;
};

namespace detail {
inline EventSink* g_event_sink = nullptr;  // inline: the no-sink check is one load
}
inline void set_event_sink(EventSink* sink) { detail::g_event_sink = sink; }
inline EventSink* event_sink() { return detail::g_event_sink; }
// For call sites whose arguments cost something to compute.
inline bool tracing() { return detail::g_event_sink != nullptr; }

inline void emit(sim_ns t, int cpu, const char* what, std::int64_t a = 0, std::int64_t b = 0, const char* arg = nullptr) {
  if (EventSink* s = event_sink()) s->on_event(ModelEvent{t, cpu, what, a, b, arg});
}

}  // namespace vtick
