/*
 * source_otf2.c — the OTF2 backend of source.h, through libotf2.
 *
 * The model from OTF2's definitions (tokens: otf2map.h):
 *   Location             a process; its LocationGroup is its rank (ranks
 *                        numbered by group id, threads by location id within
 *                        the group, the first location being the rank's own
 *                        process and the parent of the others);
 *   Region               a function; its group is the first Group of type
 *                        REGIONS that lists it, else one group per paradigm
 *                        (named by the Paradigm definition, or otf2map's name);
 *   Comm                 a communicator: the locations of its COMM_GROUP
 *                        members, through the paradigm's COMM_LOCATIONS group;
 *   InterComm            a communicator of both groups' members (group A's
 *                        first); a collective's root on it is a rank of the
 *                        other group, or the location itself (ROOT_SELF);
 *                        a member of the root's group that is not the root
 *                        (ROOT_THIS_GROUP) does not know it: no root;
 *   MetricMember         a counter; a Metric event gives one counter event
 *                        per member of its class (or instance);
 *   ClockProperties      the resolution and time span (times are OTF2's
 *                        timestamps, with the clock offsets of the local
 *                        definitions applied by the library).
 * Events: Enter, Leave; MpiSend and MpiIsend as a send at their time,
 * MpiRecv and MpiIrecv as a receive at theirs (completion), the peer found
 * from its rank in the communicator (or vftr's "vftr:peer" attribute);
 * MpiCollectiveBegin/End as a collective begin and end, the operation's
 * details (known only at its end) filled into the begin: events after an
 * unfinished begin wait in a queue until its end is read, so the time order
 * holds (memory: the events of all selected locations during one
 * collective).  Begin and end pair by "vftr:match" when the trace has it,
 * else as OTF2 nests them (the latest open begin of the location), the
 * matching id counting the location's ends.  File I/O (otf2map.h): an
 * IoParadigm is a file group, each (IoFile, paradigm) of an IoHandle a file
 * (its token the first such handle's id + 1; a handle without a file named
 * by itself); IoOperationBegin / Complete are a file operation's begin and
 * end (read, write, sync), IoCreateHandle, IoDestroyHandle, IoSeek,
 * IoDuplicateHandle and IoDeleteFile an operation's begin and end at one
 * time ("vftr:match", "vftr:handle" and "vftr:io_operation" where vftr
 * wrote them).  One-sided communication: RmaPut and RmaGet are an RMA
 * put and get (window.h: origin the location, target the process of the
 * remote rank in the RmaWin's communicator, comm that communicator, tag the
 * window's id), RmaAtomic a put of what it sent and a get of what it
 * received (a put when it moved nothing); the RmaOpComplete* record with
 * the operation's window and matching id (blocking, non-blocking, remote:
 * the first that comes), on any location of the same location group (the
 * process: a thread may complete another's transfer; its own location's
 * first), is the end of each.  Matching ids are the archive's per location
 * (Score-P counts on each thread), the model's per rank: rma_match makes
 * two threads' equal ids two.  Request ids (MpiIsend, MpiIrecv and their
 * request / complete records) play no part: a message is paired by its
 * communicator, peers, tag and order.
 * Every other record (OpenMP
 * fork/join, threads, locks, RMA window creation and synchronisation, the
 * other I/O records, calling-context samples, records newer than the
 * library) is passed over and counted (info.skipped).
 *
 * Window reads go forward from the trace start (OTF2 has no time index):
 * each read opens the archive afresh, selects only the locations of the
 * wanted processes, brings the state forward to a (winstate.h), delivers
 * [a, b) and stops reading at b: a window never reads past its end, and no
 * read reads an event twice.  Profiles take the event route of source.c.
 */
#include "source_impl.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "grow.h"
#include "otf2map.h"
#include "winstate.h"
#include "util/errmsg.h"
#include "util/progress.h"

/* ------------------------------------------------------------ the state */

struct o2loc {
    uint64_t id, group;
    uint32_t name;                    /* string id */
    uint32_t token;
    uint64_t nevents;
    uint32_t thread, nthreads;        /* its place in its group, the group's size */
};

struct o2lgroup {
    uint64_t id;
    uint32_t name;
};

struct o2region {
    uint32_t id, name, desc, file, line;
    uint8_t paradigm;
};

struct o2group {
    uint32_t id, name;
    uint8_t type, paradigm;
    uint32_t n;
    uint64_t *members;
};

/* A communicator as events need it: rank -> process token. */
struct o2comm {
    uint32_t id, name, group;
    uint32_t token;
    int self;                         /* COMM_SELF: the rank is the location itself */
    uint32_t n;
    uint32_t *procs;
    uint32_t group_b;                 /* an InterComm's second group, else undefined */
    uint32_t na;                      /* an InterComm: procs[0, na) are group A's */
};

struct o2iohandle {                  /* an IoHandle: the file it is */
    uint32_t id, name, file;          /* file: IoFile ref */
    uint8_t paradigm;
    uint32_t token;                   /* the model's file token */
};

struct o2class {
    uint32_t id;
    uint8_t n;
    uint32_t *members;                /* counter tokens */
};

struct o2rmawin {                     /* an RmaWin: its communicator */
    uint32_t id, comm;
};

struct otf2_impl {
    char *anchor;                     /* the .otf2 file */
    char **strings;                   /* by string id (sparse: NULL) */
    size_t nstrings;
    struct o2loc *locs;               /* sorted by id */
    size_t nlocs, caplocs;
    struct vftr_u64map locmap;        /* location id -> index */
    struct o2lgroup *lgroups;
    size_t nlgroups, caplgroups;
    struct o2region *regions;
    size_t nregions, capregions;
    struct o2group *groups;
    size_t ngroups, capgroups;
    struct o2comm *comms;             /* sorted by id */
    size_t ncomms, capcomms;
    struct o2class *classes;          /* classes and instances (as their class) */
    size_t nclasses, capclasses;
    struct { uint32_t id, name, mode; } *members;
    size_t nmembers, capmembers;
    uint32_t *member_unit;
    struct { uint32_t id, cls; } *instances;
    size_t ninstances, capinstances;
    struct { uint8_t p; uint32_t name; } *paradigms;
    size_t nparadigms, capparadigms;
    uint32_t attr_peer, attr_match;   /* OTF2_UNDEFINED_ATTRIBUTE: none */
    uint32_t attr_handle, attr_ioop;
    struct { uint8_t id; uint32_t ident, name; } *iopars;
    size_t niopars, capiopars;
    struct { uint32_t id, name; } *iofiles;
    size_t niofiles, capiofiles;
    struct o2iohandle *iohandles;
    size_t niohandles, capiohandles;
    struct vftr_u64map iohmap;        /* IoHandle id -> index */
    struct o2rmawin *wins;
    size_t nwins, capwins;
    uint64_t resolution, offset, length;
    int have_clock;
    uint64_t interval_ns;
    int error;                        /* -errno of a definition callback */
};

static struct otf2_impl *impl(const struct vftr_source *s)
{
    return s->impl;
}

static const char *str(const struct otf2_impl *o, uint32_t id)
{
    return id < o->nstrings && o->strings[id] ? o->strings[id] : NULL;
}

static void otf2_free(struct vftr_source *s)
{
    struct otf2_impl *o = impl(s);

    if (!o)
        return;
    for (size_t i = 0; i < o->nstrings; i++)
        free(o->strings[i]);
    free(o->strings);
    for (size_t i = 0; i < o->ngroups; i++)
        free(o->groups[i].members);
    for (size_t i = 0; i < o->ncomms; i++)
        free(o->comms[i].procs);
    for (size_t i = 0; i < o->nclasses; i++)
        free(o->classes[i].members);
    free(o->groups);
    free(o->comms);
    free(o->classes);
    free(o->members);
    free(o->member_unit);
    free(o->instances);
    free(o->paradigms);
    free(o->iopars);
    free(o->iofiles);
    free(o->iohandles);
    free(o->wins);
    vftr_u64map_release(&o->iohmap);
    free(o->locs);
    free(o->lgroups);
    free(o->regions);
    vftr_u64map_release(&o->locmap);
    free(o->anchor);
    free(o);
    s->impl = NULL;
}

/* ------------------------------------------------------------ definitions */

/* A definition callback's verdict: a failure stops the read. */
static OTF2_CallbackCode def_rc(struct otf2_impl *o, int rc)
{
    if (rc < 0 && o->error == 0)
        o->error = rc;
    return rc < 0 ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

#define RESERVE(o, v, n, cap) vftr_reserve((void **)&(o)->v, &(o)->cap, (o)->n, sizeof *(o)->v)

static OTF2_CallbackCode d_string(void *ud, OTF2_StringRef self, const char *string)
{
    struct otf2_impl *o = ud;
    char *copy;

    if (self >= 1u << 26)                /* a bound against hostile archives */
        return def_rc(o, -EBADMSG);
    if (self >= o->nstrings) {
        size_t n = (size_t)self + 1 > 2 * o->nstrings ? (size_t)self + 1 : 2 * o->nstrings;
        char **v = realloc(o->strings, n * sizeof *v);

        if (!v)
            return def_rc(o, -ENOMEM);
        memset(v + o->nstrings, 0, (n - o->nstrings) * sizeof *v);
        o->strings = v;
        o->nstrings = n;
    }
    copy = strdup(string ? string : "");
    if (!copy)
        return def_rc(o, -ENOMEM);
    free(o->strings[self]);
    o->strings[self] = copy;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_clock(void *ud, uint64_t resolution, uint64_t offset, uint64_t length,
                                 uint64_t realtime)
{
    struct otf2_impl *o = ud;

    (void)realtime;
    o->resolution = resolution;
    o->offset = offset;
    o->length = length;
    o->have_clock = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_lgroup(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                  OTF2_LocationGroupRef creator)
{
    struct otf2_impl *o = ud;

    (void)type, (void)parent, (void)creator;
    if (RESERVE(o, lgroups, nlgroups, caplgroups) < 0)
        return def_rc(o, -ENOMEM);
    o->lgroups[o->nlgroups].id = self;
    o->lgroups[o->nlgroups++].name = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                    OTF2_LocationType type, uint64_t nevents,
                                    OTF2_LocationGroupRef group)
{
    struct otf2_impl *o = ud;

    (void)type;
    if (RESERVE(o, locs, nlocs, caplocs) < 0)
        return def_rc(o, -ENOMEM);
    o->locs[o->nlocs++] = (struct o2loc){ self, group, name, 0, nevents, 0, 0 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                  OTF2_StringRef canonical, OTF2_StringRef desc,
                                  OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                  OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
                                  uint32_t end)
{
    struct otf2_impl *o = ud;

    (void)canonical, (void)role, (void)flags, (void)end;
    if (self == OTF2_UNDEFINED_REGION)
        return OTF2_CALLBACK_SUCCESS;
    if (RESERVE(o, regions, nregions, capregions) < 0)
        return def_rc(o, -ENOMEM);
    o->regions[o->nregions++] = (struct o2region){ self, name, desc, file, begin, paradigm };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                 OTF2_GroupType type, OTF2_Paradigm paradigm,
                                 OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    struct otf2_impl *o = ud;
    uint64_t *copy;

    (void)flags;
    if (RESERVE(o, groups, ngroups, capgroups) < 0 ||
        !(copy = malloc((n ? n : 1) * sizeof *copy)))
        return def_rc(o, -ENOMEM);
    if (n)
        memcpy(copy, members, n * sizeof *copy);
    o->groups[o->ngroups++] = (struct o2group){ self, name, type, paradigm, n, copy };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    struct otf2_impl *o = ud;

    (void)parent, (void)flags;
    if (RESERVE(o, comms, ncomms, capcomms) < 0)
        return def_rc(o, -ENOMEM);
    o->comms[o->ncomms++] = (struct o2comm){ self, name, group, self + 1u, 0, 0, NULL,
                                             OTF2_UNDEFINED_GROUP, 0 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_intercomm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                     OTF2_GroupRef a, OTF2_GroupRef b, OTF2_CommRef common,
                                     OTF2_CommFlag flags)
{
    struct otf2_impl *o = ud;

    (void)common, (void)flags;
    if (b == OTF2_UNDEFINED_GROUP)      /* not an inter-communicator after all */
        return d_comm(ud, self, name, a, OTF2_UNDEFINED_COMM, flags);
    if (RESERVE(o, comms, ncomms, capcomms) < 0)
        return def_rc(o, -ENOMEM);
    o->comms[o->ncomms++] = (struct o2comm){ self, name, a, self + 1u, 0, 0, NULL, b, 0 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_rmawin(void *ud, OTF2_RmaWinRef self, OTF2_StringRef name,
                                  OTF2_CommRef comm, OTF2_RmaWinFlag flags)
{
    struct otf2_impl *o = ud;

    (void)name, (void)flags;
    if (RESERVE(o, wins, nwins, capwins) < 0)
        return def_rc(o, -ENOMEM);
    o->wins[o->nwins++] = (struct o2rmawin){ self, comm };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_member(void *ud, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                  OTF2_StringRef desc, OTF2_MetricType type,
                                  OTF2_MetricMode mode, OTF2_Type vtype, OTF2_Base base,
                                  int64_t exponent, OTF2_StringRef unit)
{
    struct otf2_impl *o = ud;
    size_t cap = o->capmembers;

    (void)desc, (void)type, (void)vtype, (void)base, (void)exponent;
    if (RESERVE(o, members, nmembers, capmembers) < 0)
        return def_rc(o, -ENOMEM);
    if (o->capmembers != cap) {
        uint32_t *u = realloc(o->member_unit, o->capmembers * sizeof *u);

        if (!u)
            return def_rc(o, -ENOMEM);
        o->member_unit = u;
    }
    o->members[o->nmembers].id = self;
    o->members[o->nmembers].name = name;
    o->members[o->nmembers].mode = mode;
    o->member_unit[o->nmembers++] = unit;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_class(void *ud, OTF2_MetricRef self, uint8_t n,
                                 const OTF2_MetricMemberRef *members,
                                 OTF2_MetricOccurrence occurrence, OTF2_RecorderKind kind)
{
    struct otf2_impl *o = ud;
    uint32_t *m;

    (void)occurrence, (void)kind;
    if (RESERVE(o, classes, nclasses, capclasses) < 0 || !(m = malloc((n ? n : 1) * sizeof *m)))
        return def_rc(o, -ENOMEM);
    for (unsigned i = 0; i < n; i++)
        m[i] = members[i] + 1u;
    o->classes[o->nclasses++] = (struct o2class){ self, n, m };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_instance(void *ud, OTF2_MetricRef self, OTF2_MetricRef cls,
                                    OTF2_LocationRef recorder, OTF2_MetricScope scope_type,
                                    uint64_t scope)
{
    struct otf2_impl *o = ud;

    (void)recorder, (void)scope_type, (void)scope;
    if (RESERVE(o, instances, ninstances, capinstances) < 0)
        return def_rc(o, -ENOMEM);
    o->instances[o->ninstances].id = self;
    o->instances[o->ninstances++].cls = cls;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                     OTF2_StringRef desc, OTF2_Type type)
{
    struct otf2_impl *o = ud;
    const char *n = str(o, name);

    (void)desc;
    if (n && type == OTF2_TYPE_UINT64 && strcmp(n, VFTR_OTF2_ATTR_PEER) == 0)
        o->attr_peer = self;
    else if (n && type == OTF2_TYPE_UINT64 && strcmp(n, VFTR_OTF2_ATTR_MATCH) == 0)
        o->attr_match = self;
    else if (n && type == OTF2_TYPE_UINT64 && strcmp(n, VFTR_OTF2_ATTR_HANDLE) == 0)
        o->attr_handle = self;
    else if (n && type == OTF2_TYPE_UINT64 && strcmp(n, VFTR_OTF2_ATTR_IOOP) == 0)
        o->attr_ioop = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_paradigm(void *ud, OTF2_Paradigm p, OTF2_StringRef name,
                                    OTF2_ParadigmClass cls)
{
    struct otf2_impl *o = ud;

    (void)cls;
    if (RESERVE(o, paradigms, nparadigms, capparadigms) < 0)
        return def_rc(o, -ENOMEM);
    o->paradigms[o->nparadigms].p = p;
    o->paradigms[o->nparadigms++].name = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_iopar(void *ud, OTF2_IoParadigmRef self, OTF2_StringRef ident,
                                 OTF2_StringRef name, OTF2_IoParadigmClass cls,
                                 OTF2_IoParadigmFlag flags, uint8_t n,
                                 const OTF2_IoParadigmProperty *props, const OTF2_Type *types,
                                 const OTF2_AttributeValue *values)
{
    struct otf2_impl *o = ud;

    (void)cls, (void)flags, (void)n, (void)props, (void)types, (void)values;
    if (RESERVE(o, iopars, niopars, capiopars) < 0)
        return def_rc(o, -ENOMEM);
    o->iopars[o->niopars].id = self;
    o->iopars[o->niopars].ident = ident;
    o->iopars[o->niopars++].name = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_iofile(void *ud, OTF2_IoFileRef self, OTF2_StringRef name,
                                  OTF2_SystemTreeNodeRef scope)
{
    struct otf2_impl *o = ud;

    (void)scope;
    if (RESERVE(o, iofiles, niofiles, capiofiles) < 0)
        return def_rc(o, -ENOMEM);
    o->iofiles[o->niofiles].id = self;
    o->iofiles[o->niofiles++].name = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_iohandle(void *ud, OTF2_IoHandleRef self, OTF2_StringRef name,
                                    OTF2_IoFileRef file, OTF2_IoParadigmRef paradigm,
                                    OTF2_IoHandleFlag flags, OTF2_CommRef comm,
                                    OTF2_IoHandleRef parent)
{
    struct otf2_impl *o = ud;

    (void)flags, (void)comm, (void)parent;
    if (RESERVE(o, iohandles, niohandles, capiohandles) < 0)
        return def_rc(o, -ENOMEM);
    o->iohandles[o->niohandles++] = (struct o2iohandle){ self, name, file, paradigm, 0 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_lgprop(void *ud, OTF2_LocationGroupRef group, OTF2_StringRef name,
                                  OTF2_Type type, OTF2_AttributeValue value)
{
    struct otf2_impl *o = ud;
    const char *n = str(o, name);

    (void)group;
    if (n && type == OTF2_TYPE_UINT64 && strcmp(n, VFTR_OTF2_PROP_INTERVAL) == 0)
        o->interval_ns = value.uint64;
    return OTF2_CALLBACK_SUCCESS;
}

/* The callbacks of a definition read (all of them, or none: a read for
 * events only needs the library to have seen the definitions). */
static OTF2_GlobalDefReaderCallbacks *def_callbacks(int all)
{
    OTF2_GlobalDefReaderCallbacks *c = OTF2_GlobalDefReaderCallbacks_New();

    if (!c || !all)
        return c;
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(c, d_string);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(c, d_clock);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(c, d_lgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(c, d_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(c, d_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(c, d_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(c, d_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(c, d_intercomm);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(c, d_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(c, d_class);
    OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(c, d_instance);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(c, d_attribute);
    OTF2_GlobalDefReaderCallbacks_SetParadigmCallback(c, d_paradigm);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback(c, d_lgprop);
    OTF2_GlobalDefReaderCallbacks_SetIoParadigmCallback(c, d_iopar);
    OTF2_GlobalDefReaderCallbacks_SetIoRegularFileCallback(c, d_iofile);
    OTF2_GlobalDefReaderCallbacks_SetIoHandleCallback(c, d_iohandle);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(c, d_rmawin);
    return c;
}

/* Opens the archive and reads its global definitions (with the callbacks
 * into o when all).  The reader, or NULL with err. */
static OTF2_Reader *open_archive(struct otf2_impl *o, int all, char *err, size_t errlen)
{
    OTF2_Reader *r;
    OTF2_GlobalDefReader *gdr;
    OTF2_GlobalDefReaderCallbacks *cb;
    OTF2_ErrorCode ec;
    uint64_t n = 0;

    vftr_otf2_quiet();
    r = OTF2_Reader_Open(o->anchor);
    if (!r) {
        vftr_errmsg(err, errlen, -EIO, "%s: not an OTF2 archive the library can open (%s)",
                    o->anchor, vftr_otf2_reason());
        return NULL;
    }
    if ((ec = OTF2_Reader_SetSerialCollectiveCallbacks(r)) != OTF2_SUCCESS ||
        !(gdr = OTF2_Reader_GetGlobalDefReader(r)) || !(cb = def_callbacks(all))) {
        vftr_errmsg(err, errlen, -EIO, "%s: cannot read the global definitions", o->anchor);
        OTF2_Reader_Close(r);
        return NULL;
    }
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, cb, o);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    ec = OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &n);
    OTF2_Reader_CloseGlobalDefReader(r, gdr);
    if (o->error || ec != OTF2_SUCCESS) {
        if (o->error == -ENOMEM)
            vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        else
            vftr_errmsg(err, errlen, -EBADMSG, "%s: global definitions: record %llu: %s",
                        o->anchor, (unsigned long long)n + 1,
                        o->error ? "an identifier out of range" : vftr_otf2_reason());
        OTF2_Reader_Close(r);
        return NULL;
    }
    return r;
}

static int cmp_loc(const void *x, const void *y)
{
    const struct o2loc *a = x, *b = y;

    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static int cmp_lgroup(const void *x, const void *y)
{
    const struct o2lgroup *a = x, *b = y;

    return (a->id > b->id) - (a->id < b->id);
}

static const struct o2lgroup *lgroup_of(const struct otf2_impl *o, uint64_t id)
{
    size_t lo = 0, hi = o->nlgroups;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (o->lgroups[mid].id == id)
            return &o->lgroups[mid];
        if (o->lgroups[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static const struct o2group *group_of(const struct otf2_impl *o, uint32_t id)
{
    for (size_t i = 0; i < o->ngroups; i++)
        if (o->groups[i].id == id)
            return &o->groups[i];
    return NULL;
}

/* Processes: a rank per location group (in id order), its locations its
 * threads (in id order). */
static int build_procs(struct vftr_source *s, struct otf2_impl *o)
{
    int dense = 0;
    uint32_t rank = 0, thread = 0, root = 0;
    uint64_t cur = 0;
    int rc;

    if (o->nlgroups)
        qsort(o->lgroups, o->nlgroups, sizeof *o->lgroups, cmp_lgroup);
    if (o->nlocs)
        qsort(o->locs, o->nlocs, sizeof *o->locs, cmp_loc);
    for (size_t i = 0; i < o->nlocs; i++)
        if (o->locs[i].id >= UINT32_MAX)
            dense = 1;
    for (size_t i = 0; i < o->nlocs; i++) {
        struct o2loc *l = &o->locs[i];
        const struct o2lgroup *g = lgroup_of(o, l->group);
        const char *gname = g ? str(o, g->name) : NULL, *lname = str(o, l->name);
        char buf[512];
        const char *name;

        if (i == 0 || l->group != cur) {
            if (i > 0)
                rank++;
            thread = 0;
            cur = l->group;
        } else {
            thread++;
        }
        l->token = dense ? (uint32_t)i + 1 : (uint32_t)l->id + 1;
        l->thread = thread;
        if (thread == 0)
            root = l->token;
        /* the rank's own process by its group's name, threads by theirs
         * (prefixed with the group's when they do not say which rank) */
        if (thread == 0 && gname && *gname)
            name = gname;
        else if (!lname || !gname || !*gname || strncmp(lname, gname, strlen(gname)) == 0)
            name = lname ? lname : "";
        else {
            snprintf(buf, sizeof buf, "%s %s", gname, lname);
            name = buf;
        }
        if ((rc = vftr_source_add_proc(s, l->token, thread ? root : 0, rank, thread, 0, name)) < 0 ||
            (rc = vftr_u64map_put(&o->locmap, l->id, (uint32_t)i)) < 0)
            return rc;
    }
    /* each location learns its group's size (the group's last knows it) */
    for (size_t i = o->nlocs; i-- > 0;)
        o->locs[i].nthreads = i + 1 == o->nlocs || o->locs[i + 1].group != o->locs[i].group
                              ? o->locs[i].thread + 1 : o->locs[i + 1].nthreads;
    s->ranks_known = 1;
    return 0;
}

static const char *paradigm_name(const struct otf2_impl *o, uint8_t p)
{
    for (size_t i = 0; i < o->nparadigms; i++)
        if (o->paradigms[i].p == p && str(o, o->paradigms[i].name))
            return str(o, o->paradigms[i].name);
    return vftr_otf2_paradigm_name(p);
}

/* Functions and their groups. */
static int build_funcs(struct vftr_source *s, struct otf2_impl *o)
{
    uint32_t maxg = 0, *gof;
    int used[256] = { 0 };
    int rc = 0;

    gof = calloc(o->nregions ? o->nregions : 1, sizeof *gof);
    if (!gof)
        return -ENOMEM;
    for (size_t i = 0; i < o->ngroups; i++) {
        const struct o2group *g = &o->groups[i];

        if (g->id + 1u > maxg)
            maxg = g->id + 1u;
        if (g->type != OTF2_GROUP_TYPE_REGIONS)
            continue;
        if ((rc = vftr_source_add_group(s, g->id + 1u, str(o, g->name))) < 0)
            goto out;
        for (uint32_t k = 0; k < g->n; k++)
            for (size_t r = 0; r < o->nregions; r++)
                if (o->regions[r].id == g->members[k] && !gof[r])
                    gof[r] = g->id + 1u;
    }
    for (size_t r = 0; r < o->nregions; r++) {
        const struct o2region *g = &o->regions[r];
        const char *desc = str(o, g->desc), *file = str(o, g->file);

        if (!gof[r]) {                 /* one group per paradigm, after the trace's */
            gof[r] = maxg + 1u + g->paradigm;
            if (!used[g->paradigm]++ &&
                (rc = vftr_source_add_group(s, gof[r], paradigm_name(o, g->paradigm))) < 0)
                goto out;
        }
        if ((rc = vftr_source_add_func(s, g->id + 1u, gof[r],
                                       desc && strcmp(desc, VFTR_OTF2_DESC_PRECISE) == 0
                                           ? VFTR_SOURCE_FN_PRECISE : 0,
                                       str(o, g->name))) < 0)
            goto out;
        if (file && *file && (rc = vftr_source_set_func_location(s, g->id + 1u, file, g->line)) < 0)
            goto out;
    }
out:
    free(gof);
    return rc;
}

static int cmp_comm(const void *x, const void *y)
{
    const struct o2comm *a = x, *b = y;

    return (a->id > b->id) - (a->id < b->id);
}

static uint32_t loc_token(const struct otf2_impl *o, uint64_t id)
{
    long i = vftr_u64map_get(&o->locmap, id);

    return i < 0 ? 0 : o->locs[i].token;
}

/* Communicators: members through the COMM_LOCATIONS group of their
 * paradigm. */
static int build_comms(struct vftr_source *s, struct otf2_impl *o)
{
    int rc;

    if (o->ncomms)
        qsort(o->comms, o->ncomms, sizeof *o->comms, cmp_comm);
    for (size_t i = 0; i < o->ncomms; i++) {
        struct o2comm *c = &o->comms[i];
        const struct o2group *g = group_of(o, c->group), *locs = NULL;

        if (g && g->type == OTF2_GROUP_TYPE_COMM_SELF)
            c->self = 1;
        for (size_t k = 0; g && k < o->ngroups; k++)
            if (o->groups[k].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
                o->groups[k].paradigm == g->paradigm)
                locs = &o->groups[k];
        const struct o2group *gb = c->group_b != OTF2_UNDEFINED_GROUP
                                   ? group_of(o, c->group_b) : NULL;
        size_t cap = (g ? g->n : 0) + (gb ? gb->n : 0);

        c->procs = malloc((cap ? cap : 1) * sizeof *c->procs);
        if (!c->procs)
            return -ENOMEM;
        for (int half = 0; half < 2; half++) {
            const struct o2group *h = half ? gb : g;

            if (h && h->type == OTF2_GROUP_TYPE_COMM_GROUP && locs)
                for (uint32_t k = 0; k < h->n; k++)
                    c->procs[c->n++] = h->members[k] < locs->n
                                       ? loc_token(o, locs->members[h->members[k]]) : 0;
            if (!half)
                c->na = c->n;
        }
        if ((rc = vftr_source_add_comm(s, c->token, str(o, c->name), c->n, c->procs)) < 0)
            return rc;
    }
    return 0;
}

static int build_counters(struct vftr_source *s, struct otf2_impl *o)
{
    int rc;

    for (size_t i = 0; i < o->nmembers; i++)
        if ((rc = vftr_source_add_counter(s, o->members[i].id + 1u, str(o, o->members[i].name),
                                          str(o, o->member_unit[i]),
                                          vftr_otf2_counter_props(o->members[i].mode))) < 0)
            return rc;
    return 0;
}

/* The file groups (an IoParadigm each) and files (a file per IoFile and
 * paradigm of the handles, else per handle). */
static int build_files(struct vftr_source *s, struct otf2_impl *o)
{
    int rc;

    for (size_t i = 0; i < o->niopars; i++) {
        const char *ident = str(o, o->iopars[i].ident), *name = str(o, o->iopars[i].name);

        if ((rc = vftr_source_add_filegroup(s, (uint32_t)o->iopars[i].id + 1u,
                                            vftr_otf2_io_group(ident, name))) < 0)
            return rc;
    }
    for (size_t i = 0; i < o->niohandles; i++) {
        struct o2iohandle *h = &o->iohandles[i];
        const char *name = NULL;

        if (vftr_u64map_put(&o->iohmap, h->id, (uint32_t)i) < 0)
            return -ENOMEM;
        if (h->file != OTF2_UNDEFINED_IO_FILE)
            for (size_t k = 0; k < i; k++)
                if (o->iohandles[k].file == h->file && o->iohandles[k].paradigm == h->paradigm) {
                    h->token = o->iohandles[k].token;
                    break;
                }
        if (h->token)
            continue;
        for (size_t k = 0; !name && h->file != OTF2_UNDEFINED_IO_FILE && k < o->niofiles; k++)
            if (o->iofiles[k].id == h->file)
                name = str(o, o->iofiles[k].name);
        if (!name)
            name = str(o, h->name);
        h->token = h->id + 1u;
        if ((rc = vftr_source_add_file(s, h->token, h->paradigm == OTF2_UNDEFINED_IO_PARADIGM
                                                        ? 0 : (uint32_t)h->paradigm + 1u,
                                       name ? name : "")) < 0)
            return rc;
    }
    return 0;
}

static int build_collops(struct vftr_source *s)
{
    int rc;

    for (int op = 0; op <= OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE; op++)
        if ((rc = vftr_source_add_collop(s, vftr_otf2_collop_token(op),
                                         vftr_otf2_collop_name(op))) < 0)
            return rc;
    return 0;
}

/* ------------------------------------------------------------ events */

enum { Q_COUNTER = 100 };

/* An event read, waiting in the queue behind an unfinished collective. */
struct qev {
    struct vftr_vfdconv_event e;      /* e.type Q_COUNTER: e.op counter, e.match value */
    int open;                         /* a collective begin still without its end */
    uint32_t loc;                     /* location index */
};

/* An unfinished collective begin of a location. */
struct pend {
    uint32_t loc;
    uint64_t seq;                     /* the begin's place in the queue (absolute) */
    uint64_t match;                   /* from "vftr:match", 0 when not given */
};

/* A file operation begun (IoOperationBegin) and not completed. */
struct iopend {
    uint32_t loc;
    uint64_t match, otf2match, handle;
    uint32_t op;
};

/* An RMA operation issued and not completed: what its end names. */
struct rmapend {
    uint32_t loc, win;
    uint64_t match;                   /* the archive's (per location) */
    uint64_t model;                   /* the model's (unique in the rank): rma_match */
    uint32_t peer, comm;
    uint32_t proc;                    /* the process token of loc */
    unsigned ends;                    /* RMA ends its completion gives (atomic: 1 or 2) */
};

struct rd {
    struct vftr_source *s;
    struct otf2_impl *o;
    struct vftr_winstate ws;
    struct qev *q;                    /* queue q[head..n) of absolute positions base + i */
    size_t head, n, cap;
    uint64_t base;
    struct pend *pend;
    size_t npend, cappend;
    uint64_t *ends;                   /* per location: collective ends so far */
    uint64_t *ios;                    /* per location: point I/O events so far */
    struct iopend *iop;
    size_t niop, capiop;
    struct rmapend *rma;
    size_t nrma, caprma;
    uint64_t handled;
    int stop;                         /* 1: winstate said stop; <0: -errno */
    /* a direct-mapped cache in front of locmap (the events of many
     * locations interleave in time order) */
    struct { uint64_t id; uint32_t loc, token; } cache[256];
};

static OTF2_CallbackCode verdict(struct rd *r, int rc)
{
    if (rc == 0)
        return OTF2_CALLBACK_SUCCESS;
    if (r->stop == 0)
        r->stop = rc == VFTR_WINSTATE_STOP ? 1 : rc;
    return OTF2_CALLBACK_INTERRUPT;
}

static int deliver(struct rd *r, const struct vftr_vfdconv_event *e)
{
    const struct vftr_window_handler *h = r->ws.h;
    int rc;

    if (e->type != Q_COUNTER)
        return vftr_winstate_event(&r->ws, e);
    rc = vftr_winstate_gate(&r->ws, e->time, e->process);
    if (rc <= 0)
        return rc;
    return vftr_winstate_verdict(&r->ws, h->counter ? h->counter(h->arg, e->time, e->process,
                                                                e->op, e->match) : 0);
}

/* Delivers the queue's head while it holds no unfinished begin. */
static int drain(struct rd *r)
{
    while (r->head < r->n && !r->q[r->head].open) {
        int rc = deliver(r, &r->q[r->head].e);

        r->head++;
        if (rc)
            return rc;
    }
    if (r->head == r->n) {
        r->base += r->n;
        r->head = r->n = 0;
    } else if (r->head > 4096 && r->head * 2 > r->n) {
        memmove(r->q, r->q + r->head, (r->n - r->head) * sizeof *r->q);
        r->base += r->head;
        r->n -= r->head;
        r->head = 0;
    }
    return 0;
}

static int push(struct rd *r, const struct vftr_vfdconv_event *e, int open, uint32_t loc)
{
    if (vftr_reserve((void **)&r->q, &r->cap, r->n, sizeof *r->q) < 0)
        return -ENOMEM;
    r->q[r->n++] = (struct qev){ *e, open, loc };
    return 0;
}

/* An event in time order: straight through, or behind an unfinished
 * collective. */
static OTF2_CallbackCode feed(struct rd *r, const struct vftr_vfdconv_event *e)
{
    r->handled++;
    if (r->npend == 0 && r->head == r->n)
        return verdict(r, deliver(r, e));
    return verdict(r, push(r, e, 0, 0));
}

/* The location's index and process token; -1 for an unknown location
 * (passed over). */
static inline long where(struct rd *r, OTF2_LocationRef loc, uint32_t *token)
{
    unsigned slot = (unsigned)(loc ^ (loc >> 20)) & 255u;
    long i;

    if (r->cache[slot].token && r->cache[slot].id == loc) {
        *token = r->cache[slot].token;
        return r->cache[slot].loc;
    }
    i = vftr_u64map_get(&r->o->locmap, loc);
    if (i >= 0) {
        *token = r->o->locs[i].token;
        r->cache[slot].id = loc;
        r->cache[slot].loc = (uint32_t)i;
        r->cache[slot].token = *token;
    }
    return i;
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    struct rd *r = ud;
    struct vftr_vfdconv_event e = { .time = t, .type = VFTR_VFDCONV_ENTER };

    (void)al;
    if (where(r, loc, &e.process) < 0)
        return OTF2_CALLBACK_SUCCESS;
    e.function = region + 1u;
    return feed(r, &e);
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    struct rd *r = ud;
    struct vftr_vfdconv_event e = { .time = t, .type = VFTR_VFDCONV_LEAVE };

    (void)al;
    if (where(r, loc, &e.process) < 0)
        return OTF2_CALLBACK_SUCCESS;
    e.function = region + 1u;
    return feed(r, &e);
}

static const struct o2comm *comm_of(const struct otf2_impl *o, uint32_t id)
{
    size_t lo = 0, hi = o->ncomms;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (o->comms[mid].id == id)
            return &o->comms[mid];
        if (o->comms[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The process of rank `rank` of communicator comm, seen from self. */
static uint32_t peer_of(struct rd *r, OTF2_AttributeList *al, uint32_t comm, uint32_t rank,
                        uint32_t self)
{
    const struct o2comm *c = comm_of(r->o, comm);
    uint64_t v;

    if (al && r->o->attr_peer != OTF2_UNDEFINED_ATTRIBUTE &&
        OTF2_AttributeList_GetUint64(al, r->o->attr_peer, &v) == OTF2_SUCCESS)
        return loc_token(r->o, v);
    if (!c)
        return 0;
    if (c->self)
        return self;
    return rank < c->n ? c->procs[rank] : 0;
}

static OTF2_CallbackCode message(struct rd *r, uint32_t type, OTF2_LocationRef loc,
                                 OTF2_TimeStamp t, OTF2_AttributeList *al, uint32_t peer,
                                 OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    struct vftr_vfdconv_event e = { .time = t, .type = type };

    if (where(r, loc, &e.process) < 0)
        return OTF2_CALLBACK_SUCCESS;
    e.peer = peer_of(r, al, comm, peer, e.process);
    e.group = comm + 1u;
    e.tag = tag;
    e.bytes = len;
    return feed(r, &e);
}

static OTF2_CallbackCode e_send(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                                uint32_t tag, uint64_t len)
{
    return message(ud, VFTR_VFDCONV_SEND, loc, t, al, receiver, comm, tag, len);
}

static OTF2_CallbackCode e_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len, uint64_t request)
{
    (void)request;
    return message(ud, VFTR_VFDCONV_SEND, loc, t, al, receiver, comm, tag, len);
}

static OTF2_CallbackCode e_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                                uint32_t tag, uint64_t len)
{
    return message(ud, VFTR_VFDCONV_RECV, loc, t, al, sender, comm, tag, len);
}

static OTF2_CallbackCode e_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len, uint64_t request)
{
    (void)request;
    return message(ud, VFTR_VFDCONV_RECV, loc, t, al, sender, comm, tag, len);
}

/* RMA: the window's communicator (OTF2_UNDEFINED_COMM for a window the
 * trace does not define). */
static uint32_t win_comm(const struct otf2_impl *o, uint32_t win)
{
    for (size_t i = 0; i < o->nwins; i++)
        if (o->wins[i].id == win)
            return o->wins[i].comm;
    return OTF2_UNDEFINED_COMM;
}

/* The model's matching id of the RMA operation that location li numbered
 * match.  OTF2 numbers them per location (Score-P counts on each thread;
 * vftr's writer per process, on any of its locations), the model per rank
 * (window.h): the location's place in its process makes two threads'
 * equal numbers two ids, the same in every read of the archive (whichever
 * locations it selects).  Never 0 (the model's "not known"); an id too
 * large to scale stays as it is. */
static uint64_t rma_match(const struct rd *r, long li, uint64_t match)
{
    const struct o2loc *l = &r->o->locs[li];

    if (match > (UINT64_MAX - l->nthreads) / l->nthreads)
        return match;
    return match * l->nthreads + l->thread + 1;
}

/* An RMA operation: a put of `sent` bytes when put, a get of `received`
 * when get, remembered until its completion. */
static OTF2_CallbackCode rma_op(struct rd *r, OTF2_LocationRef loc, OTF2_TimeStamp t,
                                uint32_t win, uint32_t remote, int put, uint64_t sent, int get,
                                uint64_t received, uint64_t match)
{
    struct vftr_vfdconv_event e = { .time = t };
    uint32_t comm = win_comm(r->o, win);
    long li = where(r, loc, &e.process);
    OTF2_CallbackCode rc = OTF2_CALLBACK_SUCCESS;

    if (li < 0)
        return OTF2_CALLBACK_SUCCESS;
    e.match = rma_match(r, li, match);
    e.peer = comm == OTF2_UNDEFINED_COMM ? 0 : peer_of(r, NULL, comm, remote, e.process);
    e.group = comm == OTF2_UNDEFINED_COMM ? 0 : comm + 1u;
    e.tag = win;
    if (vftr_reserve((void **)&r->rma, &r->caprma, r->nrma, sizeof *r->rma) < 0)
        return verdict(r, -ENOMEM);
    r->rma[r->nrma++] = (struct rmapend){ (uint32_t)li, win, match, e.match, e.peer, e.group,
                                          e.process,
                                          (unsigned)(put != 0) + (unsigned)(get != 0) };
    if (put) {
        e.type = VFTR_VFDCONV_RMA_PUT;
        e.bytes = sent;
        rc = feed(r, &e);
    }
    if (get && rc == OTF2_CALLBACK_SUCCESS) {
        e.type = VFTR_VFDCONV_RMA_GET;
        e.bytes = received;
        rc = feed(r, &e);
    }
    return rc;
}

static OTF2_CallbackCode e_rmaput(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote,
                                  uint64_t bytes, uint64_t match)
{
    (void)al;
    return rma_op(ud, loc, t, win, remote, 1, bytes, 0, 0, match);
}

static OTF2_CallbackCode e_rmaget(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote,
                                  uint64_t bytes, uint64_t match)
{
    (void)al;
    return rma_op(ud, loc, t, win, remote, 0, 0, 1, bytes, match);
}

static OTF2_CallbackCode e_rmaatomic(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                     OTF2_AttributeList *al, OTF2_RmaWinRef win,
                                     uint32_t remote, OTF2_RmaAtomicType type, uint64_t sent,
                                     uint64_t received, uint64_t match)
{
    (void)al, (void)type;
    return rma_op(ud, loc, t, win, remote, sent > 0 || received == 0, sent, received > 0,
                  received, match);
}

/* The completion of an operation (of this location, else of its group,
 * the process; of the window and matching id; the latest such): an end for each transfer it
 * began.  Any location of the process may complete it (MPI completes a
 * process's transfers on a window whatever thread synchronises; vftr
 * numbers the matching ids per process).  A completion of nothing begun is
 * passed over. */
static OTF2_CallbackCode rma_complete(struct rd *r, OTF2_LocationRef loc, OTF2_TimeStamp t,
                                      uint32_t win, uint64_t match)
{
    struct vftr_vfdconv_event e = { .time = t, .type = VFTR_VFDCONV_RMA_END, .tag = win };
    long li = where(r, loc, &e.process);
    size_t k;
    OTF2_CallbackCode rc = OTF2_CALLBACK_SUCCESS;

    if (li < 0)
        return OTF2_CALLBACK_SUCCESS;
    /* the location's own first: another writer may number per location */
    for (k = r->nrma; k > 0; k--)
        if (r->rma[k - 1].loc == (uint32_t)li && r->rma[k - 1].win == win &&
            r->rma[k - 1].match == match)
            break;
    if (k == 0)
        for (k = r->nrma; k > 0; k--)
            if (r->o->locs[r->rma[k - 1].loc].group == r->o->locs[li].group &&
                r->rma[k - 1].win == win && r->rma[k - 1].match == match)
                break;
    if (k == 0)
        return OTF2_CALLBACK_SUCCESS;
    e.peer = r->rma[k - 1].peer;
    e.group = r->rma[k - 1].comm;
    e.root = r->rma[k - 1].proc;
    e.match = r->rma[k - 1].model;
    for (unsigned i = r->rma[k - 1].ends; i > 0 && rc == OTF2_CALLBACK_SUCCESS; i--)
        rc = feed(r, &e);
    r->rma[k - 1] = r->rma[--r->nrma];
    return rc;
}

static OTF2_CallbackCode e_rmablocking(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al, OTF2_RmaWinRef win,
                                       uint64_t match)
{
    (void)al;
    return rma_complete(ud, loc, t, win, match);
}

static OTF2_CallbackCode e_rmanonblocking(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                          OTF2_AttributeList *al, OTF2_RmaWinRef win,
                                          uint64_t match)
{
    (void)al;
    return rma_complete(ud, loc, t, win, match);
}

static OTF2_CallbackCode e_rmaremote(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                     OTF2_AttributeList *al, OTF2_RmaWinRef win, uint64_t match)
{
    (void)al;
    return rma_complete(ud, loc, t, win, match);
}

static OTF2_CallbackCode e_cbegin(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al)
{
    struct rd *r = ud;
    struct vftr_vfdconv_event e = { .time = t, .type = VFTR_VFDCONV_COLL_BEGIN };
    long li = where(r, loc, &e.process);
    uint64_t match = 0;

    if (li < 0)
        return OTF2_CALLBACK_SUCCESS;
    r->handled++;
    if (al && r->o->attr_match != OTF2_UNDEFINED_ATTRIBUTE)
        (void)OTF2_AttributeList_GetUint64(al, r->o->attr_match, &match);
    if (vftr_reserve((void **)&r->pend, &r->cappend, r->npend, sizeof *r->pend) < 0)
        return verdict(r, -ENOMEM);
    r->pend[r->npend++] = (struct pend){ (uint32_t)li, r->base + r->n, match };
    return verdict(r, push(r, &e, 1, (uint32_t)li));
}

/* A collective's root as a process token (0: none, or not known here). */
static uint32_t root_of(const struct o2comm *c, uint32_t root, uint32_t process)
{
    if (!c || root == OTF2_COLLECTIVE_ROOT_NONE || root == OTF2_COLLECTIVE_ROOT_THIS_GROUP)
        return 0;
    if (root == OTF2_COLLECTIVE_ROOT_SELF || c->self)
        return process;
    if (c->group_b != OTF2_UNDEFINED_GROUP) {       /* a rank of the other group */
        int in_a = 0;

        for (uint32_t k = 0; k < c->na && !in_a; k++)
            in_a = c->procs[k] == process;
        return in_a ? (root < c->n - c->na ? c->procs[c->na + root] : 0)
                    : (root < c->na ? c->procs[root] : 0);
    }
    return root < c->n ? c->procs[root] : 0;
}

static OTF2_CallbackCode e_cend(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                OTF2_AttributeList *al, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                uint32_t root, uint64_t sent, uint64_t received)
{
    struct rd *r = ud;
    struct vftr_vfdconv_event e = { .time = t, .type = VFTR_VFDCONV_COLL_END };
    long li = where(r, loc, &e.process);
    uint64_t match = 0;
    size_t k = r->npend;

    if (li < 0)
        return OTF2_CALLBACK_SUCCESS;
    if (al && r->o->attr_match != OTF2_UNDEFINED_ATTRIBUTE)
        (void)OTF2_AttributeList_GetUint64(al, r->o->attr_match, &match);
    /* its begin: by vftr's matching id, else the location's latest */
    while (k > 0 && !(r->pend[k - 1].loc == (uint32_t)li &&
                      (match == 0 || r->pend[k - 1].match == match)))
        k--;
    r->ends[li]++;
    e.match = match ? match : r->ends[li];
    if (k > 0) {
        struct qev *b = &r->q[r->pend[k - 1].seq - r->base];
        const struct o2comm *c = comm_of(r->o, comm);

        b->open = 0;
        b->e.op = vftr_otf2_collop_token(op);
        b->e.group = comm + 1u;
        b->e.root = root_of(c, root, e.process);
        b->e.bytes = sent;
        b->e.received = received;
        b->e.match = e.match;
        memmove(&r->pend[k - 1], &r->pend[k], (r->npend - k) * sizeof *r->pend);
        r->npend--;
        r->handled++;
        if (push(r, &e, 0, (uint32_t)li) < 0)
            return verdict(r, -ENOMEM);
        return verdict(r, drain(r));
    }
    return feed(r, &e);               /* an end without begin: as it is */
}

static OTF2_CallbackCode e_metric(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_MetricRef metric, uint8_t n,
                                  const OTF2_Type *types, const OTF2_MetricValue *values)
{
    struct rd *r = ud;
    const struct otf2_impl *o = r->o;
    const struct o2class *c = NULL;
    uint32_t process;
    OTF2_CallbackCode cc = OTF2_CALLBACK_SUCCESS;

    (void)al;
    if (where(r, loc, &process) < 0)
        return OTF2_CALLBACK_SUCCESS;
    for (size_t i = 0; i < o->ninstances; i++)
        if (o->instances[i].id == metric)
            metric = o->instances[i].cls;
    for (size_t i = 0; !c && i < o->nclasses; i++)
        if (o->classes[i].id == metric)
            c = &o->classes[i];
    if (!c)
        return OTF2_CALLBACK_SUCCESS;
    for (unsigned i = 0; i < n && i < c->n && cc == OTF2_CALLBACK_SUCCESS; i++) {
        struct vftr_vfdconv_event e = { .time = t, .type = Q_COUNTER, .process = process };

        e.op = c->members[i];
        e.match = types[i] == OTF2_TYPE_DOUBLE
                  ? (values[i].floating_point > 0 ? (uint64_t)values[i].floating_point : 0)
                  : values[i].unsigned_int;
        cc = feed(r, &e);
    }
    return cc;
}

/* ------------------------------------------------------------ file I/O */

static uint64_t attr_u64(const struct rd *r, OTF2_AttributeList *al, uint32_t attr, uint64_t dflt)
{
    uint64_t v;

    if (al && attr != OTF2_UNDEFINED_ATTRIBUTE &&
        OTF2_AttributeList_GetUint64(al, attr, &v) == OTF2_SUCCESS)
        return v;
    (void)r;
    return dflt;
}

/* The model's file of IoHandle h (0: not defined). */
static uint32_t io_file(const struct otf2_impl *o, OTF2_IoHandleRef h)
{
    long i = vftr_u64map_get(&o->iohmap, h);

    return i < 0 ? 0 : o->iohandles[i].token;
}

static OTF2_CallbackCode io_event(struct rd *r, OTF2_LocationRef loc, OTF2_TimeStamp t,
                                  uint32_t type, uint32_t file, uint32_t op, uint64_t handle,
                                  uint64_t bytes, uint64_t match)
{
    struct vftr_vfdconv_event e = { .time = t, .type = type };

    if (where(r, loc, &e.process) < 0 || file == 0)
        return OTF2_CALLBACK_SUCCESS;
    e.file = file;
    e.op = op;
    e.received = handle;
    e.bytes = bytes;
    e.match = match;
    return feed(r, &e);
}

static OTF2_CallbackCode e_iobegin(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                   OTF2_AttributeList *al, OTF2_IoHandleRef handle,
                                   OTF2_IoOperationMode mode, OTF2_IoOperationFlag flags,
                                   uint64_t bytes, uint64_t matching)
{
    struct rd *r = ud;
    uint32_t token;
    long li = where(r, loc, &token);
    uint32_t op = mode == OTF2_IO_OPERATION_MODE_READ ? 2u
                  : mode == OTF2_IO_OPERATION_MODE_WRITE ? 3u : 8u;
    struct iopend p;

    if (li < 0)
        return OTF2_CALLBACK_SUCCESS;
    op |= ((flags & OTF2_IO_OPERATION_FLAG_NON_BLOCKING) ? 64u : 0u) |
          ((flags & OTF2_IO_OPERATION_FLAG_COLLECTIVE) ? 128u : 0u);
    p = (struct iopend){ (uint32_t)li, attr_u64(r, al, r->o->attr_match, matching), matching,
                         attr_u64(r, al, r->o->attr_handle, handle),
                         (uint32_t)attr_u64(r, al, r->o->attr_ioop, op) };
    if (vftr_reserve((void **)&r->iop, &r->capiop, r->niop, sizeof *r->iop) < 0)
        return verdict(r, -ENOMEM);
    r->iop[r->niop++] = p;
    return io_event(r, loc, t, VFTR_VFDCONV_FILE_BEGIN, io_file(r->o, handle), p.op, p.handle,
                    bytes, p.match);
}

static OTF2_CallbackCode e_iocomplete(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                      OTF2_AttributeList *al, OTF2_IoHandleRef handle,
                                      uint64_t bytes, uint64_t matching)
{
    struct rd *r = ud;
    uint32_t token;
    long li = where(r, loc, &token);
    struct iopend p = { 0, matching, matching, handle, 3u };
    size_t k;

    if (li < 0)
        return OTF2_CALLBACK_SUCCESS;
    for (k = r->niop; k > 0; k--)
        if (r->iop[k - 1].loc == (uint32_t)li && r->iop[k - 1].otf2match == matching)
            break;
    if (k > 0) {
        p = r->iop[k - 1];
        r->iop[k - 1] = r->iop[--r->niop];
    }
    return io_event(r, loc, t, VFTR_VFDCONV_FILE_END, io_file(r->o, handle),
                    (uint32_t)attr_u64(r, al, r->o->attr_ioop, p.op),
                    attr_u64(r, al, r->o->attr_handle, p.handle), bytes,
                    attr_u64(r, al, r->o->attr_match, p.match));
}

/* An I/O event that is a whole operation: its begin and its end, at its
 * time (OTF2 does not say when the call began). */
static OTF2_CallbackCode io_point(struct rd *r, OTF2_LocationRef loc, OTF2_TimeStamp t,
                                  OTF2_AttributeList *al, uint32_t file, uint32_t op,
                                  uint64_t handle)
{
    uint32_t token;
    long li = where(r, loc, &token);
    uint64_t match;
    OTF2_CallbackCode cc;

    if (li < 0)
        return OTF2_CALLBACK_SUCCESS;
    r->ios[li]++;
    match = attr_u64(r, al, r->o->attr_match, (uint64_t)1 << 63 | r->ios[li]);
    op = (uint32_t)attr_u64(r, al, r->o->attr_ioop, op);
    handle = attr_u64(r, al, r->o->attr_handle, handle);
    cc = io_event(r, loc, t, VFTR_VFDCONV_FILE_BEGIN, file, op, handle, 0, match);
    if (cc != OTF2_CALLBACK_SUCCESS)
        return cc;
    return io_event(r, loc, t, VFTR_VFDCONV_FILE_END, file, op, handle, 0, match);
}

static OTF2_CallbackCode e_iocreate(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                    OTF2_AttributeList *al, OTF2_IoHandleRef handle,
                                    OTF2_IoAccessMode mode, OTF2_IoCreationFlag cflags,
                                    OTF2_IoStatusFlag sflags)
{
    struct rd *r = ud;

    (void)mode, (void)cflags, (void)sflags;
    return io_point(r, loc, t, al, io_file(r->o, handle), 0u, handle);
}

static OTF2_CallbackCode e_iodestroy(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                     OTF2_AttributeList *al, OTF2_IoHandleRef handle)
{
    struct rd *r = ud;

    return io_point(r, loc, t, al, io_file(r->o, handle), 1u, handle);
}

static OTF2_CallbackCode e_ioseek(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_IoHandleRef handle,
                                  int64_t request, OTF2_IoSeekOption whence, uint64_t result)
{
    struct rd *r = ud;

    (void)request, (void)whence, (void)result;
    return io_point(r, loc, t, al, io_file(r->o, handle), 4u, handle);
}

static OTF2_CallbackCode e_iodup(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, OTF2_IoHandleRef old,
                                 OTF2_IoHandleRef handle, OTF2_IoStatusFlag sflags)
{
    struct rd *r = ud;

    (void)old, (void)sflags;
    return io_point(r, loc, t, al, io_file(r->o, handle), 7u, handle);
}

static OTF2_CallbackCode e_iodelete(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                    OTF2_AttributeList *al, OTF2_IoParadigmRef paradigm,
                                    OTF2_IoFileRef file)
{
    struct rd *r = ud;
    uint32_t token = 0;

    /* the file of a handle of this IoFile and paradigm */
    for (size_t i = 0; !token && i < r->o->niohandles; i++)
        if (r->o->iohandles[i].file == file && r->o->iohandles[i].paradigm == paradigm)
            token = r->o->iohandles[i].token;
    return io_point(r, loc, t, al, token, 5u, 0);
}

/* Event records read between two updates of a progress line. */
#define PROGRESS_PIECE 65536

/* One read of the events of the selected locations, through winstate. */
static int read_events(struct vftr_source *s, OTF2_Reader *rdr, struct rd *r, char *err,
                       size_t errlen)
{
    struct otf2_impl *o = impl(s);
    OTF2_GlobalEvtReader *ger;
    OTF2_GlobalEvtReaderCallbacks *cb;
    OTF2_ErrorCode ec;
    uint64_t n = 0;
    bool defs;

    defs = OTF2_Reader_OpenDefFiles(rdr) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(rdr) != OTF2_SUCCESS)
        return vftr_errmsg(err, errlen, -EIO, "%s: cannot open the event files", o->anchor);
    for (size_t i = 0; i < o->nlocs; i++) {
        if (!r->ws.procs || vftr_proclist_contains(r->ws.procs, o->locs[i].token)) {
            OTF2_DefReader *dr = defs ? OTF2_Reader_GetDefReader(rdr, o->locs[i].id) : NULL;

            if (dr) {
                uint64_t nd;

                (void)OTF2_Reader_ReadAllLocalDefinitions(rdr, dr, &nd);
                OTF2_Reader_CloseDefReader(rdr, dr);
            }
            (void)OTF2_Reader_GetEvtReader(rdr, o->locs[i].id);
        }
    }
    if (defs)
        OTF2_Reader_CloseDefFiles(rdr);
    ger = OTF2_Reader_GetGlobalEvtReader(rdr);
    cb = OTF2_GlobalEvtReaderCallbacks_New();
    if (!ger || !cb) {
        OTF2_GlobalEvtReaderCallbacks_Delete(cb);
        return vftr_errmsg(err, errlen, -EIO, "%s: cannot read the events", o->anchor);
    }
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, e_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, e_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, e_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, e_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, e_cbegin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, e_cend);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, e_metric);
    OTF2_GlobalEvtReaderCallbacks_SetIoOperationBeginCallback(cb, e_iobegin);
    OTF2_GlobalEvtReaderCallbacks_SetIoOperationCompleteCallback(cb, e_iocomplete);
    OTF2_GlobalEvtReaderCallbacks_SetIoCreateHandleCallback(cb, e_iocreate);
    OTF2_GlobalEvtReaderCallbacks_SetIoDestroyHandleCallback(cb, e_iodestroy);
    OTF2_GlobalEvtReaderCallbacks_SetIoSeekCallback(cb, e_ioseek);
    OTF2_GlobalEvtReaderCallbacks_SetIoDuplicateHandleCallback(cb, e_iodup);
    OTF2_GlobalEvtReaderCallbacks_SetIoDeleteFileCallback(cb, e_iodelete);
    OTF2_GlobalEvtReaderCallbacks_SetRmaPutCallback(cb, e_rmaput);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGetCallback(cb, e_rmaget);
    OTF2_GlobalEvtReaderCallbacks_SetRmaAtomicCallback(cb, e_rmaatomic);
    OTF2_GlobalEvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, e_rmablocking);
    OTF2_GlobalEvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(cb, e_rmanonblocking);
    OTF2_GlobalEvtReaderCallbacks_SetRmaOpCompleteRemoteCallback(cb, e_rmaremote);
    OTF2_Reader_RegisterGlobalEvtCallbacks(rdr, ger, cb, r);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    if (!s->progress) {
        ec = OTF2_Reader_ReadAllGlobalEvents(rdr, ger, &n);
    } else {
        /* a profile with a progress line: the events in pieces, the line
         * advanced between them (records read of those announced) */
        s->progress->total = 0;
        for (size_t i = 0; i < o->nlocs; i++)
            if (!r->ws.procs || vftr_proclist_contains(r->ws.procs, o->locs[i].token))
                s->progress->total += o->locs[i].nevents;
        vftr_progress_update(s->progress, 0, 0, 1);
        for (;;) {
            uint64_t got = 0;

            ec = OTF2_Reader_ReadGlobalEvents(rdr, ger, PROGRESS_PIECE, &got);
            n += got;
            if (ec != OTF2_SUCCESS || r->stop || got < PROGRESS_PIECE)
                break;
            vftr_progress_update(s->progress, n, n, 0);
        }
    }
    OTF2_Reader_CloseGlobalEvtReader(rdr, ger);
    OTF2_Reader_CloseEvtFiles(rdr);
    s->info.skipped = n > r->handled ? n - r->handled : 0;
    if (r->stop < 0)
        return r->stop == -ENOMEM ? vftr_errmsg(err, errlen, -ENOMEM, "out of memory") : r->stop;
    if (r->stop == 0 && ec != OTF2_SUCCESS)
        return vftr_errmsg(err, errlen, -EBADMSG, "%s: events: record %llu: %s", o->anchor,
                           (unsigned long long)n + 1, vftr_otf2_reason());
    if (r->stop == 0) {
        /* the end: begins whose end never came go out as they are */
        for (size_t i = r->head; i < r->n; i++)
            r->q[i].open = 0;
        r->npend = 0;
        if (drain(r) != 0)
            return r->ws.hrc;
    }
    return r->stop ? r->ws.hrc : vftr_winstate_finish(&r->ws);
}

static int otf2_read(struct vftr_source *s, uint64_t a, uint64_t b,
                     const struct vftr_proclist *procs, unsigned flags,
                     const struct vftr_window_handler *h, struct vftr_window_stats *st, char *err,
                     size_t errlen)
{
    struct otf2_impl *o = impl(s);
    struct rd r = { .s = s, .o = o };
    OTF2_Reader *rdr;
    size_t selected = 0;
    int rc;

    *st = (struct vftr_window_stats){ 0 };
    vftr_winstate_init(&r.ws, h, procs, a, b, !(flags & VFTR_SOURCE_EVENTS_ONLY), st);
    r.ws.rank_of = vftr_source_peer_ranks(s);       /* OTF2's peers are ranks */
    r.ws.rank_arg = s;
    r.ends = calloc(o->nlocs ? o->nlocs : 1, sizeof *r.ends);
    r.ios = calloc(o->nlocs ? o->nlocs : 1, sizeof *r.ios);
    if (!r.ends || !r.ios) {
        free(r.ends);
        free(r.ios);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    rdr = open_archive(o, 0, err, errlen);
    if (!rdr) {
        free(r.ends);
        free(r.ios);
        return -EIO;
    }
    for (size_t i = 0; i < o->nlocs; i++)
        if (!procs || vftr_proclist_contains(procs, o->locs[i].token)) {
            if (OTF2_Reader_SelectLocation(rdr, o->locs[i].id) != OTF2_SUCCESS) {
                rc = vftr_errmsg(err, errlen, -EIO, "%s: cannot select location %llu", o->anchor,
                                 (unsigned long long)o->locs[i].id);
                goto out;
            }
            selected++;
        }
    if (selected == 0) {
        rc = procs ? vftr_errmsg(err, errlen, -ENOENT, "none of the selected processes is in "
                                 "the trace") : vftr_winstate_finish(&r.ws);
        goto out;
    }
    rc = read_events(s, rdr, &r, err, errlen);
out:
    OTF2_Reader_Close(rdr);
    vftr_winstate_release(&r.ws);
    free(r.q);
    free(r.pend);
    free(r.ends);
    free(r.ios);
    free(r.iop);
    free(r.rma);
    return rc;
}

static const struct vftr_source_ops otf2_ops = { otf2_free, otf2_read, NULL, NULL };

/* ------------------------------------------------------------ open */

/* The anchor file: the operand itself, or the one *.otf2 file of a
 * directory (traces.otf2 when there are several). */
static char *find_anchor(const char *operand, char *err, size_t errlen)
{
    struct stat sb;
    char *path;

    if (stat(operand, &sb) != 0) {
        vftr_errmsg(err, errlen, -ENOENT, "%s: %s", operand, strerror(errno));
        errno = ENOENT;
        return NULL;
    }
    if (!S_ISDIR(sb.st_mode))
        return strdup(operand);
    if (asprintf(&path, "%s/traces.otf2", operand) < 0)
        return NULL;
    if (stat(path, &sb) == 0)
        return path;
    free(path);
    {
        /* the directory's one anchor file */
        DIR *d = opendir(operand);
        struct dirent *e;
        char *found = NULL;
        int many = 0;

        while (d && (e = readdir(d)) != NULL) {
            size_t l = strlen(e->d_name);

            if (l > 5 && strcmp(e->d_name + l - 5, ".otf2") == 0) {
                many += found != NULL;
                free(found);
                if (asprintf(&found, "%s/%s", operand, e->d_name) < 0)
                    found = NULL;
            }
        }
        if (d)
            closedir(d);
        if (many) {
            vftr_errmsg(err, errlen, -EINVAL, "%s: several OTF2 anchor files (name one)", operand);
            free(found);
            errno = EINVAL;
            return NULL;
        }
        return found;
    }
}

int vftr_source_open_otf2(struct vftr_source *s, const char *operand, char *err, size_t errlen)
{
    struct otf2_impl *o = calloc(1, sizeof *o);
    OTF2_Reader *r;
    int rc;

    if (!o)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    s->impl = o;
    s->ops = &otf2_ops;
    s->info.kind = VFTR_SOURCE_OTF2;
    o->attr_peer = o->attr_match = OTF2_UNDEFINED_ATTRIBUTE;
    o->attr_handle = o->attr_ioop = OTF2_UNDEFINED_ATTRIBUTE;
    if (err && errlen)
        err[0] = '\0';
    o->anchor = find_anchor(operand, err, errlen);
    if (!o->anchor)
        return err && err[0] ? -errno : vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    r = open_archive(o, 1, err, errlen);
    if (!r)
        return o->error == -ENOMEM ? -ENOMEM : o->error ? -EBADMSG : -EIO;
    OTF2_Reader_Close(r);
    if ((rc = build_procs(s, o)) < 0 || (rc = build_funcs(s, o)) < 0 ||
        (rc = build_comms(s, o)) < 0 || (rc = build_counters(s, o)) < 0 ||
        (rc = build_collops(s)) < 0 || (rc = build_files(s, o)) < 0)
        return vftr_errmsg(err, errlen, rc, "out of memory");
    s->info.resolution = o->resolution;
    s->info.first = o->offset;
    s->info.last = o->offset + o->length;
    s->info.have_events = o->have_clock && o->length > 0;
    for (size_t i = 0; i < o->nlocs; i++)
        if (o->locs[i].nevents)
            s->info.have_events = 1;
    if (o->interval_ns && o->resolution)
        s->info.sample_interval = (double)o->interval_ns * 1e-9;
    s->info.nfiles = 1;
    return 0;
}
