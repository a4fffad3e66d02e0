// Cost tables of domain/kernel-kvm.md section 3, one per host CPU model.
#include "platform/arch.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

namespace vtick {

const char* isa_name(Isa isa) { return isa == Isa::X86_64 ? "x86_64" : "arm64"; }

const char* cstate_name(HostCState s) {
  switch (s) {
    case HostCState::C1: return "C1";
    case HostCState::C1E: return "C1E";
    case HostCState::C6: return "C6";
    default: return "?";
  }
}

bool parse_cstate(const std::string& name, HostCState& out) {
  for (int i = 0; i < kNumCStates; ++i)
    if (name == cstate_name(static_cast<HostCState>(i))) { out = static_cast<HostCState>(i); return true; }
  return false;
}

namespace {

struct Field {
  const char* description;
  sim_ns ArchCosts::*ns = nullptr;
  double ArchCosts::*dbl = nullptr;
  int cstate_exit = -1;
  int cstate_res = -1;
};

const std::map<std::string, Field>& fields() {
  static const std::map<std::string, Field> f = {
      {"vmexit_ns", {"VM exit + entry world switch of a null exit", &ArchCosts::vmexit_ns}},
      {"hlt_exit_ns", {"HLT/WFI exit handling up to the halt decision", &ArchCosts::hlt_exit_ns}},
      {"timer_write_ns", {"timer-deadline write exit handling (x86 WRMSR IA32_TSC_DEADLINE fastpath)", &ArchCosts::timer_write_ns}},
      {"timer_ctl_ns", {"clockevent state switch exit handling (x86 x2APIC LVTT write)", &ArchCosts::timer_ctl_ns}},
      {"ipi_send_ns", {"sender's IPI write exit handling (x86 x2APIC ICR fastpath, arm64 ICC_SGI1R_EL1 trap)", &ArchCosts::ipi_send_ns}},
      {"ipi_deliver_ns", {"IPI notification latency to the target hardware thread", &ArchCosts::ipi_deliver_ns}},
      {"timer_expiry_ns", {"guest timer expiring in guest mode: exit handling (x86 preemption timer, arm64 vtimer PPI)", &ArchCosts::timer_expiry_ns}},
      {"vcpu_block_ns", {"kvm_vcpu_block(): blocking hooks, sw timer start, schedule() out", &ArchCosts::vcpu_block_ns}},
      {"vcpu_wakeup_ns", {"vCPU thread wake-up: handler, schedule() in, vcpu_load, hv timer switch", &ArchCosts::vcpu_wakeup_ns}},
      {"guest_timer_write_ns", {"guest-side cost of a timer write that does not exit", &ArchCosts::guest_timer_write_ns}},
      {"host_irq_ns", {"host interrupt taken in guest mode: external-interrupt exit handling", &ArchCosts::host_irq_ns}},
      {"l1d_flush_ns", {"L1D flush on VM entry (L1TF: vmentry_l1d_flush)", &ArchCosts::l1d_flush_ns}},
      {"mds_clear_ns", {"VERW CPU buffer clearing on VM entry (MDS)", &ArchCosts::mds_clear_ns}},
      {"smt_factor_busy", {"own speed while the SMT sibling runs guest or host code", nullptr, &ArchCosts::smt_factor_busy}},
      {"smt_factor_spin", {"own speed while the SMT sibling spins in a poll loop", nullptr, &ArchCosts::smt_factor_spin}},
      {"c1_exit_ns", {"host C1 exit latency", nullptr, nullptr, 0}},
      {"c1e_exit_ns", {"host C1E exit latency", nullptr, nullptr, 1}},
      {"c6_exit_ns", {"host C6 exit latency", nullptr, nullptr, 2}},
      {"c1_residency_ns", {"host C1 target residency", nullptr, nullptr, -1, 0}},
      {"c1e_residency_ns", {"host C1E target residency", nullptr, nullptr, -1, 1}},
      {"c6_residency_ns", {"host C6 target residency", nullptr, nullptr, -1, 2}},
  };
  return f;
}

ArchTable make(const std::string& name, Isa isa, double ghz, bool smt, std::vector<ParamRow> rows) {
  ArchTable t;
  t.costs.name = name;
  t.costs.isa = isa;
  t.costs.ghz = ghz;
  t.costs.smt = smt;
  t.costs.timer_write_exits = (isa == Isa::X86_64);
  for (const auto& r : rows)
    if (!set_cost(t.costs, r.key, r.value)) throw std::logic_error("arch table " + name + ": unknown key " + r.key);
  if (rows.size() != fields().size()) throw std::logic_error("arch table " + name + " is incomplete");
  t.rows = std::move(rows);
  return t;
}

const std::string kSkxIpi = "Wanpeng Li, 'KVM: X86: Ultra fast single target IPI fastpath' (Apr 2020): 3,293 cycles on SKX";
const std::string kSkxTsc = "Wanpeng Li, 'KVM: VMX: Tscdeadline timer emulation fastpath' (Apr 2020): tscdeadline_immed 2,431 cycles on SKX";
const std::string kHaltPollRst = "Documentation/virt/kvm/halt-polling.rst: a trip through the scheduler is 'a few micro-seconds'";
const std::string kIntelHT = "Intel, 'How to Determine the Effectiveness of Hyper-Threading' (2011): up to 30% gain with both threads busy";

const std::map<std::string, ArchTable>& tables() {
  static const std::map<std::string, ArchTable> t = [] {
    std::map<std::string, ArchTable> m;
    // VM.Standard2 (X7): Xeon Platinum 8167M, 2.0 GHz base.
    m.emplace("skylake-sp", make("skylake-sp", Isa::X86_64, 2.0, true, {
        {"vmexit_ns", 600, 300, 1500, "ns", "[EST] modern Intel null exit 1,000-1,500 cycles (kernel-kvm.md s3); SplitX: ~2,000 cycles on Nehalem"},
        {"hlt_exit_ns", 300, 100, 1500, "ns", "[EST] kvm_emulate_halt + has_events check, cf. fastpath HLT"},
        {"timer_write_ns", 400, 100, 1500, "ns", "[EST] " + kSkxTsc + " = 1.2 us for write exit + injection, minus vmexit_ns"},
        {"timer_ctl_ns", 800, 200, 2500, "ns", "[EST] LVTT write takes the full (non-fastpath) APIC write path"},
        {"ipi_send_ns", 1000, 400, 2500, "ns", "[EST] " + kSkxIpi + " = 1.65 us at 2.0 GHz, minus vmexit_ns"},
        {"ipi_deliver_ns", 500, 100, 2000, "ns", "[EST] posted-interrupt notification IPI between hardware threads"},
        {"timer_expiry_ns", 300, 100, 1500, "ns", "[EST] preemption-timer exit fastpath (kvm_lapic_expired_hv_timer)"},
        {"vcpu_block_ns", 1500, 500, 5000, "ns", "[EST] half of the scheduler round trip; " + kHaltPollRst},
        {"vcpu_wakeup_ns", 1500, 500, 5000, "ns", "[EST] half of the scheduler round trip; " + kHaltPollRst},
        {"guest_timer_write_ns", 0, 0, 200, "ns", "not used: the write exits (timer_write_ns)"},
        {"host_irq_ns", 1000, 300, 3000, "ns", "[EST] host timer/IPI handler run on the vCPU's hardware thread"},
        {"l1d_flush_ns", 2000, 500, 5000, "ns", "[EST] MSR_IA32_FLUSH_CMD writes back and invalidates the 32 KB L1D; Skylake-SP is L1TF-affected"},
        {"mds_clear_ns", 300, 100, 1000, "ns", "[EST] VERW with MD_CLEAR microcode, a few hundred cycles; Skylake-SP is MDS-affected"},
        {"smt_factor_busy", 0.65, 0.5, 0.8, "factor", "[EST] per-thread 0.55-0.7 of solo from " + kIntelHT},
        {"smt_factor_spin", 0.85, 0.7, 0.95, "factor", "[EST] PAUSE loop (~140 cycles per PAUSE on SKX, Intel Optimization Manual) leaves most issue slots to the sibling"},
        {"c1_exit_ns", 2000, 1000, 5000, "ns", "[VERIFY] intel_idle skx_cstates: C1 exit 2 us"},
        {"c1e_exit_ns", 10000, 5000, 20000, "ns", "[VERIFY] intel_idle skx_cstates: C1E exit 10 us"},
        {"c6_exit_ns", 133000, 50000, 200000, "ns", "[VERIFY] intel_idle skx_cstates: C6 exit 133 us"},
        {"c1_residency_ns", 2000, 1000, 10000, "ns", "[VERIFY] intel_idle skx_cstates: C1 target residency 2 us"},
        {"c1e_residency_ns", 20000, 10000, 50000, "ns", "[VERIFY] intel_idle skx_cstates: C1E target residency 20 us"},
        {"c6_residency_ns", 600000, 200000, 1000000, "ns", "[VERIFY] intel_idle skx_cstates: C6 target residency 600 us"},
    }));
    // VM.Standard.E4.Flex: AMD EPYC 7J13 (Milan), 2.55 GHz base.
    m.emplace("milan", make("milan", Isa::X86_64, 2.55, true, {
        {"vmexit_ns", 550, 300, 1500, "ns", "LKML Dec 2020 (SVM vmsave/vmload thread): VMRUN->#VMEXIT 1,340-1,380 cycles on EPYC = 0.53 us at 2.55 GHz"},
        {"hlt_exit_ns", 300, 100, 1500, "ns", "[EST] as skylake-sp"},
        {"timer_write_ns", 400, 100, 1500, "ns", "[EST] as skylake-sp (fastpath is vendor-neutral x86.c code)"},
        {"timer_ctl_ns", 800, 200, 2500, "ns", "[EST] as skylake-sp"},
        {"ipi_send_ns", 1000, 400, 2500, "ns", "[EST] as skylake-sp; AVIC state of the host unknown"},
        {"ipi_deliver_ns", 500, 100, 2000, "ns", "[EST] as skylake-sp"},
        {"timer_expiry_ns", 300, 100, 1500, "ns", "[EST] hrtimer-backed on SVM (no preemption timer); cost as an interrupt exit"},
        {"vcpu_block_ns", 1500, 500, 5000, "ns", "[EST] " + kHaltPollRst},
        {"vcpu_wakeup_ns", 1500, 500, 5000, "ns", "[EST] " + kHaltPollRst},
        {"guest_timer_write_ns", 0, 0, 200, "ns", "not used: the write exits (timer_write_ns)"},
        {"host_irq_ns", 1000, 300, 3000, "ns", "[EST] as skylake-sp"},
        {"l1d_flush_ns", 2000, 500, 5000, "ns", "[EST] not needed on Zen 3 (not L1TF-affected); cost if forced"},
        {"mds_clear_ns", 300, 100, 1000, "ns", "[EST] not needed on Zen 3 (not MDS-affected); cost if forced"},
        {"smt_factor_busy", 0.65, 0.5, 0.8, "factor", "[EST] as skylake-sp"},
        {"smt_factor_spin", 0.85, 0.7, 0.95, "factor", "[EST] as skylake-sp"},
        {"c1_exit_ns", 1000, 500, 5000, "ns", "[EST] ACPI C1 (MWAIT/HLT) on Zen 3"},
        {"c1e_exit_ns", 1000, 500, 5000, "ns", "[EST] Zen 3 has no separate C1E: same as C1"},
        {"c6_exit_ns", 100000, 20000, 400000, "ns", "[EST] ACPI C2 (CC6) on Zen 3"},
        {"c1_residency_ns", 2000, 1000, 10000, "ns", "[EST]"},
        {"c1e_residency_ns", 2000, 1000, 10000, "ns", "[EST]"},
        {"c6_residency_ns", 400000, 100000, 1000000, "ns", "[EST]"},
    }));
    // VM.Standard.A1: Ampere Altra (Neoverse N1), 3.0 GHz, no SMT.
    m.emplace("altra", make("altra", Isa::Arm64, 3.0, false, {
        {"vmexit_ns", 500, 200, 1500, "ns", "[EST] arm64 VHE exit + entry"},
        {"hlt_exit_ns", 500, 100, 1500, "ns", "[EST] kvm_handle_wfx -> kvm_vcpu_wfi: vgic VMCR sync, vgic_v4_put"},
        {"timer_write_ns", 0, 0, 1500, "ns", "not used: CNTV_CVAL is written without a trap (direct vtimer, arch_timer.c)"},
        {"timer_ctl_ns", 0, 0, 2500, "ns", "not used: CNTV_CTL is written without a trap"},
        {"ipi_send_ns", 800, 300, 2500, "ns", "[EST] ICC_SGI1R_EL1 trap -> vgic_v3_dispatch_sgi"},
        {"ipi_deliver_ns", 500, 100, 2000, "ns", "[EST] kvm_vcpu_kick to a running target"},
        {"timer_expiry_ns", 400, 100, 1500, "ns", "[EST] host PPI -> IRQ exit -> kvm_arch_timer_handler"},
        {"vcpu_block_ns", 1500, 500, 5000, "ns", "[EST] includes kvm_timer_blocking() bg_timer start; " + kHaltPollRst},
        {"vcpu_wakeup_ns", 1500, 500, 5000, "ns", "[EST] " + kHaltPollRst},
        {"guest_timer_write_ns", 50, 20, 200, "ns", "[EST] tens of ns for a system-register write (kernel-kvm.md s3)"},
        {"host_irq_ns", 1000, 300, 3000, "ns", "[EST] host interrupt handling on a VHE host"},
        {"l1d_flush_ns", 2000, 500, 5000, "ns", "[EST] no L1TF on Neoverse N1; cost if forced"},
        {"mds_clear_ns", 300, 100, 1000, "ns", "[EST] no MDS on Neoverse N1; cost if forced"},
        {"smt_factor_busy", 1.0, 1.0, 1.0, "factor", "Neoverse N1 has no SMT"},
        {"smt_factor_spin", 1.0, 1.0, 1.0, "factor", "Neoverse N1 has no SMT"},
        {"c1_exit_ns", 1000, 500, 5000, "ns", "[EST] WFI standby"},
        {"c1e_exit_ns", 1000, 500, 5000, "ns", "[EST] no separate state: same as WFI"},
        {"c6_exit_ns", 100000, 20000, 400000, "ns", "[EST] PSCI core power-down"},
        {"c1_residency_ns", 1000, 500, 10000, "ns", "[EST]"},
        {"c1e_residency_ns", 1000, 500, 10000, "ns", "[EST]"},
        {"c6_residency_ns", 300000, 100000, 1000000, "ns", "[EST]"},
    }));
    return m;
  }();
  return t;
}

}  // namespace

bool set_cost(ArchCosts& a, const std::string& key, double value) {
  auto it = fields().find(key);
  if (it == fields().end()) return false;
  const Field& f = it->second;
  auto ns = static_cast<sim_ns>(std::llround(value));
  if (f.ns) a.*(f.ns) = ns;
  else if (f.dbl) a.*(f.dbl) = value;
  else if (f.cstate_exit >= 0) a.cstate_exit_ns[f.cstate_exit] = ns;
  else a.cstate_residency_ns[f.cstate_res] = ns;
  return true;
}

const char* cost_description(const std::string& key) {
  auto it = fields().find(key);
  return it == fields().end() ? "" : it->second.description;
}

const ArchTable& arch_table(const std::string& name) { return tables().at(name); }

std::vector<std::string> arch_names() {
  std::vector<std::string> v;
  for (const auto& [k, _] : tables()) v.push_back(k);
  return v;
}

}  // namespace vtick
