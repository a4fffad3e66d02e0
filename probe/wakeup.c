/* vtick-probe: cross-vCPU round trips. A futex ping-pong back to back, and a request to a
 * server whose vCPU has been idle for a given time (10 us .. 20 ms): the wake-up of a
 * halted vCPU (HLT/WFI exit, the host's wake of the vCPU thread from its C-state) as a
 * function of how long it has halted. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe.h"

static long futex(atomic_int* a, int op, int val) { return syscall(SYS_futex, a, op, val, NULL, NULL, 0); }

/* a counting event as vtick's script `wait E` / `wake E` */
static void ev_wait(atomic_int* e) {
  for (;;) {
    int v = atomic_load(e);
    if (v > 0 && atomic_compare_exchange_weak(e, &v, v - 1)) return;
    if (v == 0) futex(e, FUTEX_WAIT_PRIVATE, 0);
  }
}
static void ev_wake(atomic_int* e) {
  atomic_fetch_add(e, 1);
  futex(e, FUTEX_WAKE_PRIVATE, 1);
}

struct server {
  atomic_int req, resp, stop;
  atomic_llong ran; /* when the server ran for the last request */
  int cpu;
};

static void* server_main(void* arg) {
  struct server* s = arg;
  pin_self(s->cpu);
  set_timer_slack(1);
  for (;;) {
    ev_wait(&s->req);
    if (atomic_load(&s->stop)) return NULL;
    atomic_store(&s->ran, now_ns());
    ev_wake(&s->resp);
  }
}

static int server_start(struct server* s, pthread_t* t, int cpu) {
  atomic_init(&s->req, 0);
  atomic_init(&s->resp, 0);
  atomic_init(&s->stop, 0);
  s->cpu = cpu;
  return pthread_create(t, NULL, server_main, s);
}

static void server_stop(struct server* s, pthread_t t) {
  atomic_store(&s->stop, 1);
  ev_wake(&s->req);
  pthread_join(t, NULL);
}

/* One request: the round trip and the one-way wake-up (request to the server running). */
static void request(struct server* s, struct samples* rr, struct samples* one_way, int keep) {
  int64_t t0 = now_ns();
  ev_wake(&s->req);
  ev_wait(&s->resp);
  int64_t t1 = now_ns();
  if (!keep) return;
  samples_add(rr, (double)(t1 - t0));
  if (one_way) samples_add(one_way, (double)(atomic_load(&s->ran) - t0));
}

void probe_pingpong(struct jw* w, const struct probe_opts* o) {
  if (!open_two_cpu_section(w, o, "pingpong")) return;
  int n = o->quick ? 20000 : 200000;
  progress(o, "ping-pong: %d round trips between CPU %d and CPU %d", n, o->cpu_a, o->cpu_b);
  struct server s;
  pthread_t t;
  if (server_start(&s, &t, o->cpu_b) != 0) {
    jw_str(w, "not_measured", "pthread_create failed");
    jw_end_obj(w);
    return;
  }
  pin_self(o->cpu_a);
  struct samples rr = {0};
  for (int i = 0; i < n + n / 10; ++i) request(&s, &rr, NULL, i >= n / 10); /* a tenth warms up */
  server_stop(&s, t);
  jw_str(w, "method", "futex request/response between two threads pinned to cpu_a and cpu_b, back to back");
  jw_stats(w, "round_trip_ns", &rr, "ns");
  jw_end_obj(w);
  samples_free(&rr);
}

static const int64_t kGaps[] = {10000, 30000, 100000, 300000, 1000000, 3000000, 10000000, 20000000};
enum { NGAPS = sizeof kGaps / sizeof kGaps[0] };

static int reps_for(const struct probe_opts* o, int64_t gap) {
  int64_t budget = o->quick ? 150000000 : 1500000000; /* per gap and mode */
  int64_t n = budget / gap;
  int lo = o->quick ? 10 : 40, hi = o->quick ? 2000 : 20000;
  return n < lo ? lo : n > hi ? hi : (int)n;
}

void probe_wake_after_idle(struct jw* w, const struct probe_opts* o) {
  if (!open_two_cpu_section(w, o, "wake_after_idle")) return;
  jw_str(w, "method",
         "the client on cpu_a waits gap_ns, then posts a request to the server on cpu_b (idle since its last "
         "answer) and waits for the answer; spin: the client busy-waits the gap (only cpu_b idles), sleep: it "
         "sleeps in clock_nanosleep with 1 ns slack (both idle)");
  jw_arr(w, "points");
  struct server s;
  pthread_t t;
  if (server_start(&s, &t, o->cpu_b) != 0) {
    jw_end_arr(w);
    jw_end_obj(w);
    return;
  }
  pin_self(o->cpu_a);
  set_timer_slack(1);
  for (int mode = 0; mode < 2; ++mode)
    for (int g = 0; g < NGAPS; ++g) {
      int n = reps_for(o, kGaps[g]);
      progress(o, "wake after idle: %s %lld us x %d", mode ? "sleep" : "spin", (long long)kGaps[g] / 1000, n);
      struct samples rr = {0}, one = {0};
      for (int i = 0; i <= n; ++i) {
        if (mode == 0) spin_until(now_ns() + kGaps[g]);
        else sleep_ns(kGaps[g]);
        request(&s, &rr, &one, i > 0); /* the first warms up */
      }
      jw_obj(w, NULL);
      jw_str(w, "mode", mode ? "sleep" : "spin");
      jw_int(w, "gap_ns", kGaps[g]);
      jw_stats(w, "round_trip_ns", &rr, "ns");
      jw_stats(w, "one_way_ns", &one, "ns");
      jw_end_obj(w);
      samples_free(&rr);
      samples_free(&one);
    }
  server_stop(&s, t);
  set_timer_slack(50000);
  jw_end_arr(w);
  jw_end_obj(w);
}
