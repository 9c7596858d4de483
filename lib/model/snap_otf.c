/* snap_otf.c — see snap_otf.h. */
#include <errno.h>

#include "snap_otf.h"

int vftr_snap_write_otf(OTF_Writer *w, const struct vftr_snaprec *r)
{
    int ok = 0;
    const uint64_t *v = r->v;

    switch (r->kind) {
    case VFTR_SNAPREC_ENTER:
        ok = OTF_Writer_writeEnterSnapshot(w, r->time, r->orig, r->id, r->process, 0);
        break;
    case VFTR_SNAPREC_SEND:
        ok = OTF_Writer_writeSendSnapshot(w, r->time, r->orig, r->process, r->id, r->a, r->b,
                                          (uint32_t)v[0], 0);
        break;
    case VFTR_SNAPREC_OPENFILE:
        ok = OTF_Writer_writeOpenFileSnapshot(w, r->time, r->orig, r->id, r->process, v[0], 0);
        break;
    case VFTR_SNAPREC_BEGINCOLLOP:
        ok = OTF_Writer_writeBeginCollopSnapshot(w, r->time, r->orig, r->process, r->id, v[0], r->a,
                                                 r->b, v[1], v[2], 0);
        break;
    case VFTR_SNAPREC_BEGINFILEOP:
        ok = OTF_Writer_writeBeginFileOpSnapshot(w, r->time, r->orig, r->process, v[0], 0);
        break;
    case VFTR_SNAPREC_COLLOPCOUNT:
        ok = OTF_Writer_writeCollopCountSnapshot(w, r->time, r->process, r->id, v[0], NULL);
        break;
    case VFTR_SNAPREC_COUNTER:
        ok = OTF_Writer_writeCounterSnapshot(w, r->time, r->orig, r->process, r->id, v[0], NULL);
        break;
    case VFTR_SNAPREC_FUNCTION:
        ok = OTF_Writer_writeFunctionSummary(w, r->time, r->id, r->process, v[0], v[1], v[2]);
        break;
    case VFTR_SNAPREC_FUNCGROUP:
        ok = OTF_Writer_writeFunctionGroupSummary(w, r->time, r->id, r->process, v[0], v[1], v[2]);
        break;
    case VFTR_SNAPREC_MESSAGE:
        ok = OTF_Writer_writeMessageSummary(w, r->time, r->process, r->id, r->a, r->b, v[0], v[1],
                                            v[2], v[3]);
        break;
    case VFTR_SNAPREC_COLLOP:
        ok = OTF_Writer_writeCollopSummary(w, r->time, r->process, r->a, r->id, v[0], v[1], v[2],
                                           v[3]);
        break;
    case VFTR_SNAPREC_FILEOP:
        ok = OTF_Writer_writeFileOperationSummary(w, r->time, r->id, r->process, v[0], v[1], v[2],
                                                  v[3], v[4], v[5], v[6]);
        break;
    case VFTR_SNAPREC_FILEGROUP:
        ok = OTF_Writer_writeFileGroupOperationSummary(w, r->time, r->id, r->process, v[0], v[1],
                                                       v[2], v[3], v[4], v[5], v[6]);
        break;
    default:
        return -EINVAL;
    }
    return ok ? 0 : -EIO;
}

int vftr_snap_otf_sink(void *writer, const struct vftr_snaprec *r)
{
    return vftr_snap_write_otf(writer, r);
}
