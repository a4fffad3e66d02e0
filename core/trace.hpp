// Model event hooks: the model reports what happens; sinks (tests, trace writers) listen.
#pragma once
#include <cstdint>

#include "core/time.hpp"

namespace vtick {

// One thing that happened on one (v)CPU. `what` is a static string naming the kernel or
// KVM event ("tick_stop", "kvm_vcpu_halt", ...); `a` and `b` carry its arguments.
struct ModelEvent {
  sim_ns t;
  int cpu;
  const char* what;
  std::int64_t a = 0;
  std::int64_t b = 0;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_event(const ModelEvent& e) = 0;
};

void set_event_sink(EventSink* sink);
EventSink* event_sink();

inline void emit(sim_ns t, int cpu, const char* what, std::int64_t a = 0, std::int64_t b = 0) {
  if (EventSink* s = event_sink()) s->on_event(ModelEvent{t, cpu, what, a, b});
}

}  // namespace vtick
