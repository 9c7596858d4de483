/*
 * papi.c — the PAPI backend of capture's counters (vftr_papi.h), built
 * when the build finds PAPI (capture/papi/module.mk).
 *
 * Why one event set per thread, read whole: PAPI_read of a set is one call
 * whatever its size (its perf_event component reads a group with one
 * read(2)); PAPI counts per thread once PAPI_thread_init has told it how to
 * tell threads apart.  Why multiplexing only on demand: a multiplexed set
 * puts each event on a descriptor of its own (one read(2) each), and it is
 * needed only when the events do not fit the machine's counters together.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <papi.h>

#include "capture.h"
#include "papi/vftr_papi.h"

#define MAXE 16

struct vftr_papi {
    int set;
    unsigned n;                 /* names asked for */
    unsigned nadded;
    uint8_t idx[MAXE];          /* name index of each event of the set, in set order */
    bool multiplexed;
};

static VFTR_NI unsigned long thread_id(void)
{
    return (unsigned long)pthread_self();
}

VFTR_NI bool vftr_papi_built(void)
{
    return true;
}

/* PAPI's message for rc, after "PAPI: ". */
static VFTR_NI void say(char *why, size_t len, const char *what, int rc)
{
    const char *s = PAPI_strerror(rc);

    size_t at;

    snprintf(why, len, "PAPI: %s%s", what, what[0] ? ": " : "");
    at = strlen(why);
    snprintf(why + at, len - at, "%s", s ? s : "error");
    /* vftr's messages are lower-case; PAPI's start with a capital */
    if (at < len && why[at] >= 'A' && why[at] <= 'Z')
        why[at] = (char)(why[at] - 'A' + 'a');
}

VFTR_NI int vftr_papi_init(char *why, size_t len)
{
    int rc = PAPI_library_init(PAPI_VER_CURRENT);

    if (rc != PAPI_VER_CURRENT) {
        if (rc > 0)
            snprintf(why, len, "PAPI: library version %d.%d, vftr was built with %d.%d",
                     PAPI_VERSION_MAJOR(rc), PAPI_VERSION_MINOR(rc),
                     PAPI_VERSION_MAJOR(PAPI_VER_CURRENT), PAPI_VERSION_MINOR(PAPI_VER_CURRENT));
        else
            say(why, len, "initialization", rc);
        return -EOPNOTSUPP;
    }
    if ((rc = PAPI_thread_init(thread_id)) != PAPI_OK) {
        say(why, len, "PAPI_thread_init", rc);
        return -EOPNOTSUPP;
    }
    /* without it a set that does not fit stays unavailable (see add) */
    (void)PAPI_multiplex_init();
    return 0;
}

/* Adds code to set s; a set the machine cannot count at once becomes a
 * multiplexed one (PAPI scales its counts by enabled / running). */
static VFTR_NI int add(struct vftr_papi *p, int code)
{
    int rc = PAPI_add_event(p->set, code);

    if (rc == PAPI_ECNFLCT && !p->multiplexed && PAPI_set_multiplex(p->set) == PAPI_OK) {
        p->multiplexed = true;
        rc = PAPI_add_event(p->set, code);
    }
    return rc;
}

static VFTR_NI int code_of(const char *name, size_t len, int *code)
{
    char buf[PAPI_MAX_STR_LEN];

    if (len == 0 || len >= sizeof buf)
        return PAPI_ENOEVNT;
    memcpy(buf, name, len);
    buf[len] = '\0';
    return PAPI_event_name_to_code(buf, code);
}

VFTR_NI int vftr_papi_probe(const char *name, size_t len, char *unit, size_t unitlen,
                            char *why, size_t whylen)
{
    PAPI_event_info_t info;
    struct vftr_papi p = { .set = PAPI_NULL };
    long long v[1];
    int code, rc;

    if (unitlen)
        unit[0] = '\0';
    if (code_of(name, len, &code) != PAPI_OK)
        return -ENOENT;
    if (unitlen && PAPI_get_event_info(code, &info) == PAPI_OK)
        snprintf(unit, unitlen, "%s", info.units);
    if ((rc = PAPI_create_eventset(&p.set)) != PAPI_OK) {
        say(why, whylen, "PAPI_create_eventset", rc);
        return -EOPNOTSUPP;
    }
    if ((rc = add(&p, code)) == PAPI_OK && (rc = PAPI_start(p.set)) == PAPI_OK) {
        rc = PAPI_read(p.set, v);
        (void)PAPI_stop(p.set, v);
    }
    if (rc != PAPI_OK)
        say(why, whylen, "", rc);
    (void)PAPI_cleanup_eventset(p.set);
    (void)PAPI_destroy_eventset(&p.set);
    return rc == PAPI_OK ? 0 : -EOPNOTSUPP;
}

VFTR_NI struct vftr_papi *vftr_papi_thread_new(const char *const *names, unsigned n,
                                               bool multiplex)
{
    struct vftr_papi *p = calloc(1, sizeof *p);

    if (p == NULL)
        return NULL;
    p->set = PAPI_NULL;
    p->n = n < MAXE ? n : MAXE;
    (void)PAPI_register_thread();
    if (PAPI_create_eventset(&p->set) != PAPI_OK)
        goto fail;
    for (unsigned i = 0; i < p->n; i++) {
        int code;

        if (code_of(names[i], strlen(names[i]), &code) != PAPI_OK || add(p, code) != PAPI_OK)
            continue;   /* said at setup for the process; this thread counts 0 */
        p->idx[p->nadded++] = (uint8_t)i;
        /* a multiplexed set must have an event before it can be made one */
        if (multiplex && !p->multiplexed && PAPI_set_multiplex(p->set) == PAPI_OK)
            p->multiplexed = true;
    }
    if (p->nadded == 0 || PAPI_start(p->set) != PAPI_OK)
        goto fail;
    return p;
fail:
    if (p->set != PAPI_NULL) {
        (void)PAPI_cleanup_eventset(p->set);
        (void)PAPI_destroy_eventset(&p->set);
    }
    (void)PAPI_unregister_thread();
    free(p);
    errno = EOPNOTSUPP;
    return NULL;
}

VFTR_NI int vftr_papi_read(struct vftr_papi *p, uint64_t *v)
{
    long long x[MAXE];

    if (PAPI_read(p->set, x) != PAPI_OK)
        return -EIO;
    for (unsigned i = 0; i < p->n; i++)
        v[i] = 0;
    for (unsigned k = 0; k < p->nadded; k++)
        v[p->idx[k]] = x[k] < 0 ? 0 : (uint64_t)x[k];
    return 0;
}

VFTR_NI bool vftr_papi_multiplexed(const struct vftr_papi *p)
{
    return p && p->multiplexed;
}

VFTR_NI void vftr_papi_thread_free(struct vftr_papi *p)
{
    long long x[MAXE];

    if (p == NULL)
        return;
    (void)PAPI_stop(p->set, x);
    (void)PAPI_cleanup_eventset(p->set);
    (void)PAPI_destroy_eventset(&p->set);
    (void)PAPI_unregister_thread();
    free(p);
}
