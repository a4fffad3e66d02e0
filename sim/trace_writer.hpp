// Traces of one run: model events -> tracks of slices, instants and counters, written as
// Chrome/Perfetto trace-event JSON, and kernel tracepoint records plus trace marks written
// as ftrace text or trace.dat (docs/cli.md, "Traces").
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "core/trace.hpp"
#include "sim/ftrace_events.hpp"

namespace vtick {

class GuestKernel;
class Kvm;
struct Scenario;

inline constexpr int kTraceHostPid = 1;   // JSON pid of the host machine
inline constexpr int kTraceVmPid = 101;   // JSON pid of the VM (100 + k for VM k)

// ftrace PIDs (docs/cli.md, "Traces"), disjoint between the machines: the guest's tasks
// keep their pids (below kFtraceGuestMarks); vtick's mark writers and the host's threads
// have ranges of their own. Each base is also the TGID of its range.
inline constexpr int kFtraceGuestMarks = 100000;  // + 1 + 2n: "vcpuN" (vCPU n's marks), + 2 + 2n: "vcpuN_tick"
inline constexpr int kFtraceVmm = 200000;         // the VMM process; + 1 + n: its thread "CPU n/KVM"
inline constexpr int kFtraceHostMarks = 300000;   // + 1 + h: "pcpuH" (hardware thread h's marks)
inline constexpr int kTaskCommLen = 16;           // TASK_COMM_LEN: comms are cut to 15 characters

// What the writer needs to name its tracks, read from the assembled run.
struct TraceTopology {
  std::string scenario;
  std::uint64_t seed = 0;
  std::string host_name, vm_name;
  bool x86 = true;
  bool svm = false;                        // AMD (kvm_exit's isa 2, SVM exit codes)
  std::string guest = "vm0";               // the guest's name (trace.dat files, GUEST option)
  std::vector<std::string> pcpu_names;     // by hardware thread ("core0.t1")
  std::vector<int> pcpu_nr_running;        // host run-queue lengths at the start
  int vcpus = 0;
  std::map<int, std::string> tasks;        // guest pid -> comm
};
TraceTopology trace_topology(const Scenario& sc, Kvm& vm, GuestKernel& k);

// "10ms:30ms", "10ms:" (to the end), ":5ms" (from the start). False with `err` set when
// the text is not START:END durations with START < END.
bool parse_trace_window(const std::string& text, sim_ns& start, sim_ns& end, std::string& err);

struct TraceArg {
  const char* key = nullptr;
  std::int64_t v = 0;
  const char* s = nullptr;  // a string value when set
};

// One JSON item: a complete slice ('X'), an instant ('i') or a counter value ('C'). The
// ftrace outputs write the ones on a marks track as tracing_mark_write B/E/C marks.
struct TraceRecord {
  char ph = 'X';
  int pid = 0, tid = 0;   // C: tid is the track whose mark writer owns the counter
  int cpu = 0;            // the ftrace line's [CPU]
  sim_ns ts = 0, dur = 0;
  std::uint64_t seq = 0;  // order of the model events: ties at one ts keep it
  const char* cat = "";
  std::string name;       // C: the counter's name (its one key is args[0])
  std::array<TraceArg, 3> args{};
  int nargs = 0;
  const char* mark = nullptr;  // i: the ftrace mark's name when not `name`; "": a real event replaces it
};

// The event sink that builds the trace. Events may arrive out of global time order
// (actors run ahead of the clock, core/sg.hpp): they are re-ordered in a window of
// kReorderNs, and each track keeps its own state so slices never overlap anyway.
class TraceWriter final : public EventSink {
 public:
  static constexpr sim_ns kReorderNs = 10 * NSEC_PER_MSEC;

  explicit TraceWriter(sim_ns window_start = 0, sim_ns window_end = KTIME_MAX);
  void describe(const TraceTopology& topo);  // before the first event
  void on_event(const ModelEvent& e) override;
  // After the run (a failed one too): closes what is open at `end` (-1: the last event).
  void finish(sim_ns end);

  std::string json() const;
  std::string ftrace() const;
  std::string ftrace(const std::vector<FtraceEvent>& events) const;  // events: ftrace_events()
  const std::vector<TraceRecord>& records() const { return out_; }
  // The ftrace outputs' records in time order: the tracepoint records and the marks.
  std::vector<FtraceEvent> ftrace_events() const;
  const KernelSymbols& symbols() const { return syms_; }
  const TraceTopology& topology() const { return topo_; }
  // Every task of one machine as saved_cmdlines lists it: pid -> comm.
  std::map<int, std::string> ftrace_tasks(bool host) const;

 private:
  struct Track {
    int pid = 0, tid = 0;
    std::string name;  // thread_name
    std::string comm;  // the ftrace TASK of its marks
    int fpid = 0, ftgid = 0;  // ... its ftrace PID and TGID
    bool host = false;        // ... on the host machine (else the guest)
    bool marks = false;  // also written to ftrace as tracing_mark_write
    bool open = false;
    sim_ns ts = 0;
    std::uint64_t seq = 0;
    std::string sname;
    const char* cat = "";
    int cpu = 0;
    const char* reached = nullptr;  // idle slice: the C-state left at wake-up (host_idle_exit)
  };
  struct VcpuView {
    int gstate = 3;  // GuestCpuState::Idle
    int curr = 0;    // running task's pid, 0: idle
    bool poll = false, offline = false, tick_stopped = false;
    int vector = 0;
    int kstate = 0, kprev = 0;  // VcpuState now and before
    std::string pending;  // names the next exit slice: "kvm_exit HLT", "kvm_vcpu_block"
  };
  struct PcpuView {
    int activity = 0, cstate = 0, owner = -1;
  };
  struct TaskView {
    int cpu = -1;
    int state = 0;  // 0 sleeping, 1 runnable, 2 running
    int woken_to = -1;  // woken while still switching out: runnable there after the switch
  };
  struct Pending {
    ModelEvent e;
    std::uint64_t seq;
    bool operator>(const Pending& o) const { return e.t != o.e.t ? e.t > o.e.t : seq > o.seq; }
  };
  struct Counter {
    const char* key;
    std::int64_t v;
    int owner;  // tid of the track whose mark writer writes it
  };

  void process(const ModelEvent& e, std::uint64_t seq);
  // process() by event family; each returns false for an event not of its family
  bool process_host(const ModelEvent& e, std::uint64_t seq);
  bool process_guest_cpu(const ModelEvent& e, std::uint64_t seq);
  bool process_sched(const ModelEvent& e, std::uint64_t seq);
  bool process_tick(const ModelEvent& e, std::uint64_t seq);
  void open_window();

  Track& track(int pid, int tid);
  Track& pcpu_track(int h) { return track(kTraceHostPid, 100 + h); }
  Track& kvm_track(int v) { return track(kTraceHostPid, 1000 + v); }
  Track& vcpu_track(int v) { return track(kTraceVmPid, 10000 + 4 * v); }
  Track& sched_track(int v) { return track(kTraceVmPid, 10000 + 4 * v + 1); }
  Track& tick_track(int v) { return track(kTraceVmPid, 10000 + 4 * v + 2); }
  Track& task_track(int pid);
  VcpuView& vcpu(int v);
  PcpuView& pcpu(int h);
  TaskView& task(int pid);
  std::string comm(int pid) const;   // a guest task's comm, cut to 15 characters

  void set_slice(Track& tr, sim_ns t, std::uint64_t seq, std::string name, const char* cat, int cpu);
  void end_slice(Track& tr, sim_ns t);
  void instant(Track& tr, sim_ns t, std::uint64_t seq, std::string name, const char* cat, std::initializer_list<TraceArg> args = {},
               const char* mark = nullptr);
  void counter(const Track& owner, const std::string& name, const char* key, std::int64_t v, sim_ns t, std::uint64_t seq);
  // A tracepoint record in the guest task running on vCPU v, or in vCPU v's thread on the host.
  FtraceEvent* guest_event(int v, sim_ns t, std::uint64_t seq, Tp tp, std::uint8_t flags, std::uint8_t preempt);
  FtraceEvent* host_event(int v, sim_ns t, std::uint64_t seq, Tp tp, std::uint8_t flags, std::uint8_t preempt);
  std::uint64_t timer_address(const void* timer);

  void refresh_pcpu(int h, sim_ns t, std::uint64_t seq);
  void refresh_vcpu(int v, sim_ns t, std::uint64_t seq);
  void kvm_state(int v, int state, sim_ns t, std::uint64_t seq);
  void task_state(int pid, int state, int cpu, sim_ns t, std::uint64_t seq);
  void update_nr_running(int cpu, sim_ns t, std::uint64_t seq);

  sim_ns ws_, we_;
  bool window_open_ = false;
  bool finished_ = false;
  TraceTopology topo_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> queue_;
  std::uint64_t next_seq_ = 1;
  sim_ns newest_ = 0, last_ = 0;
  sim_ns end_ = 0;  // where the written trace ends
  std::map<std::pair<int, int>, Track> tracks_;
  std::vector<VcpuView> vcpus_;
  std::vector<PcpuView> pcpus_;
  std::map<int, TaskView> tasks_;
  std::map<std::pair<int, std::string>, Counter> counters_;
  std::vector<TraceRecord> out_;
  std::vector<FtraceEvent> fevents_;
  KernelSymbols syms_;
  std::map<const void*, std::uint64_t> timers_;  // hrtimer identity -> the address its records show
};

}  // namespace vtick
