/* Workspaces: an insertion-ordered map name -> value with a hash index, and
 * the lookup callback that chains a workspace to an outer one. */
#include <stdlib.h>
#include <string.h>
#include "expr_impl.h"

struct jg_expr_ws {
    size_t n, cap;
    char **names;
    jg_expr_value_t *vals;
    size_t hcap;   /* power of two, > 2n; slots hold index + 1, 0 empty */
    size_t *htab;
    jg_expr_limits_t lim;   /* of the scripts run into it (jg_expr_ws_set_limits) */
};

void jg_expr_ws_set_limits(jg_expr_ws_t *ws, const jg_expr_limits_t *lim)
{
    if (!ws) return;
    if (lim) ws->lim = *lim;
    else memset(&ws->lim, 0, sizeof ws->lim);
}

const jg_expr_limits_t *jg__expr_ws_limits(const jg_expr_ws_t *ws) { return ws ? &ws->lim : NULL; }

static size_t hash(const char *s)
{
    size_t h = 14695981039346656037u;   /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

jg_expr_ws_t *jg_expr_ws_create(void)
{
    jg_expr_ws_t *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->hcap = 16;
    ws->htab = calloc(ws->hcap, sizeof *ws->htab);
    if (!ws->htab) {
        free(ws);
        return NULL;
    }
    return ws;
}

void jg_expr_ws_free(jg_expr_ws_t *ws)
{
    if (!ws) return;
    for (size_t k = 0; k < ws->n; k++) {
        free(ws->names[k]);
        jg_expr_value_clear(&ws->vals[k]);
    }
    free(ws->names);
    free(ws->vals);
    free(ws->htab);
    free(ws);
}

/* The slot of name: its entry (htab[slot] != 0) or where it would go. */
static size_t slot_of(const jg_expr_ws_t *ws, const char *name)
{
    size_t m = ws->hcap - 1, h = hash(name) & m;
    while (ws->htab[h] && strcmp(ws->names[ws->htab[h] - 1], name)) h = (h + 1) & m;
    return h;
}

const jg_expr_value_t *jg_expr_ws_get(const jg_expr_ws_t *ws, const char *name)
{
    if (!ws || !name) return NULL;
    size_t h = slot_of(ws, name);
    return ws->htab[h] ? &ws->vals[ws->htab[h] - 1] : NULL;
}

static int rehash(jg_expr_ws_t *ws, size_t hcap)
{
    size_t *t = calloc(hcap, sizeof *t);
    if (!t) return -1;
    free(ws->htab);
    ws->htab = t;
    ws->hcap = hcap;
    for (size_t k = 0; k < ws->n; k++) ws->htab[slot_of(ws, ws->names[k])] = k + 1;
    return 0;
}

jg_status_t jg_expr_ws_set(jg_expr_ws_t *ws, const char *name, const jg_expr_value_t *v)
{
    jg_expr_value_t copy;
    if (jg_expr_value_copy(&copy, v)) return JG_NOMEM;
    size_t h = slot_of(ws, name);
    if (ws->htab[h]) {   /* replace in place: the order stays */
        jg_expr_value_clear(&ws->vals[ws->htab[h] - 1]);
        ws->vals[ws->htab[h] - 1] = copy;
        return JG_OK;
    }
    if (ws->n == ws->cap) {
        size_t cap = ws->cap ? 2 * ws->cap : 8;
        char **nn = realloc(ws->names, sizeof *nn * cap);
        if (nn) ws->names = nn;
        jg_expr_value_t *nv = nn ? realloc(ws->vals, sizeof *nv * cap) : NULL;
        if (!nv) {
            jg_expr_value_clear(&copy);
            return JG_NOMEM;
        }
        ws->vals = nv;
        ws->cap = cap;
    }
    size_t len = strlen(name) + 1;
    char *nm = malloc(len);
    if (!nm) {
        jg_expr_value_clear(&copy);
        return JG_NOMEM;
    }
    memcpy(nm, name, len);
    ws->names[ws->n] = nm;
    ws->vals[ws->n] = copy;
    ws->n++;
    if (2 * ws->n >= ws->hcap) {
        if (rehash(ws, 2 * ws->hcap)) {   /* undo: the table must keep a free slot */
            ws->n--;
            free(nm);
            jg_expr_value_clear(&ws->vals[ws->n]);
            return JG_NOMEM;
        }
    } else {
        ws->htab[h] = ws->n;
    }
    return JG_OK;
}

size_t jg_expr_ws_count(const jg_expr_ws_t *ws) { return ws ? ws->n : 0; }
const char *jg_expr_ws_name(const jg_expr_ws_t *ws, size_t k) { return k < ws->n ? ws->names[k] : NULL; }
const jg_expr_value_t *jg_expr_ws_value(const jg_expr_ws_t *ws, size_t k)
{
    return k < ws->n ? &ws->vals[k] : NULL;
}

int jg_expr_ws_lookup(void *chain, const char *name, jg_expr_value_t *out, jg_expr_error_t *err)
{
    const jg_expr_ws_chain_t *c = chain;
    const jg_expr_value_t *v = jg_expr_ws_get(c->ws, name);
    if (v) {
        if (jg_expr_value_copy(out, v)) {
            if (err) {
                strcpy(err->msg, "out of memory");
                err->column = 0;
            }
            return -1;
        }
        return 1;
    }
    return c->parent ? c->parent(c->parent_ctx, name, out, err) : 0;
}
