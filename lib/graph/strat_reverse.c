/* Criterion "reverse": the forward order's components backwards, from the
 * model's outputs toward its inputs (ANGEL's reverse_mode_vertex on a
 * loop-free graph); within a component and among independent ones, by
 * vertex id. */
#include <stdlib.h>
#include "strategy_impl.h"

static jg_status_t key(jg_strat_run_t *r, void *state, int64_t v, double *k)
{
    (void)r;
    *k = -(double)((const int64_t *)state)[v];
    return JG_OK;
}

const jg_strategy_def_t jg__strat_reverse = {
    .name = "reverse",
    .help = "topological order of the algebraic loops' condensation, outputs first (ties: vertex id)",
    .key = key,
    .hops = 0,
    .init = jg__strat_scc_init,
    .fini = free,
};
