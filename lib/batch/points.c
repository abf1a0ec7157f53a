/* The points table of a batch: operating points and workspace parameters
 * read from a points file (each point an --op object plus "parameters"), a
 * full-factorial grid over parameters, and simulation snapshots. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "batch_impl.h"
#include "../linearize/lin_internal.h"
#include "../core/str.h"
#include "../model/model_internal.h"

void jg_batch_points_free(jg_batch_points_t *P)
{
    if (!P) return;
    for (int j = 0; P->names && j < P->nvals; j++) free(P->names[j]);
    free(P->names);
    free(P->base);
    free(P->source);
    free(P->set_ptr);
    free(P->set);
    for (int j = 0; P->grid_v && j < P->ngrid; j++) free(P->grid_v[j]);
    free(P->grid_v);
    free(P->grid_param);
    free(P->grid_n);
    free(P->at);
    free(P);
}

/* A MATLAB variable name: a letter, then letters, digits, underscores. */
static int is_name(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))) return 0;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

/* The table for p without points or parameters: names and defaults of t,
 * the states and the inputs. */
static jg_status_t table_new(const jg_program_t *p, const char *source, jg_batch_points_t **out,
                             jg_error_t *err)
{
    jg_batch_points_t *P = calloc(1, sizeof *P);
    *out = NULL;
    if (!P) return jg_error_set(err, JG_NOMEM, "out of memory");
    P->p = p;
    P->nx = p->nx;
    for (int k = 0; k < p->nin_root; k++) P->nu += p->blocks[p->in_root[k]].out_w[0];
    P->nvals = (int)(1 + P->nx + P->nu);
    P->ncomb = 1;
    P->source = jg__strdup(source ? source : "points");
    P->names = calloc((size_t)P->nvals, sizeof(char *));
    P->base = calloc((size_t)P->nvals, sizeof(double));
    if (!P->source || !P->names || !P->base) goto nomem;
    if (!(P->names[0] = jg__strdup("t"))) goto nomem;
    for (int64_t i = 0; i < P->nx; i++)
        if (!(P->names[1 + i] = jg__strdup(jg_program_state_name(p, i)))) goto nomem;
    int64_t at = 1 + P->nx;
    for (int k = 0; k < p->nin_root; k++) {
        const jg_block_t *B = &p->blocks[p->in_root[k]];
        for (int64_t e = 0; e < B->out_w[0]; e++) {
            char *nm = B->out_w[0] == 1 ? jg__strdup(B->path) : jg__lin_element_name(B->path, B->out_w[0], e);
            if (!(P->names[at++] = nm)) goto nomem;
        }
    }
    jg_status_t st = jg_program_initial_states(p, P->base + 1, err);
    if (st) {
        jg_batch_points_free(P);
        return st;
    }
    *out = P;
    return JG_OK;
nomem:
    jg_batch_points_free(P);
    return jg_error_set(err, JG_NOMEM, "out of memory");
}

/* The index of parameter `name` among the values, added when new. */
static int param_index(jg_batch_points_t *P, const char *name)
{
    for (int j = 0; j < P->nparams; j++)
        if (!strcmp(P->names[P->nvals - P->nparams + j], name)) return P->nvals - P->nparams + j;
    char **nn = realloc(P->names, sizeof(char *) * (size_t)(P->nvals + 1));
    if (!nn) return -1;
    P->names = nn;
    double *nb = realloc(P->base, sizeof(double) * (size_t)(P->nvals + 1));
    if (!nb) return -1;
    P->base = nb;
    if (!(P->names[P->nvals] = jg__strdup(name))) return -1;
    P->base[P->nvals] = NAN;
    P->nparams++;
    return P->nvals++;
}

/* The listed point `obj` (index i) appended: what it sets, compared with a
 * scratch copy of the defaults. */
static jg_status_t add_point(jg_batch_points_t *P, const json_t *obj, int64_t i, double *scratch,
                             int64_t *cap, jg_error_t *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s: point %lld", P->source, (long long)i);
    /* NaN marks what the point leaves alone (JSON has no NaN) */
    int64_t nb = 1 + P->nx + P->nu;
    for (int64_t j = 0; j < nb; j++) scratch[j] = NAN;
    jg_status_t st = jg__lin_op_apply(P->p, where, obj, 1, &scratch[0], scratch + 1,
                                      scratch + 1 + P->nx, err);
    if (st) return st;
    const json_t *par = json_object_get(obj, "parameters");
    if (par && !json_is_object(par))
        return jg_error_set(err, JG_ARG, "%s: \"parameters\" must be an object {NAME: number}", where);
    int64_t need = P->set_ptr[i] + nb + (int64_t)json_object_size(par);
    if (need > *cap) {
        int64_t nc = need > 2 * *cap ? need : 2 * *cap;
        jg__bval_t *ns = realloc(P->set, sizeof *ns * (size_t)nc);
        if (!ns) return jg_error_set(err, JG_NOMEM, "out of memory");
        P->set = ns;
        *cap = nc;
    }
    int64_t n = P->set_ptr[i];
    for (int64_t j = 0; j < nb; j++)
        if (!isnan(scratch[j])) P->set[n++] = (jg__bval_t){(int32_t)j, scratch[j]};
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)par, key, v) {
        if (!is_name(key))
            return jg_error_set(err, JG_ARG, "%s: parameter \"%s\" is not a MATLAB variable name",
                                where, key);
        if (!json_is_number(v) || !isfinite(json_number_value(v)))
            return jg_error_set(err, JG_ARG, "%s: parameter \"%s\" must be a finite number", where, key);
        int idx = param_index(P, key);
        if (idx < 0) return jg_error_set(err, JG_NOMEM, "out of memory");
        P->set[n++] = (jg__bval_t){idx, json_number_value(v)};
    }
    P->set_ptr[i + 1] = n;
    return JG_OK;
}

static jg_status_t read_grid(jg_batch_points_t *P, const json_t *grid, jg_error_t *err)
{
    if (!json_is_object(grid))
        return jg_error_set(err, JG_ARG, "%s: \"grid\" must be an object {NAME: [values...]}",
                            P->source);
    size_t ng = json_object_size(grid);
    P->grid_param = calloc(ng + 1, sizeof(int));
    P->grid_n = calloc(ng + 1, sizeof(int64_t));
    P->grid_v = calloc(ng + 1, sizeof(double *));
    if (!P->grid_param || !P->grid_n || !P->grid_v) return jg_error_set(err, JG_NOMEM, "out of memory");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)grid, key, v) {
        if (!is_name(key))
            return jg_error_set(err, JG_ARG, "%s: grid: \"%s\" is not a MATLAB variable name",
                                P->source, key);
        size_t n = json_is_array(v) ? json_array_size(v) : 0;
        if (!n)
            return jg_error_set(err, JG_ARG, "%s: grid: \"%s\" must be a non-empty array of numbers",
                                P->source, key);
        int g = P->ngrid;
        int idx = param_index(P, key);
        if (idx < 0 || !(P->grid_v[g] = malloc(sizeof(double) * n)))
            return jg_error_set(err, JG_NOMEM, "out of memory");
        P->grid_param[g] = idx - (P->nvals - P->nparams);
        P->grid_n[g] = (int64_t)n;
        P->ngrid++;
        for (size_t e = 0; e < n; e++) {
            const json_t *x = json_array_get(v, e);
            if (!json_is_number(x) || !isfinite(json_number_value(x)))
                return jg_error_set(err, JG_ARG, "%s: grid: \"%s\": element %zu is not a finite number",
                                    P->source, key, e + 1);
            P->grid_v[g][e] = json_number_value(x);
        }
        if (P->ncomb > ((int64_t)1 << 40) / (int64_t)n)
            return jg_error_set(err, JG_ARG, "%s: grid: more than 2^40 combinations", P->source);
        P->ncomb *= (int64_t)n;
    }
    return JG_OK;
}

static jg_status_t parse_doc(json_t *root, jg_batch_points_t *P, jg_error_t *err)
{
    const char *key;
    json_t *v;
    if (!json_is_object(root))
        return jg_error_set(err, JG_ARG, "%s: expected an object with \"points\" and/or \"grid\"",
                            P->source);
    json_object_foreach(root, key, v) {
        if (strcmp(key, "points") && strcmp(key, "grid"))
            return jg_error_set(err, JG_ARG, "%s: unknown key \"%s\" (expected points, grid)",
                                P->source, key);
    }
    const json_t *pts = json_object_get(root, "points"), *grid = json_object_get(root, "grid");
    if (!pts && !grid)
        return jg_error_set(err, JG_ARG, "%s: expected \"points\" and/or \"grid\"", P->source);
    if (pts && (!json_is_array(pts) || !json_array_size(pts)))
        return jg_error_set(err, JG_ARG, "%s: \"points\" must be a non-empty array of objects",
                            P->source);
    jg_status_t st;
    /* the grid first: its parameters come first among the values */
    if (grid && (st = read_grid(P, grid, err))) return st;
    P->nlist = pts ? (int64_t)json_array_size(pts) : 1;
    P->set_ptr = calloc((size_t)P->nlist + 1, sizeof(int64_t));
    double *scratch = malloc(sizeof(double) * (size_t)(1 + P->nx + P->nu));
    if (!P->set_ptr || !scratch) {
        free(scratch);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    int64_t cap = 0;
    st = JG_OK;
    for (int64_t i = 0; pts && i < P->nlist && !st; i++)
        st = add_point(P, json_array_get(pts, (size_t)i), i, scratch, &cap, err);
    free(scratch);
    if (st) return st;
    /* a parameter of the grid set by a point too: which value would win? */
    for (int64_t i = 0; i < P->nlist; i++)
        for (int64_t s = P->set_ptr[i]; s < P->set_ptr[i + 1]; s++)
            for (int g = 0; g < P->ngrid; g++)
                if (P->set[s].idx == P->nvals - P->nparams + P->grid_param[g])
                    return jg_error_set(err, JG_ARG,
                                        "%s: point %lld: parameter \"%s\" is also in the grid",
                                        P->source, (long long)i, P->names[P->set[s].idx]);
    if (P->ncomb > ((int64_t)1 << 40) / P->nlist)
        return jg_error_set(err, JG_ARG, "%s: more than 2^40 points", P->source);
    P->n = P->ncomb * P->nlist;
    return JG_OK;
}

static jg_status_t from_root(json_t *root, const char *source, const jg_program_t *p,
                             jg_batch_points_t **out, jg_error_t *err)
{
    jg_batch_points_t *P;
    jg_status_t st = table_new(p, source, &P, err);
    if (!st) st = parse_doc(root, P, err);
    json_decref(root);
    if (st) {
        jg_batch_points_free(P);
        return st;
    }
    *out = P;
    return JG_OK;
}

jg_status_t jg_batch_points_parse(const char *text, const char *source, const jg_program_t *p,
                                  jg_batch_points_t **out, jg_error_t *err)
{
    json_error_t je;
    *out = NULL;
    if (!text || !p) return jg_error_set(err, JG_ARG, "jg_batch_points_parse: NULL argument");
    if (!source) source = "points";
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) return jg_error_set(err, JG_PARSE, "%s:%d:%d: %s", source, je.line, je.column, je.text);
    return from_root(root, source, p, out, err);
}

jg_status_t jg_batch_points_read(const char *path, const jg_program_t *p, jg_batch_points_t **out,
                                 jg_error_t *err)
{
    json_error_t je;
    *out = NULL;
    if (!path || !p) return jg_error_set(err, JG_ARG, "jg_batch_points_read: NULL argument");
    /* the whole text first (jg__read_file, as models are read; no size limit
     * here), then json_loadb: json_loadf takes a byte at a time through getc,
     * a third of reading ten thousand points */
    char *text = NULL;
    size_t len = 0;
    jg_status_t st = jg__read_file(path, (uint64_t)1 << 62, &text, &len, err);
    if (st) return st;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!root) return jg_error_set(err, JG_PARSE, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    return from_root(root, path, p, out, err);
}

jg_status_t jg_batch_points_default(const jg_program_t *p, jg_batch_points_t **out, jg_error_t *err)
{
    if (!p) return jg_error_set(err, JG_ARG, "jg_batch_points_default: NULL argument");
    jg_status_t st = table_new(p, "default", out, err);
    if (st) return st;
    jg_batch_points_t *P = *out;
    P->nlist = 1;
    P->n = 1;
    if (!(P->set_ptr = calloc(2, sizeof(int64_t)))) {
        jg_batch_points_free(P);
        *out = NULL;
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    return JG_OK;
}

jg_status_t jg_batch_points_set_times(jg_batch_points_t *P, int n, const double *at, jg_error_t *err)
{
    if (!P || n < 1 || !at) return jg_error_set(err, JG_ARG, "snapshots: expected at least one time");
    for (int j = 0; j < n; j++)
        if (!isfinite(at[j]) || (j && !(at[j] > at[j - 1])))
            return jg_error_set(err, JG_ARG, "snapshots: the times must be finite and increasing");
    /* every listed point starts at or before the first time */
    for (int64_t i = 0; i < P->nlist; i++) {
        double t = P->base[0];
        for (int64_t s = P->set_ptr[i]; s < P->set_ptr[i + 1]; s++)
            if (P->set[s].idx == 0) t = P->set[s].v;
        if (at[0] < t)
            return jg_error_set(err, JG_ARG, "%s: point %lld: snapshot time %g is before its t = %g",
                                P->source, (long long)i, at[0], t);
    }
    if (P->ncomb * P->nlist > ((int64_t)1 << 40) / n)
        return jg_error_set(err, JG_ARG, "snapshots: more than 2^40 points");
    double *a = malloc(sizeof(double) * (size_t)n);
    if (!a) return jg_error_set(err, JG_NOMEM, "out of memory");
    memcpy(a, at, sizeof(double) * (size_t)n);
    free(P->at);
    P->at = a;
    P->nat = n;
    P->n = P->ncomb * P->nlist * n;
    return JG_OK;
}

int64_t jg_batch_points_count(const jg_batch_points_t *P) { return P ? P->n : 0; }
int jg_batch_points_nvals(const jg_batch_points_t *P) { return P ? P->nvals : 0; }
int jg_batch_points_nparams(const jg_batch_points_t *P) { return P ? P->nparams : 0; }
const char *jg_batch_points_name(const jg_batch_points_t *P, int j)
{
    return P && j >= 0 && j < P->nvals ? P->names[j] : NULL;
}

void jg__batch_params(const jg_batch_points_t *P, int64_t g, int64_t i, double *pv)
{
    int64_t p0 = P->nvals - P->nparams;
    for (int j = 0; j < P->nparams; j++) pv[j] = NAN;
    for (int64_t s = P->set_ptr[i]; s < P->set_ptr[i + 1]; s++)
        if (P->set[s].idx >= p0) pv[P->set[s].idx - p0] = P->set[s].v;
    /* mixed radix, the last grid parameter fastest */
    for (int q = P->ngrid - 1; q >= 0; q--) {
        pv[P->grid_param[q]] = P->grid_v[q][g % P->grid_n[q]];
        g /= P->grid_n[q];
    }
}

int jg_batch_points_values(const jg_batch_points_t *P, int64_t k, double *vals)
{
    if (!P || k < 0 || k >= P->n) return -1;
    int64_t g, i;
    int j;
    jg__batch_coords(P, k, &g, &i, &j);
    memcpy(vals, P->base, sizeof(double) * (size_t)P->nvals);
    for (int64_t s = P->set_ptr[i]; s < P->set_ptr[i + 1]; s++) vals[P->set[s].idx] = P->set[s].v;
    jg__batch_params(P, g, i, vals + P->nvals - P->nparams);
    if (j >= 0) vals[0] = P->at[j];
    return 0;
}
