/* Batch results as JSON Lines: a names line, then one line per point with
 * its A, B, C, D as the triplets `linearize --format json` writes (the same
 * writer, jsonw.c), or its error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/io.h"
#include "batch_impl.h"
#include "io_impl.h"
#include "jsonw.h"

/* w->impl: the file and the line being made.  A line is made whole in
 * memory and then written, so a failure (out of memory) writes nothing of
 * it; the buffer is kept from line to line (a point's line of a large model
 * is ~100 KB). */
typedef struct {
    FILE *f;
    jg__io_jw_t line;
} jsonl_t;

static jg_status_t create(jg_io_batch_t *w, jg_error_t *err)
{
    jsonl_t *j = calloc(1, sizeof *j);
    if (!j || jg__io_jw_init(&j->line, NULL, 1 << 12)) {
        free(j);
        return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
    }
    if (!(j->f = fopen(w->tmp, "w"))) {
        int code = errno;
        jg__io_jw_free(&j->line);
        free(j);
        if (code == ENOMEM) return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
        return jg_error_set(err, JG_IO, "%s: cannot open: %s", w->tmp, strerror(code));
    }
    w->impl = j;
    return JG_OK;
}

/* Write the line made in j->line and a newline; empty the buffer. */
static jg_status_t line(jg_io_batch_t *w, jg_error_t *err)
{
    jsonl_t *j = w->impl;
    jg__io_jw_raw(&j->line, "\n", 1);
    if (j->line.nomem) {
        j->line.nomem = 0;   /* the next line may fit */
        j->line.len = 0;
        return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
    }
    size_t n = j->line.len;
    j->line.len = 0;
    if (fwrite(j->line.buf, 1, n, j->f) != n || ferror(j->f))
        return jg_error_set(err, JG_IO, "%s: cannot write: %s", w->path, strerror(errno ? errno : EIO));
    return JG_OK;
}

/* Names and sizes checked by batch.c (shapes, UTF-8 names and messages). */
static jg_status_t start(jg_io_batch_t *w, jg_error_t *err)
{
    jg__io_jw_t *o = &((jsonl_t *)w->impl)->line;
    jg__io_jw_raw(o, "{\"states\": ", 11);
    jg__io_jw_names(o, w->names[0], w->nx, 'x');
    jg__io_jw_raw(o, ", \"inputs\": ", 12);
    jg__io_jw_names(o, w->names[1], w->nu, 'u');
    jg__io_jw_raw(o, ", \"outputs\": ", 13);
    jg__io_jw_names(o, w->names[2], w->ny, 'y');
    if (w->Ts > 0) {
        jg__io_jw_raw(o, ", \"Ts\": ", 8);
        jg__io_jw_real(o, w->Ts);
    }
    jg__io_jw_raw(o, "}", 1);
    return line(w, err);
}

static jg_status_t put(jg_io_batch_t *w, int64_t k, const jg_lin_sys_t *s, jg_error_t *err)
{
    jg__io_jw_t *o = &((jsonl_t *)w->impl)->line;
    jg__io_jw_raw(o, "{\"index\": ", 10);
    jg__io_jw_int(o, k);
    if (!s) {
        jg__io_jw_raw(o, ", \"ok\": false, \"error\": ", 24);
        jg__io_jw_string(o, w->errors[k]);
        jg__io_jw_raw(o, "}", 1);
        return line(w, err);
    }
    const cs_dl *mats[4] = {s->A, s->B, s->C, s->D};
    jg__io_jw_raw(o, ", \"ok\": true", 12);
    for (int q = 0; q < 4; q++) {
        static const char *const key[4] = {", \"A\": ", ", \"B\": ", ", \"C\": ", ", \"D\": "};
        jg__io_jw_raw(o, key[q], 7);
        jg__io_jw_matrix(o, mats[q]);
    }
    if (s->ndelays > 0) {   /* exact delays, as jg_io_write_linsys_json */
        jg__io_jw_raw(o, ", \"InternalDelay\": ", 19);
        jg__io_jw_reals(o, s->delays, s->ndelays);
    }
    jg__io_jw_raw(o, "}", 1);
    return line(w, err);
}

static jg_status_t finish(jg_io_batch_t *w, int commit, jg_error_t *err)
{
    jsonl_t *j = w->impl;
    w->impl = NULL;
    if (!j) return JG_OK;
    FILE *f = j->f;
    jg__io_jw_free(&j->line);
    free(j);
    if (!commit) {
        fclose(f);
        return JG_OK;
    }
    int bad = fflush(f) != 0;
    int code = errno;
    if (ferror(f)) bad = 1;
    if (fclose(f) && !bad) bad = 1, code = errno;
    if (bad) return jg_error_set(err, JG_IO, "%s: cannot write: %s", w->path, strerror(code ? code : EIO));
    return JG_OK;
}

const jg__io_batch_ops_t jg__io_batch_jsonl_ops = {create, start, put, finish};
