/* Branch and bound for the scarcity problem (strategy "exact:nnz:bb"): the
 * set of eliminable vertices whose elimination leaves the fewest stored
 * nonzeros, at any size, under a time limit.
 *
 * The graph after eliminating a set does not depend on the order (see
 * strat_exact.c), so the state is the set, and the search is over sets:
 * depth first, each node deciding one more vertex, eliminated (the child's
 * graph is the parent's with that vertex eliminated: one elimination per
 * node, the graphs of the path kept one per level) or kept for good.  Every
 * node is itself a candidate (the set so far, the undecided vertices kept).
 * A vertex jg__exact_forced finds (dead, or the input end of a signal line
 * between one output and one input) is only ever eliminated: it costs
 * nothing, changes no other elimination's cost, and keeping it keeps
 * nonzeros.
 * The first set to beat is the better of the paper's rule counted in
 * nonzeros (markowitz-nnz, run by the engine on a scratch copy) and a greedy
 * that eliminates, while one helps, the vertex that lowers the nonzeros most.
 *
 * The bound of a node (eliminated S, kept X, undecided F): call the fixed
 * vertices, X, and the vertices the model refuses now (refused for good:
 * their self-loop only grows) the staying set Y.
 *   - An edge between two staying vertices stays to the end and its pattern
 *     only grows (the edge after a set is the union over the paths through
 *     it): their nonzeros now, A, are a floor.
 *   - An undecided v either stays, and keeps its edges to and from Y and its
 *     self-loop (k_v nonzeros now, which also only grow), or is eliminated,
 *     and then its products K_f K^_e of an in-edge e from Y and an out-edge f
 *     to Y (patterns now, which only grow) land on edges between staying
 *     vertices.  Entries of those products not in the edges now and produced
 *     by no other undecided vertex (x_v of them) are new nonzeros only v
 *     makes.
 * So every set below the node leaves at least A + sum over v in F of
 * min(k_v, x_v) nonzeros.  A subtree is cut when its bound reaches the best
 * set's nonzeros; when the time limit ends the search, the least bound of
 * the subtrees not searched is the lower bound reported, and the best set is
 * proven optimal when the search completes.  A vertex that the model accepts
 * at the root but refuses at a node (a pivot block wider than 64 that became
 * dense) might still be eliminated earlier in another order: the node's bound
 * then joins the lower bound, as an unsearched subtree would.
 *
 * The order of the set is the order of the search; with at most
 * JG__EXACT_MAX vertices in the set it is replaced by the order of fewest FMA
 * that eliminates exactly that set (jg__exact_dp_subset).  Ties between sets
 * of equal nonzeros go to the first found (the FMA of the tie-break is then
 * not proven least). */
#include <stdlib.h>
#include <string.h>
#include "strat_exact.h"

/* Vertices x edges above which the search is refused: the graphs of the
 * path searched are kept, one per level (about 50 bytes per edge each). */
#define NNZ_WORK_MAX JG__EXACT_NNZ_WORK_MAX

/* An entry a product of an undecided vertex puts on an edge between staying
 * vertices, and who made it. */
typedef struct {
    int32_t src, dst, row, col, owner;
} pent_t;

/* The edges of a graph sorted by (source, target): found by bisection. */
typedef struct {
    int32_t src, dst;
    int64_t k;
} ekey_t;

typedef struct {
    const jg_pshape_t *sh;
    int64_t n;
    jg_pwork_t w;
    jg_pg_t *lv;              /* the graph after the set of each depth */
    int64_t *fma, *lb;        /* jg__pg_costs of a node's graph */
    unsigned char *st;        /* per eliminable: 0 undecided, 1 eliminated, 2 kept */
    unsigned char *stay;      /* per vertex: staying at the node */
    int64_t *path, *best_path, best_n, depth_n;
    int64_t best, best_fma, g_fma;
    int64_t lower;            /* least bound of what was not searched */
    double t_end;
    int timeout;
    int64_t nodes;
    /* the bound's scratch */
    int64_t *kv, *xv, *deg;
    unsigned char *root_ref;  /* per eliminable: refused at the root (for good) */
    ekey_t *key;
    int64_t capkey;
    pent_t *ent;
    int64_t nent, capent;
    int32_t *mark, *rows;
    int64_t caprows;
} nb_t;

static int cmp_ent(const void *a, const void *b)
{
    const pent_t *x = a, *y = b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    return (x->owner > y->owner) - (x->owner < y->owner);
}

/* 1 when row r is in column c of edge E's pattern. */
static int has_entry(const jg_pg_t *pg, const jg_pedge_t *E, int32_t r, int32_t c)
{
    const int32_t *p = pg->pool + E->off, *i = p + E->n + 1;
    int32_t lo = p[c], hi = p[c + 1];
    while (lo < hi) {
        int32_t m = lo + (hi - lo) / 2;
        if (i[m] == r) return 1;
        if (i[m] < r) lo = m + 1;
        else hi = m;
    }
    return 0;
}

static int cmp_ekey(const void *a, const void *b)
{
    const ekey_t *x = a, *y = b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

/* The first key not below (a, b). */
static int64_t lower_key(const ekey_t *key, int64_t ne, int32_t a, int32_t b)
{
    int64_t lo = 0, hi = ne;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (key[m].src < a || (key[m].src == a && key[m].dst < b)) lo = m + 1;
        else hi = m;
    }
    return lo;
}

static int64_t find_edge(const ekey_t *key, int64_t ne, int32_t a, int32_t b)
{
    int64_t q = lower_key(key, ne, a, b);
    return q < ne && key[q].src == a && key[q].dst == b ? key[q].k : -1;
}

/* The node's bound (top of the file), k_v and x_v per undecided vertex into
 * b->kv, b->xv; -1 out of memory. */
static int nnz_bound(nb_t *b, const jg_pg_t *pg, int64_t *bound)
{
    const jg_pshape_t *sh = b->sh;
    int64_t A = sh->nnz_fixed;
    for (int64_t v = 0; v < sh->nv; v++) {
        int32_t l = sh->loc[v];
        b->stay[v] = l < 0 || b->st[l] == 2 || (b->st[l] == 0 && b->fma[l] < 0);
    }
    for (int64_t k = 0; k < b->n; k++) b->kv[k] = b->xv[k] = 0;
    b->nent = 0;
    for (int64_t k = 0; k < pg->ne; k++) {
        const jg_pedge_t *E = &pg->e[k];
        int ss = b->stay[E->src], sd = b->stay[E->dst];
        if (ss && sd) {
            A += E->nnz;
            continue;
        }
        /* an edge of an undecided vertex with a staying one, or its self-loop */
        if (E->src == E->dst || ss) b->kv[sh->loc[E->dst]] += E->nnz;
        else if (sd) b->kv[sh->loc[E->src]] += E->nnz;
    }
    if (JG__PGROW(b->key, b->capkey, pg->ne + 1)) return -1;
    for (int64_t k = 0; k < pg->ne; k++) b->key[k] = (ekey_t){pg->e[k].src, pg->e[k].dst, k};
    qsort(b->key, (size_t)pg->ne, sizeof(ekey_t), cmp_ekey);
    const ekey_t *key = b->key;
    int64_t ne = pg->ne;
    /* the products each undecided vertex would put between staying ones */
    for (int64_t q = 0; q < pg->ne; q++) {
        const jg_pedge_t *E = &pg->e[q];   /* in-edge y1 -> v */
        if (E->src == E->dst || !b->stay[E->src] || b->stay[E->dst]) continue;
        int32_t v = E->dst, wv = sh->width[v];
        int64_t lv = sh->loc[v];
        if (b->st[lv] != 0) continue;
        int64_t s = find_edge(key, ne, v, v);
        int dense = s >= 0 && !(wv > 1 && jg__pat_diagonal(pg->pool + pg->e[s].off, pg->e[s].n));
        const int32_t *ep = pg->pool + E->off, *ei = ep + E->n + 1;
        for (int64_t r = lower_key(key, ne, v, INT32_MIN); r < ne && key[r].src == v; r++) {
            const jg_pedge_t *F = &pg->e[key[r].k];   /* out-edge v -> y2 */
            if (F->dst == v || !b->stay[F->dst]) continue;
            const int32_t *fp = pg->pool + F->off, *fi = fp + F->n + 1;
            int64_t ex = find_edge(key, ne, E->src, F->dst);
            for (int32_t j = 0; j < E->n; j++) {
                if (ep[j] == ep[j + 1]) continue;
                int32_t nr = 0;
                if (JG__PGROW(b->rows, b->caprows, F->m + 1)) return -1;
                /* the rows of column j of K_f K^_e: K^_e's column is dense
                 * for a dense self-loop */
                int32_t kk0 = dense ? 0 : ep[j], kk1 = dense ? wv : ep[j + 1];
                for (int32_t kk = kk0; kk < kk1; kk++) {
                    int32_t k = dense ? kk : ei[kk];
                    for (int32_t t = fp[k]; t < fp[k + 1]; t++)
                        if (b->mark[fi[t]] != j) {
                            b->mark[fi[t]] = j;
                            b->rows[nr++] = fi[t];
                        }
                }
                for (int32_t t = 0; t < nr; t++) {
                    int32_t row = b->rows[t];
                    b->mark[row] = -1;
                    if (ex >= 0 && has_entry(pg, &pg->e[ex], row, j)) continue;
                    if (JG__PGROW(b->ent, b->capent, b->nent + 1)) return -1;
                    b->ent[b->nent++] = (pent_t){E->src, F->dst, row, j, (int32_t)lv};
                }
            }
        }
    }
    if (b->nent > 1) qsort(b->ent, (size_t)b->nent, sizeof(pent_t), cmp_ent);
    for (int64_t a = 0; a < b->nent;) {
        int64_t c = a + 1, owners = 1;
        while (c < b->nent && b->ent[c].src == b->ent[a].src && b->ent[c].dst == b->ent[a].dst &&
               b->ent[c].row == b->ent[a].row && b->ent[c].col == b->ent[a].col) {
            if (b->ent[c].owner != b->ent[c - 1].owner) owners++;
            c++;
        }
        if (owners == 1) b->xv[b->ent[a].owner]++;
        a = c;
    }
    int64_t sum = A;
    for (int64_t k = 0; k < b->n; k++)
        if (b->st[k] == 0 && b->fma[k] >= 0) sum += b->kv[k] < b->xv[k] ? b->kv[k] : b->xv[k];
    *bound = sum;
    return 0;
}

/* The set b->path[0..n) (nz nonzeros after it, fma its FMA) becomes the best
 * one when it has fewer nonzeros, or as many and less FMA. */
static void offer(nb_t *b, int64_t nz, int64_t fma, int64_t n)
{
    if (nz < b->best || (nz == b->best && fma < b->best_fma)) {
        b->best = nz;
        b->best_fma = fma;
        b->best_n = n;
        memcpy(b->best_path, b->path, sizeof(int64_t) * (size_t)n);
    }
}

/* The subtree of the node at depth d (graph b->lv[d]); 0, -1 out of memory.
 * *lo gets a lower bound of the sets of the subtree not searched (INT64_MAX
 * when all were searched or cut). */
static int search(nb_t *b, int64_t d, int64_t *lo)
{
    const jg_pshape_t *sh = b->sh;
    jg_pg_t *pg = &b->lv[d];
    *lo = INT64_MAX;
    b->nodes++;
    int64_t nz = jg__pg_nnz(sh, pg);
    offer(b, nz, b->g_fma, b->depth_n);
    if (jg__pg_costs(sh, pg, b->fma, b->lb, &b->w)) return -1;
    int64_t bound;
    if (nnz_bound(b, pg, &bound)) return -1;
    /* a vertex accepted at the root and refused now may go earlier in
     * another order: its sets are not searched here */
    for (int64_t k = 0; k < b->n; k++)
        if (b->st[k] == 0 && b->fma[k] < 0 && !b->root_ref[k] && bound < *lo) *lo = bound;
    if (bound >= b->best) return 0;
    if (b->timeout || jg__strat_now() > b->t_end) {
        b->timeout = 1;
        if (bound < *lo) *lo = bound;
        return 0;
    }
    /* a vertex jg__exact_forced finds is eliminated: keeping it leaves
     * nonzeros and saves nothing.  Otherwise branch on the undecided vertex
     * with the most at stake, eliminated first when that is not worse by the
     * bound's counts */
    int64_t pick = jg__exact_forced(sh, pg, b->st, b->deg), stake = -1;
    int only = pick >= 0;
    for (int64_t k = 0; k < b->n && !only; k++) {
        if (b->st[k] != 0 || b->fma[k] < 0) continue;
        int64_t s = b->kv[k] + b->xv[k];
        if (s > stake) {
            stake = s;
            pick = k;
        }
    }
    if (pick < 0) return 0;
    int elim_first = only || b->xv[pick] <= b->kv[pick];
    int64_t pf = b->fma[pick];
    for (int br = 0; br < 2 - only; br++) {
        int elim = br == 0 ? elim_first : !elim_first;
        int64_t sub = INT64_MAX;
        /* out of time: this node's bound covers the branch not taken */
        if (b->timeout || jg__strat_now() > b->t_end) {
            b->timeout = 1;
            if (bound < *lo) *lo = bound;
            break;
        }
        if (elim) {
            jg_pcost_t c;
            if (jg__pg_copy(&b->lv[d + 1], pg)) return -1;
            int r = jg__pg_eliminate(sh, &b->lv[d + 1], sh->elim[pick], &c, 0, &b->w);
            if (r < 0) return -1;
            if (r == 0) {
                b->st[pick] = 1;
                b->path[b->depth_n++] = sh->elim[pick];
                b->g_fma += pf;
                int rc = search(b, d + 1, &sub);
                b->g_fma -= pf;
                b->depth_n--;
                if (rc) return rc;
            }
        } else {
            b->st[pick] = 2;
            int rc = search(b, d, &sub);
            if (rc) return rc;
        }
        b->st[pick] = 0;
        if (sub < *lo) *lo = sub;
        /* the graph of this depth is unchanged by the kept branch, and a
         * child's elimination wrote only the next level */
    }
    return 0;
}

/* The first set to beat: markowitz-nnz by the engine on a scratch copy of g,
 * and a greedy on the pattern graph; into b->best and b->best_path.  -1 out of
 * memory. */
static int incumbent(nb_t *b, const jg_graph_t *g, const jg_pg_t *pg0)
{
    const jg_pshape_t *sh = b->sh;
    int rc = -1;
    jg_pg_t cur = {0}, trial = {0};
    jg_graph_t *sg = NULL;
    jg_graph_strategy_t *s = NULL;
    jg_error_t err;
    b->best = jg__pg_nnz(sh, pg0);
    b->best_fma = 0;
    b->best_n = 0;
    /* markowitz-nnz, replayed on the pattern graph (which mirrors it) */
    if (!jg_graph_strategy_parse("markowitz-nnz", &s, &err) && !jg__graph_scratch(g, &sg, &err) &&
        !jg__graph_eliminate_strategy(sg, s, NULL, &err)) {
        const int64_t *o;
        int64_t no = jg_graph_order(sg, &o), k = 0, f = 0;
        if (jg__pg_copy(&cur, pg0)) goto done;
        for (int64_t q = 0; q < no; q++) {
            jg_pcost_t c;
            int r = jg__pg_eliminate(sh, &cur, o[q], &c, 0, &b->w);
            if (r < 0) goto done;
            if (r > 0) continue;
            b->path[k++] = o[q];
            f += c.fma;
        }
        int64_t nz = jg__pg_nnz(sh, &cur);
        offer(b, nz, f, k);
    }
    /* the greedy: n trial eliminations a step, while the work is modest */
    if ((double)b->n * (double)b->n * (double)(pg0->ne + 1) <= 2e7) {
        unsigned char *done = calloc((size_t)b->n + 1, 1);
        int64_t k = 0, f = 0;
        if (!done || jg__pg_copy(&cur, pg0)) {
            free(done);
            goto done;
        }
        for (;;) {
            int64_t nz0 = jg__pg_nnz(sh, &cur), pick = -1, pnz = nz0, pf = 0;
            for (int64_t v = 0; v < b->n; v++) {
                if (done[v]) continue;
                jg_pcost_t c;
                if (jg__pg_copy(&trial, &cur)) {
                    free(done);
                    goto done;
                }
                int r = jg__pg_eliminate(sh, &trial, sh->elim[v], &c, 0, &b->w);
                if (r < 0) {
                    free(done);
                    goto done;
                }
                int64_t nz = jg__pg_nnz(sh, &trial);
                if (r == 0 && (nz < pnz || (nz == pnz && pick >= 0 && c.fma < pf))) {
                    pick = v;
                    pnz = nz;
                    pf = c.fma;
                }
            }
            if (pick < 0) break;
            if (jg__pg_eliminate(sh, &cur, sh->elim[pick], NULL, 0, &b->w) < 0) {
                free(done);
                goto done;
            }
            done[pick] = 1;
            b->path[k++] = sh->elim[pick];
            f += pf;
        }
        free(done);
        int64_t nz = jg__pg_nnz(sh, &cur);
        offer(b, nz, f, k);
    }
    rc = 0;
done:
    jg__pg_free(&cur);
    jg__pg_free(&trial);
    jg_graph_free(sg);
    jg_graph_strategy_free(s);
    return rc;
}

jg_status_t jg__exact_nnz_bb(const jg_graph_t *g, const jg_pshape_t *sh, const jg_pg_t *pg0,
                             double seconds, jg_exact_result_t *res, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    int64_t n = sh->nelim;
    nb_t b = {.sh = sh, .n = n};
    int wok = 0;
    memset(res, 0, sizeof *res);
    if ((double)n * (double)(pg0->ne + 1) > NNZ_WORK_MAX)
        return jg_error_set(err, JG_ARG,
                            "exact:nnz:bb: %lld eliminable vertices on a graph of %lld edges: too large "
                            "for the search (vertices x edges above %.0e)",
                            (long long)n, (long long)pg0->ne, NNZ_WORK_MAX);
    b.t_end = jg__strat_now() + seconds;
    b.lv = calloc((size_t)n + 2, sizeof *b.lv);
    b.fma = malloc(sizeof(int64_t) * (size_t)(n + 1));
    b.lb = malloc(sizeof(int64_t) * (size_t)(n + 1));
    b.st = calloc((size_t)n + 1, 1);
    b.root_ref = calloc((size_t)n + 1, 1);
    b.stay = malloc((size_t)sh->nv + 1);
    b.path = malloc(sizeof(int64_t) * (size_t)(n + 1));
    b.best_path = malloc(sizeof(int64_t) * (size_t)(n + 1));
    b.kv = malloc(sizeof(int64_t) * (size_t)(n + 1));
    b.xv = malloc(sizeof(int64_t) * (size_t)(n + 1));
    b.deg = malloc(sizeof(int64_t) * (size_t)(4 * n + 1));
    b.mark = malloc(sizeof(int32_t) * (size_t)(sh->maxw + 1));
    wok = !jg__pwork_init(&b.w, sh);
    if (!b.lv || !b.fma || !b.lb || !b.st || !b.stay || !b.path || !b.best_path || !b.kv || !b.xv || !b.deg ||
        !b.root_ref || !b.mark || !wok || jg__pg_copy(&b.lv[0], pg0))
        goto nomem;
    for (int32_t i = 0; i <= sh->maxw; i++) b.mark[i] = -1;
    if (incumbent(&b, g, pg0) || jg__pg_costs(sh, pg0, b.fma, NULL, &b.w)) goto nomem;
    for (int64_t k = 0; k < n; k++) b.root_ref[k] = b.fma[k] < 0;
    int64_t lo = INT64_MAX;
    if (search(&b, 0, &lo)) goto nomem;
    res->value = b.best;
    res->lower = lo < b.best ? lo : b.best;
    res->optimal = res->lower >= b.best;
    res->n = b.best_n;
    res->order = malloc(sizeof(int64_t) * (size_t)(b.best_n + 1));
    if (!res->order) goto nomem;
    memcpy(res->order, b.best_path, sizeof(int64_t) * (size_t)b.best_n);
    /* the fewest FMA that eliminates exactly that set */
    if (b.best_n > 0 && b.best_n <= JG__EXACT_MAX) {
        int64_t *sel = b.kv;   /* scratch: indices into sh->elim */
        for (int64_t q = 0; q < b.best_n; q++) sel[q] = sh->loc[b.best_path[q]];
        int64_t f = jg__exact_dp_subset(sh, pg0, sel, (int)b.best_n, res->order);
        if (f == -1) goto nomem;
    }
    goto done;
nomem:
    free(res->order);
    memset(res, 0, sizeof *res);
    st = jg_error_set(err, JG_NOMEM, "exact:nnz:bb: out of memory in the search over %lld vertices",
                      (long long)n);
done:
    if (b.lv)
        for (int64_t k = 0; k <= n + 1; k++) jg__pg_free(&b.lv[k]);
    free(b.lv);
    free(b.fma);
    free(b.lb);
    free(b.st);
    free(b.stay);
    free(b.path);
    free(b.best_path);
    free(b.kv);
    free(b.xv);
    free(b.deg);
    free(b.ent);
    free(b.key);
    free(b.root_ref);
    free(b.mark);
    free(b.rows);
    if (wok) jg__pwork_free(&b.w);
    return st;
}
