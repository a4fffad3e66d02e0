/* libtracecmd's read API from C (its header pulls in tracefs.h, which is not valid C++). */
#include <stdio.h>
#include <string.h>
#include <trace-cmd.h>

#include "study/trace_read.h"

static const char *const kind_names[VTK_KIND_COUNT][2] = {
	[VTK_SCHED_SWITCH] = {"sched", "sched_switch"},
	[VTK_SCHED_WAKING] = {"sched", "sched_waking"},
	[VTK_SCHED_WAKEUP] = {"sched", "sched_wakeup"},
	[VTK_SCHED_MIGRATE_TASK] = {"sched", "sched_migrate_task"},
	[VTK_CPU_IDLE] = {"power", "cpu_idle"},
	[VTK_IPI_SEND_CPU] = {"ipi", "ipi_send_cpu"},
	[VTK_IPI_SEND_CPUMASK] = {"ipi", "ipi_send_cpumask"},
	[VTK_CALL_FUNCTION_SINGLE_ENTRY] = {"irq_vectors", "call_function_single_entry"},
	[VTK_CALL_FUNCTION_SINGLE_EXIT] = {"irq_vectors", "call_function_single_exit"},
	[VTK_CALL_FUNCTION_ENTRY] = {"irq_vectors", "call_function_entry"},
	[VTK_CALL_FUNCTION_EXIT] = {"irq_vectors", "call_function_exit"},
	[VTK_RESCHEDULE_ENTRY] = {"irq_vectors", "reschedule_entry"},
	[VTK_RESCHEDULE_EXIT] = {"irq_vectors", "reschedule_exit"},
	[VTK_LOCAL_TIMER_ENTRY] = {"irq_vectors", "local_timer_entry"},
	[VTK_LOCAL_TIMER_EXIT] = {"irq_vectors", "local_timer_exit"},
	[VTK_HRTIMER_START] = {"timer", "hrtimer_start"},
	[VTK_HRTIMER_EXPIRE_ENTRY] = {"timer", "hrtimer_expire_entry"},
	[VTK_WRITE_MSR] = {"msr", "write_msr"},
	[VTK_TICK_STOP] = {"timer", "tick_stop"},
	[VTK_OTHER] = {"", "other"},
};

const char *vtick_tp_kind_name(int kind)
{
	return kind >= 0 && kind < VTK_KIND_COUNT ? kind_names[kind][1] : "?";
}

/* Event ids of this file's tep handle, mapped to kinds once per event. */
#define MAX_IDS 65536
struct reader {
	void (*fn)(const struct vtick_trace_rec *, void *);
	void *data;
	struct tep_handle *tep;
	unsigned long long start; /* records before it are left out */
	signed char kind_of[MAX_IDS]; /* -1: not looked up yet */
};

static int kind_of(struct reader *r, struct tep_event *ev)
{
	int k;

	if (ev->id < 0 || ev->id >= MAX_IDS)
		return VTK_OTHER;
	if (r->kind_of[ev->id] >= 0)
		return r->kind_of[ev->id];
	k = VTK_OTHER;
	for (int i = 0; i < VTK_OTHER; i++)
		if (strcmp(ev->system, kind_names[i][0]) == 0 && strcmp(ev->name, kind_names[i][1]) == 0)
			k = i;
	r->kind_of[ev->id] = (signed char)k;
	return k;
}

static long long num(struct tep_event *ev, struct tep_record *rec, const char *field)
{
	unsigned long long v = 0;
	struct tep_format_field *f = tep_find_field(ev, field);

	if (!f || tep_read_number_field(f, rec->data, &v) != 0)
		return -1;
	if (f->flags & TEP_FIELD_IS_SIGNED) {
		if (f->size == 4)
			return (int)v;
		if (f->size == 2)
			return (short)v;
	}
	return (long long)v;
}

/* ipi_send_cpumask's __data_loc cpumask: the first unsigned long of the bitmask. */
static long long mask(struct tep_event *ev, struct tep_record *rec)
{
	struct tep_format_field *f = tep_find_field(ev, "cpumask");
	unsigned long long loc = 0, m = 0;
	unsigned int off, len;

	if (!f || tep_read_number_field(f, rec->data, &loc) != 0)
		return 0;
	off = (unsigned int)(loc & 0xffff);
	len = (unsigned int)(loc >> 16);
	if (off + len > (unsigned int)rec->size)
		return 0;
	memcpy(&m, (const char *)rec->data + off, len < sizeof(m) ? len : sizeof(m));
	return (long long)m;
}

/* The fields a kind carries in a, b, c (enum vtick_tp_kind says which). */
static const char *const field_names[VTK_KIND_COUNT][3] = {
	[VTK_SCHED_SWITCH] = {"prev_pid", "next_pid", "prev_state"},
	[VTK_SCHED_WAKING] = {"pid", "target_cpu", NULL},
	[VTK_SCHED_WAKEUP] = {"pid", "target_cpu", NULL},
	[VTK_SCHED_MIGRATE_TASK] = {"pid", "orig_cpu", "dest_cpu"},
	[VTK_CPU_IDLE] = {"state", "cpu_id", NULL},
	[VTK_IPI_SEND_CPU] = {"cpu", "callback", NULL},
	[VTK_IPI_SEND_CPUMASK] = {"cpumask", "callback", NULL},
	[VTK_HRTIMER_START] = {"expires", NULL, NULL},
	[VTK_WRITE_MSR] = {"msr", "val", NULL},
	[VTK_TICK_STOP] = {"success", "dependency", NULL},
};

/* A field's value: "callback" as 0 or 1, "cpumask" as its first 64 CPUs; 0 for none. */
static long long field(struct tep_event *ev, struct tep_record *rec, const char *name)
{
	if (!name)
		return 0;
	if (strcmp(name, "cpumask") == 0)
		return mask(ev, rec);
	if (strcmp(name, "callback") == 0)
		return num(ev, rec, name) != 0;
	return num(ev, rec, name);
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct reader *r = data;
	struct tep_event *ev = tep_find_event_by_record(r->tep, rec);
	struct vtick_trace_rec out = {.ts = rec->ts, .cpu = cpu, .kind = VTK_OTHER};

	(void)h;
	if (rec->ts < r->start)
		return 0;
	if (!ev) {
		r->fn(&out, r->data);
		return 0;
	}
	out.kind = kind_of(r, ev);
	out.pid = tep_data_pid(r->tep, rec);
	out.a = field(ev, rec, field_names[out.kind][0]);
	out.b = field(ev, rec, field_names[out.kind][1]);
	out.c = field(ev, rec, field_names[out.kind][2]);
	r->fn(&out, r->data);
	return 0;
}

/* The latest of the CPUs' first records; 0 when no CPU has one. A CPU whose ring buffer
 * overran lost its oldest records: the window starts where every CPU has its own. */
static int common_start(struct tracecmd_input *h, int cpus, unsigned long long *start)
{
	int any = 0;

	*start = 0;
	for (int c = 0; c < cpus; c++) {
		struct tep_record *rec = tracecmd_read_cpu_first(h, c);

		if (rec) {
			if (!any || rec->ts > *start)
				*start = rec->ts;
			any = 1;
			tracecmd_free_record(rec);
		}
	}
	return any;
}

static int has_records(struct tracecmd_input *h, int cpus)
{
	unsigned long long start;

	return common_start(h, cpus, &start);
}

/* Opens `path` and picks the buffer to read: the top level when it has records, else
 * the first instance that has. 0, or a vtick_trace_status. `index` gets the instance's
 * index (-1: the top level). Reading a CPU's first record moves its cursor past it: the
 * caller reopens the file to iterate from the start (tracecmd_iterate_events() peeks
 * from each CPU's cursor). */
static int open_buffer(const char *path, struct tracecmd_input **top, struct tracecmd_input **use, int *index)
{
	*use = NULL;
	*index = -1;
	*top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!*top)
		return VTR_NOT_TRACE_DAT;
	if (has_records(*top, tep_get_cpus(tracecmd_get_tep(*top)))) {
		*use = *top;
		return VTR_OK;
	}
	for (int i = 0; i < tracecmd_buffer_instances(*top); i++) {
		struct tracecmd_input *in = tracecmd_buffer_instance_handle(*top, i);

		if (!in)
			continue;
		if (has_records(in, tep_get_cpus(tracecmd_get_tep(in)))) {
			*use = in;
			*index = i;
			return VTR_OK;
		}
		tracecmd_close(in);
	}
	tracecmd_close(*top);
	return VTR_NO_DATA;
}

static void close_buffer(struct tracecmd_input *top, struct tracecmd_input *use)
{
	if (use && use != top)
		tracecmd_close(use);
	tracecmd_close(top);
}

int vtick_trace_read(const char *path, void (*fn)(const struct vtick_trace_rec *, void *), void *data,
		     char *buffer, int buffer_len, int *cpus, unsigned long long *start_ts)
{
	static struct reader r; /* one reader at a time: vtick is single-threaded here */
	struct tracecmd_input *top, *use;
	int index, rc;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	rc = open_buffer(path, &top, &use, &index);
	if (rc != VTR_OK)
		return rc;
	*cpus = tep_get_cpus(tracecmd_get_tep(use));
	common_start(use, *cpus, start_ts);
	close_buffer(top, use);
	/* again, to the same buffer without reading from it: the cursors at the start */
	top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	use = !top ? NULL : index < 0 ? top : tracecmd_buffer_instance_handle(top, index);
	if (!use) {
		if (top)
			tracecmd_close(top);
		return VTR_NOT_TRACE_DAT;
	}
	if (buffer && buffer_len > 0)
		snprintf(buffer, (size_t)buffer_len, "%s", index < 0 ? "" : tracecmd_buffer_instance_name(top, index));
	memset(&r, 0, sizeof(r));
	memset(r.kind_of, -1, sizeof(r.kind_of));
	r.fn = fn;
	r.data = data;
	r.tep = tracecmd_get_tep(use);
	r.start = *start_ts;
	rc = tracecmd_iterate_events(use, NULL, 0, on_record, &r);
	close_buffer(top, use);
	return rc < 0 ? VTR_READ_ERROR : VTR_OK;
}
