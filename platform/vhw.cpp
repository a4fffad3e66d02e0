#include "platform/vhw.hpp"

namespace vtick {

const char* irq_vector_name(IrqVector v) {
  switch (v) {
    case IrqVector::LocalTimer: return "local_timer";
    case IrqVector::Reschedule: return "reschedule";
    case IrqVector::CallFunction: return "call_function";
    case IrqVector::Device: return "device";
    default: return "?";
  }
}

}  // namespace vtick
