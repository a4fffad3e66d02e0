// Per-architecture cost table: what a hardware thread pays for each host/guest transition.
#pragma once
#include <string>
#include <vector>

#include "core/param_row.hpp"
#include "core/time.hpp"

namespace vtick {

enum class Isa { X86_64, Arm64 };
const char* isa_name(Isa isa);

// Host idle states a hardware thread can reach (intel_idle names; PSCI states map onto them).
enum class HostCState { C1 = 0, C1E, C6, Count };
inline constexpr int kNumCStates = static_cast<int>(HostCState::Count);
const char* cstate_name(HostCState s);
bool parse_cstate(const std::string& name, HostCState& out);

// Every cost is host CPU time on the hardware thread that pays it, at nominal speed
// (SMT contention stretches it). "Handling" costs exclude the world switch, which
// is vmexit_ns for every exit.
struct ArchCosts {
  std::string name;  // "skylake-sp", "milan", "altra"
  Isa isa = Isa::X86_64;
  double ghz = 2.0;

  sim_ns vmexit_ns = 0;           // exit + entry world switch of a null exit
  sim_ns hlt_exit_ns = 0;         // HLT/WFI exit handling up to the halt decision
  sim_ns timer_write_ns = 0;      // timer-deadline write handling (x86 fastpath); arm64 does not exit
  sim_ns timer_ctl_ns = 0;        // clockevent state switch handling (x86 LVTT write)
  sim_ns ipi_send_ns = 0;         // sender's IPI write handling (x86 ICR fastpath / arm64 SGI trap)
  sim_ns ipi_deliver_ns = 0;      // notification latency to the target hardware thread
  sim_ns timer_expiry_ns = 0;     // guest timer expiring in guest mode (x86 preemption-timer exit)
  sim_ns vcpu_block_ns = 0;       // kvm_vcpu_block(): blocking hooks + schedule() out
  sim_ns vcpu_wakeup_ns = 0;      // wake-up + schedule() in + vcpu_load, before entry
  sim_ns guest_timer_write_ns = 0;// guest-side cost of a timer write that does not exit (arm64)
  sim_ns host_irq_ns = 0;         // a host interrupt taken while in guest mode (external-interrupt exit handling)
  sim_ns l1d_flush_ns = 0;        // L1D flush on VM entry (L1TF mitigation)
  sim_ns mds_clear_ns = 0;        // VERW buffer clearing on VM entry (MDS mitigation)

  bool timer_write_exits = true;  // x86 TSC-deadline MSR is intercepted; arm64 CNTV_CVAL is not

  bool smt = false;               // two hardware threads per core
  double smt_factor_busy = 1.0;   // own speed while the sibling runs guest/host code
  double smt_factor_spin = 1.0;   // own speed while the sibling spins (halt-poll, guest poll)

  sim_ns cstate_exit_ns[kNumCStates] = {0, 0, 0};
  sim_ns cstate_residency_ns[kNumCStates] = {0, 0, 0};
};

struct ArchTable {
  ArchCosts costs;
  std::vector<ParamRow> rows;  // every field of `costs` with its provenance ([host.costs] keys)
};

const ArchTable& arch_table(const std::string& name);  // throws std::out_of_range
std::vector<std::string> arch_names();
const char* cost_description(const std::string& key);

// Sets one [host.costs] entry; false if `key` is not a cost of this table.
bool set_cost(ArchCosts& a, const std::string& key, double value);

}  // namespace vtick
