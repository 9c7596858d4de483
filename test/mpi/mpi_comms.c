/*
 * mpi_comms DIR — communicators made and named the ways a program does:
 *   dup of world, named "solver" by MPI_Comm_set_name;
 *   a split of it by parity (its name comes from the parent's given name);
 *   a split of world into two halves, named "halves" after it was made;
 *   a dup of MPI_COMM_SELF; MPI_COMM_SELF itself.
 * Each is used in a collective (an allreduce of one int), so that every
 * rank's trace has them; MPI_COMM_SELF also in a message to itself.  test/integration/mpi_comm_names.sh works the
 * names out by hand and compares them with the process groups of the
 * converted trace.  Writes DIR/expect_<rank>.txt (mpitest.h) for the
 * basics of the run.
 */
#include "mpitest.h"

static int me;

static void use(MPI_Comm comm)
{
    int x = 1, y = 0;

    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, comm);
    expect_coll("MPI_Allreduce", -1, 4, 4, 0);
}

int main(int argc, char **argv)
{
    MPI_Comm solver, parity, halves, self_dup;
    int np;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    check(argc > 1, "usage: mpi_comms DIR");
    expect_open(argv[1]);

    use(MPI_COMM_WORLD);
    use(MPI_COMM_SELF);
    {   /* a message to itself over MPI_COMM_SELF */
        int x = me, y = -1;

        MPI_Sendrecv(&x, 1, MPI_INT, 0, 3, &y, 1, MPI_INT, 0, 3, MPI_COMM_SELF,
                     MPI_STATUS_IGNORE);
        check(y == me, "self message");
        expect_msg("send", me, 3, 4, SR);
        expect_msg("recv", me, 3, 4, SR);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &solver);
    MPI_Comm_set_name(solver, "solver");
    use(solver);
    MPI_Comm_split(solver, me % 2, me, &parity);
    use(parity);
    MPI_Comm_split(MPI_COMM_WORLD, me < np / 2, me, &halves);
    use(halves);
    MPI_Comm_set_name(halves, "halves");
    use(halves);
    MPI_Comm_dup(MPI_COMM_SELF, &self_dup);
    use(self_dup);

    MPI_Comm_free(&self_dup);
    MPI_Comm_free(&halves);
    MPI_Comm_free(&parity);
    MPI_Comm_free(&solver);
    expect_close();
    MPI_Finalize();
    return 0;
}
