/* Criterion "minfill", lowest fill-in first (ANGEL's lowest_fill_in_vertex):
 * the number of edges p -> s the elimination of v creates (a predecessor p
 * and a successor s of v not yet joined; p = s makes a self-loop). */
#include <stdlib.h>
#include "strategy_impl.h"

typedef struct {
    int64_t *mark, epoch;   /* per vertex: a mark (the side of the pairs looked at) */
} fill_t;

static void fini(void *state)
{
    fill_t *s = state;
    if (s) free(s->mark);
    free(s);
}

static jg_status_t init(jg_strat_run_t *r, void **state, jg_error_t *err)
{
    fill_t *s = calloc(1, sizeof *s);
    if (s) s->mark = calloc((size_t)r->g->nv + 1, sizeof(int64_t));
    *state = s;
    if (!s || !s->mark) {
        fini(s);
        *state = NULL;
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    return JG_OK;
}

/* fill = in * out - the joined pairs (p, q), counted from whichever side
 * is shorter: the out-lists of v's predecessors or the in-lists of its
 * successors (a predecessor that is a hub, a state feeding thousands of
 * blocks, is then never scanned for a vertex with few successors). */
static jg_status_t key(jg_strat_run_t *r, void *state, int64_t v, double *k)
{
    fill_t *s = state;
    const jg_graph_t *g = r->g;
    const jg_gvert_t *V = &g->v[v];
    int64_t fwd = 0, bwd = 0, joined = 0;
    if (V->nin == 0 || V->nout == 0) {
        *k = 0;
        return JG_OK;
    }
    for (int32_t a = 0; a < V->nin; a++) fwd += g->v[g->e[V->in[a]].src].nout;
    for (int32_t b = 0; b < V->nout; b++) bwd += g->v[g->e[V->out[b]].dst].nin;
    if (fwd <= bwd) {
        /* per predecessor p: mark its successors, look v's up */
        for (int32_t a = 0; a < V->nin; a++) {
            int64_t p = g->e[V->in[a]].src, ep = ++s->epoch;
            const jg_gvert_t *P = &g->v[p];
            for (int32_t q = 0; q < P->nout; q++) s->mark[g->e[P->out[q]].dst] = ep;
            if (P->self >= 0 && g->e[P->self].alive) s->mark[p] = ep;   /* p -> p joined */
            for (int32_t b = 0; b < V->nout; b++) joined += s->mark[g->e[V->out[b]].dst] == ep;
        }
    } else {
        /* mark v's predecessors once, per successor q count those in its in-list */
        int64_t ep = ++s->epoch;
        for (int32_t a = 0; a < V->nin; a++) s->mark[g->e[V->in[a]].src] = ep;
        for (int32_t b = 0; b < V->nout; b++) {
            int64_t q = g->e[V->out[b]].dst;
            const jg_gvert_t *Q = &g->v[q];
            for (int32_t a = 0; a < Q->nin; a++) joined += s->mark[g->e[Q->in[a]].src] == ep;
            joined += s->mark[q] == ep && Q->self >= 0 && g->e[Q->self].alive;
        }
    }
    *k = (double)((int64_t)V->nin * V->nout - joined);
    return JG_OK;
}

const jg_strategy_def_t jg__strat_minfill = {
    .name = "minfill",
    .help = "lowest fill-in (new edges) first, every eliminable vertex",
    .key = key,
    .hops = 2,        /* an eliminable neighbor's elimination may join v's predecessors and successors */
    .kept_pairs = 1,  /* and so may any elimination joining two kept ones */
    .init = init,
    .fini = fini,
};
