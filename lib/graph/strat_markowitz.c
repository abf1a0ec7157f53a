/* Strategy "markowitz", the paper's rule (Han, Mosterman & Zhang): eliminate
 * an algebraic vertex while indeg * outdeg < indeg + outdeg, visiting the
 * vertices first in first out and again when a neighbor's elimination
 * changes their degrees.  The worklist is shared with markowitz-nnz. */
#include <stdlib.h>
#include "strategy_impl.h"

/* A ring holding each vertex at most once. */
typedef struct {
    int64_t *q, cap, head, tail;
    unsigned char *inq;
} fifo_t;

void jg__strat_worklist_fini(void *state)
{
    fifo_t *f = state;
    if (!f) return;
    free(f->q);
    free(f->inq);
    free(f);
}

jg_status_t jg__strat_worklist_init(jg_strat_run_t *r, void **state, jg_error_t *err)
{
    const jg_graph_t *g = r->g;
    fifo_t *f = calloc(1, sizeof *f);
    *state = f;
    if (f) {
        f->cap = g->nv + 1;
        f->q = malloc(sizeof(int64_t) * (size_t)f->cap);
        f->inq = calloc((size_t)f->cap, 1);
    }
    if (!f || !f->q || !f->inq) {
        jg__strat_worklist_fini(f);
        *state = NULL;
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    for (int64_t v = 0; v < g->nv; v++)
        if (jg__strat_eliminable(g, v)) {
            f->q[f->tail++] = v;
            f->inq[v] = 1;
        }
    f->tail %= f->cap;
    return JG_OK;
}

jg_status_t jg__strat_worklist_next(jg_strat_run_t *r, void *state, int64_t *v, jg_error_t *err,
                                    jg_strat_rule_t rule)
{
    fifo_t *f = state;
    const jg_graph_t *g = r->g;
    /* the neighbors of the last elimination are visited again */
    for (int64_t k = 0; k < r->nchanged; k++) {
        int64_t u = r->changed[k];
        if (jg__strat_eliminable(g, u) && !f->inq[u]) {
            f->inq[u] = 1;
            f->q[f->tail] = u;
            f->tail = (f->tail + 1) % f->cap;
        }
    }
    while (f->head != f->tail) {
        int64_t u = f->q[f->head];
        f->head = (f->head + 1) % f->cap;
        f->inq[u] = 0;
        if (!jg__strat_eliminable(g, u)) continue;
        int ok = rule(r, u);
        if (ok < 0) return jg_error_set(err, JG_NOMEM, "out of memory");
        if (ok) {
            *v = u;   /* refused at the pivot guard: back when a neighbor goes */
            return JG_OK;
        }
    }
    *v = -1;
    return JG_OK;
}

static int rule(jg_strat_run_t *r, int64_t v)
{
    const jg_gvert_t *V = &r->g->v[v];
    int64_t din = V->nin, dout = V->nout;
    return din * dout < din + dout;
}

static jg_status_t next(jg_strat_run_t *r, void *state, int64_t *v, jg_error_t *err)
{
    return jg__strat_worklist_next(r, state, v, err, rule);
}

const jg_strategy_def_t jg__strat_markowitz = {
    .name = "markowitz",
    .help = "the paper's rule: eliminate while indeg*outdeg < indeg+outdeg (fewer edges)",
    .next = next,
    .init = jg__strat_worklist_init,
    .fini = jg__strat_worklist_fini,
};
