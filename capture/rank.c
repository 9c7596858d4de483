/*
 * rank.c — the MPI rank before MPI_Init, from the launcher's environment.
 *
 * Until MPI_Init tells the truth, capture needs the rank to name its files
 * and to let only rank 0 print one-time messages.  Launchers export it; one
 * table lists their variables, in the order they are trusted (the MPI
 * library's own launcher first, the resource manager last: under
 * `srun --mpi=pmix` both PMIX_RANK and SLURM_PROCID are set and agree; under
 * `mpirun` inside a Slurm allocation SLURM_PROCID describes the mpirun step,
 * not the rank, so it comes last).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

extern char **environ;

struct launcher {
    const char *rank;   /* variable holding the rank */
    const char *size;   /* variable holding the number of ranks */
};

static const struct launcher launchers[] = {
    { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },  /* Open MPI's mpirun/prte */
    { "PMIX_RANK", "PMIX_SIZE" },                        /* PMIx (srun --mpi=pmix, prterun) */
    { "PMI_RANK", "PMI_SIZE" },                          /* PMI-1/2: MPICH hydra, Intel MPI */
    { "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE" },    /* MVAPICH2 mpirun_rsh */
    { "SLURM_PROCID", "SLURM_NTASKS" },                  /* Slurm srun */
};

/* Value of name in envp, or NULL. */
static VFTR_NI const char *env_get(char *const *envp, const char *name)
{
    size_t len = strlen(name);

    for (; *envp; envp++)
        if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=')
            return *envp + len + 1;
    return NULL;
}

/* A decimal number 0..INT_MAX with nothing around it, or -1. */
static VFTR_NI int parse_nonneg(const char *s)
{
    char *end;
    long v;

    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end != '\0' || v > INT_MAX)
        return -1;
    return (int)v;
}

/* Variables naming the job (one mpirun or srun step): all its processes see
 * the same values.  Open MPI 4 (ess), PMIx (Open MPI 5, prterun, srun
 * --mpi=pmix), Slurm (job and step). */
static const char *const job_vars[][2] = {
    { "OMPI_MCA_ess_base_jobid", NULL },
    { "PMIX_NAMESPACE", NULL },
    { "SLURM_JOB_ID", "SLURM_STEP_ID" },
};

VFTR_NI int vftr_job_from_env(char *const *envp, char *buf, size_t len)
{
    if (envp == NULL)
        envp = environ;
    if (envp == NULL || len == 0)
        return 0;
    for (size_t i = 0; i < sizeof job_vars / sizeof job_vars[0]; i++) {
        const char *a = env_get(envp, job_vars[i][0]);
        const char *b = job_vars[i][1] ? env_get(envp, job_vars[i][1]) : "";

        if (a == NULL || *a == '\0' || b == NULL)
            continue;
        snprintf(buf, len, "%s=%s;%s", job_vars[i][0], a, b);
        return 1;
    }
    return 0;
}

VFTR_NI int vftr_rank_from_env(char *const *envp, int *rank, int *size)
{
    size_t i;

    if (envp == NULL)
        envp = environ;
    if (envp == NULL)
        return 0;
    for (i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        int r, n;

        r = parse_nonneg(env_get(envp, launchers[i].rank));
        if (r < 0)
            continue;
        n = parse_nonneg(env_get(envp, launchers[i].size));
        *rank = r;
        if (n > r)
            *size = n;
        return 1;
    }
    return 0;
}
