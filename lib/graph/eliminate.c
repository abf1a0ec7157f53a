/* Vertex elimination on patterns (Han, Mosterman & Zhang, Def. 3 and
 * Fig. 5) and the orderings that choose which algebraic vertices to
 * eliminate.
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
#include "graph_impl.h"

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

/* Pattern of A*B into pt->colp / pt->rowi (rows sorted).  mark[] has length
 * >= rows of A and holds -1 on entry and exit. */
static int pattern_mult(const jg_gmat_t *A, const jg_gmat_t *B, int64_t *mark, pat_t *pt)
{
    if (buf_reserve(&pt->colp, B->n + 1)) return -1;
    int64_t nz = 0;
    for (int64_t j = 0; j < B->n; j++) {
        pt->colp.a[j] = nz;
        int64_t start = nz;
        for (int64_t kk = B->p[j]; kk < B->p[j + 1]; kk++) {
            int64_t k = B->i[kk];
            for (int64_t ii = A->p[k]; ii < A->p[k + 1]; ii++) {
                int64_t i = A->i[ii];
                if (mark[i] == j) continue;
                mark[i] = j;
                if (buf_reserve(&pt->rowi, nz + 1)) return -1;
                pt->rowi.a[nz++] = i;
            }
        }
        for (int64_t k = start; k < nz; k++) mark[pt->rowi.a[k]] = -1;
        if (nz - start > 1) qsort(pt->rowi.a + start, (size_t)(nz - start), sizeof(int64_t), cmp_i64);
    }
    pt->colp.a[B->n] = nz;
    return 0;
}

/* Is pattern (colp, rowi) contained in C? */
static int pattern_subset(const int64_t *colp, const int64_t *rowi, const jg_gmat_t *C)
{
    for (int64_t j = 0; j < C->n; j++) {
        int64_t c = C->p[j];
        for (int64_t k = colp[j]; k < colp[j + 1]; k++) {
            while (c < C->p[j + 1] && C->i[c] < rowi[k]) c++;
            if (c == C->p[j + 1] || C->i[c] != rowi[k]) return 0;
        }
    }
    return 1;
}

/* Union of pattern (colp, rowi) and C into pt->tmp / pt->colp (rebuilt). */
static int pattern_union(pat_t *pt, const jg_gmat_t *C, int64_t **ucolp, int64_t **urowi)
{
    int64_t n = C->n;
    const int64_t *colp = pt->colp.a, *rowi = pt->rowi.a;
    if (buf_reserve(&pt->tmp, n + 1 + colp[n] + jg__nnz(C))) return -1;
    int64_t *uc = pt->tmp.a, *ur = pt->tmp.a + n + 1, nz = 0;
    for (int64_t j = 0; j < n; j++) {
        uc[j] = nz;
        int64_t a = colp[j], b = C->p[j];
        while (a < colp[j + 1] || b < C->p[j + 1]) {
            int64_t ra = a < colp[j + 1] ? rowi[a] : INT64_MAX;
            int64_t rb = b < C->p[j + 1] ? C->i[b] : INT64_MAX;
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

static void list_remove(int64_t *arr, int32_t *n, int64_t id)
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

/* Eliminate vertex v: record the numeric operations and rewire the graph. */
static jg_status_t eliminate_vertex(jg_graph_t *g, int64_t v, pat_t *pt, buf_t *kin,
                                    const num_t *nm)
{
    jg_gvert_t *V = &g->v[v];
    int64_t wv = V->width, S = -1;
    int diag = 0;
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
    }
    /* effective in-matrices: Ke, or S*Ke: Ke's pattern for a diagonal S,
     * else full columns where Ke has entries */
    if (buf_reserve(kin, V->nin)) return JG_NOMEM;
    for (int32_t k = 0; k < V->nin; k++) {
        int64_t m = g->e[V->in[k]].mat;
        if (diag) {
            /* copy the pattern: jg__gmat_new may move g->mat */
            const jg_gmat_t *Ke = &g->mat[m];
            int64_t n = Ke->n, kn = jg__nnz(Ke);
            if (buf_reserve(&pt->colp, n + 1) || buf_reserve(&pt->rowi, kn)) return JG_NOMEM;
            memcpy(pt->colp.a, Ke->p, sizeof(int64_t) * (size_t)(n + 1));
            memcpy(pt->rowi.a, Ke->i, sizeof(int64_t) * (size_t)kn);
            int64_t T = jg__gmat_new(g, wv, n, pt->colp.a, pt->rowi.a);
            if (T < 0 || push(g, nm, OP_SCALED, S, m, T)) return JG_NOMEM;
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
            int64_t T = jg__gmat_new(g, wv, Ke->n, pt->colp.a, pt->rowi.a);
            if (T < 0 || push(g, nm, OP_SCALE, S, m, T)) return JG_NOMEM;
            m = T;
        }
        kin->a[k] = m;
    }
    for (int32_t o = 0; o < V->nout; o++) {
        int64_t fe = V->out[o], f = g->e[fe].dst, Kf = g->e[fe].mat;
        for (int32_t k = 0; k < V->nin; k++) {
            int64_t e = g->e[V->in[k]].src, Ke = kin->a[k];
            /* g->mat may move when matrices are added: keep sizes, not pointers */
            const jg_gmat_t *A = &g->mat[Kf], *B = &g->mat[Ke];
            int64_t am = A->m, bn = B->n;
            int scalar = A->m == 1 && A->n == 1 && B->n == 1 && jg__nnz(A) && jg__nnz(B);
            if (scalar) {
                if (buf_reserve(&pt->colp, 2) || buf_reserve(&pt->rowi, 1)) return JG_NOMEM;
                pt->colp.a[0] = 0;
                pt->colp.a[1] = 1;
                pt->rowi.a[0] = 0;
            } else if (pattern_mult(A, B, g->ws_mark, pt)) {
                return JG_NOMEM;
            }
            if (pt->colp.a[bn] == 0) continue;   /* structurally zero product */
            int64_t ex = jg__gedge_find(g, e, f), C;
            if (ex < 0) {
                C = jg__gmat_new(g, am, bn, pt->colp.a, pt->rowi.a);
                if (C < 0 || jg__gedge_add(g, e, f, C) < 0) return JG_NOMEM;
            } else {
                C = g->e[ex].mat;
                if (!pattern_subset(pt->colp.a, pt->rowi.a, &g->mat[C])) {
                    int64_t *uc, *ur;
                    if (pattern_union(pt, &g->mat[C], &uc, &ur)) return JG_NOMEM;
                    int64_t C2 = jg__gmat_new(g, am, bn, uc, ur);
                    if (C2 < 0 || push(g, nm, OP_EXPAND, C, -1, C2)) return JG_NOMEM;
                    g->e[ex].mat = C = C2;
                }
            }
            if (push(g, nm, OP_MULADD, Kf, Ke, C)) return JG_NOMEM;
        }
    }
    /* remove v and its edges */
    for (int32_t k = 0; k < V->nin; k++) {
        jg_gedge_t *E = &g->e[V->in[k]];
        jg_gvert_t *s = &g->v[E->src];
        list_remove(s->out, &s->nout, V->in[k]);
        E->alive = 0;
    }
    for (int32_t o = 0; o < V->nout; o++) {
        jg_gedge_t *E = &g->e[V->out[o]];
        jg_gvert_t *d = &g->v[E->dst];
        list_remove(d->in, &d->nin, V->out[o]);
        E->alive = 0;
    }
    if (V->self >= 0) g->e[V->self].alive = 0;
    V->self = -1;
    V->nin = V->nout = 0;
    V->alive = 0;
    g->st.eliminated++;
    return JG_OK;
}

/* An algebraic vertex the strategies may eliminate.  The output of an
 * Algebraic Constraint (y = y + u, JG_BT_SELFLOOP) is left to the LFT: its
 * self-loop is exactly 1 until the rest of its loop has been folded into it,
 * and eliminating it early would divide by 1 - 1. */
static int algebraic(const jg_graph_t *g, const jg_gvert_t *v)
{
    if (!v->alive || (v->kind != JG_V_INPUT && v->kind != JG_V_OUTPUT)) return 0;
    return !(v->kind == JG_V_OUTPUT && v->block >= 0 &&
             (g->prog->blocks[v->block].type->flags & JG_BT_SELFLOOP));
}

/* Min-heap of (key, vertex) with lazy deletion, for the "full" ordering. */
typedef struct {
    int64_t key, v;
} hent_t;

static int heap_push(hent_t **h, int64_t *n, int64_t *cap, int64_t key, int64_t v)
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
    a[i] = (hent_t){key, v};
    while (i > 0) {
        int64_t par = (i - 1) / 2;
        if (a[par].key < a[i].key || (a[par].key == a[i].key && a[par].v <= a[i].v)) break;
        hent_t t = a[par];
        a[par] = a[i];
        a[i] = t;
        i = par;
    }
    return 0;
}

static hent_t heap_pop(hent_t *a, int64_t *n)
{
    hent_t top = a[0];
    a[0] = a[--(*n)];
    for (int64_t i = 0;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && (a[l].key < a[m].key || (a[l].key == a[m].key && a[l].v < a[m].v))) m = l;
        if (r < *n && (a[r].key < a[m].key || (a[r].key == a[m].key && a[r].v < a[m].v))) m = r;
        if (m == i) break;
        hent_t t = a[i];
        a[i] = a[m];
        a[m] = t;
        i = m;
    }
    return top;
}

/* Neighbors of v (before its elimination) that are algebraic, into nb. */
static int neighbors(const jg_graph_t *g, int64_t v, buf_t *nb)
{
    const jg_gvert_t *V = &g->v[v];
    nb->n = 0;
    if (buf_reserve(nb, (int64_t)V->nin + V->nout)) return -1;
    for (int32_t k = 0; k < V->nin; k++) nb->a[nb->n++] = g->e[V->in[k]].src;
    for (int32_t k = 0; k < V->nout; k++) nb->a[nb->n++] = g->e[V->out[k]].dst;
    return 0;
}

jg_status_t jg__graph_eliminate(jg_graph_t *g, jg_graph_reduce_t how, const jg_eval_work_t *w,
                                jg_error_t *err)
{
    jg_status_t st = JG_OK;
    num_t nm = {w != NULL, NULL, 0};
    int ok;
    if (w) jg__graph_load(g, w);
    pat_t pt = {{0}, {0}, {0}};
    buf_t kin = {0}, nb = {0};
    int64_t *queue = NULL;
    unsigned char *inq = NULL;
    hent_t *heap = NULL;
    int64_t nh = 0, caph = 0;
    if (how == JG_GRAPH_REDUCE_NONE) goto done;
    if (how == JG_GRAPH_REDUCE_MARKOWITZ) {
        /* FIFO worklist: a vertex is retried when a neighbor's elimination
         * changes its degrees; the ring holds each vertex at most once */
        int64_t cap = g->nv + 1, head = 0, tail = 0;
        queue = malloc(sizeof(int64_t) * (size_t)cap);
        inq = calloc((size_t)cap, 1);
        if (!queue || !inq) goto nomem;
        for (int64_t v = 0; v < g->nv; v++)
            if (algebraic(g, &g->v[v])) {
                queue[tail++] = v;
                inq[v] = 1;
            }
        tail %= cap;
        while (head != tail) {
            int64_t v = queue[head];
            head = (head + 1) % cap;
            inq[v] = 0;
            const jg_gvert_t *V = &g->v[v];
            if (!algebraic(g, V)) continue;
            int64_t din = V->nin, dout = V->nout;
            if (!(din * dout < din + dout)) continue;
            if ((ok = pivot_ok(g, v, &nm)) < 0) goto nomem;
            if (!ok) continue;   /* back in the queue when a neighbor goes */
            if (neighbors(g, v, &nb)) goto nomem;
            if ((st = eliminate_vertex(g, v, &pt, &kin, &nm))) goto fail;
            for (int64_t k = 0; k < nb.n; k++) {
                int64_t u = nb.a[k];
                if (algebraic(g, &g->v[u]) && !inq[u]) {
                    inq[u] = 1;
                    queue[tail] = u;
                    tail = (tail + 1) % cap;
                }
            }
        }
    } else {
        /* full: always the live algebraic vertex of least Markowitz degree
         * (indeg*outdeg now), a greedy minimum-fill order */
        for (int64_t v = 0; v < g->nv; v++)
            if (algebraic(g, &g->v[v]) &&
                heap_push(&heap, &nh, &caph, (int64_t)g->v[v].nin * g->v[v].nout, v))
                goto nomem;
        while (nh > 0) {
            hent_t h = heap_pop(heap, &nh);
            const jg_gvert_t *V = &g->v[h.v];
            if (!algebraic(g, V) || h.key != (int64_t)V->nin * V->nout) continue;   /* stale */
            if ((ok = pivot_ok(g, h.v, &nm)) < 0) goto nomem;
            if (!ok) continue;   /* pushed again when a neighbor goes */
            if (neighbors(g, h.v, &nb)) goto nomem;
            if ((st = eliminate_vertex(g, h.v, &pt, &kin, &nm))) goto fail;
            for (int64_t k = 0; k < nb.n; k++) {
                const jg_gvert_t *U = &g->v[nb.a[k]];
                if (algebraic(g, U) &&
                    heap_push(&heap, &nh, &caph, (int64_t)U->nin * U->nout, nb.a[k]))
                    goto nomem;
            }
        }
    }
    goto done;
nomem:
    st = JG_NOMEM;
fail:
    jg_error_set(err, st, "out of memory while eliminating vertices");
done:
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
    if (!st) {
        g->st.ops = g->ops_n;
        /* a numeric elimination leaves the values of a replay at w */
        g->replayed = nm.on;
        if (nm.on)
            for (int64_t v = 0; v < g->nv; v++)
                if (algebraic(g, &g->v[v]) && g->v[v].self >= 0 && g->e[g->v[v].self].alive)
                    g->st.refused += pivot_ok(g, v, &nm) == 0;
        g->st.bytes_graph = g->arena.used + sizeof(jg_gvert_t) * (size_t)g->nv +
                            sizeof(jg_gedge_t) * (size_t)g->ne + sizeof(jg_gmat_t) * (size_t)g->nmat +
                            sizeof(double) * (size_t)g->nx + sizeof(jg_gop_t) * (size_t)g->ops_n;
    }
    free(pt.colp.a);
    free(pt.rowi.a);
    free(pt.tmp.a);
    free(kin.a);
    free(nb.a);
    free(queue);
    free(inq);
    free(heap);
    free(nm.s);
    return st;
}
