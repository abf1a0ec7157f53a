/* A linear model as JSON: names, time and A..D as 0-based column-major
 * triplets with 17 significant digits, one top-level key per line. */
#include <string.h>
#include "jacgraph/io.h"
#include "export_impl.h"
#include "io_impl.h"
#include "jsonw.h"

/* The bytes are those jansson's json_dumpf wrote for the same values when
 * this writer built a jansson tree (jsonw.h): files written before read and
 * compare the same.  Streaming them costs a 64 KiB buffer instead of a tree
 * of ~100 bytes per matrix entry. */
jg_status_t jg_io_write_linsys_json(FILE *f, const jg_lin_sys_t *s, jg_error_t *err)
{
    if (!f || !s) return jg_error_set(err, JG_ARG, "JSON output: no file or no model");
    /* shapes, delays, names UTF-8 (jansson refused other strings) */
    jg_status_t st = jg__io_export_check(s, "JSON output", err);
    if (st) return st;

    /* the canonical matrices first: once writing has begun, only the file
     * can fail, so a failure leaves no half-written model on a stream */
    const cs_dl *mats[4] = {s->A, s->B, s->C, s->D};
    cs_dl *own[4] = {NULL, NULL, NULL, NULL};
    const cs_dl *S[4];
    jg__io_jw_t w;
    int have_w = 0;
    for (int k = 0; k < 4; k++)
        if (!(S[k] = jg__io_canonical(mats[k], &own[k]))) {
            st = jg_error_set(err, JG_NOMEM, "JSON output: out of memory");
            goto done;
        }
    if (jg__io_jw_init(&w, f, 1 << 16)) {
        st = jg_error_set(err, JG_NOMEM, "JSON output: out of memory");
        goto done;
    }
    have_w = 1;

    /* Indented output would put every array element on its own line; one
     * compact line per top-level key stays readable for large models. */
    jg__io_jw_raw(&w, "{\n \"states\": ", 13);
    jg__io_jw_names(&w, s->state_names, s->nx, 'x');
    jg__io_jw_raw(&w, ",\n \"inputs\": ", 13);
    jg__io_jw_names(&w, s->input_names, s->nu, 'u');
    jg__io_jw_raw(&w, ",\n \"outputs\": ", 14);
    jg__io_jw_names(&w, s->output_names, s->ny, 'y');
    jg__io_jw_raw(&w, ",\n \"t\": ", 8);
    jg__io_jw_real(&w, s->t);
    jg__io_jw_raw(&w, ",\n \"Ts\": ", 9);
    jg__io_jw_real(&w, s->Ts);
    for (int k = 0; k < 4; k++) {
        static const char *const key[4] = {",\n \"A\": ", ",\n \"B\": ", ",\n \"C\": ", ",\n \"D\": "};
        jg__io_jw_raw(&w, key[k], strlen(key[k]));
        jg__io_jw_matrix(&w, S[k]);
    }
    /* exact delays: the delay-free H above (its last ndelays inputs and
     * outputs are the delay channels) and the delays that close them */
    if (s->ndelays > 0) {
        jg__io_jw_raw(&w, ",\n \"InternalDelay\": ", 20);
        jg__io_jw_reals(&w, s->delays, s->ndelays);
    }
    jg__io_jw_raw(&w, "\n}\n", 3);
    if (w.nomem) {   /* not expected: the matrices are canonical, the buffer fixed */
        st = jg_error_set(err, JG_NOMEM, "JSON output: out of memory");
        goto done;
    }
    if (jg__io_jw_flush(&w) || fflush(f) || ferror(f))
        st = jg_error_set(err, JG_IO, "JSON output: write failed");
done:
    if (have_w) jg__io_jw_free(&w);
    for (int k = 0; k < 4; k++) cs_dl_spfree(own[k]);
    return st;
}
