/* Structural vertex elimination on a compact copy of the Jacobian graph, with
 * the cost model of jacgraph/graph.h, for the searching strategies
 * (strat_pattern.h says what it mirrors and why it exists). */
#include <stdlib.h>
#include <string.h>
#include "strat_pattern.h"

int jg__pgrow(void **a, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *n = realloc(*a, elem * (size_t)c);
    if (!n) return -1;
    *a = n;
    *cap = c;
    return 0;
}

/* Append an m x n pattern (p relative, i) to pool; returns its offset or -1. */
static int64_t pool_add(int32_t **pool, int64_t *npool, int64_t *cap, int32_t n, const int32_t *p,
                        const int32_t *i, int32_t nnz)
{
    if (jg__pgrow((void **)pool, cap, *npool + n + 1 + nnz, sizeof **pool)) return -1;
    int64_t off = *npool;
    memcpy(*pool + off, p, sizeof(int32_t) * (size_t)(n + 1));
    memcpy(*pool + off + n + 1, i, sizeof(int32_t) * (size_t)nnz);
    *npool += n + 1 + nnz;
    return off;
}

void jg__pshape_free(jg_pshape_t *sh)
{
    free(sh->width);
    free(sh->loc);
    free(sh->elim);
    memset(sh, 0, sizeof *sh);
}

void jg__pg_free(jg_pg_t *pg)
{
    free(pg->e);
    free(pg->pool);
    memset(pg, 0, sizeof *pg);
}

jg_status_t jg__pg_from_graph(const jg_graph_t *g, jg_pshape_t *sh, jg_pg_t *pg, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    memset(sh, 0, sizeof *sh);
    memset(pg, 0, sizeof *pg);
    unsigned char *feeds = NULL, *fed = NULL;
    int32_t *tp = NULL, *ti = NULL;
    int64_t captp = 0, capti = 0;
    if (g->nv >= INT32_MAX)
        return jg_error_set(err, JG_ARG, "graph of %lld vertices: too large for a search",
                            (long long)g->nv);
    sh->nv = g->nv;
    sh->width = malloc(sizeof(int32_t) * (size_t)(g->nv + 1));
    sh->loc = malloc(sizeof(int32_t) * (size_t)(g->nv + 1));
    sh->elim = malloc(sizeof(int64_t) * (size_t)(g->nv + 1));
    feeds = calloc((size_t)g->nv + 1, 1);
    fed = calloc((size_t)g->nv + 1, 1);
    if (!sh->width || !sh->loc || !sh->elim || !feeds || !fed) goto nomem;
    for (int64_t v = 0; v < g->nv; v++) {
        if (g->v[v].width >= INT32_MAX) {
            st = jg_error_set(err, JG_ARG, "vertex %lld of width %lld: too wide for a search",
                              (long long)v, (long long)g->v[v].width);
            goto done;
        }
        sh->width[v] = (int32_t)g->v[v].width;
        if (sh->width[v] > sh->maxw) sh->maxw = sh->width[v];
        sh->loc[v] = -1;
        if (jg__strat_eliminable(g, v)) {
            sh->loc[v] = (int32_t)sh->nelim;
            sh->elim[sh->nelim++] = v;
        }
    }
    for (int64_t k = 0; k < g->ne; k++) {
        const jg_gedge_t *E = &g->e[k];
        if (!E->alive) continue;
        if (sh->loc[E->dst] >= 0) feeds[E->src] = 1;
        if (sh->loc[E->src] >= 0) fed[E->dst] = 1;
    }
    for (int64_t k = 0; k < g->ne; k++) {
        const jg_gedge_t *E = &g->e[k];
        if (!E->alive) continue;
        const jg_gmat_t *M = &g->mat[E->mat];
        int64_t nz = jg__nnz(M);
        /* an edge between fixed vertices changes only when a product lands
         * on it: its source must feed an eliminable vertex, its target be
         * fed by one */
        if (sh->loc[E->src] < 0 && sh->loc[E->dst] < 0 && !(feeds[E->src] && fed[E->dst])) {
            sh->nnz_fixed += nz;
            continue;
        }
        if (JG__PGROW(pg->e, pg->cape, pg->ne + 1) || JG__PGROW(tp, captp, M->n + 1) ||
            JG__PGROW(ti, capti, nz + 1))
            goto nomem;
        for (int64_t j = 0; j <= M->n; j++) tp[j] = (int32_t)M->p[j];
        for (int64_t q = 0; q < nz; q++) ti[q] = (int32_t)jg__gmat_i(M)[q];
        int64_t off = pool_add(&pg->pool, &pg->npool, &pg->cappool, (int32_t)M->n, tp, ti, (int32_t)nz);
        if (off < 0) goto nomem;
        pg->e[pg->ne++] = (jg_pedge_t){.src = (int32_t)E->src, .dst = (int32_t)E->dst,
                                       .m = (int32_t)M->m, .n = (int32_t)M->n, .nnz = (int32_t)nz,
                                       .ident = M->ident, .off = off};
        pg->nnz += nz;
    }
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    free(feeds);
    free(fed);
    free(tp);
    free(ti);
    if (st) {
        jg__pshape_free(sh);
        jg__pg_free(pg);
    }
    return st;
}

int jg__pg_copy(jg_pg_t *dst, const jg_pg_t *src)
{
    int64_t need = 0;
    for (int64_t k = 0; k < src->ne; k++) need += src->e[k].n + 1 + src->e[k].nnz;
    if (JG__PGROW(dst->e, dst->cape, src->ne + 1) || JG__PGROW(dst->pool, dst->cappool, need + 1)) return -1;
    int64_t off = 0;
    for (int64_t k = 0; k < src->ne; k++) {
        const jg_pedge_t *E = &src->e[k];
        int64_t len = E->n + 1 + E->nnz;
        memcpy(dst->pool + off, src->pool + E->off, sizeof(int32_t) * (size_t)len);
        dst->e[k] = *E;
        dst->e[k].off = off;
        off += len;
    }
    dst->ne = src->ne;
    dst->npool = off;
    dst->nnz = src->nnz;
    return 0;
}

int jg__pwork_init(jg_pwork_t *w, const jg_pshape_t *sh)
{
    memset(w, 0, sizeof *w);
    w->mark = malloc(sizeof(int32_t) * (size_t)(sh->maxw + 1));
    w->adjp = malloc(sizeof(int64_t) * (size_t)(2 * sh->nelim + 2));
    w->self = malloc(sizeof(int64_t) * (size_t)(sh->nelim + 1));
    if (!w->mark || !w->adjp || !w->self) return -1;
    for (int32_t i = 0; i <= sh->maxw; i++) w->mark[i] = -1;
    return 0;
}

void jg__pwork_free(jg_pwork_t *w)
{
    free(w->mark);
    free(w->ein);
    free(w->eout);
    free(w->tmp);
    free(w->prod);
    free(w->adj);
    free(w->adjp);
    free(w->self);
    memset(w, 0, sizeof *w);
}

int jg__pat_diagonal(const int32_t *p, int32_t n)
{
    const int32_t *i = p + n + 1;
    for (int32_t j = 0; j < n; j++)
        for (int32_t q = p[j]; q < p[j + 1]; q++)
            if (i[q] != j) return 0;
    return 1;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Pattern of A*B (A: ap, B: bp with bn columns) appended to w->tmp; *phi
 * gets the multiply-adds (sum over B's entries (k, j) of |A(:, k)|).
 * Returns the offset or -1.  Pointers are re-derived from offsets: tmp may
 * move. */
static int64_t tmp_mult(jg_pwork_t *w, const int32_t *ap, int32_t an, int64_t boff, int32_t bn,
                        int32_t am, int64_t *phi, int32_t *nnz)
{
    /* at most am rows per column */
    int64_t worst = (int64_t)bn * am;
    if (JG__PGROW(w->tmp, w->captmp, w->ntmp + bn + 1 + worst + 1)) return -1;
    const int32_t *bp = w->tmp + boff, *bi = bp + bn + 1;
    const int32_t *ai = ap + an + 1;
    int64_t off = w->ntmp;
    int32_t *cp = w->tmp + off, *ci = cp + bn + 1, nz = 0;
    int64_t f = 0;
    for (int32_t j = 0; j < bn; j++) {
        cp[j] = nz;
        int32_t start = nz;
        for (int32_t kk = bp[j]; kk < bp[j + 1]; kk++) {
            int32_t k = bi[kk];
            f += ap[k + 1] - ap[k];
            for (int32_t q = ap[k]; q < ap[k + 1]; q++) {
                int32_t i = ai[q];
                if (w->mark[i] == j) continue;
                w->mark[i] = j;
                ci[nz++] = i;
            }
        }
        for (int32_t q = start; q < nz; q++) w->mark[ci[q]] = -1;
        if (nz - start > 1) qsort(ci + start, (size_t)(nz - start), sizeof(int32_t), cmp_i32);
    }
    cp[bn] = nz;
    w->ntmp = off + bn + 1 + nz;
    *phi = f;
    *nnz = nz;
    return off;
}

/* Append a copy of pattern (p with n columns) to tmp; offset or -1. */
static int64_t tmp_copy(jg_pwork_t *w, const int32_t *p, int32_t n)
{
    int32_t nz = p[n];
    if (JG__PGROW(w->tmp, w->captmp, w->ntmp + n + 1 + nz + 1)) return -1;
    int64_t off = w->ntmp;
    memcpy(w->tmp + off, p, sizeof(int32_t) * (size_t)(n + 1 + nz));
    w->ntmp += n + 1 + nz;
    return off;
}

/* The same for a pattern already in tmp (at off): tmp may move. */
static int64_t tmp_copy_own(jg_pwork_t *w, int64_t src, int32_t n)
{
    int32_t nz = w->tmp[src + n];
    if (JG__PGROW(w->tmp, w->captmp, w->ntmp + n + 1 + nz + 1)) return -1;
    int64_t off = w->ntmp;
    memcpy(w->tmp + off, w->tmp + src, sizeof(int32_t) * (size_t)(n + 1 + nz));
    w->ntmp += n + 1 + nz;
    return off;
}

static int subset(const int32_t *xp, const int32_t *yp, int32_t n)
{
    const int32_t *xi = xp + n + 1, *yi = yp + n + 1;
    for (int32_t j = 0; j < n; j++) {
        int32_t c = yp[j];
        for (int32_t q = xp[j]; q < xp[j + 1]; q++) {
            while (c < yp[j + 1] && yi[c] < xi[q]) c++;
            if (c == yp[j + 1] || yi[c] != xi[q]) return 0;
        }
    }
    return 1;
}

static int64_t find_edge(const jg_pg_t *pg, int32_t a, int32_t b)
{
    for (int64_t k = 0; k < pg->ne; k++)
        if (pg->e[k].src == a && pg->e[k].dst == b) return k;
    return -1;
}

int jg__pg_eliminate(const jg_pshape_t *sh, jg_pg_t *pg, int64_t v, jg_pcost_t *c, int force,
                     jg_pwork_t *w)
{
    jg_pcost_t c0 = {0};
    if (!c) c = &c0;
    *c = (jg_pcost_t){0};
    int64_t nin = 0, nout = 0, self = -1;
    if (JG__PGROW(w->ein, w->capin, pg->ne + 1) || JG__PGROW(w->eout, w->capout, pg->ne + 1)) return -1;
    for (int64_t k = 0; k < pg->ne; k++) {
        const jg_pedge_t *E = &pg->e[k];
        if (E->src == v && E->dst == v)
            self = k;
        else if (E->dst == v)
            w->ein[nin++] = k;
        else if (E->src == v)
            w->eout[nout++] = k;
    }
    int32_t wv = sh->width[v];
    int S = self >= 0, diag = 0;
    if (S) {
        const jg_pedge_t *D = &pg->e[self];
        diag = wv > 1 && jg__pat_diagonal(pg->pool + D->off, D->n);
        if (!diag && wv > JG__GRAPH_DENSE_PIVOT_MAX && !force) return 1;
        c->inv = diag ? wv : (int64_t)wv * wv * wv;
    }
    w->ntmp = 0;
    w->nprod = 0;
    for (int64_t k = 0; k < nin; k++) {
        const jg_pedge_t *Ke = &pg->e[w->ein[k]];
        /* K^_e into tmp: Ke's pattern, or dense columns for a dense S */
        int64_t boff;
        int32_t bident = Ke->ident && !S;
        if (S && !diag) {
            const int32_t *kp = pg->pool + Ke->off;
            int32_t ncol = 0;
            for (int32_t j = 0; j < Ke->n; j++) ncol += kp[j + 1] > kp[j];
            if (JG__PGROW(w->tmp, w->captmp, w->ntmp + Ke->n + 1 + (int64_t)ncol * wv + 1)) return -1;
            kp = pg->pool + Ke->off;
            boff = w->ntmp;
            int32_t *hp = w->tmp + boff, *hi = hp + Ke->n + 1, nz = 0;
            for (int32_t j = 0; j < Ke->n; j++) {
                hp[j] = nz;
                if (kp[j + 1] > kp[j])
                    for (int32_t i = 0; i < wv; i++) hi[nz++] = i;
            }
            hp[Ke->n] = nz;
            w->ntmp += Ke->n + 1 + nz;
            c->scale += (int64_t)wv * Ke->nnz;
        } else {
            if ((boff = tmp_copy(w, pg->pool + Ke->off, Ke->n)) < 0) return -1;
            if (S) c->scale += Ke->nnz;
        }
        for (int64_t o = 0; o < nout; o++) {
            const jg_pedge_t *Kf = &pg->e[w->eout[o]];
            int64_t phi = 0, off;
            int32_t nz;
            if (Kf->ident || bident) {
                /* a connection identity: the product is the other factor */
                off = Kf->ident ? tmp_copy_own(w, boff, Ke->n) : tmp_copy(w, pg->pool + Kf->off, Kf->n);
                if (off < 0) return -1;
                int32_t n = Kf->ident ? Ke->n : Kf->n;
                nz = w->tmp[off + n];
            } else {
                off = tmp_mult(w, pg->pool + Kf->off, Kf->n, boff, Ke->n, Kf->m, &phi, &nz);
                if (off < 0) return -1;
            }
            if (nz == 0) {
                w->ntmp = off;   /* structurally zero: nothing */
                continue;
            }
            c->prod += phi;
            if (JG__PGROW(w->prod, w->capprod, w->nprod + 1)) return -1;
            w->prod[w->nprod++] = (jg_pedge_t){.src = Ke->src, .dst = Kf->dst, .m = Kf->m,
                                               .n = Ke->n, .nnz = nz,
                                               .ident = Kf->ident && bident, .off = off};
        }
    }
    c->fma = c->inv + c->scale + c->prod;
    /* apply: sum the products into the graph */
    for (int64_t q = 0; q < w->nprod; q++) {
        const jg_pedge_t *P = &w->prod[q];
        int64_t ex = find_edge(pg, P->src, P->dst);
        if (ex < 0) {
            if (JG__PGROW(pg->e, pg->cape, pg->ne + 1)) return -1;
            int64_t off = pool_add(&pg->pool, &pg->npool, &pg->cappool, P->n, w->tmp + P->off,
                                   w->tmp + P->off + P->n + 1, P->nnz);
            if (off < 0) return -1;
            pg->e[pg->ne++] = (jg_pedge_t){.src = P->src, .dst = P->dst, .m = P->m, .n = P->n,
                                           .nnz = P->nnz, .ident = P->ident, .off = off};
            pg->nnz += P->nnz;
            continue;
        }
        c->adds += P->nnz;
        jg_pedge_t *C = &pg->e[ex];
        C->ident = 0;   /* a sum is no identity */
        if (subset(w->tmp + P->off, pg->pool + C->off, P->n)) continue;
        /* the union, built at the end of the pool */
        int32_t n = P->n;
        if (JG__PGROW(pg->pool, pg->cappool, pg->npool + n + 1 + P->nnz + C->nnz + 1)) return -1;
        C = &pg->e[ex];
        const int32_t *xp = w->tmp + P->off, *xi = xp + n + 1;
        const int32_t *yp = pg->pool + C->off, *yi = yp + n + 1;
        int64_t off = pg->npool;
        int32_t *up = pg->pool + off, *ui = up + n + 1, nz = 0;
        for (int32_t j = 0; j < n; j++) {
            up[j] = nz;
            int32_t a = xp[j], b = yp[j];
            while (a < xp[j + 1] || b < yp[j + 1]) {
                int32_t ra = a < xp[j + 1] ? xi[a] : INT32_MAX;
                int32_t rb = b < yp[j + 1] ? yi[b] : INT32_MAX;
                int32_t r = ra < rb ? ra : rb;
                if (ra == r) a++;
                if (rb == r) b++;
                ui[nz++] = r;
            }
        }
        up[n] = nz;
        pg->npool += n + 1 + nz;
        pg->nnz += nz - C->nnz;
        C->nnz = nz;
        C->off = off;
    }
    /* remove v's edges */
    int64_t k2 = 0;
    for (int64_t k = 0; k < pg->ne; k++) {
        const jg_pedge_t *E = &pg->e[k];
        if (E->src == v || E->dst == v) {
            pg->nnz -= E->nnz;
            continue;
        }
        pg->e[k2++] = *E;
    }
    pg->ne = k2;
    /* the pool is compacted by the next copy; a long run compacts here */
    if (pg->npool > 4 * (pg->nnz + 2 * pg->ne) + 4096) {
        jg_pg_t t = {0};
        if (jg__pg_copy(&t, pg)) return -1;
        jg__pg_free(pg);
        *pg = t;
    }
    return 0;
}

int jg__pg_costs(const jg_pshape_t *sh, const jg_pg_t *pg, int64_t *fma, int64_t *lb, jg_pwork_t *w)
{
    int64_t ne = sh->nelim;
    int64_t *inp = w->adjp, *outp = w->adjp + ne + 1;
    for (int64_t k = 0; k <= ne; k++) inp[k] = outp[k] = 0;
    for (int64_t k = 0; k < ne; k++) w->self[k] = -1;
    for (int64_t k = 0; k < pg->ne; k++) {
        const jg_pedge_t *E = &pg->e[k];
        int32_t ls = sh->loc[E->src], ld = sh->loc[E->dst];
        if (E->src == E->dst) {
            if (ld >= 0) w->self[ld] = k;
            continue;
        }
        if (ld >= 0) inp[ld + 1]++;
        if (ls >= 0) outp[ls + 1]++;
    }
    for (int64_t k = 0; k < ne; k++) {
        inp[k + 1] += inp[k];
        outp[k + 1] += outp[k];
    }
    int64_t nin = inp[ne];
    if (JG__PGROW(w->adj, w->capadj, nin + outp[ne] + 1)) return -1;
    int64_t *ain = w->adj, *aout = w->adj + nin;
    /* fill by the starts, then shift them back */
    for (int64_t k = 0; k < pg->ne; k++) {
        const jg_pedge_t *E = &pg->e[k];
        if (E->src == E->dst) continue;
        int32_t ls = sh->loc[E->src], ld = sh->loc[E->dst];
        if (ld >= 0) ain[inp[ld]++] = k;
        if (ls >= 0) aout[outp[ls]++] = k;
    }
    for (int64_t k = ne; k > 0; k--) {
        inp[k] = inp[k - 1];
        outp[k] = outp[k - 1];
    }
    inp[0] = outp[0] = 0;
    for (int64_t k = 0; k < ne; k++) {
        int64_t v = sh->elim[k];
        int32_t wv = sh->width[v];
        int S = w->self[k] >= 0, diag = 0;
        int64_t inv = 0, scale = 0, prod = 0, lscale = 0, lprod = 0;
        int refused = 0;
        if (S) {
            const jg_pedge_t *D = &pg->e[w->self[k]];
            diag = wv > 1 && jg__pat_diagonal(pg->pool + D->off, D->n);
            refused = !diag && wv > JG__GRAPH_DENSE_PIVOT_MAX;
            inv = diag ? wv : (int64_t)wv * wv * wv;
        }
        for (int64_t a = inp[k]; a < inp[k + 1]; a++) {
            const jg_pedge_t *Ke = &pg->e[ain[a]];
            const int32_t *kp = pg->pool + Ke->off, *ki = kp + Ke->n + 1;
            int fixed_in = sh->loc[Ke->src] < 0;
            int64_t sc = S ? (diag ? Ke->nnz : (int64_t)wv * Ke->nnz) : 0;
            scale += sc;
            if (fixed_in) lscale += sc;
            int32_t ncol = 0;
            if (S && !diag)
                for (int32_t j = 0; j < Ke->n; j++) ncol += kp[j + 1] > kp[j];
            for (int64_t b = outp[k]; b < outp[k + 1]; b++) {
                const jg_pedge_t *Kf = &pg->e[aout[b]];
                int64_t phi = 0;
                if (Kf->ident || (Ke->ident && !S)) {
                    phi = 0;
                } else if (S && !diag) {
                    phi = (int64_t)Kf->nnz * ncol;
                } else {
                    const int32_t *fp = pg->pool + Kf->off;
                    for (int32_t q = 0; q < Ke->nnz; q++) phi += fp[ki[q] + 1] - fp[ki[q]];
                }
                prod += phi;
                if (fixed_in && sh->loc[Kf->dst] < 0) lprod += phi;
            }
        }
        fma[k] = refused ? -1 : inv + scale + prod;
        /* a vertex wider than the dense limit may be refused for good later
         * (when its self-loop turns non-diagonal) and then never costs */
        if (lb) lb[k] = wv > JG__GRAPH_DENSE_PIVOT_MAX ? 0 : inv + lscale + lprod;
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

jg_status_t jg__strat_symgraph(const jg_graph_t *g, int64_t *n, int64_t **vid, int64_t **p,
                               int64_t **i, jg_error_t *err)
{
    int64_t *loc = malloc(sizeof(int64_t) * (size_t)(g->nv + 1)), nl = 0, nz = 0;
    *vid = *p = *i = NULL;
    *n = 0;
    if (!loc) goto nomem;
    for (int64_t v = 0; v < g->nv; v++) loc[v] = g->v[v].alive ? nl++ : -1;
    *vid = malloc(sizeof(int64_t) * (size_t)(nl + 1));
    *p = calloc((size_t)nl + 2, sizeof(int64_t));
    if (!*vid || !*p) goto nomem;
    for (int64_t v = 0; v < g->nv; v++)
        if (loc[v] >= 0) (*vid)[loc[v]] = v;
    int64_t *cp = *p;
    for (int64_t k = 0; k < g->ne; k++) {
        const jg_gedge_t *E = &g->e[k];
        if (!E->alive || E->src == E->dst || loc[E->src] < 0 || loc[E->dst] < 0) continue;
        cp[loc[E->src] + 2]++;
        cp[loc[E->dst] + 2]++;
    }
    for (int64_t j = 0; j < nl; j++) cp[j + 2] += cp[j + 1];
    *i = malloc(sizeof(int64_t) * (size_t)(cp[nl + 1] + 1));
    if (!*i) goto nomem;
    for (int64_t k = 0; k < g->ne; k++) {
        const jg_gedge_t *E = &g->e[k];
        if (!E->alive || E->src == E->dst || loc[E->src] < 0 || loc[E->dst] < 0) continue;
        int64_t a = loc[E->src], b = loc[E->dst];
        (*i)[cp[a + 1]++] = b;
        (*i)[cp[b + 1]++] = a;
    }
    /* sort each column and drop duplicates (a -> b and b -> a) */
    for (int64_t j = 0, start = 0; j < nl; j++) {
        int64_t end = cp[j + 1];
        qsort(*i + start, (size_t)(end - start), sizeof(int64_t), cmp_i64);
        cp[j] = nz;
        for (int64_t q = start; q < end; q++)
            if (q == start || (*i)[q] != (*i)[q - 1]) (*i)[nz++] = (*i)[q];
        start = end;
    }
    cp[nl] = nz;
    *n = nl;
    free(loc);
    return JG_OK;
nomem:
    free(loc);
    free(*vid);
    free(*p);
    free(*i);
    *vid = *p = *i = NULL;
    return jg_error_set(err, JG_NOMEM, "out of memory");
}
