/* Strategy "anneal": simulated annealing over elimination orders of every
 * eliminable vertex, minimizing the FMA of the cost model (jacgraph/graph.h).
 *
 * Spec: anneal[:seed=S,budget=B] (defaults seed=1, budget=1000).  The start
 * is the greedy lowest-cost-first order (the criterion "mincost": each step
 * the vertex whose elimination costs the fewest FMA now, ties by vertex id);
 * each of the B moves swaps two vertices of the current order (or
 * moves one to another place, by a coin), evaluates the new order on a
 * structural copy (strat_pattern.h) and accepts it by the Metropolis rule at
 * a temperature falling geometrically from 5 % of the start's cost to
 * 1/1000 of that.  The best order seen is returned, so the result is never
 * worse than the start.  The random numbers are splitmix64 from S: a run is
 * deterministic for a seed unless the time limit (jg_graph_strategy_set_time_limit,
 * default 10 s) ends it before the budget.  Orders are scored as the engine
 * eliminates them: a vertex whose pivot the model refuses (not diagonal and
 * wider than JG__GRAPH_DENSE_PIVOT_MAX) waits and is retried after each later
 * elimination.  See Kirkpatrick, Gelatt & Vecchi, "Optimization by simulated
 * annealing", and its use for elimination orders in ANGEL (Naumann &
 * Gottschling). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "strat_pattern.h"

#define ANNEAL_TIME_DEFAULT 10.0
/* Above this many eliminable vertices x edges, orders are scored by the
 * engine's elimination on a fresh build (see eval_t) instead of the compact
 * copy, whose eliminations scan every edge. */
#define BIG_WORK 4e6

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform in [0, n) */
static int64_t rnd(uint64_t *s, int64_t n) { return (int64_t)(splitmix(s) % (uint64_t)n); }

typedef struct {
    const jg_pshape_t *sh;
    const jg_pg_t *pg0;
    jg_pg_t g;
    jg_pwork_t w;
    int64_t *pend;
    /* large graphs: the engine's own structural elimination on a fresh
     * build of g0 (adjacency lists: an elimination costs its
     * neighborhood, where the compact copy scans every edge) */
    const jg_graph_t *g0;
    int big;
} eval_t;

/* evaluate() on a large graph; -1 out of memory. */
static int64_t evaluate_big(eval_t *e, const int64_t *ord, int64_t n)
{
    jg_graph_t *g;
    jg_error_t err;
    if (jg__graph_scratch(e->g0, &g, &err)) return -1;
    int64_t total = 0, np = 0;
    for (int64_t k = 0; k < n && total >= 0; k++) {
        jg_vcost_t c;
        jg_status_t st = jg__graph_eliminate_one(g, e->sh->elim[ord[k]], &c, &err);
        if (st == JG_ARG) {   /* a refused pivot waits */
            e->pend[np++] = ord[k];
            continue;
        }
        if (st) {
            total = -1;
            break;
        }
        total += c.fma;
        for (int64_t q = 0; q < np;) {
            st = jg__graph_eliminate_one(g, e->sh->elim[e->pend[q]], &c, &err);
            if (st && st != JG_ARG) {
                total = -1;
                break;
            }
            if (!st) {
                total += c.fma;
                e->pend[q] = e->pend[--np];
                q = 0;
            } else {
                q++;
            }
        }
    }
    jg_graph_free(g);
    return total;
}

/* FMA of eliminating ord[0..n-1] (indices into sh->elim) in turn; -1 out
 * of memory. */
static int64_t evaluate(eval_t *e, const int64_t *ord, int64_t n)
{
    if (e->big) return evaluate_big(e, ord, n);
    if (jg__pg_copy(&e->g, e->pg0)) return -1;
    int64_t total = 0, np = 0;
    for (int64_t k = 0; k < n; k++) {
        jg_pcost_t c;
        int r = jg__pg_eliminate(e->sh, &e->g, e->sh->elim[ord[k]], &c, 0, &e->w);
        if (r < 0) return -1;
        if (r > 0) {
            e->pend[np++] = ord[k];
            continue;
        }
        total += c.fma;
        for (int64_t q = 0; q < np;) {
            r = jg__pg_eliminate(e->sh, &e->g, e->sh->elim[e->pend[q]], &c, 0, &e->w);
            if (r < 0) return -1;
            if (r == 0) {
                total += c.fma;
                e->pend[q] = e->pend[--np];
                q = 0;
            } else {
                q++;
            }
        }
    }
    return total;
}

/* Min-heap of (cost, index into sh->elim) for the large greedy. */
typedef struct {
    int64_t key, v;
} hent_t;

static int hless(const hent_t *a, const hent_t *b)
{
    return a->key < b->key || (a->key == b->key && a->v < b->v);
}

static int hpush(hent_t **h, int64_t *n, int64_t *cap, hent_t x)
{
    if (*n == *cap) {
        int64_t c = *cap ? 2 * *cap : 256;
        hent_t *nh = realloc(*h, sizeof *nh * (size_t)c);
        if (!nh) return -1;
        *h = nh;
        *cap = c;
    }
    hent_t *a = *h;
    int64_t i = (*n)++;
    a[i] = x;
    while (i > 0 && hless(&a[i], &a[(i - 1) / 2])) {
        hent_t t = a[i];
        a[i] = a[(i - 1) / 2];
        a[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return 0;
}

static hent_t hpop(hent_t *a, int64_t *n)
{
    hent_t top = a[0];
    a[0] = a[--(*n)];
    for (int64_t i = 0;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && hless(&a[l], &a[m])) m = l;
        if (r < *n && hless(&a[r], &a[m])) m = r;
        if (m == i) break;
        hent_t t = a[i];
        a[i] = a[m];
        a[m] = t;
        i = m;
    }
    return top;
}

/* greedy() on a large graph: the engine's cost of each vertex on a fresh
 * build, kept in a heap and recomputed for the neighbors of each
 * elimination (a vertex's cost depends on its own edges only). */
static int greedy_big(eval_t *e, int64_t *ord, int64_t n)
{
    const jg_pshape_t *sh = e->sh;
    jg_graph_t *g = NULL;
    jg_error_t err;
    hent_t *h = NULL;
    int64_t nh = 0, caph = 0, k = 0, *nb = NULL;
    unsigned char *done = calloc((size_t)n + 1, 1);
    int rc = -1;
    if (!done || jg__graph_scratch(e->g0, &g, &err)) goto out;
    jg_strat_run_t r = {.g = g, .args = "", .cost = NULL};
    for (int64_t q = 0; q < n; q++) {
        jg_vcost_t c;
        if (jg__strat_vcost(&r, sh->elim[q], &c) || hpush(&h, &nh, &caph, (hent_t){c.fma, q})) goto out;
    }
    while (nh > 0) {
        hent_t t = hpop(h, &nh);
        if (done[t.v]) continue;
        int64_t v = sh->elim[t.v];
        jg_vcost_t c;
        if (jg__strat_vcost(&r, v, &c)) goto out;
        if (c.fma != t.key) continue;   /* stale: its fresh entry is in the heap */
        /* the neighbors before they change */
        const jg_gvert_t *V = &g->v[v];
        int64_t nn = 0;
        free(nb);
        nb = malloc(sizeof(int64_t) * (size_t)(V->nin + V->nout + 1));
        if (!nb) goto out;
        for (int32_t q = 0; q < V->nin; q++) nb[nn++] = g->e[V->in[q]].src;
        for (int32_t q = 0; q < V->nout; q++) nb[nn++] = g->e[V->out[q]].dst;
        jg_status_t st = jg__graph_eliminate_one(g, v, NULL, &err);
        if (st == JG_ARG) continue;   /* refused: appended at the end */
        if (st) goto out;
        done[t.v] = 1;
        ord[k++] = t.v;
        for (int64_t q = 0; q < nn; q++) {
            int32_t l = sh->loc[nb[q]];
            if (l < 0 || done[l]) continue;
            if (jg__strat_vcost(&r, nb[q], &c) || hpush(&h, &nh, &caph, (hent_t){c.fma, l})) goto out;
        }
    }
    for (int64_t v = 0; v < n; v++)
        if (!done[v]) ord[k++] = v;
    rc = 0;
out:
    jg_graph_free(g);
    free(h);
    free(nb);
    free(done);
    return rc;
}

/* The greedy lowest-cost-first order into ord; -1 out of memory. */
static int greedy(eval_t *e, int64_t *ord, int64_t n)
{
    if (e->big) return greedy_big(e, ord, n);
    int64_t *fma = malloc(sizeof(int64_t) * (size_t)(n + 1));
    unsigned char *done = calloc((size_t)n + 1, 1);
    int rc = -1;
    if (!fma || !done || jg__pg_copy(&e->g, e->pg0)) goto out;
    int64_t k = 0;
    while (k < n) {
        if (jg__pg_costs(e->sh, &e->g, fma, NULL, &e->w)) goto out;
        int64_t best = -1;
        for (int64_t v = 0; v < n; v++)
            if (!done[v] && fma[v] >= 0 && (best < 0 || fma[v] < fma[best])) best = v;
        if (best < 0) break;   /* the rest refused by the model: appended below */
        if (jg__pg_eliminate(e->sh, &e->g, e->sh->elim[best], NULL, 0, &e->w) < 0) goto out;
        done[best] = 1;
        ord[k++] = best;
    }
    for (int64_t v = 0; v < n; v++)
        if (!done[v]) ord[k++] = v;
    rc = 0;
out:
    free(fma);
    free(done);
    return rc;
}

/* "seed=S,budget=B" (either, any order, or empty). */
static jg_status_t parse_args(const char *a, uint64_t *seed, int64_t *budget, jg_error_t *err)
{
    *seed = 1;
    *budget = 1000;
    while (*a) {
        const char *end = a + strcspn(a, ",");
        char *stop;
        if (!strncmp(a, "seed=", 5)) {
            unsigned long long v = strtoull(a + 5, &stop, 10);
            if (stop != end || stop == a + 5) goto bad;
            *seed = v;
        } else if (!strncmp(a, "budget=", 7)) {
            long long v = strtoll(a + 7, &stop, 10);
            if (stop != end || stop == a + 7 || v < 0) goto bad;
            *budget = v;
        } else {
            goto bad;
        }
        a = *end ? end + 1 : end;
    }
    return JG_OK;
bad:
    return jg_error_set(err, JG_ARG,
                        "anneal: bad argument '%.*s' (anneal:seed=S,budget=B, S and B integers >= 0)",
                        (int)strcspn(a, ","), a);
}

int64_t jg__pg_anneal(const jg_graph_t *g, const jg_pshape_t *sh, const jg_pg_t *pg, uint64_t seed,
                      int64_t budget, double seconds, int64_t *best)
{
    uint64_t rs = seed;
    int64_t n = sh->nelim, fbest = -1;
    eval_t e = {.sh = sh, .pg0 = pg, .g0 = g,
                .big = (double)n * (double)(pg->ne + 1) > BIG_WORK};
    int wok = !jg__pwork_init(&e.w, sh);
    int64_t *cur = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *cand = malloc(sizeof(int64_t) * (size_t)(n + 1));
    e.pend = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!wok || !cur || !cand || !e.pend) goto done;
    if (greedy(&e, cur, n)) goto done;
    int64_t fcur = evaluate(&e, cur, n);
    if (fcur < 0) goto done;
    fbest = fcur;
    memcpy(best, cur, sizeof(int64_t) * (size_t)n);
    double t_end = jg__strat_now() + seconds;
    double T0 = 0.05 * (double)(fcur > 0 ? fcur : 1), T1 = T0 / 1000;
    for (int64_t it = 0; it < budget && n >= 2; it++) {
        if (jg__strat_now() > t_end) break;   /* every move: one scoring of a large graph takes seconds */
        double T = T0 * pow(T1 / T0, budget > 1 ? (double)it / (double)(budget - 1) : 1);
        memcpy(cand, cur, sizeof(int64_t) * (size_t)n);
        int64_t i = rnd(&rs, n), j = rnd(&rs, n - 1);
        if (j >= i) j++;
        if (splitmix(&rs) & 1) {
            int64_t t = cand[i];
            cand[i] = cand[j];
            cand[j] = t;
        } else {
            /* move the vertex at i to position j */
            int64_t t = cand[i];
            if (i < j)
                memmove(cand + i, cand + i + 1, sizeof(int64_t) * (size_t)(j - i));
            else
                memmove(cand + j + 1, cand + j, sizeof(int64_t) * (size_t)(i - j));
            cand[j] = t;
        }
        int64_t f = evaluate(&e, cand, n);
        if (f < 0) {
            fbest = -1;
            goto done;
        }
        double u = (double)(splitmix(&rs) >> 11) * (1.0 / 9007199254740992.0);
        if (f <= fcur || u < exp(-(double)(f - fcur) / T)) {
            int64_t *t = cur;
            cur = cand;
            cand = t;
            fcur = f;
            if (f < fbest) {
                fbest = f;
                memcpy(best, cur, sizeof(int64_t) * (size_t)n);
            }
        }
    }
done:
    free(cur);
    free(cand);
    free(e.pend);
    jg__pg_free(&e.g);
    if (wok) jg__pwork_free(&e.w);
    return fbest;
}

static jg_status_t anneal_order(jg_strat_run_t *r, int64_t **order, int64_t *nout, jg_error_t *err)
{
    uint64_t seed;
    int64_t budget, *best = NULL;
    jg_status_t st = parse_args(r->args, &seed, &budget, err);
    if (st) return st;
    jg_pshape_t sh;
    jg_pg_t pg;
    if ((st = jg__pg_from_graph(r->g, &sh, &pg, err))) return st;
    int64_t n = sh.nelim;
    best = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!best || jg__pg_anneal(r->g, &sh, &pg, seed, budget,
                               r->time_limit > 0 ? r->time_limit : ANNEAL_TIME_DEFAULT, best) < 0) {
        st = jg_error_set(err, JG_NOMEM, "anneal: out of memory (%lld vertices)", (long long)n);
        goto done;
    }
    for (int64_t k = 0; k < n; k++) best[k] = sh.elim[best[k]];
    *order = best;
    *nout = n;
    best = NULL;
done:
    free(best);
    jg__pshape_free(&sh);
    jg__pg_free(&pg);
    return st;
}

const jg_strategy_def_t jg__strat_anneal = {
    .name = "anneal",
    .help = "simulated annealing over orders from the mincost order, fewest FMA (seed=S,budget=B moves)",
    .args_help = "seed=S,budget=B",
    .order = anneal_order,
};
