// trace.dat files written by vtick: Debian's libtracecmd 3.1.6 (libtracecmd-dev) ships
// only its read API (trace-cmd.h); the writer (tracecmd_output_*) is declared in
// trace-cmd-private.h, which is not installed. vtick therefore writes the documented
// version-6 layout itself and reads every file back through libtracecmd before it is
// written (trace_dat_check()).
#include "sim/trace_dat.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <set>

#include "core/rng.hpp"
#include "sim/trace_writer.hpp"

#include "sim/tracecmd_read.h"

namespace vtick {

namespace {

constexpr std::uint32_t kPageSize = 4096;
constexpr std::uint32_t kPageHeader = 16;  // u64 timestamp, local_t commit
// The ring buffer's event header (kernel/trace/ring_buffer.c): type_len:5, time_delta:27.
constexpr std::uint32_t kTypeDataMax = 28, kTypeTimeExtend = 30, kTsBits = 27;

// OPTION ids (trace-cmd.dat.v7(5), valid in v6 files too).
constexpr std::uint16_t kOptTraceId = 11, kOptTimeShift = 12, kOptGuest = 13;

void le(std::string& o, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) o += static_cast<char>((v >> (8 * i)) & 0xff);
}
void u16(std::string& o, std::uint64_t v) { le(o, v, 2); }
void u32(std::string& o, std::uint64_t v) { le(o, v, 4); }
void u64(std::string& o, std::uint64_t v) { le(o, v, 8); }
void cstr(std::string& o, const std::string& s) {
  o += s;
  o += '\0';
}

// What events/header_page and events/header_event say on a 64-bit kernel with 4 KiB
// pages (ring_buffer_print_page_header(), ring_buffer_print_entry_header()).
const char* kHeaderPage =
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
const char* kHeaderEvent =
    "# compressed entry header\n"
    "\ttype_len    :    5 bits\n"
    "\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n"
    "\n"
    "\tpadding     : type == 29\n"
    "\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n"
    "\tdata max type_len  == 28\n";

// A trace session's ID (trace-cmd draws a random one): here a hash of the run, so the
// same run gives the same bytes.
std::uint64_t trace_id(const TraceTopology& t, bool host) {
  // FNV-1a from a start value one digit short of its basis: kept, so the IDs (and the
  // trace.dat bytes) stay those of earlier runs
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](const std::string& s) { h = fnv1a64(s, h); };
  mix(t.scenario);
  mix(std::to_string(t.seed));
  mix(host ? "host" : t.guest);
  return h;
}

std::vector<Tp> machine_events(bool host, bool x86) {
  if (host)
    return x86 ? std::vector<Tp>{Tp::KvmExit, Tp::KvmEntry, Tp::KvmVcpuWakeup, Tp::KvmHaltPollNs}
               : std::vector<Tp>{Tp::KvmExitArm64, Tp::KvmEntryArm64, Tp::KvmVcpuWakeup, Tp::KvmHaltPollNs};
  std::vector<Tp> g = {Tp::SchedSwitch, Tp::SchedWaking, Tp::SchedWakeup, Tp::SchedMigrateTask, Tp::CpuIdle,
                       Tp::TickStop, Tp::HrtimerStart, Tp::HrtimerExpireEntry, Tp::IpiSendCpu};
  if (x86) g.insert(g.end(), {Tp::LocalTimerEntry, Tp::RescheduleEntry, Tp::CallFunctionSingleEntry, Tp::WriteMsr});
  return g;
}

// One CPU's ring buffer pages: each starts with the time of its first event, events
// carry the delta to the one before (a TIME_EXTEND event first when it needs more than
// 27 bits).
class PageWriter {
 public:
  void add(sim_ns ts, const std::string& payload) {
    std::string ev;
    std::uint64_t delta = open_ ? static_cast<std::uint64_t>(ts - last_) : 0;
    std::size_t len = (payload.size() + 3) / 4 * 4;
    std::size_t need = len + 4 + (len / 4 > kTypeDataMax ? 4 : 0) + (delta >> kTsBits ? 8 : 0);
    if (!open_ || page_.size() + need > kPageSize) {
      flush();
      open_ = true;
      page_.clear();
      u64(page_, static_cast<std::uint64_t>(ts));
      u64(page_, 0);  // commit, set when the page is closed
      delta = 0;
    }
    if (delta >> kTsBits) {
      u32(ev, kTypeTimeExtend | ((delta & ((1u << kTsBits) - 1)) << 5));
      u32(ev, delta >> kTsBits);
      delta = 0;
    }
    if (len / 4 <= kTypeDataMax) {
      u32(ev, (len / 4) | (delta << 5));
    } else {
      u32(ev, delta << 5);  // type_len 0: the length follows (it counts itself)
      u32(ev, len + 4);
    }
    ev += payload;
    ev.resize(ev.size() + (len - payload.size()), '\0');
    page_ += ev;
    last_ = ts;
  }
  std::string finish() {
    flush();
    return std::move(data_);
  }

 private:
  void flush() {
    if (!open_) return;
    std::string commit;
    u64(commit, page_.size() - kPageHeader);
    page_.replace(8, 8, commit);
    page_.resize(kPageSize, '\0');
    data_ += page_;
    open_ = false;
  }
  std::string data_, page_;
  bool open_ = false;
  sim_ns last_ = 0;
};

}  // namespace

std::string trace_dat_guest_path(const std::string& host_path, const std::string& guest) {
  std::size_t slash = host_path.rfind('/');
  std::size_t dot = host_path.rfind('.');
  std::size_t base = (dot != std::string::npos && dot != 0 && (slash == std::string::npos || dot > slash + 1))
                         ? dot
                         : host_path.size();
  return host_path.substr(0, base) + "-" + guest + host_path.substr(base);
}

std::size_t trace_dat_records(const std::vector<FtraceEvent>& events, bool host) {
  std::size_t n = 0;
  for (const FtraceEvent& e : events) n += e.host == host;
  return n;
}

std::string trace_dat_bytes(const TraceWriter& w, const std::vector<FtraceEvent>& events, bool host) {
  const TraceTopology& topo = w.topology();
  const int cpus = host ? static_cast<int>(topo.pcpu_names.size()) : topo.vcpus;
  std::string o;
  // initial format
  o += "\x17\x08\x44tracing";
  cstr(o, "6");
  o += '\0';  // little endian
  o += '\x08';  // userspace long size
  u32(o, kPageSize);
  // header info
  cstr(o, "header_page");
  u64(o, std::strlen(kHeaderPage));
  o += kHeaderPage;
  cstr(o, "header_event");
  u64(o, std::strlen(kHeaderEvent));
  o += kHeaderEvent;
  // ftrace event formats: print (trace_marker)
  std::string print = tp_format_file(Tp::Print);
  u32(o, 1);
  u64(o, print.size());
  o += print;
  // event formats, by system
  std::map<std::string, std::vector<std::string>> systems;
  for (Tp tp : machine_events(host, topo.x86)) systems[tp_format(tp).system].push_back(tp_format_file(tp));
  u32(o, systems.size());
  for (const auto& [sys, formats] : systems) {
    cstr(o, sys);
    u32(o, formats.size());
    for (const std::string& f : formats) {
      u64(o, f.size());
      o += f;
    }
  }
  std::string kallsyms = w.symbols().kallsyms();
  u32(o, kallsyms.size());
  o += kallsyms;
  u32(o, 0);  // printk formats: none (no trace_printk())
  std::string cmdlines;
  for (const auto& [pid, comm] : w.ftrace_tasks(host)) cmdlines += std::to_string(pid) + " " + comm + "\n";
  u64(o, cmdlines.size());
  o += cmdlines;
  u32(o, static_cast<std::uint32_t>(cpus));
  // options
  o.append("options  \0", 10);
  std::string opt;
  u64(opt, trace_id(topo, host));
  u16(o, kOptTraceId);
  u32(o, opt.size());
  o += opt;
  opt.clear();
  if (host) {
    // the guest, its trace ID and each vCPU's host thread (trace_add_guest_info())
    cstr(opt, topo.guest);
    u64(opt, trace_id(topo, false));
    u32(opt, static_cast<std::uint32_t>(topo.vcpus));
    for (int v = 0; v < topo.vcpus; ++v) {
      u32(opt, static_cast<std::uint32_t>(v));
      u32(opt, static_cast<std::uint32_t>(kFtraceVmm + 1 + v));
    }
    u16(o, kOptGuest);
  } else {
    // one clock for both machines: per vCPU one sample, offset 0, scaling 1, fraction 0
    u64(opt, trace_id(topo, true));
    u32(opt, 0);
    u32(opt, static_cast<std::uint32_t>(cpus));
    for (int c = 0; c < cpus; ++c) {
      u32(opt, 1);
      u64(opt, 0);
      u64(opt, 0);
      u64(opt, 1);
    }
    for (int c = 0; c < cpus; ++c) u64(opt, 0);
    u16(o, kOptTimeShift);
  }
  u32(o, opt.size());
  o += opt;
  u16(o, 0);  // end of options
  // flyrecord: per CPU offset and size, then the pages from a page boundary
  std::vector<PageWriter> pages(static_cast<std::size_t>(cpus));
  for (const FtraceEvent& e : events)
    if (e.host == host && e.cpu >= 0 && e.cpu < cpus) pages[static_cast<std::size_t>(e.cpu)].add(e.ts, tp_record(e));
  std::vector<std::string> data;
  for (PageWriter& p : pages) data.push_back(p.finish());
  o.append("flyrecord\0", 10);
  std::size_t at = (o.size() + 16 * static_cast<std::size_t>(cpus) + kPageSize - 1) / kPageSize * kPageSize;
  for (const std::string& d : data) {
    u64(o, at);
    u64(o, d.size());
    at += d.size();
  }
  o.resize((o.size() + kPageSize - 1) / kPageSize * kPageSize, '\0');
  for (const std::string& d : data) o += d;
  return o;
}

std::string trace_dat_check(const std::string& bytes, std::size_t expected) {
  int fd = memfd_create("vtick-trace.dat", MFD_CLOEXEC);
  if (fd < 0) return std::string("memfd_create: ") + std::strerror(errno);
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      close(fd);
      return "cannot stage the file for libtracecmd";
    }
    done += static_cast<std::size_t>(n);
  }
  lseek(fd, 0, SEEK_SET);
  unsigned long long n = 0;
  if (vtick_tracecmd_count_records(fd, &n) != 0) return "libtracecmd cannot open it";  // it closed fd
  if (n != expected)
    return "libtracecmd reads " + std::to_string(n) + " records of the " + std::to_string(expected) + " written";
  return "";
}

}  // namespace vtick
