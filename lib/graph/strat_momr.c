/* Criterion "momr", maximal overall Markowitz degree reduction first
 * (ANGEL's momr_vertex; Naumann & Gottschling): markowitz(v) - damage(v),
 * the drop of the sum of the eliminable vertices' Markowitz degrees that
 * eliminating v causes (damage: strat_lmmd.c).  Lower keys go first, so the
 * key is its negative. */
#include <stdlib.h>
#include "strategy_impl.h"


static jg_status_t key(jg_strat_run_t *r, void *state, int64_t v, double *k)
{
    jg_strat_damage_t *s = state;
    const jg_gvert_t *V = &r->g->v[v];
    double momr = (double)V->nin * (double)V->nout - (double)jg__strat_damage(r->g, v, s->stamp, &s->epoch);
    *k = -momr;
    return JG_OK;
}

const jg_strategy_def_t jg__strat_momr = {
    .name = "momr",
    .help = "largest overall Markowitz degree reduction first",
    .key = key,
    .hops = 2,
    .init = jg__strat_damage_init,
    .fini = jg__strat_damage_fini,
};
