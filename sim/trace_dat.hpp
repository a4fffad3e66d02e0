// The run as trace.dat files (docs/cli.md, "Traces"): the layout `trace-cmd record -A GUEST`
// (trace-cmd agent in the guest) gives a VM, one file per machine, linked by trace IDs.
#pragma once
#include <string>
#include <vector>

namespace vtick {

class TraceWriter;
struct FtraceEvent;

// trace-cmd's naming (tracecmd/trace-record.c trace_get_guest_file()): the guest's file
// is the host's with "-GUEST" before the extension: trace.dat -> trace-vm0.dat.
std::string trace_dat_guest_path(const std::string& host_path, const std::string& guest);

// A trace.dat (file format version 6, Documentation/trace-cmd/trace-cmd.dat.v6.5.txt) of
// one machine's records: the host's with a TRACEID and a GUEST option (the guest's trace
// ID and each vCPU's host thread), the guest's with a TRACEID and a TIME_SHIFT option
// naming the host's trace ID.
// `events`: w.ftrace_events().
std::string trace_dat_bytes(const TraceWriter& w, const std::vector<FtraceEvent>& events, bool host);

// Reads `bytes` back through libtracecmd's public API and counts its records; "" when
// libtracecmd reads `expected` records, else what went wrong.
std::string trace_dat_check(const std::string& bytes, std::size_t expected);
std::size_t trace_dat_records(const std::vector<FtraceEvent>& events, bool host);

}  // namespace vtick
