/* test_batch_points.c -- the points reader of lib/batch (points.c) against a
 * reference: the reader as it was, on a jansson tree and the operating point
 * reader of linearize.c as it was (ref_op_apply).
 * On random points files -- valid ones (states by block path, by element
 * name, arrays, inputs, parameters, a grid) and broken ones (unknown keys
 * and names, wrong lengths and types, bad parameter names, a grid parameter
 * also set by a point, duplicate keys, JSON cut short, documents only
 * jansson reads: "\u0000" in a string, 19-digit integers) -- both give the
 * same status and the same message byte for byte, and when they accept, the
 * same table: names, point count and every point's values bit for bit.
 * Through jg_batch_points_parse (json_loads) and jg_batch_points_read (the
 * whole file, json_loadb). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/batch.h"
#include "jacgraph/gen.h"
#include "compile/program_impl.h"
#include "linearize/lin_internal.h"
#include "testlib.h"

/* ------------------------------------------------ the reference reader */

/* The operating point object on a jansson tree, as linearize.c read it
 * before its reader moved to the compact document (jg__lin_op_read): the
 * same checks in the same order, the same messages, values into
 * t, xv, uv. */
static jg_status_t ref_op_values(const char *path, const char *what, const char *key,
                             const json_t *v, double *dst, int64_t n, jg_error_t *err)
{
    if (json_is_number(v)) {
        if (n != 1)
            return jg_error_set(err, JG_ARG, "%s: %s \"%s\": expected %lld values, got 1", path,
                                what, key, (long long)n);
        dst[0] = json_number_value(v);
        return JG_OK;
    }
    if (!json_is_array(v) || (int64_t)json_array_size(v) != n)
        return jg_error_set(err, JG_ARG, "%s: %s \"%s\": expected %s%lld number%s", path, what,
                            key, n == 1 ? "" : "an array of ", (long long)n, n == 1 ? "" : "s");
    for (int64_t k = 0; k < n; k++) {
        const json_t *e = json_array_get(v, (size_t)k);
        if (!json_is_number(e))
            return jg_error_set(err, JG_ARG, "%s: %s \"%s\": element %lld is not a number", path,
                                what, key, (long long)k + 1);
        dst[k] = json_number_value(e);
    }
    return JG_OK;
}

static jg_status_t ref_op_apply(const jg_program_t *p, const char *path, const json_t *root,
                                int params_ok, double *t_out, double *xv, double *uv, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    const char *key;
    json_t *v;
    if (!json_is_object(root))
        return jg_error_set(err, JG_ARG, "%s: expected an object with \"t\", \"states\", \"inputs\"%s",
                            path, params_ok ? ", \"parameters\"" : "");
    json_object_foreach((json_t *)root, key, v) {
        if (strcmp(key, "t") && strcmp(key, "states") && strcmp(key, "inputs") &&
            (!params_ok || strcmp(key, "parameters")))
            return jg_error_set(err, JG_ARG, "%s: unknown key \"%s\" (expected t, states, inputs%s)",
                                path, key, params_ok ? ", parameters" : "");
    }
    const json_t *t = json_object_get(root, "t");
    if (t) {
        if (!json_is_number(t)) return jg_error_set(err, JG_ARG, "%s: \"t\" must be a number", path);
        *t_out = json_number_value(t);
    }
    const json_t *states = json_object_get(root, "states");
    if (states && !json_is_object(states))
        return jg_error_set(err, JG_ARG, "%s: \"states\" must be an object", path);
    json_object_foreach((json_t *)states, key, v) {
        int64_t n, i = jg__lin_op_state(p, key, &n);
        if (i < 0)
            return jg_error_set(err, JG_ARG,
                                "%s: unknown state \"%s\" (expected the path of a block with "
                                "states, or PATH(k) for element k)",
                                path, key);
        if ((st = ref_op_values(path, "state", key, v, xv + i, n, err))) return st;
    }
    const json_t *inputs = json_object_get(root, "inputs");
    if (inputs && !json_is_object(inputs))
        return jg_error_set(err, JG_ARG, "%s: \"inputs\" must be an object", path);
    json_object_foreach((json_t *)inputs, key, v) {
        int64_t n, off = jg__lin_op_input(p, key, &n);
        if (off < 0)
            return jg_error_set(err, JG_ARG, "%s: unknown input \"%s\" (expected a root Inport name)",
                                path, key);
        if ((st = ref_op_values(path, "input", key, v, uv + off, n, err))) return st;
    }
    return JG_OK;
}

typedef struct {
    int nfixed, nvals, nparams;   /* nfixed = 1 + nx + nu */
    char **pnames;                /* nparams parameter names */
    double *base;                 /* nfixed defaults */
    int64_t nlist;
    double *vals;                 /* nlist x nvals: each listed point's values (NaN: none) */
    int *pord, *npord;            /* per point: its parameters in the order it lists them (64 at most) */
    int ngrid;
    int gparam[16];
    int64_t gn[16];
    double *gv[16];
    int64_t ncomb, n;
} ref_t;

static void ref_free(ref_t *R)
{
    for (int j = 0; j < R->nparams; j++) free(R->pnames[j]);
    free(R->pnames);
    free(R->base);
    free(R->vals);
    free(R->pord);
    free(R->npord);
    for (int g = 0; g < R->ngrid; g++) free(R->gv[g]);
    memset(R, 0, sizeof *R);
}

static int is_name(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))) return 0;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

static int ref_param(ref_t *R, const char *name)
{
    for (int j = 0; j < R->nparams; j++)
        if (!strcmp(R->pnames[j], name)) return j;
    R->pnames = realloc(R->pnames, sizeof(char *) * (size_t)(R->nparams + 1));
    R->pnames[R->nparams] = strdup(name);
    return R->nparams++;
}

/* The old reader: jansson, ref_op_apply per point, its messages. */
static jg_status_t ref_doc(json_t *root, const char *src, const jg_program_t *p, ref_t *R,
                           jg_error_t *err)
{
    const char *key;
    json_t *v;
    if (!json_is_object(root))
        return jg_error_set(err, JG_ARG, "%s: expected an object with \"points\" and/or \"grid\"", src);
    json_object_foreach(root, key, v) {
        if (strcmp(key, "points") && strcmp(key, "grid"))
            return jg_error_set(err, JG_ARG, "%s: unknown key \"%s\" (expected points, grid)", src, key);
    }
    const json_t *pts = json_object_get(root, "points"), *grid = json_object_get(root, "grid");
    if (!pts && !grid) return jg_error_set(err, JG_ARG, "%s: expected \"points\" and/or \"grid\"", src);
    if (pts && (!json_is_array(pts) || !json_array_size(pts)))
        return jg_error_set(err, JG_ARG, "%s: \"points\" must be a non-empty array of objects", src);
    R->ncomb = 1;
    if (grid) {
        if (!json_is_object(grid))
            return jg_error_set(err, JG_ARG, "%s: \"grid\" must be an object {NAME: [values...]}", src);
        json_object_foreach((json_t *)grid, key, v) {
            if (!is_name(key))
                return jg_error_set(err, JG_ARG, "%s: grid: \"%s\" is not a MATLAB variable name", src, key);
            size_t n = json_is_array(v) ? json_array_size(v) : 0;
            if (!n)
                return jg_error_set(err, JG_ARG, "%s: grid: \"%s\" must be a non-empty array of numbers",
                                    src, key);
            int g = R->ngrid++;
            R->gparam[g] = ref_param(R, key);
            R->gn[g] = (int64_t)n;
            R->gv[g] = malloc(sizeof(double) * n);
            for (size_t e = 0; e < n; e++) {
                const json_t *x = json_array_get(v, e);
                if (!json_is_number(x) || !isfinite(json_number_value(x)))
                    return jg_error_set(err, JG_ARG, "%s: grid: \"%s\": element %zu is not a finite number",
                                        src, key, e + 1);
                R->gv[g][e] = json_number_value(x);
            }
            R->ncomb *= (int64_t)n;
        }
    }
    R->nlist = pts ? (int64_t)json_array_size(pts) : 1;
    /* room for every parameter a point may add */
    size_t cap = (size_t)R->nfixed + 64;
    R->vals = malloc(sizeof(double) * cap * (size_t)R->nlist);
    for (size_t j = 0; j < cap * (size_t)R->nlist; j++) R->vals[j] = NAN;
    R->pord = malloc(sizeof(int) * 64 * (size_t)R->nlist);
    R->npord = calloc((size_t)R->nlist, sizeof(int));
    for (int64_t i = 0; pts && i < R->nlist; i++) {
        char where[600];   /* cut as the reader cuts it (a long source name) */
        if (snprintf(where, sizeof where, "%s: point %lld", src, (long long)i) < 0) where[0] = '\0';
        double *x = R->vals + (size_t)i * cap;
        const json_t *obj = json_array_get(pts, (size_t)i);
        jg_status_t st = ref_op_apply(p, where, obj, 1, x, x + 1, x + 1 + p->nx, err);
        if (st) return st;
        const json_t *par = json_object_get(obj, "parameters");
        if (par && !json_is_object(par))
            return jg_error_set(err, JG_ARG, "%s: \"parameters\" must be an object {NAME: number}", where);
        json_object_foreach((json_t *)par, key, v) {
            if (!is_name(key))
                return jg_error_set(err, JG_ARG, "%s: parameter \"%s\" is not a MATLAB variable name",
                                    where, key);
            if (!json_is_number(v) || !isfinite(json_number_value(v)))
                return jg_error_set(err, JG_ARG, "%s: parameter \"%s\" must be a finite number", where, key);
            int j = ref_param(R, key);
            x[R->nfixed + j] = json_number_value(v);
            R->pord[i * 64 + R->npord[i]++] = j;
        }
    }
    /* (the states and inputs a point sets come before its parameters) */
    for (int64_t i = 0; i < R->nlist; i++)
        for (int q = 0, j; q < R->npord[i] && (j = R->pord[i * 64 + q], 1); q++)
            for (int g = 0; g < R->ngrid; g++)
                if (R->gparam[g] == j)
                    return jg_error_set(err, JG_ARG, "%s: point %lld: parameter \"%s\" is also in the grid",
                                        src, (long long)i, R->pnames[j]);
    R->nvals = R->nfixed + R->nparams;
    /* packed to nvals a point */
    for (int64_t i = 0; i < R->nlist; i++)
        memmove(R->vals + (size_t)i * (size_t)R->nvals, R->vals + (size_t)i * cap,
                sizeof(double) * (size_t)R->nvals);
    R->n = R->ncomb * R->nlist;
    return JG_OK;
}

/* The old entry points: json_loads for a string, json_loadb for a file. */
static jg_status_t ref_read(const char *text, size_t len, int whole, const char *src,
                            const jg_program_t *p, ref_t *R, jg_error_t *err)
{
    memset(R, 0, sizeof *R);
    json_error_t je;
    json_t *root = whole ? json_loadb(text, len, JSON_REJECT_DUPLICATES, &je)
                         : json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) return jg_error_set(err, JG_PARSE, "%s:%d:%d: %s", src, je.line, je.column, je.text);
    int64_t nu = 0;
    for (int k = 0; k < p->nin_root; k++) nu += p->blocks[p->in_root[k]].out_w[0];
    R->nfixed = (int)(1 + p->nx + nu);
    R->base = calloc((size_t)R->nfixed, sizeof(double));
    jg_program_initial_states(p, R->base + 1, NULL);
    jg_status_t st = ref_doc(root, src, p, R, err);
    json_decref(root);
    return st;
}

/* The reader's table equals the reference's: names of the parameters, the
 * count, every point's values (bits). */
static int same_table(const jg_batch_points_t *P, const ref_t *R)
{
    if (jg_batch_points_count(P) != R->n || jg_batch_points_nvals(P) != R->nvals ||
        jg_batch_points_nparams(P) != R->nparams)
        return 0;
    for (int j = 0; j < R->nparams; j++)
        if (strcmp(jg_batch_points_name(P, R->nfixed + j), R->pnames[j])) return 0;
    double *got = malloc(sizeof(double) * (size_t)R->nvals), *want = malloc(sizeof(double) * (size_t)R->nvals);
    int ok = got && want;
    for (int64_t k = 0; ok && k < R->n; k++) {
        int64_t i = k % R->nlist, g = k / R->nlist;
        const double *x = R->vals + (size_t)i * (size_t)R->nvals;
        for (int j = 0; j < R->nvals; j++)
            want[j] = !isnan(x[j]) ? x[j] : j < R->nfixed ? R->base[j] : NAN;
        for (int q = R->ngrid - 1; q >= 0; q--) {
            want[R->nfixed + R->gparam[q]] = R->gv[q][g % R->gn[q]];
            g /= R->gn[q];
        }
        ok = !jg_batch_points_values(P, k, got) && !memcmp(got, want, sizeof(double) * (size_t)R->nvals);
    }
    free(got);
    free(want);
    return ok;
}

/* ------------------------------------------------ random points files */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int one_in(int n) { return next() % (uint64_t)n == 0; }

typedef struct {
    char *b;
    size_t n, cap;
} sb_t;

static void put(sb_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sb_t *s, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int w = vsnprintf(s->b + s->n, s->cap - s->n, fmt, ap);
        va_end(ap);
        if ((size_t)w < s->cap - s->n) {
            s->n += (size_t)w;
            return;
        }
        s->cap = 2 * s->cap + (size_t)w + 64;
        s->b = realloc(s->b, s->cap);
    }
}

/* What a model offers a points file: its state names, the paths of blocks
 * with several states (and their counts), its root Inports (and widths). */
typedef struct {
    const jg_program_t *p;
    int nst, nblk, nin;
    const char **st;
    char **blk;
    int64_t *blk_nx;
    char **in;
    int64_t *in_w;
} offer_t;

static void offer_init(offer_t *O, const jg_program_t *p)
{
    memset(O, 0, sizeof *O);
    O->p = p;
    O->nst = (int)p->nx;
    O->st = malloc(sizeof(char *) * (size_t)(p->nx + 1));
    O->blk = malloc(sizeof(char *) * (size_t)(p->nx + 1));
    O->blk_nx = malloc(sizeof(int64_t) * (size_t)(p->nx + 1));
    for (int64_t i = 0; i < p->nx; i++) O->st[i] = jg_program_state_name(p, i);
    for (int32_t b = 0; b < p->nblocks; b++)
        if (p->blocks[b].nx > 1) {
            O->blk[O->nblk] = strdup(p->blocks[b].path);
            O->blk_nx[O->nblk++] = p->blocks[b].nx;
        }
    O->in = malloc(sizeof(char *) * (size_t)(p->nin_root + 1));
    O->in_w = malloc(sizeof(int64_t) * (size_t)(p->nin_root + 1));
    for (int k = 0; k < p->nin_root; k++) {
        O->in[O->nin] = strdup(p->blocks[p->in_root[k]].path);
        O->in_w[O->nin++] = p->blocks[p->in_root[k]].out_w[0];
    }
}

static void offer_free(offer_t *O)
{
    for (int j = 0; j < O->nblk; j++) free(O->blk[j]);
    for (int j = 0; j < O->nin; j++) free(O->in[j]);
    free(O->st);
    free(O->blk);
    free(O->blk_nx);
    free(O->in);
    free(O->in_w);
}

/* A JSON string of s (the names hold no quotes or backslashes). */
static void str(sb_t *s, const char *t) { put(s, "\"%s\"", t); }

static void number(sb_t *s, int bad)
{
    static const char *const odd[] = {"-0", "0", "1e2", "-2.5E-3", "123456789012345678", "0.1e1",
                                      "7", "1e-320", "3.0"};
    if (bad && one_in(3)) {   /* not a number */
        static const char *const nn[] = {"\"1\"", "null", "true", "[1]", "{}"};
        put(s, "%s", nn[next() % 5]);
    } else if (bad && one_in(2)) {   /* only jansson reads it (or refuses it) */
        static const char *const big[] = {"1234567890123456789", "-9223372036854775808", "1e400",
                                          "99999999999999999999"};
        put(s, "%s", big[next() % 4]);
    } else if (one_in(4)) {
        put(s, "%s", odd[next() % (sizeof odd / sizeof odd[0])]);
    } else {
        put(s, "%.17g", ((double)(next() % 2000001) - 1000000.0) / 1024.0);
    }
}

static void values(sb_t *s, int64_t n, int bad)
{
    int64_t m = n;
    if (bad && one_in(4)) m = n + (one_in(2) ? 1 : -1);
    if (m == 1 && !one_in(3)) {
        number(s, bad && one_in(3));
        return;
    }
    put(s, "[");
    for (int64_t e = 0; e < m; e++) {
        if (e) put(s, ",");
        number(s, bad && one_in(8));
    }
    put(s, "]");
}

static const char *const pnames[] = {"K", "Kq", "gain_2", "x0", "1x", "a-b", "", "Z9"};

static void point(sb_t *s, const offer_t *O, int bad)
{
    put(s, "{");
    int first = 1;
#define SEP() (first ? (void)(first = 0) : put(s, ","))
    if (!one_in(3)) {
        SEP();
        put(s, "\"t\":");
        number(s, bad && one_in(6));
    }
    if (bad && one_in(12)) {
        SEP();
        put(s, "\"%s\":1", one_in(2) ? "bogus" : "T");
    }
    if (!one_in(4)) {
        SEP();
        put(s, "\"states\":");
        if (bad && one_in(15)) put(s, "[1,2]");
        else {
            put(s, "{");
            /* distinct names (one after the other from a random start):
             * a name twice is a duplicate key, which jansson refuses */
            int k = (int)(next() % 6), f2 = 1;
            if (k > O->nst) k = O->nst;
            uint64_t b0 = next(), s0 = next();
            for (int e = 0; e < k; e++) {
                if (!f2) put(s, ",");
                f2 = 0;
                if (bad && one_in(10)) {
                    put(s, "\"%s\":1", one_in(2) ? "nope" : "Q1(9)");
                } else if (e < O->nblk && one_in(3)) {
                    int b = (int)((b0 + (uint64_t)e) % (uint64_t)O->nblk);
                    str(s, O->blk[b]);
                    put(s, ":");
                    values(s, O->blk_nx[b], bad);
                } else if (O->nst) {
                    str(s, O->st[(s0 + (uint64_t)e) % (uint64_t)O->nst]);
                    put(s, ":");
                    values(s, 1, bad);
                }
                /* the same state twice: the file has duplicate keys, or
                 * (block path and element) the later wins */
                if (bad && one_in(20) && O->nst) {
                    put(s, ",");
                    str(s, O->st[0]);
                    put(s, ":1,");
                    str(s, O->st[0]);
                    put(s, ":2");
                }
            }
            put(s, "}");
        }
    }
    if (O->nin && one_in(3)) {
        SEP();
        put(s, "\"inputs\":{");
        int k = (int)(next() % 3);
        uint64_t j0 = next();
        for (int e = 0; e < k && e < O->nin; e++) {
            int j = (int)((j0 + (uint64_t)e) % (uint64_t)O->nin);
            if (e) put(s, ",");
            if (bad && one_in(10)) put(s, "\"NoSuchInport\":1");
            else {
                str(s, O->in[j]);
                put(s, ":");
                values(s, O->in_w[j], bad);
            }
        }
        put(s, "}");
    }
    if (one_in(4)) {
        SEP();
        put(s, "\"parameters\":");
        if (bad && one_in(10)) put(s, "[1]");
        else {
            put(s, "{");
            int k = (int)(next() % 3);
            uint64_t q0 = next();
            for (int e = 0; e < k; e++) {
                if (e) put(s, ",");
                str(s, pnames[bad ? next() % 8 : (q0 + (uint64_t)e) % 4]);
                put(s, ":");
                number(s, bad && one_in(5));
            }
            put(s, "}");
        }
    }
    if (bad && one_in(25)) {
        SEP();
        put(s, "\"t\":\"a\\u0000b\"");   /* a string only jansson reads */
    }
#undef SEP
    put(s, "}");
}

/* A points file: bad = 0 valid (up to the parameters' names), else broken
 * somewhere now and then. */
static void points_file(sb_t *s, const offer_t *O, int bad)
{
    s->n = 0;
    put(s, "{");
    int grid = one_in(3), pts = !grid || !one_in(3);
    if (grid) {
        put(s, "\"grid\":");
        if (bad && one_in(10)) put(s, "[1]");
        else {
            put(s, "{");
            int k = 1 + (int)(next() % 2);
            for (int e = 0; e < k; e++) {
                if (e) put(s, ",");
                put(s, "\"%s\":", e ? "G2" : (bad && one_in(3)) ? pnames[next() % 8] : "G1");
                int n = bad && one_in(10) ? 0 : 1 + (int)(next() % 3);
                put(s, "[");
                for (int q = 0; q < n; q++) {
                    if (q) put(s, ",");
                    number(s, bad && one_in(10));
                }
                put(s, "]");
            }
            put(s, "}");
        }
        if (pts) put(s, ",");
    }
    if (pts) {
        put(s, "\"points\":[");
        int n = bad && one_in(20) ? 0 : 1 + (int)(next() % 12);
        for (int i = 0; i < n; i++) {
            if (i) put(s, ",\n");
            point(s, O, bad);
        }
        put(s, "]");
    }
    if (bad && one_in(15)) put(s, ",\"extra\":1");
    if (!grid && !pts) put(s, "\"nothing\":0");
    put(s, "}");
    if (bad && one_in(8)) s->n = next() % (s->n + 1);   /* cut short */
    if (bad && one_in(40)) {   /* nested deeper than the fast parser goes */
        s->n = 0;
        put(s, "{\"points\":[{\"t\":1}],\"grid\":{\"G\":");
        for (int k = 0; k < 2100; k++) put(s, "[");
        for (int k = 0; k < 2100; k++) put(s, "]");
        put(s, "}}");
    }
    s->b[s->n] = '\0';
}

/* ------------------------------------------------ the comparisons */

static const char *dir;
static int nfile;

/* One text through both readers (string and file): the same outcome. */
static int compare(const jg_program_t *p, const char *text, size_t len, const char *src, int *accepted)
{
    int ok = 1;
    for (int whole = 0; whole < 2 && ok; whole++) {
        jg_error_t e1, e2;
        jg_error_clear(&e1);
        jg_error_clear(&e2);
        jg_batch_points_t *P = NULL;
        char path[1100];
        jg_status_t s1;
        if (whole) {
            snprintf(path, sizeof path, "%s/p%d.json", dir, nfile++ % 4);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(text, 1, len, f) != len) return 0;
            fclose(f);
            src = path;
            s1 = jg_batch_points_read(path, p, &P, &e1);
        } else {
            s1 = jg_batch_points_parse(text, src, p, &P, &e1);
        }
        ref_t R;
        jg_status_t s2 = ref_read(text, len, whole, src, p, &R, &e2);
        ok = s1 == s2 && (s1 ? !P && !strcmp(e1.msg, e2.msg) : same_table(P, &R));
        if (!ok)
            printf("# %s: %d '%s' against %d '%s'\n#   text: %.300s\n", whole ? "read" : "parse", s1, e1.msg, s2,
                   e2.msg, text);
        if (!s1) ++*accepted;
        jg_batch_points_free(P);
        ref_free(&R);
    }
    return ok;
}

static void test_random(const char *what, const jg_program_t *p, int nfiles)
{
    offer_t O;
    offer_init(&O, p);
    sb_t s = {malloc(256), 0, 256};
    int bad_same = 0, good_same = 0, nacc_bad = 0, nacc_good = 0;
    for (int k = 0; k < nfiles; k++) {
        points_file(&s, &O, 0);
        good_same += compare(p, s.b, s.n, "rand", &nacc_good);
        points_file(&s, &O, 1);
        bad_same += compare(p, s.b, s.n, "rand", &nacc_bad);
    }
    tap_ok(good_same == nfiles, "%s: %d valid points files read as before (%d of %d agree; %d reads accepted)",
           what, nfiles, good_same, nfiles, nacc_good);
    tap_ok(bad_same == nfiles,
           "%s: %d broken points files: the same message or table as before (%d agree; %d reads accepted)",
           what, nfiles, bad_same, nacc_bad);
    free(s.b);
    offer_free(&O);
}

/* Hand-picked: each message as it was, and a source name longer than the
 * message's prefix buffer. */
static void test_cases(const jg_program_t *p)
{
    static const char *const cases[] = {
        "{\"points\":[{\"t\":1,\"states\":{\"nope\":1}}]}",
        "{\"points\":[{\"t\":\"x\"}]}",
        "{\"points\":[{\"states\":{\"Q1\":[1]}}]}",
        "{\"points\":[{\"states\":{\"Q1\":[1,\"a\"]}}]}",
        "{\"points\":[{\"inputs\":{\"I1\":1}}]}",
        "{\"points\":[{\"inputs\":[]}]}",
        "{\"points\":[{\"parameters\":{\"K\":1}}],\"grid\":{\"K\":[1,2]}}",
        "{\"points\":[{\"parameters\":{\"K\":1,\"K\":2}}]}",
        "{\"points\":[1]}",
        "{\"points\":[]}",
        "{\"grid\":{\"K\":[]}}",
        "{\"grid\":{\"K\":[1,null]}}",
        "{\"grid\":{}}",
        "{}",
        "[]",
        "",
        "{\"points\":[{\"t\":1}]",
        "{\"points\":[{\"t\":12345678901234567890}]}",
        "{\"points\":[{\"t\":1234567890123456789}]}",
        "{\"points\":[{\"t\":1e999}]}",
        "{\"points\":[{\"t\":-0}],\"grid\":{\"G\":[-0,0.5]}}",
        "{\"points\":[{\"states\":{\"Q1(1)\":1,\"Q1\":[2,3]}}]}",
        "{\"points\":[{\"states\":{\"Q1\":[2,3],\"Q1(1)\":1}}]}",
        "{\"points\":[{\"x\":\"a\\u0000b\"}]}",
        "{\"points\":[{\"t\":2}],\"grid\":{\"G\":[1]},\"extra\":[]}",
    };
    int same = 0, n = (int)(sizeof cases / sizeof cases[0]), acc = 0;
    for (int k = 0; k < n; k++) same += compare(p, cases[k], strlen(cases[k]), "cases.json", &acc);
    tap_ok(same == n, "%d hand-picked points files: the same outcome and message as before (%d accepted)", n,
           acc);
    char longsrc[800];
    memset(longsrc, 'x', sizeof longsrc - 1);
    longsrc[sizeof longsrc - 1] = '\0';
    tap_ok(compare(p, cases[0], strlen(cases[0]), longsrc, &acc) &&
               compare(p, cases[3], strlen(cases[3]), longsrc, &acc),
           "a source name of 799 bytes: the same (cut) message");
}

static jg_program_t *generated(int64_t blocks, uint64_t seed, jg_model_t **m)
{
    jg_gen_opts_t o;
    jg_gen_opts_default(&o, JG_GEN_AEROSPACE, blocks, seed);
    char *doc = NULL;
    size_t len = 0;
    jg_error_t err;
    jg_program_t *p = NULL;
    if (jg_gen_model(&o, &doc, &len, NULL, &err) || jg_model_parse(doc, "gen", m, &err) ||
        jg_program_compile(*m, &p, &err))
        tap_ok(0, "generated model: %s", err.msg);
    free(doc);
    return p;
}

int main(void)
{
    char d[256];
    dir = tl_tmpdir(d, sizeof d, "jg_points");
    if (!dir) {
        tap_ok(0, "a scratch directory");
        return tap_done();
    }
    jg_model_t *m1 = NULL, *m2 = NULL;
    jg_program_t *p1 = generated(60, 3, &m1), *p2 = generated(400, 5, &m2), *p3 = NULL;
    jg_model_t *m3 = NULL;
    jg_error_t err;
    if (jg_model_read("graphs/f14.json", &m3, &err) || jg_program_compile(m3, &p3, &err))
        tap_ok(0, "graphs/f14.json: %s", err.msg);
    if (p1) {
        test_cases(p1);
        test_random("aerospace 60 blocks", p1, 1500);
    }
    if (p2) test_random("aerospace 400 blocks", p2, 1500);
    if (p3) test_random("f14", p3, 1500);
    jg_program_free(p1);
    jg_program_free(p2);
    jg_program_free(p3);
    jg_model_free(m1);
    jg_model_free(m2);
    jg_model_free(m3);
    tl_rmtree(dir);
    return tap_done();
}
