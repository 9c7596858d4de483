/* snap_otf.c — see snap_otf.h. */
#include <errno.h>

#include "snap_otf.h"

int vftr_snap_write_wstream(OTF_WStream *w, const struct vftr_snaprec *r)
{
    int ok = 0;
    const uint64_t *v = r->v;

    switch (r->kind) {
    case VFTR_SNAPREC_ENTER:
        ok = OTF_WStream_writeEnterSnapshot(w, r->time, r->orig, r->id, r->process, r->a);
        break;
    case VFTR_SNAPREC_SEND:
        ok = OTF_WStream_writeSendSnapshot(w, r->time, r->orig, r->process, r->id, r->a, r->b,
                                          (uint32_t)v[0], 0);
        break;
    case VFTR_SNAPREC_OPENFILE:
        ok = OTF_WStream_writeOpenFileSnapshot(w, r->time, r->orig, r->id, r->process, v[0], 0);
        break;
    case VFTR_SNAPREC_BEGINCOLLOP:
        ok = OTF_WStream_writeBeginCollopSnapshot(w, r->time, r->orig, r->process, r->id, v[0], r->a,
                                                 r->b, v[1], v[2], 0);
        break;
    case VFTR_SNAPREC_BEGINFILEOP:
        ok = OTF_WStream_writeBeginFileOpSnapshot(w, r->time, r->orig, r->process, v[0], 0);
        break;
    case VFTR_SNAPREC_COLLOPCOUNT:
        ok = OTF_WStream_writeCollopCountSnapshot(w, r->time, r->process, r->id, v[0], NULL);
        break;
    case VFTR_SNAPREC_COUNTER:
        ok = OTF_WStream_writeCounterSnapshot(w, r->time, r->orig, r->process, r->id, v[0], NULL);
        break;
    case VFTR_SNAPREC_FUNCTION:
        ok = OTF_WStream_writeFunctionSummary(w, r->time, r->id, r->process, v[0], v[1], v[2]);
        break;
    case VFTR_SNAPREC_FUNCGROUP:
        ok = OTF_WStream_writeFunctionGroupSummary(w, r->time, r->id, r->process, v[0], v[1], v[2]);
        break;
    case VFTR_SNAPREC_MESSAGE:
        ok = OTF_WStream_writeMessageSummary(w, r->time, r->process, r->id, r->a, r->b, v[0], v[1],
                                            v[2], v[3]);
        break;
    case VFTR_SNAPREC_COLLOP:
        ok = OTF_WStream_writeCollopSummary(w, r->time, r->process, r->a, r->id, v[0], v[1], v[2],
                                           v[3]);
        break;
    case VFTR_SNAPREC_FILEOP:
        ok = OTF_WStream_writeFileOperationSummary(w, r->time, r->id, r->process, v[0], v[1], v[2],
                                                  v[3], v[4], v[5], v[6]);
        break;
    case VFTR_SNAPREC_FILEGROUP:
        ok = OTF_WStream_writeFileGroupOperationSummary(w, r->time, r->id, r->process, v[0], v[1],
                                                       v[2], v[3], v[4], v[5], v[6]);
        break;
    default:
        return -EINVAL;
    }
    return ok ? 0 : -EIO;
}

int vftr_snap_write_otf(OTF_Writer *w, const struct vftr_snaprec *r)
{
    OTF_WStream *ws = OTF_Writer_getStream(w, OTF_Writer_mapProcess(w, r->process));

    return ws ? vftr_snap_write_wstream(ws, r) : -EIO;
}

int vftr_snap_write_points(OTF_WStream *def, uint64_t first, uint64_t last,
                           const uint64_t *breaks, size_t n, unsigned flags)
{
    int ok = OTF_WStream_writeDefTimeRange(def, first, last, NULL);

    for (size_t i = 0; ok && i < n; i++) {
        if (flags & VFTR_SNAP_SUMMARIES)
            ok = OTF_WStream_writeDefAuxSamplePoint(def, breaks[i], OTF_AUX_SAMPLE_POINT_SUMMARY,
                                                    NULL);
        if (ok && (flags & VFTR_SNAP_SNAPSHOTS) && breaks[i] <= last)
            ok = OTF_WStream_writeDefAuxSamplePoint(def, breaks[i], OTF_AUX_SAMPLE_POINT_SNAPSHOT,
                                                    NULL);
    }
    return ok ? 0 : -EIO;
}

int vftr_snap_otf_sink(void *writer, const struct vftr_snaprec *r)
{
    return vftr_snap_write_otf(writer, r);
}
