/*
 * otf2map.c — see otf2map.h.  Tables, not code paths: one row per thing.
 */
#include "otf2map.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <otf2/otf2.h>

#include "OTF_Definitions.h"

#include "vfd/vftr_vfd_ext.h"

static const struct {
    uint32_t vftr;              /* enum vftr_vfd_coll_op */
    OTF2_CollectiveOp otf2;
} collops[] = {
    { VFTR_VFD_COLL_BARRIER, OTF2_COLLECTIVE_OP_BARRIER },
    { VFTR_VFD_COLL_BCAST, OTF2_COLLECTIVE_OP_BCAST },
    { VFTR_VFD_COLL_REDUCE, OTF2_COLLECTIVE_OP_REDUCE },
    { VFTR_VFD_COLL_ALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE },
    { VFTR_VFD_COLL_GATHER, OTF2_COLLECTIVE_OP_GATHER },
    { VFTR_VFD_COLL_GATHERV, OTF2_COLLECTIVE_OP_GATHERV },
    { VFTR_VFD_COLL_SCATTER, OTF2_COLLECTIVE_OP_SCATTER },
    { VFTR_VFD_COLL_SCATTERV, OTF2_COLLECTIVE_OP_SCATTERV },
    { VFTR_VFD_COLL_ALLGATHER, OTF2_COLLECTIVE_OP_ALLGATHER },
    { VFTR_VFD_COLL_ALLGATHERV, OTF2_COLLECTIVE_OP_ALLGATHERV },
    { VFTR_VFD_COLL_ALLTOALL, OTF2_COLLECTIVE_OP_ALLTOALL },
    { VFTR_VFD_COLL_ALLTOALLV, OTF2_COLLECTIVE_OP_ALLTOALLV },
    { VFTR_VFD_COLL_ALLTOALLW, OTF2_COLLECTIVE_OP_ALLTOALLW },
    { VFTR_VFD_COLL_REDUCE_SCATTER, OTF2_COLLECTIVE_OP_REDUCE_SCATTER },
    { VFTR_VFD_COLL_REDUCE_SCATTER_BLOCK, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK },
    { VFTR_VFD_COLL_SCAN, OTF2_COLLECTIVE_OP_SCAN },
    { VFTR_VFD_COLL_EXSCAN, OTF2_COLLECTIVE_OP_EXSCAN },
};
#define NCOLLOPS (sizeof collops / sizeof collops[0])

/* OTF2's operations that MPI capture never records (one-sided handles). */
static const char *const other_ops[] = {
    [OTF2_COLLECTIVE_OP_CREATE_HANDLE] = "OTF2 create handle",
    [OTF2_COLLECTIVE_OP_DESTROY_HANDLE] = "OTF2 destroy handle",
    [OTF2_COLLECTIVE_OP_ALLOCATE] = "OTF2 allocate",
    [OTF2_COLLECTIVE_OP_DEALLOCATE] = "OTF2 deallocate",
    [OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE] = "OTF2 create handle and allocate",
    [OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE] = "OTF2 destroy handle and deallocate",
};

int vftr_otf2_collop_of_name(const char *name)
{
    const char *n = name && strncasecmp(name, "MPI_", 4) == 0 ? name + 4 : name;

    if (!n)
        return -1;
    for (size_t i = 0; i < NCOLLOPS; i++)
        if (strcasecmp(vftr_vfd_coll_name(collops[i].vftr) + 4, n) == 0)
            return collops[i].otf2;
    for (size_t op = 0; op < sizeof other_ops / sizeof other_ops[0]; op++)
        if (other_ops[op] && strcmp(other_ops[op], name) == 0)
            return (int)op;             /* read from OTF2: back as it was */
    return -1;
}

uint32_t vftr_otf2_collop_token(int op)
{
    for (size_t i = 0; i < NCOLLOPS; i++)
        if (collops[i].otf2 == op)
            return collops[i].vftr;
    return 100u + (uint32_t)(op & 0xff);
}

const char *vftr_otf2_collop_name(int op)
{
    for (size_t i = 0; i < NCOLLOPS; i++)
        if (collops[i].otf2 == op)
            return vftr_vfd_coll_name(collops[i].vftr);
    if (op >= 0 && (size_t)op < sizeof other_ops / sizeof other_ops[0] && other_ops[op])
        return other_ops[op];
    return "OTF2 collective";
}

static const struct {
    OTF2_Paradigm p;
    const char *name;
} paradigms[] = {
    { OTF2_PARADIGM_UNKNOWN, "unknown" },
    { OTF2_PARADIGM_USER, "user code" },
    { OTF2_PARADIGM_COMPILER, "compiler" },
    { OTF2_PARADIGM_OPENMP, "OpenMP" },
    { OTF2_PARADIGM_MPI, "MPI" },
    { OTF2_PARADIGM_CUDA, "CUDA" },
    { OTF2_PARADIGM_MEASUREMENT_SYSTEM, "measurement" },
    { OTF2_PARADIGM_PTHREAD, "pthread" },
    { OTF2_PARADIGM_SHMEM, "SHMEM" },
    { OTF2_PARADIGM_OPENACC, "OpenACC" },
    { OTF2_PARADIGM_OPENCL, "OpenCL" },
    { OTF2_PARADIGM_SAMPLING, "sampling" },
    { OTF2_PARADIGM_NONE, "none" },
    { OTF2_PARADIGM_HIP, "HIP" },
    { OTF2_PARADIGM_KOKKOS, "Kokkos" },
};

int vftr_otf2_paradigm_of_group(const char *g)
{
    if (g && strcmp(g, "MPI") == 0)
        return OTF2_PARADIGM_MPI;
    if (g && strcmp(g, "OpenMP") == 0)
        return OTF2_PARADIGM_OPENMP;
    return OTF2_PARADIGM_USER;
}

const char *vftr_otf2_paradigm_name(int p)
{
    for (size_t i = 0; i < sizeof paradigms / sizeof paradigms[0]; i++)
        if (paradigms[i].p == p)
            return paradigms[i].name;
    return "other";
}

/* vftr's file groups (lib/vfd's interface names) and OTF2's I/O paradigm
 * identifications (Score-P's). */
static const struct {
    const char *group, *ident;
    int parallel;
} iopar[] = {
    { "POSIX I/O", "POSIX", 0 },
    { "ISO C I/O", "ISOC", 0 },
    { "MPI-IO", "MPI-IO", 1 },
};

const char *vftr_otf2_io_ident(const char *group_name)
{
    for (size_t i = 0; i < sizeof iopar / sizeof iopar[0]; i++)
        if (group_name && strcmp(iopar[i].group, group_name) == 0)
            return iopar[i].ident;
    return group_name ? group_name : "";
}

int vftr_otf2_io_parallel(const char *group_name)
{
    for (size_t i = 0; i < sizeof iopar / sizeof iopar[0]; i++)
        if (group_name && strcmp(iopar[i].group, group_name) == 0)
            return iopar[i].parallel;
    return 0;
}

const char *vftr_otf2_io_group(const char *ident, const char *name)
{
    for (size_t i = 0; i < sizeof iopar / sizeof iopar[0]; i++)
        if (ident && strcmp(iopar[i].ident, ident) == 0)
            return iopar[i].group;
    return name && name[0] ? name : ident ? ident : "";
}

/* OpenMP constructs as vftr names them: "omp KIND @file:line" or
 * "omp KIND" (lib/vfd/ext.c's kinds); the longest kind first where one is
 * the prefix of another. */
static const struct {
    const char *kind;
    OTF2_RegionRole role;
} omp_roles[] = {
    { "omp parallel", OTF2_REGION_ROLE_PARALLEL },
    { "omp implicit task", OTF2_REGION_ROLE_TASK },
    { "omp loop", OTF2_REGION_ROLE_LOOP },
    { "omp sections", OTF2_REGION_ROLE_SECTIONS },
    { "omp single", OTF2_REGION_ROLE_SINGLE },
    { "omp workshare", OTF2_REGION_ROLE_WORKSHARE },
    { "omp distribute", OTF2_REGION_ROLE_LOOP },
    { "omp taskloop", OTF2_REGION_ROLE_LOOP },
    { "omp barrier (explicit)", OTF2_REGION_ROLE_BARRIER },
    { "omp barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER },
    { "omp taskwait", OTF2_REGION_ROLE_TASK_WAIT },
    { "omp taskgroup", OTF2_REGION_ROLE_TASK_WAIT },
    { "omp masked", OTF2_REGION_ROLE_MASTER },
    { "omp critical wait", OTF2_REGION_ROLE_CRITICAL_SBLOCK },
    { "omp critical", OTF2_REGION_ROLE_CRITICAL },
    { "omp lock wait", OTF2_REGION_ROLE_CRITICAL_SBLOCK },
    { "omp lock", OTF2_REGION_ROLE_CRITICAL },
    { "omp ordered wait", OTF2_REGION_ROLE_ORDERED_SBLOCK },
    { "omp ordered", OTF2_REGION_ROLE_ORDERED },
    { "omp task", OTF2_REGION_ROLE_TASK },
};

/* MPI functions by prefix, after the collectives (found by name). */
static const struct {
    const char *prefix;
    OTF2_RegionRole role;
} mpi_roles[] = {
    { "MPI_Send", OTF2_REGION_ROLE_POINT2POINT }, { "MPI_Bsend", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Ssend", OTF2_REGION_ROLE_POINT2POINT }, { "MPI_Rsend", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Recv", OTF2_REGION_ROLE_POINT2POINT }, { "MPI_Isend", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Ibsend", OTF2_REGION_ROLE_POINT2POINT }, { "MPI_Issend", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Irsend", OTF2_REGION_ROLE_POINT2POINT }, { "MPI_Irecv", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Sendrecv", OTF2_REGION_ROLE_POINT2POINT }, { "MPI_Wait", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Test", OTF2_REGION_ROLE_POINT2POINT }, { "MPI_Probe", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Iprobe", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_File", OTF2_REGION_ROLE_FILE_IO },
};

static int coll_role(int op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
        return OTF2_REGION_ROLE_BARRIER;
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
        return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
    case OTF2_COLLECTIVE_OP_REDUCE:
        return OTF2_REGION_ROLE_COLL_ALL2ONE;
    default:
        return OTF2_REGION_ROLE_COLL_ALL2ALL;
    }
}

int vftr_otf2_region_role(int paradigm, const char *name)
{
    if (!name)
        return OTF2_REGION_ROLE_FUNCTION;
    if (paradigm == OTF2_PARADIGM_OPENMP) {
        for (size_t i = 0; i < sizeof omp_roles / sizeof omp_roles[0]; i++) {
            size_t l = strlen(omp_roles[i].kind);

            if (strncmp(name, omp_roles[i].kind, l) == 0 && (name[l] == '\0' || name[l] == ' '))
                return omp_roles[i].role;
        }
        return OTF2_REGION_ROLE_CODE;
    }
    if (paradigm == OTF2_PARADIGM_MPI) {
        int op = vftr_otf2_collop_of_name(name);

        if (op >= 0)
            return coll_role(op);
        if (strncasecmp(name, "MPI_I", 5) == 0 && (op = vftr_otf2_collop_of_name(name + 5)) >= 0)
            return coll_role(op);       /* the nonblocking collectives */
        for (size_t i = 0; i < sizeof mpi_roles / sizeof mpi_roles[0]; i++)
            if (strncasecmp(name, mpi_roles[i].prefix, strlen(mpi_roles[i].prefix)) == 0)
                return mpi_roles[i].role;
    }
    return OTF2_REGION_ROLE_FUNCTION;
}

/* ------------------------------------------------------------ errors */

static _Thread_local char reason[256];
static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;

/* OTF2 hands its message as a printf format and arguments. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static OTF2_ErrorCode keep_reason(void *ud, const char *file, uint64_t line, const char *fn,
                                  OTF2_ErrorCode code, const char *fmt, va_list va)
{
    int n;

    (void)ud, (void)file, (void)line, (void)fn;
    n = snprintf(reason, sizeof reason, "%s", OTF2_Error_GetDescription(code));
    if (fmt && *fmt && n >= 0 && (size_t)n + 2 < sizeof reason) {
        reason[n] = ':';
        reason[n + 1] = ' ';
        vsnprintf(reason + n + 2, sizeof reason - (size_t)n - 2, fmt, va);
    }
    return code;
}
#pragma GCC diagnostic pop

static void install(void)
{
    OTF2_Error_RegisterCallback(keep_reason, NULL);
}

void vftr_otf2_quiet(void)
{
    pthread_once(&quiet_once, install);
}

const char *vftr_otf2_reason(void)
{
    return reason;
}

/* OTF's scope bits (START 0, POINT 4, LAST 8, NEXT 12) are OTF2's timing
 * (START 0, POINT 16, LAST 32, NEXT 48) shifted by two; its type ACC 0 /
 * ABS 1 is OTF2's value ACCUMULATED 0 / ABSOLUTE 1. */
uint32_t vftr_otf2_counter_props(int mode)
{
    uint32_t value = (uint32_t)mode & OTF2_METRIC_VALUE_MASK;
    uint32_t timing = (uint32_t)mode & OTF2_METRIC_TIMING_MASK;

    return (value == OTF2_METRIC_VALUE_ACCUMULATED ? OTF_COUNTER_TYPE_ACC : OTF_COUNTER_TYPE_ABS) |
           (timing >> 2);
}

int vftr_otf2_metric_mode(uint32_t props)
{
    uint32_t scope = props & OTF_COUNTER_SCOPE_BITS;

    if ((props & OTF_COUNTER_TYPE_BITS) == OTF_COUNTER_TYPE_ACC)
        return OTF2_METRIC_VALUE_ACCUMULATED | (int)(scope << 2);
    if (scope == OTF_COUNTER_SCOPE_START)
        return OTF2_METRIC_ABSOLUTE_POINT;
    return OTF2_METRIC_VALUE_ABSOLUTE | (int)(scope << 2);
}
