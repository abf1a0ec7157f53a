/* Batch result files, the common part: the temporary file beside the target
 * and its commit by rename, the checks on the order of points, the point
 * table (values, ok flags, error texts) and the failed points held back until
 * a first model fixes the names and sizes.  The formats: batch_jsonl.c,
 * batch_mat.c, batch_h5.c. */
#define _GNU_SOURCE   /* realpath; sync_file_range (Linux) */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "jacgraph/io.h"
#include "batch_impl.h"
#include "export_impl.h"
#include "../core/str.h"
#include "io_impl.h"

int jg_io_batch_format_parse(const char *path, jg_io_batch_format_t *f)
{
    static const struct {
        const char *ext;
        jg_io_batch_format_t f;
    } tab[] = {{".jsonl", JG_IO_BATCH_JSONL}, {".ndjson", JG_IO_BATCH_JSONL},
               {".mat", JG_IO_BATCH_MAT},     {".h5", JG_IO_BATCH_H5},
               {".hdf5", JG_IO_BATCH_H5}};
    if (!path || !f) return -1;
    size_t n = strlen(path);
    for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++) {
        size_t e = strlen(tab[k].ext);
        if (n > e && !strcasecmp(path + n - e, tab[k].ext)) {
            *f = tab[k].f;
            return 0;
        }
    }
    return -1;
}

void jg__io_batch_mats(const jg_io_batch_t *w, const jg_lin_sys_t *s, const cs_dl *mats[4],
                       int64_t dims[4][2])
{
    if (s) mats[0] = s->A, mats[1] = s->B, mats[2] = s->C, mats[3] = s->D;
    else mats[0] = mats[1] = mats[2] = mats[3] = NULL;
    const int64_t d[4][2] = {{w->nx, w->nx}, {w->nx, w->nu}, {w->ny, w->nx}, {w->ny, w->nu}};
    memcpy(dims, d, sizeof d);
}

int jg__io_batch_dense(const jg_io_batch_t *w, int q)
{
    if (!w->have_sys) return w->layout != JG_IO_BATCH_SPARSE;   /* no model: sizes 0 */
    return w->dense[q];
}

jg_status_t jg_io_batch_set_layout(jg_io_batch_t *w, jg_io_batch_layout_t layout, jg_error_t *err)
{
    if (!w) return jg_error_set(err, JG_ARG, "batch output: no writer");
    if ((unsigned)layout > JG_IO_BATCH_SPARSE)
        return jg_error_set(err, JG_ARG, "%s: unknown layout %d", w->path, (int)layout);
    if (w->next > 0 || w->started)
        return jg_error_set(err, JG_ARG, "%s: the layout is chosen before the first point", w->path);
    w->layout = layout;
    return JG_OK;
}

/* Dense or sparse storage of each matrix, from the first model s: with a
 * pattern stored once per distinct pattern, a sparse point costs 8 bytes a
 * nonzero against 8 an element dense, so dense pays only for a small matrix
 * that is fairly full (and keeps the N x m x n array simple to read). */
static jg_status_t choose_layout(jg_io_batch_t *w, const jg_lin_sys_t *s, jg_error_t *err)
{
    const cs_dl *m[4];
    int64_t d[4][2];
    jg__io_batch_mats(w, s, m, d);
    for (int q = 0; q < 4; q++) {
        double size = (double)d[q][0] * (double)d[q][1];
        if (w->layout == JG_IO_BATCH_DENSE && size > JG_IO_BATCH_DENSE_MAX)
            return jg_error_set(err, JG_ARG, "%s: matrix %c is %lldx%lld (%.0f elements): the dense "
                                "layout stores at most %d; use the sparse or auto layout", w->path,
                                "ABCD"[q], (long long)d[q][0], (long long)d[q][1], size,
                                JG_IO_BATCH_DENSE_MAX);
        if (w->layout != JG_IO_BATCH_AUTO) {
            w->dense[q] = w->layout == JG_IO_BATCH_DENSE;
            continue;
        }
        cs_dl *own = NULL;
        const cs_dl *S = size <= JG_IO_BATCH_DENSE_MAX ? jg__io_canonical(m[q], &own) : NULL;
        if (size <= JG_IO_BATCH_DENSE_MAX && !S) return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
        w->dense[q] = S && 4.0 * (double)S->p[S->n] >= size;
        cs_dl_spfree(own);
    }
    return JG_OK;
}

static void release(jg_io_batch_t *w)
{
    if (w->wb_fd >= 0) close(w->wb_fd);
    free(w->path);
    free(w->tmp);
    jg__strv_free(w->val_names, w->nvals);
    free(w->values);
    free(w->state);
    jg__strv_free(w->errors, w->npoints);
    const int64_t n[3] = {w->nx, w->nu, w->ny};
    for (int g = 0; g < 3; g++) jg__strv_free(w->names[g], n[g]);
    free(w->delays);
    free(w);
}

/* Hand what the format has written so far to the disk, a few MiB at a time
 * (asynchronously: the pages are queued for writing, not waited for).
 * Otherwise the whole file would still be in the page cache at the end:
 * ext4 writes it out when the file is closed (a file opened with O_TRUNC,
 * as HDF5 opens it, is flushed on close) or at the commit's fsync, and the
 * run would wait for it at its very end, with every other core idle.
 * Measured with the 220 MB HDF5 file of 10,000 points: close and fsync took
 * 50-70 ms, 1 ms with this, for 8 ms spread over the run.  Best effort:
 * the fsync at the commit still reports a failed write. */
static void write_behind(jg_io_batch_t *w)
{
#ifdef SYNC_FILE_RANGE_WRITE
    enum { STEP = 8 << 20 };
    struct stat sb;
    if (w->wb_fd < 0 || fstat(w->wb_fd, &sb)) return;
    off_t end = sb.st_size & ~(off_t)((1 << 20) - 1);   /* the last MiB may change again */
    if (end - w->wb_done < STEP) return;
    if (sync_file_range(w->wb_fd, w->wb_done, end - w->wb_done, SYNC_FILE_RANGE_WRITE)) {
        close(w->wb_fd);   /* not supported here: stop trying */
        w->wb_fd = -1;
        return;
    }
    w->wb_done = end;
#else
    (void)w;
#endif
}

/* PATH.partXXXXXX beside path, created with the mode a new file would get
 * (mkstemp makes it private). */
static jg_status_t make_tmp(jg_io_batch_t *w, jg_error_t *err)
{
    size_t n = strlen(w->path);
    if (!(w->tmp = malloc(n + 12))) return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
    memcpy(w->tmp, w->path, n);
    memcpy(w->tmp + n, ".partXXXXXX", 12);
    int fd = mkstemp(w->tmp);
    if (fd < 0)
        return jg_error_set(err, JG_IO, "%s: cannot create a temporary file beside it: %s", w->path,
                            strerror(errno));
    mode_t mask = umask(022);
    umask(mask);
    int bad = fchmod(fd, 0666 & ~mask);
    int code = errno;
    close(fd);
    if (bad) {
        remove(w->tmp);
        return jg_error_set(err, JG_IO, "%s: cannot set its mode: %s", w->tmp, strerror(code));
    }
    return JG_OK;
}

jg_status_t jg_io_batch_open(const char *path, jg_io_batch_format_t f, int64_t npoints, int nvals,
                             const char *const *val_names, jg_io_batch_t **out, jg_error_t *err)
{
    static const char what[] = "batch output";
    static const jg__io_batch_ops_t *const ops[3] = {&jg__io_batch_jsonl_ops, &jg__io_batch_mat_ops,
                                                     &jg__io_batch_h5_ops};
    if (out) *out = NULL;
    if (!path || !*path || !out || npoints < 0 || nvals < 0 || (nvals > 0 && !val_names))
        return jg_error_set(err, JG_ARG, "%s: no file, no result pointer or a negative count", what);
    if ((unsigned)f > JG_IO_BATCH_H5) return jg_error_set(err, JG_ARG, "%s: unknown format %d", what, (int)f);
    for (int k = 0; k < nvals; k++)
        if (!val_names[k] || !jg__io_utf8_ok(val_names[k], strlen(val_names[k])))
            return jg_error_set(err, JG_ARG, "%s: value name %d is missing or not UTF-8", what, k + 1);
    if ((double)npoints * (nvals + 2) * sizeof(double) > (double)SIZE_MAX / 2)
        return jg_error_set(err, JG_ARG, "%s: %lld points are too many", what, (long long)npoints);

    jg_io_batch_t *w = calloc(1, sizeof *w);
    jg_status_t st = JG_OK;
    if (!w) return jg_error_set(err, JG_NOMEM, "%s: out of memory", what);
    w->wb_fd = -1;
    w->ops = ops[f];
    w->fmt = f;
    w->npoints = npoints;
    w->nvals = nvals;
    w->path = jg__strdup(path);
    w->val_names = calloc((size_t)nvals + 1, sizeof *w->val_names);
    w->values = malloc(sizeof(double) * ((size_t)npoints * (size_t)nvals + 1));
    w->state = calloc((size_t)npoints + 1, 1);
    w->errors = calloc((size_t)npoints + 1, sizeof *w->errors);
    if (!w->path || !w->val_names || !w->values || !w->state || !w->errors) {
        st = jg_error_set(err, JG_NOMEM, "%s: out of memory for %lld points", what, (long long)npoints);
        goto done;
    }
    for (int k = 0; k < nvals; k++)
        if (!(w->val_names[k] = jg__strdup(val_names[k]))) {
            st = jg_error_set(err, JG_NOMEM, "%s: out of memory", what);
            goto done;
        }
    /* (not filled: every row is put before the file is committed, and an
     * uncommitted file is removed; 23.7 MB for 10,000 points of 296 values
     * would be touched here, before the first point, rather than as they come) */

    /* A pipe or a device is written as it goes (JSONL only: the binary
     * formats seek), and so is anything under /dev or /proc: /dev/stdout
     * redirected to a file is a link to that file, and a rename would replace
     * the link.  A link to a regular file elsewhere is followed (the file is
     * replaced, the link kept); everything else is written under a temporary
     * name beside it. */
    struct stat sb;
    int special = !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6);
    int exists = stat(path, &sb) == 0;
    if (exists && S_ISREG(sb.st_mode) && !special && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real) {
            st = jg_error_set(err, JG_IO, "%s: cannot resolve the link: %s", path, strerror(errno));
            goto done;
        }
        free(w->path);
        w->path = real;
        stat(real, &sb);
    }
    if (special || (exists && !S_ISREG(sb.st_mode))) {
        if (f != JG_IO_BATCH_JSONL) {
            st = jg_error_set(err, JG_ARG, "%s: not a regular file (MAT and HDF5 output need one)", path);
            goto done;
        }
        w->direct = 1;
        if (!(w->tmp = jg__strdup(path))) {
            st = jg_error_set(err, JG_NOMEM, "%s: out of memory", what);
            goto done;
        }
    } else if ((st = make_tmp(w, err))) {
        goto done;
    }
    if ((st = w->ops->create(w, err))) {
        if (!w->direct) remove(w->tmp);
        goto done;
    }
    if (!w->direct) w->wb_fd = open(w->tmp, O_RDONLY | O_CLOEXEC);   /* -1: no write-behind */
    w->created = 1;
    *out = w;
    return JG_OK;
done:
    release(w);
    return st;
}

/* The first model: names (defaults filled in) and sizes. */
static jg_status_t take_sys(jg_io_batch_t *w, const jg_lin_sys_t *s, jg_error_t *err)
{
    char *const *v[3] = {s->state_names, s->input_names, s->output_names};
    const int64_t n[3] = {s->nx, s->nu, s->ny};
    static const char pfx[3] = {'x', 'u', 'y'};
    w->nx = s->nx, w->nu = s->nu, w->ny = s->ny, w->ndelays = s->ndelays;
    w->Ts = jg__io_sample_time(s);
    w->have_sys = 1;
    for (int g = 0; g < 3; g++) {
        if (!(w->names[g] = calloc((size_t)n[g] + 1, sizeof(char *))))
            return jg_error_set(err, JG_NOMEM, "%s: out of memory for names", w->path);
        for (int64_t k = 0; k < n[g]; k++) {
            char buf[32];
            if (!(w->names[g][k] = jg__strdup(jg__io_name(v[g], k, pfx[g], buf))))
                return jg_error_set(err, JG_NOMEM, "%s: out of memory for names", w->path);
        }
    }
    if (s->ndelays > 0) {
        size_t m = (size_t)w->npoints * (size_t)s->ndelays;
        if (!(w->delays = malloc(sizeof(double) * (m + 1))))
            return jg_error_set(err, JG_NOMEM, "%s: out of memory for delays", w->path);
        for (size_t k = 0; k < m; k++) w->delays[k] = NAN;
    }
    return JG_OK;
}

/* Names and sizes are settled: start the format, then pass it the failed
 * points held back so far (all of them before `upto`). */
static jg_status_t start(jg_io_batch_t *w, int64_t upto, jg_error_t *err)
{
    jg_status_t st = w->ops->start(w, err);
    w->started = 1;
    for (int64_t k = 0; !st && w->pending > 0 && k < upto; k++)
        if (w->state[k] == 2) {
            st = w->ops->put(w, k, NULL, err);
            w->pending--;
        }
    return st;
}

jg_status_t jg_io_batch_put(jg_io_batch_t *w, int64_t k, const double *vals, const jg_lin_sys_t *sys,
                            const char *error, jg_error_t *err)
{
    if (!w) return jg_error_set(err, JG_ARG, "batch output: no writer");
    if (w->broken) return jg_error_set(err, JG_ARG, "%s: an earlier write failed", w->path);
    if (k < w->next || k >= w->npoints) {
        w->broken = 1;
        return jg_error_set(err, JG_ARG, "%s: point %lld out of order (next is %lld of %lld)", w->path,
                            (long long)k, (long long)w->next, (long long)w->npoints);
    }
    if (w->nvals > 0 && !vals) {
        w->broken = 1;
        return jg_error_set(err, JG_ARG, "%s: point %lld has no values", w->path, (long long)k);
    }
    jg_status_t st = JG_OK;
    if (sys) {
        int first = 0;
        const cs_dl *m[4];
        int64_t d[4][2];
        if (!w->have_sys) {
            if ((st = jg__io_export_check(sys, w->path, err)) || (st = take_sys(w, sys, err))) goto done;
            first = 1;
        } else if (sys->nx != w->nx || sys->nu != w->nu || sys->ny != w->ny ||
                   sys->ndelays != w->ndelays) {
            st = jg_error_set(err, JG_ARG,
                              "%s: point %lld has %lld states, %lld inputs, %lld outputs, %lld delays; "
                              "the first had %lld, %lld, %lld, %lld", w->path, (long long)k,
                              (long long)sys->nx, (long long)sys->nu, (long long)sys->ny,
                              (long long)sys->ndelays, (long long)w->nx, (long long)w->nu,
                              (long long)w->ny, (long long)w->ndelays);
            goto done;
        }
        jg__io_batch_mats(w, sys, m, d);
        for (int q = 0; q < 4; q++)
            if (!jg__io_shape_ok(m[q], d[q][0], d[q][1])) {
                st = jg_error_set(err, JG_ARG, "%s: point %lld: matrix %c is missing or not %lldx%lld",
                                  w->path, (long long)k, "ABCD"[q], (long long)d[q][0],
                                  (long long)d[q][1]);
                goto done;
            }
        if (sys->ndelays > 0 && !jg__io_delays_ok(sys)) {
            st = jg_error_set(err, JG_ARG, "%s: point %lld: bad delays", w->path, (long long)k);
            goto done;
        }
        if (first && (st = choose_layout(w, sys, err))) goto done;
    } else {
        const char *why = error ? error : "failed";
        if (!jg__io_utf8_ok(why, strlen(why))) why = "failed (the message was not UTF-8)";
        if (!(w->errors[k] = jg__strdup(why))) {
            st = jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
            goto done;
        }
    }
    if (w->nvals > 0) memcpy(w->values + (size_t)k * (size_t)w->nvals, vals, sizeof(double) * (size_t)w->nvals);
    if (sys && sys->ndelays > 0)
        memcpy(w->delays + (size_t)k * (size_t)sys->ndelays, sys->delays, sizeof(double) * (size_t)sys->ndelays);
    w->state[k] = sys ? 1 : 2;
    w->next = k + 1;
    if (!w->started) {
        if (!sys) {   /* held back: the format cannot start without sizes */
            w->pending++;
            return JG_OK;
        }
        if ((st = start(w, k, err))) goto done;
    }
    st = w->ops->put(w, k, sys, err);
    if (!st) write_behind(w);
done:
    if (st) w->broken = 1;
    return st;
}

/* Flush the file to the disk and rename it into place (POSIX rename is
 * atomic: readers see the old file or the whole new one). */
static jg_status_t commit_file(jg_io_batch_t *w, jg_error_t *err)
{
    if (w->direct) return JG_OK;
    int fd = open(w->tmp, O_RDONLY);
    if (fd < 0 || fsync(fd)) {
        int code = errno;
        if (fd >= 0) close(fd);
        return jg_error_set(err, JG_IO, "%s: cannot sync: %s", w->tmp, strerror(code));
    }
    close(fd);
    if (rename(w->tmp, w->path))
        return jg_error_set(err, JG_IO, "%s: cannot rename %s into place: %s", w->path, w->tmp,
                            strerror(errno));
    return JG_OK;
}

jg_status_t jg_io_batch_close(jg_io_batch_t *w, int commit, jg_error_t *err)
{
    if (!w) return JG_OK;
    jg_status_t st = JG_OK;
    if (commit && w->broken) {
        st = jg_error_set(err, JG_ARG, "%s: not written: an earlier write failed", w->path);
        commit = 0;
    }
    for (int64_t k = 0; commit && k < w->npoints; k++)
        if (!w->state[k]) {
            st = jg_error_set(err, JG_ARG, "%s: not written: point %lld of %lld has no result", w->path,
                              (long long)k, (long long)w->npoints);
            commit = 0;
        }
    if (commit && !w->started) st = start(w, w->npoints, err);   /* no point succeeded */
    if (st) commit = 0;
    jg_status_t fs = w->ops->finish(w, commit, err);
    if (!st) st = fs;
    if (!st && commit) st = commit_file(w, err);
    if (st || !commit) {
        if (!w->direct) remove(w->tmp);
    }
    release(w);
    return st;
}
