/* study/trace_read.c: a trace.dat's scheduling, idle, IPI, timer and MSR records, read
 * through libtracecmd's public API (a real guest's `trace-cmd extract` file or vtick's
 * --trace-dat guest file). */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif

/* The tracepoints trace-compare reads, by system:name. */
enum vtick_tp_kind {
	VTK_SCHED_SWITCH,          /* a: prev_pid, b: next_pid, c: prev_state */
	VTK_SCHED_WAKING,          /* a: pid, b: target_cpu (on the waker's CPU) */
	VTK_SCHED_WAKEUP,          /* a: pid, b: target_cpu */
	VTK_SCHED_MIGRATE_TASK,    /* a: pid, b: orig_cpu, c: dest_cpu */
	VTK_CPU_IDLE,              /* a: state (0xffffffff: exit), b: cpu_id */
	VTK_IPI_SEND_CPU,          /* a: cpu, b: callback != 0 */
	VTK_IPI_SEND_CPUMASK,      /* a: the mask's first 64 CPUs, b: callback != 0 */
	VTK_CALL_FUNCTION_SINGLE_ENTRY,
	VTK_CALL_FUNCTION_SINGLE_EXIT,
	VTK_CALL_FUNCTION_ENTRY,
	VTK_CALL_FUNCTION_EXIT,
	VTK_RESCHEDULE_ENTRY,
	VTK_RESCHEDULE_EXIT,
	VTK_LOCAL_TIMER_ENTRY,
	VTK_LOCAL_TIMER_EXIT,
	VTK_HRTIMER_START,         /* a: expires */
	VTK_HRTIMER_EXPIRE_ENTRY,
	VTK_WRITE_MSR,             /* a: msr, b: val */
	VTK_TICK_STOP,             /* a: success, b: dependency */
	VTK_OTHER,
	VTK_KIND_COUNT
};

struct vtick_trace_rec {
	unsigned long long ts; /* ns of the file's clock */
	int cpu;
	int kind;              /* enum vtick_tp_kind */
	int pid;               /* common_pid */
	long long a, b, c;
};

/* What vtick_trace_read() found. */
enum vtick_trace_status {
	VTR_OK = 0,
	VTR_NOT_TRACE_DAT = -1, /* libtracecmd cannot open it */
	VTR_NO_DATA = -2,       /* no buffer (top level or instance) has a record */
	VTR_READ_ERROR = -3     /* libtracecmd reported an error while reading records */
};

/* Calls `fn` for each record of `path` in time order (the top-level buffer, or the
 * first instance with records when the top level has none: `trace-cmd extract -B`),
 * from `start_ts` on: the latest of the CPUs' first records (a CPU whose ring buffer
 * overran lost its oldest ones). `buffer` (may be NULL) gets the instance's name (""
 * for the top level), at most `buffer_len` bytes. `cpus` gets the file's CPU count.
 * A version-6 file must have been checked first (its CPU data is mapped, not read). */
int vtick_trace_read(const char *path, void (*fn)(const struct vtick_trace_rec *, void *), void *data,
		     char *buffer, int buffer_len, int *cpus, unsigned long long *start_ts);

const char *vtick_tp_kind_name(int kind);

#ifdef __cplusplus
}
#endif
