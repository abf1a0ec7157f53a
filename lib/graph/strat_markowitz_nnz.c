/* Strategy "markowitz-nnz": the paper's rule counted in stored nonzeros
 * instead of edges -- eliminate a vertex while its elimination lowers the
 * live nonzeros of the graph (its products and their fill against its own
 * edges, self-loop included), in the paper's first-in-first-out order. */
#include "strategy_impl.h"

static int rule(jg_strat_run_t *r, int64_t v)
{
    jg_vcost_t c;
    if (jg__strat_vcost(r, v, &c)) return -1;
    return c.delta_nnz < 0;
}

static jg_status_t next(jg_strat_run_t *r, void *state, int64_t *v, jg_error_t *err)
{
    return jg__strat_worklist_next(r, state, v, err, rule);
}

const jg_strategy_def_t jg__strat_markowitz_nnz = {
    .name = "markowitz-nnz",
    .help = "the paper's rule by nonzeros: eliminate while it lowers the stored nonzeros",
    .next = next,
    .init = jg__strat_worklist_init,
    .fini = jg__strat_worklist_fini,
};
