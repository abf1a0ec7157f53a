/* Helpers the block types call during setup: parameters resolved in the model
 * workspace, ports, states, Jacobian pattern declarations, error context. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compile_impl.h"

void *jg_setup_alloc(jg_setup_t *s, size_t size)
{
    jg__cctx_t *c = s->priv;
    return jg_arena_alloc(&c->p->arena, size);
}

int jg_setup_error(jg_block_t *b, jg_setup_t *s, jg_status_t st, const char *param,
                   const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (param)
        jg_error_set(s->err, st, "block '%s' (%s), parameter '%s': %s", b->path, b->type->name,
                     param, msg);
    else
        jg_error_set(s->err, st, "block '%s' (%s): %s", b->path, b->type->name, msg);
    return JG_BLOCK_FAIL;
}

int jg_eval_error(const jg_block_t *b, jg_eval_t *e, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    jg_error_set(e->err, JG_NUMERIC, "block '%s' (%s) at t = %g: %s", b->path, b->type->name,
                 e->t, msg);
    return -1;
}

/* Convert a JSON number / nested array to a row-major value. */
static int json_to_value(jg_block_t *b, jg_setup_t *s, const char *name, const json_t *j,
                         jg_value_t *out)
{
    jg__cctx_t *c = s->priv;
    if (json_is_number(j)) {
        out->rows = out->cols = 1;
        out->x = jg_arena_alloc(&c->p->arena, sizeof(double));
        if (!out->x) return jg_setup_error(b, s, JG_NOMEM, name, "out of memory");
        out->x[0] = json_number_value(j);
        return 1;
    }
    if (!json_is_array(j))
        return jg_setup_error(b, s, JG_PARAM, name,
                              "expected a number, an array of numbers, an array of rows, or "
                              "the name of a workspace parameter");
    size_t n = json_array_size(j);
    if (n == 0) {
        out->rows = out->cols = 0;
        out->x = NULL;
        return 1;
    }
    int nested = json_is_array(json_array_get(j, 0));
    size_t cols = nested ? json_array_size(json_array_get(j, 0)) : n;
    size_t rows = nested ? n : 1;
    out->rows = (int64_t)rows;
    out->cols = (int64_t)cols;
    out->x = jg_arena_alloc(&c->p->arena, sizeof(double) * (rows * cols + 1));
    if (!out->x) return jg_setup_error(b, s, JG_NOMEM, name, "out of memory");
    for (size_t r = 0; r < rows; r++) {
        const json_t *row = nested ? json_array_get(j, r) : j;
        if (nested && (!json_is_array(row) || json_array_size(row) != cols))
            return jg_setup_error(b, s, JG_PARAM, name,
                                  "row %zu has %zu elements but row 1 has %zu: expected a "
                                  "rectangular matrix",
                                  r + 1, json_is_array(row) ? json_array_size(row) : (size_t)1,
                                  cols);
        for (size_t k = 0; k < cols; k++) {
            const json_t *v = json_array_get(row, nested ? k : r * 0 + k);
            if (!json_is_number(v))
                return jg_setup_error(b, s, JG_PARAM, name,
                                      "element (%zu,%zu) is not a number", r + 1, k + 1);
            out->x[r * cols + k] = json_number_value(v);
        }
    }
    return 1;
}

/* Look a workspace name up from the block's system outwards. */
static const json_t *workspace_lookup(const jg__cctx_t *c, int32_t sys, const char *name)
{
    for (int32_t k = sys; k >= 0; k = c->p->sys[k].parent) {
        const json_t *par = c->p->sys[k].params;
        const json_t *v = par ? json_object_get(par, name) : NULL;
        if (v) return v;
    }
    return NULL;
}

int jg_setup_num(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *out)
{
    jg__cctx_t *c = s->priv;
    jg__seen(c, name);
    const json_t *j = json_object_get((const json_t *)b->src, name);
    if (!j) return 0;
    /* a string names a workspace entry; entries may name other entries */
    int32_t scope = b->sys;
    for (int depth = 0; json_is_string(j); depth++) {
        const char *ref = json_string_value(j);
        if (depth > 16)
            return jg_setup_error(b, s, JG_PARAM, name,
                                  "workspace names refer to each other in a cycle at '%s'", ref);
        const json_t *v = workspace_lookup(c, scope, ref);
        if (!v)
            return jg_setup_error(b, s, JG_PARAM, name,
                                  "unknown workspace name '%s' (define it in \"parameters\" of "
                                  "the model or of an enclosing SubSystem)",
                                  ref);
        j = v;
    }
    return json_to_value(b, s, name, j, out) < 0 ? -1 : 1;
}

int jg_setup_workspace(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *out)
{
    jg__cctx_t *c = s->priv;
    const json_t *j = workspace_lookup(c, b->sys, name);
    for (int depth = 0; j && json_is_string(j); depth++) {   /* aliases */
        if (depth > 16)
            return jg_setup_error(b, s, JG_PARAM, name, "workspace names refer to each other in a cycle");
        j = workspace_lookup(c, b->sys, json_string_value(j));
    }
    if (!j) return 0;
    return json_to_value(b, s, name, j, out) < 0 ? -1 : 1;
}

int jg_setup_num_def(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *out, double def)
{
    int r = jg_setup_num(b, s, name, out);
    if (r != 0) return r;
    jg__cctx_t *c = s->priv;
    out->rows = out->cols = 1;
    out->x = jg_arena_alloc(&c->p->arena, sizeof(double));
    if (!out->x) return jg_setup_error(b, s, JG_NOMEM, name, "out of memory");
    out->x[0] = def;
    return 1;
}

int jg_setup_str(jg_block_t *b, jg_setup_t *s, const char *name, const char **out)
{
    jg__seen(s->priv, name);
    const json_t *j = json_object_get((const json_t *)b->src, name);
    if (!j) return 0;
    if (!json_is_string(j)) {
        jg_setup_error(b, s, JG_PARAM, name, "expected a string");
        return -1;
    }
    *out = json_string_value(j);
    return 1;
}

int jg_setup_str_or_num(jg_block_t *b, jg_setup_t *s, const char *name, const char **str,
                        jg_value_t *num)
{
    jg__seen(s->priv, name);
    const json_t *j = json_object_get((const json_t *)b->src, name);
    if (!j) return 0;
    if (json_is_string(j)) {
        const char *v = json_string_value(j);
        /* a workspace name resolves to a number; sign strings never name one */
        jg__cctx_t *c = s->priv;
        if (workspace_lookup(c, b->sys, v)) return jg_setup_num(b, s, name, num) < 0 ? -1 : 2;
        *str = v;
        return 1;
    }
    return jg_setup_num(b, s, name, num) < 0 ? -1 : 2;
}

int jg_setup_ports(jg_block_t *b, jg_setup_t *s, int nin, int nout)
{
    jg__cctx_t *c = s->priv;
    if (nin < 0 || nout < 0)
        return jg_setup_error(b, s, JG_INTERNAL, NULL, "negative port count");
    b->nin = nin;
    b->nout = nout;
    b->in_w = jg_arena_alloc(&c->p->arena, sizeof(int64_t) * (size_t)(nin + 1));
    b->out_w = jg_arena_alloc(&c->p->arena, sizeof(int64_t) * (size_t)(nout + 1));
    if (!b->in_w || !b->out_w) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    for (int i = 0; i < nin; i++) b->in_w[i] = -1;
    for (int i = 0; i < nout; i++) b->out_w[i] = -1;
    return JG_BLOCK_DONE;
}

int jg_setup_states(jg_block_t *b, jg_setup_t *s, int64_t nx)
{
    if (nx < 0) return jg_setup_error(b, s, JG_INTERNAL, NULL, "negative state count");
    b->nx = nx;
    return JG_BLOCK_DONE;
}

int jg_setup_dstates(jg_block_t *b, jg_setup_t *s, int64_t nd)
{
    if (nd < 0) return jg_setup_error(b, s, JG_INTERNAL, NULL, "negative discrete state count");
    b->nd = nd;
    return JG_BLOCK_DONE;
}

int jg_setup_zc(jg_block_t *b, jg_setup_t *s, int64_t n, const signed char *dir)
{
    if (n < 0) return jg_setup_error(b, s, JG_INTERNAL, NULL, "negative zero-crossing count");
    signed char *d = jg_setup_alloc(s, (size_t)n + 1);
    if (!d) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    for (int64_t k = 0; k < n; k++) d[k] = dir ? dir[k] : JG_ZC_EITHER;
    b->nzc = n;
    b->zc_dir = d;
    return JG_BLOCK_DONE;
}

int jg_setup_zc_dir(jg_block_t *b, jg_setup_t *s, const char *param, const char *value)
{
    if (!strcmp(value, "rising")) return JG_ZC_RISING;
    if (!strcmp(value, "falling")) return JG_ZC_FALLING;
    if (!strcmp(value, "either")) return JG_ZC_EITHER;
    jg_setup_error(b, s, JG_PARAM, param, "expected \"rising\", \"falling\" or \"either\", got \"%s\"",
                   value);
    return -2;
}

int jg_setup_expect_width(jg_block_t *b, jg_setup_t *s, int inport, int64_t expected)
{
    if (b->in_w[inport] == expected) return JG_BLOCK_DONE;
    return jg_setup_error(b, s, JG_WIDTH, NULL, "input %d has width %lld, expected %lld",
                          inport + 1, (long long)b->in_w[inport], (long long)expected);
}

/* ---- Jacobian parts ---- */

static int part_dims(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int rp, int cp,
                     int64_t *m, int64_t *n)
{
    switch (kind) {
    case JG_JAC_A: *m = b->nx; *n = b->nx; break;
    case JG_JAC_B: *m = b->nx; *n = (cp >= 0 && cp < b->nin) ? b->in_w[cp] : -1; break;
    case JG_JAC_C: *m = (rp >= 0 && rp < b->nout) ? b->out_w[rp] : -1; *n = b->nx; break;
    case JG_JAC_D:
        *m = (rp >= 0 && rp < b->nout) ? b->out_w[rp] : -1;
        *n = (cp >= 0 && cp < b->nin) ? b->in_w[cp] : -1;
        break;
    }
    if (*m < 0 || *n < 0)
        return jg_setup_error(b, s, JG_INTERNAL, NULL, "Jacobian part on a nonexistent port");
    return 0;
}

/* Append a part whose pattern is given column-compressed (arrays copied). */
static int add_part(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int rp, int cp, int64_t m,
                    int64_t n, const int64_t *colp, const int64_t *rowi)
{
    jg__cctx_t *c = s->priv;
    jg_arena_t *a = &c->p->arena;
    int64_t nz = colp[n];   /* an empty part is kept so indices follow declaration order */
    if (b->npart == c->part_cap_blk) {
        int cap = c->part_cap_blk ? 2 * c->part_cap_blk : 8;
        jg_jac_part_t *np = jg_arena_alloc(a, sizeof *np * (size_t)cap);
        if (!np) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        if (b->npart) memcpy(np, b->part, sizeof *np * (size_t)b->npart);
        b->part = np;
        c->part_cap_blk = cap;
    }
    cs_dl *M = jg_arena_alloc(a, sizeof *M);
    int64_t *p = jg_arena_alloc(a, sizeof(int64_t) * (size_t)(n + 1));
    int64_t *i = jg_arena_alloc(a, sizeof(int64_t) * (size_t)(nz ? nz : 1));
    double *x = jg_arena_alloc(a, sizeof(double) * (size_t)(nz ? nz : 1));
    if (!M || !p || !i || !x) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    memcpy(p, colp, sizeof(int64_t) * (size_t)(n + 1));
    memcpy(i, rowi, sizeof(int64_t) * (size_t)nz);
    M->nzmax = nz;
    M->m = m;
    M->n = n;
    M->p = p;
    M->i = i;
    M->x = x;
    M->nz = -1;
    jg_jac_part_t *pt = &b->part[b->npart];
    pt->kind = kind;
    pt->row_port = (kind == JG_JAC_C || kind == JG_JAC_D) ? rp : -1;
    pt->col_port = (kind == JG_JAC_B || kind == JG_JAC_D) ? cp : -1;
    pt->m = M;
    return b->npart++;
}

int jg_jac_dense(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int rp, int cp)
{
    int64_t m, n;
    if (part_dims(b, s, kind, rp, cp, &m, &n)) return -1;
    int64_t *colp = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *rowi = malloc(sizeof(int64_t) * (size_t)(m * n + 1));
    if (!colp || !rowi) {
        free(colp);
        free(rowi);
        return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    }
    for (int64_t j = 0; j <= n; j++) colp[j] = j * m;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) rowi[j * m + i] = i;
    int r = add_part(b, s, kind, rp, cp, m, n, colp, rowi);
    free(colp);
    free(rowi);
    return r;
}

int jg_jac_diag(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int rp, int cp)
{
    int64_t m, n;
    if (part_dims(b, s, kind, rp, cp, &m, &n)) return -1;
    int64_t *colp = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *rowi = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!colp || !rowi) {
        free(colp);
        free(rowi);
        return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    }
    int64_t nz = 0;
    for (int64_t j = 0; j < n; j++) {
        colp[j] = nz;
        if (j < m) rowi[nz++] = j;
    }
    colp[n] = nz;
    int r = add_part(b, s, kind, rp, cp, m, n, colp, rowi);
    free(colp);
    free(rowi);
    return r;
}

static int cmp_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;   /* by column, then row */
    return (x[0] > y[0]) - (x[0] < y[0]);
}

int jg_jac_pattern(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int rp, int cp,
                   int64_t nnz, const int64_t *ri, const int64_t *ci)
{
    int64_t m, n;
    if (part_dims(b, s, kind, rp, cp, &m, &n)) return -1;
    int64_t *pairs = malloc(sizeof(int64_t) * 2 * (size_t)(nnz + 1));
    int64_t *colp = calloc((size_t)(n + 1), sizeof(int64_t));
    int64_t *rowi = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
    int r = -1;
    if (!pairs || !colp || !rowi) {
        jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        goto done;
    }
    for (int64_t k = 0; k < nnz; k++) {
        if (ri[k] < 0 || ri[k] >= m || ci[k] < 0 || ci[k] >= n) {
            jg_setup_error(b, s, JG_INTERNAL, NULL, "Jacobian pattern entry (%lld,%lld) outside %lldx%lld",
                           (long long)ri[k], (long long)ci[k], (long long)m, (long long)n);
            goto done;
        }
        pairs[2 * k] = ri[k];
        pairs[2 * k + 1] = ci[k];
    }
    qsort(pairs, (size_t)nnz, 2 * sizeof(int64_t), cmp_pair);
    int64_t nz = 0;
    for (int64_t k = 0; k < nnz; k++) {
        if (k && pairs[2 * k] == pairs[2 * k - 2] && pairs[2 * k + 1] == pairs[2 * k - 1])
            continue;
        rowi[nz++] = pairs[2 * k];
        colp[pairs[2 * k + 1] + 1]++;
    }
    for (int64_t j = 0; j < n; j++) colp[j + 1] += colp[j];
    r = add_part(b, s, kind, rp, cp, m, n, colp, rowi);
done:
    free(pairs);
    free(colp);
    free(rowi);
    return r;
}

int jg_jac_from_value(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int rp, int cp,
                      const jg_value_t *v)
{
    int64_t m, n;
    if (part_dims(b, s, kind, rp, cp, &m, &n)) return -1;
    if (v->rows != m || v->cols != n)
        return jg_setup_error(b, s, JG_INTERNAL, NULL, "value %lldx%lld for a %lldx%lld part",
                              (long long)v->rows, (long long)v->cols, (long long)m, (long long)n);
    int64_t *colp = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *rowi = malloc(sizeof(int64_t) * (size_t)(m * n + 1));
    if (!colp || !rowi) {
        free(colp);
        free(rowi);
        return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    }
    int64_t nz = 0;
    for (int64_t j = 0; j < n; j++) {
        colp[j] = nz;
        for (int64_t i = 0; i < m; i++)
            if (v->x[i * n + j] != 0) rowi[nz++] = i;
    }
    colp[n] = nz;
    int r = add_part(b, s, kind, rp, cp, m, n, colp, rowi);
    free(colp);
    free(rowi);
    return r;
}

void jg_jac_fill_from_value(cs_dl *M, const jg_value_t *v)
{
    for (int64_t j = 0; j < M->n; j++)
        for (int64_t k = M->p[j]; k < M->p[j + 1]; k++) M->x[k] = v->x[M->i[k] * v->cols + j];
}
