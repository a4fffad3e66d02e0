// vtick timeline: a trace JSON written by `vtick run --trace` -> an SVG timeline (one
// lane per track, slices coloured by category, host idle by the C-state reached, instants
// as labelled marks of a colour per kind, counters as steps; every slice and instant has
// a hover <title>). Hand-written SVG from fixed tables with fixed number formatting: the
// same trace gives the same bytes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "sim/trace_writer.hpp"

namespace vtick {

namespace {

struct Slice {
  sim_ns ts, dur;
  std::string name, cat;
  std::string reached;  // idle slices: args.reached, the C-state left at wake-up
};
struct Mark {
  sim_ns ts;
  std::string name;
  std::string args;  // "vector=RESCHEDULE" for the hover text
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
// Slice categories written by sim/trace_writer.cpp, in legend order (the idle states of
// the hardware threads are drawn from kCStates instead).
const std::pair<const char*, Style> kSliceStyles[] = {
    {"hw.guest", {"#4c9f4c", "pCPU: guest mode"}},
    {"hw.host_kernel", {"#d9534f", "pCPU: KVM / host kernel"}},
    {"hw.halt_poll", {"#f0ad4e", "pCPU: KVM halt-polling"}},
    {"hw.guest_poll", {"#9b59b6", "pCPU: guest polling"}},
    {"hw.host_thread", {"#e377c2", "pCPU: host thread"}},
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

// Host C-states, shallow to deep: a blue that darkens with depth, and a pattern (none,
// stripes, cross-hatch) so that they differ without colour too. The writer's category
// names the state requested; args.reached the one the hardware thread really left.
struct CStateStyle {
  const char* name;
  const char* cat;
  const char* color;  // base colour: swatches, the requested band, text contrast
  const char* fill;   // the body: colour or pattern
};
const CStateStyle kCStates[] = {
    {"C1", "hw.idle_c1", "#c6dbef", "#c6dbef"},
    {"C1E", "hw.idle_c1e", "#6baed6", "url(#vt-c1e)"},
    {"C6", "hw.idle_c6", "#08306b", "url(#vt-c6)"},
};
constexpr int kNumStates = sizeof kCStates / sizeof kCStates[0];
const char kPatternDefs[] =
    "<defs>\n"
    "<pattern id=\"vt-c1e\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
    "<rect width=\"6\" height=\"6\" fill=\"#6baed6\"/><rect width=\"2\" height=\"6\" fill=\"#c6dbef\"/></pattern>\n"
    "<pattern id=\"vt-c6\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
    "<rect width=\"6\" height=\"6\" fill=\"#08306b\"/><rect width=\"1.5\" height=\"6\" fill=\"#4f7fb8\"/>"
    "<rect width=\"6\" height=\"1.5\" fill=\"#4f7fb8\"/></pattern>\n"
    "</defs>\n";
int cstate_of_cat(const std::string& cat) {
  for (int i = 0; i < kNumStates; ++i)
    if (cat == kCStates[i].cat) return i;
  return -1;
}
int cstate_of_name(const std::string& name) {
  for (int i = 0; i < kNumStates; ++i)
    if (name == kCStates[i].name) return i;
  return -1;
}

// Instants written by sim/trace_writer.cpp: each kind its own colour (mostly Kelly's
// colours of maximum contrast, in a fixed order) and a short form for the lane when the
// name does not fit. A kind not listed gets a colour of its own from extra_color().
struct MarkStyle {
  const char* name;
  const char* color;
  const char* brief;
};
const MarkStyle kMarkStyles[] = {
    {"tick", "#222222", "tick"},
    {"tick_stop", "#be0032", "stop"},
    {"tick_retain", "#008856", "retain"},
    {"tick_restart", "#0067a5", "restart"},
    {"hrtimer_start", "#848482", "hrt"},
    {"hrtimer_expire_entry", "#654522", "hrt exp"},
    {"clockevent_write", "#17a2b8", "cev"},  // teal: apart from the oranges of the timer expiry and the poll
    {"ipi_send_cpu", "#875692", "IPI"},
    {"reschedule_entry", "#e68fac", "resched"},
    {"call_function_single_entry", "#604e97", "callfn"},
    {"ipi_entry", "#b3446c", "ipi"},
    {"local_timer_entry", "#882d17", "timer"},
    {"irq_handler_entry", "#2b3d26", "irq"},
    {"kvm_vcpu_wakeup", "#8db600", "wakeup"},
    {"kvm_apic_accept_irq", "#a1caf1", "accept"},
    {"apic_timer_expired", "#e25822", "expired"},
    {"kvm_timer_update_irq", "#f99379", "timer irq"},
    {"kvm_halt_poll_ns grow", "#f6a600", "poll+"},
    {"kvm_halt_poll_ns shrink", "#c2b280", "poll-"},
};
const MarkStyle* mark_style(const std::string& name) {
  for (const auto& m : kMarkStyles)
    if (name == m.name) return &m;
  return nullptr;
}

// The i-th colour for kinds not in kMarkStyles: hues a golden angle apart, so any number
// of them differ, and the same index gives the same colour.
std::string extra_color(int i) {
  double h = std::fmod(137.508 * i + 15.0, 360.0) / 60.0, s = 0.65, l = 0.42;
  double c = (1 - std::fabs(2 * l - 1)) * s, x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1)), m = l - c / 2;
  double rgb[3] = {0, 0, 0};
  int sector = static_cast<int>(h);
  const int pos[6][2] = {{0, 1}, {1, 0}, {1, 2}, {2, 1}, {2, 0}, {0, 2}};  // where c and x go
  rgb[pos[sector % 6][0]] = c;
  rgb[pos[sector % 6][1]] = x;
  char b[8];
  std::snprintf(b, sizeof b, "#%02x%02x%02x", static_cast<int>(std::lround((rgb[0] + m) * 255)),
                static_cast<int>(std::lround((rgb[1] + m) * 255)), static_cast<int>(std::lround((rgb[2] + m) * 255)));
  return b;
}

const char* slice_color(const std::string& cat) {
  for (const auto& [c, st] : kSliceStyles)
    if (cat == c) return st.color;
  return "#7f7f7f";
}
std::string slice_label(const std::string& cat) {
  for (const auto& [c, st] : kSliceStyles)
    if (cat == c) return st.label;
  return cat;
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
  spdlog::error("timeline: {}", msg);
  return 2;
}

// "k=v k=v" of an instant's args, for its hover text.
std::string args_text(const nlohmann::json& e) {
  std::string o;
  if (!e.contains("args") || !e["args"].is_object()) return o;
  for (const auto& [k, v] : e["args"].items())
    o += (o.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return o;
}

// The colour of each instant kind in the trace: kMarkStyles', or the next extra colour in
// name order for the others (the whole trace, so that a window keeps the colours).
std::map<std::string, std::string> mark_colors(const std::map<int, Process>& procs) {
  std::set<std::string> unknown;
  std::map<std::string, std::string> out;
  for (const auto& [pid, p] : procs)
    for (const auto& [tid, l] : p.threads)
      for (const Mark& m : l.marks) {
        if (const MarkStyle* st = mark_style(m.name)) out[m.name] = st->color;
        else unknown.insert(m.name);
      }
  int i = 0;
  for (const auto& n : unknown) out[n] = extra_color(i++);
  return out;
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
        std::string reached;
        if (e.contains("args") && e["args"].is_object() && e["args"].contains("reached"))
          reached = e["args"]["reached"].get<std::string>();
        p.threads[e.at("tid").get<int>()].slices.push_back(
            {to_ns(e.at("ts")), to_ns(e.at("dur")), e.at("name").get<std::string>(), e.value("cat", ""), reached});
      } else if (ph == "i") {
        p.threads[e.at("tid").get<int>()].marks.push_back({to_ns(e.at("ts")), e.at("name").get<std::string>(), args_text(e)});
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
  const std::map<std::string, std::string> mcolor = mark_colors(procs);

  // layout: lanes with instants get a strip above their slices for the instants' heads
  // and labels
  const double W = 1200, L = 240, R = 20, lane_h = 16, strip = 11, top = 56;
  const double plot_w = W - L - R;
  const sim_ns span = we - ws;
  auto x_of = [&](sim_ns t) { return L + plot_w * static_cast<double>(t - ws) / static_cast<double>(span); };
  auto in_window = [&](const Mark& m) { return m.ts >= ws && m.ts <= we; };
  std::vector<std::pair<const Lane*, std::string>> rows;  // lane, or a process header when null
  for (const auto& [pid, p] : procs) {
    rows.push_back({nullptr, p.name.empty() ? "pid " + std::to_string(pid) : p.name});
    for (const auto& [tid, l] : p.threads)
      if (!l.slices.empty() || !l.marks.empty()) rows.push_back({&l, l.name.empty() ? "tid " + std::to_string(tid) : l.name});
    for (const auto& [name, l] : p.counters) rows.push_back({&l, name});
  }
  std::set<std::string> cats, marks;
  bool states_shown[kNumStates] = {}, band_shown = false;
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
    const bool has_marks = std::any_of(lane->marks.begin(), lane->marks.end(), in_window);
    const double sy = has_marks ? y + strip : y;  // top of the slice area
    body << "<text x=\"12\" y=\"" << num(sy + 12) << "\">" << xml(name) << "</text>\n";
    body << "<line x1=\"" << num(L) << "\" y1=\"" << num(sy + lane_h) << "\" x2=\"" << num(W - R) << "\" y2=\""
         << num(sy + lane_h) << "\" stroke=\"#eeeeee\"/>\n";
    const Slice* prev = nullptr;
    for (const Slice& s : lane->slices) {
      sim_ns b = std::max(s.ts, ws), e = std::min(s.ts + s.dur, we);
      if (e <= b) continue;
      double x = x_of(b), w = std::max(x_of(e) - x, 0.8);  // a sub-pixel exit stays visible
      char dur[32];
      std::snprintf(dur, sizeof dur, "%.3f us", static_cast<double>(s.dur) / 1000.0);
      std::string fill = slice_color(s.cat), base = fill, title = s.name, band, label;
      std::vector<std::string> forms{s.name};
      if (int req = cstate_of_cat(s.cat); req >= 0) {
        // C1 is the shallowest state: asked for, it is the one reached
        int got = !s.reached.empty() ? cstate_of_name(s.reached) : req == 0 ? 0 : -1;
        const CStateStyle& shown = kCStates[got >= 0 ? got : req];
        fill = shown.fill;
        base = shown.color;
        states_shown[got >= 0 ? got : req] = true;
        std::string rq = kCStates[req].name;
        if (got < 0) {
          title = std::string("idle: ") + rq + " requested, the state reached is not in the trace";
          forms = {"idle " + rq + " requested", rq + "?"};
        } else if (got == req) {
          title = std::string("idle: ") + rq + " requested and reached";
          forms = {"idle " + rq, rq};
        } else {
          std::string gt = kCStates[got].name;
          title = "idle: " + rq + " requested, " + gt + " reached";
          forms = {"idle " + gt + " (" + rq + " requested)", gt + " (" + rq + " req.)", gt};
          band = kCStates[req].color;
          band_shown = true;
        }
      } else {
        cats.insert(s.cat);
      }
      for (const auto& f : forms) {
        label = short_label(f, w);
        if (!label.empty()) break;
      }
      body << "<g class=\"slice\" data-cat=\"" << xml(s.cat) << "\"><title>" << xml(title) << ": " << dur << " from "
           << time_label(s.ts, 1, false) << "</title><rect x=\"" << num(x) << "\" y=\"" << num(sy + 2) << "\" width=\""
           << num(w) << "\" height=\"" << num(lane_h - 4) << "\" fill=\"" << fill << "\"/>";
      if (!band.empty())
        body << "<rect x=\"" << num(x) << "\" y=\"" << num(sy + 2) << "\" width=\"" << num(w)
             << "\" height=\"3\" fill=\"" << band << "\"/>";
      // two slices of one kind back to back (an exit after an exit): a gap shows the edge
      if (prev && prev->cat == s.cat && prev->ts + prev->dur == s.ts && w >= 2)
        body << "<rect x=\"" << num(x) << "\" y=\"" << num(sy + 2) << "\" width=\"0.6\" height=\"" << num(lane_h - 4)
             << "\" fill=\"#ffffff\"/>";
      if (!label.empty())
        body << "<text x=\"" << num(x + 3) << "\" y=\"" << num(sy + lane_h - 5) << "\" font-size=\"9\" fill=\""
             << (dark(base.c_str()) ? "#ffffff" : "#000000") << "\">" << xml(label) << "</text>";
      body << "</g>\n";
      prev = &s;
    }
    // instants: a line across the slices, a head in the strip, and beside the head the
    // name or its short form, whichever ends before the next instant and the last label
    double label_end = 0;
    std::vector<const Mark*> lm;
    for (const Mark& m : lane->marks)
      if (in_window(m)) lm.push_back(&m);
    std::stable_sort(lm.begin(), lm.end(), [](const Mark* a, const Mark* b) { return a->ts < b->ts; });
    for (std::size_t i = 0; i < lm.size(); ++i) {
      const Mark* m = lm[i];
      marks.insert(m->name);
      const std::string& c = mcolor.at(m->name);
      double x = x_of(m->ts);
      body << "<g class=\"instant\" data-kind=\"" << xml(m->name) << "\" stroke=\"" << c << "\" fill=\"" << c
           << "\"><title>" << xml(m->name) << (m->args.empty() ? "" : " " + xml(m->args)) << " at "
           << time_label(m->ts, 1, false) << "</title><line x1=\"" << num(x) << "\" y1=\"" << num(y + 4) << "\" x2=\""
           << num(x) << "\" y2=\"" << num(sy + lane_h - 2) << "\" stroke-width=\"1.5\"/><path d=\"M" << num(x - 3) << " "
           << num(y + 1) << "h6l-3 5z\" stroke=\"none\"/></g>\n";
      double room = W - R;
      for (std::size_t j = i + 1; j < lm.size(); ++j)
        if (double nx = x_of(lm[j]->ts); nx > x + 1) {
          room = std::min(room, nx - 4);
          break;
        }
      if (x + 4 < label_end + 3) continue;
      const MarkStyle* st = mark_style(m->name);
      for (const std::string& f : {m->name, std::string(st ? st->brief : "")}) {
        double tw = 4.7 * static_cast<double>(f.size());
        if (f.empty() || x + 4 + tw > room) continue;
        body << "<text x=\"" << num(x + 4) << "\" y=\"" << num(y + 8) << "\" font-size=\"8\" fill=\"#333333\">" << xml(f)
             << "</text>\n";
        label_end = x + 4 + tw;
        break;
      }
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
    y = sy + lane_h;
  }
  double lanes_end = y;
  // legend: slice categories, the C-states, then the instants, four columns
  y += 14;
  std::ostringstream legend;
  legend << "<text x=\"4\" y=\"" << num(y + 10) << "\" font-weight=\"bold\">Legend</text>\n";
  y += 16;
  int col = 0;
  auto item = [&](const std::string& cls, const std::string& swatch, const std::string& label) {
    double x = 12 + col * 295;
    legend << "<g class=\"" << cls << "\" transform=\"translate(" << num(x) << "," << num(y) << ")\">" << swatch
           << "<text x=\"18\" y=\"10\">" << xml(label) << "</text></g>\n";
    if (++col == 4) {
      col = 0;
      y += 16;
    }
  };
  auto box = [](const std::string& fill) { return "<rect width=\"14\" height=\"11\" fill=\"" + fill + "\"/>"; };
  for (const auto& [c, st] : kSliceStyles)
    if (cats.count(c)) item("legend-slice", box(st.color), st.label);
  for (const auto& c : cats) {
    bool known = false;
    for (const auto& [k, st] : kSliceStyles) known = known || c == k;
    if (!known) item("legend-slice", box(slice_color(c)), slice_label(c));
  }
  for (int i = 0; i < kNumStates; ++i)
    if (states_shown[i]) item("legend-cstate", box(kCStates[i].fill), std::string("pCPU: idle in ") + kCStates[i].name);
  if (band_shown)
    item("legend-cstate", "<rect width=\"14\" height=\"11\" fill=\"#c6dbef\"/><rect width=\"14\" height=\"3\" fill=\"#08306b\"/>",
         "pCPU: top band: a deeper C-state requested");
  for (const auto& m : marks) {
    const MarkStyle* st = mark_style(m);
    std::string brief = st && m != st->brief ? std::string(" [") + st->brief + "]" : "";
    item("legend-instant", "<path d=\"M4 0h6l-3 5z\" fill=\"" + mcolor.at(m) + "\"/><line x1=\"7\" y1=\"3\" x2=\"7\" y2=\"11\" stroke=\"" +
                               mcolor.at(m) + "\" stroke-width=\"2\"/>",
         "instant: " + m + brief);
  }
  if (col) y += 16;
  double H = y + 8;

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(W) << "\" height=\"" << num(H) << "\" viewBox=\"0 0 "
    << num(W) << " " << num(H) << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  o << kPatternDefs;
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
