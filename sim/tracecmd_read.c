/* libtracecmd's public read API, from C: its header pulls in tracefs.h, which is not
 * valid C++ (tracefs 1.6 passes 0 for an enum). Used by sim/trace_dat.cpp. */
#include <trace-cmd.h>

#include "sim/tracecmd_read.h"

static int count_record(struct tracecmd_input *handle, struct tep_record *record, int cpu, void *data)
{
	(void)handle;
	(void)record;
	(void)cpu;
	++*(unsigned long long *)data;
	return 0;
}

int vtick_tracecmd_count_records(int fd, unsigned long long *count)
{
	struct tracecmd_input *in = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS);

	if (!in)
		return -1;
	*count = 0;
	tracecmd_iterate_events(in, NULL, 0, count_record, count);
	tracecmd_close(in); /* closes fd */
	return 0;
}
