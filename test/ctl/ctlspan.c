/*
 * ctlspan — a .vfd check for the external-control tests: reads the trace
 * through lib/vfd's reader and prints
 *   spans N            PAUSE ... RESUME spans seen (over all threads)
 *   in_pause N         ENTER/EXIT/SAMPLE events between a PAUSE and the
 *                      next RESUME of the same thread (must be 0)
 *   max_gap_ms X       the longest time between two consecutive events of
 *                      one thread, in milliseconds (ticks_per_second of
 *                      the header)
 * Exit status: 0 read, 1 unreadable, 2 usage.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "vfd/vftr_vfd.h"

#define MAXT 256

int main(int argc, char **argv)
{
    struct vftr_vfd_reader *r;
    const struct vftr_vfd_info *info;
    struct vftr_vfd_record rec;
    char err[512] = "";
    bool paused[MAXT] = { false };
    uint64_t last[MAXT] = { 0 }, gap = 0, spans = 0, inside = 0;
    int rc;

    if (argc != 2) {
        fprintf(stderr, "usage: ctlspan FILE.vfd\n");
        return 2;
    }
    if ((r = vftr_vfd_reader_open_msg(argv[1], err, sizeof err)) == NULL) {
        fprintf(stderr, "ctlspan: %s\n", err);
        return 1;
    }
    info = vftr_vfd_reader_info(r);
    while ((rc = vftr_vfd_reader_next(r, &rec)) != 0) {
        uint32_t t;

        if (rc < 0)
            break;
        if (rec.type != VFTR_VFD_REC_EVENT)
            continue;
        t = rec.thread % MAXT;
        if (last[t] && rec.u.event.time - last[t] > gap)
            gap = rec.u.event.time - last[t];
        last[t] = rec.u.event.time;
        switch (rec.u.event.kind) {
        case VFTR_VFD_PAUSE: paused[t] = true; break;
        case VFTR_VFD_RESUME:
            if (paused[t])
                spans++;
            paused[t] = false;
            break;
        case VFTR_VFD_ENTER:
        case VFTR_VFD_EXIT:
        case VFTR_VFD_SAMPLE:
            if (paused[t])
                inside++;
            break;
        default: break;
        }
    }
    printf("spans %" PRIu64 "\nin_pause %" PRIu64 "\nmax_gap_ms %.1f\n", spans, inside,
           info->ticks_per_second ? (double)gap * 1e3 / (double)info->ticks_per_second : 0.0);
    vftr_vfd_reader_close(r);
    return 0;
}
