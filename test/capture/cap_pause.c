/* cap_pause N T [end-paused] — vftr_pause() and vftr_resume() from callees
 * and callers while T threads run (issue 14: pausing left frames open for good, and
 * later calls were booked under functions that had returned).
 *
 * The threads meet at barriers (not instrumented), so that every call is
 * made in a known phase and every switch finds every thread in a known
 * frame:
 *   B1  main in setup, workers in worker_main; phase 1 done (running)
 *       setup pauses and returns (a pause in a callee)
 *   B3  phase 2 done (paused: main calls compute, workers work, a thread
 *       made now works too, then waits in late_wait)
 *       main resumes (in setup's caller); phase 3 runs
 *   B5  main pauses (in main)
 *   B6  main calls resume_later, which calls compute (paused) ...
 *   B7  ... and resumes (a resume in a callee); phase 5 runs
 *   B9  the end (with end-paused, main pauses once more and the process
 *       ends paused).
 * The program counts, per caller and function, the calls it made while
 * recording ran, plus one per frame open at each resume (capture enters
 * those again there, and counts the entry as a call): "edge CALLER FUNC N"
 * (CALLER "-" for a thread's first function), and "count FUNC N" summed
 * over callers.  Without vftr the API is absent (weak) and the counts are
 * what a capture should say all the same. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "calls.h"
#include "vftr.h"

#pragma weak vftr_pause
#pragma weak vftr_resume

enum edge {
    E_MAIN, E_SETUP, E_SETUP_COMPUTE, E_MAIN_COMPUTE, E_RESUME_LATER, E_RL_COMPUTE,
    E_WORKER, E_WORK, E_LEAF, E_LATE, E_LATE_WAIT, E_LATE_WORK, NEDGES
};

static const char *const edge_name[NEDGES][2] = {
    { "-", "main" },          { "main", "setup" },      { "setup", "compute" },
    { "main", "compute" },    { "main", "resume_later" }, { "resume_later", "compute" },
    { "-", "worker_main" },   { "worker_main", "work" }, { "work", "leaf" },
    { "-", "late_main" },     { "late_main", "late_wait" }, { "late_main", "work" },
};

static atomic_ullong counts[NEDGES];
static long n_calls;
static int n_threads;
static pthread_barrier_t all, late_bar;

/* The program's own view of the phase (changed by main only between
 * barriers, so every thread reads a settled value). */
static atomic_int recording = 1;

/* Set while warm() runs, before main: each function is called once and
 * returns at once. */
static int warming;

static inline NOINST void count(enum edge e)
{
    if (atomic_load(&recording))
        atomic_fetch_add(&counts[e], 1);
}

static inline NOINST void sync_all(void)
{
    pthread_barrier_wait(&all);
}

static NOINST void pause_here(void)
{
    atomic_store(&recording, 0);
    if (vftr_pause)
        vftr_pause();
}

/* A resume; `open` lists the frames open at that moment besides the
 * workers' worker_main (each counts one call more), ending with NEDGES. */
static NOINST void resume_here(const int *open)
{
    if (vftr_resume)
        vftr_resume();
    for (; *open != NEDGES; open++)
        atomic_fetch_add(&counts[*open], 1);
    atomic_fetch_add(&counts[E_WORKER], (unsigned long long)n_threads);
    atomic_store(&recording, 1);
}

static NOINLINE void leaf(void)
{
    if (warming)
        return;
    count(E_LEAF);
    capture_sink++;
}

static NOINLINE void work(enum edge from)
{
    if (warming)
        return;
    count(from);
    leaf();
}

static NOINLINE void compute(enum edge from)
{
    if (warming)
        return;
    count(from);
    capture_sink++;
}

static NOINLINE void *worker_main(void *arg)
{
    (void)arg;
    if (warming)
        return NULL;
    count(E_WORKER);
    for (int phase = 1; phase <= 5; phase++) {
        for (long i = 0; i < n_calls; i++)
            work(E_WORK);
        sync_all();   /* B1, B3, B5, B7, B9 */
        if (phase < 5)
            sync_all();   /* B2, B4, B6, B8: a switch was made between */
    }
    return NULL;
}

/* Made during the first pause: works paused, waits here over the resume,
 * works again. */
static NOINLINE void late_wait(void)
{
    if (warming)
        return;
    count(E_LATE_WAIT);
    pthread_barrier_wait(&late_bar);   /* main resumes after this ... */
    pthread_barrier_wait(&late_bar);   /* ... and lets us go on */
}

static NOINLINE void *late_main(void *arg)
{
    (void)arg;
    if (warming)
        return NULL;
    count(E_LATE);
    for (long i = 0; i < n_calls; i++)
        work(E_LATE_WORK);
    late_wait();
    for (long i = 0; i < n_calls; i++)
        work(E_LATE_WORK);
    return NULL;
}

static NOINLINE void setup(void)
{
    if (warming)
        return;
    count(E_SETUP);
    for (long i = 0; i < n_calls; i++)
        compute(E_SETUP_COMPUTE);
    sync_all();   /* B1 */
    pause_here();
}

static NOINLINE void resume_later(void)
{
    static const int open[] = { E_MAIN, E_RESUME_LATER, NEDGES };

    if (warming)
        return;
    count(E_RESUME_LATER);
    for (long i = 0; i < n_calls; i++)
        compute(E_RL_COMPUTE);   /* paused */
    sync_all();   /* B7 */
    resume_here(open);
    sync_all();   /* B8 */
    for (long i = 0; i < n_calls; i++)
        compute(E_RL_COMPUTE);
}

/*
 * Before main (not recorded: capture leaves calls before main out), every
 * function is called once, so that capture meets each of them here.  A
 * function capture meets for the first time costs it a symbol lookup,
 * which it cuts out of the profile's open frames but not out of the
 * trace's times (share/doc/capture.md); met here, that happens before any
 * frame that the comparison of the log with the trace looks at is open.
 */
__attribute__((constructor)) static void warm(void)
{
    warming = 1;
    leaf();
    work(E_WORK);
    compute(E_MAIN_COMPUTE);
    (void)worker_main(NULL);
    late_wait();
    (void)late_main(NULL);
    setup();
    resume_later();
    warming = 0;
}

int main(int argc, char **argv)
{
    static const int open1[] = { E_MAIN, E_LATE, E_LATE_WAIT, NEDGES };
    pthread_t th[16], late;
    unsigned long long sum[NEDGES] = { 0 };

    count(E_MAIN);
    n_calls = arg_long(argc, argv, 1, 1000);
    n_threads = (int)arg_long(argc, argv, 2, 4);
    if (n_threads < 1 || n_threads > 16)
        n_threads = 4;
    pthread_barrier_init(&all, NULL, (unsigned)n_threads + 1);
    pthread_barrier_init(&late_bar, NULL, 2);
    for (int k = 0; k < n_threads; k++)
        pthread_create(&th[k], NULL, worker_main, NULL);
    setup();            /* B1 inside; returns paused */
    sync_all();         /* B2 */
    for (long i = 0; i < n_calls; i++)
        compute(E_MAIN_COMPUTE);   /* paused */
    pthread_create(&late, NULL, late_main, NULL);
    sync_all();         /* B3 */
    pthread_barrier_wait(&late_bar);   /* the late thread waits in late_wait */
    resume_here(open1);
    pthread_barrier_wait(&late_bar);
    sync_all();         /* B4 */
    for (long i = 0; i < n_calls; i++)
        compute(E_MAIN_COMPUTE);
    pthread_join(late, NULL);
    sync_all();         /* B5 */
    pause_here();
    sync_all();         /* B6 */
    resume_later();     /* B7, B8 inside */
    sync_all();         /* B9 */
    for (int k = 0; k < n_threads; k++)
        pthread_join(th[k], NULL);
    if (argc > 3 && strcmp(argv[3], "end-paused") == 0)
        pause_here();   /* the process ends paused */
    for (int e = 0; e < NEDGES; e++) {
        unsigned long long c = atomic_load(&counts[e]);

        printf("edge %s %s %llu\n", edge_name[e][0], edge_name[e][1], c);
        for (int f = 0; f < NEDGES; f++)
            if (strcmp(edge_name[f][1], edge_name[e][1]) == 0) {
                sum[f] += c;
                break;
            }
    }
    for (int f = 0; f < NEDGES; f++)
        if (sum[f])
            report(edge_name[f][1], sum[f]);
    printf("api %s\n", vftr_pause ? "yes" : "no");
    return 0;
}
