/* vtick-probe: command line and the profile's frame (docs/probe.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

#ifndef VTICK_PROBE_VERSION
#define VTICK_PROBE_VERSION "dev"
#endif

static const char* kUsage =
    "usage: vtick-probe [--quick] [-o FILE] [--cpus A,B] [--only LIST] [--quiet]\n"
    "Measures this guest's view of its host and writes one JSON profile (docs/probe.md).\n"
    "  --quick      short run (under 30 s); default: the full run (under 5 min)\n"
    "  -o FILE      the profile (default: standard output)\n"
    "  --cpus A,B   the measuring CPU and the remote one (default: the first two allowed)\n"
    "  --only LIST  comma-separated experiments: exit_cost, futex_wake, pingpong,\n"
    "               wake_after_idle, timer_overshoot, irq_rates (default: all)\n"
    "  --quiet      no progress on standard error\n"
    "No root needed: everything is read from /proc and /sys as an unprivileged user.\n";

static const char* kExperiments[] = {"exit_cost", "futex_wake", "pingpong", "wake_after_idle", "timer_overshoot",
                                     "irq_rates"};
enum { NEXP = sizeof kExperiments / sizeof kExperiments[0] };

static int usage_error(const char* fmt, const char* arg) {
  fprintf(stderr, "vtick-probe: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", kUsage);
  return 2;
}

static int parse_cpu(const char* s, int* cpu) {
  char* end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || errno || v < 0 || v >= CPU_SETSIZE) return -1;
  *cpu = (int)v;
  return (int)(end - s);
}

int main(int argc, char** argv) {
  struct probe_opts o = {.quick = 0, .cpu_a = -1, .cpu_b = -1, .verbose = 1};
  const char* out = "-";
  int want[NEXP];
  for (int i = 0; i < NEXP; ++i) want[i] = 1;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--quick")) o.quick = 1;
    else if (!strcmp(a, "--quiet")) o.verbose = 0;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(kUsage, stdout); return 0; }
    else if (!strcmp(a, "--version")) { printf("vtick-probe %s (profile schema %s)\n", VTICK_PROBE_VERSION, PROBE_SCHEMA); return 0; }
    else if (!strcmp(a, "-o") || !strcmp(a, "--cpus") || !strcmp(a, "--only")) {
      if (i + 1 >= argc) return usage_error("%s needs a value", a);
      const char* v = argv[++i];
      if (!strcmp(a, "-o")) {
        if (!*v) return usage_error("-o: an empty path%s", "");
        out = v;
      } else if (!strcmp(a, "--cpus")) {
        int n = parse_cpu(v, &o.cpu_a), m;
        if (n <= 0 || v[n] != ',' || (m = parse_cpu(v + n + 1, &o.cpu_b)) <= 0 || v[n + 1 + m] || o.cpu_a == o.cpu_b)
          return usage_error("--cpus '%s': two different CPU numbers, A,B", v);
      } else {
        for (int k = 0; k < NEXP; ++k) want[k] = 0;
        char* list = strdup(v);
        for (char* tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
          int found = 0;
          for (int k = 0; k < NEXP; ++k)
            if (!strcmp(tok, kExperiments[k])) want[k] = found = 1;
          if (!found) {
            int rc = usage_error("--only: unknown experiment '%s'", tok);
            free(list);
            return rc;
          }
        }
        free(list);
      }
    } else
      return usage_error("unknown option '%s'", a);
  }

  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) { perror("vtick-probe: sched_getaffinity"); return 1; }
  if (o.cpu_a < 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) {
        if (o.cpu_a < 0) o.cpu_a = c;
        else if (o.cpu_b < 0) { o.cpu_b = c; break; }
      }
  } else {
    if (!CPU_ISSET(o.cpu_a, &allowed) || !CPU_ISSET(o.cpu_b, &allowed)) {
      char b[64];
      snprintf(b, sizeof b, "%d,%d", o.cpu_a, o.cpu_b);
      return usage_error("--cpus %s: not both in this process's allowed CPUs (taskset, cgroup cpuset)", b);
    }
  }

  char tmp[4096];
  FILE* f = stdout;
  struct stat st;
  int direct = strcmp(out, "-") && stat(out, &st) == 0 && !S_ISREG(st.st_mode); /* a device or a FIFO: never replaced */
  if (direct) {
    f = fopen(out, "w");
    if (!f) { fprintf(stderr, "vtick-probe: -o %s: cannot write (%s)\n", out, strerror(errno)); return 2; }
  } else if (strcmp(out, "-")) {
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid()) >= (int)sizeof tmp) return usage_error("-o: path too long%s", "");
    f = fopen(tmp, "w");
    if (!f) { fprintf(stderr, "vtick-probe: -o %s: cannot write (%s)\n", out, strerror(errno)); return 2; }
  }

  int64_t t_start = now_ns();
  time_t wall = time(NULL);
  char iso[64];
  strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));
  struct cpu_counters s0[2], s1[2];
  read_cpu_counters(o.cpu_a, &s0[0]);
  if (o.cpu_b >= 0) read_cpu_counters(o.cpu_b, &s0[1]);

  struct jw w;
  jw_init(&w, f);
  jw_obj(&w, NULL);
  jw_str(&w, "schema", PROBE_SCHEMA);
  jw_str(&w, "probe_version", VTICK_PROBE_VERSION);
  jw_str(&w, "started", iso);
  jw_bool(&w, "quick", o.quick);
  probe_environment(&w, &o);
  jw_obj(&w, "figures");
  void (*run[NEXP])(struct jw*, const struct probe_opts*) = {probe_exit_cost, probe_futex_wake, probe_pingpong,
                                                             probe_wake_after_idle, probe_timer_overshoot, probe_irq_rates};
  for (int k = 0; k < NEXP; ++k)
    if (want[k]) run[k](&w, &o);
  jw_end_obj(&w);

  read_cpu_counters(o.cpu_a, &s1[0]);
  if (o.cpu_b >= 0) read_cpu_counters(o.cpu_b, &s1[1]);
  double secs = (double)(now_ns() - t_start) / 1e9;
  long hz = sysconf(_SC_CLK_TCK);
  jw_obj(&w, "steal");
  jw_str(&w, "method", "/proc/stat steal over the whole run, per measured CPU");
  jw_arr(&w, "cpus");
  for (int i = 0; i < (o.cpu_b >= 0 ? 2 : 1); ++i) {
    jw_obj(&w, NULL);
    jw_int(&w, "cpu", i ? o.cpu_b : o.cpu_a);
    if (s0[i].steal_ticks < 0 || s1[i].steal_ticks < 0) jw_null(&w, "steal_pct");
    else jw_num(&w, "steal_pct", 100.0 * (double)(s1[i].steal_ticks - s0[i].steal_ticks) / (double)hz / secs);
    jw_end_obj(&w);
  }
  jw_end_arr(&w);
  jw_end_obj(&w);
  jw_num(&w, "duration_s", secs);
  jw_end_obj(&w);

  if (f != stdout) {
    int bad = ferror(f);
    errno = 0;
    if (fflush(f) != 0 || bad) bad = 1;
    if (fclose(f) != 0) bad = 1;
    if (bad) {
      fprintf(stderr, "vtick-probe: -o %s: write failed (%s)\n", out, strerror(errno ? errno : EIO));
      if (!direct) unlink(tmp);
      return 1;
    }
    if (!direct && rename(tmp, out) != 0) {
      fprintf(stderr, "vtick-probe: -o %s: cannot rename into place (%s)\n", out, strerror(errno));
      unlink(tmp);
      return 1;
    }
  } else if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "vtick-probe: standard output: write failed\n");
    return 1;
  }
  progress(&o, "done in %.1f s%s%s", secs, f != stdout ? ": " : "", f != stdout ? out : "");
  return 0;
}
