/*
 * test_capture_io.c — Check suite for capture/io.c: absolute names of files
 * (worked out by hand), the excluded directories of io.exclude_paths, file
 * ids, the descriptor table, and records written into the trace (read back
 * with lib/vfd's reader: the file's definition before the first event that
 * names it).  Each test runs in a child (CK_FORK) that starts capture
 * through the environment, as a program under vftr-run would.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "io.h"
#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_capture_io.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Ends capture (its message about a program without hooks goes nowhere)
 * and removes the directory. */
static void remove_dir(void)
{
    char cmd[128];

    if (vftr_proc.recording) {
        int err = dup(2), null = open("/dev/null", O_WRONLY);

        dup2(null, 2);
        vftr_finalize();
        dup2(err, 2);
        close(err);
        close(null);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *abs_of(int dirfd, const char *path)
{
    static char out[VFTR_IO_PATH_MAX];
    size_t n = vftr_io_abspath(dirfd, path, out, sizeof out);

    ck_assert_uint_eq(n, n ? strlen(out) : 0);
    return n ? out : NULL;
}

/* Names made absolute: the working directory (or the directory of a
 * descriptor) in front of a relative name, empty, "." and ".." components
 * taken out, nothing above the root. */
START_TEST(absolute_names)
{
    char want[200], sub[128];
    int dfd;

    make_dir();
    ck_assert_int_eq(chdir(dir), 0);
    snprintf(want, sizeof want, "%s/a/c", dir);
    ck_assert_str_eq(abs_of(AT_FDCWD, "a/./b/../c"), want);
    snprintf(want, sizeof want, "%s/x", dir);
    ck_assert_str_eq(abs_of(AT_FDCWD, "./x"), want);
    ck_assert_str_eq(abs_of(AT_FDCWD, "/x//y/./z/.."), "/x/y");
    ck_assert_str_eq(abs_of(AT_FDCWD, "/.."), "/");
    ck_assert_str_eq(abs_of(AT_FDCWD, "/../../e"), "/e");
    ck_assert_str_eq(abs_of(AT_FDCWD, "/"), "/");
    ck_assert_str_eq(abs_of(AT_FDCWD, "/a/b/"), "/a/b");
    /* "/tmp/test_capture_io.XXXXXX" is two levels deep */
    ck_assert_str_eq(abs_of(AT_FDCWD, "../../../../etc"), "/etc");
    /* relative to a directory descriptor */
    snprintf(sub, sizeof sub, "%s/sub", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    dfd = open(sub, O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(dfd, 0);
    snprintf(want, sizeof want, "%s/sub/f", dir);
    ck_assert_str_eq(abs_of(dfd, "f"), want);
    ck_assert_str_eq(abs_of(dfd, "/abs"), "/abs");   /* absolute: dirfd not used */
    close(dfd);
    ck_assert_ptr_null(abs_of(12345, "f"));          /* not a descriptor */
    ck_assert_ptr_null(abs_of(AT_FDCWD, NULL));
    /* too long: not made */
    {
        static char longname[VFTR_IO_PATH_MAX + 10];

        memset(longname, 'a', sizeof longname - 1);
        longname[0] = '/';
        ck_assert_ptr_null(abs_of(AT_FDCWD, longname));
    }
    remove_dir();
}
END_TEST

/* Starts capture in this process with the trace in dir and the given
 * excluded directories. */
static void start_capture(const char *exclude)
{
    make_dir();
    setenv("VFTR_OUTPUT_DIRECTORY", dir, 1);
    setenv("VFTR_OUTFILE_BASENAME", "io", 1);
    setenv("VFTR_CONTROL_ACTIVE", "false", 1);
    setenv("VFTR_LOGFILE_FOR_RANKS", "none", 1);
    if (exclude)
        setenv("VFTR_IO_EXCLUDE_PATHS", exclude, 1);
    else
        unsetenv("VFTR_IO_EXCLUDE_PATHS");
    ck_assert_ptr_nonnull(vftr_thread_attach());
    ck_assert(vftr_proc.recording);
}

/* A directory excludes itself and what lies below, not a name that merely
 * begins like it; a trailing '/' in the key changes nothing; "/" excludes
 * all. */
START_TEST(excluded_directories)
{
    start_capture("/proc:/skip/me/::/var/lib");
    ck_assert(vftr_io_enabled_now());
    ck_assert(vftr_io_excluded("/proc", 5));
    ck_assert(vftr_io_excluded("/proc/self/status", 17));
    ck_assert(!vftr_io_excluded("/procx", 6));
    ck_assert(vftr_io_excluded("/skip/me", 8));
    ck_assert(vftr_io_excluded("/skip/me/x", 10));
    ck_assert(!vftr_io_excluded("/skip/mex", 9));
    ck_assert(!vftr_io_excluded("/skip", 5));
    ck_assert(vftr_io_excluded("/var/lib/dpkg", 13));
    ck_assert(!vftr_io_excluded("/var/tmp/x", 10));
    ck_assert(!vftr_io_excluded("/usr/lib", 8));   /* not in this list */
    remove_dir();
}
END_TEST

START_TEST(exclude_everything)
{
    start_capture("/");
    ck_assert(vftr_io_excluded("/home/x", 7));
    ck_assert(vftr_io_excluded("/", 1));
    remove_dir();
}
END_TEST

/* The default excludes the system's directories (the key table's value). */
START_TEST(default_excludes)
{
    start_capture(NULL);
    ck_assert(vftr_io_excluded("/proc/self/maps", 15));
    ck_assert(vftr_io_excluded("/usr/share/zoneinfo/UTC", 23));
    ck_assert(vftr_io_excluded("/etc/hostname", 13));
    ck_assert(vftr_io_excluded("/dev/shm/x", 10));
    ck_assert(!vftr_io_excluded("/tmp/x", 6));
    ck_assert(!vftr_io_excluded("/home/u/data", 12));
    ck_assert(!vftr_io_excluded("/var/tmp/x", 10));
    remove_dir();
}
END_TEST

/* io.active = false: nothing is followed, no table is mapped. */
START_TEST(inactive)
{
    setenv("VFTR_IO_ACTIVE", "false", 1);
    start_capture(NULL);
    unsetenv("VFTR_IO_ACTIVE");
    ck_assert(!vftr_io_enabled_now());
    ck_assert_uint_eq(vftr_io_nfds, 0);
    ck_assert_uint_eq(vftr_io_slot(3), 0);
    vftr_io_slot_set(3, 1);   /* no table: nothing happens */
    ck_assert_uint_eq(vftr_io_slot(3), 0);
    ck_assert(!vftr_io_program_open(NULL));
    remove_dir();
}
END_TEST

/* One id per (name, interface), from 1, in order of first sight; excluded
 * names get none; the descriptor table keeps (file, handle). */
START_TEST(ids_and_slots)
{
    struct vftr_thread *t;
    uint32_t a, b, c;

    start_capture("/skip");
    t = vftr_hook_begin();
    ck_assert_ptr_nonnull(t);
    a = vftr_io_intern("/d/a", 4, VFTR_VFD_IO_POSIX);
    b = vftr_io_intern("/d/b", 4, VFTR_VFD_IO_POSIX);
    c = vftr_io_intern("/d/a", 4, VFTR_VFD_IO_STDIO);
    ck_assert_uint_eq(a, 1);
    ck_assert_uint_eq(b, 2);
    ck_assert_uint_eq(c, 3);
    ck_assert_uint_eq(vftr_io_intern("/d/a", 4, VFTR_VFD_IO_POSIX), a);
    ck_assert_uint_eq(vftr_io_intern("/skip/x", 7, VFTR_VFD_IO_POSIX), 0);
    ck_assert_uint_eq(vftr_io_intern("", 0, VFTR_VFD_IO_POSIX), 0);
    ck_assert_str_eq(vftr_io_file_name(c), "/d/a");
    ck_assert_uint_eq(vftr_io_file_iface(c), VFTR_VFD_IO_STDIO);
    ck_assert_str_eq(vftr_io_file_name(99), "");
    ck_assert_uint_eq(vftr_io_file_iface(0), 0);
    vftr_guard_drop(t);
    ck_assert_uint_ne(vftr_io_new_handle(), vftr_io_new_handle());
    ck_assert_uint_gt(vftr_io_nfds, 1000);
    vftr_io_slot_set(7, (uint64_t)a << 32 | 5);
    ck_assert_uint_eq(vftr_io_slot_file(vftr_io_slot(7)), a);
    ck_assert_uint_eq(vftr_io_slot_handle(vftr_io_slot(7)), 5);
    ck_assert_uint_eq(vftr_io_slot_take(7), (uint64_t)a << 32 | 5);
    ck_assert_uint_eq(vftr_io_slot(7), 0);
    ck_assert_uint_eq(vftr_io_slot(-1), 0);
    ck_assert_uint_eq(vftr_io_slot((int)vftr_io_nfds), 0);
    /* an open by this (program) thread is followed; not while muted, not
     * from inside a hook */
    ck_assert(vftr_io_program_open(NULL));
    vftr_io_mute++;
    ck_assert(!vftr_io_program_open(NULL));
    vftr_io_mute--;
    t = vftr_hook_begin();
    ck_assert(!vftr_io_program_open(NULL));
    vftr_guard_drop(t);
    remove_dir();
}
END_TEST

/* Records reach the trace with their files defined before them; a muted
 * thread's do not. */
START_TEST(records_in_the_trace)
{
    struct vftr_thread *t;
    struct vftr_vfd_reader *r;
    struct vftr_vfd_record rec;
    struct vftr_vfd_io io, d;
    char path[128];
    uint32_t f, g;
    uint64_t now;
    int files = 0, events = 0, defined_first = 1;

    start_capture("/skip");
    t = vftr_hook_begin();
    f = vftr_io_intern("/d/file", 7, VFTR_VFD_IO_POSIX);
    g = vftr_io_intern("/d/new", 6, VFTR_VFD_IO_POSIX);
    vftr_guard_drop(t);
    now = vftr_clock_now();
    io = (struct vftr_vfd_io){ f, 4, VFTR_VFD_IO_WRITE, VFTR_VFD_IO_AT, 300, now - 10, 64, 0 };
    /* before main (the prelude: no main entered here yet): not written */
    ck_assert(!atomic_load(&vftr_proc.main_seen));
    vftr_io_record(&io, now - 5);
    atomic_store(&vftr_proc.main_seen, true);
    vftr_io_record(&io, now);
    vftr_io_mute = 1;
    vftr_io_record(&io, now + 1);   /* muted: not written */
    vftr_io_mute = 0;
    io = (struct vftr_vfd_io){ f, 0, VFTR_VFD_IO_RENAME, 0, 0, now + 2, 0, g };
    vftr_io_record(&io, now + 3);
    t = vftr_hook_begin();
    ck_assert_int_eq(vftr_trace_flush_thread(t, false), 0);
    vftr_guard_drop(t);

    r = vftr_vfd_reader_open(vftr_trace_path());
    ck_assert_ptr_nonnull(r);
    while (vftr_vfd_reader_next(r, &rec) == 1) {
        if (rec.type == VFTR_VFD_REC_UNKNOWN && rec.u.unknown.kind == VFTR_VFD_CHUNK_IO_FILES) {
            struct vftr_vfd_cursor c;
            struct vftr_vfd_io_file_view v;

            vftr_vfd_cursor_init(&c, rec.u.unknown.payload, rec.u.unknown.length,
                                 rec.u.unknown.count);
            while (vftr_vfd_next_io_file(&c, &v) == 1) {
                snprintf(path, sizeof path, "%.*s", (int)v.name_len, v.f.name);
                ck_assert_str_eq(path, v.f.id == f ? "/d/file" : "/d/new");
                ck_assert_uint_eq(v.f.iface, VFTR_VFD_IO_POSIX);
                files++;
            }
        } else if (rec.type == VFTR_VFD_REC_EVENT && rec.u.event.kind == VFTR_VFD_IO) {
            if (files < 2)
                defined_first = 0;
            ck_assert_int_eq(vftr_vfd_io_decode(rec.u.event.data, rec.u.event.id,
                                                rec.u.event.time, &d), 0);
            if (events == 0) {
                ck_assert_uint_eq(d.file, f);
                ck_assert_uint_eq(d.handle, 4);
                ck_assert_uint_eq(d.op, VFTR_VFD_IO_WRITE);
                ck_assert_uint_eq(d.bytes, 300);
                ck_assert_uint_eq(d.offset, 64);
                ck_assert_uint_eq(rec.u.event.time - d.start, 10);
            } else {
                ck_assert_uint_eq(d.op, VFTR_VFD_IO_RENAME);
                ck_assert_uint_eq(d.aux, g);
            }
            events++;
        }
    }
    vftr_vfd_reader_close(r);
    ck_assert_int_eq(files, 2);
    ck_assert_int_eq(events, 2);
    ck_assert(defined_first);
    remove_dir();
}
END_TEST

static Suite *io_suite(void)
{
    Suite *s = suite_create("capture_io");
    TCase *tc = tcase_create("io");

    tcase_add_test(tc, absolute_names);
    tcase_add_test(tc, excluded_directories);
    tcase_add_test(tc, exclude_everything);
    tcase_add_test(tc, default_excludes);
    tcase_add_test(tc, inactive);
    tcase_add_test(tc, ids_and_slots);
    tcase_add_test(tc, records_in_the_trace);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(io_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
