/* vtick-probe: timer overshoot of clock_nanosleep(), as hrtimer_nanosleep() with the
 * task's timer slack delivers it through the guest's clockevent (a TSC-deadline write that
 * exits, the host timer standing in for it, the injected interrupt), on an idle CPU and
 * on one busy with another task (the wake-up must then preempt it). */
#define _GNU_SOURCE
#include <sys/prctl.h>

#include "probe.h"

static const int64_t kLengths[] = {10000, 30000, 100000, 300000, 1000000, 3000000, 10000000};
enum { NLEN = sizeof kLengths / sizeof kLengths[0] };

void probe_timer_overshoot(struct jw* w, const struct probe_opts* o) {
  int cpu = o->cpu_b >= 0 ? o->cpu_b : o->cpu_a;
  unsigned long dflt = (unsigned long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  jw_obj(w, "timer_overshoot");
  jw_str(w, "method", "relative clock_nanosleep(CLOCK_MONOTONIC) on `cpu`: elapsed minus requested; busy: a "
                      "spinning thread of the same priority shares the CPU");
  jw_int(w, "cpu", cpu);
  jw_int(w, "default_slack_ns", (long long)dflt);
  jw_arr(w, "points");
  pin_self(cpu);
  for (int busy = 0; busy < 2; ++busy) {
    struct spinner* sp = busy ? spinner_start(cpu) : NULL;
    for (int slack = 0; slack < 2; ++slack) {
      set_timer_slack(slack ? 1 : dflt);
      for (int l = 0; l < NLEN; ++l) {
        int64_t budget = o->quick ? 60000000 : 600000000;
        int n = (int)(budget / kLengths[l]);
        int lo = o->quick ? 5 : 20, hi = o->quick ? 200 : 2000;
        n = n < lo ? lo : n > hi ? hi : n;
        progress(o, "timer overshoot: %s CPU, slack %lu ns, %lld us x %d", busy ? "busy" : "idle", slack ? 1UL : dflt,
                 (long long)kLengths[l] / 1000, n);
        struct samples s = {0};
        for (int i = 0; i <= n; ++i) {
          int64_t t0 = now_ns();
          sleep_ns(kLengths[l]);
          if (i > 0) samples_add(&s, (double)(now_ns() - t0 - kLengths[l]));
        }
        jw_obj(w, NULL);
        jw_bool(w, "busy", busy);
        jw_int(w, "slack_ns", slack ? 1 : (long long)dflt);
        jw_int(w, "length_ns", kLengths[l]);
        jw_stats(w, "overshoot_ns", &s, "ns");
        jw_end_obj(w);
        samples_free(&s);
      }
    }
    spinner_stop(sp);
  }
  set_timer_slack(dflt);
  jw_end_arr(w);
  jw_end_obj(w);
}
