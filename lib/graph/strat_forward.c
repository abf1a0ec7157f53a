/* Criterion "forward": eliminate in a topological order of the condensation
 * of the strongly connected components of the eliminable vertices (the
 * algebraic loops are the components), from the model's inputs toward its
 * outputs; within a component and among independent ones, by vertex id.
 * ANGEL's forward_mode_vertex is this order on a loop-free graph. */
#include <stdlib.h>
#include "strategy_impl.h"

static jg_status_t key(jg_strat_run_t *r, void *state, int64_t v, double *k)
{
    (void)r;
    *k = (double)((const int64_t *)state)[v];
    return JG_OK;
}

const jg_strategy_def_t jg__strat_forward = {
    .name = "forward",
    .help = "topological order of the algebraic loops' condensation, inputs first (ties: vertex id)",
    .key = key,
    .hops = 0,
    .init = jg__strat_scc_init,
    .fini = free,
};
