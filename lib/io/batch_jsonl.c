/* Batch results as JSON Lines: a names line, then one line per point with
 * its A, B, C, D as the triplets `linearize --format json` writes (the same
 * code, json.c), or its error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "jacgraph/io.h"
#include "batch_impl.h"
#include "io_impl.h"

#define DUMP_FLAGS (JSON_ENCODE_ANY | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

static jg_status_t create(jg_io_batch_t *w, jg_error_t *err)
{
    FILE *f = fopen(w->tmp, "w");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot open: %s", w->tmp, strerror(errno));
    w->impl = f;
    return JG_OK;
}

/* One value as one line; the reference is released. */
static jg_status_t line(jg_io_batch_t *w, json_t *o, jg_error_t *err)
{
    if (!o) return jg_error_set(err, JG_NOMEM, "%s: out of memory (or a name is not UTF-8)", w->path);
    FILE *f = w->impl;
    int bad = json_dumpf(o, f, DUMP_FLAGS) != 0 || fputc('\n', f) == EOF;
    json_decref(o);
    if (bad || ferror(f)) return jg_error_set(err, JG_IO, "%s: cannot write: %s", w->path, strerror(errno ? errno : EIO));
    return JG_OK;
}

static jg_status_t start(jg_io_batch_t *w, jg_error_t *err)
{
    /* "o" steals the references; jansson releases them all if any is NULL */
    json_t *o = json_pack("{s:o, s:o, s:o}", "states", jg__io_json_names(w->names[0], w->nx, 'x'),
                          "inputs", jg__io_json_names(w->names[1], w->nu, 'u'), "outputs",
                          jg__io_json_names(w->names[2], w->ny, 'y'));
    if (o && w->Ts > 0 && json_object_set_new(o, "Ts", jg__io_json_real(w->Ts))) {
        json_decref(o);
        o = NULL;
    }
    return line(w, o, err);
}

static jg_status_t put(jg_io_batch_t *w, int64_t k, const jg_lin_sys_t *s, jg_error_t *err)
{
    json_t *o;
    if (!s)
        return line(w, json_pack("{s:I, s:b, s:s}", "index", (json_int_t)k, "ok", 0, "error", w->errors[k]),
                    err);
    o = json_pack("{s:I, s:b, s:o, s:o, s:o, s:o}", "index", (json_int_t)k, "ok", 1, "A",
                  jg__io_json_matrix(s->A), "B", jg__io_json_matrix(s->B), "C",
                  jg__io_json_matrix(s->C), "D", jg__io_json_matrix(s->D));
    if (o && s->ndelays > 0) {   /* exact delays, as jg_io_write_linsys_json */
        json_t *d = json_array();
        for (int64_t q = 0; d && q < s->ndelays; q++)
            if (json_array_append_new(d, jg__io_json_real(s->delays[q]))) json_decref(d), d = NULL;
        if (!d || json_object_set_new(o, "InternalDelay", d)) json_decref(o), o = NULL;
    }
    return line(w, o, err);
}

static jg_status_t finish(jg_io_batch_t *w, int commit, jg_error_t *err)
{
    FILE *f = w->impl;
    w->impl = NULL;
    if (!f) return JG_OK;
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
