/*
 * vftr_papi.h — the PAPI backend of capture's counters (counters.h).
 *
 * Counters whose names capture's own table (perf's names, read through
 * perf_event_open) does not have are PAPI's: presets (PAPI_TOT_CYC) and
 * native events (perf::TASK-CLOCK).  Built from capture/papi/papi.c when
 * the build finds PAPI (capture/papi/module.mk), from capture/papi/stub.c
 * otherwise: the stub knows no name, and says that vftr was built without
 * PAPI.
 *
 * A thread's PAPI counters are one event set, started when the thread
 * opens its counters and read whole at each boundary.  When the machine
 * cannot count them all at once (PAPI_ECNFLCT), the set is made a
 * multiplexed one, which PAPI scales by the time each event was enabled
 * and running, as the perf_event_open backend does for its groups.
 *
 * Threads: vftr_papi_init once, before any other call (it calls
 * PAPI_thread_init); a thread's set is made, read and freed by that thread
 * only.  Errors are 0 / -errno; the words for a user go into why.
 */
#ifndef VFTR_CAPTURE_PAPI_H
#define VFTR_CAPTURE_PAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vftr_papi;

/* Whether this build has the PAPI backend. */
bool vftr_papi_built(void);

/* Initializes PAPI for threads (library, PAPI_thread_init, multiplexing);
 * once, on the initializing thread.  0, or -EOPNOTSUPP with the cause in
 * why (PAPI not built, or its initialization failed: every PAPI counter is
 * then unavailable). */
int vftr_papi_init(char *why, size_t len);

/* Whether PAPI knows the event name (len bytes of name): 0 when it counts
 * on this thread (added to a set, started and read), -ENOENT when PAPI
 * does not know the name, -EOPNOTSUPP when it knows it but cannot count it
 * here (cause in why).  unit gets the event's unit ("" when PAPI has none).
 * After vftr_papi_init. */
int vftr_papi_probe(const char *name, size_t len, char *unit, size_t unitlen, char *why,
                    size_t whylen);

/* The calling thread's event set of the n names (each probed), started.
 * multiplex: multiplexed from the start (tests; otherwise only when the
 * events do not fit together).  An event that cannot be added reads 0.
 * NULL (errno set) when none could be added. */
struct vftr_papi *vftr_papi_thread_new(const char *const *names, unsigned n, bool multiplex);

/* Reads the set into v[0..n-1] (the order of the names).  0 or -errno. */
int vftr_papi_read(struct vftr_papi *p, uint64_t *v);

/* Whether the set is multiplexed. */
bool vftr_papi_multiplexed(const struct vftr_papi *p);

/* Stops and frees the set and the thread's PAPI state; by the thread that
 * made it.  NULL-safe. */
void vftr_papi_thread_free(struct vftr_papi *p);

#endif /* VFTR_CAPTURE_PAPI_H */
