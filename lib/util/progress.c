/*
 * progress.c — the progress line (see progress.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"

#define BAR 24

static double since(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void vftr_progress_init(struct vftr_progress *p, const char *prog, FILE *out, uint64_t total,
                        int quiet)
{
    memset(p, 0, sizeof *p);
    p->prog = prog;
    p->out = out;
    p->total = total;
    p->on = !quiet && out && isatty(fileno(out));
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
    p->last = p->t0;
}

size_t vftr_progress_format(const char *prog, uint64_t total, uint64_t done, uint64_t events,
                            double elapsed, char *buf, size_t size)
{
    double share = total ? (double)done / (double)total : 0;
    char bar[BAR + 1], left[48] = "";
    int n;

    if (share > 1)
        share = 1;
    for (unsigned i = 0; i < BAR; i++)
        bar[i] = i < (unsigned)(share * BAR) ? '#' : '.';
    bar[BAR] = '\0';
    /* the rate so far, once there is a second of it to judge by */
    if (elapsed >= 1 && share > 0 && share < 1) {
        double rest = elapsed * (1 - share) / share;

        if (rest < 100)
            snprintf(left, sizeof left, ", %.0f s left", rest < 1 ? 1 : rest);
        else if (rest < 6000)
            snprintf(left, sizeof left, ", %.0f min left", rest / 60);
        else
            snprintf(left, sizeof left, ", %.1f h left", rest / 3600);
    }
    n = snprintf(buf, size, "%s: [%s] %3u%% %llu events%s", prog, bar,
                 (unsigned)(share * 100), (unsigned long long)events, left);
    return n < 0 ? 0 : (size_t)n;
}

static void draw(struct vftr_progress *p, uint64_t done, uint64_t events,
                 const struct timespec *now)
{
    char line[160];
    size_t n = vftr_progress_format(p->prog, p->total, done, events, since(&p->t0, now), line,
                                    sizeof line);

    /* "\r" and blanks over what a longer line left */
    fprintf(p->out, "\r%s%*s", line, n < 79 ? (int)(79 - n) : 0, "");
    fflush(p->out);
    p->drawn = 1;
    p->last = *now;
}

void vftr_progress_update(struct vftr_progress *p, uint64_t done, uint64_t events, int force)
{
    struct timespec now;

    if (!p->on)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (force || !p->drawn || since(&p->last, &now) >= 0.1)
        draw(p, done, events, &now);
}

void vftr_progress_end(struct vftr_progress *p, uint64_t done, uint64_t events)
{
    struct timespec now;

    if (!p->on || !p->drawn)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    draw(p, done, events, &now);
    fputc('\n', p->out);
    fflush(p->out);
    p->drawn = 0;
}
