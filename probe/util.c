/* vtick-probe: clock, pinning, spinners, samples and small file helpers. */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "probe.h"

int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void spin_until(int64_t t_ns) {
  while (now_ns() < t_ns) {
  }
}

void sleep_ns(int64_t ns) {
  struct timespec t = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t) != 0) {
  }
}

int pin_self(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

int set_timer_slack(unsigned long ns) { return prctl(PR_SET_TIMERSLACK, ns, 0, 0, 0); }

struct spinner {
  pthread_t t;
  int cpu;
  atomic_int stop;
};

static void* spin_main(void* arg) {
  struct spinner* s = arg;
  pin_self(s->cpu);
  while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
  }
  return NULL;
}

struct spinner* spinner_start(int cpu) {
  struct spinner* s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->cpu = cpu;
  if (pthread_create(&s->t, NULL, spin_main, s) != 0) {
    free(s);
    return NULL;
  }
  return s;
}

void spinner_stop(struct spinner* s) {
  if (!s) return;
  atomic_store(&s->stop, 1);
  pthread_join(s->t, NULL);
  free(s);
}

void samples_add(struct samples* s, double x) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 256;
    double* v = realloc(s->v, cap * sizeof *v);
    if (!v) return; /* out of memory: the sample is dropped, n stays honest */
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n++] = x;
}

void samples_free(struct samples* s) {
  free(s->v);
  s->v = NULL;
  s->n = s->cap = 0;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

double samples_pct(struct samples* s, double p) {
  if (s->n == 0) return NAN;
  qsort(s->v, s->n, sizeof *s->v, cmp_double);
  size_t rank = (size_t)ceil(p / 100.0 * (double)s->n); /* nearest rank, 1-based */
  if (rank < 1) rank = 1;
  if (rank > s->n) rank = s->n;
  return s->v[rank - 1];
}

void progress(const struct probe_opts* o, const char* fmt, ...) {
  if (!o->verbose) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("vtick-probe: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int read_text(const char* path, char* buf, size_t len) {
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, len - 1, f);
  fclose(f);
  buf[n] = 0;
  while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) buf[--n] = 0;
  return 0;
}

long long read_ll(const char* path, long long dflt) {
  char b[64];
  if (read_text(path, b, sizeof b) != 0) return dflt;
  char* end;
  long long v = strtoll(b, &end, 10);
  return end == b ? dflt : v;
}

int open_two_cpu_section(struct jw* w, const struct probe_opts* o, const char* name) {
  jw_obj(w, name);
  if (o->cpu_b >= 0) return 1;
  jw_str(w, "not_measured", "one CPU usable: the experiment needs two");
  jw_end_obj(w);
  return 0;
}
