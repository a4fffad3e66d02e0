// The tracepoints' formats and texts. Fields and print fmts follow the kernel's
// TRACE_EVENT() definitions (include/trace/events/{sched,power,timer,ipi,kvm}.h,
// arch/x86/include/asm/trace/irq_vectors.h, arch/x86/kvm/trace.h,
// arch/arm64/kvm/trace_arm.h) with their macros expanded, as events/*/format shows them;
// tp_text() re-expresses each TP_printk().
#include "sim/ftrace_events.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>

namespace vtick {

namespace {

// VMX basic exit reasons (arch/x86/include/uapi/asm/vmx.h VMX_EXIT_REASONS).
const std::pair<int, const char*> kVmxReasons[] = {
    {0, "EXCEPTION_NMI"}, {1, "EXTERNAL_INTERRUPT"}, {2, "TRIPLE_FAULT"}, {3, "INIT_SIGNAL"}, {4, "SIPI_SIGNAL"},
    {7, "INTERRUPT_WINDOW"}, {8, "NMI_WINDOW"}, {9, "TASK_SWITCH"}, {10, "CPUID"}, {12, "HLT"}, {13, "INVD"},
    {14, "INVLPG"}, {15, "RDPMC"}, {16, "RDTSC"}, {18, "VMCALL"}, {19, "VMCLEAR"}, {20, "VMLAUNCH"},
    {21, "VMPTRLD"}, {22, "VMPTRST"}, {23, "VMREAD"}, {24, "VMRESUME"}, {25, "VMWRITE"}, {26, "VMOFF"},
    {27, "VMON"}, {28, "CR_ACCESS"}, {29, "DR_ACCESS"}, {30, "IO_INSTRUCTION"}, {31, "MSR_READ"},
    {32, "MSR_WRITE"}, {33, "INVALID_STATE"}, {34, "MSR_LOAD_FAIL"}, {36, "MWAIT_INSTRUCTION"},
    {37, "MONITOR_TRAP_FLAG"}, {39, "MONITOR_INSTRUCTION"}, {40, "PAUSE_INSTRUCTION"}, {41, "MCE_DURING_VMENTRY"},
    {43, "TPR_BELOW_THRESHOLD"}, {44, "APIC_ACCESS"}, {45, "EOI_INDUCED"}, {46, "GDTR_IDTR"}, {47, "LDTR_TR"},
    {48, "EPT_VIOLATION"}, {49, "EPT_MISCONFIG"}, {50, "INVEPT"}, {51, "RDTSCP"}, {52, "PREEMPTION_TIMER"},
    {53, "INVVPID"}, {54, "WBINVD"}, {55, "XSETBV"}, {56, "APIC_WRITE"}, {57, "RDRAND"}, {58, "INVPCID"},
    {59, "VMFUNC"}, {60, "ENCLS"}, {61, "RDSEED"}, {62, "PML_FULL"}, {63, "XSAVES"}, {64, "XRSTORS"},
    {67, "UMWAIT"}, {68, "TPAUSE"}, {74, "BUS_LOCK"}, {75, "NOTIFY"},
};
// SVM exit codes (arch/x86/include/uapi/asm/svm.h SVM_EXIT_REASONS), those around halt,
// timers, interrupts and I/O.
const std::pair<int, const char*> kSvmReasons[] = {
    {0x060, "interrupt"}, {0x061, "nmi"}, {0x062, "smi"}, {0x063, "init"}, {0x064, "vintr"}, {0x072, "cpuid"},
    {0x077, "pause"}, {0x078, "hlt"}, {0x07b, "io"}, {0x07c, "msr"}, {0x081, "vmmcall"}, {0x400, "npf"},
};
// arch/arm64/include/asm/kvm_arm.h kvm_arm_exception_type / kvm_arm_exception_class.
const std::pair<int, const char*> kArmExceptionType[] = {
    {0, "IRQ"}, {1, "SERROR"}, {2, "TRAP"}, {3, "ILLEGAL"}, {0xbadca11, "HYP_GONE"},
};
const std::pair<int, const char*> kArmExceptionClass[] = {
    {0x00, "UNKNOWN"}, {0x01, "WFx"}, {0x03, "CP15_32"}, {0x04, "CP15_64"}, {0x05, "CP14_MR"}, {0x06, "CP14_LS"},
    {0x07, "FP_ASIMD"}, {0x08, "CP10_ID"}, {0x09, "PAC"}, {0x0C, "CP14_64"}, {0x0D, "BTI"}, {0x0E, "ILL"},
    {0x11, "SVC32"}, {0x12, "HVC32"}, {0x13, "SMC32"}, {0x15, "SVC64"}, {0x16, "HVC64"}, {0x17, "SMC64"},
    {0x18, "SYS64"}, {0x19, "SVE"}, {0x1A, "ERET"}, {0x1C, "FPAC"}, {0x1D, "SME"}, {0x1F, "IMP_DEF"},
    {0x20, "IABT_LOW"}, {0x21, "IABT_CUR"}, {0x22, "PC_ALIGN"}, {0x24, "DABT_LOW"}, {0x25, "DABT_CUR"},
    {0x26, "SP_ALIGN"}, {0x28, "FP_EXC32"}, {0x2C, "FP_EXC64"}, {0x2F, "SERROR"}, {0x30, "BREAKPT_LOW"},
    {0x31, "BREAKPT_CUR"}, {0x32, "SOFTSTP_LOW"}, {0x33, "SOFTSTP_CUR"}, {0x34, "WATCHPT_LOW"},
    {0x35, "WATCHPT_CUR"}, {0x38, "BKPT32"}, {0x3A, "VECTOR32"}, {0x3C, "BRK64"},
};
// include/trace/events/timer.h decode_hrtimer_mode() (enum hrtimer_mode values).
const std::pair<int, const char*> kHrtimerModes[] = {
    {0, "ABS"}, {1, "REL"}, {2, "ABS|PINNED"}, {3, "REL|PINNED"}, {4, "ABS|SOFT"}, {5, "REL|SOFT"},
    {6, "ABS|PINNED|SOFT"}, {7, "REL|PINNED|SOFT"}, {8, "ABS|HARD"}, {9, "REL|HARD"}, {10, "ABS|PINNED|HARD"},
    {11, "REL|PINNED|HARD"},
};
// sched_switch's prev_state letters, bit by bit (TASK_REPORT), and TASK_REPORT_MAX.
const std::pair<int, const char*> kTaskStates[] = {
    {0x01, "S"}, {0x02, "D"}, {0x04, "T"}, {0x08, "t"}, {0x10, "X"}, {0x20, "Z"}, {0x40, "P"}, {0x80, "I"},
};
constexpr int kTaskReportMax = 0x100;

template <std::size_t N>
const char* symbolic(const std::pair<int, const char*> (&table)[N], std::int64_t v) {
  for (const auto& [k, n] : table)
    if (k == v) return n;
  return nullptr;
}

template <std::size_t N>
std::string symbols_fmt(const std::pair<int, const char*> (&table)[N], bool hex) {
  std::string o;
  for (const auto& [k, n] : table) {
    char buf[96];
    std::snprintf(buf, sizeof buf, hex ? "%s{ 0x%x, \"%s\" }" : "%s{ %d, \"%s\" }", o.empty() ? "" : ", ", k, n);
    o += buf;
  }
  return o;
}

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

const std::string& kvm_exit_fmt() {
  static const std::string s =
      "\"vcpu %u reason %s%s%s rip 0x%lx info1 0x%016llx info2 0x%016llx intr_info 0x%08x error_code 0x%08x\", "
      "REC->vcpu_id, (REC->isa == 1) ? __print_symbolic(REC->exit_reason & 0xffff, " +
      symbols_fmt(kVmxReasons, false) + ") : __print_symbolic(REC->exit_reason, " + symbols_fmt(kSvmReasons, true) +
      "), (REC->isa == 1 && REC->exit_reason & ~0xffff) ? \" \" : \"\", (REC->isa == 1) ? "
      "__print_flags(REC->exit_reason & ~0xffff, \" \", { 0x80000000, \"FAILED_VMENTRY\" }) : \"\", REC->guest_rip, "
      "REC->info1, REC->info2, REC->intr_info, REC->error_code";
  return s;
}

const std::string& kvm_exit_arm64_fmt() {
  static const std::string s = "\"%s: HSR_EC: 0x%04x (%s), PC: 0x%016lx\", __print_symbolic(REC->ret, " +
                               symbols_fmt(kArmExceptionType, false) + "), REC->esr_ec, __print_symbolic(REC->esr_ec, " +
                               symbols_fmt(kArmExceptionClass, true) + "), REC->vcpu_pc";
  return s;
}

const std::string& sched_switch_fmt() {
  static const std::string mask = "((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
                                  "0x00000020 | 0x00000040) + 1) << 1) - 1)";
  static const std::string s =
      "\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d\", "
      "REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & " + mask + ") ? __print_flags(REC->prev_state & " +
      mask + ", \"|\", " + symbols_fmt(kTaskStates, true) + ") : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | "
      "0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", "
      "REC->next_comm, REC->next_pid, REC->next_prio";
  return s;
}

const std::string& hrtimer_start_fmt() {
  static const std::string s =
      "\"hrtimer=%p function=%ps expires=%llu softexpires=%llu mode=%s\", REC->hrtimer, REC->function, "
      "(unsigned long long) REC->expires, (unsigned long long) REC->softexpires, __print_symbolic(REC->mode, " +
      symbols_fmt(kHrtimerModes, false) + ")";
  return s;
}

std::vector<TpFormat> make_formats() {
  std::vector<TpFormat> f(static_cast<std::size_t>(Tp::Count));
  auto set = [&](Tp tp, const char* sys, const char* name, int id, std::vector<TpField> fields, const char* print) {
    f[static_cast<std::size_t>(tp)] = TpFormat{sys, name, id, std::move(fields), print};
  };
  set(Tp::Print, "ftrace", "print", 5, {{"unsigned long", "ip", 8, false}, {"char", "buf", 0, true, -1}},
      "\"%ps: %s\", (void *)REC->ip, REC->buf");
  set(Tp::SchedSwitch, "sched", "sched_switch", 301,
      {{"char", "prev_comm", 16, true, 16}, {"pid_t", "prev_pid", 4, true}, {"int", "prev_prio", 4, true},
       {"long", "prev_state", 8, true}, {"char", "next_comm", 16, true, 16}, {"pid_t", "next_pid", 4, true},
       {"int", "next_prio", 4, true}},
      sched_switch_fmt().c_str());
  set(Tp::SchedWakeup, "sched", "sched_wakeup", 302,
      {{"char", "comm", 16, true, 16}, {"pid_t", "pid", 4, true}, {"int", "prio", 4, true}, {"int", "target_cpu", 4, true}},
      "\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu");
  set(Tp::SchedWaking, "sched", "sched_waking", 318,
      {{"char", "comm", 16, true, 16}, {"pid_t", "pid", 4, true}, {"int", "prio", 4, true}, {"int", "target_cpu", 4, true}},
      "\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu");
  set(Tp::WriteMsr, "msr", "write_msr", 319,
      {{"unsigned", "msr", 4, false}, {"u64", "val", 8, false}, {"int", "failed", 4, true}},
      "\"%x, value %llx%s\", REC->msr, REC->val, REC->failed ? \" #GP\" : \"\"");
  set(Tp::SchedMigrateTask, "sched", "sched_migrate_task", 303,
      {{"char", "comm", 16, true, 16}, {"pid_t", "pid", 4, true}, {"int", "prio", 4, true}, {"int", "orig_cpu", 4, true},
       {"int", "dest_cpu", 4, true}},
      "\"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", REC->comm, REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu");
  set(Tp::CpuIdle, "power", "cpu_idle", 304, {{"u32", "state", 4, false}, {"u32", "cpu_id", 4, false}},
      "\"state=%lu cpu_id=%lu\", (unsigned long)REC->state, (unsigned long)REC->cpu_id");
  set(Tp::TickStop, "timer", "tick_stop", 305, {{"int", "success", 4, true}, {"int", "dependency", 4, true}},
      "\"success=%d dependency=%s\", REC->success, __print_symbolic(REC->dependency, { 0, \"NONE\" }, { (1 << 0), "
      "\"POSIX_TIMER\" }, { (1 << 1), \"PERF_EVENTS\" }, { (1 << 2), \"SCHED\" }, { (1 << 3), \"CLOCK_UNSTABLE\" }, "
      "{ (1 << 4), \"RCU\" }, { (1 << 5), \"RCU_EXP\" })");
  set(Tp::HrtimerStart, "timer", "hrtimer_start", 306,
      {{"void *", "hrtimer", 8, false}, {"void *", "function", 8, false}, {"s64", "expires", 8, true},
       {"s64", "softexpires", 8, true}, {"enum hrtimer_mode", "mode", 4, false}},
      hrtimer_start_fmt().c_str());
  set(Tp::HrtimerExpireEntry, "timer", "hrtimer_expire_entry", 307,
      {{"void *", "hrtimer", 8, false}, {"s64", "now", 8, true}, {"void *", "function", 8, false}},
      "\"hrtimer=%p function=%ps now=%llu\", REC->hrtimer, REC->function, (unsigned long long) REC->now");
  set(Tp::IpiSendCpu, "ipi", "ipi_send_cpu", 308,
      {{"unsigned int", "cpu", 4, false}, {"void *", "callsite", 8, false}, {"void *", "callback", 8, false}},
      "\"cpu=%u callsite=%pS callback=%pS\", REC->cpu, REC->callsite, REC->callback");
  set(Tp::LocalTimerEntry, "irq_vectors", "local_timer_entry", 309, {{"int", "vector", 4, true}}, "\"vector=%d\", REC->vector");
  set(Tp::RescheduleEntry, "irq_vectors", "reschedule_entry", 310, {{"int", "vector", 4, true}}, "\"vector=%d\", REC->vector");
  set(Tp::CallFunctionSingleEntry, "irq_vectors", "call_function_single_entry", 311, {{"int", "vector", 4, true}},
      "\"vector=%d\", REC->vector");
  set(Tp::KvmExit, "kvm", "kvm_exit", 312,
      {{"unsigned int", "exit_reason", 4, false}, {"unsigned long", "guest_rip", 8, false}, {"u32", "isa", 4, false},
       {"u64", "info1", 8, false}, {"u64", "info2", 8, false}, {"u32", "intr_info", 4, false},
       {"u32", "error_code", 4, false}, {"unsigned int", "vcpu_id", 4, false}},
      kvm_exit_fmt().c_str());
  set(Tp::KvmEntry, "kvm", "kvm_entry", 313,
      {{"unsigned int", "vcpu_id", 4, false}, {"unsigned long", "rip", 8, false}, {"bool", "immediate_exit", 1, false}},
      "\"vcpu %u, rip 0x%lx%s\", REC->vcpu_id, REC->rip, REC->immediate_exit ? \"[immediate exit]\" : \"\"");
  set(Tp::KvmExitArm64, "kvm", "kvm_exit", 314,
      {{"int", "ret", 4, true}, {"unsigned int", "esr_ec", 4, false}, {"unsigned long", "vcpu_pc", 8, false}},
      kvm_exit_arm64_fmt().c_str());
  set(Tp::KvmEntryArm64, "kvm", "kvm_entry", 315, {{"unsigned long", "vcpu_pc", 8, false}},
      "\"PC: 0x%016lx\", REC->vcpu_pc");
  set(Tp::KvmVcpuWakeup, "kvm", "kvm_vcpu_wakeup", 316,
      {{"__u64", "ns", 8, false}, {"bool", "waited", 1, false}, {"bool", "valid", 1, false}},
      "\"%s time %lld ns, polling %s\", REC->waited ? \"wait\" : \"poll\", REC->ns, REC->valid ? \"valid\" : \"invalid\"");
  set(Tp::KvmHaltPollNs, "kvm", "kvm_halt_poll_ns", 317,
      {{"bool", "grow", 1, false}, {"unsigned int", "vcpu_id", 4, false}, {"unsigned int", "new", 4, false},
       {"unsigned int", "old", 4, false}},
      "\"vcpu %u: halt_poll_ns %u (%s %u)\", REC->vcpu_id, REC->new, REC->grow ? \"grow\" : \"shrink\", REC->old");
  return f;
}

const std::vector<TpFormat>& formats() {
  static const std::vector<TpFormat> f = make_formats();
  return f;
}

int align_of(const TpField& f) { return f.array ? 1 : std::min(f.size, 8); }

void put(std::string& o, std::size_t at, std::uint64_t v, int size) {
  for (int i = 0; i < size; ++i) o[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// %pS of an address: "resched_curr+0x0/0x100" (symbols are 0x100 apart), NULL "0x0".
std::string sym_offset(const KernelSymbols& syms, std::int64_t addr) {
  const std::string* n = syms.name(static_cast<std::uint64_t>(addr));
  return n ? *n + "+0x0/0x100" : fmt("0x%llx", static_cast<unsigned long long>(addr));
}
std::string sym(const KernelSymbols& syms, std::int64_t addr) {
  const std::string* n = syms.name(static_cast<std::uint64_t>(addr));
  return n ? *n : fmt("0x%llx", static_cast<unsigned long long>(addr));
}
// %p: the address itself, 16 hex digits (the kernel hashes pointers unless no_hash_pointers).
std::string ptr(std::int64_t v) { return fmt("%016llx", static_cast<unsigned long long>(v)); }

}  // namespace

const TpFormat& tp_format(Tp tp) { return formats()[static_cast<std::size_t>(tp)]; }

std::vector<int> tp_offsets(const TpFormat& f) {
  std::vector<int> o;
  int at = 8;  // after common_type, common_flags, common_preempt_count, common_pid
  for (const TpField& x : f.fields) {
    int a = align_of(x);
    at = (at + a - 1) / a * a;
    o.push_back(at);
    at += x.array > 0 ? x.array : x.array < 0 ? 0 : x.size;
  }
  return o;
}

int tp_fixed_size(const TpFormat& f) {
  std::vector<int> o = tp_offsets(f);
  int end = 8, align = 4;
  for (std::size_t i = 0; i < f.fields.size(); ++i) {
    const TpField& x = f.fields[i];
    end = o[i] + (x.array > 0 ? x.array : x.array < 0 ? 0 : x.size);
    align = std::max(align, align_of(x));
  }
  return (end + align - 1) / align * align;  // sizeof the entry struct
}

std::string tp_format_file(Tp tp) {
  const TpFormat& f = tp_format(tp);
  std::string o = fmt("name: %s\nID: %d\nformat:\n", f.name, f.id);
  o += "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
       "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
       "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
       "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";
  std::vector<int> off = tp_offsets(f);
  for (std::size_t i = 0; i < f.fields.size(); ++i) {
    const TpField& x = f.fields[i];
    std::string decl = std::string(x.type) + (x.type[std::strlen(x.type) - 1] == '*' ? "" : " ") + x.name;
    if (x.array > 0) decl += "[" + std::to_string(x.array) + "]";
    if (x.array < 0) decl += "[]";
    int size = x.array > 0 ? x.array : x.array < 0 ? 0 : x.size;
    o += fmt("\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n", decl.c_str(), off[i], size, x.is_signed ? 1 : 0);
  }
  o += "\nprint fmt: ";
  o += f.print_fmt;
  o += "\n";
  return o;
}

// ---- symbols -----------------------------------------------------------------------

KernelSymbols::KernelSymbols()
    : names_{"tracing_mark_write", "tick_nohz_handler", "hrtimer_wakeup", "resched_curr", "generic_exec_single",
             "generic_smp_call_function_single_interrupt", "ttwu_queue_wakelist", "irq_work_queue_on"} {}

namespace {
constexpr std::uint64_t kTextBase = 0xffffffff81000000ULL;  // x86-64's __START_KERNEL_map + 16 MiB
constexpr std::uint64_t kSymStep = 0x100;
}  // namespace

std::uint64_t KernelSymbols::address(const std::string& name) {
  auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) it = names_.insert(names_.end(), name);
  return kTextBase + kSymStep * static_cast<std::uint64_t>(it - names_.begin() + 1);
}

std::uint64_t KernelSymbols::find(const std::string& name) const {
  auto it = std::find(names_.begin(), names_.end(), name);
  return it == names_.end() ? 0 : kTextBase + kSymStep * static_cast<std::uint64_t>(it - names_.begin() + 1);
}

const std::string* KernelSymbols::name(std::uint64_t addr) const {
  if (addr < kTextBase + kSymStep || (addr - kTextBase) % kSymStep) return nullptr;
  std::uint64_t i = (addr - kTextBase) / kSymStep - 1;
  return i < names_.size() ? &names_[i] : nullptr;
}

std::string KernelSymbols::kallsyms() const {
  std::string o;
  for (std::size_t i = 0; i < names_.size(); ++i)
    o += fmt("%016llx t %s\n", static_cast<unsigned long long>(kTextBase + kSymStep * (i + 1)), names_[i].c_str());
  return o;
}

// ---- records -----------------------------------------------------------------------

std::string tp_text(const FtraceEvent& e, const KernelSymbols& syms) {
  const auto& v = e.v;
  const char* name = tp_format(e.tp).name;
  std::string args;
  switch (e.tp) {
    case Tp::Print:
      return sym(syms, v[0]) + ": " + e.s[0];
    case Tp::SchedSwitch: {
      std::string state;
      for (const auto& [bit, letter] : kTaskStates)
        if (v[3] & bit) state += (state.empty() ? "" : "|") + std::string(letter);
      if (state.empty()) state = "R";
      if (v[3] & kTaskReportMax) state += "+";
      args = fmt("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d next_prio=%d",
                 e.s[0].c_str(), static_cast<int>(v[1]), static_cast<int>(v[2]), state.c_str(), e.s[1].c_str(),
                 static_cast<int>(v[5]), static_cast<int>(v[6]));
      break;
    }
    case Tp::SchedWaking:
    case Tp::SchedWakeup:
      args = fmt("comm=%s pid=%d prio=%d target_cpu=%03d", e.s[0].c_str(), static_cast<int>(v[1]), static_cast<int>(v[2]),
                 static_cast<int>(v[3]));
      break;
    case Tp::SchedMigrateTask:
      args = fmt("comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", e.s[0].c_str(), static_cast<int>(v[1]),
                 static_cast<int>(v[2]), static_cast<int>(v[3]), static_cast<int>(v[4]));
      break;
    case Tp::CpuIdle:
      args = fmt("state=%lu cpu_id=%lu", static_cast<unsigned long>(static_cast<std::uint32_t>(v[0])),
                 static_cast<unsigned long>(v[1]));
      break;
    case Tp::TickStop: {
      const char* dep = v[1] == 0 ? "NONE" : nullptr;
      static const char* const kDeps[] = {"POSIX_TIMER", "PERF_EVENTS", "SCHED", "CLOCK_UNSTABLE", "RCU", "RCU_EXP"};
      for (int b = 0; b < 6 && !dep; ++b)
        if (v[1] == (1 << b)) dep = kDeps[b];
      args = fmt("success=%d dependency=%s", static_cast<int>(v[0]), dep ? dep : fmt("0x%llx", static_cast<long long>(v[1])).c_str());
      break;
    }
    case Tp::HrtimerStart: {
      const char* mode = symbolic(kHrtimerModes, v[4]);
      args = fmt("hrtimer=%s function=%s expires=%llu softexpires=%llu mode=%s", ptr(v[0]).c_str(), sym(syms, v[1]).c_str(),
                 static_cast<unsigned long long>(v[2]), static_cast<unsigned long long>(v[3]), mode ? mode : "?");
      break;
    }
    case Tp::HrtimerExpireEntry:
      args = fmt("hrtimer=%s function=%s now=%llu", ptr(v[0]).c_str(), sym(syms, v[2]).c_str(),
                 static_cast<unsigned long long>(v[1]));
      break;
    case Tp::IpiSendCpu:
      args = fmt("cpu=%u callsite=%s callback=%s", static_cast<unsigned>(v[0]), sym_offset(syms, v[1]).c_str(),
                 sym_offset(syms, v[2]).c_str());
      break;
    case Tp::LocalTimerEntry:
    case Tp::RescheduleEntry:
    case Tp::CallFunctionSingleEntry:
      args = fmt("vector=%d", static_cast<int>(v[0]));
      break;
    case Tp::WriteMsr:
      args = fmt("%x, value %llx%s", static_cast<unsigned>(v[0]), static_cast<unsigned long long>(v[1]), v[2] ? " #GP" : "");
      break;
    case Tp::KvmExit: {
      bool vmx = v[2] == KVM_ISA_VMX;
      const char* r = vmx ? symbolic(kVmxReasons, v[0] & 0xffff) : symbolic(kSvmReasons, v[0]);
      args = fmt("vcpu %u reason %s rip 0x%lx info1 0x%016llx info2 0x%016llx intr_info 0x%08x error_code 0x%08x",
                 static_cast<unsigned>(v[7]), r ? r : fmt("0x%llx", static_cast<long long>(v[0])).c_str(),
                 static_cast<unsigned long>(v[1]), static_cast<unsigned long long>(v[3]), static_cast<unsigned long long>(v[4]),
                 static_cast<unsigned>(v[5]), static_cast<unsigned>(v[6]));
      break;
    }
    case Tp::KvmEntry:
      args = fmt("vcpu %u, rip 0x%lx%s", static_cast<unsigned>(v[0]), static_cast<unsigned long>(v[1]),
                 v[2] ? "[immediate exit]" : "");
      break;
    case Tp::KvmExitArm64: {
      const char* type = symbolic(kArmExceptionType, v[0]);
      const char* ec = symbolic(kArmExceptionClass, v[1]);
      args = fmt("%s: HSR_EC: 0x%04x (%s), PC: 0x%016lx", type ? type : "?", static_cast<unsigned>(v[1]), ec ? ec : "?",
                 static_cast<unsigned long>(v[2]));
      break;
    }
    case Tp::KvmEntryArm64:
      args = fmt("PC: 0x%016lx", static_cast<unsigned long>(v[0]));
      break;
    case Tp::KvmVcpuWakeup:
      args = fmt("%s time %lld ns, polling %s", v[1] ? "wait" : "poll", static_cast<long long>(v[0]), v[2] ? "valid" : "invalid");
      break;
    case Tp::KvmHaltPollNs:
      args = fmt("vcpu %u: halt_poll_ns %u (%s %u)", static_cast<unsigned>(v[1]), static_cast<unsigned>(v[2]),
                 v[0] ? "grow" : "shrink", static_cast<unsigned>(v[3]));
      break;
    default:
      break;
  }
  return std::string(name) + ": " + args;
}

std::string tp_record(const FtraceEvent& e) {
  const TpFormat& f = tp_format(e.tp);
  std::vector<int> off = tp_offsets(f);
  std::string o(static_cast<std::size_t>(tp_fixed_size(f)), '\0');
  put(o, 0, static_cast<std::uint64_t>(f.id), 2);
  put(o, 2, e.flags, 1);
  put(o, 3, e.preempt, 1);
  put(o, 4, static_cast<std::uint64_t>(static_cast<std::uint32_t>(e.pid)), 4);
  std::size_t str = 0;
  for (std::size_t i = 0; i < f.fields.size(); ++i) {
    const TpField& x = f.fields[i];
    std::size_t at = static_cast<std::size_t>(off[i]);
    if (x.array > 0) {
      const std::string& s = e.s[str++];
      std::memcpy(&o[at], s.data(), std::min<std::size_t>(s.size(), static_cast<std::size_t>(x.array) - 1));
    } else if (x.array < 0) {
      o.resize(at);
      o += e.s[str++];
      o += '\0';
    } else {
      put(o, at, static_cast<std::uint64_t>(e.v[i]), x.size);
    }
  }
  return o;
}

std::string tp_lat_flags(const FtraceEvent& e) {
  std::string o;
  o += (e.flags & TRACE_FLAG_IRQS_OFF) ? 'd' : '.';
  o += '.';
  o += (e.flags & TRACE_FLAG_HARDIRQ) ? 'h' : '.';
  o += (e.preempt & 0xf) ? "0123456789abcdef"[e.preempt & 0xf] : '.';
  o += (e.preempt & 0xf0) ? "0123456789abcdef"[e.preempt >> 4] : '.';
  return o;
}

}  // namespace vtick
