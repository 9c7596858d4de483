/*
 * ompt_lines.h — source file and line of a code address in the running
 * process, from the DWARF line tables of the object that holds it (the
 * executable or a shared library, wherever the loader put it).
 *
 * The OpenMP tool (ompt.c) asks once per region definition, never per
 * event; capture/names.c once per function it names from the debug
 * information.  The reading is elfutils' libdw (libdwfl): an object is opened and
 * its line tables are read the first time an address inside it is asked
 * for; the DWARF comes from the object itself or, when the object was
 * stripped with a separate debug file, from that file found by build id
 * under /usr/lib/debug (a local lookup: debuginfod is never asked, capture
 * does no network I/O).  Objects without line tables, files that cannot be
 * opened and libdw's own failures all end as "not found" (-ENOENT or
 * -ENODATA), never as a crash or a message: the caller decides what to say.
 *
 * Built without libdw (no <elfutils/libdwfl.h> at compile time; see
 * capture/ompt/module.mk, which links -ldw only when the header is there)
 * vftr_ompt_lines_new fails with ENOTSUP and nothing else is ever called.
 *
 * Ownership: the handle is the caller's (free with vftr_ompt_lines_free);
 * file names handed out are borrowed and live until the handle is freed.
 * Threads: a handle is not thread-safe; the caller serializes every call
 * on one handle (ompt.c holds its region map's lock).  Not
 * async-signal-safe (opens files, allocates).
 */
#ifndef VFTR_CAPTURE_OMPT_LINES_H
#define VFTR_CAPTURE_OMPT_LINES_H

#include <stdint.h>

struct vftr_ompt_lines;

/* A session with no object read yet (cheap: the work happens in find).
 * Returns a new handle (caller owns, free with vftr_ompt_lines_free) or
 * NULL + errno: ENOTSUP (built without libdw), ENOMEM, EIO (libdw refused
 * to start). */
struct vftr_ompt_lines *vftr_ompt_lines_new(void) __attribute__((no_instrument_function));

/* The source position of the instruction at addr (give a return address
 * minus one to get the call's line).  Returns 0 with *file (borrowed,
 * non-empty) and *line (>= 1) filled; -ENOENT when no loaded object holds
 * addr or the object's file cannot be read; -ENODATA when the object has no
 * line table for addr (built without -g, stripped); -EINVAL for a NULL
 * argument.  *object, when object is not NULL, is set on -ENODATA to the
 * path of the object without line information (borrowed; may be "")
 * and to NULL otherwise. */
int vftr_ompt_lines_find(struct vftr_ompt_lines *l, uintptr_t addr, const char **file,
                         uint32_t *line, const char **object)
    __attribute__((no_instrument_function));

/* The name the debug information gives the function whose code holds addr
 * (DW_AT_name of the innermost DW_TAG_subprogram around it: the PROGRAM
 * name of a Fortran main program, whose symbol is MAIN__), copied into buf
 * (cut to size).  0, -ENOENT (no object holds addr), -ENODATA (no debug
 * information there, or no name), -EINVAL. */
int vftr_ompt_lines_function(struct vftr_ompt_lines *l, uintptr_t addr, char *buf, size_t size)
    __attribute__((no_instrument_function));

/* Ends the session: closes the objects' files and frees every string handed
 * out.  NULL is a no-op. */
void vftr_ompt_lines_free(struct vftr_ompt_lines *l) __attribute__((no_instrument_function));

#endif /* VFTR_CAPTURE_OMPT_LINES_H */
