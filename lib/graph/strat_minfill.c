/* Criterion "minfill", lowest fill-in first (ANGEL's lowest_fill_in_vertex):
 * the number of edges p -> s the elimination of v creates (a predecessor p
 * and a successor s of v not yet joined; p = s makes a self-loop). */
#include <stdlib.h>
#include "strategy_impl.h"

typedef struct {
    int64_t *mark, epoch;   /* per vertex: the out-neighbors of the predecessor looked at */
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

static jg_status_t key(jg_strat_run_t *r, void *state, int64_t v, double *k)
{
    fill_t *s = state;
    const jg_graph_t *g = r->g;
    const jg_gvert_t *V = &g->v[v];
    int64_t fill = 0;
    for (int32_t a = 0; a < V->nin; a++) {
        int64_t p = g->e[V->in[a]].src, ep = ++s->epoch;
        const jg_gvert_t *P = &g->v[p];
        for (int32_t q = 0; q < P->nout; q++) s->mark[g->e[P->out[q]].dst] = ep;
        int has_self = P->self >= 0 && g->e[P->self].alive;
        for (int32_t b = 0; b < V->nout; b++) {
            int64_t t = g->e[V->out[b]].dst;
            fill += t == p ? !has_self : s->mark[t] != ep;
        }
    }
    *k = (double)fill;
    return JG_OK;
}

const jg_strategy_def_t jg__strat_minfill = {
    .name = "minfill",
    .help = "lowest fill-in (new edges) first, every eliminable vertex",
    .key = key,
    .hops = 2,   /* a neighbor's elimination may join v's predecessors and successors */
    .init = init,
    .fini = fini,
};
