/* Criterion "mincost": the vertex whose elimination costs the fewest FMA of
 * the cost model (jacgraph/graph.h: inversion, scaling, products) first. */
#include "strategy_impl.h"

static jg_status_t key(jg_strat_run_t *r, void *state, int64_t v, double *k)
{
    (void)state;
    jg_vcost_t c;
    jg_status_t st = jg__strat_vcost(r, v, &c);
    *k = (double)c.fma;
    return st;
}

const jg_strategy_def_t jg__strat_mincost = {
    .name = "mincost",
    .help = "fewest FMA of the cost model first, every eliminable vertex",
    .key = key,
    .hops = 1,   /* v's cost depends on its own edges only */
};
