/* Helpers the block types call during setup: parameters (MATLAB expressions
 * evaluated in scoped workspaces), ports, states, Jacobian pattern declarations, error context. */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compile_impl.h"
#include "jacgraph/expr.h"

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

/* n doubles of a parameter value in the program: packed in chunks of the
 * arena, whose own allocations are rounded to 16 bytes (a million scalar
 * parameters).  NULL: out of memory. */
static double *dbl_alloc(jg__cctx_t *c, size_t n)
{
    enum { CHUNK = 8192 };   /* doubles */
    if (n > CHUNK / 8) return jg_arena_alloc(&c->p->arena, sizeof(double) * n);
    if (n > c->dblleft) {
        if (!(c->dblp = jg_arena_alloc(&c->p->arena, sizeof(double) * CHUNK))) return NULL;
        c->dblleft = CHUNK;
    }
    double *d = c->dblp;
    c->dblp += n;
    c->dblleft -= n;
    return d;
}

/* Convert a JSON number / nested array to a row-major value. */
static int json_to_value(jg_block_t *b, jg_setup_t *s, const char *name, const jg__jv_t *j,
                         jg_value_t *out)
{
    jg__cctx_t *c = s->priv;
    if (jg__jv_is_num(j)) {
        out->rows = out->cols = 1;
        out->x = dbl_alloc(c, 1);
        if (!out->x) return jg_setup_error(b, s, JG_NOMEM, name, "out of memory");
        out->x[0] = jg__jv_num(j);
        return 1;
    }
    if (!jg__jv_is_arr(j))
        return jg_setup_error(b, s, JG_PARAM, name,
                              "expected a number, an array of numbers, an array of rows, or "
                              "an expression string");
    size_t n = jg__jv_len(j);
    if (n == 0) {
        out->rows = out->cols = 0;
        out->x = NULL;
        return 1;
    }
    int nested = jg__jv_is_arr(jg__jv_at(j, 0));
    size_t cols = nested ? jg__jv_len(jg__jv_at(j, 0)) : n;
    size_t rows = nested ? n : 1;
    out->rows = (int64_t)rows;
    out->cols = (int64_t)cols;
    out->x = dbl_alloc(c, rows * cols + 1);
    if (!out->x) return jg_setup_error(b, s, JG_NOMEM, name, "out of memory");
    for (size_t r = 0; r < rows; r++) {
        const jg__jv_t *row = nested ? jg__jv_at(j, r) : j;
        if (nested && (!jg__jv_is_arr(row) || jg__jv_len(row) != cols))
            return jg_setup_error(b, s, JG_PARAM, name,
                                  "row %zu has %zu elements but row 1 has %zu: expected a "
                                  "rectangular matrix",
                                  r + 1, jg__jv_is_arr(row) ? jg__jv_len(row) : (size_t)1,
                                  cols);
        for (size_t k = 0; k < cols; k++) {
            const jg__jv_t *v = jg__jv_at(row, nested ? k : r * 0 + k);
            if (!jg__jv_is_num(v))
                return jg_setup_error(b, s, JG_PARAM, name,
                                      "element (%zu,%zu) is not a number", r + 1, k + 1);
            out->x[r * cols + k] = jg__jv_num(v);
        }
    }
    return 1;
}

/* ---- workspaces: the names in parameter expressions ----
 *
 * A name is looked up in the root "overrides", then in the "parameters" of
 * the block's system and its parents up to the model's, then in the root
 * "workspace" (the base workspace).  A string entry is an expression
 * evaluated from the scope that defines it, except that its own name there
 * starts one scope further out (a mask parameter k = "k" reads the outer k).
 * Scopes are numbered: systems 0..nsys-1, the base workspace nsys, and the
 * overrides evaluated from scope k: nsys + 1 + k (their names start there). */

#define NO_SCOPE (-1)
#define MAX_NEST 64   /* entries evaluated inside one another: deeper is a cycle */

/* A cached entry: the value lives in the program arena (never cleared). */
typedef struct {
    int32_t key;
    int state;   /* 0 free or failed, 1 being evaluated, 2 done */
    const char *name;
    jg_expr_value_t v;
} wsent_t;

struct jg__wscache {
    int64_t cap, n;
    wsent_t *e;
};

/* One parameter's evaluation: the first failure, with its context. */
typedef struct {
    jg__cctx_t *c;
    int depth, have, nomem;
    char detail[1024];
} wsres_t;

/* The lookup context of one expression (see above). */
typedef struct {
    wsres_t *R;
    int32_t start;
    const char *own;
    int32_t own_next;
} wslk_t;

static const jg__jv_t *root_key(const jg__cctx_t *c, const char *key)
{
    return jg__jv_get(c->doc, c->p->sys[0].json, key);
}

static int32_t outer_scope(const jg__cctx_t *c, int32_t k)
{
    if (k < 0 || k >= c->p->nsys) return NO_SCOPE;
    return c->p->sys[k].parent >= 0 ? c->p->sys[k].parent : c->p->nsys;
}

static void scope_desc(const jg__cctx_t *c, int32_t key, char *buf, size_t n)
{
    if (key > c->p->nsys) snprintf(buf, n, "the overrides");
    else if (key == c->p->nsys) snprintf(buf, n, "the base workspace");
    else if (key == 0) snprintf(buf, n, "the model parameters");
    else snprintf(buf, n, "SubSystem '%s' parameters", c->p->sys[key].path);
}

/* Where a name starting at `start` was looked for: "SubSystem 'P' parameters,
 * the model parameters, the base workspace". */
static void looked_in(const jg__cctx_t *c, int32_t start, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    if (start == NO_SCOPE) {
        snprintf(buf, n, "no outer workspace");
        return;
    }
    const jg__jv_t *o = root_key(c, "overrides");
    if (o && jg__jv_size(o)) len += (size_t)snprintf(buf, n, "the overrides, ");
    for (int32_t k = start; k >= 0 && k < c->p->nsys && len < n; k = c->p->sys[k].parent)
        if (k == 0 || c->p->sys[k].params)
            len += (size_t)snprintf(buf + len, n - len, k ? "SubSystem '%s' parameters, "
                                                           : "the model parameters, ",
                                    c->p->sys[k].path);
    if (len < n && start <= c->p->nsys) snprintf(buf + len, n - len, "the base workspace");
    else if (len >= 2 && len < n) buf[len - 2] = 0;
}

static uint64_t ws_hash(int32_t key, const char *name)
{
    uint64_t h = 14695981039346656037u ^ (uint64_t)(uint32_t)key;
    for (; *name; name++) h = (h ^ (unsigned char)*name) * 1099511628211u;
    return h;
}

/* The cache slot of (key, name), or NULL; create: claim a free slot. */
static wsent_t *ws_cache(jg__cctx_t *c, int32_t key, const char *name, int create)
{
    struct jg__wscache *W = c->wsc;
    jg_arena_t *a = &c->p->arena;
    if (!W) {
        if (!create) return NULL;
        if (!(W = c->wsc = jg_arena_alloc(a, sizeof *W))) return NULL;
        memset(W, 0, sizeof *W);
    }
    if (create && 2 * (W->n + 1) > W->cap) {   /* grow: the old table stays in the arena */
        int64_t cap = W->cap ? 2 * W->cap : 64;
        wsent_t *e = jg_arena_alloc(a, sizeof *e * (size_t)cap);
        if (!e) return NULL;
        memset(e, 0, sizeof *e * (size_t)cap);
        for (int64_t k = 0; k < W->cap; k++) {
            if (!W->e[k].name) continue;
            uint64_t h = ws_hash(W->e[k].key, W->e[k].name) & (uint64_t)(cap - 1);
            while (e[h].name) h = (h + 1) & (uint64_t)(cap - 1);
            e[h] = W->e[k];
        }
        W->e = e;
        W->cap = cap;
    }
    if (!W->cap) return NULL;
    uint64_t m = (uint64_t)W->cap - 1, h = ws_hash(key, name) & m;
    while (W->e[h].name && !(W->e[h].key == key && !strcmp(W->e[h].name, name))) h = (h + 1) & m;
    if (W->e[h].name) return &W->e[h];
    if (!create) return NULL;
    char *nm = jg_arena_strdup(a, name);
    if (!nm) return NULL;
    W->e[h] = (wsent_t){.key = key, .state = 0, .name = nm};
    W->n++;
    return &W->e[h];
}

/* Text for messages: at most 100 characters of an expression. */
static const char *clip(const char *src, char *buf, size_t n)
{
    if (strlen(src) <= 100) return src;
    snprintf(buf, n, "%.97s...", src);
    return buf;
}

/* The failure of expression src (names starting at `start`; the name `own`
 * from own_next) as the detail. */
static void detail_eval(wsres_t *R, const jg_expr_error_t *e, const char *src, int32_t start,
                        const char *own, int32_t own_next)
{
    char where[512], cb[128], name[128];
    const char *q = strchr(e->msg, '\'');
    R->have = 1;
    if (!strncmp(e->msg, "undefined ", 10) && q && strchr(q + 1, '\'')) {
        size_t n = (size_t)(strchr(q + 1, '\'') - q - 1);
        snprintf(name, sizeof name, "%.*s", (int)(n < 127 ? n : 127), q + 1);
        looked_in(R->c, own && !strcmp(own, name) ? own_next : start, where, sizeof where);
        const char *t = src;
        while (isspace((unsigned char)*t)) t++;
        size_t tl = strlen(t);
        while (tl && isspace((unsigned char)t[tl - 1])) tl--;
        if (tl == strlen(name) && !strncmp(t, name, tl))
            snprintf(R->detail, sizeof R->detail, "unknown workspace name '%s' (looked in %s)",
                     name, where);
        else
            snprintf(R->detail, sizeof R->detail, "%s in \"%s\" (column %d; looked in %s)", e->msg,
                     clip(src, cb, sizeof cb), e->column, where);
    } else if (e->column) {
        snprintf(R->detail, sizeof R->detail, "%s in \"%s\" (column %d)", e->msg,
                 clip(src, cb, sizeof cb), e->column);
    } else {
        snprintf(R->detail, sizeof R->detail, "%s in \"%s\"", e->msg, clip(src, cb, sizeof cb));
    }
}

static void detail_set(wsres_t *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void detail_set(wsres_t *R, const char *fmt, ...)
{
    if (R->have) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(R->detail, sizeof R->detail, fmt, ap);
    va_end(ap);
    R->have = 1;
}

/* A JSON number / array entry as a value (malloc). */
static int ws_json(wsres_t *R, const char *name, int32_t key, const jg__jv_t *j, jg_expr_value_t *out)
{
    char where[256];
    memset(out, 0, sizeof *out);
    if (jg__jv_is_num(j)) {
        if (jg_expr_value_scalar(out, jg__jv_num(j))) goto nomem;
        return 1;
    }
    scope_desc(R->c, key, where, sizeof where);
    if (!jg__jv_is_arr(j)) {
        detail_set(R, "workspace entry '%s' (%s): expected a number, an array or an expression "
                   "string", name, where);
        return -1;
    }
    size_t n = jg__jv_len(j);
    if (n == 0) return 1;   /* [] */
    int nested = jg__jv_is_arr(jg__jv_at(j, 0));
    size_t cols = nested ? jg__jv_len(jg__jv_at(j, 0)) : n, rows = nested ? n : 1;
    out->kind = JG_EXPR_NUM;
    out->rows = (int64_t)rows;
    out->cols = (int64_t)cols;
    if (!(out->x = malloc(sizeof(double) * (rows * cols + 1)))) goto nomem;
    for (size_t r = 0; r < rows; r++) {
        const jg__jv_t *row = nested ? jg__jv_at(j, r) : j;
        if (nested && (!jg__jv_is_arr(row) || jg__jv_len(row) != cols)) {
            detail_set(R, "workspace entry '%s' (%s): row %zu has a different length than row 1",
                       name, where, r + 1);
            goto fail;
        }
        for (size_t k = 0; k < cols; k++) {
            const jg__jv_t *v = jg__jv_at(row, k);
            if (!jg__jv_is_num(v)) {
                detail_set(R, "workspace entry '%s' (%s): element (%zu,%zu) is not a number", name,
                           where, r + 1, k + 1);
                goto fail;
            }
            out->x[r * cols + k] = jg__jv_num(v);
        }
    }
    return 1;
nomem:
    R->nomem = 1;
    detail_set(R, "out of memory");
fail:
    jg_expr_value_clear(out);
    return -1;
}

/* A copy of v in the arena (for the cache). */
static int to_arena(jg_arena_t *a, const jg_expr_value_t *v, jg_expr_value_t *d)
{
    *d = *v;
    d->x = NULL;
    d->str = NULL;
    int64_t n = v->rows * v->cols;
    if (v->x && n > 0) {
        if (!(d->x = jg_arena_alloc(a, sizeof(double) * (size_t)n))) return -1;
        memcpy(d->x, v->x, sizeof(double) * (size_t)n);
    }
    if (v->str && !(d->str = jg_arena_strdup(a, v->str))) return -1;
    return 0;
}

static int ws_lookup_cb(void *ctx, const char *name, jg_expr_value_t *out, jg_expr_error_t *err);

/* The value of entry `name` = j of scope `key`; string entries evaluate with
 * names from `start`, their own name from `own_next`. */
static int ws_entry(wsres_t *R, int32_t key, const char *name, const jg__jv_t *j, int32_t start,
                    int32_t own_next, jg_expr_value_t *out, jg_expr_error_t *err)
{
    jg__cctx_t *c = R->c;
    if (!jg__jv_is_str(j)) {
        int r = ws_json(R, name, key, j, out);
        if (r < 0) snprintf(err->msg, sizeof err->msg, "workspace entry '%s' is invalid", name);
        return r;
    }
    const char *src = jg__jv_str(j);
    double x;
    if (jg_expr_is_number(src, &x)) {
        if (!jg_expr_value_scalar(out, x)) return 1;
        R->nomem = 1;
        detail_set(R, "out of memory");
        return -1;
    }
    wsent_t *e = ws_cache(c, key, name, 0);
    if (e && e->state == 2) {
        if (!jg_expr_value_copy(out, &e->v)) return 1;
        R->nomem = 1;
        detail_set(R, "out of memory");
        return -1;
    }
    if ((e && e->state == 1) || R->depth >= MAX_NEST) {
        detail_set(R, "workspace names refer to each other in a cycle at '%s'", name);
        snprintf(err->msg, sizeof err->msg, "cycle at '%s'", name);
        return -1;
    }
    if (!(e = ws_cache(c, key, name, 1))) {
        R->nomem = 1;
        detail_set(R, "out of memory");
        return -1;
    }
    e->state = 1;
    R->depth++;
    wslk_t L = {R, start, name, own_next};
    jg_expr_value_t v;
    jg_expr_error_t e2;
    jg_expr_limits_t xl = {.elements = c->lim.elements, .elements_by = "--max-elements"};
    jg_status_t st = jg_expr_eval_limits(src, &xl, ws_lookup_cb, &L, &v, &e2);
    R->depth--;
    e = ws_cache(c, key, name, 0);   /* the table may have grown */
    if (st) {
        e->state = 0;
        if (st == JG_NOMEM) R->nomem = 1;
        if (!R->have) detail_eval(R, &e2, src, start, name, own_next);
        char where[256], tmp[1024];
        scope_desc(c, key, where, sizeof where);
        snprintf(tmp, sizeof tmp, "in workspace entry '%s' (%.200s): %.700s", name, where, R->detail);
        memcpy(R->detail, tmp, sizeof tmp);
        snprintf(err->msg, sizeof err->msg, "workspace entry '%s' failed", name);
        return -1;
    }
    if (to_arena(&c->p->arena, &v, &e->v)) {
        jg_expr_value_clear(&v);
        R->nomem = 1;
        detail_set(R, "out of memory");
        return -1;
    }
    e->state = 2;
    *out = v;
    return 1;
}

/* Name lookup from scope `start` (see the top of this section). */
static int ws_resolve(wsres_t *R, const char *name, int32_t start, int skip_overrides,
                      jg_expr_value_t *out, jg_expr_error_t *err)
{
    jg__cctx_t *c = R->c;
    int32_t base = c->p->nsys;
    if (start == NO_SCOPE) return 0;
    if (!skip_overrides) {
        const jg__jv_t *o = root_key(c, "overrides"), *v = o ? jg__jv_get(c->doc, o, name) : NULL;
        if (v) return ws_entry(R, base + 1 + start, name, v, start, start, out, err);
    }
    for (int32_t k = start; k >= 0 && k < base; k = c->p->sys[k].parent) {
        const jg__jv_t *par = c->p->sys[k].params, *v = par ? jg__jv_get(c->doc, par, name) : NULL;
        if (v) return ws_entry(R, k, name, v, k, outer_scope(c, k), out, err);
    }
    const jg__jv_t *w = root_key(c, "workspace"), *v = w ? jg__jv_get(c->doc, w, name) : NULL;
    if (v) return ws_entry(R, base, name, v, base, NO_SCOPE, out, err);
    return 0;
}

static int ws_lookup_cb(void *ctx, const char *name, jg_expr_value_t *out, jg_expr_error_t *err)
{
    wslk_t *L = ctx;
    if (L->own && !strcmp(name, L->own)) return ws_resolve(L->R, name, L->own_next, 1, out, err);
    return ws_resolve(L->R, name, L->start, 0, out, err);
}

/* Evaluate parameter expression src of block b: 1 ok (*out), -1 error set;
 * with bare_ok, 2 when src is one undefined name (left to the caller). */
static int eval_param(jg_block_t *b, jg_setup_t *s, const char *param, const char *src,
                      jg_expr_value_t *out, int bare_ok)
{
    wsres_t R = {.c = s->priv};
    wslk_t L = {&R, b->sys, NULL, NO_SCOPE};
    jg_expr_error_t e;
    jg_expr_limits_t xl = {.elements = R.c->lim.elements, .elements_by = "--max-elements"};
    jg_status_t st = jg_expr_eval_limits(src, &xl, ws_lookup_cb, &L, out, &e);
    if (!st) return 1;
    if (st == JG_NOMEM || R.nomem) {
        jg_setup_error(b, s, JG_NOMEM, param, "out of memory");
        return -1;
    }
    if (!R.have) {
        detail_eval(&R, &e, src, b->sys, NULL, NO_SCOPE);
        if (bare_ok && !strncmp(R.detail, "unknown workspace name", 22)) return 2;
    }
    jg_setup_error(b, s, JG_PARAM, param, "%s", R.detail);
    return -1;
}

/* An evaluated value as a block parameter (arena). */
static int to_param(jg_block_t *b, jg_setup_t *s, const char *param, const char *src,
                    const jg_expr_value_t *v, jg_value_t *out)
{
    jg__cctx_t *c = s->priv;
    char cb[128];
    if (v->kind == JG_EXPR_STR) {
        jg_setup_error(b, s, JG_PARAM, param, "\"%s\" is the string '%s', expected a number",
                       clip(src, cb, sizeof cb), v->str ? v->str : "");
        return -1;
    }
    int64_t n = v->rows * v->cols;
    out->rows = n ? v->rows : 0;   /* every empty value is [] (0x0) */
    out->cols = n ? v->cols : 0;
    out->x = NULL;
    if (n) {
        out->x = dbl_alloc(c, (size_t)(n + 1));
        if (!out->x) {
            jg_setup_error(b, s, JG_NOMEM, param, "out of memory");
            return -1;
        }
        memcpy(out->x, v->x, sizeof(double) * (size_t)n);
    }
    return 1;
}

static int scalar_param(jg_block_t *b, jg_setup_t *s, const char *param, double x, jg_value_t *out)
{
    jg__cctx_t *c = s->priv;
    out->rows = out->cols = 1;
    out->x = dbl_alloc(c, 1);
    if (!out->x) {
        jg_setup_error(b, s, JG_NOMEM, param, "out of memory");
        return -1;
    }
    out->x[0] = x;
    return 1;
}

/* A string parameter evaluated; bare_ok as in eval_param. */
static int expr_param(jg_block_t *b, jg_setup_t *s, const char *name, const char *src,
                      jg_value_t *out, int bare_ok)
{
    double x;
    if (jg_expr_is_number(src, &x)) return scalar_param(b, s, name, x, out);   /* most strings */
    jg_expr_value_t v;
    int r = eval_param(b, s, name, src, &v, bare_ok);
    if (r != 1) return r;
    r = to_param(b, s, name, src, &v, out);
    jg_expr_value_clear(&v);
    return r;
}

int jg_setup_num(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *out)
{
    jg__cctx_t *c = s->priv;
    const jg__jv_t *j = jg__seen(c, jg__block_src(c, b), name);
    if (!j) return 0;
    if (jg__jv_is_str(j)) return expr_param(b, s, name, jg__jv_str(j), out, 0);
    return json_to_value(b, s, name, j, out) < 0 ? -1 : 1;
}

int jg_setup_workspace(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *out)
{
    wsres_t R = {.c = s->priv};
    jg_expr_value_t v = {0};
    jg_expr_error_t e = {0};
    int r = ws_resolve(&R, name, b->sys, 0, &v, &e);
    if (r == 0) return 0;
    if (r < 0) {
        jg_setup_error(b, s, R.nomem ? JG_NOMEM : JG_PARAM, NULL, "%s", R.have ? R.detail : e.msg);
        return -1;
    }
    r = to_param(b, s, name, name, &v, out);
    jg_expr_value_clear(&v);
    return r;
}

int jg_setup_num_def(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *out, double def)
{
    int r = jg_setup_num(b, s, name, out);
    if (r != 0) return r;
    jg__cctx_t *c = s->priv;
    out->rows = out->cols = 1;
    out->x = dbl_alloc(c, 1);
    if (!out->x) return jg_setup_error(b, s, JG_NOMEM, name, "out of memory");
    out->x[0] = def;
    return 1;
}

int jg_setup_str(jg_block_t *b, jg_setup_t *s, const char *name, const char **out)
{
    const jg__jv_t *j = jg__seen(s->priv, jg__block_src(s->priv, b), name);
    if (!j) return 0;
    if (!jg__jv_is_str(j)) {
        jg_setup_error(b, s, JG_PARAM, name, "expected a string");
        return -1;
    }
    *out = jg__jv_str(j);
    return 1;
}

int jg_setup_str_or_num(jg_block_t *b, jg_setup_t *s, const char *name, const char **str,
                        jg_value_t *num)
{
    const jg__jv_t *j = jg__seen(s->priv, jg__block_src(s->priv, b), name);
    if (!j) return 0;
    if (!jg__jv_is_str(j)) return json_to_value(b, s, name, j, num) < 0 ? -1 : 2;
    const char *v = jg__jv_str(j);
    /* sign and operator lists (Sum "|+-", Product "*" and "/" strings) are never expressions */
    if (!v[strspn(v, "+-*/| \t")]) {
        *str = v;
        return 1;
    }
    /* "3", "n", "2+1" are counts; a lone unknown word ("on", "off") stays a string */
    int r = expr_param(b, s, name, v, num, 1);
    if (r == 2) {
        *str = v;
        return 1;
    }
    return r < 0 ? -1 : 2;
}

int jg_setup_ports(jg_block_t *b, jg_setup_t *s, int nin, int nout)
{
    jg__cctx_t *c = s->priv;
    if (nin < 0 || nout < 0)
        return jg_setup_error(b, s, JG_INTERNAL, NULL, "negative port count");
    /* the input widths, then the output widths: one allocation, the one of
     * an earlier call when it is large enough (the compiler sets the ports
     * of an inner Inport or Outport again after its setup) */
    int64_t *w = b->in_w && (int64_t)nin + nout <= (int64_t)b->nin + b->nout ? b->in_w : NULL;
    size_t nw = (size_t)nin + (size_t)nout;
    if (!w && !(w = jg_arena_alloc(&c->p->arena, sizeof(int64_t) * (nw ? nw : 1))))
        return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    b->nin = nin;
    b->nout = nout;
    b->in_w = w;
    b->out_w = w + nin;
    for (int i = 0; i < nin; i++) b->in_w[i] = -1;
    for (int i = 0; i < nout; i++) b->out_w[i] = -1;
    return JG_BLOCK_DONE;
}

int jg_setup_states(jg_block_t *b, jg_setup_t *s, int64_t nx)
{
    if (nx < 0) return jg_setup_error(b, s, JG_INTERNAL, NULL, "negative state count");
    if (jg_setup_check_size(b, s, NULL, nx, "continuous states") != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    if (nx > INT32_MAX)   /* jg_block_t's 32-bit counts (a limit set beyond them) */
        return jg_setup_error(b, s, JG_MODEL, NULL, "%lld continuous states: more than %d",
                              (long long)nx, INT32_MAX);
    b->nx = (int32_t)nx;
    return JG_BLOCK_DONE;
}

int jg_setup_dstates(jg_block_t *b, jg_setup_t *s, int64_t nd)
{
    if (nd < 0) return jg_setup_error(b, s, JG_INTERNAL, NULL, "negative discrete state count");
    if (jg_setup_check_size(b, s, NULL, nd, "discrete states") != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    if (!nd && !b->hyb) return JG_BLOCK_DONE;   /* already none */
    jg_block_hyb_t *h = jg__block_hyb(b, s);
    if (!h) return JG_BLOCK_FAIL;
    h->nd = nd;
    return JG_BLOCK_DONE;
}

int jg_setup_zc(jg_block_t *b, jg_setup_t *s, int64_t n, const signed char *dir)
{
    if (n < 0) return jg_setup_error(b, s, JG_INTERNAL, NULL, "negative zero-crossing count");
    if (jg_setup_check_size(b, s, NULL, n, "zero-crossing signals") != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    if (!n && !b->hyb) return JG_BLOCK_DONE;   /* already none (an Integrator without limits) */
    signed char *d = jg_setup_alloc(s, (size_t)n + 1);
    if (!d) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    for (int64_t k = 0; k < n; k++) d[k] = dir ? dir[k] : JG_ZC_EITHER;
    jg_block_hyb_t *h = jg__block_hyb(b, s);
    if (!h) return JG_BLOCK_FAIL;
    h->nzc = n;
    h->zc_dir = d;
    return JG_BLOCK_DONE;
}

jg_block_hyb_t *jg__block_hyb(jg_block_t *b, jg_setup_t *s)
{
    if (!b->hyb && !(b->hyb = jg_setup_alloc(s, sizeof *b->hyb)))
        jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    return b->hyb;
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

static uint64_t pattern_hash(int64_t m, int64_t n, const int64_t *colp, const int64_t *rowi)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)m;
    h = (h ^ (uint64_t)n) * 1099511628211ull;
    for (int64_t j = 0; j <= n; j++) h = (h ^ (uint64_t)colp[j]) * 1099511628211ull;
    for (int64_t k = 0; k < colp[n]; k++) h = (h ^ (uint64_t)rowi[k]) * 1099511628211ull;
    return h ^ (h >> 31);
}

static int pattern_equal(const cs_dl *M, int64_t m, int64_t n, const int64_t *colp,
                         const int64_t *rowi)
{
    return M->m == m && M->n == n && M->nzmax == colp[n] &&
           !memcmp(M->p, colp, sizeof(int64_t) * (size_t)(n + 1)) &&
           (colp[n] == 0 || !memcmp(M->i, rowi, sizeof(int64_t) * (size_t)colp[n]));
}

/* The program's matrix of the pattern m x n (colp, rowi): the one made for
 * the same pattern before, else a new one (the matrix and its arrays one
 * allocation).  A model repeats a handful of patterns (the diagonal of a
 * Gain on a width-4 signal) over a million blocks: shared, the parts take
 * no memory per block beyond jg_jac_part_t.  Nothing writes a program's
 * part matrices after pattern(): every evaluation work copies the pattern
 * and keeps its own values (lib/eval), and the x here is never read.  NULL:
 * out of memory. */
static cs_dl *intern_pattern(jg__cctx_t *c, int64_t m, int64_t n, const int64_t *colp,
                             const int64_t *rowi)
{
    if (2 * (c->pn + 1) > c->pcap) {   /* grow: rehash into twice the slots */
        int64_t cap = c->pcap ? 2 * c->pcap : 256;
        cs_dl **t = calloc((size_t)cap, sizeof *t);
        if (!t) return NULL;
        for (int64_t k = 0; k < c->pcap; k++) {
            const cs_dl *M = c->ptab[k];
            if (!M) continue;
            uint64_t h = pattern_hash(M->m, M->n, M->p, M->i) & (uint64_t)(cap - 1);
            while (t[h]) h = (h + 1) & (uint64_t)(cap - 1);
            t[h] = c->ptab[k];
        }
        free(c->ptab);
        c->ptab = t;
        c->pcap = cap;
    }
    uint64_t mask = (uint64_t)c->pcap - 1, h = pattern_hash(m, n, colp, rowi) & mask;
    for (; c->ptab[h]; h = (h + 1) & mask)
        if (pattern_equal(c->ptab[h], m, n, colp, rowi)) return c->ptab[h];
    int64_t nz = colp[n];
    size_t nzs = (size_t)(nz ? nz : 1);
    cs_dl *M = jg_arena_alloc(&c->p->arena, sizeof *M + sizeof(int64_t) * ((size_t)(n + 1) + 2 * nzs));
    if (!M) return NULL;
    int64_t *p = (int64_t *)(M + 1), *i = p + n + 1;
    double *x = (double *)(i + nzs);
    memcpy(p, colp, sizeof(int64_t) * (size_t)(n + 1));
    memcpy(i, rowi, sizeof(int64_t) * (size_t)nz);
    *M = (cs_dl){.nzmax = nz, .m = m, .n = n, .p = p, .i = i, .x = x, .nz = -1};
    c->pn++;
    return c->ptab[h] = M;
}

/* Append a part whose pattern is given column-compressed (arrays copied).
 * The parts of the block being declared grow in c->parts (patterns.c copies
 * them to the arena at their final count); the matrix is shared with every
 * part of the same pattern (intern_pattern). */
static int add_part(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int rp, int cp, int64_t m,
                    int64_t n, const int64_t *colp, const int64_t *rowi)
{
    jg__cctx_t *c = s->priv;
    /* an empty part is kept so indices follow declaration order */
    if (b->npart == c->part_cap_blk) {   /* b->part is c->parts (patterns.c) */
        int cap = c->part_cap_blk ? 2 * c->part_cap_blk : 8;
        jg_jac_part_t *np = realloc(c->parts, sizeof *np * (size_t)cap);
        if (!np) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        c->parts = np;
        c->part_cap_blk = cap;
    }
    b->part = c->parts;
    cs_dl *M = intern_pattern(c, m, n, colp, rowi);
    if (!M) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    jg_jac_part_t *pt = &b->part[b->npart];
    pt->kind = kind;
    pt->row_port = (kind == JG_JAC_C || kind == JG_JAC_D) ? rp : -1;
    pt->col_port = (kind == JG_JAC_B || kind == JG_JAC_D) ? cp : -1;
    pt->m = M;
    return b->npart++;
}

/* A part whose pattern is the entries (i, j) of the m x n block with i == j
 * (diag), or with x[i n + j] != 0 (x row-major), or all of them (x NULL). */
static int add_entries(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int rp, int cp, int64_t m,
                       int64_t n, int diag, const double *x)
{
    /* a small part (nearly all of them) on the stack: no malloc per part */
    int64_t colp_s[33], rowi_s[129];
    size_t ncol = (size_t)(n + 1), nrow = (size_t)((diag ? n : m * n) + 1);
    int64_t *colp = ncol <= 33 ? colp_s : malloc(sizeof(int64_t) * ncol);
    int64_t *rowi = nrow <= 129 ? rowi_s : malloc(sizeof(int64_t) * nrow);
    int r = -1;
    if (!colp || !rowi) {
        jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        goto done;
    }
    int64_t nz = 0;
    for (int64_t j = 0; j < n; j++) {
        colp[j] = nz;
        if (diag) {
            if (j < m) rowi[nz++] = j;
        } else {
            for (int64_t i = 0; i < m; i++)
                if (!x || x[i * n + j] != 0) rowi[nz++] = i;
        }
    }
    colp[n] = nz;
    r = add_part(b, s, kind, rp, cp, m, n, colp, rowi);
done:
    if (colp != colp_s) free(colp);
    if (rowi != rowi_s) free(rowi);
    return r;
}

int jg_jac_dense(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int rp, int cp)
{
    int64_t m, n;
    if (part_dims(b, s, kind, rp, cp, &m, &n)) return -1;
    return add_entries(b, s, kind, rp, cp, m, n, 0, NULL);
}

int jg_jac_diag(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int rp, int cp)
{
    int64_t m, n;
    if (part_dims(b, s, kind, rp, cp, &m, &n)) return -1;
    return add_entries(b, s, kind, rp, cp, m, n, 1, NULL);
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
    return add_entries(b, s, kind, rp, cp, m, n, 0, v->x);
}

void jg_jac_fill_from_value(cs_dl *M, const jg_value_t *v)
{
    for (int64_t j = 0; j < M->n; j++)
        for (int64_t k = M->p[j]; k < M->p[j + 1]; k++) M->x[k] = v->x[M->i[k] * v->cols + j];
}
