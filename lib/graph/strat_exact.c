/* Strategy "exact": the elimination order of least FMA (the optimal vertex
 * elimination problem), or with "exact:nnz" the set of vertices whose
 * elimination leaves the fewest stored nonzeros, ties by FMA (the scarcity
 * problem); a dynamic program over subsets up to JG__EXACT_MAX eliminable
 * vertices, branch and bound under a time limit beyond ("exact:bb" here,
 * "exact:nnz:bb" in strat_exact_nnz.c).
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
 * Before searching, exact:bb and exact:nnz:bb make the forced moves from the
 * start (jg__exact_forced: moves some optimum makes, free) and, when at most
 * JG__EXACT_MAX vertices are left (for the FMA: in groups of at most that
 * with no edge between groups, whose optima add), solve the rest by the
 * dynamic program: on block diagrams most lines join one output to one input,
 * and this settles models of a few dozen eliminable vertices at once.
 *
 * Branch and bound (Naumann, "Optimal Jacobian accumulation is
 * NP-complete", for why nothing polynomial is expected) is a best-first
 * search over the same sets (A*, Hart, Nilsson & Raphael): the open set of
 * least cost so far plus a lower bound of the rest is expanded next, each
 * set stored once with the cheapest way found to it, against a first order to beat
 * (the better of the greedy lowest Markowitz degree rule and a short
 * annealing: "anneal:seed=1,budget=1000", at most a quarter of the time).
 * The lower bound of the rest (strat_exact_bound.c, which states the
 * argument) charges every vertex left what any future elimination of it must
 * pay, and packs paths and trees of eliminable vertices whose products cost
 * at least their non-identity edges less their leaves whatever the order.  A
 * child inherits its parent's bound less the step's cost (the parent's rest
 * is at most the step plus the child's rest) until its own is computed when
 * it is expanded; the bound is admissible but not consistent, so a set
 * reached again more cheaply is opened again.  The least bound still open is
 * a lower bound of the optimum at any time: when the time limit (or the node
 * store, 512 MiB) ends the search, that is the bound reported, and the best
 * order is proven optimal once the bound reaches it; the root's bound is
 * computed however short the time.  A set where jg__exact_forced finds a
 * vertex (dead, or the input end of a connection identity that is the only
 * edge between its ends: strat_exact.h says why) has that one child.
 * Expanding a set eliminates it again from the start (the graph after a set
 * does not depend on the order), so the search keeps one graph, not one per
 * set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "strat_exact.h"
/* The branch and bound's time limit when none is set (seconds). */
#define BB_TIME_DEFAULT 10.0
/* Its memory: the sets it has reached (bytes), and the size it takes
 * (eliminable vertices x edges: each expansion eliminates its set again). */
#define BB_MEM_MAX ((double)(1u << 29))
#define BB_WORK_MAX JG__EXACT_BB_WORK_MAX

/* ------------------------------------------------------- dynamic program */

typedef struct {
    int64_t *order, n;        /* the result: graph vertex ids */
    int64_t value;            /* FMA (exact) or nnz (exact:nnz) of the optimum */
} result_t;

/* The dynamic program over the subsets of sel[0..n-1] (indices into
 * sh->elim; bit t of a subset is sel[t]).  0, -1 out of memory. */
static int dp_sel(const jg_pshape_t *sh, const jg_pg_t *pg0, const int64_t *sel, int n, int nnzobj,
                  result_t *res)
{
    int rc = -1;
    uint32_t N = 1u << n;
    int64_t *cost = malloc(sizeof(int64_t) * N);
    unsigned char *pred = malloc(N);
    jg_pg_t *lv = calloc((size_t)n + 1, sizeof *lv);
    int64_t *fma = malloc(sizeof(int64_t) * (size_t)(sh->nelim + 1));
    jg_pwork_t w;
    int wok = !jg__pwork_init(&w, sh);
    if (!cost || !pred || !lv || !fma || !wok || jg__pg_copy(&lv[0], pg0)) goto done;
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
                jg__pg_eliminate(sh, &lv[k], sh->elim[sel[t]], NULL, 1, &w) < 0)
                goto done;
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
        if (jg__pg_costs(sh, &lv[k], fma, NULL, &w)) goto done;
        for (int v = 0; v < n; v++) {
            if ((S >> v) & 1 || fma[sel[v]] < 0) continue;
            uint32_t T = S | (1u << v);
            int64_t c = cost[S] + fma[sel[v]];
            if (c < cost[T]) {
                cost[T] = c;
                pred[T] = (unsigned char)v;
            }
        }
    }
    res->n = __builtin_popcount(best);
    res->order = malloc(sizeof(int64_t) * (size_t)(res->n + 1));
    if (!res->order) goto done;
    for (uint32_t T = best, k = (uint32_t)res->n; T; T &= ~(1u << pred[T]))
        res->order[--k] = sh->elim[sel[pred[T]]];
    res->value = nnzobj ? bestnnz : cost[best];
    rc = 0;
done:
    if (lv)
        for (int k = 0; k <= n; k++) jg__pg_free(&lv[k]);
    free(lv);
    free(cost);
    free(pred);
    free(fma);
    if (wok) jg__pwork_free(&w);
    return rc;
}

static jg_status_t dp(const jg_pshape_t *sh, const jg_pg_t *pg0, int nnzobj, result_t *res,
                      jg_error_t *err)
{
    int n = (int)sh->nelim;
    int64_t *sel = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int rc = sel ? 0 : -1;
    for (int k = 0; k < n && sel; k++) sel[k] = k;
    if (!rc) rc = dp_sel(sh, pg0, sel, n, nnzobj, res);
    free(sel);
    if (rc) return jg_error_set(err, JG_NOMEM, "exact: out of memory in the dynamic program over %d vertices", n);
    return JG_OK;
}

int64_t jg__exact_dp_subset(const jg_pshape_t *sh, const jg_pg_t *pg0, const int64_t *sel, int nsel,
                            int64_t *order)
{
    result_t res = {0};
    if (dp_sel(sh, pg0, sel, nsel, 0, &res)) return -1;
    int64_t v = res.n == nsel ? res.value : -2;
    if (v >= 0) memcpy(order, res.order, sizeof(int64_t) * (size_t)nsel);
    free(res.order);
    return v;
}

int64_t jg__exact_forced(const jg_pshape_t *sh, const jg_pg_t *pg, const unsigned char *skip, int64_t *deg)
{
    /* per eliminable vertex: in-degree, out-degree, self-loop, and its last
     * in-edge (its only one when the in-degree is 1) */
    int64_t ne = sh->nelim;
    for (int64_t k = 0; k < 4 * ne; k++) deg[k] = 0;
    for (int64_t q = 0; q < pg->ne; q++) {
        const jg_pedge_t *E = &pg->e[q];
        int32_t ls = sh->loc[E->src], ld = sh->loc[E->dst];
        if (E->src == E->dst) {
            if (ld >= 0) deg[4 * ld + 2] = 1;
            continue;
        }
        if (ld >= 0) {
            deg[4 * ld]++;
            deg[4 * ld + 3] = q;
        }
        if (ls >= 0) deg[4 * ls + 1]++;
    }
    int64_t absorbed = -1;
    for (int64_t k = 0; k < ne; k++) {
        if ((skip && skip[k]) || deg[4 * k + 2]) continue;
        int64_t in = deg[4 * k], out = deg[4 * k + 1];
        /* dead (an eliminated vertex has no edges at all) */
        if ((in == 0) != (out == 0)) return k;
        if (in != 1 || absorbed >= 0) continue;
        const jg_pedge_t *E = &pg->e[deg[4 * k + 3]];
        int32_t y = sh->loc[E->src];
        if (E->ident && y >= 0 && !deg[4 * y + 2] && deg[4 * y + 1] == 1) absorbed = k;
    }
    return absorbed;
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
    jg_fbound_t *fb;          /* the lower bound's workspace */
    int64_t *deg;             /* jg__exact_forced's scratch */
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
        /* the root's own bound is always computed, however short the time */
        if ((jg__strat_now() > b->t_end && b->node[root].hexact) || full) break;
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
            if (!(S[v / 64] >> (v % 64) & 1) && fma[v] >= 0) nc++;
        if (nc > 0 && jg__fbound(b->fb, sh, &b->cur, fma, lb, &h)) goto done;
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
        int64_t only = jg__exact_forced(sh, &b->cur, NULL, b->deg);
        for (int64_t v = 0; v < n; v++) {
            if (S[v / 64] >> (v % 64) & 1 || fma[v] < 0 || (only >= 0 && v != only)) continue;
            /* the parent's bound less this step's cost bounds the child's
             * rest (the parent's rest is at most this step plus it) */
            int64_t g2 = g + fma[v], h2 = hs - fma[v] > 0 ? hs - fma[v] : 0;
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

jg_status_t jg__exact_fma_bb(const jg_graph_t *g, const jg_pshape_t *sh, const jg_pg_t *pg0, double seconds,
                             jg_exact_result_t *xr, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    result_t r0 = {0}, *res = &r0;
    int64_t *lower = &xr->lower;
    int *optimal = &xr->optimal;
    memset(xr, 0, sizeof *xr);
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
    b.fb = jg__fbound_new(sh, pg0);
    b.deg = malloc(sizeof(int64_t) * (size_t)(4 * n + 1));
    if (!b.slot || !b.path || !b.bestpath || !wok || !b.fb || !b.deg) goto nomem;
    for (int64_t k = 0; k < b.nslot; k++) b.slot[k] = -1;
    b.t_end = jg__strat_now() + seconds;
    b.t_quarter = seconds / 4;
    if (bb_incumbent(&b) || bb_search(&b, lower, optimal)) goto nomem;
    res->n = b.bestn;
    res->order = malloc(sizeof(int64_t) * (size_t)(b.bestn + 1));
    if (!res->order) goto nomem;
    memcpy(res->order, b.bestpath, sizeof(int64_t) * (size_t)b.bestn);
    res->value = b.best;
    xr->order = res->order;
    xr->n = res->n;
    xr->value = res->value;
    goto done;
nomem:
    free(res->order);
    memset(xr, 0, sizeof *xr);
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
    jg__fbound_free(b.fb);
    free(b.deg);
    return st;
}

/* ---------------------------------------------- forced moves, then exact */

/* The forced moves of jg__exact_forced from pg0, then, when at most
 * JG__EXACT_MAX vertices are left, the dynamic program over them; for the
 * fewest FMA also when the vertices left fall into groups of at most
 * JG__EXACT_MAX with no edge between two groups (an elimination in one group
 * changes no edge of a vertex of another: the optima add).  1 with the whole
 * optimum in *res, 0 when too large or past t_end (res untouched), -1 out of
 * memory. */
static int forced_dp(const jg_pshape_t *sh, const jg_pg_t *pg0, int nnzobj, double t_end, result_t *res)
{
    int64_t n = sh->nelim, nf = 0, total = 0;
    int rc = -1;
    jg_pg_t pg = {0};
    jg_pwork_t w;
    int wok = !jg__pwork_init(&w, sh);
    int64_t *deg = malloc(sizeof(int64_t) * (size_t)(4 * n + 1));
    int64_t *order = malloc(sizeof(int64_t) * (size_t)(n + 1)), *sel = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *grp = malloc(sizeof(int64_t) * (size_t)(n + 1)), *cnt = malloc(sizeof(int64_t) * (size_t)(n + 1));
    unsigned char *gone = calloc((size_t)n + 1, 1);
    if (!wok || !deg || !order || !sel || !grp || !cnt || !gone || jg__pg_copy(&pg, pg0)) goto done;
    for (;;) {
        if (jg__strat_now() > t_end) {
            rc = 0;
            goto done;
        }
        int64_t k = jg__exact_forced(sh, &pg, gone, deg);
        if (k < 0) break;
        jg_pcost_t c;
        int r = jg__pg_eliminate(sh, &pg, sh->elim[k], &c, 0, &w);
        if (r < 0) goto done;
        if (r > 0) break;   /* never: a forced vertex has no self-loop */
        gone[k] = 1;
        order[nf++] = sh->elim[k];
        total += c.fma;
    }
    /* the groups: joined by the edges between vertices left (union-find) */
    for (int64_t k = 0; k < n; k++) {
        grp[k] = k;
        cnt[k] = 0;
    }
    for (int64_t q = 0; q < pg.ne; q++) {
        int64_t a = sh->loc[pg.e[q].src], b = sh->loc[pg.e[q].dst];
        if (a < 0 || b < 0 || a == b) continue;
        while (grp[a] != a) a = grp[a] = grp[grp[a]];
        while (grp[b] != b) b = grp[b] = grp[grp[b]];
        if (a != b) grp[a] = b;
    }
    int64_t left = 0, big = 0;
    for (int64_t k = 0; k < n; k++) {
        if (gone[k]) continue;
        int64_t t = k;
        while (grp[t] != t) t = grp[t];
        left++;
        if (++cnt[t] > big) big = cnt[t];
    }
    if (left > JG__EXACT_MAX && (nnzobj || big > JG__EXACT_MAX)) {
        rc = 0;
        goto done;
    }
    /* and not when the dynamic programs would overrun the time (one
     * elimination per subset: about 1e-7 s per edge) */
    double est = 0;
    if (left <= JG__EXACT_MAX)
        est = (double)(1u << left);
    else
        for (int64_t r = 0; r < n; r++)
            if (cnt[r]) est += (double)(1u << cnt[r]);
    if (jg__strat_now() + est * (double)(pg.ne + 1) * 1e-7 > t_end) {
        rc = 0;
        goto done;
    }
    /* one dynamic program over what is left, or one per group (sel: the
     * vertices of a group, in turn) */
    int64_t no = nf, value = nnzobj ? 0 : total;
    for (int64_t r = 0; r < n; r++) {
        if (left > JG__EXACT_MAX && !cnt[r]) continue;
        int64_t ns = 0;
        for (int64_t k = 0; k < n; k++) {
            if (gone[k]) continue;
            if (left > JG__EXACT_MAX) {
                int64_t t = k;
                while (grp[t] != t) t = grp[t];
                if (t != r) continue;
            }
            sel[ns++] = k;
        }
        result_t part = {0};
        if (dp_sel(sh, &pg, sel, (int)ns, nnzobj, &part)) goto done;
        memcpy(order + no, part.order, sizeof(int64_t) * (size_t)part.n);
        no += part.n;
        value = nnzobj ? part.value : value + part.value;
        free(part.order);
        if (left <= JG__EXACT_MAX) break;
    }
    res->order = order;
    res->n = no;
    res->value = value;
    order = NULL;
    rc = 1;
done:
    jg__pg_free(&pg);
    if (wok) jg__pwork_free(&w);
    free(deg);
    free(order);
    free(sel);
    free(grp);
    free(cnt);
    free(gone);
    return rc;
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
    else if (!strcmp(a, "nnz:bb"))
        nnzobj = usebb = 1;
    else if (*a)
        return jg_error_set(err, JG_ARG,
                            "exact: unknown argument '%s' (exact, exact:nnz, exact:bb or exact:nnz:bb)", a);
    jg_pshape_t sh;
    jg_pg_t pg;
    result_t res = {0};
    jg_status_t st = jg__pg_from_graph(r->g, &sh, &pg, err);
    if (st) return st;
    if (!usebb && sh.nelim > JG__EXACT_MAX) {
        st = jg_error_set(err, JG_ARG,
                          "exact%s: %lld eliminable vertices, more than the %d the dynamic program "
                          "over subsets solves exactly; exact%s:bb runs branch and bound under "
                          "--time-limit instead",
                          nnzobj ? ":nnz" : "", (long long)sh.nelim, JG__EXACT_MAX, nnzobj ? ":nnz" : "");
        goto done;
    }
    double secs = r->time_limit > 0 ? r->time_limit : BB_TIME_DEFAULT;
    /* the forced moves and the dynamic program first, within the time and
     * the size the searches take */
    double work = (double)sh.nelim * (double)(pg.ne + 1);
    int solved = usebb && work <= (nnzobj ? JG__EXACT_NNZ_WORK_MAX : JG__EXACT_BB_WORK_MAX)
                     ? forced_dp(&sh, &pg, nnzobj, jg__strat_now() + secs, &res)
                     : 0;
    if (solved < 0) {
        st = jg_error_set(err, JG_NOMEM, "exact: out of memory over %lld vertices", (long long)sh.nelim);
        goto done;
    }
    if (solved) {
        r->cost->bound = (double)res.value;
        r->cost->optimal = 1;
    } else if (usebb) {
        jg_exact_result_t x;
        st = nnzobj ? jg__exact_nnz_bb(r->g, &sh, &pg, secs, &x, err) : jg__exact_fma_bb(r->g, &sh, &pg, secs, &x, err);
        if (st) goto done;
        res.order = x.order;
        res.n = x.n;
        r->cost->bound = (double)x.lower;
        r->cost->optimal = x.optimal;
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
            "at most 20 eliminable vertices, branch and bound beyond (exact:bb, exact:nnz:bb)",
    .args_help = "nnz|bb|nnz:bb",
    .order = exact_order,
};
