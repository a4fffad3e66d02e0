/* sim/tracecmd_read.c: reads a trace.dat through libtracecmd's public API. */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif

/* Opens the trace.dat on `fd` (libtracecmd takes and closes it) and counts its records.
 * Returns 0, or -1 when libtracecmd cannot open it. */
int vtick_tracecmd_count_records(int fd, unsigned long long *count);

#ifdef __cplusplus
}
#endif
