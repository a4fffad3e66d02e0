/* vtick-probe: measures the guest-visible signature of a KVM host from inside a guest
 * (docs/probe.md). Shared declarations: clock, pinning, samples, the JSON writer, and one
 * entry point per experiment. */
#ifndef VTICK_PROBE_H
#define VTICK_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROBE_SCHEMA "vtick-probe/1"

/* ---- time and CPUs ---- */
int64_t now_ns(void);                  /* CLOCK_MONOTONIC */
void spin_until(int64_t t_ns);         /* busy-wait: keeps the CPU out of idle */
void sleep_ns(int64_t ns);             /* clock_nanosleep, relative */
int pin_self(int cpu);                 /* 0 on success */
int set_timer_slack(unsigned long ns); /* prctl(PR_SET_TIMERSLACK); 0 on success */

/* A spinner thread pinned to a CPU: keeps it busy until stopped. */
struct spinner;
struct spinner* spinner_start(int cpu);
void spinner_stop(struct spinner* s);

/* ---- samples ---- */
struct samples {
  double* v;
  size_t n, cap;
};
void samples_add(struct samples* s, double x);
void samples_free(struct samples* s);
double samples_pct(struct samples* s, double p); /* sorts; nearest-rank percentile */

/* ---- JSON writer (streaming, one document) ---- */
struct jw {
  FILE* f;
  int depth;
  int first[32]; /* nothing written yet at this depth */
};
void jw_init(struct jw* w, FILE* f);
void jw_obj(struct jw* w, const char* key); /* key NULL inside an array or at the top */
void jw_arr(struct jw* w, const char* key);
void jw_end_obj(struct jw* w);
void jw_end_arr(struct jw* w);
void jw_str(struct jw* w, const char* key, const char* v); /* v NULL writes null */
void jw_num(struct jw* w, const char* key, double v);      /* non-finite writes null */
void jw_int(struct jw* w, const char* key, long long v);
void jw_bool(struct jw* w, const char* key, int v);
void jw_null(struct jw* w, const char* key);
/* {"unit", "n", "min", "p10", "p50", "p90", "p99", "max", "mean"} of the samples */
void jw_stats(struct jw* w, const char* key, struct samples* s, const char* unit);

/* ---- run settings shared by the experiments ---- */
struct probe_opts {
  int quick;     /* --quick: the whole run under 30 s */
  int cpu_a;     /* the measuring CPU */
  int cpu_b;     /* the remote CPU (-1: only one CPU usable) */
  int verbose;   /* progress on stderr */
};
void progress(const struct probe_opts* o, const char* fmt, ...);
/* Opens the section `name`; with one usable CPU writes why it is not measured, closes it
 * and returns 0. */
int open_two_cpu_section(struct jw* w, const struct probe_opts* o, const char* name);

/* ---- small file helpers ---- */
int read_text(const char* path, char* buf, size_t len); /* trims the newline; 0 on success */
long long read_ll(const char* path, long long dflt);

/* ---- experiments: each writes its section of the profile ---- */
void probe_environment(struct jw* w, const struct probe_opts* o);
void probe_exit_cost(struct jw* w, const struct probe_opts* o);
void probe_futex_wake(struct jw* w, const struct probe_opts* o);
void probe_pingpong(struct jw* w, const struct probe_opts* o);
void probe_wake_after_idle(struct jw* w, const struct probe_opts* o);
void probe_timer_overshoot(struct jw* w, const struct probe_opts* o);
void probe_irq_rates(struct jw* w, const struct probe_opts* o);

/* per-CPU counters read from /proc and /sys (irqs.c) */
struct cpu_counters {
  long long loc, res, cal, tlb; /* /proc/interrupts */
  long long halts;              /* cpuidle usage of states other than POLL, -1 unknown */
  long long steal_ticks;        /* /proc/stat, USER_HZ */
  long long idle_ticks;
};
int read_cpu_counters(int cpu, struct cpu_counters* c); /* 0 on success */

#endif
