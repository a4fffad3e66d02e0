/* vtick-probe: what an exit and a cross-CPU wake cost, seen from the guest.
 * An always-exiting instruction (CPUID, handled by KVM's kvm_emulate_cpuid()) against a
 * plain syscall; sched_yield() alone on the CPU and alternating with a second thread (the
 * guest's own __schedule() without and with a switch, no exit); a futex wake of a task
 * blocked on another, idle CPU (ttwu_queue_wakelist() sends an IPI unless the target
 * polls) against one on the waker's own CPU (no IPI); a 100-byte pipe write() and read()
 * with nothing blocked on the pipe (hackbench -p's message, without its wake-ups). */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "probe.h"

static long futex(atomic_int* a, int op, int val) { return syscall(SYS_futex, a, op, val, NULL, NULL, 0); }

enum op { OP_GETPPID, OP_CPUID, OP_YIELD, OP_PIPE };

static int pipe_fd[2] = {-1, -1};

/* `reps` batches of `per` ops; each sample is a batch's time over `div` (per op: `per`). */
static void batches(struct samples* s, int reps, int per, enum op op, int div) {
  for (int r = 0; r < reps; ++r) {
    int64_t t0 = now_ns();
    for (int i = 0; i < per; ++i) {
#if defined(__x86_64__) || defined(__i386__)
      if (op == OP_CPUID) {
        unsigned a, b, c, d;
        __cpuid(0, a, b, c, d);
        __asm__ volatile("" ::"r"(a), "r"(b), "r"(c), "r"(d));
        continue;
      }
#endif
      if (op == OP_YIELD) {
        sched_yield();
      } else if (op == OP_PIPE) {
        char buf[100] = {0};
        if (write(pipe_fd[1], buf, sizeof buf) != (ssize_t)sizeof buf || read(pipe_fd[0], buf, sizeof buf) != (ssize_t)sizeof buf)
          return;
      } else {
        syscall(SYS_getppid);
      }
    }
    if (r > 0) samples_add(s, (double)(now_ns() - t0) / div); /* the first batch warms up */
  }
}

/* The other thread of the switch figure: yields on the same CPU until told to stop. */
struct yielder {
  atomic_int started, stop;
};
static void* yield_loop(void* arg) {
  struct yielder* y = arg;
  atomic_store(&y->started, 1);
  while (!atomic_load(&y->stop)) sched_yield();
  return NULL;
}

/* sched_yield() that switches: two threads on `cpu`, each yield hands the CPU to the other;
 * a batch of 1000 of this thread's yields spans 2000 switches. 0 if the thread failed. */
static int yield_switches(struct samples* s, int reps, int cpu) {
  struct yielder y = {0};
  pthread_attr_t attr;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_attr_init(&attr);
  pthread_attr_setaffinity_np(&attr, sizeof set, &set);
  pthread_t t;
  int ok = pthread_create(&t, &attr, yield_loop, &y) == 0;
  pthread_attr_destroy(&attr);
  if (!ok) return 0;
  while (!atomic_load(&y.started)) sched_yield();
  batches(s, reps, 1000, OP_YIELD, 2000);
  atomic_store(&y.stop, 1);
  pthread_join(t, NULL);
  return 1;
}

void probe_exit_cost(struct jw* w, const struct probe_opts* o) {
  progress(o, "exit cost: CPUID against getppid(), and sched_yield() alone and switching, on CPU %d", o->cpu_a);
  pin_self(o->cpu_a);
  int reps = o->quick ? 300 : 3000;
  struct samples sys = {0}, ex = {0};
  struct samples yield = {0};
  batches(&sys, reps, 1000, OP_GETPPID, 1000);
  batches(&yield, reps, 1000, OP_YIELD, 1000);
  struct samples sw = {0};
  int switched = yield_switches(&sw, reps, o->cpu_a);
  struct samples msg = {0};
  if (pipe(pipe_fd) == 0) {
    batches(&msg, reps, 1000, OP_PIPE, 1000);
    close(pipe_fd[0]);
    close(pipe_fd[1]);
  }
  jw_obj(w, "exit_cost");
  jw_str(w, "method",
         "mean per op over batches (1000 getppid(), 1000 sched_yield() with nothing else runnable on the CPU, 200 CPUID leaf 0; "
         "sched_yield_switch: 1000 yields of a thread alternating with a second one on the same CPU, per switch; "
         "pipe_msg: 1000 write()s of 100 bytes to a pipe each read back at once by the same thread, per write and read); "
         "the statistics are over batches");
  jw_stats(w, "syscall_ns", &sys, "ns");
  jw_stats(w, "sched_yield_ns", &yield, "ns");
  if (switched) jw_stats(w, "sched_yield_switch_ns", &sw, "ns");
  else jw_null(w, "sched_yield_switch_ns");
  if (msg.n > 0) jw_stats(w, "pipe_msg_ns", &msg, "ns");
  else jw_null(w, "pipe_msg_ns");
#if defined(__x86_64__) || defined(__i386__)
  batches(&ex, reps, 200, OP_CPUID, 200);
  jw_stats(w, "cpuid_ns", &ex, "ns");
  jw_null(w, "not_measured");
#else
  jw_null(w, "cpuid_ns");
  jw_str(w, "not_measured", "no unprivileged instruction exits to the hypervisor on this architecture");
#endif
  jw_end_obj(w);
  samples_free(&sys);
  samples_free(&yield);
  samples_free(&sw);
  samples_free(&msg);
  samples_free(&ex);
}

struct wake_pair {
  atomic_int word;   /* 1: woken, 2: exit */
  atomic_int state;  /* 0: about to wait, 1: woken and done */
  atomic_llong woke; /* when the waiter ran again */
  int cpu;
  int sched_idle;    /* the local variant: never preempts the waker */
};

static void* waiter(void* arg) {
  struct wake_pair* p = arg;
  pin_self(p->cpu);
  if (p->sched_idle) {
    struct sched_param sp = {0};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
  }
  for (;;) {
    while (atomic_load(&p->word) == 0) futex(&p->word, FUTEX_WAIT_PRIVATE, 0);
    if (atomic_load(&p->word) == 2) return NULL;
    atomic_store(&p->woke, now_ns());
    atomic_store(&p->word, 0);
    atomic_store(&p->state, 1);
  }
}

/* One variant: n wakes of a waiter on `cpu`, the waker on o->cpu_a, `gap_ns` of sleep before
 * each so that the waiter's CPU is idle when the wake comes. */
static void wakes(const struct probe_opts* o, int cpu, int local, int n, int64_t gap_ns, struct samples* cost,
                  struct samples* latency) {
  struct wake_pair p = {.cpu = cpu, .sched_idle = local};
  pthread_t t;
  if (pthread_create(&t, NULL, waiter, &p) != 0) return;
  pin_self(o->cpu_a);
  for (int i = 0; i < n + 1; ++i) {
    sleep_ns(gap_ns);
    while (atomic_load(&p.state) == 0 && i > 0) sleep_ns(20000); /* the waiter finished the last one */
    atomic_store(&p.state, 0);
    sleep_ns(gap_ns / 4 + 1000);                                  /* it is back in FUTEX_WAIT */
    atomic_store(&p.word, 1);
    int64_t t0 = now_ns();
    futex(&p.word, FUTEX_WAKE_PRIVATE, 1);
    int64_t t1 = now_ns();
    if (!local)
      while (atomic_load(&p.state) == 0) {
      }
    if (i == 0) continue; /* warm-up */
    samples_add(cost, (double)(t1 - t0));
    if (latency) samples_add(latency, (double)(atomic_load(&p.woke) - t0));
  }
  while (atomic_load(&p.state) == 0) sleep_ns(20000);
  atomic_store(&p.word, 2);
  futex(&p.word, FUTEX_WAKE_PRIVATE, 1);
  pthread_join(t, NULL);
}

/* A same-CPU futex ping-pong (two threads on o->cpu_a handing a token): FUTEX_WAKE's time
 * on side 0 when it woke side 1 and side 1 did not run inside the timed span (not
 * preempted at the syscall's return), and when it woke nobody (side 1 already had the
 * token, preempted before its FUTEX_WAIT). The difference is try_to_wake_up() of a task
 * that slept microseconds, caches warm: the wake-ups of a pinned pipe or futex chain. */
struct hot_pair {
  atomic_int word[2];
  atomic_long done[2];
  int n, cpu;
  struct samples *woke, *nobody;
};

static void hot_wake(struct hot_pair* h, int me) {
  int other = 1 - me;
  atomic_store(&h->word[other], 1);
  long before = atomic_load(&h->done[other]);
  int64_t t0 = now_ns();
  long r = futex(&h->word[other], FUTEX_WAKE_PRIVATE, 1);
  int64_t t1 = now_ns();
  if (me != 0) return;
  if (r == 1 && atomic_load(&h->done[other]) == before) samples_add(h->woke, (double)(t1 - t0));
  if (r == 0) samples_add(h->nobody, (double)(t1 - t0));
}

static void hot_wait(struct hot_pair* h, int me) {
  while (atomic_load(&h->word[me]) == 0) futex(&h->word[me], FUTEX_WAIT_PRIVATE, 0);
  atomic_store(&h->word[me], 0);
}

static void* hot_side1(void* arg) {
  struct hot_pair* h = arg;
  pin_self(h->cpu);
  for (int i = 0; i < h->n; ++i) {
    hot_wait(h, 1);
    hot_wake(h, 1);
    atomic_fetch_add(&h->done[1], 1);
  }
  return NULL;
}

static void hot_wakes(const struct probe_opts* o, int n, struct samples* woke, struct samples* nobody) {
  struct hot_pair h = {.n = n, .cpu = o->cpu_a, .woke = woke, .nobody = nobody};
  pthread_t t;
  pin_self(o->cpu_a);
  if (pthread_create(&t, NULL, hot_side1, &h) != 0) return;
  for (int i = 0; i < n; ++i) {
    hot_wake(&h, 0);
    hot_wait(&h, 0);
    atomic_fetch_add(&h.done[0], 1);
  }
  pthread_join(t, NULL);
}

void probe_futex_wake(struct jw* w, const struct probe_opts* o) {
  if (!open_two_cpu_section(w, o, "futex_wake")) return;
  int n = o->quick ? 300 : 3000;
  int64_t gap = 200000;
  progress(o, "futex wake: %d wakes of a task on idle CPU %d, %d of one on CPU %d", n, o->cpu_b, n, o->cpu_a);
  struct samples remote = {0}, local = {0}, lat = {0};
  wakes(o, o->cpu_b, 0, n, gap, &remote, &lat);
  wakes(o, o->cpu_a, 1, n, gap, &local, NULL);
  struct samples hot = {0}, nobody = {0};
  hot_wakes(o, 10 * n, &hot, &nobody);
  jw_str(w, "method", "FUTEX_WAKE syscall time on the waker; the waiter blocked in FUTEX_WAIT 250 us before, on an idle CPU (remote) or on the waker's CPU at SCHED_IDLE (local)");
  jw_int(w, "gap_ns", gap);
  jw_stats(w, "remote_ns", &remote, "ns");
  jw_stats(w, "local_ns", &local, "ns");
  jw_stats(w, "remote_wake_latency_ns", &lat, "ns");
  jw_str(w, "hot_method", "a same-CPU futex ping-pong on cpu_a: FUTEX_WAKE's time when it woke the other thread and that thread did not run inside it (local_hot_ns), and when it woke nobody (local_nobody_ns)");
  if (hot.n > 0) jw_stats(w, "local_hot_ns", &hot, "ns");
  if (nobody.n > 0) jw_stats(w, "local_nobody_ns", &nobody, "ns");
  jw_end_obj(w);
  samples_free(&hot);
  samples_free(&nobody);
  samples_free(&remote);
  samples_free(&local);
  samples_free(&lat);
}
