/*
 * outdir.h — the output directory of a run, and what becomes of the files
 * an earlier run left there.
 *
 * The policy (share/doc/capture.md, "Where the files go"), uftrace's: a run
 * never overwrites the files of another.  The directory (output_directory,
 * vftr-run -o) is made with its parents if missing.  If it holds the files
 * of an earlier run of the same program (the same base name: <base>_<rank>.vfd,
 * <base>_<rank>.log, <base>_all.log and the logs that go with them), they
 * are moved into <dir>/<base>.old/ before this run writes any of its own,
 * replacing the run kept there before (one generation, as uftrace keeps
 * uftrace.data.old), and rank 0 says so once on stderr.  The move is made
 * once per run by one process, rank 0, when it knows its run: at start in a
 * program without MPI, at MPI_Init (when the ranks have agreed on the run
 * id) in an MPI program, at the end in an MPI program that never called
 * MPI_Init.  Files whose run id is this run's (the ranks of one launcher
 * job without MPI share one) stay.  Files being written (*.tmpvfd) are
 * never moved: one may be another rank's of this very run; the readers
 * (lib/model/vfdfiles.h) skip those of other runs with a warning.  Files
 * in other directories (a node-local directory of another node) are
 * reached when their process puts its own files in place: a file in the
 * way is moved into <base>.old/ then, instead of being overwritten.
 *
 * Why not a directory per run (Score-P's scorep-YYYYMMDD_HHMM_ID): the
 * output directory is often the working directory (Vftrace's default "."),
 * shared with the program's own files and with other programs' runs; the
 * latest run stays where the user looks for it, under the names every
 * script already uses, and the disk holds at most two runs of a program.
 *
 * Threads: vftr_outdir_prepare and vftr_outdir_keep_old are called from
 * one thread (initialization, MPI_Init, the finalizer); vftr_outdir_make_room
 * is async-signal-safe (stat, mkdir and rename only; no allocation).
 */
#ifndef VFTR_CAPTURE_OUTDIR_H
#define VFTR_CAPTURE_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Makes directory dir and its missing parents (mode 0777, less the umask).
 * 0, or -errno of the part that could not be made (with that part's path
 * in failed, if failed is not NULL). */
int vftr_outdir_prepare(const char *dir, char *failed, size_t failed_len)
    __attribute__((no_instrument_function));

/* Whether a file name is one of a run's final files of base name base
 * ("app_3.vfd", "app_all.log", "app_0_mpi.log", "app_1.dump2.log"). */
bool vftr_outdir_is_run_file(const char *name, const char *base)
    __attribute__((no_instrument_function));

/* Moves the final files of base in dir that do not belong to run run_id
 * into dir/base.old/, emptied of such files first; says so on stderr when
 * say is true and something was moved.  Returns the number of files moved
 * or -errno (nothing is ever fatal: a file that cannot be moved stays). */
int vftr_outdir_keep_old(const char *dir, const char *base, const uint8_t run_id[16], bool say)
    __attribute__((no_instrument_function));

/* The move above for this process's run, made once: rank 0 calls it when
 * its run is known (see the top); other callers return at once. */
void vftr_outdir_keep_old_once(void) __attribute__((no_instrument_function));

/* Before this process writes path (a final file of its run in the output
 * directory): a file already there that this process did not write is
 * moved into <dir>/<base>.old/ (same name), so nothing is overwritten.
 * Async-signal-safe.  Returns true when a file was moved. */
bool vftr_outdir_make_room(const char *path) __attribute__((no_instrument_function));

/* path was written by this process (make_room leaves it alone from now
 * on).  Async-signal-safe; keeps a few paths. */
void vftr_outdir_written(const char *path) __attribute__((no_instrument_function));

#endif /* VFTR_CAPTURE_OUTDIR_H */
