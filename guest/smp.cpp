// kernel/smp.c: send_call_function_single_ipi(); arch/x86/kernel/smp.c: smp_send_reschedule().
#include "core/trace.hpp"
#include "guest/kernel.hpp"

namespace vtick {

// x2apic_send_IPI() -> native_x2apic_icr_write(): the ICR write (MSR 0x830) exits; its
// write_msr is traced once KVM has handled it (the destination in the high half).
void GuestCpu::trace_icr_write(const GuestCpu& target, int vector) {
  if (k_.params().isa == Isa::X86_64 && tracing())
    trace::write_msr(now(), id_, 0x830, static_cast<std::int64_t>(target.id()) << 32 | vector);
}

// smp_send_reschedule() -> native_smp_send_reschedule(): a RESCHEDULE IPI (RES).
void GuestCpu::smp_send_reschedule(GuestCpu& target) {
  ++k_.sched_stats.resched_ipis;
  if (tracing()) trace::ipi_send_cpu(now(), id_, target.id(), IrqVector::Reschedule, "resched_curr");
  hw_->send_ipi(target.id(), IrqVector::Reschedule);
  trace_icr_write(target, 0xfd);  // RESCHEDULE_VECTOR
}

// send_call_function_single_ipi(): call_function_single_prep_ipi() -> set_nr_if_polling():
// a polling idle CPU gets TIF_NEED_RESCHED instead (it flushes its queue on the way out of
// the idle loop, sched_wake_idle_without_ipi); any other gets CALL_FUNCTION_SINGLE (CAL).
// `callsite`: the function __smp_call_single_queue() returns to, as ipi_send_cpu prints it.
bool GuestCpu::send_call_function_single_ipi(GuestCpu& target, const char* callsite) {
  if (target.polling) {
    ++k_.sched_stats.wake_idle_without_ipi;
    target.hw().revoke_local();
    target.need_resched = true;
    target.hw().notify_poller();
    return false;
  }
  ++k_.sched_stats.call_function_ipis;
  if (tracing()) trace::ipi_send_cpu(now(), id_, target.id(), IrqVector::CallFunction, callsite);
  hw_->send_ipi(target.id(), IrqVector::CallFunction);
  trace_icr_write(target, 0xfb);  // CALL_FUNCTION_SINGLE_VECTOR
  return true;
}

}  // namespace vtick
