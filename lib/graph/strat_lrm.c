/* Criterion "lrm", lowest relative Markowitz degree first (ANGEL's
 * lowest_relative_markowitz_vertex; Naumann & Gottschling):
 * indeg(v) * outdeg(v) - indep(v) * dep(v), where indep(v) counts the
 * independent vertices v depends on and dep(v) the dependent vertices that
 * depend on v.  Here the vertices that stay (states, I/O points, the
 * outputs of Algebraic Constraints) are the independent and dependent
 * ones, and a path counts when its interior is eliminable.  Eliminating a
 * vertex keeps every path between the others, so both counts are computed
 * once, 64 sources at a time over the condensation (scc.c). */
#include <stdlib.h>
#include <string.h>
#include "strategy_impl.h"

typedef struct {
    int64_t *indep, *dep;
} lrm_t;

static void fini(void *state)
{
    lrm_t *s = state;
    if (!s) return;
    free(s->indep);
    free(s->dep);
    free(s);
}

/* For each eliminable vertex, add to cnt the number of kept vertices that
 * reach it (fwd) or that it reaches (!fwd) through eliminable vertices. */
static int reach(const jg_graph_t *g, const int64_t *comp, int64_t ncomp, int fwd, int64_t *cnt)
{
    int64_t nv = g->nv;
    uint64_t *mask = malloc(sizeof(uint64_t) * (size_t)(ncomp + 1));
    int64_t *byc = malloc(sizeof(int64_t) * (size_t)(nv + 1)), *first = calloc((size_t)ncomp + 2, sizeof(int64_t));
    int64_t *src = malloc(sizeof(int64_t) * (size_t)(nv + 1)), nsrc = 0;
    int ret = -1;
    if (!mask || !byc || !first || !src) goto done;
    for (int64_t v = 0; v < nv; v++)
        if (comp[v] >= 0) first[comp[v] + 1]++;
        else if (g->v[v].alive) src[nsrc++] = v;
    for (int64_t c = 0; c < ncomp; c++) first[c + 1] += first[c];
    for (int64_t v = 0; v < nv; v++)
        if (comp[v] >= 0) byc[first[comp[v]]++] = v;
    for (int64_t c = ncomp; c > 0; c--) first[c] = first[c - 1];
    first[0] = 0;
    for (int64_t s0 = 0; s0 < nsrc; s0 += 64) {
        memset(mask, 0, sizeof(uint64_t) * (size_t)(ncomp + 1));
        for (int64_t b = 0; b < 64 && s0 + b < nsrc; b++) {
            const jg_gvert_t *S = &g->v[src[s0 + b]];
            int32_t n = fwd ? S->nout : S->nin;
            for (int32_t k = 0; k < n; k++) {
                int64_t u = fwd ? g->e[S->out[k]].dst : g->e[S->in[k]].src;
                if (comp[u] >= 0) mask[comp[u]] |= (uint64_t)1 << b;
            }
        }
        /* components in topological order (forward) or its reverse */
        for (int64_t q = 0; q < ncomp; q++) {
            int64_t c = fwd ? q : ncomp - 1 - q;
            if (!mask[c]) continue;
            for (int64_t m = first[c]; m < first[c + 1]; m++) {
                const jg_gvert_t *V = &g->v[byc[m]];
                int32_t n = fwd ? V->nout : V->nin;
                for (int32_t k = 0; k < n; k++) {
                    int64_t u = fwd ? g->e[V->out[k]].dst : g->e[V->in[k]].src;
                    if (comp[u] >= 0 && comp[u] != c) mask[comp[u]] |= mask[c];
                }
            }
        }
        for (int64_t v = 0; v < nv; v++)
            if (comp[v] >= 0) cnt[v] += __builtin_popcountll(mask[comp[v]]);
    }
    ret = 0;
done:
    free(mask);
    free(byc);
    free(first);
    free(src);
    return ret;
}

static jg_status_t init(jg_strat_run_t *r, void **state, jg_error_t *err)
{
    const jg_graph_t *g = r->g;
    lrm_t *s = calloc(1, sizeof *s);
    int64_t *comp = malloc(sizeof(int64_t) * (size_t)(g->nv + 1)), nc = -1;
    *state = s;
    if (s) {
        s->indep = calloc((size_t)g->nv + 1, sizeof(int64_t));
        s->dep = calloc((size_t)g->nv + 1, sizeof(int64_t));
    }
    if (s && s->indep && s->dep && comp) nc = jg__strat_scc(g, comp);
    if (nc < 0 || reach(g, comp, nc, 1, s->indep) || reach(g, comp, nc, 0, s->dep)) {
        free(comp);
        fini(s);
        *state = NULL;
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    free(comp);
    return JG_OK;
}

static jg_status_t key(jg_strat_run_t *r, void *state, int64_t v, double *k)
{
    const lrm_t *s = state;
    const jg_gvert_t *V = &r->g->v[v];
    *k = (double)V->nin * (double)V->nout - (double)s->indep[v] * (double)s->dep[v];
    return JG_OK;
}

const jg_strategy_def_t jg__strat_lrm = {
    .name = "lrm",
    .help = "lowest relative Markowitz degree (indeg*outdeg - indep*dep) first",
    .key = key,
    .hops = 1,
    .init = init,
    .fini = fini,
};
