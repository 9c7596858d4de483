/*
 * otf_read_all — reads an OTF trace through the OTF 1.12.5 reader API with a
 * handler for every record type (and OTF_UNKNOWN_RECORD) and prints one
 * canonical line per record, then a count per record type and a total.
 *
 * Built against the reference OTF and against vftr; the compat scripts
 * compare the dumps of the two builds.  Line format:
 *
 *   <Record> [stream=S] [time=T process=P] field=value ... kv=[key:type:value,...]
 *
 * numbers in decimal, strings quoted (bytes outside printable ASCII and the
 * characters " and \ as \xNN), arrays as [a,b,...], floats with 9 and
 * doubles with 17 significant digits, byte arrays in hex.
 *
 * Usage: otf_read_all [options] STUB
 *   --defs --events --snaps --stats --markers   read only these (default all)
 *   --window A:B      OTF_Reader_setTimeInterval(A, B) (decimal or 0x hex)
 *   --disable P,...   OTF_Reader_setProcessStatus(P, 0)
 *   --limit N         OTF_Reader_setRecordLimit(N): read in chunks of N; the
 *                     trace is read once more without limit first, and the
 *                     chunks must add up to that read (returned and handled)
 *   --unsorted        readEventsUnsorted / readSnapshotsUnsorted / ...
 *   --rstream ID      read stream ID through OTF_RStream instead
 *   --no-master       do not print the master control table
 *
 * Exit status: 0 ok, 1 when a read call returns OTF_READ_ERROR or a check
 * fails (message on stderr), 2 usage.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf.h>

struct state {
    FILE *out;
    uint64_t count[OTF_NRECORDS];
    uint64_t calls;               /* handler calls since the last reset */
};

static const char *const record_name[OTF_NRECORDS] = {
    [OTF_EVENTCOMMENT_RECORD] = "EventComment",
    [OTF_COUNTER_RECORD] = "Counter",
    [OTF_ENTER_RECORD] = "Enter",
    [OTF_COLLOP_RECORD] = "CollectiveOperation",
    [OTF_RECEIVE_RECORD] = "RecvMsg",
    [OTF_SEND_RECORD] = "SendMsg",
    [OTF_LEAVE_RECORD] = "Leave",
    [OTF_DEFTIMERRESOLUTION_RECORD] = "DefTimerResolution",
    [OTF_DEFPROCESS_RECORD] = "DefProcess",
    [OTF_DEFPROCESSGROUP_RECORD] = "DefProcessGroup",
    [OTF_DEFFUNCTION_RECORD] = "DefFunction",
    [OTF_DEFFUNCTIONGROUP_RECORD] = "DefFunctionGroup",
    [OTF_DEFCOUNTER_RECORD] = "DefCounter",
    [OTF_DEFCOUNTERGROUP_RECORD] = "DefCounterGroup",
    [OTF_DEFCOLLOP_RECORD] = "DefCollectiveOperation",
    [OTF_DEFSCL_RECORD] = "DefScl",
    [OTF_DEFSCLFILE_RECORD] = "DefSclFile",
    [OTF_DEFVERSION_RECORD] = "DefVersion",
    [OTF_DEFCREATOR_RECORD] = "DefCreator",
    [OTF_DEFFILE_RECORD] = "DefFile",
    [OTF_DEFFILEGROUP_RECORD] = "DefFileGroup",
    [OTF_FUNCTIONSUMMARY_RECORD] = "FunctionSummary",
    [OTF_FUNCTIONGROUPSUMMARY_RECORD] = "FunctionGroupSummary",
    [OTF_MESSAGESUMMARY_RECORD] = "MessageSummary",
    [OTF_FILEOPERATIONSUMMARY_RECORD] = "FileOperationSummary",
    [OTF_FILEGROUPOPERATIONSUMMARY_RECORD] = "FileGroupOperationSummary",
    [OTF_DEFINITIONCOMMENT_RECORD] = "DefinitionComment",
    [OTF_BEGINPROCESS_RECORD] = "BeginProcess",
    [OTF_ENDPROCESS_RECORD] = "EndProcess",
    [OTF_ENTERSNAPSHOT_RECORD] = "EnterSnapshot",
    [OTF_SENDSNAPSHOT_RECORD] = "SendSnapshot",
    [OTF_SUMMARYCOMMENT_RECORD] = "SummaryComment",
    [OTF_SNAPSHOTCOMMENT_RECORD] = "SnapshotComment",
    [OTF_UNKNOWN_RECORD] = "UnknownRecord",
    [OTF_FILEOPERATION_RECORD] = "FileOperation",
    [OTF_OPENFILESNAPSHOT_RECORD] = "OpenFileSnapshot",
    [OTF_COLLOPSUMMARY_RECORD] = "CollopSummary",
    [OTF_DEFMARKER_RECORD] = "DefMarker",
    [OTF_MARKER_RECORD] = "Marker",
    [OTF_RMAPUT_RECORD] = "RMAPut",
    [OTF_RMAPUTRE_RECORD] = "RMAPutRemoteEnd",
    [OTF_RMAGET_RECORD] = "RMAGet",
    [OTF_RMAEND_RECORD] = "RMAEnd",
    [OTF_BEGINCOLLOP_RECORD] = "BeginCollectiveOperation",
    [OTF_ENDCOLLOP_RECORD] = "EndCollectiveOperation",
    [OTF_BEGINFILEOP_RECORD] = "BeginFileOperation",
    [OTF_ENDFILEOP_RECORD] = "EndFileOperation",
    [OTF_DEFATTRLIST_RECORD] = "DefAttributeList",
    [OTF_DEFPROCESSORGROUPATTR_RECORD] = "DefProcessOrGroupAttributes",
    [OTF_DEFKEYVALUE_RECORD] = "DefKeyValue",
    [OTF_NOOP_RECORD] = "NoOp",
    [OTF_BEGINCOLLOPSNAPSHOT_RECORD] = "BeginCollopSnapshot",
    [OTF_BEGINFILEOPSNAPSHOT_RECORD] = "BeginFileOpSnapshot",
    [OTF_DEFTIMERANGE_RECORD] = "DefTimeRange",
    [OTF_DEFCOUNTERASSIGNMENTS_RECORD] = "DefCounterAssignments",
    [OTF_DEFPROCESSSUBSTITUTES_RECORD] = "DefProcessSubstitutes",
    [OTF_DEFUNIQUEID_RECORD] = "DefUniqueId",
    [OTF_DEFAUXSAMPLEPOINT_RECORD] = "DefAuxSamplePoint",
    [OTF_COLLOPCOUNTSNAPSHOT_RECORD] = "CollopCountSnapshot",
    [OTF_COUNTERSNAPSHOT_RECORD] = "CounterSnapshot",
};

/* ---- printing helpers ------------------------------------------------- */

static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    if (s == NULL) {
        fputs("(null)", out);
    } else {
        for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
            if (*q < 0x20 || *q > 0x7e || *q == '"' || *q == '\\')
                fprintf(out, "\\x%02x", *q);
            else
                fputc(*q, out);
        }
    }
    fputc('"', out);
}

static void put_array(FILE *out, uint32_t n, const uint32_t *a)
{
    fputc('[', out);
    for (uint32_t i = 0; i < n; i++)
        fprintf(out, "%s%" PRIu32, i ? "," : "", a[i]);
    fputc(']', out);
}

/* One key-value pair, fetched with the typed getter of its type. */
static void put_pair(FILE *out, OTF_KeyValueList *list, uint32_t key)
{
    OTF_Type type = OTF_KeyValueList_getTypeForKey(list, key);
    uint8_t rc = 1;

    fprintf(out, "%" PRIu32 ":%d:", key, (int)type);
    switch (type) {
    case OTF_CHAR: {
        char v = 0;
        rc = OTF_KeyValueList_getChar(list, key, &v);
        fprintf(out, "%d", (int)(unsigned char)v);
        break;
    }
    case OTF_INT8: {
        int8_t v = 0;
        rc = OTF_KeyValueList_getInt8(list, key, &v);
        fprintf(out, "%d", (int)v);
        break;
    }
    case OTF_UINT8: {
        uint8_t v = 0;
        rc = OTF_KeyValueList_getUint8(list, key, &v);
        fprintf(out, "%u", (unsigned)v);
        break;
    }
    case OTF_INT16: {
        int16_t v = 0;
        rc = OTF_KeyValueList_getInt16(list, key, &v);
        fprintf(out, "%d", (int)v);
        break;
    }
    case OTF_UINT16: {
        uint16_t v = 0;
        rc = OTF_KeyValueList_getUint16(list, key, &v);
        fprintf(out, "%u", (unsigned)v);
        break;
    }
    case OTF_INT32: {
        int32_t v = 0;
        rc = OTF_KeyValueList_getInt32(list, key, &v);
        fprintf(out, "%" PRId32, v);
        break;
    }
    case OTF_UINT32: {
        uint32_t v = 0;
        rc = OTF_KeyValueList_getUint32(list, key, &v);
        fprintf(out, "%" PRIu32, v);
        break;
    }
    case OTF_INT64: {
        int64_t v = 0;
        rc = OTF_KeyValueList_getInt64(list, key, &v);
        fprintf(out, "%" PRId64, v);
        break;
    }
    case OTF_UINT64: {
        uint64_t v = 0;
        rc = OTF_KeyValueList_getUint64(list, key, &v);
        fprintf(out, "%" PRIu64, v);
        break;
    }
    case OTF_FLOAT: {
        float v = 0;
        rc = OTF_KeyValueList_getFloat(list, key, &v);
        fprintf(out, "%.9g", (double)v);
        break;
    }
    case OTF_DOUBLE: {
        double v = 0;
        rc = OTF_KeyValueList_getDouble(list, key, &v);
        fprintf(out, "%.17g", v);
        break;
    }
    case OTF_BYTE_ARRAY: {
        uint32_t len = 0, got;
        uint8_t *buf;
        rc = OTF_KeyValueList_getArrayLength(list, key, &len);
        if (rc != 0)
            break;
        buf = malloc(len ? len : 1);
        if (buf == NULL)
            break;
        got = len;
        rc = OTF_KeyValueList_getByteArray(list, key, buf, &got);
        fprintf(out, "len%" PRIu32 "/%" PRIu32 ":", len, got);
        for (uint32_t i = 0; i < got && i < len; i++)
            fprintf(out, "%02x", buf[i]);
        free(buf);
        break;
    }
    default:
        fputs("?", out);
        break;
    }
    if (rc != 0)
        fprintf(out, "(getter rc=%u)", (unsigned)rc);
}

static void put_kv(FILE *out, OTF_KeyValueList *list)
{
    uint32_t n, key;

    fputs(" kv=[", out);
    if (list != NULL) {
        n = OTF_KeyValueList_getCount(list);
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                fputc(',', out);
            if (OTF_KeyValueList_getKeyByIndex(list, i, &key) != 0) {
                fprintf(out, "(no key at index %" PRIu32 ")", i);
                continue;
            }
            put_pair(out, list, key);
        }
    }
    fputs("]\n", out);
}

/* Starts a record line: name, then the printf-formatted fixed fields. */
__attribute__((format(printf, 3, 4)))
static void begin(struct state *st, int id, const char *fmt, ...)
{
    va_list ap;

    st->count[id]++;
    st->calls++;
    fputs(record_name[id], st->out);
    fputc(' ', st->out);
    va_start(ap, fmt);
    vfprintf(st->out, fmt, ap);
    va_end(ap);
}

#define ST ((struct state *)ud)
#define T64 "%" PRIu64
#define U32 "%" PRIu32

/* ---- definition handlers ---------------------------------------------- */

static int h_defcomment(void *ud, uint32_t stream, const char *comment, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFINITIONCOMMENT_RECORD, "stream=" U32 " comment=", stream);
    put_string(ST->out, comment);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_deftimerres(void *ud, uint32_t stream, uint64_t ticks, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFTIMERRESOLUTION_RECORD, "stream=" U32 " ticksPerSecond=" T64, stream, ticks);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defprocess(void *ud, uint32_t stream, uint32_t process, const char *name,
                        uint32_t parent, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFPROCESS_RECORD, "stream=" U32 " process=" U32 " name=", stream, process);
    put_string(ST->out, name);
    fprintf(ST->out, " parent=" U32, parent);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defprocessgroup(void *ud, uint32_t stream, uint32_t group, const char *name,
                             uint32_t n, const uint32_t *procs, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFPROCESSGROUP_RECORD, "stream=" U32 " procGroup=" U32 " name=", stream, group);
    put_string(ST->out, name);
    fprintf(ST->out, " procs=");
    put_array(ST->out, n, procs);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defattrlist(void *ud, uint32_t stream, uint32_t attr, uint32_t num,
                         OTF_ATTR_TYPE *array, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFATTRLIST_RECORD, "stream=" U32 " attr_token=" U32 " array=[", stream, attr);
    for (uint32_t i = 0; i < num; i++)
        fprintf(ST->out, "%s%d", i ? "," : "", (int)array[i]);
    fputc(']', ST->out);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defprocorgroupattr(void *ud, uint32_t stream, uint32_t proc, uint32_t attr,
                                OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFPROCESSORGROUPATTR_RECORD, "stream=" U32 " proc_token=" U32
          " attr_token=" U32, stream, proc, attr);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_deffunction(void *ud, uint32_t stream, uint32_t func, const char *name,
                         uint32_t group, uint32_t source, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFFUNCTION_RECORD, "stream=" U32 " func=" U32 " name=", stream, func);
    put_string(ST->out, name);
    fprintf(ST->out, " funcGroup=" U32 " source=" U32, group, source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_deffunctiongroup(void *ud, uint32_t stream, uint32_t group, const char *name,
                              OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFFUNCTIONGROUP_RECORD, "stream=" U32 " funcGroup=" U32 " name=", stream, group);
    put_string(ST->out, name);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defcollop(void *ud, uint32_t stream, uint32_t collop, const char *name,
                       uint32_t type, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFCOLLOP_RECORD, "stream=" U32 " collOp=" U32 " name=", stream, collop);
    put_string(ST->out, name);
    fprintf(ST->out, " type=" U32, type);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defcounter(void *ud, uint32_t stream, uint32_t counter, const char *name,
                        uint32_t properties, uint32_t group, const char *unit,
                        OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFCOUNTER_RECORD, "stream=" U32 " counter=" U32 " name=", stream, counter);
    put_string(ST->out, name);
    fprintf(ST->out, " properties=" U32 " counterGroup=" U32 " unit=", properties, group);
    put_string(ST->out, unit);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defcountergroup(void *ud, uint32_t stream, uint32_t group, const char *name,
                             OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFCOUNTERGROUP_RECORD, "stream=" U32 " counterGroup=" U32 " name=", stream,
          group);
    put_string(ST->out, name);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defscl(void *ud, uint32_t stream, uint32_t source, uint32_t file, uint32_t line,
                    OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFSCL_RECORD, "stream=" U32 " source=" U32 " sourceFile=" U32 " line=" U32,
          stream, source, file, line);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defsclfile(void *ud, uint32_t stream, uint32_t file, const char *name,
                        OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFSCLFILE_RECORD, "stream=" U32 " sourceFile=" U32 " name=", stream, file);
    put_string(ST->out, name);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defcreator(void *ud, uint32_t stream, const char *creator, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFCREATOR_RECORD, "stream=" U32 " creator=", stream);
    put_string(ST->out, creator);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defuniqueid(void *ud, uint32_t stream, uint64_t uid, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFUNIQUEID_RECORD, "stream=" U32 " uid=" T64, stream, uid);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defversion(void *ud, uint32_t stream, uint8_t major, uint8_t minor, uint8_t sub,
                        const char *string, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFVERSION_RECORD, "stream=" U32 " major=%u minor=%u sub=%u string=", stream,
          (unsigned)major, (unsigned)minor, (unsigned)sub);
    put_string(ST->out, string);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_deffile(void *ud, uint32_t stream, uint32_t token, const char *name,
                     uint32_t group, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFFILE_RECORD, "stream=" U32 " token=" U32 " name=", stream, token);
    put_string(ST->out, name);
    fprintf(ST->out, " group=" U32, group);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_deffilegroup(void *ud, uint32_t stream, uint32_t token, const char *name,
                          OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFFILEGROUP_RECORD, "stream=" U32 " token=" U32 " name=", stream, token);
    put_string(ST->out, name);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defkeyvalue(void *ud, uint32_t stream, uint32_t key, OTF_Type type,
                         const char *name, const char *description, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFKEYVALUE_RECORD, "stream=" U32 " key=" U32 " type=%d name=", stream, key,
          (int)type);
    put_string(ST->out, name);
    fputs(" description=", ST->out);
    put_string(ST->out, description);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_deftimerange(void *ud, uint32_t stream, uint64_t min, uint64_t max,
                          OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFTIMERANGE_RECORD, "stream=" U32 " minTime=" T64 " maxTime=" T64, stream,
          min, max);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defcounterassign(void *ud, uint32_t stream, uint32_t counter, uint32_t n,
                              const uint32_t *members, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFCOUNTERASSIGNMENTS_RECORD, "stream=" U32 " counter=" U32 " procs_or_groups=",
          stream, counter);
    put_array(ST->out, n, members);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defprocsubst(void *ud, uint32_t stream, uint32_t repr, uint32_t n,
                          const uint32_t *procs, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFPROCESSSUBSTITUTES_RECORD, "stream=" U32 " representative=" U32 " procs=",
          stream, repr);
    put_array(ST->out, n, procs);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_defauxsample(void *ud, uint32_t stream, uint64_t time, OTF_AuxSamplePointType type,
                          OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFAUXSAMPLEPOINT_RECORD, "stream=" U32 " time=" T64 " type=%d", stream, time,
          (int)type);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

/* ---- event handlers --------------------------------------------------- */

static int h_noop(void *ud, uint64_t time, uint32_t process, OTF_KeyValueList *kv)
{
    begin(ST, OTF_NOOP_RECORD, "time=" T64 " process=" U32, time, process);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_enter(void *ud, uint64_t time, uint32_t function, uint32_t process,
                   uint32_t source, OTF_KeyValueList *kv)
{
    begin(ST, OTF_ENTER_RECORD, "time=" T64 " process=" U32 " function=" U32 " source=" U32,
          time, process, function, source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_leave(void *ud, uint64_t time, uint32_t function, uint32_t process,
                   uint32_t source, OTF_KeyValueList *kv)
{
    begin(ST, OTF_LEAVE_RECORD, "time=" T64 " process=" U32 " function=" U32 " source=" U32,
          time, process, function, source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_send(void *ud, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t group,
                  uint32_t type, uint32_t length, uint32_t source, OTF_KeyValueList *kv)
{
    begin(ST, OTF_SEND_RECORD, "time=" T64 " process=" U32 " receiver=" U32 " group=" U32
          " tag=" U32 " length=" U32 " source=" U32, time, sender, receiver, group, type,
          length, source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_recv(void *ud, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t group,
                  uint32_t type, uint32_t length, uint32_t source, OTF_KeyValueList *kv)
{
    begin(ST, OTF_RECEIVE_RECORD, "time=" T64 " process=" U32 " sender=" U32 " group=" U32
          " tag=" U32 " length=" U32 " source=" U32, time, receiver, sender, group, type,
          length, source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_counter(void *ud, uint64_t time, uint32_t process, uint32_t counter,
                     uint64_t value, OTF_KeyValueList *kv)
{
    begin(ST, OTF_COUNTER_RECORD, "time=" T64 " process=" U32 " counter=" U32 " value=" T64,
          time, process, counter, value);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_collop(void *ud, uint64_t time, uint32_t process, uint32_t collective,
                    uint32_t group, uint32_t root, uint32_t sent, uint32_t received,
                    uint64_t duration, uint32_t source, OTF_KeyValueList *kv)
{
    begin(ST, OTF_COLLOP_RECORD, "time=" T64 " process=" U32 " collective=" U32 " procGroup="
          U32 " rootProc=" U32 " sent=" U32 " received=" U32 " duration=" T64 " source=" U32,
          time, process, collective, group, root, sent, received, duration, source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_begincollop(void *ud, uint64_t time, uint32_t process, uint32_t collop,
                         uint64_t matching, uint32_t group, uint32_t root, uint64_t sent,
                         uint64_t received, uint32_t scl, OTF_KeyValueList *kv)
{
    begin(ST, OTF_BEGINCOLLOP_RECORD, "time=" T64 " process=" U32 " collOp=" U32 " matchingId="
          T64 " procGroup=" U32 " rootProc=" U32 " sent=" T64 " received=" T64 " scltoken=" U32,
          time, process, collop, matching, group, root, sent, received, scl);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_endcollop(void *ud, uint64_t time, uint32_t process, uint64_t matching,
                       OTF_KeyValueList *kv)
{
    begin(ST, OTF_ENDCOLLOP_RECORD, "time=" T64 " process=" U32 " matchingId=" T64, time,
          process, matching);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_eventcomment(void *ud, uint64_t time, uint32_t process, const char *comment,
                          OTF_KeyValueList *kv)
{
    begin(ST, OTF_EVENTCOMMENT_RECORD, "time=" T64 " process=" U32 " comment=", time, process);
    put_string(ST->out, comment);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_beginprocess(void *ud, uint64_t time, uint32_t process, OTF_KeyValueList *kv)
{
    begin(ST, OTF_BEGINPROCESS_RECORD, "time=" T64 " process=" U32, time, process);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_endprocess(void *ud, uint64_t time, uint32_t process, OTF_KeyValueList *kv)
{
    begin(ST, OTF_ENDPROCESS_RECORD, "time=" T64 " process=" U32, time, process);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_fileop(void *ud, uint64_t time, uint32_t file, uint32_t process, uint64_t handle,
                    uint32_t op, uint64_t bytes, uint64_t duration, uint32_t source,
                    OTF_KeyValueList *kv)
{
    begin(ST, OTF_FILEOPERATION_RECORD, "time=" T64 " process=" U32 " fileid=" U32 " handleid="
          T64 " operation=" U32 " bytes=" T64 " duration=" T64 " source=" U32, time, process,
          file, handle, op, bytes, duration, source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_beginfileop(void *ud, uint64_t time, uint32_t process, uint64_t matching,
                         uint32_t scl, OTF_KeyValueList *kv)
{
    begin(ST, OTF_BEGINFILEOP_RECORD, "time=" T64 " process=" U32 " matchingId=" T64
          " scltoken=" U32, time, process, matching, scl);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_endfileop(void *ud, uint64_t time, uint32_t process, uint32_t file,
                       uint64_t matching, uint64_t handle, uint32_t op, uint64_t bytes,
                       uint32_t scl, OTF_KeyValueList *kv)
{
    begin(ST, OTF_ENDFILEOP_RECORD, "time=" T64 " process=" U32 " fileid=" U32 " matchingId="
          T64 " handleId=" T64 " operation=" U32 " bytes=" T64 " scltoken=" U32, time, process,
          file, matching, handle, op, bytes, scl);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

/* RMAPut, RMAPutRemoteEnd and RMAGet share one signature. */
static int rma(void *ud, int id, uint64_t time, uint32_t process, uint32_t origin,
               uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes, uint32_t source,
               OTF_KeyValueList *kv)
{
    begin(ST, id, "time=" T64 " process=" U32 " origin=" U32 " target=" U32 " communicator="
          U32 " tag=" U32 " bytes=" T64 " source=" U32, time, process, origin, target, comm,
          tag, bytes, source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_rmaput(void *ud, uint64_t time, uint32_t process, uint32_t origin, uint32_t target,
                    uint32_t comm, uint32_t tag, uint64_t bytes, uint32_t source,
                    OTF_KeyValueList *kv)
{
    return rma(ud, OTF_RMAPUT_RECORD, time, process, origin, target, comm, tag, bytes, source,
               kv);
}

static int h_rmaputre(void *ud, uint64_t time, uint32_t process, uint32_t origin,
                      uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes,
                      uint32_t source, OTF_KeyValueList *kv)
{
    return rma(ud, OTF_RMAPUTRE_RECORD, time, process, origin, target, comm, tag, bytes, source,
               kv);
}

static int h_rmaget(void *ud, uint64_t time, uint32_t process, uint32_t origin, uint32_t target,
                    uint32_t comm, uint32_t tag, uint64_t bytes, uint32_t source,
                    OTF_KeyValueList *kv)
{
    return rma(ud, OTF_RMAGET_RECORD, time, process, origin, target, comm, tag, bytes, source,
               kv);
}

static int h_rmaend(void *ud, uint64_t time, uint32_t process, uint32_t remote, uint32_t comm,
                    uint32_t tag, uint32_t source, OTF_KeyValueList *kv)
{
    begin(ST, OTF_RMAEND_RECORD, "time=" T64 " process=" U32 " remote=" U32 " communicator="
          U32 " tag=" U32 " source=" U32, time, process, remote, comm, tag, source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

/* ---- snapshot handlers ------------------------------------------------ */

static int h_snapcomment(void *ud, uint64_t time, uint32_t process, const char *comment,
                         OTF_KeyValueList *kv)
{
    begin(ST, OTF_SNAPSHOTCOMMENT_RECORD, "time=" T64 " process=" U32 " comment=", time,
          process);
    put_string(ST->out, comment);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_entersnap(void *ud, uint64_t time, uint64_t otime, uint32_t function,
                       uint32_t process, uint32_t source, OTF_KeyValueList *kv)
{
    begin(ST, OTF_ENTERSNAPSHOT_RECORD, "time=" T64 " process=" U32 " originaltime=" T64
          " function=" U32 " source=" U32, time, process, otime, function, source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_sendsnap(void *ud, uint64_t time, uint64_t otime, uint32_t sender,
                      uint32_t receiver, uint32_t group, uint32_t tag, uint32_t length,
                      uint32_t source, OTF_KeyValueList *kv)
{
    begin(ST, OTF_SENDSNAPSHOT_RECORD, "time=" T64 " process=" U32 " originaltime=" T64
          " receiver=" U32 " procGroup=" U32 " tag=" U32 " length=" U32 " source=" U32, time,
          sender, otime, receiver, group, tag, length, source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_openfilesnap(void *ud, uint64_t time, uint64_t otime, uint32_t file,
                          uint32_t process, uint64_t handle, uint32_t source,
                          OTF_KeyValueList *kv)
{
    begin(ST, OTF_OPENFILESNAPSHOT_RECORD, "time=" T64 " process=" U32 " originaltime=" T64
          " fileid=" U32 " handleid=" T64 " source=" U32, time, process, otime, file, handle,
          source);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_begincollopsnap(void *ud, uint64_t time, uint64_t otime, uint32_t process,
                             uint32_t collop, uint64_t matching, uint32_t group, uint32_t root,
                             uint64_t sent, uint64_t received, uint32_t scl,
                             OTF_KeyValueList *kv)
{
    begin(ST, OTF_BEGINCOLLOPSNAPSHOT_RECORD, "time=" T64 " process=" U32 " originaltime=" T64
          " collOp=" U32 " matchingId=" T64 " procGroup=" U32 " rootProc=" U32 " sent=" T64
          " received=" T64 " scltoken=" U32, time, process, otime, collop, matching, group,
          root, sent, received, scl);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_beginfileopsnap(void *ud, uint64_t time, uint64_t otime, uint32_t process,
                             uint64_t matching, uint32_t scl, OTF_KeyValueList *kv)
{
    begin(ST, OTF_BEGINFILEOPSNAPSHOT_RECORD, "time=" T64 " process=" U32 " originaltime=" T64
          " matchingId=" T64 " scltoken=" U32, time, process, otime, matching, scl);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_collopcountsnap(void *ud, uint64_t time, uint32_t process, uint32_t comm,
                             uint64_t count, OTF_KeyValueList *kv)
{
    begin(ST, OTF_COLLOPCOUNTSNAPSHOT_RECORD, "time=" T64 " process=" U32 " communicator=" U32
          " count=" T64, time, process, comm, count);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_countersnap(void *ud, uint64_t time, uint64_t otime, uint32_t process,
                         uint32_t counter, uint64_t value, OTF_KeyValueList *kv)
{
    begin(ST, OTF_COUNTERSNAPSHOT_RECORD, "time=" T64 " process=" U32 " originaltime=" T64
          " counter=" U32 " value=" T64, time, process, otime, counter, value);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

/* ---- summary handlers ------------------------------------------------- */

static int h_sumcomment(void *ud, uint64_t time, uint32_t process, const char *comment,
                        OTF_KeyValueList *kv)
{
    begin(ST, OTF_SUMMARYCOMMENT_RECORD, "time=" T64 " process=" U32 " comment=", time,
          process);
    put_string(ST->out, comment);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_funcsum(void *ud, uint64_t time, uint32_t function, uint32_t process,
                     uint64_t invocations, uint64_t excl, uint64_t incl, OTF_KeyValueList *kv)
{
    begin(ST, OTF_FUNCTIONSUMMARY_RECORD, "time=" T64 " process=" U32 " function=" U32
          " invocations=" T64 " exclTime=" T64 " inclTime=" T64, time, process, function,
          invocations, excl, incl);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_funcgroupsum(void *ud, uint64_t time, uint32_t group, uint32_t process,
                          uint64_t invocations, uint64_t excl, uint64_t incl,
                          OTF_KeyValueList *kv)
{
    begin(ST, OTF_FUNCTIONGROUPSUMMARY_RECORD, "time=" T64 " process=" U32 " funcGroup=" U32
          " invocations=" T64 " exclTime=" T64 " inclTime=" T64, time, process, group,
          invocations, excl, incl);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_msgsum(void *ud, uint64_t time, uint32_t process, uint32_t peer, uint32_t comm,
                    uint32_t type, uint64_t nsent, uint64_t nrecv, uint64_t bsent,
                    uint64_t brecv, OTF_KeyValueList *kv)
{
    begin(ST, OTF_MESSAGESUMMARY_RECORD, "time=" T64 " process=" U32 " peer=" U32 " comm=" U32
          " type=" U32 " sentNumber=" T64 " receivedNumber=" T64 " sentBytes=" T64
          " receivedBytes=" T64, time, process, peer, comm, type, nsent, nrecv, bsent, brecv);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_collopsum(void *ud, uint64_t time, uint32_t process, uint32_t comm,
                       uint32_t collective, uint64_t nsent, uint64_t nrecv, uint64_t bsent,
                       uint64_t brecv, OTF_KeyValueList *kv)
{
    begin(ST, OTF_COLLOPSUMMARY_RECORD, "time=" T64 " process=" U32 " comm=" U32 " collective="
          U32 " sentNumber=" T64 " receivedNumber=" T64 " sentBytes=" T64 " receivedBytes=" T64,
          time, process, comm, collective, nsent, nrecv, bsent, brecv);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

/* FileOperationSummary and FileGroupOperationSummary share one signature. */
static int fileopsum(void *ud, int id, uint64_t time, uint32_t token, uint32_t process,
                     uint64_t nopen, uint64_t nclose, uint64_t nread, uint64_t nwrite,
                     uint64_t nseek, uint64_t bread, uint64_t bwrite, OTF_KeyValueList *kv)
{
    begin(ST, id, "time=" T64 " process=" U32 " id=" U32 " nopen=" T64 " nclose=" T64 " nread="
          T64 " nwrite=" T64 " nseek=" T64 " bytesread=" T64 " byteswrite=" T64, time, process,
          token, nopen, nclose, nread, nwrite, nseek, bread, bwrite);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_fileopsum(void *ud, uint64_t time, uint32_t file, uint32_t process, uint64_t nopen,
                       uint64_t nclose, uint64_t nread, uint64_t nwrite, uint64_t nseek,
                       uint64_t bread, uint64_t bwrite, OTF_KeyValueList *kv)
{
    return fileopsum(ud, OTF_FILEOPERATIONSUMMARY_RECORD, time, file, process, nopen, nclose,
                     nread, nwrite, nseek, bread, bwrite, kv);
}

static int h_filegroupopsum(void *ud, uint64_t time, uint32_t group, uint32_t process,
                            uint64_t nopen, uint64_t nclose, uint64_t nread, uint64_t nwrite,
                            uint64_t nseek, uint64_t bread, uint64_t bwrite,
                            OTF_KeyValueList *kv)
{
    return fileopsum(ud, OTF_FILEGROUPOPERATIONSUMMARY_RECORD, time, group, process, nopen,
                     nclose, nread, nwrite, nseek, bread, bwrite, kv);
}

/* ---- markers and unknown records -------------------------------------- */

static int h_defmarker(void *ud, uint32_t stream, uint32_t token, const char *name,
                       uint32_t type, OTF_KeyValueList *kv)
{
    begin(ST, OTF_DEFMARKER_RECORD, "stream=" U32 " token=" U32 " name=", stream, token);
    put_string(ST->out, name);
    fprintf(ST->out, " type=" U32, type);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_marker(void *ud, uint64_t time, uint32_t process, uint32_t token, const char *text,
                    OTF_KeyValueList *kv)
{
    begin(ST, OTF_MARKER_RECORD, "time=" T64 " process=" U32 " token=" U32 " text=", time,
          process, token);
    put_string(ST->out, text);
    put_kv(ST->out, kv);
    return OTF_RETURN_OK;
}

static int h_unknown(void *ud, uint64_t time, uint32_t process, const char *record)
{
    begin(ST, OTF_UNKNOWN_RECORD, "time=" T64 " process=" U32 " record=", time, process);
    put_string(ST->out, record);
    fputc('\n', ST->out);
    return OTF_RETURN_OK;
}

#undef ST

/* The handler of every record type; a cast to OTF_FunctionPointer* is how
 * the API expects handlers to be registered. */
#define H(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))
static const struct { int id; OTF_FunctionPointer *fn; } handler_table[] = {
    { OTF_DEFINITIONCOMMENT_RECORD, H(h_defcomment) },
    { OTF_DEFTIMERRESOLUTION_RECORD, H(h_deftimerres) },
    { OTF_DEFPROCESS_RECORD, H(h_defprocess) },
    { OTF_DEFPROCESSGROUP_RECORD, H(h_defprocessgroup) },
    { OTF_DEFATTRLIST_RECORD, H(h_defattrlist) },
    { OTF_DEFPROCESSORGROUPATTR_RECORD, H(h_defprocorgroupattr) },
    { OTF_DEFFUNCTION_RECORD, H(h_deffunction) },
    { OTF_DEFFUNCTIONGROUP_RECORD, H(h_deffunctiongroup) },
    { OTF_DEFCOLLOP_RECORD, H(h_defcollop) },
    { OTF_DEFCOUNTER_RECORD, H(h_defcounter) },
    { OTF_DEFCOUNTERGROUP_RECORD, H(h_defcountergroup) },
    { OTF_DEFSCL_RECORD, H(h_defscl) },
    { OTF_DEFSCLFILE_RECORD, H(h_defsclfile) },
    { OTF_DEFCREATOR_RECORD, H(h_defcreator) },
    { OTF_DEFUNIQUEID_RECORD, H(h_defuniqueid) },
    { OTF_DEFVERSION_RECORD, H(h_defversion) },
    { OTF_DEFFILE_RECORD, H(h_deffile) },
    { OTF_DEFFILEGROUP_RECORD, H(h_deffilegroup) },
    { OTF_DEFKEYVALUE_RECORD, H(h_defkeyvalue) },
    { OTF_DEFTIMERANGE_RECORD, H(h_deftimerange) },
    { OTF_DEFCOUNTERASSIGNMENTS_RECORD, H(h_defcounterassign) },
    { OTF_DEFPROCESSSUBSTITUTES_RECORD, H(h_defprocsubst) },
    { OTF_DEFAUXSAMPLEPOINT_RECORD, H(h_defauxsample) },
    { OTF_NOOP_RECORD, H(h_noop) },
    { OTF_ENTER_RECORD, H(h_enter) },
    { OTF_LEAVE_RECORD, H(h_leave) },
    { OTF_SEND_RECORD, H(h_send) },
    { OTF_RECEIVE_RECORD, H(h_recv) },
    { OTF_COUNTER_RECORD, H(h_counter) },
    { OTF_COLLOP_RECORD, H(h_collop) },
    { OTF_BEGINCOLLOP_RECORD, H(h_begincollop) },
    { OTF_ENDCOLLOP_RECORD, H(h_endcollop) },
    { OTF_EVENTCOMMENT_RECORD, H(h_eventcomment) },
    { OTF_BEGINPROCESS_RECORD, H(h_beginprocess) },
    { OTF_ENDPROCESS_RECORD, H(h_endprocess) },
    { OTF_FILEOPERATION_RECORD, H(h_fileop) },
    { OTF_BEGINFILEOP_RECORD, H(h_beginfileop) },
    { OTF_ENDFILEOP_RECORD, H(h_endfileop) },
    { OTF_RMAPUT_RECORD, H(h_rmaput) },
    { OTF_RMAPUTRE_RECORD, H(h_rmaputre) },
    { OTF_RMAGET_RECORD, H(h_rmaget) },
    { OTF_RMAEND_RECORD, H(h_rmaend) },
    { OTF_SNAPSHOTCOMMENT_RECORD, H(h_snapcomment) },
    { OTF_ENTERSNAPSHOT_RECORD, H(h_entersnap) },
    { OTF_SENDSNAPSHOT_RECORD, H(h_sendsnap) },
    { OTF_OPENFILESNAPSHOT_RECORD, H(h_openfilesnap) },
    { OTF_BEGINCOLLOPSNAPSHOT_RECORD, H(h_begincollopsnap) },
    { OTF_BEGINFILEOPSNAPSHOT_RECORD, H(h_beginfileopsnap) },
    { OTF_COLLOPCOUNTSNAPSHOT_RECORD, H(h_collopcountsnap) },
    { OTF_COUNTERSNAPSHOT_RECORD, H(h_countersnap) },
    { OTF_SUMMARYCOMMENT_RECORD, H(h_sumcomment) },
    { OTF_FUNCTIONSUMMARY_RECORD, H(h_funcsum) },
    { OTF_FUNCTIONGROUPSUMMARY_RECORD, H(h_funcgroupsum) },
    { OTF_MESSAGESUMMARY_RECORD, H(h_msgsum) },
    { OTF_COLLOPSUMMARY_RECORD, H(h_collopsum) },
    { OTF_FILEOPERATIONSUMMARY_RECORD, H(h_fileopsum) },
    { OTF_FILEGROUPOPERATIONSUMMARY_RECORD, H(h_filegroupopsum) },
    { OTF_DEFMARKER_RECORD, H(h_defmarker) },
    { OTF_MARKER_RECORD, H(h_marker) },
    { OTF_UNKNOWN_RECORD, H(h_unknown) },
};
#undef H

/* ---- reading ---------------------------------------------------------- */

enum part { P_DEFS, P_EVENTS, P_SNAPS, P_STATS, P_MARKERS, P_COUNT };

static const char *const part_name[P_COUNT] = {
    "definitions", "events", "snapshots", "statistics", "markers"
};

typedef uint64_t (*reader_fn)(OTF_Reader *, OTF_HandlerArray *);
typedef uint64_t (*rstream_fn)(OTF_RStream *, OTF_HandlerArray *);

struct options {
    unsigned parts;               /* bit set of enum part */
    int window;
    uint64_t wmin, wmax;
    uint64_t limit;               /* 0: no limit set */
    int unsorted;
    int use_rstream;
    uint32_t rstream;
    int no_master;
    uint32_t disabled[64];
    size_t ndisabled;
    const char *stub;
};

/* What one part delivered: the sum of the read calls' return values and the
 * number of handler calls (they differ: the reference counts an empty line
 * of an event file as a record without calling a handler). */
struct tally {
    uint64_t returned[P_COUNT];
    uint64_t handled[P_COUNT];
};

/* Runs one read function until it has nothing more to deliver; with a
 * record limit every call must return at most the limit. */
static int read_part(struct state *st, const struct options *o, enum part part,
                     OTF_Reader *reader, OTF_RStream *rs, OTF_HandlerArray *ha,
                     struct tally *tl)
{
    static const reader_fn sorted[P_COUNT] = {
        OTF_Reader_readDefinitions, OTF_Reader_readEvents, OTF_Reader_readSnapshots,
        OTF_Reader_readStatistics, OTF_Reader_readMarkers
    };
    static const reader_fn unsorted[P_COUNT] = {
        OTF_Reader_readDefinitions, OTF_Reader_readEventsUnsorted,
        OTF_Reader_readSnapshotsUnsorted, OTF_Reader_readStatisticsUnsorted,
        OTF_Reader_readMarkers
    };
    static const rstream_fn by_stream[P_COUNT] = {
        OTF_RStream_readDefinitions, OTF_RStream_readEvents, OTF_RStream_readSnapshots,
        OTF_RStream_readStatistics, OTF_RStream_readMarker
    };
    uint64_t total = 0, chunks = 0, ret;
    int first = 1;

    st->calls = 0;
    for (;;) {
        if (rs != NULL)
            ret = by_stream[part](rs, ha);
        else
            ret = (o->unsorted ? unsorted : sorted)[part](reader, ha);
        if (ret == OTF_READ_ERROR) {
            fflush(st->out);
            fprintf(stderr, "otf_read_all: %s: reading %s failed (OTF_READ_ERROR)%s%s\n",
                    o->stub, part_name[part], otf_strerr[0] ? ": " : "", otf_strerr);
            return -1;
        }
        chunks++;
        total += ret;
        if (o->limit > 0 && ret > o->limit) {
            fprintf(stderr, "otf_read_all: %s: %s chunk of %" PRIu64 " records exceeds the "
                    "limit %" PRIu64 "\n", o->stub, part_name[part], ret, o->limit);
            return -1;
        }
        /* The progress calls are only meaningful for events, and after a
         * read call; show them once, after the first chunk. */
        if (part == P_EVENTS && rs == NULL && first) {
            uint64_t mn = 0, cur = 0, mx = 0;
            uint8_t r1 = OTF_Reader_eventTimeProgress(reader, &mn, &cur, &mx);
            fprintf(st->out, "# eventTimeProgress ret=%u min=%" PRIu64 " cur=%" PRIu64
                    " max=%" PRIu64 "\n", (unsigned)r1, mn, cur, mx);
            r1 = OTF_Reader_eventProgress(reader, &mn, &cur, &mx);
            fprintf(st->out, "# eventProgress ret=%u min=%" PRIu64 " cur=%" PRIu64
                    " max=%" PRIu64 "\n", (unsigned)r1, mn, cur, mx);
        }
        first = 0;
        if (o->limit == 0 || ret == 0)
            break;
    }
    fprintf(st->out, "# %s: returned %" PRIu64 " in %" PRIu64 " call(s), %" PRIu64
            " handler call(s)\n", part_name[part], total, chunks, st->calls);
    tl->returned[part] = total;
    tl->handled[part] = st->calls;
    return 0;
}

static void print_master(FILE *out, OTF_MasterControl *mc)
{
    uint32_t n = OTF_MasterControl_getCount(mc);

    for (uint32_t i = 0; i < n; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);
        if (e == NULL)
            continue;
        fprintf(out, "# stream %" PRIu32 ": ", e->argument);
        put_array(out, e->n, e->values);
        fputc('\n', out);
    }
}

/* One complete read of the trace as the options say, printing to st->out. */
static int read_trace(struct state *st, const struct options *o, struct tally *tl)
{
    OTF_FileManager *fm = OTF_FileManager_open(16);
    OTF_HandlerArray *ha = OTF_HandlerArray_open();
    OTF_Reader *reader = NULL;
    OTF_RStream *rs = NULL;
    int rc = 0;

    if (fm == NULL || ha == NULL) {
        fprintf(stderr, "otf_read_all: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < sizeof handler_table / sizeof handler_table[0]; i++) {
        OTF_HandlerArray_setHandler(ha, handler_table[i].fn, (uint32_t)handler_table[i].id);
        OTF_HandlerArray_setFirstHandlerArg(ha, st, (uint32_t)handler_table[i].id);
    }

    if (o->use_rstream) {
        rs = OTF_RStream_open(o->stub, o->rstream, fm);
        if (rs == NULL) {
            fprintf(stderr, "otf_read_all: %s: cannot open stream %" PRIu32 "\n", o->stub,
                    o->rstream);
            return -1;
        }
        if (o->limit > 0)
            OTF_RStream_setRecordLimit(rs, o->limit);
        fprintf(st->out, "# rstream %" PRIu32 " record limit %" PRIu64 "\n", o->rstream,
                OTF_RStream_getRecordLimit(rs));
    } else {
        reader = OTF_Reader_open(o->stub, fm);
        if (reader == NULL) {
            fprintf(stderr, "otf_read_all: %s: cannot open trace\n", o->stub);
            return -1;
        }
        if (!o->no_master)
            print_master(st->out, OTF_Reader_getMasterControl(reader));
        for (size_t i = 0; i < o->ndisabled; i++) {
            int ok = OTF_Reader_setProcessStatus(reader, o->disabled[i], 0);
            fprintf(st->out, "# disable %" PRIu32 ": ret=%d status=%u\n", o->disabled[i], ok,
                    (unsigned)OTF_Reader_getProcessStatus(reader, o->disabled[i]));
        }
        if (o->window) {
            OTF_Reader_setTimeInterval(reader, o->wmin, o->wmax);
            fprintf(st->out, "# window %" PRIu64 ":%" PRIu64 "\n",
                    OTF_Reader_getTimeIntervalMin(reader), OTF_Reader_getTimeIntervalMax(reader));
        }
        if (o->limit > 0) {
            OTF_Reader_setRecordLimit(reader, o->limit);
            fprintf(st->out, "# record limit %" PRIu64 "\n", OTF_Reader_getRecordLimit(reader));
        }
    }

    for (int p = 0; p < P_COUNT && rc == 0; p++) {
        if (o->parts & (1u << p))
            rc = read_part(st, o, (enum part)p, reader, rs, ha, tl);
    }

    if (rs != NULL)
        OTF_RStream_close(rs);
    if (reader != NULL)
        OTF_Reader_close(reader);
    OTF_HandlerArray_close(ha);
    OTF_FileManager_close(fm);
    return rc;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    *v = strtoull(s, &end, 0);
    return end != s && *end == '\0' ? 0 : -1;
}

static int usage(void)
{
    fprintf(stderr, "usage: otf_read_all [--defs] [--events] [--snaps] [--stats] [--markers]\n"
            "       [--window A:B] [--disable P,...] [--limit N] [--unsorted]\n"
            "       [--rstream ID] [--no-master] STUB\n");
    return 2;
}

int main(int argc, char **argv)
{
    enum { O_DEFS = 256, O_EVENTS, O_SNAPS, O_STATS, O_MARKERS, O_WINDOW, O_DISABLE, O_LIMIT,
           O_UNSORTED, O_RSTREAM, O_NOMASTER };
    static const struct option longopts[] = {
        { "defs", no_argument, NULL, O_DEFS },
        { "events", no_argument, NULL, O_EVENTS },
        { "snaps", no_argument, NULL, O_SNAPS },
        { "stats", no_argument, NULL, O_STATS },
        { "markers", no_argument, NULL, O_MARKERS },
        { "window", required_argument, NULL, O_WINDOW },
        { "disable", required_argument, NULL, O_DISABLE },
        { "limit", required_argument, NULL, O_LIMIT },
        { "unsorted", no_argument, NULL, O_UNSORTED },
        { "rstream", required_argument, NULL, O_RSTREAM },
        { "no-master", no_argument, NULL, O_NOMASTER },
        { NULL, 0, NULL, 0 }
    };
    struct options o = { 0 };
    struct state st = { 0 };
    struct tally whole = { { 0 }, { 0 } }, chunked = { { 0 }, { 0 } };
    uint64_t total = 0, v;
    int opt, rc = 0;
    char *colon, *tok, *save;

    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case O_DEFS: o.parts |= 1u << P_DEFS; break;
        case O_EVENTS: o.parts |= 1u << P_EVENTS; break;
        case O_SNAPS: o.parts |= 1u << P_SNAPS; break;
        case O_STATS: o.parts |= 1u << P_STATS; break;
        case O_MARKERS: o.parts |= 1u << P_MARKERS; break;
        case O_WINDOW:
            colon = strchr(optarg, ':');
            if (colon == NULL)
                return usage();
            *colon = '\0';
            if (parse_u64(optarg, &o.wmin) != 0 || parse_u64(colon + 1, &o.wmax) != 0)
                return usage();
            o.window = 1;
            break;
        case O_DISABLE:
            for (tok = strtok_r(optarg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (parse_u64(tok, &v) != 0 || o.ndisabled == 64)
                    return usage();
                o.disabled[o.ndisabled++] = (uint32_t)v;
            }
            break;
        case O_LIMIT:
            if (parse_u64(optarg, &o.limit) != 0 || o.limit == 0)
                return usage();
            break;
        case O_UNSORTED: o.unsorted = 1; break;
        case O_RSTREAM:
            if (parse_u64(optarg, &v) != 0)
                return usage();
            o.use_rstream = 1;
            o.rstream = (uint32_t)v;
            break;
        case O_NOMASTER: o.no_master = 1; break;
        default: return usage();
        }
    }
    if (optind != argc - 1)
        return usage();
    o.stub = argv[optind];
    if (o.parts == 0)
        o.parts = (1u << P_COUNT) - 1;

    /* With a record limit, first read everything in one go (output
     * discarded): the chunks must add up to that. */
    if (o.limit > 0) {
        struct options once = o;
        struct state quiet = { 0 };
        once.limit = 0;
        quiet.out = fopen("/dev/null", "w");
        if (quiet.out == NULL || read_trace(&quiet, &once, &whole) != 0)
            return 1;
        fclose(quiet.out);
    }

    st.out = stdout;
    rc = read_trace(&st, &o, &chunked);

    for (int p = 0; rc == 0 && o.limit > 0 && p < P_COUNT; p++) {
        if (chunked.returned[p] != whole.returned[p] || chunked.handled[p] != whole.handled[p]) {
            fprintf(stderr, "otf_read_all: %s: %s in chunks of %" PRIu64 ": %" PRIu64
                    " records (%" PRIu64 " handled), in one go %" PRIu64 " (%" PRIu64 ")\n",
                    o.stub, part_name[p], o.limit, chunked.returned[p], chunked.handled[p],
                    whole.returned[p], whole.handled[p]);
            rc = -1;
        }
    }

    fprintf(st.out, "# counts\n");
    for (int id = 0; id < OTF_NRECORDS; id++) {
        if (st.count[id] == 0)
            continue;
        fprintf(st.out, "count %s %" PRIu64 "\n", record_name[id], st.count[id]);
        total += st.count[id];
    }
    fprintf(st.out, "total %" PRIu64 "\n", total);
    return rc == 0 ? 0 : 1;
}
