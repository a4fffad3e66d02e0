#include "core/trace.hpp"

namespace vtick {

static EventSink* g_sink = nullptr;
void set_event_sink(EventSink* sink) { g_sink = sink; }
EventSink* event_sink() { return g_sink; }

}  // namespace vtick
