/* A linear model as JSON: names, time and A..D as 0-based column-major
 * triplets with 17 significant digits, one top-level key per line. */
#include <math.h>
#include <stdio.h>
#include <jansson.h>
#include "jacgraph/io.h"
#include "io_impl.h"
#include "batch_impl.h"   /* these pieces also make the batch JSON Lines */

#define DUMP_FLAGS (JSON_ENCODE_ANY | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

/* JSON has no inf or nan; they are written as null rather than failing the
 * whole file. */
json_t *jg__io_json_real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* NULL when out of memory or a name is not UTF-8 (jansson refuses it). */
json_t *jg__io_json_names(char *const *v, int64_t n, char pfx)
{
    json_t *a = json_array();
    char buf[32];
    for (int64_t k = 0; a && k < n; k++) {
        const char *s = v && v[k] ? v[k] : buf;
        if (s == buf) snprintf(buf, sizeof buf, "%c%lld", pfx, (long long)k + 1);
        if (json_array_append_new(a, json_string(s))) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}

json_t *jg__io_json_matrix(const cs_dl *M)
{
    cs_dl *S = jg__io_sorted(M);
    json_t *ri = json_array(), *cj = json_array(), *vx = json_array(), *o = NULL;
    if (!S || !ri || !cj || !vx) goto done;
    for (int64_t j = 0; j < S->n; j++)
        for (int64_t p = S->p[j]; p < S->p[j + 1]; p++)
            if (json_array_append_new(ri, json_integer((json_int_t)S->i[p]))
                || json_array_append_new(cj, json_integer((json_int_t)j))
                || json_array_append_new(vx, jg__io_json_real(S->x[p])))
                goto done;
    o = json_pack("{s:I, s:I, s:O, s:O, s:O}", "rows", (json_int_t)S->m, "cols",
                  (json_int_t)S->n, "i", ri, "j", cj, "x", vx);
done:
    json_decref(ri);
    json_decref(cj);
    json_decref(vx);
    cs_dl_spfree(S);
    return o;
}

jg_status_t jg_io_write_linsys_json(FILE *f, const jg_lin_sys_t *s, jg_error_t *err)
{
    if (!f || !s) return jg_error_set(err, JG_ARG, "JSON output: no file or no model");
    if (!jg__io_delays_ok(s))
        return jg_error_set(err, JG_ARG, "JSON output: %lld delays for %lld inputs and %lld outputs",
                            (long long)s->ndelays, (long long)s->nu, (long long)s->ny);
    static const char *const what[4] = {"A", "B", "C", "D"};
    const cs_dl *mats[4] = {s->A, s->B, s->C, s->D};
    const int64_t dims[4][2] = {{s->nx, s->nx}, {s->nx, s->nu}, {s->ny, s->nx}, {s->ny, s->nu}};
    for (int k = 0; k < 4; k++)
        if (!jg__io_shape_ok(mats[k], dims[k][0], dims[k][1]))
            return jg_error_set(err, JG_ARG, "JSON output: matrix %s is missing or not %lldx%lld",
                                what[k], (long long)dims[k][0], (long long)dims[k][1]);

    /* "o" steals each reference; jansson releases them all if any is NULL */
    json_t *root = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                             "states", jg__io_json_names(s->state_names, s->nx, 'x'),
                             "inputs", jg__io_json_names(s->input_names, s->nu, 'u'),
                             "outputs", jg__io_json_names(s->output_names, s->ny, 'y'),
                             "t", jg__io_json_real(s->t), "Ts", jg__io_json_real(s->Ts),
                             "A", jg__io_json_matrix(s->A), "B", jg__io_json_matrix(s->B),
                             "C", jg__io_json_matrix(s->C), "D", jg__io_json_matrix(s->D));
    if (!root)
        return jg_error_set(err, JG_NOMEM,
                            "JSON output: out of memory (or a name is not valid UTF-8)");
    /* exact delays: the delay-free H above (its last ndelays inputs and
     * outputs are the delay channels) and the delays that close them */
    if (s->ndelays > 0) {
        json_t *d = json_array();
        for (int64_t k = 0; d && k < s->ndelays; k++)
            if (json_array_append_new(d, jg__io_json_real(s->delays[k]))) json_decref(d), d = NULL;
        if (!d || json_object_set_new(root, "InternalDelay", d)) {
            json_decref(root);
            return jg_error_set(err, JG_NOMEM, "JSON output: out of memory");
        }
    }

    /* Indented output would put every array element on its own line; one
     * compact line per top-level key stays readable for large models. */
    const char *key;
    json_t *val;
    int bad = fputs("{\n", f) < 0, first = 1;
    json_object_foreach(root, key, val) {
        bad |= fprintf(f, "%s \"%s\": ", first ? "" : ",\n", key) < 0;
        bad |= json_dumpf(val, f, DUMP_FLAGS) != 0;
        first = 0;
    }
    bad |= fputs("\n}\n", f) < 0;
    json_decref(root);
    if (bad || fflush(f) || ferror(f)) return jg_error_set(err, JG_IO, "JSON output: write failed");
    return JG_OK;
}
