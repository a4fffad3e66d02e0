// The kernel tracepoints vtick writes to ftrace text (--ftrace) and trace.dat
// (--trace-dat): each with its system, name, fields as events/<system>/<name>/format
// lists them, the print fmt the kernel exports, and the text its TP_printk() makes.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.hpp"

namespace vtick {

enum class Tp : std::uint8_t {
  Print,                    // ftrace:print, a tracing_mark_write (atrace B/E/C marks)
  SchedSwitch,              // sched:sched_switch
  SchedWakeup,              // sched:sched_wakeup
  SchedMigrateTask,         // sched:sched_migrate_task
  CpuIdle,                  // power:cpu_idle
  TickStop,                 // timer:tick_stop
  HrtimerStart,             // timer:hrtimer_start
  HrtimerExpireEntry,       // timer:hrtimer_expire_entry
  IpiSendCpu,               // ipi:ipi_send_cpu
  LocalTimerEntry,          // irq_vectors:local_timer_entry (x86)
  RescheduleEntry,          // irq_vectors:reschedule_entry (x86)
  CallFunctionSingleEntry,  // irq_vectors:call_function_single_entry (x86)
  KvmExit,                  // kvm:kvm_exit (arch/x86/kvm/trace.h)
  KvmEntry,                 // kvm:kvm_entry (arch/x86/kvm/trace.h)
  KvmExitArm64,             // kvm:kvm_exit (arch/arm64/kvm/trace_arm.h)
  KvmEntryArm64,            // kvm:kvm_entry (arch/arm64/kvm/trace_arm.h)
  KvmVcpuWakeup,            // kvm:kvm_vcpu_wakeup
  KvmHaltPollNs,            // kvm:kvm_halt_poll_ns
  SchedWaking,              // sched:sched_waking
  WriteMsr,                 // msr:write_msr (x86, arch/x86/lib/msr.c do_trace_write_msr())
  Count
};

// One field of a format file. Strings are fixed char arrays (array > 0) or the rest of
// the record (array < 0, ftrace:print's buf[]); everything else is a scalar of `size`.
struct TpField {
  const char* type;  // as the format file spells it: "pid_t", "unsigned long", "char"
  const char* name;
  int size;
  bool is_signed;
  int array = 0;
};

struct TpFormat {
  const char* system;
  const char* name;
  int id;  // the event's ID in vtick's format files (the kernel assigns them at boot)
  std::vector<TpField> fields;
  const char* print_fmt;
};
const TpFormat& tp_format(Tp tp);
// Byte offset of each field after the common fields (natural alignment, as the kernel
// lays out TP_STRUCT__entry), and the size of the fixed part of a record.
std::vector<int> tp_offsets(const TpFormat& f);
int tp_fixed_size(const TpFormat& f);
// events/<system>/<name>/format as the kernel exports it.
std::string tp_format_file(Tp tp);

// include/linux/trace_events.h TRACE_FLAG_*: the common_flags bits vtick uses.
inline constexpr std::uint8_t TRACE_FLAG_IRQS_OFF = 0x01;
inline constexpr std::uint8_t TRACE_FLAG_HARDIRQ = 0x08;

// Function addresses the records hold (%ps / %pS), with the kallsyms text of both
// machines. Known names come first, in a fixed order; others get the next address.
class KernelSymbols {
 public:
  KernelSymbols();
  std::uint64_t address(const std::string& name);  // adds an unknown name
  std::uint64_t find(const std::string& name) const;  // 0: not there
  const std::string* name(std::uint64_t addr) const;
  std::string kallsyms() const;  // "ffffffff81000100 t tick_nohz_handler\n" ...
 private:
  std::vector<std::string> names_;
};

// One tracepoint hit, in the task `pid` (`comm`) on `cpu` of the host or the guest.
// `v` holds the scalar fields by field index, `s` the string fields in field order.
struct FtraceEvent {
  sim_ns ts = 0;
  std::uint64_t seq = 0;  // the model event's order: ties at one ts keep it
  int sub = 0;            // order among the records one model event made
  bool host = false;      // the host machine (CPU: hardware thread) or the guest (CPU: vCPU)
  int cpu = 0;
  int pid = 0;
  std::string comm;       // at most 15 characters (TASK_COMM_LEN 16)
  std::uint8_t flags = 0;
  std::uint8_t preempt = 0;
  Tp tp = Tp::Print;
  std::array<std::int64_t, 8> v{};
  std::array<std::string, 2> s{};
};

// "sched_switch: prev_comm=..." as the kernel's TP_printk() prints the record.
std::string tp_text(const FtraceEvent& e, const KernelSymbols& syms);
// The record's bytes after the ring-buffer event header: common fields, then fields.
std::string tp_record(const FtraceEvent& e);
// "d..2.": irqs-off, need-resched, hardirq/softirq, preempt-depth, migrate-disable.
std::string tp_lat_flags(const FtraceEvent& e);

// Exit codes kvm_exit records: VMX basic exit reasons (isa 1), SVM exit codes (isa 2),
// arm64 (exception type, ESR_ELx.EC).
inline constexpr int KVM_ISA_VMX = 1, KVM_ISA_SVM = 2;

}  // namespace vtick
