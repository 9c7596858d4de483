/* script.c — see script.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "model/snapshot.h"
#include "util/errmsg.h"
#include "util/timespec.h"

#include "script.h"

void snap_script_free(struct snap_job *jobs, size_t n)
{
    for (size_t i = 0; jobs && i < n; i++)
        snap_job_release(&jobs[i]);
    free(jobs);
}

/* Line and column (from 1) of text + off. */
static void position(const char *text, size_t off, unsigned *line, unsigned *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* A key as it may appear in a one-line message: at most 40 bytes, anything
 * but printable ASCII shown as '?'. */
static void printable(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len && i < 40; i++)
        out[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
    out[i] = 0;
}

/* A non-negative integer that JSON gave as a number. */
static int as_uint(const cJSON *v, uint64_t *out)
{
    if (!cJSON_IsNumber(v))
        return 0;
    double d = v->valuedouble;
    if (!(d >= 0) || d > 9007199254740992.0 || floor(d) != d)
        return 0;
    *out = (uint64_t)d;
    return 1;
}

/* A time or period: a string as on the command line, or a number of ticks. */
static int as_time(const cJSON *v, char **out)
{
    char buf[32];
    uint64_t n;
    if (cJSON_IsString(v) && v->valuestring[0]) {
        /* the command line's check: a time that no trace can take is an
         * error of the script, not of the job that meets it */
        if (vftr_time_check(v->valuestring, NULL, 0) < 0)
            return -EINVAL;
        *out = strdup(v->valuestring);
    } else if (as_uint(v, &n)) {
        snprintf(buf, sizeof buf, "%" PRIu64, n);
        *out = strdup(buf);
    } else
        return -EINVAL;
    return *out ? 0 : -ENOMEM;
}

static int set_flag(const cJSON *v, unsigned *flags, unsigned bit)
{
    if (!cJSON_IsBool(v))
        return -EINVAL;
    if (cJSON_IsTrue(v))
        *flags |= bit;
    else
        *flags &= ~bit;
    return 0;
}

/* One job object; errors name the key. */
static int parse_job(const cJSON *o, struct snap_job *job, const char **bad)
{
    const cJSON *v;
    int rc = 0;
    if (!cJSON_IsObject(o)) {
        *bad = "(a job must be an object)";
        return -EINVAL;
    }
    cJSON_ArrayForEach(v, o) {
        const char *k = v->string;
        *bad = k;
        if (strcmp(k, "trace") == 0 || strcmp(k, "output") == 0) {
            char **dst = k[0] == 't' ? &job->trace : &job->output;
            if (!cJSON_IsString(v) || !v->valuestring[0])
                return -EINVAL;
            free(*dst);
            if (!(*dst = strdup(v->valuestring)))
                return -ENOMEM;
        } else if (strcmp(k, "breaks") == 0) {
            if (!as_uint(v, &job->nbreaks) || job->nbreaks == 0 ||
                job->nbreaks > VFTR_SNAP_MAX_BREAKS)     /* -n's range */
                return -EINVAL;
        } else if (strcmp(k, "period") == 0) {
            free(job->period);
            job->period = NULL;
            if ((rc = as_time(v, &job->period)) != 0)
                return rc;
        } else if (strcmp(k, "times") == 0) {
            const cJSON *t;
            if (!cJSON_IsArray(v))
                return -EINVAL;
            for (size_t i = 0; i < job->ntimes; i++)
                free(job->times[i]);
            job->ntimes = 0;
            cJSON_ArrayForEach(t, v) {
                char *s;
                if ((rc = as_time(t, &s)) != 0)
                    return rc;
                rc = snap_job_add_time(job, s);
                free(s);
                if (rc)
                    return rc;
            }
        } else if (strcmp(k, "kinds") == 0) {
            const char *s = cJSON_IsString(v) ? v->valuestring : "";
            if (strcmp(s, "snapshots") == 0)
                job->kinds = SNAP_KIND_SNAPSHOTS;
            else if (strcmp(s, "statistics") == 0)
                job->kinds = SNAP_KIND_STATISTICS;
            else if (strcmp(s, "all") == 0)
                job->kinds = SNAP_KIND_SNAPSHOTS | SNAP_KIND_STATISTICS;
            else
                return -EINVAL;
        } else if (strcmp(k, "funcgroups") == 0) {
            if (set_flag(v, &job->flags, VFTR_SNAP_FUNCGROUPS))
                return -EINVAL;
        } else if (strcmp(k, "filegroups") == 0) {
            if (set_flag(v, &job->flags, VFTR_SNAP_FILEGROUPS))
                return -EINVAL;
        } else if (strcmp(k, "detailed") == 0) {
            if (set_flag(v, &job->flags, VFTR_SNAP_DETAILED))
                return -EINVAL;
        } else if (strcmp(k, "remove") == 0 || strcmp(k, "force") == 0) {
            if (!cJSON_IsBool(v))
                return -EINVAL;
            *(k[0] == 'r' ? &job->remove : &job->force) = cJSON_IsTrue(v);
        } else if (strcmp(k, "thumbnail_samples") == 0) {
            uint64_t n;
            if (!as_uint(v, &n) || n == 0 || n > UINT32_MAX)
                return -EINVAL;
            job->thumb_samples = (uint32_t)n;
        } else {
            return -ENOENT;
        }
    }
    if (!job->trace) {
        *bad = "trace";
        return -ESRCH;
    }
    return 0;
}

int snap_script_parse(const char *text, size_t len, const struct snap_job *defaults,
                      struct snap_job **jobs, size_t *njobs, char *err, size_t errlen)
{
    *jobs = NULL;
    *njobs = 0;
    /* cJSON wants a terminated string */
    char *copy = malloc(len + 1);
    if (!copy)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    memcpy(copy, text, len);
    copy[len] = 0;
    if (strlen(copy) != len) {
        unsigned line, col;
        position(copy, strlen(copy), &line, &col);
        free(copy);
        return vftr_errmsg(err, errlen, -EINVAL, "line %u, column %u: NUL byte in the file", line, col);
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(copy, &end, 1);
    if (!root) {
        unsigned line, col;
        size_t off = end && end >= copy ? (size_t)(end - copy) : 0;
        position(copy, off, &line, &col);
        free(copy);
        return vftr_errmsg(err, errlen, -EINVAL, "line %u, column %u: not valid JSON", line, col);
    }
    const cJSON *list = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "jobs");
    int rc = 0;
    if (!cJSON_IsArray(list)) {
        rc = vftr_errmsg(err, errlen, -EINVAL, "expected an array of jobs or an object with \"jobs\"");
        goto out;
    }
    if (cJSON_IsObject(root) && cJSON_GetArraySize(root) != 1) {
        rc = vftr_errmsg(err, errlen, -EINVAL, "unknown key beside \"jobs\"");
        goto out;
    }
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (n == 0) {
        rc = vftr_errmsg(err, errlen, -EINVAL, "the script lists no job");
        goto out;
    }
    *jobs = calloc(n, sizeof **jobs);
    if (!*jobs) {
        rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        goto out;
    }
    const cJSON *o;
    cJSON_ArrayForEach(o, list) {
        struct snap_job *job = &(*jobs)[*njobs];
        const char *bad = "";
        char shown[48];
        if (snap_job_copy(job, defaults)) {
            rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
            goto out;
        }
        free(job->trace);
        job->trace = NULL;
        (*njobs)++;
        rc = parse_job(o, job, &bad);
        printable(bad, shown, sizeof shown);
        if (rc == -ENOMEM)
            rc = vftr_errmsg(err, errlen, rc, "out of memory");
        else if (rc == -ENOENT)
            rc = vftr_errmsg(err, errlen, -EINVAL, "job %zu: unknown key \"%s\"", *njobs, shown);
        else if (rc == -ESRCH)
            rc = vftr_errmsg(err, errlen, -EINVAL, "job %zu: \"trace\" is missing", *njobs);
        else if (rc)
            rc = vftr_errmsg(err, errlen, -EINVAL, "job %zu: bad value for \"%s\"", *njobs, shown);
        if (rc)
            goto out;
    }
out:
    cJSON_Delete(root);
    free(copy);
    if (rc) {
        snap_script_free(*jobs, *njobs);
        *jobs = NULL;
        *njobs = 0;
    }
    return rc;
}
