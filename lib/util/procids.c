/*
 * procids.c — the tools' one rule for numbering processes when a trace does
 * not say (tracesel.h: vftr_procids_number).  In a file of its own so that
 * the trace source links it without the OTF reading of tracesel.c (the
 * capture library reads .vfd files through the source and links no OTF).
 */
#include <errno.h>
#include <stdlib.h>

#include "tracesel.h"

static int cmp_procid_token(const void *a, const void *b)
{
    const struct vftr_procid *x = *(const struct vftr_procid *const *)a;
    const struct vftr_procid *y = *(const struct vftr_procid *const *)b;

    return x->token < y->token ? -1 : x->token > y->token;
}

int vftr_procids_number(struct vftr_procid *ids, const uint32_t *parents, size_t n)
{
    struct vftr_procid **order = malloc((n ? n : 1) * sizeof *order);
    size_t *root = malloc((n ? n : 1) * sizeof *root);
    uint32_t *nthreads = calloc(n ? n : 1, sizeof *nthreads);
    uint32_t nranks = 0;

    if (!order || !root || !nthreads) {
        free(order);
        free(root);
        free(nthreads);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = &ids[i];
    qsort(order, n, sizeof *order, cmp_procid_token);
    /* the outermost ancestor of each process (a chain that loops or leaves
     * the set ends where it does; at most n steps) */
    for (size_t i = 0; i < n; i++) {
        size_t cur = i;

        for (size_t steps = 0; steps < n && parents[cur] && parents[cur] != ids[cur].token;
             steps++) {
            size_t next = n;

            for (size_t j = 0; j < n; j++)
                if (ids[j].token == parents[cur]) {
                    next = j;
                    break;
                }
            if (next == n)
                break;
            cur = next;
        }
        root[i] = cur;
    }
    for (size_t k = 0; k < n; k++) {
        size_t i = (size_t)(order[k] - ids);

        if (root[i] == i) {
            ids[i].rank = nranks++;
            ids[i].thread = 0;
        }
    }
    for (size_t k = 0; k < n; k++) {
        size_t i = (size_t)(order[k] - ids);

        if (root[i] != i) {
            ids[i].rank = ids[root[i]].rank;
            ids[i].thread = ++nthreads[root[i]];
        }
    }
    free(order);
    free(root);
    free(nthreads);
    return 0;
}
