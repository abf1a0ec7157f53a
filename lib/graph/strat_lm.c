/* Criterion "lm", lowest Markowitz degree first (ANGEL's
 * lowest_markowitz_vertex; Naumann & Gottschling): indeg(v) * outdeg(v),
 * edges counted, self-loops not.  "full" is this criterion under its
 * historic name: every algebraic vertex, ties by vertex id. */
#include "strategy_impl.h"

static jg_status_t key(jg_strat_run_t *r, void *state, int64_t v, double *k)
{
    (void)state;
    const jg_gvert_t *V = &r->g->v[v];
    *k = (double)V->nin * (double)V->nout;
    return JG_OK;
}

const jg_strategy_def_t jg__strat_lm = {
    .name = "lm",
    .help = "lowest Markowitz degree (indeg*outdeg) first, every eliminable vertex",
    .key = key,
    .hops = 1,
};

const jg_strategy_def_t jg__strat_full = {
    .name = "full",
    .help = "every eliminable vertex, lowest Markowitz degree first (= lm)",
    .key = key,
    .hops = 1,
};
