/* The programs of a batch's parameter combinations: the model compiled once
 * per distinct combination (its workspace overridden by name, as --set does),
 * each checked to have exactly the structure of the base program, so that
 * every point shares one symbolic phase. */
#define _GNU_SOURCE   /* open_memstream */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "batch_impl.h"
#include "jacgraph/plugin.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void jg__batch_vars_free(jg__batch_vars_t *V)
{
    for (int k = 0; V->prog && k < V->nprog; k++)
        if (V->owned[k]) jg_program_free(V->prog[k]);
    free(V->prog);
    free(V->owned);
    free(V->pv);
    free(V->var);
    memset(V, 0, sizeof *V);
}

/* ------------------------------------------------------------ structure */

static int pattern_diff(const cs_dl *a, const cs_dl *b)
{
    if (!a || !b) return a != b;
    if (a->m != b->m || a->n != b->n || a->nz != b->nz) return 1;
    if (a->nz >= 0) return 1;   /* parts are compressed-column */
    if (memcmp(a->p, b->p, sizeof(int64_t) * (size_t)(a->n + 1))) return 1;
    return memcmp(a->i, b->i, sizeof(int64_t) * (size_t)a->p[a->n]) != 0;
}

/* equal, or both NaN (an unresolved sample time) */
static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

int jg__batch_structure_diff(const jg_program_t *p, const jg_program_t *q, char *msg, size_t n)
{
    if (p->nblocks != q->nblocks) {
        snprintf(msg, n, "%d blocks instead of %d", q->nblocks, p->nblocks);
        return 1;
    }
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *A = &p->blocks[b], *B = &q->blocks[b];
        const char *what = NULL;
        char buf[160];
        if (strcmp(A->path, B->path) || strcmp(A->type->name, B->type->name)) what = "another block";
        else if (A->nin != B->nin || A->nout != B->nout) what = "its number of ports";
        else if (A->nx != B->nx) {
            snprintf(buf, sizeof buf, "%lld states instead of %lld", (long long)B->nx, (long long)A->nx);
            what = buf;
        } else if (jg_block_nd(A) != jg_block_nd(B)) what = "its number of discrete states";
        else if (jg_block_nzc(A) != jg_block_nzc(B)) what = "its number of zero crossings";
        else if (!same(A->ts.period, B->ts.period) || !same(A->ts.offset, B->ts.offset))
            what = "its sample time";
        else if (A->npart != B->npart) what = "its Jacobian parts";
        for (int k = 0; !what && k < A->nin; k++)
            if (A->in_w[k] != B->in_w[k]) {
                snprintf(buf, sizeof buf, "input %d width %lld instead of %lld", k + 1,
                         (long long)B->in_w[k], (long long)A->in_w[k]);
                what = buf;
            }
        for (int k = 0; !what && k < A->nout; k++)
            if (A->out_w[k] != B->out_w[k]) {
                snprintf(buf, sizeof buf, "output %d width %lld instead of %lld", k + 1,
                         (long long)B->out_w[k], (long long)A->out_w[k]);
                what = buf;
            }
        for (int k = 0; !what && k < A->npart; k++) {
            const jg_jac_part_t *x = &A->part[k], *y = &B->part[k];
            if (x->kind != y->kind || x->row_port != y->row_port || x->col_port != y->col_port ||
                pattern_diff(x->m, y->m))
                what = "the pattern of its Jacobian";
        }
        if (what) {
            snprintf(msg, n, "block '%s': %s", A->path, what);
            return 1;
        }
    }
    if (p->nx != q->nx || p->nd != q->nd || p->nu != q->nu || p->ny != q->ny || p->nzc != q->nzc ||
        p->nrates != q->nrates || p->nsorted != q->nsorted || p->nloops != q->nloops) {
        snprintf(msg, n, "the model's sizes, rates or algebraic loops");
        return 1;
    }
    for (int32_t r = 0; r < p->nrates; r++)
        if (!same(p->rates[r].period, q->rates[r].period) || !same(p->rates[r].offset, q->rates[r].offset)) {
            snprintf(msg, n, "the discrete rates");
            return 1;
        }
    if (memcmp(p->u_src, q->u_src, sizeof(int64_t) * (size_t)p->nu) ||
        memcmp(p->sorted, q->sorted, sizeof(int32_t) * (size_t)p->nsorted) ||
        memcmp(p->feedthrough, q->feedthrough, (size_t)p->nin_ports)) {
        snprintf(msg, n, "the connections, feedthrough or sorted order");
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ names */

/* Every workspace name of the model: the keys of the top-level "parameters",
 * "workspace" and "overrides" and of every SubSystem's "parameters" (mask
 * parameters), recursively. */
static jg_status_t collect(const json_t *v, json_t *names, int depth)
{
    if (depth > 2000) return JG_OK;
    const char *key;
    json_t *x;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, key, x) {
            if ((!strcmp(key, "parameters") || (depth == 0 && (!strcmp(key, "workspace") ||
                                                               !strcmp(key, "overrides")))) &&
                json_is_object(x)) {
                const char *k2;
                json_t *y;
                json_object_foreach(x, k2, y) json_object_set(names, k2, json_true());
            } else if (json_is_object(x) || json_is_array(x)) {
                collect(x, names, depth + 1);
            }
        }
    } else if (json_is_array(v)) {
        json_array_foreach((json_t *)v, i, x) collect(x, names, depth + 1);
    }
    return JG_OK;
}

static jg_status_t model_names(const jg_batch_opts_t *o, json_t **names, jg_error_t *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return jg_error_set(err, JG_NOMEM, "out of memory");
    jg_status_t st = jg_import_to_json(o->model_path, o->import, f, err);
    if (fclose(f) && !st) st = jg_error_set(err, JG_NOMEM, "out of memory");
    if (st) {
        free(buf);
        return st;
    }
    json_error_t je;
    json_t *root = json_loadb(buf, len, 0, &je);
    free(buf);
    if (!root) return jg_error_set(err, JG_PARSE, "%s: the imported model does not read back: %s",
                                   o->model_path, je.text);
    *names = json_object();
    if (*names) collect(root, *names, 0);
    json_decref(root);
    return *names ? JG_OK : jg_error_set(err, JG_NOMEM, "out of memory");
}

/* ------------------------------------------------------------ compile */

/* The parameters of combination pv (NaN: the model's) as "A = 1, B = 2". */
static void describe(const jg_batch_points_t *P, const double *pv, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (int j = 0; j < P->nparams && at < n; j++) {
        if (isnan(pv[j])) continue;
        at += (size_t)snprintf(buf + at, n - at, "%s%s = %.17g", at ? ", " : "",
                               P->names[P->nvals - P->nparams + j], pv[j]);
    }
}

static jg_status_t compile_one(const jg_program_t *p, const jg_batch_points_t *P,
                               const jg_batch_opts_t *o, const double *pv, jg_program_t **out,
                               jg_error_t *err)
{
    jg_import_opts_t io = o->import ? *o->import : (jg_import_opts_t){0};
    int nset = io.nset;
    const char **set = calloc((size_t)(nset + P->nparams + 1), sizeof(char *));
    char *text = malloc((size_t)P->nparams * 320 + 1);
    jg_model_t *m = NULL;
    jg_status_t st = JG_OK;
    *out = NULL;
    if (!set || !text) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    for (int k = 0; k < nset; k++) set[k] = io.set[k];
    for (int j = 0; j < P->nparams; j++) {
        if (isnan(pv[j])) continue;
        char *s = text + (size_t)j * 320;
        snprintf(s, 320, "%s=%.17g", P->names[P->nvals - P->nparams + j], pv[j]);
        set[nset++] = s;
    }
    io.set = set;
    io.nset = nset;
    io.warn = NULL;   /* the base load has warned already */
    if ((st = jg_import_load(o->model_path, &io, &m, err))) goto done;
    for (int k = 0; k < o->nplugins && !st; k++) st = jg_plugin_load(m, o->plugins[k], err);
    if (!st) st = jg_plugin_load_model(m, err);
    if (!st) st = jg_program_compile(m, out, err);
    if (st) goto done;
    char why[512], which[1024];
    if (jg__batch_structure_diff(p, *out, why, sizeof why)) {
        describe(P, pv, which, sizeof which);
        st = jg_error_set(err, JG_ARG,
                          "parameter values %s change the model's structure (%s): a batch shares one "
                          "symbolic phase, so parameters may change values only",
                          which, why);
        jg_program_free(*out);
        *out = NULL;
        goto done;
    }
    /* state names are built lazily: build them before threads read them */
    for (int64_t i = 0; i < (*out)->nx; i++) jg_program_state_name(*out, i);
done:
    jg_model_free(m);
    free(set);
    free(text);
    return st;
}

jg_status_t jg__batch_vars_build(const jg_program_t *p, const jg_batch_points_t *P,
                                 const jg_batch_opts_t *o, const unsigned char *used,
                                 jg__batch_vars_t *V, jg_error_t *err)
{
    memset(V, 0, sizeof *V);
    int64_t npair = P->ncomb * P->nlist;
    int np = P->nparams;
    double t0 = now();
    jg_status_t st = JG_OK;
    json_t *names = NULL;
    V->var = malloc(sizeof(int32_t) * (size_t)(npair + 1));
    double *pv = malloc(sizeof(double) * (size_t)(np + 1));
    if (!V->var || !pv) goto nomem;
    if (np) {
        if (!o->model_path) {
            st = jg_error_set(err, JG_ARG, "the points set workspace parameters: the batch needs "
                                           "the model's file to compile them (model_path)");
            goto done;
        }
        if ((st = model_names(o, &names, err))) goto done;
        for (int j = 0; j < np; j++) {
            const char *nm = P->names[P->nvals - np + j];
            if (!json_object_get(names, nm)) {
                st = jg_error_set(err, JG_ARG,
                                  "%s: unknown parameter \"%s\": not a workspace variable of %s "
                                  "(its \"parameters\", \"workspace\" or a SubSystem's parameters)",
                                  P->source, nm, o->model_path);
                goto done;
            }
        }
    }
    /* distinct combinations, in order of first use; a linear search over the
     * programs found so far (a grid has few, and each costs a compile) */
    int cap = 0;
    for (int64_t q = 0; q < npair; q++) {
        V->var[q] = -1;
        if (!used[q]) continue;
        jg__batch_params(P, q / P->nlist, q % P->nlist, pv);
        int v;
        for (v = 0; v < V->nprog; v++) {
            const double *w = V->pv + (size_t)v * (size_t)np;
            int same = 1;
            for (int j = 0; j < np && same; j++)
                same = (isnan(w[j]) && isnan(pv[j])) || w[j] == pv[j];
            if (same) break;
        }
        if (v == V->nprog) {
            if (V->nprog == cap) {
                cap = cap ? 2 * cap : 8;
                jg_program_t **np2 = realloc(V->prog, sizeof *np2 * (size_t)cap);
                if (np2) V->prog = np2;
                unsigned char *no = realloc(V->owned, (size_t)cap);
                if (no) V->owned = no;
                double *npv = realloc(V->pv, sizeof(double) * (size_t)cap * (size_t)(np + 1));
                if (npv) V->pv = npv;
                if (!np2 || !no || !npv) goto nomem;
            }
            memcpy(V->pv + (size_t)v * (size_t)np, pv, sizeof(double) * (size_t)np);
            int all_nan = 1;
            for (int j = 0; j < np; j++) all_nan &= isnan(pv[j]) != 0;
            V->prog[v] = NULL;
            V->owned[v] = 0;
            V->nprog++;
            if (all_nan) {
                V->prog[v] = (jg_program_t *)p;
            } else {
                if ((st = compile_one(p, P, o, pv, &V->prog[v], err))) goto done;
                V->owned[v] = 1;
            }
        }
        V->var[q] = v;
    }
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    V->t_compile = now() - t0;
    json_decref(names);
    free(pv);
    if (st) jg__batch_vars_free(V);
    return st;
}
