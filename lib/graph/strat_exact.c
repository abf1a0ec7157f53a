/* Strategy "exact": the elimination order of least FMA (the optimal vertex
 * elimination problem), or with "exact:nnz" the set of vertices whose
 * elimination leaves the fewest stored nonzeros, ties by FMA (the scarcity
 * problem); a dynamic program over subsets up to JG__EXACT_MAX eliminable
 * vertices, branch and bound under a time limit ("exact:bb") beyond.
 *
 * Why a dynamic program works: the graph after eliminating a set S of
 * vertices does not depend on the order in which S was eliminated (the
 * patterns are structural: an edge a -> b after S holds the union over the
 * paths a -> S* -> b), so the cheapest way to reach S is
 *   cost(S) = min over v in S of cost(S - v) + FMA(v | graph after S - v),
 * and the whole lattice of 2^n subsets is swept once.  Computing "the graph
 * after S" for every S costs one elimination each: S is visited in
 * increasing binary order, which is the preorder of the tree whose parent of
 * S is S minus its lowest vertex, so the graph of S is its parent's (kept on
 * a stack, one level per |S|) with that vertex eliminated.  Memory: 9 bytes
 * per subset (the best cost and the last vertex), 9 MiB at 20 vertices.
 *
 * Branch and bound (Naumann, "Optimal Jacobian accumulation is
 * NP-complete", for why nothing polynomial is expected) is a best-first
 * search over the same sets (A*, Hart, Nilsson & Raphael): the open set of
 * least cost so far plus a lower bound of the rest is expanded next, each
 * set once with the cheapest way found to it, against a first order to beat
 * (the better of the greedy lowest Markowitz degree rule and a short
 * annealing: "anneal:seed=1,budget=1000", at most a quarter of the time).
 * The lower bound sums, over the vertices left, what eliminating them costs
 * on their self-loop and their edges to and from fixed vertices
 * (strat_pattern.h: those terms only grow, which also makes the bound
 * consistent: it never drops by more than the step's cost).  So the least
 * bound still open is a lower bound of the optimum at any time: when the
 * time limit (or the node store, 512 MiB) ends the search, that is the bound
 * reported, and the best order is proven optimal once the bound reaches it.
 * Expanding a set eliminates it again from the start (the graph after a set
 * does not depend on the order), so the search keeps one graph, not one per
 * set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "strat_pattern.h"

/* The most eliminable vertices the dynamic program takes (2^20 subsets). */
#define JG__EXACT_MAX 20
/* The branch and bound's time limit when none is set (seconds). */
#define BB_TIME_DEFAULT 10.0
/* Its memory: the sets it has reached (bytes), and the size it takes
 * (eliminable vertices x edges: each expansion eliminates its set again). */
#define BB_MEM_MAX ((double)(1u << 29))
#define BB_WORK_MAX 1e9

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------- dynamic program */

typedef struct {
    int64_t *order, n;        /* the result: graph vertex ids */
    int64_t value;            /* FMA (exact) or nnz (exact:nnz) of the optimum */
} result_t;

static jg_status_t dp(const jg_pshape_t *sh, const jg_pg_t *pg0, int nnzobj, result_t *res,
                      jg_error_t *err)
{
    jg_status_t st = JG_OK;
    int n = (int)sh->nelim;
    uint32_t N = 1u << n;
    int64_t *cost = malloc(sizeof(int64_t) * N);
    unsigned char *pred = malloc(N);
    jg_pg_t *lv = calloc((size_t)n + 1, sizeof *lv);
    int64_t *fma = malloc(sizeof(int64_t) * (size_t)(n + 1));
    jg_pwork_t w;
    int wok = !jg__pwork_init(&w, sh);
    if (!cost || !pred || !lv || !fma || !wok || jg__pg_copy(&lv[0], pg0)) goto nomem;
    for (uint32_t S = 0; S < N; S++) cost[S] = INT64_MAX;
    cost[0] = 0;
    /* exact: the full set, or (a vertex the model never lets go) the
     * largest reachable set; exact:nnz: the fewest nonzeros */
    uint32_t best = 0;
    int bestk = 0;
    int64_t bestnnz = jg__pg_nnz(sh, pg0);
    for (uint32_t S = 0; S < N; S++) {
        int k = __builtin_popcount(S);
        if (S) {
            int t = __builtin_ctz(S);
            if (jg__pg_copy(&lv[k], &lv[k - 1]) ||
                jg__pg_eliminate(sh, &lv[k], sh->elim[t], NULL, 1, &w) < 0)
                goto nomem;
        }
        if (cost[S] == INT64_MAX) continue;
        if (nnzobj) {
            int64_t nz = jg__pg_nnz(sh, &lv[k]);
            if (nz < bestnnz || (nz == bestnnz && cost[S] < cost[best])) {
                best = S;
                bestnnz = nz;
            }
        } else if (k > bestk || (k == bestk && cost[S] < cost[best])) {
            best = S;
            bestk = k;
        }
        if (k == n) continue;
        if (jg__pg_costs(sh, &lv[k], fma, NULL, &w)) goto nomem;
        for (int v = 0; v < n; v++) {
            if ((S >> v) & 1 || fma[v] < 0) continue;
            uint32_t T = S | (1u << v);
            int64_t c = cost[S] + fma[v];
            if (c < cost[T]) {
                cost[T] = c;
                pred[T] = (unsigned char)v;
            }
        }
    }
    res->n = __builtin_popcount(best);
    res->order = malloc(sizeof(int64_t) * (size_t)(res->n + 1));
    if (!res->order) goto nomem;
    for (uint32_t T = best, k = (uint32_t)res->n; T; T &= ~(1u << pred[T]))
        res->order[--k] = sh->elim[pred[T]];
    res->value = nnzobj ? bestnnz : cost[best];
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "exact: out of memory in the dynamic program over %d vertices", n);
done:
    if (lv)
        for (int k = 0; k <= n; k++) jg__pg_free(&lv[k]);
    free(lv);
    free(cost);
    free(pred);
    free(fma);
    if (wok) jg__pwork_free(&w);
    return st;
}

/* ------------------------------------------------------ branch and bound */

/* A search node: a set of eliminated vertices (its bits in keys), the
 * cheapest way found to reach it (g, through parent's set plus vertex v)
 * and a lower bound h of what eliminating the rest costs. */
typedef struct {
    int64_t parent, v, g, h;
    int hexact;               /* h computed on the node's own graph */
    int closed;               /* expanded */
} anode_t;

typedef struct {
    int64_t f, g, node;
} aent_t;

typedef struct {
    const jg_graph_t *g;
    const jg_pshape_t *sh;
    jg_pwork_t w;
    int64_t n, words;
    const jg_pg_t *root;
    jg_pg_t cur;              /* the graph of the node being expanded */
    anode_t *node;
    uint64_t *keys;           /* words per node */
    int64_t nnode, capnode, maxnode;
    int64_t *slot, nslot;     /* hash of sets -> node, -1 empty */
    aent_t *heap;
    int64_t nheap, capheap;
    int64_t *path, *bestpath, bestn;
    int64_t best;             /* the best full order's cost, INT64_MAX until one */
    double t_end, t_quarter;
    int64_t expanded;
} bb_t;

static uint64_t hash_set(const uint64_t *s, int64_t words)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int64_t k = 0; k < words; k++) {
        h ^= s[k];
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    return h;
}

/* The slot of set s: holding its node, or the empty slot where it goes. */
static int64_t set_slot(const bb_t *b, const uint64_t *s)
{
    size_t bytes = sizeof(uint64_t) * (size_t)b->words;
    for (int64_t k = (int64_t)(hash_set(s, b->words) & (uint64_t)(b->nslot - 1));;
         k = (k + 1) & (b->nslot - 1))
        if (b->slot[k] < 0 || !memcmp(b->keys + b->slot[k] * b->words, s, bytes)) return k;
}

static int aless(const aent_t *x, const aent_t *y)
{
    /* least bound first; among equal bounds the deeper (costlier so far)
     * first, which reaches full orders sooner */
    if (x->f != y->f) return x->f < y->f;
    if (x->g != y->g) return x->g > y->g;
    return x->node < y->node;
}

static int heap_push(bb_t *b, aent_t e)
{
    if (b->nheap == b->capheap) {
        int64_t c = b->capheap ? 2 * b->capheap : 1024;
        aent_t *nh = realloc(b->heap, sizeof *nh * (size_t)c);
        if (!nh) return -1;
        b->heap = nh;
        b->capheap = c;
    }
    aent_t *a = b->heap;
    int64_t i = b->nheap++;
    a[i] = e;
    while (i > 0 && aless(&a[i], &a[(i - 1) / 2])) {
        aent_t t = a[i];
        a[i] = a[(i - 1) / 2];
        a[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return 0;
}

static aent_t heap_pop(bb_t *b)
{
    aent_t *a = b->heap, top = a[0];
    a[0] = a[--b->nheap];
    for (int64_t i = 0;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < b->nheap && aless(&a[l], &a[m])) m = l;
        if (r < b->nheap && aless(&a[r], &a[m])) m = r;
        if (m == i) break;
        aent_t t = a[i];
        a[i] = a[m];
        a[m] = t;
        i = m;
    }
    return top;
}

/* A new node for set s (its slot k); -1 when the node store is full or out
 * of memory. */
static int64_t node_new(bb_t *b, int64_t k, const uint64_t *s)
{
    if (b->nnode == b->maxnode) return -1;
    if (b->nnode == b->capnode) {
        int64_t c = b->capnode ? 2 * b->capnode : 1024;
        if (c > b->maxnode) c = b->maxnode;
        anode_t *nn = realloc(b->node, sizeof *nn * (size_t)c);
        if (!nn) return -1;
        b->node = nn;
        uint64_t *nk = realloc(b->keys, sizeof(uint64_t) * (size_t)(c * b->words));
        if (!nk) return -1;
        b->keys = nk;
        b->capnode = c;
    }
    int64_t id = b->nnode++;
    memcpy(b->keys + id * b->words, s, sizeof(uint64_t) * (size_t)b->words);
    b->slot[k] = id;
    return id;
}

/* The graph of node id into b->cur: its set eliminated from the root (the
 * graph after a set does not depend on the order). */
static int node_graph(bb_t *b, int64_t id)
{
    int64_t d = 0;
    for (int64_t x = id; b->node[x].parent >= 0; x = b->node[x].parent) b->path[d++] = b->node[x].v;
    if (jg__pg_copy(&b->cur, b->root)) return -1;
    for (int64_t k = d - 1; k >= 0; k--)
        if (jg__pg_eliminate(b->sh, &b->cur, b->sh->elim[b->path[k]], NULL, 1, &b->w) < 0) return -1;
    return 0;
}

/* The order of node id (graph ids) into b->bestpath. */
static void node_order(bb_t *b, int64_t id)
{
    int64_t d = 0;
    for (int64_t x = id; b->node[x].parent >= 0; x = b->node[x].parent) d++;
    b->bestn = d;
    for (int64_t x = id; b->node[x].parent >= 0; x = b->node[x].parent)
        b->bestpath[--d] = b->sh->elim[b->node[x].v];
}

/* Best-first branch and bound over sets (A*): 0, or -1 out of memory.  *lower
 * gets the proven lower bound, *optimal 1 when b->best is the optimum. */
static int bb_search(bb_t *b, int64_t *lower, int *optimal)
{
    const jg_pshape_t *sh = b->sh;
    int64_t n = b->n, W = b->words;
    int64_t *fma = malloc(sizeof(int64_t) * (size_t)(2 * n + 1)), *lb = fma ? fma + n : NULL;
    uint64_t *t = calloc((size_t)W + 1, sizeof *t), *S = calloc((size_t)W + 1, sizeof *S);
    int rc = -1, full = 0;
    *optimal = 0;
    *lower = 0;
    if (!fma || !t || !S) goto done;
    int64_t k = set_slot(b, t), root = node_new(b, k, t);
    if (root < 0) goto done;
    b->node[root] = (anode_t){.parent = -1, .v = -1};
    if (heap_push(b, (aent_t){0, 0, root})) goto done;
    while (b->nheap > 0) {
        if (now() > b->t_end || full) break;
        aent_t e = heap_pop(b);
        anode_t *N = &b->node[e.node];
        if (N->closed || e.f != N->g + N->h || e.g != N->g) continue;   /* stale */
        if (e.f >= b->best) {
            /* nothing open can beat the best order: it is optimal */
            b->nheap = 0;
            break;
        }
        if (node_graph(b, e.node) || jg__pg_costs(sh, &b->cur, fma, lb, &b->w)) goto done;
        /* a copy: adding nodes moves b->keys */
        memcpy(S, b->keys + e.node * W, sizeof(uint64_t) * (size_t)W);
        int64_t h = 0, nc = 0;
        /* a vertex the model refuses now is refused for good (its
         * self-loop only grows): it never costs anything */
        for (int64_t v = 0; v < n; v++)
            if (!(S[v / 64] >> (v % 64) & 1) && fma[v] >= 0) {
                h += lb[v];
                nc++;
            }
        N = &b->node[e.node];
        if (!N->hexact) {
            N->hexact = 1;
            if (h > N->h) {   /* a better bound: back into the heap */
                N->h = h;
                if (heap_push(b, (aent_t){N->g + h, N->g, e.node})) goto done;
                continue;
            }
        }
        N->closed = 1;
        b->expanded++;
        if (nc == 0) {
            /* a full order (the rest refused), the cheapest open: optimal */
            b->best = N->g;
            node_order(b, e.node);
            b->nheap = 0;
            break;
        }
        int64_t g = N->g, hs = N->h;
        for (int64_t v = 0; v < n; v++) {
            if (S[v / 64] >> (v % 64) & 1 || fma[v] < 0) continue;
            int64_t g2 = g + fma[v], h2 = hs - lb[v] > 0 ? hs - lb[v] : 0;
            if (g2 + h2 >= b->best) continue;
            memcpy(t, S, sizeof(uint64_t) * (size_t)W);
            t[v / 64] |= 1ull << (v % 64);
            int64_t ks = set_slot(b, t), id = b->slot[ks];
            if (id >= 0) {
                anode_t *T = &b->node[id];
                if (g2 >= T->g) continue;
                T->g = g2;
                T->parent = e.node;
                T->v = v;
                T->closed = 0;
                if (!T->hexact && h2 > T->h) T->h = h2;
            } else {
                /* a full store (or table) ends the search like the clock */
                if (b->nnode * 10 >= b->nslot * 7 || (id = node_new(b, ks, t)) < 0) {
                    full = 1;
                    break;
                }
                b->node[id] = (anode_t){.parent = e.node, .v = v, .g = g2, .h = h2};
            }
            if (heap_push(b, (aent_t){g2 + b->node[id].h, g2, id})) goto done;
            N = &b->node[e.node];
        }
        if (full) {
            /* this node's children are not all in: keep its own bound */
            if (heap_push(b, (aent_t){g + hs, g, e.node})) goto done;
            b->node[e.node].closed = 0;
        }
    }
    /* the least bound still open is a lower bound of the optimum */
    int64_t lo = b->best;
    for (int64_t q = 0; q < b->nheap; q++) {
        const aent_t *x = &b->heap[q];
        const anode_t *N = &b->node[x->node];
        if (!N->closed && x->f == N->g + N->h && x->g == N->g && x->f < lo) lo = x->f;
    }
    *lower = lo;
    *optimal = lo >= b->best;
    rc = 0;
done:
    free(fma);
    free(t);
    free(S);
    return rc;
}

/* A first order to beat: greedy lowest Markowitz degree (in-edges times
 * out-edges now, ties by id), or the annealing's when cheaper; on deep graphs
 * both are far better than the search's own first dive (greedy lowest
 * cost).  Sets b->best and b->bestpath; -1 out of memory. */
static int bb_incumbent(bb_t *b)
{
    const jg_pshape_t *sh = b->sh;
    int64_t n = b->n, total = 0, k = 0;
    int64_t *deg = calloc((size_t)(2 * sh->nv + 1), sizeof(int64_t));
    unsigned char *done = calloc((size_t)n + 1, 1);
    jg_pg_t g = {0};
    int rc = -1;
    if (!deg || !done || jg__pg_copy(&g, b->root)) goto out;
    for (; k < n; k++) {
        memset(deg, 0, sizeof(int64_t) * (size_t)(2 * sh->nv));
        for (int64_t q = 0; q < g.ne; q++)
            if (g.e[q].src != g.e[q].dst) {
                deg[2 * g.e[q].dst]++;
                deg[2 * g.e[q].src + 1]++;
            }
        int64_t pick = -1, pdeg = 0;
        jg_pcost_t c;
        for (int64_t v = 0; v < n; v++) {
            int64_t x = sh->elim[v], d = deg[2 * x] * deg[2 * x + 1];
            if (!done[v] && (pick < 0 || d < pdeg)) {
                pick = v;
                pdeg = d;
            }
        }
        int r = pick < 0 ? 1 : jg__pg_eliminate(sh, &g, sh->elim[pick], &c, 0, &b->w);
        if (r < 0) goto out;
        if (r > 0) break;   /* a refused pivot: no incumbent, the search finds one */
        done[pick] = 1;
        b->path[k] = sh->elim[pick];
        total += c.fma;
    }
    if (k == n) {
        b->best = total;
        b->bestn = n;
        memcpy(b->bestpath, b->path, sizeof(int64_t) * (size_t)n);
    }
    /* and the annealing's default run (a quarter of the time at most) */
    int64_t *ord = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!ord) goto out;
    int64_t fa = jg__pg_anneal(b->g, sh, b->root, 1, 1000, b->t_quarter, ord);
    if (fa < 0) {
        free(ord);
        goto out;
    }
    if (fa < b->best) {
        b->best = fa;
        b->bestn = n;
        for (int64_t q = 0; q < n; q++) b->bestpath[q] = sh->elim[ord[q]];
    }
    free(ord);
    rc = 0;
out:
    free(deg);
    free(done);
    jg__pg_free(&g);
    return rc;
}

static jg_status_t bb(const jg_graph_t *g, const jg_pshape_t *sh, const jg_pg_t *pg0, double seconds,
                      result_t *res, int64_t *lower, int *optimal, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    int64_t n = sh->nelim;
    bb_t b = {.g = g, .sh = sh, .n = n, .root = pg0, .best = INT64_MAX, .words = (n + 63) / 64};
    int wok = 0;
    /* each expansion eliminates its set again: bounded work per node */
    if ((double)n * (double)(pg0->ne + 1) > BB_WORK_MAX)
        return jg_error_set(err, JG_ARG,
                            "exact:bb: %lld eliminable vertices on a graph of %lld edges: too large "
                            "for the search (vertices x edges above %.0e)",
                            (long long)n, (long long)pg0->ne, BB_WORK_MAX);
    /* the node store: BB_MEM_MAX bytes at most */
    double per = (double)sizeof(anode_t) + 8.0 * (double)b.words + 2 * 8.0 + 2 * sizeof(aent_t);
    b.maxnode = (int64_t)(BB_MEM_MAX / per);
    if (b.maxnode < 1024) b.maxnode = 1024;
    b.nslot = 1024;
    while (b.nslot < b.maxnode * 10 / 7 + 1) b.nslot *= 2;
    b.slot = malloc(sizeof(int64_t) * (size_t)b.nslot);
    b.path = malloc(sizeof(int64_t) * (size_t)(n + 1));
    b.bestpath = malloc(sizeof(int64_t) * (size_t)(n + 1));
    wok = !jg__pwork_init(&b.w, sh);
    if (!b.slot || !b.path || !b.bestpath || !wok) goto nomem;
    for (int64_t k = 0; k < b.nslot; k++) b.slot[k] = -1;
    b.t_end = now() + seconds;
    b.t_quarter = seconds / 4;
    if (bb_incumbent(&b) || bb_search(&b, lower, optimal)) goto nomem;
    res->n = b.bestn;
    res->order = malloc(sizeof(int64_t) * (size_t)(b.bestn + 1));
    if (!res->order) goto nomem;
    memcpy(res->order, b.bestpath, sizeof(int64_t) * (size_t)b.bestn);
    res->value = b.best;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "exact:bb: out of memory in the search over %lld vertices",
                      (long long)n);
done:
    jg__pg_free(&b.cur);
    free(b.node);
    free(b.keys);
    free(b.slot);
    free(b.heap);
    free(b.path);
    free(b.bestpath);
    if (wok) jg__pwork_free(&b.w);
    return st;
}

/* ---------------------------------------------------------- the strategy */

static jg_status_t exact_order(jg_strat_run_t *r, int64_t **order, int64_t *n, jg_error_t *err)
{
    const char *a = r->args;
    int nnzobj = 0, usebb = 0;
    if (!strcmp(a, "nnz"))
        nnzobj = 1;
    else if (!strcmp(a, "bb"))
        usebb = 1;
    else if (*a)
        return jg_error_set(err, JG_ARG,
                            "exact: unknown argument '%s' (exact, exact:nnz or exact:bb)", a);
    jg_pshape_t sh;
    jg_pg_t pg;
    result_t res = {0};
    jg_status_t st = jg__pg_from_graph(r->g, &sh, &pg, err);
    if (st) return st;
    if (!usebb && sh.nelim > JG__EXACT_MAX) {
        st = jg_error_set(err, JG_ARG,
                          "exact%s: %lld eliminable vertices, more than the %d the dynamic program "
                          "over subsets solves exactly%s",
                          nnzobj ? ":nnz" : "", (long long)sh.nelim, JG__EXACT_MAX,
                          nnzobj ? "" : "; exact:bb runs branch and bound under --time-limit instead");
        goto done;
    }
    if (usebb) {
        int64_t lower = 0;
        int optimal = 0;
        double secs = r->time_limit > 0 ? r->time_limit : BB_TIME_DEFAULT;
        if ((st = bb(r->g, &sh, &pg, secs, &res, &lower, &optimal, err))) goto done;
        r->cost->bound = (double)lower;
        r->cost->optimal = optimal;
    } else {
        if ((st = dp(&sh, &pg, nnzobj, &res, err))) goto done;
        r->cost->bound = (double)res.value;
        r->cost->optimal = 1;
    }
    *order = res.order;
    *n = res.n;
    res.order = NULL;
done:
    free(res.order);
    jg__pshape_free(&sh);
    jg__pg_free(&pg);
    return st;
}

const jg_strategy_def_t jg__strat_exact = {
    .name = "exact",
    .help = "optimal order: fewest FMA (exact), or fewest nonzeros ties by FMA (exact:nnz); "
            "at most 20 eliminable vertices, exact:bb branch and bound beyond",
    .args_help = "nnz|bb",
    .order = exact_order,
};
