/* Vertex elimination on patterns (Han, Mosterman & Zhang, Def. 3 and
 * Fig. 5), one vertex at a time, with its cost counted; the strategies that
 * choose the vertices are strategy.c and strat_*.c.
 *
 * Eliminating v adds, for every pair e -> v -> f, the edge e -> f with matrix
 * Kf (I - Dv)^-1 Ke, summed into an existing e -> f (Def. 2); Dv is v's
 * self-loop.  Everything here works on patterns and records the numeric work
 * as a tape (graph_impl.h) that jg__graph_replay executes per operating point.
 *
 * Given the operating point's block Jacobians, the elimination is also
 * numeric: every operation is executed as it is recorded, and a vertex whose
 * pivot block I - Dv is ill-conditioned as a pivot (jg__graph_pivot above
 * JG__GRAPH_PIVOT_COND_MAX, singular included) is not eliminated now.  It is
 * tried again when a neighbor's elimination changes its self-loop (v1 = v1 +
 * v2 with v2 = v1 + u: eliminating v2 turns v1's pivot 1 - 1 into 1 - 2), and
 * what stays is solved by the LFT's pivoted LU.  Without values (the solver
 * Jacobian's pattern) the order is the purely structural one.
 *
 * A vector vertex's pivot block costs what its pattern does: a diagonal Dv
 * (elementwise blocks) gives a diagonal (I - Dv)^-1 and scaled edges with
 * their own patterns; a dense inverse is built only up to width
 * JG__GRAPH_DENSE_PIVOT_MAX, and a wider non-diagonal vertex is left to the
 * LFT like an ill-conditioned one.
 */
#include <stdlib.h>
#include <string.h>
#include "strategy_impl.h"

/* Growable int64 buffer for pattern work. */
typedef struct {
    int64_t *a;
    int64_t n, cap;
} buf_t;

static int buf_reserve(buf_t *b, int64_t n)
{
    if (n <= b->cap) return 0;
    int64_t cap = b->cap ? b->cap : 64;
    while (cap < n) cap *= 2;
    int64_t *na = realloc(b->a, sizeof(int64_t) * (size_t)cap);
    if (!na) return -1;
    b->a = na;
    b->cap = cap;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct {
    buf_t colp, rowi, tmp;
} pat_t;

/* Pattern of A*B into pt->colp / pt->rowi (rows sorted), and *phi the
 * multiply-adds of the product (sum over B's entries (k, j) of |A(:, k)|).
 * mark[] has length >= rows of A and holds -1 on entry and exit. */
static int pattern_mult(const jg_gmat_t *A, const jg_gmat_t *B, int64_t *mark, pat_t *pt,
                        int64_t *phi)
{
    if (buf_reserve(&pt->colp, B->n + 1)) return -1;
    const int64_t *Ai = jg__gmat_i(A), *Bi = jg__gmat_i(B);
    int64_t nz = 0, f = 0;
    for (int64_t j = 0; j < B->n; j++) {
        pt->colp.a[j] = nz;
        int64_t start = nz;
        for (int64_t kk = B->p[j]; kk < B->p[j + 1]; kk++) {
            int64_t k = Bi[kk];
            f += A->p[k + 1] - A->p[k];
            for (int64_t ii = A->p[k]; ii < A->p[k + 1]; ii++) {
                int64_t i = Ai[ii];
                if (mark[i] == j) continue;
                mark[i] = j;
                if (buf_reserve(&pt->rowi, nz + 1)) return -1;
                pt->rowi.a[nz++] = i;
            }
        }
        for (int64_t k = start; k < nz; k++) mark[pt->rowi.a[k]] = -1;
        if (nz - start > 16) {
            qsort(pt->rowi.a + start, (size_t)(nz - start), sizeof(int64_t), cmp_i64);
        } else {   /* a few rows (vertex widths are small): insertion, no calls */
            int64_t *r = pt->rowi.a;
            for (int64_t a = start + 1; a < nz; a++) {
                int64_t x = r[a], b = a;
                for (; b > start && r[b - 1] > x; b--) r[b] = r[b - 1];
                r[b] = x;
            }
        }
    }
    pt->colp.a[B->n] = nz;
    *phi = f;
    return 0;
}

/* Is pattern (colp, rowi) contained in C? */
static int pattern_subset(const int64_t *colp, const int64_t *rowi, const jg_gmat_t *C)
{
    const int64_t *Ci = jg__gmat_i(C);
    for (int64_t j = 0; j < C->n; j++) {
        int64_t c = C->p[j];
        for (int64_t k = colp[j]; k < colp[j + 1]; k++) {
            while (c < C->p[j + 1] && Ci[c] < rowi[k]) c++;
            if (c == C->p[j + 1] || Ci[c] != rowi[k]) return 0;
        }
    }
    return 1;
}

/* Union of pattern (colp, rowi) and C into pt->tmp. */
static int pattern_union(pat_t *pt, const int64_t *colp, const int64_t *rowi, const jg_gmat_t *C,
                         int64_t **ucolp, int64_t **urowi)
{
    int64_t n = C->n;
    if (buf_reserve(&pt->tmp, n + 1 + colp[n] + jg__nnz(C))) return -1;
    int64_t *uc = pt->tmp.a, *ur = pt->tmp.a + n + 1, nz = 0;
    const int64_t *Ci = jg__gmat_i(C);
    for (int64_t j = 0; j < n; j++) {
        uc[j] = nz;
        int64_t a = colp[j], b = C->p[j];
        while (a < colp[j + 1] || b < C->p[j + 1]) {
            int64_t ra = a < colp[j + 1] ? rowi[a] : INT64_MAX;
            int64_t rb = b < C->p[j + 1] ? Ci[b] : INT64_MAX;
            int64_t r = ra < rb ? ra : rb;
            if (ra == r) a++;
            if (rb == r) b++;
            ur[nz++] = r;
        }
    }
    uc[n] = nz;
    *ucolp = uc;
    *urowi = ur;
    return 0;
}

/* Size of the union of pattern (colp, rowi) and C. */
static int64_t pattern_union_nnz(const int64_t *colp, const int64_t *rowi, const jg_gmat_t *C)
{
    const int64_t *Ci = jg__gmat_i(C);
    int64_t nz = 0;
    for (int64_t j = 0; j < C->n; j++) {
        int64_t a = colp[j], b = C->p[j];
        while (a < colp[j + 1] || b < C->p[j + 1]) {
            int64_t ra = a < colp[j + 1] ? rowi[a] : INT64_MAX;
            int64_t rb = b < C->p[j + 1] ? Ci[b] : INT64_MAX;
            int64_t r = ra < rb ? ra : rb;
            if (ra == r) a++;
            if (rb == r) b++;
            nz++;
        }
    }
    return nz;
}

static void list_remove(int32_t *arr, int32_t *n, int64_t id)
{
    for (int32_t k = 0; k < *n; k++)
        if (arr[k] == id) {
            arr[k] = arr[--(*n)];
            return;
        }
}

/* The numeric side of an elimination: whether to execute the tape as it is
 * recorded, and a dense scratch for trying a pivot block. */
typedef struct {
    int on;
    double *s;
    int64_t cap;
} num_t;

/* The scratch of the elimination in progress (g->el). */
/* A product's pattern, remembered: patterns are interned (jg__gmat_pattern),
 * so the pattern of A*B and its multiply-adds depend on the two pattern
 * pointers only, and the few shapes of a large graph repeat. */
typedef struct {
    const int64_t *pa, *pb, *q;   /* q: the product's interned pattern */
    int64_t phi;
} pmemo_t;

struct jg_elim {
    pat_t pt;
    buf_t kin, nb, hat;
    num_t nm;
    int64_t maxdense;   /* widest dense pivot recorded (the replay's inverse workspace) */
    pmemo_t *memo;      /* open addressing, at most half full */
    int64_t nmemo, capmemo;
};

static struct jg_elim *elim_get(jg_graph_t *g)
{
    if (!g->el) g->el = calloc(1, sizeof *g->el);
    return g->el;
}

void jg__elim_free(jg_graph_t *g)
{
    struct jg_elim *e = g->el;
    if (!e) return;
    free(e->pt.colp.a);
    free(e->pt.rowi.a);
    free(e->pt.tmp.a);
    free(e->kin.a);
    free(e->nb.a);
    free(e->hat.a);
    free(e->nm.s);
    free(e->memo);
    free(e);
    g->el = NULL;
}

/* Record operation (code, a, b, c) and, in a numeric elimination, execute it. */
static int push(jg_graph_t *g, const num_t *nm, jg_opcode_t code, int64_t a, int64_t b, int64_t c)
{
    if (jg__gop_push(g, code, a, b, c)) return -1;
    if (nm->on) jg__gop_exec(g, g->ops_n - 1);
    return 0;
}

/* 1 when v's pivot block is acceptable now, 0 when it must wait, -1 when
 * out of memory.  Without values every pivot is acceptable but a dense one
 * wider than JG__GRAPH_DENSE_PIVOT_MAX, which is never eliminated: its
 * inverse would cost w^2 and fill the scaled edges, where the LFT's sparse
 * LU keeps the loop's own sparsity.  A diagonal pivot (elementwise blocks)
 * costs w whatever its width. */
static int pivot_ok(jg_graph_t *g, int64_t v, num_t *nm)
{
    const jg_gvert_t *V = &g->v[v];
    if (V->self < 0 || !g->e[V->self].alive) return 1;
    int64_t n = V->width, dmat = g->e[V->self].mat;
    int diag = n > 1 && jg__gmat_diagonal(g, dmat);
    if (!diag && n > JG__GRAPH_DENSE_PIVOT_MAX) return 0;
    if (!nm->on) return 1;
    int64_t need = diag ? n : n * n;
    if (need > nm->cap) {
        double *s = realloc(nm->s, sizeof(double) * (size_t)need);
        if (!s) return -1;
        nm->s = s;
        nm->cap = need;
    }
    double c = diag ? jg__graph_pivot_diag(g, dmat, n, nm->s) : jg__graph_pivot(g, dmat, n, nm->s);
    return c <= JG__GRAPH_PIVOT_COND_MAX;
}

/* The pattern of a product with a connection identity: the other factor's
 * (identity times X is X), copied into pt (g->mat may move). */
static int pattern_copy(const jg_gmat_t *X, pat_t *pt)
{
    int64_t nz = jg__nnz(X);
    if (buf_reserve(&pt->colp, X->n + 1) || buf_reserve(&pt->rowi, nz ? nz : 1)) return -1;
    memcpy(pt->colp.a, X->p, sizeof(int64_t) * (size_t)(X->n + 1));
    memcpy(pt->rowi.a, jg__gmat_i(X), sizeof(int64_t) * (size_t)nz);
    return 0;
}

static int64_t edge_nnz(const jg_graph_t *g, int64_t e) { return jg__nnz(&g->mat[g->e[e].mat]); }

static int64_t memo_slot(const pmemo_t *t, int64_t cap, const int64_t *pa, const int64_t *pb)
{
    uint64_t h = (uint64_t)(uintptr_t)pa * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)pb * 0xc2b2ae3d27d4eb4full;
    int64_t k = (int64_t)((h ^ (h >> 31)) & (uint64_t)(cap - 1));
    while (t[k].pa && (t[k].pa != pa || t[k].pb != pb)) k = (k + 1) & (cap - 1);
    return k;
}

/* The interned pattern of A*B (neither an identity) and its multiply-adds
 * (pattern_mult's); NULL when out of memory. */
static const int64_t *product_pattern(jg_graph_t *g, struct jg_elim *el, const jg_gmat_t *A,
                                      const jg_gmat_t *B, int64_t *phi)
{
    if (2 * (el->nmemo + 1) > el->capmemo) {
        int64_t cap = el->capmemo ? 2 * el->capmemo : 256;
        pmemo_t *t = calloc((size_t)cap, sizeof *t);
        if (!t) return NULL;
        for (int64_t k = 0; k < el->capmemo; k++)
            if (el->memo[k].pa) t[memo_slot(t, cap, el->memo[k].pa, el->memo[k].pb)] = el->memo[k];
        free(el->memo);
        el->memo = t;
        el->capmemo = cap;
    }
    int64_t k = memo_slot(el->memo, el->capmemo, A->p, B->p);
    if (el->memo[k].pa) {
        *phi = el->memo[k].phi;
        return el->memo[k].q;
    }
    pat_t *pt = &el->pt;
    if (pattern_mult(A, B, g->ws_mark, pt, phi)) return NULL;
    const int64_t *q = jg__gmat_pattern(g, A->m, B->n, pt->colp.a, pt->rowi.a);
    if (!q) return NULL;
    el->memo[k] = (pmemo_t){A->p, B->p, q, *phi};
    el->nmemo++;
    return q;
}

/* Eliminate vertex v: record the numeric operations, count the cost into c
 * (the model of jacgraph/graph.h) and rewire the graph. */
static jg_status_t eliminate_vertex(jg_graph_t *g, int64_t v, struct jg_elim *el, jg_vcost_t *c)
{
    pat_t *pt = &el->pt;
    buf_t *kin = &el->kin;
    const num_t *nm = &el->nm;
    jg_gvert_t *V = &g->v[v];
    int64_t wv = V->width, S = -1, tmp = 0, live0 = g->live_nnz;
    int diag = 0;
    *c = (jg_vcost_t){0};
    if (V->self >= 0 && g->e[V->self].alive) {
        int64_t D = g->e[V->self].mat;
        /* S = (I - Dv)^-1: diagonal when Dv is (a vector's elementwise loop,
         * w values and no fill), else dense (w <= JG__GRAPH_DENSE_PIVOT_MAX,
         * pivot_ok); a scalar takes the dense path, whose 1 x 1 is the same */
        diag = wv > 1 && jg__gmat_diagonal(g, D);
        int64_t nz = diag ? wv : wv * wv;
        if (buf_reserve(&pt->colp, wv + 1) || buf_reserve(&pt->rowi, nz)) return JG_NOMEM;
        for (int64_t j = 0; j <= wv; j++) pt->colp.a[j] = diag ? j : j * wv;
        for (int64_t k = 0; k < nz; k++) pt->rowi.a[k] = diag ? k : k % wv;
        S = jg__gmat_new(g, wv, wv, pt->colp.a, pt->rowi.a);
        if (S < 0 || push(g, nm, diag ? OP_INVD : OP_INV, D, v, S)) return JG_NOMEM;
        c->inv = diag ? wv : wv * wv * wv;
        tmp += nz;
        if (!diag && wv > el->maxdense) el->maxdense = wv;
    }
    /* effective in-matrices: Ke, or S*Ke: Ke's pattern for a diagonal S,
     * else full columns where Ke has entries */
    if (buf_reserve(kin, V->nin)) return JG_NOMEM;
    for (int32_t k = 0; k < V->nin; k++) {
        int64_t m = g->e[V->in[k]].mat;
        if (diag) {
            /* Ke's own (interned) pattern */
            int64_t T = jg__gmat_new_pat(g, wv, g->mat[m].n, g->mat[m].p);
            if (T < 0 || push(g, nm, OP_SCALED, S, m, T)) return JG_NOMEM;
            c->scale += jg__nnz(&g->mat[m]);
            tmp += jg__nnz(&g->mat[T]);
            m = T;
        } else if (S >= 0) {
            const jg_gmat_t *Ke = &g->mat[m];
            if (buf_reserve(&pt->colp, Ke->n + 1) || buf_reserve(&pt->rowi, wv * Ke->n))
                return JG_NOMEM;
            int64_t nz = 0;
            for (int64_t j = 0; j < Ke->n; j++) {
                pt->colp.a[j] = nz;
                if (Ke->p[j + 1] > Ke->p[j])
                    for (int64_t i = 0; i < wv; i++) pt->rowi.a[nz++] = i;
            }
            pt->colp.a[Ke->n] = nz;
            c->scale += wv * jg__nnz(Ke);
            int64_t T = jg__gmat_new(g, wv, Ke->n, pt->colp.a, pt->rowi.a);
            if (T < 0 || push(g, nm, OP_SCALE, S, m, T)) return JG_NOMEM;
            tmp += nz;
            m = T;
        }
        kin->a[k] = m;
    }
    for (int32_t o = 0; o < V->nout; o++) {
        int64_t fe = V->out[o], f = g->e[fe].dst, Kf = g->e[fe].mat;
        for (int32_t k = 0; k < V->nin; k++) {
            int64_t e = g->e[V->in[k]].src, Ke = kin->a[k], phi = 0;
            /* g->mat may move when matrices are added: keep sizes and the
             * (interned, fixed) patterns, not pointers into it */
            const jg_gmat_t *A = &g->mat[Kf], *B = &g->mat[Ke];
            int64_t am = A->m, bn = B->n;
            int ia = A->ident, ib = B->ident;
            const int64_t *q;   /* the product's pattern: q[0..bn], rows from q + bn + 1 */
            if (ia || ib) {
                /* a connection identity: the product is the other factor,
                 * copied, not multiplied (phi = 0) */
                q = (ia ? B : A)->p;
            } else if (!(q = product_pattern(g, el, A, B, &phi))) {
                return JG_NOMEM;
            }
            int64_t pnz = q[bn];
            if (pnz == 0) continue;   /* structurally zero product */
            int64_t ex = jg__gedge_find(g, e, f), C;
            if (ex < 0) {
                C = jg__gmat_new_pat(g, am, bn, q);
                if (C < 0 || jg__gedge_add(g, e, f, C) < 0) return JG_NOMEM;
                g->mat[C].ident = ia && ib;   /* I * I into a new edge: I */
                g->live_nnz += pnz;
                c->fill_edges++;
            } else {
                C = g->e[ex].mat;
                c->adds += pnz;
                if (g->mat[C].p != q && !pattern_subset(q, q + bn + 1, &g->mat[C])) {
                    int64_t *uc, *ur, old = jg__nnz(&g->mat[C]);
                    if (pattern_union(pt, q, q + bn + 1, &g->mat[C], &uc, &ur)) return JG_NOMEM;
                    int64_t C2 = jg__gmat_new(g, am, bn, uc, ur);
                    if (C2 < 0 || push(g, nm, OP_EXPAND, C, -1, C2)) return JG_NOMEM;
                    g->e[ex].mat = C = C2;
                    g->live_nnz += jg__nnz(&g->mat[C2]) - old;
                }
                g->mat[C].ident = 0;   /* a sum is no identity */
            }
            if (ia || ib) {
                if (push(g, nm, OP_ADD, ia ? Ke : Kf, -1, C)) return JG_NOMEM;
            } else {
                if (push(g, nm, OP_MULADD, Kf, Ke, C)) return JG_NOMEM;
                c->prod += phi;
            }
        }
    }
    /* the peak: v's edges, the new products and the temporaries S, S K_e
     * are all alive at this point */
    if (g->live_nnz + tmp > g->cost.peak_nnz) g->cost.peak_nnz = g->live_nnz + tmp;
    /* remove v and its edges */
    for (int32_t k = 0; k < V->nin; k++) {
        jg_gedge_t *E = &g->e[V->in[k]];
        jg_gvert_t *s = &g->v[E->src];
        g->live_nnz -= edge_nnz(g, V->in[k]);
        list_remove(s->out, &s->nout, V->in[k]);
        E->alive = 0;
    }
    for (int32_t o = 0; o < V->nout; o++) {
        jg_gedge_t *E = &g->e[V->out[o]];
        jg_gvert_t *d = &g->v[E->dst];
        g->live_nnz -= edge_nnz(g, V->out[o]);
        list_remove(d->in, &d->nin, V->out[o]);
        E->alive = 0;
    }
    if (V->self >= 0 && g->e[V->self].alive) {
        g->live_nnz -= edge_nnz(g, V->self);
        g->e[V->self].alive = 0;
    }
    V->self = -1;
    jg__gvert_release(g, v);
    V->alive = 0;
    g->st.eliminated++;
    c->fma = c->inv + c->scale + c->prod;
    c->delta_nnz = g->live_nnz - live0;
    jg_graph_cost_t *gc = &g->cost;
    gc->eliminated++;
    gc->fma_inv += c->inv;
    gc->fma_scale += c->scale;
    gc->fma_prod += c->prod;
    gc->fma += c->fma;
    gc->adds += c->adds;
    g->order[g->norder++] = v;
    return JG_OK;
}

int jg__gvert_eligible(const jg_graph_t *g, const jg_gvert_t *V)
{
    if (V->kind != JG_V_INPUT && V->kind != JG_V_OUTPUT) return 0;
    return !(V->kind == JG_V_OUTPUT && V->block >= 0 &&
             (g->prog->blocks[V->block].type->flags & JG_BT_SELFLOOP));
}

int64_t jg__graph_live_nnz(const jg_graph_t *g)
{
    int64_t n = 0;
    for (int64_t k = 0; k < g->ne; k++)
        if (g->e[k].alive) n += edge_nnz(g, k);
    return n;
}

jg_status_t jg__strat_vcost(jg_strat_run_t *r, int64_t v, jg_vcost_t *c)
{
    jg_graph_t *g = r->g;
    struct jg_elim *el = elim_get(g);
    if (!el) return JG_NOMEM;
    pat_t *pt = &el->pt;
    buf_t *hat = &el->hat;
    const jg_gvert_t *V = &g->v[v];
    int64_t wv = V->width;
    int S = 0, diag = 0;
    *c = (jg_vcost_t){0};
    if (V->self >= 0 && g->e[V->self].alive) {
        S = 1;
        diag = wv > 1 && jg__gmat_diagonal(g, g->e[V->self].mat);
        c->inv = diag ? wv : wv * wv * wv;
        c->delta_nnz -= edge_nnz(g, V->self);
    }
    for (int32_t k = 0; k < V->nin; k++) {
        const jg_gmat_t *Ke = &g->mat[g->e[V->in[k]].mat];
        jg_gmat_t B = *Ke;   /* K^_e: Ke, or the dense columns of S Ke */
        c->delta_nnz -= jg__nnz(Ke);
        if (S) {
            c->scale += diag ? jg__nnz(Ke) : wv * jg__nnz(Ke);
            B.ident = 0;
            if (!diag) {
                if (buf_reserve(hat, Ke->n + 1 + wv * Ke->n + 1)) return JG_NOMEM;
                int64_t *hp = hat->a, *hi = hat->a + Ke->n + 1, nz = 0;
                for (int64_t j = 0; j < Ke->n; j++) {
                    hp[j] = nz;
                    if (Ke->p[j + 1] > Ke->p[j])
                        for (int64_t i = 0; i < wv; i++) hi[nz++] = i;
                }
                hp[Ke->n] = nz;
                B.m = wv;
                B.p = hp;
                /* its rows hi follow hp[0..n] (jg__gmat_i) */
            }
        }
        int64_t e = g->e[V->in[k]].src;
        for (int32_t o = 0; o < V->nout; o++) {
            const jg_gmat_t *A = &g->mat[g->e[V->out[o]].mat];
            int64_t phi = 0, f = g->e[V->out[o]].dst;
            if (A->ident || B.ident) {
                if (pattern_copy(A->ident ? &B : A, pt)) return JG_NOMEM;
            } else if (pattern_mult(A, &B, g->ws_mark, pt, &phi)) {
                return JG_NOMEM;
            }
            int64_t pnz = pt->colp.a[B.n];
            if (pnz == 0) continue;
            c->prod += phi;
            int64_t ex = jg__gedge_find(g, e, f);
            if (ex < 0) {
                c->fill_edges++;
                c->delta_nnz += pnz;
            } else {
                const jg_gmat_t *C = &g->mat[g->e[ex].mat];
                c->adds += pnz;
                c->delta_nnz += pattern_union_nnz(pt->colp.a, pt->rowi.a, C) - jg__nnz(C);
            }
        }
    }
    for (int32_t o = 0; o < V->nout; o++) c->delta_nnz -= edge_nnz(g, V->out[o]);
    c->fma = c->inv + c->scale + c->prod;
    return JG_OK;
}

/* ---- the elimination of a run, one vertex at a time (strategy.c) */

jg_status_t jg__elim_begin(jg_graph_t *g, const jg_eval_work_t *w)
{
    struct jg_elim *el = elim_get(g);
    free(g->order);
    g->order = malloc(sizeof(int64_t) * (size_t)(g->nv + 1));
    if (!el || !g->order) return JG_NOMEM;
    el->nm.on = w != NULL;
    if (w) jg__graph_load(g, w);
    g->norder = 0;
    g->cost = (jg_graph_cost_t){.bound = -1};
    g->live_nnz = g->cost.nnz_before = g->cost.peak_nnz = jg__graph_live_nnz(g);
    return JG_OK;
}

int jg__elim_pivot_ok(jg_graph_t *g, int64_t v)
{
    struct jg_elim *el = elim_get(g);
    return el ? pivot_ok(g, v, &el->nm) : -1;
}

jg_status_t jg__elim_vertex(jg_graph_t *g, int64_t v, const int64_t **nb, int64_t *nnb)
{
    struct jg_elim *el = elim_get(g);
    if (!el) return JG_NOMEM;
    const jg_gvert_t *V = &g->v[v];
    buf_t *b = &el->nb;
    b->n = 0;
    if (buf_reserve(b, (int64_t)V->nin + V->nout + 1)) return JG_NOMEM;
    for (int32_t k = 0; k < V->nin; k++) b->a[b->n++] = g->e[V->in[k]].src;
    for (int32_t k = 0; k < V->nout; k++) b->a[b->n++] = g->e[V->out[k]].dst;
    jg_vcost_t c;
    jg_status_t st = eliminate_vertex(g, v, el, &c);
    if (nb) *nb = b->a;
    if (nnb) *nnb = b->n;
    return st;
}

jg_status_t jg__elim_end(jg_graph_t *g, jg_status_t st, jg_error_t *err)
{
    struct jg_elim *el = g->el;
    int on = el && el->nm.on;
    if (st == JG_NOMEM) jg_error_set(err, st, "out of memory while eliminating vertices");
    if (!st) {
        jg_graph_count(g, &g->st.v_after, &g->st.e_after);
        free(g->live);   /* the surviving edges, for every later extraction */
        g->live = malloc(sizeof(int64_t) * (size_t)(g->st.e_after + 1));
        g->nlive = 0;
        if (!g->live) {
            st = jg_error_set(err, JG_NOMEM, "out of memory");
        } else {
            for (int64_t k = 0; k < g->ne; k++)
                if (g->e[k].alive) g->live[g->nlive++] = k;
        }
    }
    if (!st && el && el->maxdense > g->inv_cap) {
        /* the replay's dense inverses use this workspace: no allocation there */
        if (jg__graph_inverse_reserve(g, el->maxdense))
            st = jg_error_set(err, JG_NOMEM, "out of memory");
    }
    if (!st) {
        g->st.ops = g->ops_n;
        /* a numeric elimination leaves the values of a replay at w */
        g->replayed = on;
        if (on)
            for (int64_t v = 0; v < g->nv; v++)
                if (jg__strat_eliminable(g, v) && g->v[v].self >= 0 && g->e[g->v[v].self].alive)
                    g->st.refused += pivot_ok(g, v, &el->nm) == 0;
        g->st.bytes_graph = g->arena.used + sizeof(jg_gvert_t) * (size_t)g->nv +
                            sizeof(jg_gedge_t) * (size_t)g->ne + sizeof(jg_gmat_t) * (size_t)g->nmat +
                            sizeof(double) * (size_t)g->nx + sizeof(jg_gop_t) * (size_t)g->ops_n;
        jg_graph_cost_t *c = &g->cost;
        c->v_after = g->st.v_after;
        c->e_after = g->st.e_after;
        c->nnz_after = g->live_nnz;
        c->bytes = g->st.bytes_graph;
    }
    jg__elim_free(g);
    return st;
}

/* ---- structural trial eliminations (exact, anneal) */

jg_status_t jg__graph_scratch(const jg_graph_t *g, jg_graph_t **out, jg_error_t *err)
{
    jg_status_t st = jg__graph_build(g->prog, g->io, out, err);
    if (!st && jg__elim_begin(*out, NULL)) {
        jg_graph_free(*out);
        *out = NULL;
        st = jg_error_set(err, JG_NOMEM, "out of memory");
    }
    return st;
}

jg_status_t jg__graph_eliminate_one(jg_graph_t *g, int64_t v, jg_vcost_t *c, jg_error_t *err)
{
    struct jg_elim *el = elim_get(g);
    jg_vcost_t c0;
    if (!el) return jg_error_set(err, JG_NOMEM, "out of memory");
    if (!g->order && jg__elim_begin(g, NULL)) return jg_error_set(err, JG_NOMEM, "out of memory");
    if (!jg__strat_eliminable(g, v))
        return jg_error_set(err, JG_ARG, "vertex %lld is not eliminable", (long long)v);
    int ok = pivot_ok(g, v, &el->nm);
    if (ok < 0) return jg_error_set(err, JG_NOMEM, "out of memory");
    if (!ok)
        return jg_error_set(err, JG_ARG, "vertex %lld: its pivot block is not diagonal and wider than %d",
                            (long long)v, JG__GRAPH_DENSE_PIVOT_MAX);
    jg_status_t st = eliminate_vertex(g, v, el, c ? c : &c0);
    if (st) return jg_error_set(err, st, "out of memory while eliminating vertices");
    g->cost.nnz_after = g->live_nnz;
    return JG_OK;
}

jg_status_t jg__graph_eliminate(jg_graph_t *g, jg_graph_reduce_t how, const jg_eval_work_t *w,
                                jg_error_t *err)
{
    jg_graph_strategy_t *s = jg_graph_strategy_from_reduce(how);
    if (!s) return jg_error_set(err, JG_NOMEM, "out of memory");
    jg_status_t st = jg__graph_eliminate_strategy(g, s, w, err);
    jg_graph_strategy_free(s);
    return st;
}
