// vtick timeline: a trace JSON written by `vtick run --trace` -> an SVG timeline (one
// lane per track, slices coloured by category, instants as ticks, counters as steps).
// Hand-written SVG with fixed number formatting: the same trace gives the same bytes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/commands.hpp"
#include "sim/trace_writer.hpp"

namespace vtick {

namespace {

struct Slice {
  sim_ns ts, dur;
  std::string name, cat;
};
struct Mark {
  sim_ns ts;
  std::string name;
};
struct Lane {
  std::string name;
  std::vector<Slice> slices;
  std::vector<Mark> marks;
  std::vector<std::pair<sim_ns, double>> steps;  // counters
  bool counter = false;
};
struct Process {
  std::string name;
  std::map<int, Lane> threads;
  std::map<std::string, Lane> counters;
};

struct Style {
  const char* color;
  const char* label;
};
// Slice categories written by sim/trace_writer.cpp, in legend order.
const std::pair<const char*, Style> kSliceStyles[] = {
    {"hw.guest", {"#4c9f4c", "pCPU: guest mode"}},
    {"hw.host_kernel", {"#d9534f", "pCPU: KVM / host kernel"}},
    {"hw.halt_poll", {"#f0ad4e", "pCPU: KVM halt-polling"}},
    {"hw.guest_poll", {"#9b59b6", "pCPU: guest polling"}},
    {"hw.host_thread", {"#5bc0de", "pCPU: host thread"}},
    {"hw.idle_c1", {"#d9d9d9", "pCPU: idle, C1 requested"}},
    {"hw.idle_c1e", {"#e6e6e6", "pCPU: idle, C1E requested"}},
    {"hw.idle_c6", {"#f2f2f2", "pCPU: idle, C6 requested"}},
    {"kvm.guest", {"#4c9f4c", "vCPU thread: guest mode"}},
    {"kvm.exit", {"#d9534f", "vCPU thread: exit, block, wake-up paths"}},
    {"kvm.halt_poll", {"#f0ad4e", "vCPU thread: halt-polling"}},
    {"kvm.blocked", {"#c8c8c8", "vCPU thread: blocked (scheduled out)"}},
    {"kvm.runnable", {"#f7e463", "vCPU thread: runnable, waiting for its pCPU"}},
    {"guest.user", {"#2e7dd1", "guest: task in user mode"}},
    {"guest.sys", {"#85b5ea", "guest: kernel (syscall, schedule)"}},
    {"guest.irq", {"#b03a2e", "guest: interrupt handler"}},
    {"guest.idle", {"#d5d5d5", "guest: idle loop"}},
    {"guest.poll", {"#9b59b6", "guest: polling idle"}},
    {"guest.halt", {"#8c8c8c", "guest: HLT / WFI"}},
    {"sched.task", {"#2e7dd1", "guest: task on this CPU"}},
    {"task.running", {"#2e7dd1", "task: running"}},
    {"task.runnable", {"#f7e463", "task: runnable, waiting for a CPU"}},
    {"tick.stopped", {"#34495e", "tick stopped (NOHZ)"}},
};
const std::pair<const char*, const char*> kMarkColors[] = {
    {"tick", "#111111"}, {"tick_stop", "#d9534f"}, {"tick_retain", "#27ae60"}, {"tick_restart", "#2e7dd1"},
    {"clockevent_write", "#e67e22"}, {"hrtimer_start", "#95a5a6"}, {"hrtimer_expire_entry", "#7f8c8d"},
    {"ipi_send_cpu", "#8e44ad"}, {"reschedule_entry", "#8e44ad"}, {"call_function_single_entry", "#8e44ad"},
    {"ipi_entry", "#8e44ad"}, {"local_timer_entry", "#111111"}, {"irq_handler_entry", "#16a085"},
    {"kvm_vcpu_wakeup", "#27ae60"}, {"kvm_apic_accept_irq", "#8e44ad"}, {"apic_timer_expired", "#c0392b"},
    {"kvm_timer_update_irq", "#c0392b"}, {"kvm_halt_poll_ns grow", "#f39c12"}, {"kvm_halt_poll_ns shrink", "#a04000"},
};
const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

const char* fallback_color(const std::string& s) {
  std::uint32_t h = 2166136261u;  // FNV-1a: stable across runs and machines
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return kPalette[h % (sizeof kPalette / sizeof kPalette[0])];
}
const char* slice_color(const std::string& cat) {
  for (const auto& [c, st] : kSliceStyles)
    if (cat == c) return st.color;
  return fallback_color(cat);
}
std::string slice_label(const std::string& cat) {
  for (const auto& [c, st] : kSliceStyles)
    if (cat == c) return st.label;
  return cat;
}
const char* mark_color(const std::string& name) {
  for (const auto& [n, c] : kMarkColors)
    if (name == n) return c;
  return fallback_color(name);
}

// Whether white text reads better than black on `hex` ("#rrggbb").
bool dark(const char* hex) {
  unsigned r = 0, g = 0, b = 0;
  std::sscanf(hex, "#%2x%2x%2x", &r, &g, &b);
  return 299 * r + 587 * g + 114 * b < 140000;
}

// The slice's name, or a shorter form that fits `width` px ("kvm_exit MSR_WRITE
// TSC_DEADLINE" -> "MSR_WRITE TSC_DEADLINE" -> "TSC_DEADLINE", "vCPU1 halt-poll" ->
// "halt-poll"); empty when none fits.
std::string short_label(const std::string& name, double width) {
  auto fits = [&](const std::string& s) { return width >= 5.5 * static_cast<double>(s.size()) + 6; };
  std::vector<std::string> forms{name};
  if (name.rfind("kvm_exit ", 0) == 0) {
    forms.push_back(name.substr(9));
    forms.push_back(name.substr(name.rfind(' ') + 1));
  } else if (name.rfind("vCPU", 0) == 0 && name.find(' ') != std::string::npos) {
    forms.push_back(name.substr(name.find(' ') + 1));
  }
  for (const auto& f : forms)
    if (fits(f)) return f;
  return "";
}

std::string xml(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

// "12.5 ms" / "340 us": the unit that fits the span, no more decimals than the step needs.
std::string time_label(sim_ns t, sim_ns step, bool ms) {
  sim_ns unit = ms ? NSEC_PER_MSEC : NSEC_PER_USEC;
  int decimals = 0;
  for (sim_ns q = unit; decimals < 3 && step % q != 0; q /= 10) ++decimals;
  char b[48];
  std::snprintf(b, sizeof b, "%.*f %s", decimals, static_cast<double>(t) / static_cast<double>(unit), ms ? "ms" : "us");
  return b;
}

sim_ns nice_step(sim_ns span) {
  sim_ns target = std::max<sim_ns>(span / 8, 1);
  sim_ns p = 1;
  while (p * 10 <= target) p *= 10;
  for (sim_ns m : {1, 2, 5, 10})
    if (p * m >= target) return p * m;
  return p * 10;
}

sim_ns to_ns(const nlohmann::json& v) { return static_cast<sim_ns>(std::llround(v.get<double>() * 1000.0)); }

int fail(const std::string& msg) {
  std::fprintf(stderr, "vtick timeline: %s\n", msg.c_str());
  return 2;
}

}  // namespace

int cmd_timeline(const std::string& trace, const std::string& svg, const std::string& window) {
  std::ifstream in(trace, std::ios::binary);
  if (!in) return fail("cannot read " + trace);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return fail(trace + ": not JSON (" + e.what() + ")");
  }
  if (!doc.is_object() || !doc.contains("otherData") || !doc["otherData"].is_object() ||
      doc["otherData"].value("tool", "") != "vtick" || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    return fail(trace + ": not a trace written by vtick run --trace (no otherData.tool \"vtick\" and traceEvents)");
  const auto& od = doc["otherData"];
  sim_ns ws = od.value("window_start_ns", 0LL), we = od.value("window_end_ns", 0LL);
  if (!window.empty()) {
    std::string err;
    sim_ns a, b;
    if (!parse_trace_window(window, a, b, err)) return fail("--window: " + err);
    ws = a;
    if (b != KTIME_MAX) we = b;
  }
  if (we <= ws) return fail("--window: the trace " + trace + " has nothing in that window");

  std::map<int, Process> procs;
  try {
    for (const auto& e : doc["traceEvents"]) {
      std::string ph = e.at("ph").get<std::string>();
      int pid = e.at("pid").get<int>();
      Process& p = procs[pid];
      if (ph == "M") {
        std::string what = e.at("name").get<std::string>(), name = e.at("args").at("name").get<std::string>();
        if (what == "process_name") p.name = name;
        else if (what == "thread_name") p.threads[e.at("tid").get<int>()].name = name;
      } else if (ph == "X") {
        p.threads[e.at("tid").get<int>()].slices.push_back(
            {to_ns(e.at("ts")), to_ns(e.at("dur")), e.at("name").get<std::string>(), e.value("cat", "")});
      } else if (ph == "i") {
        p.threads[e.at("tid").get<int>()].marks.push_back({to_ns(e.at("ts")), e.at("name").get<std::string>()});
      } else if (ph == "C") {
        for (const auto& [k, v] : e.at("args").items()) {
          Lane& l = p.counters[e.at("name").get<std::string>() + " " + k];
          l.counter = true;
          l.steps.push_back({to_ns(e.at("ts")), v.get<double>()});
        }
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return fail(trace + ": not a vtick trace event list (" + e.what() + ")");
  }

  // layout
  const double W = 1200, L = 240, R = 20, lane_h = 16, top = 56;
  const double plot_w = W - L - R;
  const sim_ns span = we - ws;
  auto x_of = [&](sim_ns t) { return L + plot_w * static_cast<double>(t - ws) / static_cast<double>(span); };
  std::vector<std::pair<const Lane*, std::string>> rows;  // lane, or a process header when null
  for (const auto& [pid, p] : procs) {
    rows.push_back({nullptr, p.name.empty() ? "pid " + std::to_string(pid) : p.name});
    for (const auto& [tid, l] : p.threads)
      if (!l.slices.empty() || !l.marks.empty()) rows.push_back({&l, l.name.empty() ? "tid " + std::to_string(tid) : l.name});
    for (const auto& [name, l] : p.counters) rows.push_back({&l, name});
  }
  std::set<std::string> cats, marks;
  std::ostringstream body;
  double y = top;
  sim_ns step = nice_step(span);
  bool ms = span >= 2 * NSEC_PER_MSEC;
  for (const auto& [lane, name] : rows) {
    if (!lane) {
      body << "<text x=\"4\" y=\"" << num(y + 12) << "\" font-weight=\"bold\">" << xml(name) << "</text>\n";
      y += lane_h + 2;
      continue;
    }
    body << "<text x=\"12\" y=\"" << num(y + 12) << "\">" << xml(name) << "</text>\n";
    body << "<line x1=\"" << num(L) << "\" y1=\"" << num(y + lane_h) << "\" x2=\"" << num(W - R) << "\" y2=\""
         << num(y + lane_h) << "\" stroke=\"#eeeeee\"/>\n";
    for (const Slice& s : lane->slices) {
      sim_ns b = std::max(s.ts, ws), e = std::min(s.ts + s.dur, we);
      if (e <= b) continue;
      cats.insert(s.cat);
      double x = x_of(b), w = std::max(x_of(e) - x, 0.5);  // a sub-pixel exit stays visible
      char dur[32];
      std::snprintf(dur, sizeof dur, "%.3f", static_cast<double>(s.dur) / 1000.0);
      body << "<rect x=\"" << num(x) << "\" y=\"" << num(y + 2) << "\" width=\"" << num(w) << "\" height=\""
           << num(lane_h - 4) << "\" fill=\"" << slice_color(s.cat) << "\"><title>" << xml(s.name) << " (" << dur
           << " us)</title></rect>\n";
      std::string label = short_label(s.name, w);
      if (!label.empty())
        body << "<text x=\"" << num(x + 3) << "\" y=\"" << num(y + lane_h - 5) << "\" font-size=\"9\" fill=\""
             << (dark(slice_color(s.cat)) ? "#ffffff" : "#000000") << "\">" << xml(label) << "</text>\n";
    }
    for (const Mark& m : lane->marks) {
      if (m.ts < ws || m.ts > we) continue;
      marks.insert(m.name);
      double x = x_of(m.ts);
      body << "<line x1=\"" << num(x) << "\" y1=\"" << num(y) << "\" x2=\"" << num(x) << "\" y2=\"" << num(y + lane_h - 5)
           << "\" stroke=\"" << mark_color(m.name) << "\" stroke-width=\"1.5\"><title>" << xml(m.name) << " at "
           << time_label(m.ts, 1, false) << "</title></line>\n";
    }
    if (lane->counter && !lane->steps.empty()) {
      double vmax = 0, v = lane->steps.front().second;
      for (const auto& [t, val] : lane->steps) vmax = std::max(vmax, val);
      for (const auto& [t, val] : lane->steps)
        if (t <= ws) v = val;
      auto y_of = [&](double val) { return y + lane_h - 2 - (vmax > 0 ? (lane_h - 4) * val / vmax : 0); };
      std::string pts = num(L) + "," + num(y_of(v));
      for (const auto& [t, val] : lane->steps) {
        if (t <= ws || t > we) continue;
        pts += " " + num(x_of(t)) + "," + num(y_of(v)) + " " + num(x_of(t)) + "," + num(y_of(val));
        v = val;
      }
      pts += " " + num(W - R) + "," + num(y_of(v));
      body << "<polyline points=\"" << pts << "\" fill=\"none\" stroke=\"#555555\"/>\n";
      char mx[48];
      std::snprintf(mx, sizeof mx, "max %g", vmax);
      body << "<text x=\"" << num(W - R - 2) << "\" y=\"" << num(y + 10) << "\" text-anchor=\"end\" font-size=\"9\" fill=\"#777777\">"
           << mx << "</text>\n";
    }
    y += lane_h;
  }
  double lanes_end = y;
  // legend: slice categories then instant names, four columns
  y += 14;
  std::ostringstream legend;
  legend << "<text x=\"4\" y=\"" << num(y + 10) << "\" font-weight=\"bold\">Legend</text>\n";
  y += 16;
  int col = 0;
  auto item = [&](const std::string& swatch, const std::string& label) {
    double x = 12 + col * 295;
    legend << "<g transform=\"translate(" << num(x) << "," << num(y) << ")\">" << swatch << "<text x=\"18\" y=\"10\">"
           << xml(label) << "</text></g>\n";
    if (++col == 4) {
      col = 0;
      y += 16;
    }
  };
  for (const auto& [c, st] : kSliceStyles)
    if (cats.count(c)) item(std::string("<rect width=\"14\" height=\"11\" fill=\"") + st.color + "\"/>", st.label);
  for (const auto& c : cats) {
    bool known = false;
    for (const auto& [k, st] : kSliceStyles) known = known || c == k;
    if (!known) item(std::string("<rect width=\"14\" height=\"11\" fill=\"") + slice_color(c) + "\"/>", slice_label(c));
  }
  for (const auto& m : marks)
    item(std::string("<line x1=\"7\" y1=\"0\" x2=\"7\" y2=\"11\" stroke=\"") + mark_color(m) + "\" stroke-width=\"2\"/>",
         "instant: " + m);
  if (col) y += 16;
  double H = y + 8;

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(W) << "\" height=\"" << num(H) << "\" viewBox=\"0 0 "
    << num(W) << " " << num(H) << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o << "<text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">" << xml(od.value("scenario", std::string("?")))
    << " (seed " << od.value("seed", 0LL) << "): " << time_label(ws, step, ms) << " to " << time_label(we, step, ms)
    << "</text>\n";
  // time axis and grid
  for (sim_ns t = (ws + step - 1) / step * step; t <= we; t += step) {
    double x = x_of(t);
    o << "<line x1=\"" << num(x) << "\" y1=\"" << num(top - 12) << "\" x2=\"" << num(x) << "\" y2=\"" << num(lanes_end)
      << "\" stroke=\"#dddddd\"/>\n";
    o << "<text x=\"" << num(x) << "\" y=\"" << num(top - 16) << "\" text-anchor=\"middle\">" << time_label(t, step, ms)
      << "</text>\n";
  }
  o << body.str() << legend.str() << "</svg>\n";
  if (!write_file_atomic(svg, o.str())) return fail("cannot write " + svg);
  return 0;
}

}  // namespace vtick
