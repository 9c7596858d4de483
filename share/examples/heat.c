/*
 * heat.c — vftr's demo program (make demo): the 2-D heat equation on a
 * square plate, split into horizontal strips, one per MPI rank.
 *
 * Each iteration exchanges the boundary rows with the neighbours (halo
 * exchange with MPI_Isend/MPI_Irecv/MPI_Waitall), applies one Jacobi step
 * in an OpenMP parallel loop, and every few iterations agrees on the
 * largest change with MPI_Allreduce to decide convergence.  Rank 0 gathers
 * the plate's mean temperature at the end (MPI_Reduce).  The functions are
 * a few levels deep so that the profile and the trace have some shape:
 *
 *   main > solve > iterate > exchange_halo > post_receives / post_sends
 *                          > jacobi_step   > update_row (OpenMP loop)
 *                          > converged     > local_residual
 *        > report > mean_temperature
 *
 * Build: mpicc -fopenmp -finstrument-functions (clang, for OMPT).
 * Run:   mpirun -np 4 vftr-run -o DIR -- ./heat [N] [ITERATIONS]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_UP   1
#define TAG_DOWN 2

struct plate {
    int n;              /* columns (and global rows) */
    int rows;           /* rows of this rank, without the two halo rows */
    int rank, size;
    double *t, *next;   /* (rows + 2) x n */
};

/* Called for every row: kept out of the trace. */
__attribute__((no_instrument_function))
static inline double *row(double *a, const struct plate *p, int i)
{
    return a + (size_t)i * (size_t)p->n;
}

static void init_plate(struct plate *p, int n)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p->size);
    p->n = n;
    p->rows = n / p->size + (p->rank < n % p->size);
    p->t = calloc((size_t)(p->rows + 2) * (size_t)n, sizeof(double));
    p->next = calloc((size_t)(p->rows + 2) * (size_t)n, sizeof(double));
    if (!p->t || !p->next) {
        fprintf(stderr, "heat: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* the top edge of the plate (the first row of rank 0) is hot */
    if (p->rank == 0)
        for (int j = 0; j < n; j++)
            row(p->t, p, 1)[j] = row(p->next, p, 1)[j] = 100.0;
}

static void post_receives(struct plate *p, MPI_Request *req, int *nreq)
{
    if (p->rank > 0)
        MPI_Irecv(row(p->t, p, 0), p->n, MPI_DOUBLE, p->rank - 1, TAG_DOWN, MPI_COMM_WORLD,
                  &req[(*nreq)++]);
    if (p->rank < p->size - 1)
        MPI_Irecv(row(p->t, p, p->rows + 1), p->n, MPI_DOUBLE, p->rank + 1, TAG_UP,
                  MPI_COMM_WORLD, &req[(*nreq)++]);
}

static void post_sends(struct plate *p, MPI_Request *req, int *nreq)
{
    if (p->rank > 0)
        MPI_Isend(row(p->t, p, 1), p->n, MPI_DOUBLE, p->rank - 1, TAG_UP, MPI_COMM_WORLD,
                  &req[(*nreq)++]);
    if (p->rank < p->size - 1)
        MPI_Isend(row(p->t, p, p->rows), p->n, MPI_DOUBLE, p->rank + 1, TAG_DOWN,
                  MPI_COMM_WORLD, &req[(*nreq)++]);
}

static void exchange_halo(struct plate *p)
{
    MPI_Request req[4];
    int nreq = 0;

    post_receives(p, req, &nreq);
    post_sends(p, req, &nreq);
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}

static void update_row(struct plate *p, int i)
{
    const double *up = row(p->t, p, i - 1), *mid = row(p->t, p, i), *down = row(p->t, p, i + 1);
    double *out = row(p->next, p, i);

    for (int j = 1; j < p->n - 1; j++)
        out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
}

static void jacobi_step(struct plate *p)
{
    /* the global first and last rows are fixed edges */
    int first = p->rank == 0 ? 2 : 1;
    int last = p->rank == p->size - 1 ? p->rows - 1 : p->rows;

#pragma omp parallel for schedule(static)
    for (int i = first; i <= last; i++)
        update_row(p, i);
}

static double local_residual(const struct plate *p)
{
    double d = 0.0;

#pragma omp parallel for reduction(max : d)
    for (int i = 1; i <= p->rows; i++)
        for (int j = 0; j < p->n; j++) {
            double x = fabs(row(p->next, p, i)[j] - row(p->t, p, i)[j]);
            if (x > d)
                d = x;
        }
    return d;
}

static int converged(struct plate *p, double eps)
{
    double local = local_residual(p), global;

    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return global < eps;
}

static int iterate(struct plate *p, int it)
{
    double *swap;
    int done;

    exchange_halo(p);
    jacobi_step(p);
    done = it % 10 == 9 && converged(p, 1e-4);
    swap = p->t;
    p->t = p->next;
    p->next = swap;
    return done;
}

static int solve(struct plate *p, int max_it)
{
    int it;

    for (it = 0; it < max_it; it++)
        if (iterate(p, it))
            return it + 1;
    return it;
}

static double mean_temperature(const struct plate *p)
{
    double sum = 0.0, total = 0.0;

    for (int i = 1; i <= p->rows; i++)
        for (int j = 0; j < p->n; j++)
            sum += row(p->t, p, i)[j];
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return total / ((double)p->n * p->n);
}

static void report(const struct plate *p, int iterations)
{
    double mean = mean_temperature(p);

    if (p->rank == 0)
        printf("heat: %d x %d plate on %d ranks: %d iterations, mean temperature %.4f\n", p->n,
               p->n, p->size, iterations, mean);
}

int main(int argc, char **argv)
{
    struct plate p;
    int n = argc > 1 ? atoi(argv[1]) : 256;
    int max_it = argc > 2 ? atoi(argv[2]) : 200;
    int provided, iterations;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (n < 8)
        n = 8;
    init_plate(&p, n);
    iterations = solve(&p, max_it);
    report(&p, iterations);
    free(p.t);
    free(p.next);
    MPI_Finalize();
    return 0;
}
