/* Strategy "none": eliminate nothing (Fig. 4 without reduction). */
#include "strategy_impl.h"

static jg_status_t next(jg_strat_run_t *r, void *state, int64_t *v, jg_error_t *err)
{
    (void)r;
    (void)state;
    (void)err;
    *v = -1;
    return JG_OK;
}

const jg_strategy_def_t jg__strat_none = {
    .name = "none",
    .help = "keep every vertex: the LFT solves all algebraic variables",
    .next = next,
};
