/*
 * stub.c — libvftrcapture-mpi.so built without MPI (no mpicc at build
 * time, or `make MPICC=`).  It wraps nothing and records nothing: an MPI
 * program run under vftr-run is then captured like any other program (its
 * functions, no MPI records, one file named by process id), and the
 * library exists so that vftr-run and an installation need no second
 * shape.  vftr_mpi_stub tells a test which of the two was built.
 */
__attribute__((visibility("default"))) extern const int vftr_mpi_stub;
__attribute__((visibility("default"))) const int vftr_mpi_stub = 1;
