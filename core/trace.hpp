// Model event hooks: the model reports what happens (core/trace_events.hpp declares every
// event); sinks (tests, trace writers, vtick run --events) listen.
#pragma once
#include "core/trace_events.hpp"

namespace vtick {

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
// For call sites whose arguments cost something to compute: `if (tracing()) trace::x(...)`.
inline bool tracing() { return detail::g_event_sink != nullptr; }

// The emit functions, trace::kvm_exit(t, cpu, reason): with no sink, one load and a branch.
namespace trace {
#define VTICK_EV_PARAM(type, field, doc) , type field
#define VTICK_EV_ARG(type, field, doc) field,
#define VTICK_EV_EMIT(Id, name, doc)                                                    \
  inline void name(sim_ns t, int cpu VTICK_EV_##name(VTICK_EV_PARAM)) {                 \
    if (EventSink* s = detail::g_event_sink)                                            \
      s->on_event(model_event(t, cpu, ev::name{VTICK_EV_##name(VTICK_EV_ARG)}));        \
  }
VTICK_MODEL_EVENTS(VTICK_EV_EMIT)
#undef VTICK_EV_EMIT
#undef VTICK_EV_ARG
#undef VTICK_EV_PARAM
}  // namespace trace

}  // namespace vtick
