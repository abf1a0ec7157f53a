/* Criterion "momr", maximal overall Markowitz degree reduction first
 * (ANGEL's momr_vertex; Naumann & Gottschling): markowitz(v) - damage(v),
 * the drop of the sum of the eliminable vertices' Markowitz degrees that
 * eliminating v causes (damage: strat_lmmd.c).  Lower keys go first, so the
 * key is its negative. */
#include <stdlib.h>
#include "strategy_impl.h"

typedef struct {
    int64_t *stamp, epoch;
} momr_t;

static void fini(void *state)
{
    momr_t *s = state;
    if (s) free(s->stamp);
    free(s);
}

static jg_status_t init(jg_strat_run_t *r, void **state, jg_error_t *err)
{
    momr_t *s = calloc(1, sizeof *s);
    if (s) s->stamp = calloc(4 * (size_t)r->g->nv + 1, sizeof(int64_t));
    *state = s;
    if (!s || !s->stamp) {
        fini(s);
        *state = NULL;
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    return JG_OK;
}

static jg_status_t key(jg_strat_run_t *r, void *state, int64_t v, double *k)
{
    momr_t *s = state;
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
    .init = init,
    .fini = fini,
};
