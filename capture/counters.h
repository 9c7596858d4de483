/*
 * counters.h — performance counters read at region boundaries (issue 20).
 *
 * The counters named in counters.events are opened per thread through
 * perf_event_open(2) (no build dependency): hardware events in one group,
 * software events in another, each group read with one read(2) that also
 * gives its time enabled and running, by which the counts are scaled when
 * the kernel multiplexed the group.  At the enter and the exit of every
 * measured function whose name matches counters.functions (all when null)
 * the thread's counts are read: written to the trace after the ENTER or
 * EXIT (a VFTR_VFD_COUNTERS event, lib/vfd/vftr_vfd_counters.h), and the
 * exit's difference to the enter added to the call path's inclusive sums,
 * from which the log's counter table is made.  Names that are not perf's
 * are PAPI's (presets, native events) when vftr was built with PAPI: each
 * thread counts them in one PAPI event set beside its perf groups
 * (papi/vftr_papi.h).
 *
 * Which counters a run has is decided once, at initialization, by opening
 * each on the initializing thread: those the machine (no PMU in a VM) or
 * the kernel's perf_event_paranoid refuse are left out with one message
 * naming the cause; the others go on.  Ids in the trace are the places in
 * the list of counters kept (from 1).
 *
 * Threads: vftr_ctr_setup once (initialization); a thread's state is made
 * by that thread (vftr_ctr_thread_new) and touched only with its guard
 * held; the log is written when no thread is inside a hook.
 */
#ifndef VFTR_CAPTURE_COUNTERS_H
#define VFTR_CAPTURE_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"

struct vftr_thread;
struct vftr_node;
struct vftr_vfd_writer;

/* Parses cfg->counters_events and probes each counter; prints the one
 * message about counters left out (rank 0 only when rank0 is false: the
 * others stay silent).  Returns the number of counters kept (0: counters
 * are off), or -EINVAL for a name it does not know (message printed;
 * counters off). */
int vftr_ctr_setup(const struct vftr_config *cfg, bool rank0);

/* Counters kept by vftr_ctr_setup (0: off). */
unsigned vftr_ctr_count(void);
/* Name of counter i (< vftr_ctr_count()). */
const char *vftr_ctr_name(unsigned i);

/* The COUNTERS definition chunk into the trace w.  0 or -errno. */
int vftr_ctr_define(struct vftr_vfd_writer *w);

/* The calling thread's counters, opened now (NULL: counters off or none
 * could be opened).  Caller (vftr_thread_new) keeps it in t->ctr. */
struct vftr_ctr *vftr_ctr_thread_new(void);
/* Closes the thread's descriptors (thread exit); the sums stay. */
void vftr_ctr_thread_close(struct vftr_ctr *c);
/* Closes and frees (tests: capture keeps every thread's state to the end).
 * NULL-safe. */
void vftr_ctr_thread_free(struct vftr_ctr *c);

/* Reads at the enter / exit of node n at now (t's guard held, t->ctr set). */
void vftr_ctr_enter(struct vftr_thread *t, const struct vftr_node *n, uint64_t now);
void vftr_ctr_exit(struct vftr_thread *t, const struct vftr_node *n, uint64_t now);

/* The estimate of an event's count over the time it was enabled, from the
 * count the kernel gave for the part of it the event was running (a group
 * multiplexed with others is scheduled in and out; perf stat's scaling):
 * count x enabled / running, computed without overflow and saturated at
 * UINT64_MAX; count itself when running >= enabled (never multiplexed; a
 * kernel's running a little past enabled is not scaled down); 0 when the
 * event never ran (running 0: nothing is known).  Pure. */
uint64_t vftr_ctr_scale(uint64_t count, uint64_t enabled, uint64_t running);

/* Reads the calling thread's counters into v (vftr_ctr_count() values);
 * 0 or -errno.  For tests and the benchmark. */
int vftr_ctr_read(struct vftr_ctr *c, uint64_t *v);

/* Appends the counter table of every thread to the log file `out` (nothing
 * when counters are off).  0 or -errno. */
int vftr_ctr_log(FILE *out);

#endif /* VFTR_CAPTURE_COUNTERS_H */
