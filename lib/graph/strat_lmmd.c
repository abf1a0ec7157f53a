/* Criterion "lmmd", ANGEL's "lowest Markowitz with minimal damage"
 * (lmmd_vertex, weight 1; Naumann & Gottschling): markowitz(v) + damage(v), where the damage is how
 * much the elimination raises the Markowitz degrees of the other vertices.
 * Here only the eliminable vertices' degrees count (the others are never
 * eliminated, their degrees cost nothing), and a product edge counts as
 * made whatever its values. */
#include <stdlib.h>
#include "strategy_impl.h"

int64_t jg__strat_damage(const jg_graph_t *g, int64_t v, int64_t *stamp, int64_t *epoch)
{
    /* four marks per vertex, so that every membership test is O(1): v's
     * predecessors, v's successors, the neighbors already counted, and the
     * in- or out-neighbors of the neighbor u looked at */
    int64_t nv = g->nv, *pm = stamp, *sm = stamp + nv, *dm = stamp + 2 * nv, *um = stamp + 3 * nv;
    const jg_gvert_t *V = &g->v[v];
    int64_t dmg = 0, ep = ++*epoch;
    for (int32_t a = 0; a < V->nin; a++) pm[g->e[V->in[a]].src] = ep;
    for (int32_t b = 0; b < V->nout; b++) sm[g->e[V->out[b]].dst] = ep;
    dm[v] = ep;
    for (int32_t q = 0; q < V->nin + V->nout; q++) {
        int64_t u = q < V->nin ? g->e[V->in[q]].src : g->e[V->out[q - V->nin]].dst;
        if (dm[u] == ep) continue;   /* each neighbor once */
        dm[u] = ep;
        if (!jg__strat_eliminable(g, u)) continue;
        const jg_gvert_t *U = &g->v[u];
        int64_t nin = U->nin, nout = U->nout;
        if (sm[u] == ep) {   /* u loses v -> u, gains p -> u for v's other predecessors */
            int64_t mk = ++*epoch;
            for (int32_t k = 0; k < U->nin; k++) um[g->e[U->in[k]].src] = mk;
            nin--;
            for (int32_t a = 0; a < V->nin; a++) {
                int64_t p = g->e[V->in[a]].src;
                nin += p != u && um[p] != mk;
            }
        }
        if (pm[u] == ep) {   /* u loses u -> v, gains u -> s for v's other successors */
            int64_t mk = ++*epoch;
            for (int32_t k = 0; k < U->nout; k++) um[g->e[U->out[k]].dst] = mk;
            nout--;
            for (int32_t b = 0; b < V->nout; b++) {
                int64_t t = g->e[V->out[b]].dst;
                nout += t != u && um[t] != mk;
            }
        }
        dmg += nin * nout - (int64_t)U->nin * U->nout;
    }
    return dmg;
}

void jg__strat_damage_fini(void *state)
{
    jg_strat_damage_t *s = state;
    if (s) free(s->stamp);
    free(s);
}

jg_status_t jg__strat_damage_init(jg_strat_run_t *r, void **state, jg_error_t *err)
{
    jg_strat_damage_t *s = calloc(1, sizeof *s);
    if (s) s->stamp = calloc(4 * (size_t)r->g->nv + 1, sizeof(int64_t));
    *state = s;
    if (!s || !s->stamp) {
        jg__strat_damage_fini(s);
        *state = NULL;
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    return JG_OK;
}

static jg_status_t key(jg_strat_run_t *r, void *state, int64_t v, double *k)
{
    jg_strat_damage_t *s = state;
    const jg_gvert_t *V = &r->g->v[v];
    *k = (double)V->nin * (double)V->nout + (double)jg__strat_damage(r->g, v, s->stamp, &s->epoch);
    return JG_OK;
}

const jg_strategy_def_t jg__strat_lmmd = {
    .name = "lmmd",
    .help = "lowest Markowitz degree plus damage (growth of the neighbors' degrees) first",
    .key = key,
    .hops = 2,
    .init = jg__strat_damage_init,
    .fini = jg__strat_damage_fini,
};
