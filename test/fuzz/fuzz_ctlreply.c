/*
 * fuzz_ctlreply.c — libFuzzer target for vftr-ctl's client side (the tool
 * capture/tools/vftr-ctl.c, compiled in here with its main() renamed): the
 * bytes an endpoint sends — a banner, then the answer to one request —
 * come from the input through a socket pair, and go through the client's
 * own code: the banner check, the line reader with its bounds (size and
 * total time), the answer's lines, then what the commands make of them
 * (a status's fields as the process list reads them, a profile summed over
 * "processes", the stacks printed as text and as JSON).
 *
 * The first byte chooses the bound on the answer (--max-answer, 1 KiB to
 * 64 KiB) and text or JSON; the rest is what the endpoint sends, after
 * which it closes its side.  Properties checked besides "no crash, no hang,
 * no sanitizer report, no leak": a request either fails with a message and
 * nothing left in the reply, or gives data lines that came from "* " lines
 * within the bound; a profile's rows have counts and times that read as
 * numbers.
 */
#include <stdint.h>
#include <sys/socket.h>

int vftr_ctl_main(int argc, char **argv);
#define main vftr_ctl_main
#include "../../capture/tools/vftr-ctl.c"
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    timeout_ns = 200000000u;    /* the pair is closed after the data: EOF comes first */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct conn c;           /* 64 KiB: not on the stack */
    struct reply r;
    const char *err = NULL;
    int sv[2];

    if (size < 1 || size > 150000)
        return 0;
    max_answer = 1024u << (data[0] % 7);
    opt_json = data[0] & 0x80;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return 0;
    /* the endpoint's bytes, then its end of the pair shut for writing (the
     * request the client sends still has room in the pair's buffer) */
    for (size_t off = 1; off < size;) {
        ssize_t n = write(sv[1], data + off, size - off);

        if (n <= 0)
            break;
        off += (size_t)n;
    }
    shutdown(sv[1], SHUT_WR);
    c.fd = sv[0];
    if (conn_banner(&c, &err) < 0) {        /* closes c.fd */
        if (!err)
            abort();
        close(sv[1]);
        return 0;
    }
    if (conn_request(&c, "status", &r, &err) < 0) {
        if (!err || r.lines || r.n || r.text)
            abort();
    } else {
        struct proc p;
        struct aggv job = { 0 };
        char v[64];

        if (r.bytes > max_answer || r.text == NULL)
            abort();
        memset(&p, 0, sizeof p);
        p.pid = 1;
        for (size_t i = 0; i < r.n; i++) {
            kv(r.lines[i], "rank", v, sizeof v);
            if (field_int(v, &p.rank) < 0)
                p.rank = -1;
            kv(r.lines[i], "job", p.job, sizeof p.job);
        }
        agg_add(&job, &r);
        agg_add(&job, &r);                  /* a second "process" */
        for (size_t i = 0; i < job.n; i++)
            if (job.v[i].nprocs != 2 || !(job.v[i].excl_sum == job.v[i].excl_sum))
                abort();                    /* rows of both, numbers that read */
        aggv_release(&job);
        if (opt_json) {
            json_root = cJSON_CreateObject();
            cJSON_AddArrayToObject(json_root, "stacks");
        }
        print_stacks(&p, &r);
        cJSON_Delete(json_root);
        json_root = NULL;
        reply_release(&r);
    }
    close(c.fd);
    close(sv[1]);
    return 0;
}
