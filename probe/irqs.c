/* vtick-probe: interrupt and halt rates per CPU (/proc/interrupts LOC, RES, CAL, TLB; the
 * cpuidle states' usage, i.e. idle entries that halt; /proc/stat's steal), on an idle CPU,
 * on a busy one, and on an idle one beside a busy one. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"

static long long irq_count(const char* name, int cpu) {
  FILE* f = fopen("/proc/interrupts", "r");
  if (!f) return -1;
  char* line = NULL;
  size_t cap = 0;
  int column = -1, ncols = 0;
  long long v = -1;
  if (getline(&line, &cap, f) > 0) { /* header: CPU0 CPU1 ... (online CPUs only) */
    for (char* tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n"), ++ncols)
      if (!strncmp(tok, "CPU", 3) && atoi(tok + 3) == cpu) column = ncols;
  }
  size_t n = strlen(name);
  while (column >= 0 && getline(&line, &cap, f) > 0) {
    char* p = line + strspn(line, " ");
    if (strncmp(p, name, n) || p[n] != ':') continue;
    p += n + 1;
    for (int c = 0; c <= column; ++c) {
      char* end;
      long long x = strtoll(p, &end, 10);
      if (end == p) break;
      if (c == column) v = x;
      p = end;
    }
    break;
  }
  free(line);
  fclose(f);
  return v;
}

int read_cpu_counters(int cpu, struct cpu_counters* c) {
  c->loc = irq_count("LOC", cpu);
  c->res = irq_count("RES", cpu);
  c->cal = irq_count("CAL", cpu);
  c->tlb = irq_count("TLB", cpu);
  c->halts = -1;
  for (int s = 0; s < 16; ++s) {
    char p[256], name[64];
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", cpu, s);
    if (read_text(p, name, sizeof name) != 0) break;
    if (!strcmp(name, "POLL")) continue;
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/usage", cpu, s);
    long long u = read_ll(p, -1);
    if (u >= 0) c->halts = (c->halts < 0 ? 0 : c->halts) + u;
  }
  c->steal_ticks = c->idle_ticks = -1;
  FILE* f = fopen("/proc/stat", "r");
  char line[512], want[32];
  snprintf(want, sizeof want, "cpu%d ", cpu);
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, want, strlen(want))) continue;
    long long v[8] = {0};
    if (sscanf(line + strlen(want), "%lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
               &v[6], &v[7]) == 8) {
      c->idle_ticks = v[3];
      c->steal_ticks = v[7];
    }
    break;
  }
  if (f) fclose(f);
  return c->loc < 0 ? -1 : 0;
}

static double rate(long long a, long long b, double secs) { return a < 0 || b < 0 ? -1 : (double)(b - a) / secs; }

static void rates(struct jw* w, const char* key, int cpu, const struct cpu_counters* a, const struct cpu_counters* b,
                  double secs) {
  jw_obj(w, key);
  jw_int(w, "cpu", cpu);
  double r;
#define RATE(field, name)                              \
  r = rate(a->field, b->field, secs);                  \
  if (r < 0) jw_null(w, name);                         \
  else jw_num(w, name, r);
  RATE(loc, "loc_per_s");
  RATE(res, "res_per_s");
  RATE(cal, "cal_per_s");
  RATE(tlb, "tlb_per_s");
  RATE(halts, "halts_per_s");
#undef RATE
  long hz = sysconf(_SC_CLK_TCK);
  r = rate(a->steal_ticks, b->steal_ticks, secs);
  if (r < 0) jw_null(w, "steal_pct");
  else jw_num(w, "steal_pct", 100.0 * r / (double)hz);
  jw_end_obj(w);
}

void probe_irq_rates(struct jw* w, const struct probe_opts* o) {
  double secs = o->quick ? 2.0 : 10.0;
  jw_obj(w, "irq_rates");
  jw_str(w, "method", "counter deltas over window_s; halts: the usage of the cpuidle states other than POLL (null "
                      "without a cpuidle driver); the probe's own thread sleeps on cpu_a");
  jw_num(w, "window_s", secs);
  struct cpu_counters a0, a1, b0, b1;
  pin_self(o->cpu_a);
  progress(o, "interrupt rates: %.0f s with every CPU idle", secs);
  read_cpu_counters(o->cpu_a, &a0);
  sleep_ns((int64_t)(secs * 1e9));
  read_cpu_counters(o->cpu_a, &a1);
  rates(w, "idle", o->cpu_a, &a0, &a1, secs);
  if (o->cpu_b >= 0) {
    progress(o, "interrupt rates: %.0f s with CPU %d busy", secs, o->cpu_b);
    struct spinner* sp = spinner_start(o->cpu_b);
    sleep_ns(50000000); /* the spinner is running */
    read_cpu_counters(o->cpu_a, &a0);
    read_cpu_counters(o->cpu_b, &b0);
    sleep_ns((int64_t)(secs * 1e9));
    read_cpu_counters(o->cpu_a, &a1);
    read_cpu_counters(o->cpu_b, &b1);
    spinner_stop(sp);
    rates(w, "busy", o->cpu_b, &b0, &b1, secs);
    rates(w, "idle_beside_busy", o->cpu_a, &a0, &a1, secs);
  } else {
    jw_null(w, "busy");
    jw_null(w, "idle_beside_busy");
  }
  jw_end_obj(w);
}
