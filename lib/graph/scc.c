/* Strongly connected components of the eliminable vertices (Tarjan's
 * algorithm, iterative) and a topological order of their condensation, for
 * the forward, reverse and relative-Markowitz strategies. */
#include <stdlib.h>
#include "strategy_impl.h"

/* The k-th eliminable successor of v (edges out of v, self-loop excluded). */
static int64_t succ(const jg_graph_t *g, int64_t v, int32_t k) { return g->e[g->v[v].out[k]].dst; }

int64_t jg__strat_scc(const jg_graph_t *g, int64_t *comp)
{
    int64_t nv = g->nv, ncomp = 0, idx = 0, sp = 0, cs = 0;
    int64_t *index = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    int64_t *low = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    int64_t *stack = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    int64_t *cstack = malloc(sizeof(int64_t) * (size_t)(nv + 1));   /* call stack: vertices */
    int32_t *cpos = malloc(sizeof(int32_t) * (size_t)(nv + 1));     /* next successor to visit */
    unsigned char *on = calloc((size_t)nv + 1, 1);
    int64_t *tcomp = NULL, *minv = NULL, *indeg = NULL, *heap = NULL, *order = NULL;
    int64_t ret = -1;
    if (!index || !low || !stack || !cstack || !cpos || !on) goto done;
    for (int64_t v = 0; v < nv; v++) {
        index[v] = -1;
        comp[v] = -1;
    }
    /* Tarjan: components come out in reverse topological order */
    for (int64_t r = 0; r < nv; r++) {
        if (index[r] >= 0 || !jg__strat_eliminable(g, r)) continue;
        cstack[cs++] = r;
        cpos[r] = 0;
        index[r] = low[r] = idx++;
        stack[sp++] = r;
        on[r] = 1;
        while (cs > 0) {
            int64_t v = cstack[cs - 1];
            if (cpos[v] < g->v[v].nout) {
                int64_t w = succ(g, v, cpos[v]++);
                if (!jg__strat_eliminable(g, w)) continue;
                if (index[w] < 0) {
                    index[w] = low[w] = idx++;
                    stack[sp++] = w;
                    on[w] = 1;
                    cpos[w] = 0;
                    cstack[cs++] = w;
                } else if (on[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            cs--;
            if (cs > 0) {
                int64_t u = cstack[cs - 1];
                if (low[v] < low[u]) low[u] = low[v];
            }
            if (low[v] == index[v]) {
                int64_t w;
                do {
                    w = stack[--sp];
                    on[w] = 0;
                    comp[w] = ncomp;
                } while (w != v);
                ncomp++;
            }
        }
    }
    /* Kahn over the condensation, smallest vertex id first among ready ones */
    tcomp = malloc(sizeof(int64_t) * (size_t)(ncomp + 1));
    minv = malloc(sizeof(int64_t) * (size_t)(ncomp + 1));
    indeg = calloc((size_t)ncomp + 1, sizeof(int64_t));
    heap = malloc(sizeof(int64_t) * (size_t)(ncomp + 1));
    int64_t *first = malloc(sizeof(int64_t) * (size_t)(ncomp + 2));
    order = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    if (!tcomp || !minv || !indeg || !heap || !first || !order) {
        free(first);
        goto done;
    }
    for (int64_t c = 0; c <= ncomp; c++) first[c] = 0;
    for (int64_t c = 0; c < ncomp; c++) minv[c] = INT64_MAX;
    for (int64_t v = 0; v < nv; v++)
        if (comp[v] >= 0) {
            if (v < minv[comp[v]]) minv[comp[v]] = v;
            first[comp[v] + 1]++;
            for (int32_t k = 0; k < g->v[v].nout; k++) {
                int64_t w = succ(g, v, k);
                if (comp[w] >= 0 && comp[w] != comp[v]) indeg[comp[w]]++;
            }
        }
    for (int64_t c = 0; c < ncomp; c++) first[c + 1] += first[c];
    for (int64_t v = 0; v < nv; v++)   /* members by component */
        if (comp[v] >= 0) order[first[comp[v]]++] = v;
    for (int64_t c = ncomp; c > 0; c--) first[c] = first[c - 1];
    first[0] = 0;
    int64_t nh = 0, pos = 0;
#define HLESS(a, b) (minv[a] < minv[b])
    for (int64_t c = 0; c < ncomp; c++)
        if (!indeg[c]) {
            int64_t i = nh++;
            heap[i] = c;
            while (i > 0 && HLESS(heap[i], heap[(i - 1) / 2])) {
                int64_t t = heap[i];
                heap[i] = heap[(i - 1) / 2];
                heap[(i - 1) / 2] = t;
                i = (i - 1) / 2;
            }
        }
    while (nh > 0) {
        int64_t c = heap[0];
        heap[0] = heap[--nh];
        for (int64_t i = 0;;) {
            int64_t l = 2 * i + 1, r = l + 1, m = i;
            if (l < nh && HLESS(heap[l], heap[m])) m = l;
            if (r < nh && HLESS(heap[r], heap[m])) m = r;
            if (m == i) break;
            int64_t t = heap[i];
            heap[i] = heap[m];
            heap[m] = t;
            i = m;
        }
        tcomp[c] = pos++;
        for (int64_t q = first[c]; q < first[c + 1]; q++) {
            int64_t v = order[q];
            for (int32_t k = 0; k < g->v[v].nout; k++) {
                int64_t w = succ(g, v, k), d = comp[w];
                if (d < 0 || d == c || --indeg[d]) continue;
                int64_t i = nh++;
                heap[i] = d;
                while (i > 0 && HLESS(heap[i], heap[(i - 1) / 2])) {
                    int64_t t = heap[i];
                    heap[i] = heap[(i - 1) / 2];
                    heap[(i - 1) / 2] = t;
                    i = (i - 1) / 2;
                }
            }
        }
    }
#undef HLESS
    free(first);
    for (int64_t v = 0; v < nv; v++)
        if (comp[v] >= 0) comp[v] = tcomp[comp[v]];
    ret = ncomp;
done:
    free(index);
    free(low);
    free(stack);
    free(cstack);
    free(cpos);
    free(on);
    free(tcomp);
    free(minv);
    free(indeg);
    free(heap);
    free(order);
    return ret;
}

jg_status_t jg__strat_scc_init(jg_strat_run_t *r, void **state, jg_error_t *err)
{
    int64_t *comp = malloc(sizeof(int64_t) * (size_t)(r->g->nv + 1));
    if (!comp || jg__strat_scc(r->g, comp) < 0) {
        free(comp);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    *state = comp;
    return JG_OK;
}
