// sim/trace_format + sim/trace_dat + sim/ftrace_events: the ftrace text (--ftrace) and the
// trace.dat files (--trace-dat) of a run, read as the kernel's and trace-cmd's users read them.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "helpers.hpp"
#include "sim/ftrace_events.hpp"

using namespace vtick;
using json = nlohmann::json;

namespace {

const std::string kDefault = VTICK_SOURCE_DIR "/scenarios/default.toml";
const std::string kTeach = VTICK_SOURCE_DIR "/scenarios/teach/wakeup.toml";

struct Line {
  std::string comm;
  int pid = 0, cpu = 0;
  std::string ts;     // "SECONDS.MICROSECONDS"
  std::string event;  // "sched_switch", "tracing_mark_write", ...
  std::string fields;
  std::string file;   // trace-cmd report with several files: the file it comes from
};

// TASK-PID [CPU] FLAGS SECONDS.USECS: EVENT: FIELDS (kernel/trace/trace_output.c), and
// trace-cmd report's lines ("FILE: " first when it reads several files, no flags).
std::vector<Line> parse(const std::string& text, bool report) {
  static const std::regex ftrace(R"(^ *(.+)-(\d+) +\[(\d{3})\] [a-zA-Z0-9.]{5} +(\d+\.\d{6}): (\S+): (.*)$)");
  static const std::regex trace_cmd(R"(^ *(?:(\S+\.dat): )? *(.+)-(\d+) +\[(\d{3})\] +(\d+\.\d{6}): (\S+): +(.*)$)");
  std::vector<Line> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    if (l.empty() || l[0] == '#' || l.find("cpus=") != std::string::npos) continue;
    std::smatch m;
    INFO(l);
    Line x;
    if (report) {
      REQUIRE(std::regex_match(l, m, trace_cmd));
      x = {m[2], std::stoi(m[3]), std::stoi(m[4]), m[5], m[6], m[7], m[1]};
      if (x.event == "print") {  // ftrace:print is "tracing_mark_write: TEXT"
        x.event = "tracing_mark_write";
        x.fields = x.fields.substr(x.fields.find(": ") + 2);
      }
    } else {
      REQUIRE(std::regex_match(l, m, ftrace));
      x = {m[1], std::stoi(m[2]), std::stoi(m[3]), m[4], m[5], m[6], ""};
    }
    out.push_back(x);
  }
  return out;
}

double metric(const json& m, const std::string& key) { return m["metrics"][key].get<double>(); }
double both(const json& m, const std::string& key) { return metric(m, "vcpu0." + key) + metric(m, "vcpu1." + key); }

std::string run_output(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  INFO(cmd << "\n" << out.substr(0, 2000));
  REQUIRE(st == 0);
  return out;
}

// The teaching scenario under got_tick (every exit, poll, block, grow and shrink of the
// tutorial), traced as text and as trace.dat.
struct Teach {
  std::string text, dat, guest_dat;
  json m;
};
const Teach& teach() {
  static Teach t = [] {
    Teach x;
    std::string f = test::temp_path("teach.txt"), j = test::temp_path("teach.json");
    x.dat = test::temp_path("teach.dat");
    x.guest_dat = test::temp_path("teach-vm0.dat");
    auto r = test::run_cli("run " + kTeach + " --set guest.tick_policy=got_tick --quiet --ftrace " + f + " --trace-dat " +
                           x.dat + " --json " + j);
    REQUIRE(r.status == 0);
    x.text = test::read_file(f);
    x.m = json::parse(test::read_file(j));
    return x;
  }();
  return t;
}

std::size_t count(const std::vector<Line>& v, const std::string& event, const std::string& fields_start = "") {
  std::size_t n = 0;
  for (const Line& l : v) n += l.event == event && l.fields.rfind(fields_start, 0) == 0;
  return n;
}

}  // namespace

TEST_CASE("ftrace: the header is /sys/kernel/tracing/trace's, with the entry count and five latency-flag columns") {
  const std::string& text = teach().text;
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l) && l[0] == '#';) lines.push_back(l);
  REQUIRE(lines.size() > 12);
  CHECK(lines[0] == "# tracer: nop");
  CHECK(lines[1] == "#");
  // kernel/trace/trace.c print_event_info() and print_func_help_header_irq(), as a 6.x
  // kernel prints them (the last ten header lines)
  const std::vector<std::string> tail = {
      "#                                _-----=> irqs-off/BH-disabled",
      "#                               / _----=> need-resched",
      "#                              | / _---=> hardirq/softirq",
      "#                              || / _--=> preempt-depth",
      "#                              ||| / _-=> migrate-disable",
      "#                              |||| /     delay",
      "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
      "#              | |         |   |||||     |         |",
  };
  CHECK(std::vector<std::string>(lines.end() - 8, lines.end()) == tail);
  std::size_t entries = parse(text, false).size();
  std::string want = "# entries-in-buffer/entries-written: " + std::to_string(entries) + "/" + std::to_string(entries) + "   #P:4";
  CHECK(std::find(lines.begin(), lines.end(), want) != lines.end());  // 2 hardware threads + 2 vCPUs
  // the first data line, as trace_print_context() lays it out: %16s-%-7d [%03d] FLAGS %5lu.%06lu:
  std::string first = text.substr(text.find("\n ", text.find("|||||     |")) + 1);
  first = first.substr(0, first.find('\n'));
  CHECK(std::regex_match(first, std::regex(R"(^[ -~]{16}-\d[\d ]{6} \[\d{3}\] [.dh][.][.h][.1-9a-f][.] +\d{1,}\.\d{6}: \S+: .*$)")));
}

TEST_CASE("ftrace: lines match Perfetto's systrace tokenizer, with sched_switch and cpu_idle in the kernel's format") {
  std::string t = test::temp_path("t.txt"), j = test::temp_path("m.json");
  REQUIRE(test::run_cli("run " + kDefault + " --duration 20ms --quiet --ftrace " + t + " --json " + j).status == 0);
  json m = json::parse(test::read_file(j));
  std::istringstream in(test::read_file(t));
  std::string line;
  REQUIRE(std::getline(in, line));
  CHECK(line == "# tracer: nop");
  // google/perfetto src/trace_processor/importers/systrace/systrace_line_tokenizer.cc, with
  // the five flag characters current kernels print (the fifth is migrate-disable)
  std::regex tokenizer(R"(-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*[a-zA-Z0-9.]{0,5}\s+(\d+\.\d+):\s+(\S+):)");
  std::regex sched_switch(R"(sched_switch: prev_comm=\S+ prev_pid=\d+ prev_prio=120 prev_state=(R\+?|S|D|Z) ==> next_comm=\S+ next_pid=(\d+) next_prio=120$)");
  std::regex cpu_idle(R"(cpu_idle: state=(\d+) cpu_id=\d+$)");
  std::regex mark(R"(tracing_mark_write: ([BEC])\|(\d+)(\|.*)?$)");
  const std::set<std::string> events = {"sched_switch", "sched_waking", "sched_wakeup", "write_msr", "sched_migrate_task", "cpu_idle", "tick_stop",
                                        "hrtimer_start", "hrtimer_expire_entry", "ipi_send_cpu", "local_timer_entry",
                                        "reschedule_entry", "call_function_single_entry", "kvm_exit", "kvm_entry",
                                        "kvm_vcpu_wakeup", "kvm_halt_poll_ns", "tracing_mark_write"};
  std::size_t lines = 0, switches = 0, halts = 0, marks = 0;
  double last = 0;
  while (std::getline(in, line)) {
    if (line[0] == '#') continue;
    ++lines;
    INFO(line);
    std::smatch mt;
    REQUIRE(std::regex_search(line, mt, tokenizer));
    double ts = std::stod(mt[4]);
    CHECK(ts >= last);
    last = ts;
    std::string event = mt[5];
    CHECK(events.count(event));
    if (event == "sched_switch") {
      REQUIRE(std::regex_search(line, mt, sched_switch));
      if (mt[2] != "0") ++switches;
    } else if (event == "cpu_idle") {
      REQUIRE(std::regex_search(line, mt, cpu_idle));
      std::string s = mt[1];
      CHECK((s == "0" || s == "1" || s == "4294967295"));
      if (s == "1") ++halts;
    } else if (event == "tracing_mark_write") {
      REQUIRE(std::regex_search(line, mt, mark));
      ++marks;
      if (mt[1] == "C") CHECK(std::regex_search(line, std::regex(R"(C\|\d+\|[^|]+\|-?\d+$)")));
    }
  }
  CHECK(lines > 1000);
  CHECK(marks > 500);
  CHECK(switches == metric(m, "sched.switches"));
  CHECK(halts == metric(m, "vcpu0.idle.halts") + metric(m, "vcpu1.idle.halts"));
}

TEST_CASE("ftrace: the teaching scenario's marks pair as a stack: instants are a B and its E, no slice is lost or zero-length") {
  std::vector<Line> v = parse(teach().text, false);
  // vtick's instants on the marks tracks (docs/cli.md): a B and its E at one time, adjacent
  const std::set<std::string> instants = {"tick", "tick_retain", "tick_restart", "nohz_stop", "clockevent_write",
                                          "kvm_apic_accept_irq", "apic_timer_expired"};
  std::map<int, std::vector<std::pair<std::string, std::size_t>>> stack;  // pid -> open B marks
  std::size_t instant_pairs = 0, tick_stopped = 0, last_e = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Line& l = v[i];
    if (l.event != "tracing_mark_write" || l.fields[0] == 'C') continue;
    INFO(l.comm << "-" << l.pid << " " << l.ts << " " << l.fields);
    if (l.fields[0] == 'B') {
      stack[l.pid].push_back({l.fields.substr(l.fields.find('|', 2) + 1), i});
      continue;
    }
    REQUIRE(l.fields == "E|" + std::to_string(l.pid / 100000 * 100000));  // E|TGID of its writer
    REQUIRE_FALSE(stack[l.pid].empty());  // every E closes a B of its own thread
    auto [name, b] = stack[l.pid].back();
    stack[l.pid].pop_back();
    std::string word = name.substr(0, name.find(' '));
    if (name == "tick stopped") {
      ++tick_stopped;
      CHECK(v[b].ts < l.ts);  // as long as the tick really was stopped, never zero
    } else if (instants.count(word)) {
      ++instant_pairs;
      CHECK(v[b].ts == l.ts);
      // nothing of this thread between the instant's B and its E
      for (std::size_t k = b + 1; k < i; ++k) CHECK(v[k].pid != l.pid);
    }
    last_e = i;
  }
  for (const auto& [pid, open] : stack) CHECK(open.empty());  // the end of the run closes every slice
  CHECK(last_e > 0);
  CHECK(instant_pairs > 100);
  const json& m = teach().m;
  REQUIRE(both(m, "tick.stops") > 5);
  CHECK(tick_stopped == both(m, "tick.stops"));
  CHECK(count(v, "tick_stop", "success=1 dependency=NONE") == both(m, "tick.stops"));
}

TEST_CASE("ftrace: KVM, timer and scheduler events are the kernel's tracepoints with their TP_printk fields") {
  std::vector<Line> v = parse(teach().text, false);
  const json& m = teach().m;
  // arch/x86/kvm/trace.h, include/trace/events/{kvm,timer,sched,ipi}.h
  const std::map<std::string, std::regex> formats = {
      {"kvm_exit", std::regex(R"(vcpu [01] reason (HLT|MSR_WRITE|PREEMPTION_TIMER|EXTERNAL_INTERRUPT) rip 0x0 info1 0x0{16} info2 0x0{16} intr_info 0x0{8} error_code 0x0{8})")},
      {"kvm_entry", std::regex(R"(vcpu [01], rip 0x0)")},
      {"kvm_vcpu_wakeup", std::regex(R"((wait|poll) time \d+ ns, polling valid)")},
      {"kvm_halt_poll_ns", std::regex(R"(vcpu [01]: halt_poll_ns \d+ \((grow|shrink) \d+\))")},
      {"hrtimer_start", std::regex(R"(hrtimer=[0-9a-f]{16} function=(tick_nohz_handler|hrtimer_wakeup) expires=\d+ softexpires=\d+ mode=(ABS\|PINNED\|HARD|REL))")},
      {"hrtimer_expire_entry", std::regex(R"(hrtimer=[0-9a-f]{16} function=(tick_nohz_handler|hrtimer_wakeup) now=\d+)")},
      {"tick_stop", std::regex(R"(success=[01] dependency=(NONE|POSIX_TIMER|SCHED))")},
      {"sched_wakeup", std::regex(R"(comm=worker pid=2 prio=120 target_cpu=001)")},
      {"sched_waking", std::regex(R"(comm=worker pid=2 prio=120 target_cpu=001)")},
      // TSC deadline; x2APIC ICR (destination << 32 | CALL_FUNCTION_SINGLE or RESCHEDULE); LVTT
      {"write_msr", std::regex(R"(6e0, value [0-9a-f]+|830, value 1000000f[bd]|832, value (0|10000))")},
      {"ipi_send_cpu", std::regex(R"(cpu=1 callsite=(resched_curr\+0x0/0x100 callback=0x0|(ttwu_queue_wakelist|generic_exec_single)\+0x0/0x100 callback=generic_smp_call_function_single_interrupt\+0x0/0x100))")},
      {"call_function_single_entry", std::regex(R"(vector=251)")},
      {"local_timer_entry", std::regex(R"(vector=236)")},
  };
  std::map<std::string, std::size_t> seen;
  for (const Line& l : v) {
    INFO(l.event << ": " << l.fields);
    auto f = formats.find(l.event);
    if (f != formats.end()) {
      ++seen[l.event];
      CHECK(std::regex_match(l.fields, f->second));
      bool host = l.event.rfind("kvm_", 0) == 0;
      CHECK(l.cpu < 2);
      CHECK((host ? l.pid >= 200000 && l.pid < 300000 : l.pid < 100000));  // KVM events in a vCPU thread
    }
    if (l.event == "tracing_mark_write" && l.fields[0] == 'B') {
      // what a real tracepoint reports is not also a mark
      std::string name = l.fields.substr(l.fields.find('|', 2) + 1);
      for (const char* real : {"kvm_vcpu_wakeup", "kvm_halt_poll_ns", "hrtimer_start", "hrtimer_expire_entry",
                               "ipi_send_cpu", "tick_stop", "reschedule_entry", "local_timer_entry"})
        CHECK(name.rfind(real, 0) != 0);
    }
  }
  for (const auto& [event, re] : formats) CHECK(seen[event] > 0);
  CHECK(seen["kvm_exit"] == both(m, "exits.total"));
  CHECK(count(v, "kvm_vcpu_wakeup", "wait") == both(m, "kvm.halt_wakeup"));
  CHECK(seen["kvm_halt_poll_ns"] == both(m, "kvm.halt_poll_grow") + both(m, "kvm.halt_poll_shrink"));
  CHECK(count(v, "kvm_halt_poll_ns", "vcpu 1: halt_poll_ns 10000 (grow 0)") >= 1);  // grow_start from 0
  CHECK(count(v, "hrtimer_expire_entry") >= both(m, "tick.ticks"));
  std::size_t tick_expiries = 0;
  for (const Line& l : v) tick_expiries += l.event == "hrtimer_expire_entry" && l.fields.find("tick_nohz_handler") != std::string::npos;
  CHECK(tick_expiries == both(m, "tick.ticks"));
  CHECK(seen["ipi_send_cpu"] == both(m, "exits.ipi"));
  CHECK(seen["sched_wakeup"] == metric(m, "sched.wakeups_local") + metric(m, "sched.wakeups_remote"));
  CHECK(seen["sched_waking"] == seen["sched_wakeup"]);  // each try_to_wake_up() activates its task in this run
  // each TSC-deadline, ICR and LVTT write exits
  CHECK(count(v, "write_msr", "6e0,") == both(m, "exits.msr_tsc_deadline"));
  CHECK(count(v, "write_msr", "830,") == both(m, "exits.ipi"));
  CHECK(count(v, "write_msr", "832,") == both(m, "exits.apic_lvtt"));
}

TEST_CASE("ftrace: host and guest PIDs are disjoint, no PID is two tasks, comms are cut to 15 characters") {
  std::map<int, std::set<std::string>> names;
  for (const Line& l : parse(teach().text, false)) names[l.pid].insert(l.comm);
  for (const auto& [pid, comms] : names) {
    INFO("pid " << pid);
    CHECK(comms.size() == 1);
  }
  CHECK(names[0] == std::set<std::string>{"<idle>"});
  CHECK(names[1] == std::set<std::string>{"busy"});    // the guest's tasks keep their pids
  CHECK(names[2] == std::set<std::string>{"worker"});
  CHECK(names[200001] == std::set<std::string>{"CPU 0/KVM"});  // the VMM's vCPU threads (QEMU's names)
  CHECK(names[200002] == std::set<std::string>{"CPU 1/KVM"});
  // a task name longer than TASK_COMM_LEN - 1
  std::string sc = test::temp_path("long.toml"), f = test::temp_path("long.txt");
  {
    std::ofstream o(sc);
    o << "[workload]\nkind = \"script\"\n[[workload.task]]\nname = \"a-task-with-a-long-name\"\ncpus = \"0\"\n"
         "program = [\"run 100us\", \"sleep 200us\"]\n[run]\nduration = \"2ms\"\n";
  }
  REQUIRE(test::run_cli("run " + sc + " --quiet --ftrace " + f).status == 0);
  std::set<std::string> comms;
  std::string text = test::read_file(f);
  for (const Line& l : parse(text, false)) comms.insert(l.comm);
  CHECK(comms.count("a-task-with-a-l"));
  CHECK(text.find("next_comm=a-task-with-a-l next_pid=1 ") != std::string::npos);
  CHECK(text.find("a-task-with-a-lo") == std::string::npos);
}

TEST_CASE("trace.dat: trace-cmd report reads the host and guest files and prints the ftrace text's events") {
  const Teach& t = teach();
  std::vector<Line> text = parse(t.text, false);
  // without plugins libtraceevent prints each record from its format's print fmt: the same
  // fields as the kernel, but %p as 0x... and %pS without the symbol's size
  auto normal = [](const Line& l) {
    std::string f = std::regex_replace(l.fields, std::regex(R"(hrtimer=0*([0-9a-f]+))"), "hrtimer=0x$1");
    f = std::regex_replace(f, std::regex(R"(\+0x0/0x100)"), "+0x0");
    return std::make_tuple(l.ts, l.cpu, l.pid, l.comm, l.event, f);
  };
  std::multiset<std::tuple<std::string, int, int, std::string, std::string, std::string>> want, got;
  for (const Line& l : text) want.insert(normal(l));
  std::vector<Line> report = parse(run_output("trace-cmd report -N -i " + t.dat + " -i " + t.guest_dat), true);
  std::set<std::string> files;
  for (const Line& l : report) {
    got.insert(std::make_tuple(l.ts, l.cpu, l.pid, l.comm, l.event, l.fields));
    files.insert(l.file);
    CHECK((l.file == t.dat.substr(t.dat.rfind('/') + 1)) == (l.pid >= 200000));  // host events in the host's file
  }
  CHECK(files.size() == 2);
  CHECK(got.size() == want.size());
  CHECK(got == want);
  // with its plugins (kvm, hrtimer, sched_switch) trace-cmd prints some fields its own way:
  // the same records at the same times
  std::multiset<std::tuple<std::string, int, int, std::string>> want_ev, got_ev;
  for (const Line& l : text) want_ev.insert({l.ts, l.cpu, l.pid, l.event});
  for (const Line& l : parse(run_output("trace-cmd report -i " + t.dat + " -i " + t.guest_dat), true))
    got_ev.insert({l.ts, l.cpu, l.pid, l.event});
  CHECK(got_ev == want_ev);
}

TEST_CASE("trace.dat: the files are linked as trace-cmd record -A links a guest's, and the same run gives the same bytes") {
  const Teach& t = teach();
  std::string host = run_output("trace-cmd dump --options " + t.dat);
  std::string guest = run_output("trace-cmd dump --options " + t.guest_dat);
  std::smatch mh, mg;
  REQUIRE(std::regex_search(host, mh, std::regex(R"(Option TRACEID, 8 bytes\]\s*(0x[0-9A-F]+))")));
  REQUIRE(std::regex_search(guest, mg, std::regex(R"(Option TRACEID, 8 bytes\]\s*(0x[0-9A-F]+))")));
  CHECK(mh[1] != mg[1]);
  // the host's GUEST option: the guest's name and trace ID, each vCPU's host thread
  CHECK(host.find("vm0 [Guest name]") != std::string::npos);
  CHECK(host.find(std::string(mg[1]) + " [trace id]") != std::string::npos);
  CHECK(host.find("0 200001 [guest cpu, host pid]") != std::string::npos);
  CHECK(host.find("1 200002 [guest cpu, host pid]") != std::string::npos);
  // the guest's TIME_SHIFT: the host is its peer; one clock, so offset 0 and scaling 1
  CHECK(guest.find(std::string(mh[1]) + " [peer's trace id]") != std::string::npos);
  CHECK(guest.find("0 1 0 0[offset * scaling >> fraction @ time]") != std::string::npos);
  // reproducible
  std::string again = test::temp_path("again.dat");
  REQUIRE(test::run_cli("run " + kTeach + " --set guest.tick_policy=got_tick --quiet --trace-dat " + again).status == 0);
  CHECK(test::read_file(again) == test::read_file(t.dat));
  CHECK(test::read_file(test::temp_path("again-vm0.dat")) == test::read_file(t.guest_dat));
}

TEST_CASE("trace.dat: an arm64 guest's exits are arm64 kvm_exit records, and trace-cmd reads every record") {
  std::string text = test::temp_path("a.txt"), dat = test::temp_path("a.dat");
  REQUIRE(test::run_cli("run " VTICK_SOURCE_DIR "/scenarios/arm64-2vcpu.toml --duration 150ms --set run.warmup=0ns --quiet "
                        "--ftrace " + text + " --trace-dat " + dat).status == 0);
  std::vector<Line> v = parse(test::read_file(text), false);
  std::size_t exits = 0;
  for (const Line& l : v)
    if (l.event == "kvm_exit") {
      ++exits;
      INFO(l.fields);
      CHECK(std::regex_match(l.fields, std::regex(R"((TRAP|IRQ): HSR_EC: 0x00(01|18|16|24|00) \((WFx|SYS64|HVC64|DABT_LOW|UNKNOWN)\), PC: 0x0{16})")));
    }
  CHECK(exits > 100);
  std::size_t records = parse(run_output("trace-cmd report -N -i " + dat + " -i " + test::temp_path("a-vm0.dat")), true).size();
  CHECK(records == v.size());
}

TEST_CASE("trace.dat: the format files lay the fields out as the kernel does") {
  // offsets as a 64-bit kernel's events/*/format list them
  auto offsets = [](Tp tp) {
    std::map<std::string, int> o;
    std::istringstream in(tp_format_file(tp));
    std::regex field(R"(^\tfield:.*?(\w+)(\[\d*\])?;\toffset:(\d+);\tsize:(\d+);)");
    for (std::string l; std::getline(in, l);) {
      std::smatch m;
      if (std::regex_search(l, m, field)) o[m[1]] = std::stoi(m[3]);
    }
    return o;
  };
  auto ss = offsets(Tp::SchedSwitch);
  CHECK(ss == std::map<std::string, int>{{"common_type", 0}, {"common_flags", 2}, {"common_preempt_count", 3},
                                         {"common_pid", 4}, {"prev_comm", 8}, {"prev_pid", 24}, {"prev_prio", 28},
                                         {"prev_state", 32}, {"next_comm", 40}, {"next_pid", 56}, {"next_prio", 60}});
  auto hs = offsets(Tp::HrtimerStart);
  CHECK(hs["hrtimer"] == 8);
  CHECK(hs["function"] == 16);
  CHECK(hs["expires"] == 24);
  CHECK(hs["softexpires"] == 32);
  CHECK(hs["mode"] == 40);
  auto ke = offsets(Tp::KvmExit);
  CHECK(ke == std::map<std::string, int>{{"common_type", 0}, {"common_flags", 2}, {"common_preempt_count", 3},
                                         {"common_pid", 4}, {"exit_reason", 8}, {"guest_rip", 16}, {"isa", 24},
                                         {"info1", 32}, {"info2", 40}, {"intr_info", 48}, {"error_code", 52},
                                         {"vcpu_id", 56}});
  std::string pf = tp_format_file(Tp::Print);
  CHECK(pf.rfind("name: print\nID: 5\nformat:\n", 0) == 0);
  CHECK(pf.find("\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n") != std::string::npos);
  CHECK(pf.find("\nprint fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n") != std::string::npos);
}
