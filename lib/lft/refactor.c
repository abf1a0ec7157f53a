/* The LFT again at new values on fixed patterns: the ordering, pivot sequence and sparse reaches of a first factorization replayed numerically. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/lft.h"
#include "lft_internal.h"

/* Why replay rather than call jg_lft: per operating point jg_lft spends most
 * of its time on symbolic work whose result does not change with the values
 * (the AMD ordering of I - P22 M, the depth-first reaches of every column of
 * its LU and of every right-hand side, the sort of each result column).  This
 * file does that work once (jg_lft_analyze) and keeps, per point, only the
 * arithmetic -- in CSparse's order, operation for operation, so that a replay
 * gives the bits a fresh jg_lft gives.
 *
 * The pivot guard: at each column the replay checks that CSparse's partial
 * pivoting (tolerance 1: the largest candidate, the diagonal on a tie) would
 * choose the recorded row.  When it would not -- a recorded pivot has become
 * small against its column -- the point is factorized afresh by jg_lft.  So a
 * result never depends on where the analysis was made: it is always the one a
 * fresh factorization at this point gives. */

typedef cs_long_t lg;

/* The pattern of one operand, for the per-call check (a NULL operand has
 * m == -1). */
typedef struct {
    lg m, n, *p, *i;
} pat_t;

/* C = A * B on cs_multiply's pattern and in its order: op k does
 * c[oc[k]] = a[oa[k]] * b[ob[k]] when first[k], else +=. */
typedef struct {
    lg nop, nzc, n;
    lg *oa, *ob, *oc, *cp, *ci;
    unsigned char *first;
} prod_t;

struct jg_lft_sym {
    lg no, ni, ny, nu;
    int has_m;
    pat_t pat[5];            /* P11, P12, P21, P22, M */
    prod_t pm, dm;           /* P12 M and P22 M (has_m) */
    /* K = I - DM as cs_add builds it: per column the diagonal first, then DM's
     * other rows in DM's order; kpos[t] is where DM entry t lands and kfirst[t]
     * whether it starts that entry (else it adds to it) */
    lg nnzk, nd, *kp, *ki, *kdiag, *kpos;
    unsigned char *kfirst;
    lg *q;                   /* column order (AMD), NULL: natural */
    lg *pinv;                /* final row permutation: row i of K is row pinv[i] of L U */
    /* C = K(pinv, q) column by column: value cpos[c] of K at row crow[c] */
    lg *cp, *crow, *cpos, *dcol;   /* dcol[k] = pinv[q[k]] (CSparse's diagonal preference) */
    lg nnzl, nnzu, *lp, *li, *up, *ui;   /* L (unit diagonal first), U (diagonal last) */
    lg *rp, *ri;             /* per LU column k: its reach in L_{<k}, topological order */
    int64_t lu_fma;
    /* per column j of P21: the reach of P21(:, j) in L (lrp, lri) and of that
     * in U (urp, uri); fp, fi: the sorted rows of F(:, j) structurally */
    lg *lrp, *lri, *urp, *uri, *fp, *fi;
};

struct jg_lft_num {
    const jg_lft_sym_t *s;
    double *pmx, *dmx, *kx, *lx, *ux, *x, *z, *acc;
    lg *kp;                  /* K's column pointers: cs_scc marks them in place */
    cs_dl K, F;              /* K: s's row indices, values here */
    cs_dl *fresh;            /* the last fallback's result */
};

static void *xmalloc(size_t n, size_t sz) { return malloc((n ? n : 1) * sz); }

static void prod_free(prod_t *p)
{
    free(p->oa);
    free(p->ob);
    free(p->oc);
    free(p->cp);
    free(p->ci);
    free(p->first);
}

/* The recipe of A * B as cs_multiply computes it (it scatters A(:, k) * B(k, j)
 * for each entry of B(:, j) in turn; a row met first is appended).  0 ok, -1
 * out of memory. */
static int prod_build(const cs_dl *A, const cs_dl *B, prod_t *r)
{
    lg m = A->m, n = B->n, nop = 0, nz = 0;
    for (lg j = 0; j < n; j++)
        for (lg p = B->p[j]; p < B->p[j + 1]; p++) nop += A->p[B->i[p] + 1] - A->p[B->i[p]];
    lg *w = xmalloc((size_t)m, sizeof(lg)), *pos = xmalloc((size_t)m, sizeof(lg));
    r->n = n;
    r->nop = nop;
    r->oa = xmalloc((size_t)nop, sizeof(lg));
    r->ob = xmalloc((size_t)nop, sizeof(lg));
    r->oc = xmalloc((size_t)nop, sizeof(lg));
    r->first = xmalloc((size_t)nop, 1);
    r->cp = xmalloc((size_t)n + 1, sizeof(lg));
    r->ci = xmalloc((size_t)nop, sizeof(lg));
    int ok = w && pos && r->oa && r->ob && r->oc && r->first && r->cp && r->ci;
    if (ok) {
        for (lg i = 0; i < m; i++) w[i] = -1;
        lg k = 0;
        for (lg j = 0; j < n; j++) {
            r->cp[j] = nz;
            for (lg p = B->p[j]; p < B->p[j + 1]; p++)
                for (lg t = A->p[B->i[p]]; t < A->p[B->i[p] + 1]; t++, k++) {
                    lg i = A->i[t];
                    r->first[k] = w[i] < j;
                    if (w[i] < j) {
                        w[i] = j;
                        pos[i] = nz;
                        r->ci[nz++] = i;
                    }
                    r->oa[k] = t;
                    r->ob[k] = p;
                    r->oc[k] = pos[i];
                }
        }
        r->cp[n] = nz;
        r->nzc = nz;
    }
    free(w);
    free(pos);
    return ok ? 0 : -1;
}

static void prod_run(const prod_t *r, const double *ax, const double *bx, double *cx)
{
    for (lg k = 0; k < r->nop; k++) {
        double v = bx[r->ob[k]] * ax[r->oa[k]];   /* cs_scatter: beta * Ax */
        if (r->first[k]) cx[r->oc[k]] = v;
        else cx[r->oc[k]] += v;
    }
}

static int pat_copy(const cs_dl *A, pat_t *t)
{
    t->m = -1;
    if (!A) return 0;
    if (A->nz != -1) return -1;
    t->m = A->m;
    t->n = A->n;
    t->p = xmalloc((size_t)A->n + 1, sizeof(lg));
    t->i = xmalloc((size_t)A->p[A->n], sizeof(lg));
    if (!t->p || !t->i) return -1;
    memcpy(t->p, A->p, sizeof(lg) * (size_t)(A->n + 1));
    memcpy(t->i, A->i, sizeof(lg) * (size_t)A->p[A->n]);
    return 0;
}

static int pat_same(const cs_dl *A, const pat_t *t)
{
    if (!A) return t->m < 0;
    if (t->m < 0 || A->nz != -1 || A->m != t->m || A->n != t->n) return 0;
    return !memcmp(A->p, t->p, sizeof(lg) * (size_t)(t->n + 1)) &&
           !memcmp(A->i, t->i, sizeof(lg) * (size_t)t->p[t->n]);
}

void jg_lft_sym_free(jg_lft_sym_t *s)
{
    if (!s) return;
    for (int k = 0; k < 5; k++) {
        free(s->pat[k].p);
        free(s->pat[k].i);
    }
    prod_free(&s->pm);
    prod_free(&s->dm);
    lg *a[] = {s->kp, s->ki, s->kdiag, s->kpos, s->q, s->pinv, s->cp, s->crow, s->cpos,
               s->dcol, s->lp, s->li, s->up, s->ui, s->rp, s->ri, s->lrp, s->lri, s->urp,
               s->uri, s->fp, s->fi};
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++) free(a[k]);
    free(s->kfirst);
    free(s);
}

size_t jg_lft_sym_bytes(const jg_lft_sym_t *s)
{
    if (!s) return 0;
    size_t n = 0, bytes = 0;   /* n: index entries; bytes: flags */
    for (int k = 0; k < 5; k++)
        if (s->pat[k].m >= 0) n += (size_t)(s->pat[k].n + 1 + s->pat[k].p[s->pat[k].n]);
    const prod_t *pr[2] = {&s->pm, &s->dm};
    for (int k = 0; s->has_m && k < 2; k++) {
        n += (size_t)(4 * pr[k]->nop + pr[k]->n + 1);   /* oa ob oc ci, cp */
        bytes += (size_t)pr[k]->nop;
    }
    lg ny = s->ny, ni = s->ni;
    if (ny > 0) {
        n += (size_t)((ny + 1) + s->nnzk + ny + s->nd);           /* kp ki kdiag kpos */
        bytes += (size_t)s->nd;                                   /* kfirst */
        n += (size_t)(3 * ny + (ny + 1) + 2 * s->nnzk);           /* q pinv dcol, cp crow cpos */
        n += (size_t)(2 * (ny + 1) + s->nnzl + s->nnzu);          /* L, U */
    }
    n += (size_t)(ny + 1 + s->rp[ny]);                            /* reaches of the LU */
    n += (size_t)(3 * (ni + 1) + s->lrp[ni] + s->urp[ni] + s->fp[ni]);   /* solves, F */
    return sizeof *s + sizeof(lg) * n + bytes;
}

/* L U = K(pinv, q) on s's patterns at K's values kx into lx, ux; w: n
 * doubles, zero (and zero again on return).  0 when every pivot is the one
 * CSparse's partial pivoting would choose, else 1 (nothing else is wrong:
 * the caller factorizes afresh). */
static int lu_replay(const jg_lft_sym_t *s, const double *kx, double *lx, double *ux, double *x)
{
    lg n = s->ny, lnz = 0, unz = 0;
    for (lg k = 0; k < n; k++) {
        const lg *r = s->ri + s->rp[k], nr = s->rp[k + 1] - s->rp[k];
        for (lg t = 0; t < nr; t++) x[r[t]] = 0;   /* cs_spsolve's x = L \ K(:, col) */
        for (lg c = s->cp[k]; c < s->cp[k + 1]; c++) x[s->crow[c]] = kx[s->cpos[c]];
        for (lg t = 0; t < nr; t++) {
            lg j = r[t];
            if (j >= k) continue;                    /* not yet a pivot row */
            double xj = x[j];                        /* /= L(j, j) == 1: exact */
            for (lg p = s->lp[j] + 1; p < s->lp[j + 1]; p++) x[s->li[p]] -= lx[p] * xj;
        }
        /* cs_lu's choice: the first largest candidate, the diagonal if it is as large */
        lg ipiv = -1;
        double a = -1;
        for (lg t = 0; t < nr; t++) {
            lg i = r[t];
            if (i < k) {
                ux[unz++] = x[i];
            } else {
                double v = fabs(x[i]);
                if (v > a) {
                    a = v;
                    ipiv = i;
                }
            }
        }
        if (ipiv == -1 || a <= 0) goto moved;
        if (s->dcol[k] >= k && fabs(x[s->dcol[k]]) >= a) ipiv = s->dcol[k];
        if (ipiv != k) goto moved;
        double pivot = x[k];
        ux[unz++] = pivot;
        lx[lnz++] = 1;
        for (lg t = 0; t < nr; t++) {
            lg i = r[t];
            if (i > k) lx[lnz++] = x[i] / pivot;
        }
        for (lg t = 0; t < nr; t++) x[r[t]] = 0;
        continue;
    moved:
        for (lg t = 0; t < nr; t++) x[r[t]] = 0;
        return 1;
    }
    return 0;
}

/* K's values from DM's (cs_add(I, DM, 1, -1)). */
static void k_values(const jg_lft_sym_t *s, const double *dmx, double *kx)
{
    for (lg j = 0; j < s->ny; j++) kx[s->kdiag[j]] = 1;
    for (lg t = 0; t < s->nd; t++) {
        double v = -1.0 * dmx[t];
        if (s->kfirst[t]) kx[s->kpos[t]] = v;
        else kx[s->kpos[t]] += v;
    }
}

static int cmp_lg(const void *a, const void *b)
{
    lg x = *(const lg *)a, y = *(const lg *)b;
    return (x > y) - (x < y);
}

/* Reaches of every right-hand side and the patterns of F (s's LU known). */
static int solve_patterns(jg_lft_sym_t *s, const cs_dl *P11, const cs_dl *pmpat, const cs_dl *P21,
                          cs_dl *L, cs_dl *U)
{
    lg ni = s->ni, ny = s->ny, no = s->no;
    int ok = 0;
    lg *xi = xmalloc((size_t)(2 * ny + 1), sizeof(lg)), *mark = xmalloc((size_t)no, sizeof(lg));
    lg *rows = xmalloc((size_t)no, sizeof(lg));
    cs_dl *Y = cs_dl_spalloc(ny, 1, ny + 1, 1, 0);
    s->lrp = calloc((size_t)ni + 1, sizeof(lg));
    s->urp = calloc((size_t)ni + 1, sizeof(lg));
    s->fp = calloc((size_t)ni + 1, sizeof(lg));
    if (!xi || !mark || !rows || !Y || !s->lrp || !s->urp || !s->fp) goto done;
    for (lg i = 0; i < no; i++) mark[i] = -1;
    /* two passes: count, then fill */
    for (int pass = 0; pass < 2; pass++) {
        lg nl = 0, nu = 0, nf = 0;
        for (lg j = 0; j < ni; j++) {
            s->lrp[j] = nl;
            s->urp[j] = nu;
            s->fp[j] = nf;
            lg nt = 0;
            for (lg k = P11->p[j]; k < P11->p[j + 1]; k++)
                if (mark[P11->i[k]] != j) {
                    mark[P11->i[k]] = j;
                    rows[nt++] = P11->i[k];
                }
            if (ny > 0 && P21->p[j + 1] > P21->p[j]) {
                lg blen = 0;
                for (lg k = P21->p[j]; k < P21->p[j + 1]; k++) Y->i[blen++] = s->pinv[P21->i[k]];
                Y->p[0] = 0;
                Y->p[1] = blen;
                lg top = cs_dl_reach(L, Y, 0, xi, NULL);
                if (pass) memcpy(s->lri + nl, xi + top, sizeof(lg) * (size_t)(ny - top));
                nl += ny - top;
                lg ylen = 0;
                for (lg t = top; t < ny; t++) Y->i[ylen++] = xi[t];
                Y->p[1] = ylen;
                lg top2 = cs_dl_reach(U, Y, 0, xi, NULL);
                if (pass) memcpy(s->uri + nu, xi + top2, sizeof(lg) * (size_t)(ny - top2));
                nu += ny - top2;
                for (lg t = top2; t < ny; t++) {
                    lg c = s->q ? s->q[xi[t]] : xi[t];
                    for (lg u = pmpat->p[c]; u < pmpat->p[c + 1]; u++)
                        if (mark[pmpat->i[u]] != j) {
                            mark[pmpat->i[u]] = j;
                            rows[nt++] = pmpat->i[u];
                        }
                }
            }
            if (pass) {
                memcpy(s->fi + nf, rows, sizeof(lg) * (size_t)nt);
                /* sorted, as jg_lft emits them: insertion for the usual short
                 * columns, qsort for long ones (a nearly dense F made the
                 * insertion quadratic: minutes on a 100k-block model) */
                lg *f = s->fi + nf;
                if (nt > 32) qsort(f, (size_t)nt, sizeof *f, cmp_lg);
                else
                    for (lg a = 1; a < nt; a++) {
                        lg v = f[a], b = a;
                        for (; b > 0 && f[b - 1] > v; b--) f[b] = f[b - 1];
                        f[b] = v;
                    }
            }
            nf += nt;
        }
        s->lrp[ni] = nl;
        s->urp[ni] = nu;
        s->fp[ni] = nf;
        if (!pass) {
            for (lg i = 0; i < no; i++) mark[i] = -1;
            s->lri = xmalloc((size_t)nl, sizeof(lg));
            s->uri = xmalloc((size_t)nu, sizeof(lg));
            s->fi = xmalloc((size_t)nf, sizeof(lg));
            if (!s->lri || !s->uri || !s->fi) goto done;
        }
    }
    ok = 1;
done:
    free(xi);
    free(mark);
    free(rows);
    cs_dl_spfree(Y);
    return ok ? 0 : -1;
}

jg_status_t jg_lft_analyze(const cs_dl *P11, const cs_dl *P12, const cs_dl *P21, const cs_dl *P22,
                           const cs_dl *M, jg_lft_sym_t **out, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    *out = NULL;
    if (!P11 || !P12 || !P21 || !P22)
        return jg_error_set(err, JG_ARG, "lft analysis: NULL operand");
    lg no = P11->m, ni = P11->n, ny = P21->m, nu = M ? M->m : ny;
    if (P12->m != no || P12->n != nu || P21->n != ni || P22->m != ny || P22->n != nu ||
        (M && M->n != ny))
        return jg_error_set(err, JG_ARG, "lft analysis: inconsistent operand sizes");
    jg_lft_sym_t *s = calloc(1, sizeof *s);
    cs_dl *pmpat = NULL, *Id = NULL, *K = NULL, *DM = NULL;
    cs_dls *S = NULL;
    cs_dln *N = NULL;
    lg *xi = NULL, *pv = NULL;
    double *kx = NULL, *lx = NULL, *ux = NULL, *w = NULL;
    if (!s) goto nomem;
    s->no = no;
    s->ni = ni;
    s->ny = ny;
    s->nu = nu;
    s->has_m = M != NULL;
    const cs_dl *ops[5] = {P11, P12, P21, P22, M};
    for (int k = 0; k < 5; k++)
        if (pat_copy(ops[k], &s->pat[k])) {
            if (ops[k] && ops[k]->nz != -1) {
                st = jg_error_set(err, JG_ARG, "lft analysis: operands must be compressed-column");
                goto done;
            }
            goto nomem;
        }
    /* the products' recipes, and their patterns as matrices (the values of
     * DM at this point too: the first factorization needs them) */
    if (M) {
        if (prod_build(P12, M, &s->pm) || prod_build(P22, M, &s->dm)) goto nomem;
        DM = cs_dl_spalloc(ny, ny, s->dm.nzc + 1, 1, 0);
        pmpat = cs_dl_spalloc(no, ny, s->pm.nzc + 1, 0, 0);
        if (!DM || !pmpat) goto nomem;
        DM->n = ny;
        memcpy(DM->p, s->dm.cp, sizeof(lg) * (size_t)(ny + 1));
        memcpy(DM->i, s->dm.ci, sizeof(lg) * (size_t)s->dm.nzc);
        prod_run(&s->dm, P22->x, M->x, DM->x);
        memcpy(pmpat->p, s->pm.cp, sizeof(lg) * (size_t)(ny + 1));
        memcpy(pmpat->i, s->pm.ci, sizeof(lg) * (size_t)s->pm.nzc);
    }
    const cs_dl *dm = M ? DM : P22, *pm = M ? pmpat : P12;
    if (ny > 0) {
        /* K's pattern and the map from DM, as cs_add(I, DM, 1, -1) */
        lg nd = s->nd = dm->p[ny];
        s->kp = xmalloc((size_t)ny + 1, sizeof(lg));
        s->ki = xmalloc((size_t)(ny + nd), sizeof(lg));
        s->kdiag = xmalloc((size_t)ny, sizeof(lg));
        s->kpos = xmalloc((size_t)nd, sizeof(lg));
        s->kfirst = xmalloc((size_t)nd, 1);
        lg *wk = xmalloc((size_t)ny, sizeof(lg)), *pos = xmalloc((size_t)ny, sizeof(lg));
        if (!s->kp || !s->ki || !s->kdiag || !s->kpos || !s->kfirst || !wk || !pos) {
            free(wk);
            free(pos);
            goto nomem;
        }
        lg nz = 0;
        for (lg i = 0; i < ny; i++) wk[i] = -1;
        for (lg j = 0; j < ny; j++) {
            s->kp[j] = nz;
            wk[j] = j;
            pos[j] = nz;
            s->kdiag[j] = nz;
            s->ki[nz++] = j;
            for (lg t = dm->p[j]; t < dm->p[j + 1]; t++) {
                lg i = dm->i[t];
                s->kfirst[t] = wk[i] < j;
                if (wk[i] < j) {
                    wk[i] = j;
                    pos[i] = nz;
                    s->ki[nz++] = i;
                }
                s->kpos[t] = pos[i];
            }
        }
        s->kp[ny] = nz;
        s->nnzk = nz;
        free(wk);
        free(pos);
        /* the first factorization, exactly as jg_lft makes it */
        Id = cs_dl_spalloc(ny, ny, ny, 1, 0);
        if (!Id) goto nomem;
        for (lg k = 0; k < ny; k++) {
            Id->p[k] = k;
            Id->i[k] = k;
            Id->x[k] = 1;
        }
        Id->p[ny] = ny;
        K = cs_dl_add(Id, dm, 1.0, -1.0);
        if (!K) goto nomem;
        if (K->p[ny] != nz || memcmp(K->p, s->kp, sizeof(lg) * (size_t)(ny + 1)) ||
            memcmp(K->i, s->ki, sizeof(lg) * (size_t)nz))
            goto internal;
        S = cs_dl_sqr(1, K, 0);
        if (!S) goto nomem;
        N = cs_dl_lu(K, S, 1.0);
        if (!N) {
            st = jg_error_set(err, JG_SINGULAR_LOOP,
                              "I - D*M is singular (or out of memory) at the analysis point");
            goto done;
        }
        s->q = xmalloc((size_t)ny, sizeof(lg));
        s->pinv = xmalloc((size_t)ny, sizeof(lg));
        s->cp = xmalloc((size_t)ny + 1, sizeof(lg));
        s->crow = xmalloc((size_t)nz, sizeof(lg));
        s->cpos = xmalloc((size_t)nz, sizeof(lg));
        s->dcol = xmalloc((size_t)ny, sizeof(lg));
        s->nnzl = N->L->p[ny];
        s->nnzu = N->U->p[ny];
        s->lp = xmalloc((size_t)ny + 1, sizeof(lg));
        s->li = xmalloc((size_t)s->nnzl, sizeof(lg));
        s->up = xmalloc((size_t)ny + 1, sizeof(lg));
        s->ui = xmalloc((size_t)s->nnzu, sizeof(lg));
        s->rp = xmalloc((size_t)ny + 1, sizeof(lg));
        xi = xmalloc((size_t)(2 * ny), sizeof(lg));
        pv = xmalloc((size_t)ny, sizeof(lg));
        if (!s->q || !s->pinv || !s->cp || !s->crow || !s->cpos || !s->dcol || !s->lp || !s->li ||
            !s->up || !s->ui || !s->rp || !xi || !pv)
            goto nomem;
        for (lg k = 0; k < ny; k++) s->q[k] = S->q ? S->q[k] : k;
        memcpy(s->pinv, N->pinv, sizeof(lg) * (size_t)ny);
        memcpy(s->lp, N->L->p, sizeof(lg) * (size_t)(ny + 1));
        memcpy(s->li, N->L->i, sizeof(lg) * (size_t)s->nnzl);
        memcpy(s->up, N->U->p, sizeof(lg) * (size_t)(ny + 1));
        memcpy(s->ui, N->U->i, sizeof(lg) * (size_t)s->nnzu);
        s->lu_fma = jg__lft_lu_fma(N);
        lg c = 0;
        for (lg k = 0; k < ny; k++) {
            lg col = s->q[k];
            s->cp[k] = c;
            s->dcol[k] = s->pinv[col];
            for (lg p = K->p[col]; p < K->p[col + 1]; p++, c++) {
                s->cpos[c] = p;
                s->crow[c] = s->pinv[K->i[p]];
            }
        }
        s->cp[ny] = c;
        /* the reach of each column of C = K(pinv, q) in the columns of L
         * before it: cs_lu's, relabelled by pinv (the same depth-first
         * search on the same structure, so the same order) */
        cs_dl Cv = {.nzmax = nz, .m = ny, .n = ny, .p = s->cp, .i = s->crow, .x = NULL, .nz = -1};
        for (lg k = 0; k < ny; k++) pv[k] = -1;
        lg tot = 0;
        s->ri = NULL;
        for (int pass = 0; pass < 2; pass++) {
            tot = 0;
            for (lg k = 0; k < ny; k++) {
                s->rp[k] = tot;
                lg top = cs_dl_reach(N->L, &Cv, k, xi, pv);
                if (pass) memcpy(s->ri + tot, xi + top, sizeof(lg) * (size_t)(ny - top));
                tot += ny - top;
                pv[k] = k;
            }
            s->rp[ny] = tot;
            for (lg k = 0; k < ny; k++) pv[k] = -1;
            if (!pass && !(s->ri = xmalloc((size_t)tot, sizeof(lg)))) goto nomem;
        }
        /* the replay at this point must give cs_lu's factors bit for bit */
        kx = xmalloc((size_t)nz, sizeof(double));
        lx = xmalloc((size_t)s->nnzl, sizeof(double));
        ux = xmalloc((size_t)s->nnzu, sizeof(double));
        w = calloc((size_t)ny, sizeof(double));
        if (!kx || !lx || !ux || !w) goto nomem;
        k_values(s, dm->x, kx);
        if (memcmp(kx, K->x, sizeof(double) * (size_t)nz)) goto internal;
        if (lu_replay(s, kx, lx, ux, w) ||
            memcmp(lx, N->L->x, sizeof(double) * (size_t)s->nnzl) ||
            memcmp(ux, N->U->x, sizeof(double) * (size_t)s->nnzu))
            goto internal;
        if (solve_patterns(s, P11, pm, P21, N->L, N->U)) goto nomem;
    } else {
        s->rp = calloc(1, sizeof(lg));
        if (!s->rp || solve_patterns(s, P11, pm, P21, NULL, NULL)) goto nomem;
    }
    *out = s;
    s = NULL;
    goto done;
internal:
    st = jg_error_set(err, JG_INTERNAL, "lft analysis: the numeric replay does not reproduce CSparse's LU");
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory in the LFT analysis");
done:
    jg_lft_sym_free(s);
    cs_dl_spfree(pmpat);
    cs_dl_spfree(DM);
    cs_dl_spfree(Id);
    cs_dl_spfree(K);
    cs_dl_sfree(S);
    cs_dl_nfree(N);
    free(xi);
    free(pv);
    free(kx);
    free(lx);
    free(ux);
    free(w);
    return st;
}

void jg_lft_num_free(jg_lft_num_t *w)
{
    if (!w) return;
    free(w->pmx);
    free(w->dmx);
    free(w->kx);
    free(w->lx);
    free(w->ux);
    free(w->x);
    free(w->z);
    free(w->acc);
    free(w->kp);
    free(w->F.p);
    free(w->F.i);
    free(w->F.x);
    cs_dl_spfree(w->fresh);
    free(w);
}

jg_status_t jg_lft_num_create(const jg_lft_sym_t *s, jg_lft_num_t **out, jg_error_t *err)
{
    *out = NULL;
    if (!s) return jg_error_set(err, JG_ARG, "lft work: NULL analysis");
    jg_lft_num_t *w = calloc(1, sizeof *w);
    if (!w) return jg_error_set(err, JG_NOMEM, "out of memory");
    w->s = s;
    lg ny = s->ny, nf = s->fp[s->ni];
    if (s->has_m) {
        w->pmx = xmalloc((size_t)s->pm.nzc, sizeof(double));
        w->dmx = xmalloc((size_t)s->dm.nzc, sizeof(double));
    }
    w->kx = xmalloc((size_t)s->nnzk, sizeof(double));
    w->lx = xmalloc((size_t)s->nnzl, sizeof(double));
    w->ux = xmalloc((size_t)s->nnzu, sizeof(double));
    w->x = calloc((size_t)ny + 1, sizeof(double));
    w->z = calloc((size_t)ny + 1, sizeof(double));
    w->acc = calloc((size_t)s->no + 1, sizeof(double));
    w->kp = xmalloc((size_t)ny + 1, sizeof(lg));
    if (w->kp && ny > 0) memcpy(w->kp, s->kp, sizeof(lg) * (size_t)(ny + 1));
    w->F = (cs_dl){.nzmax = nf, .m = s->no, .n = s->ni, .nz = -1};
    w->F.p = xmalloc((size_t)s->ni + 1, sizeof(lg));
    w->F.i = xmalloc((size_t)nf, sizeof(lg));
    w->F.x = xmalloc((size_t)nf, sizeof(double));
    if ((s->has_m && (!w->pmx || !w->dmx)) || !w->kx || !w->lx || !w->ux || !w->x || !w->z ||
        !w->acc || !w->kp || !w->F.p || !w->F.i || !w->F.x) {
        jg_lft_num_free(w);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    /* K for the condition estimate, whose component search marks K->p in
     * place (so each work has its own p; the row indices are only read) */
    w->K = (cs_dl){.nzmax = s->nnzk, .m = ny, .n = ny, .p = w->kp, .i = s->ki, .x = w->kx, .nz = -1};
    *out = w;
    return JG_OK;
}

/* A fresh factorization for this point (jg_lft), its result kept in w. */
static jg_status_t fresh(jg_lft_num_t *w, const cs_dl *P11, const cs_dl *P12, const cs_dl *P21,
                         const cs_dl *P22, const cs_dl *M, const cs_dl **F, jg_lft_info_t *info,
                         jg_error_t *err)
{
    cs_dl_spfree(w->fresh);
    w->fresh = NULL;
    jg_status_t st = jg_lft(P11, P12, P21, P22, M, &w->fresh, info, err);
    if (info) info->fallback = 1;
    *F = w->fresh;
    return st;
}

int jg_lft_sym_matches(const jg_lft_sym_t *s, const cs_dl *P11, const cs_dl *P12, const cs_dl *P21,
                       const cs_dl *P22, const cs_dl *M)
{
    const cs_dl *ops[5] = {P11, P12, P21, P22, M};
    if (!s || !P11 || !P12 || !P21 || !P22) return 0;
    for (int k = 0; k < 5; k++)
        if (!pat_same(ops[k], &s->pat[k])) return 0;
    return 1;
}

jg_status_t jg_lft_refactor(const jg_lft_sym_t *s, jg_lft_num_t *w, const cs_dl *P11,
                            const cs_dl *P12, const cs_dl *P21, const cs_dl *P22, const cs_dl *M,
                            const cs_dl **F, jg_lft_info_t *info, jg_error_t *err)
{
    *F = NULL;
    if (!s || !w || w->s != s) return jg_error_set(err, JG_ARG, "lft refactor: work of another analysis");
    if (!P11 || !P12 || !P21 || !P22) return jg_error_set(err, JG_ARG, "lft refactor: NULL operand");
    const cs_dl *ops[5] = {P11, P12, P21, P22, M};
    for (int k = 0; k < 5; k++)
        if (!pat_same(ops[k], &s->pat[k])) {
            jg_status_t st = fresh(w, P11, P12, P21, P22, M, F, info, err);
            if (info) info->fallback = 2;
            return st;
        }
    lg ny = s->ny, ni = s->ni;
    if (info) *info = (jg_lft_info_t){.n = ny, .nnz_lu = 0, .rcond = 1, .cond = 1, .cond_row = -1};
    const double *pmx = P12->x, *dmx = P22->x;
    if (M) {
        prod_run(&s->pm, P12->x, M->x, w->pmx);
        prod_run(&s->dm, P22->x, M->x, w->dmx);
        pmx = w->pmx;
        dmx = w->dmx;
    }
    const lg *pmp = M ? s->pm.cp : P12->p, *pmi = M ? s->pm.ci : P12->i;
    if (ny > 0) {
        k_values(s, dmx, w->kx);
        if (lu_replay(s, w->kx, w->lx, w->ux, w->x)) return fresh(w, P11, P12, P21, P22, M, F, info, err);
        /* the guards of jg_lft, in its order, on the same bits */
        for (lg q = 0; q < s->nnzu; q++)
            if (!isfinite(w->ux[q]))
                return jg_error_set(err, JG_NUMERIC,
                                    "the LU factors of I - D*M overflowed (NaN or Inf): the "
                                    "products of the gains along the signal paths exceed the "
                                    "double range");
        double rcond = INFINITY;
        for (lg k = 0; k < ny; k++) {
            lg j = s->q[k];
            double cmax = 0;
            for (lg q = s->kp[j]; q < s->kp[j + 1]; q++) cmax = fmax(cmax, fabs(w->kx[q]));
            double d = fabs(w->ux[s->up[k + 1] - 1]);
            rcond = fmin(rcond, cmax > 0 ? d / cmax : 0);
        }
        if (info) {
            info->rcond = rcond;
            info->nnz_lu = s->nnzl + s->nnzu;
            info->lu_fma = s->lu_fma;
        }
        if (!(rcond > 1e-14))
            return jg_error_set(err, JG_SINGULAR_LOOP,
                                "I - D*M is singular to working precision (smallest pivot %.3g of its column)",
                                rcond);
        if (info) info->cond = jg__lft_condest(&w->K, &info->cond_row);
    }
    /* column j of F: P11(:, j) + PM(:, q) U^-1 L^-1 P21(pinv, j), the solves
     * over the recorded reaches, in cs_spsolve's order */
    double *x = w->x, *z = w->z, *acc = w->acc;
    lg nz = 0;
    for (lg j = 0; j < ni; j++) {
        for (lg k = P11->p[j]; k < P11->p[j + 1]; k++) acc[P11->i[k]] += P11->x[k];
        if (ny > 0 && P21->p[j + 1] > P21->p[j]) {
            const lg *lr = s->lri + s->lrp[j], nl = s->lrp[j + 1] - s->lrp[j];
            const lg *ur = s->uri + s->urp[j], nu = s->urp[j + 1] - s->urp[j];
            for (lg t = 0; t < nl; t++) x[lr[t]] = 0;
            for (lg k = P21->p[j]; k < P21->p[j + 1]; k++) x[s->pinv[P21->i[k]]] = P21->x[k];
            for (lg t = 0; t < nl; t++) {
                lg c = lr[t];
                double xc = x[c];   /* /= L(c, c) == 1: exact */
                for (lg p = s->lp[c] + 1; p < s->lp[c + 1]; p++) x[s->li[p]] -= w->lx[p] * xc;
            }
            for (lg t = 0; t < nu; t++) z[ur[t]] = 0;
            for (lg t = 0; t < nl; t++) z[lr[t]] = x[lr[t]];
            for (lg t = 0; t < nu; t++) {
                lg c = ur[t];
                z[c] /= w->ux[s->up[c + 1] - 1];
                double zc = z[c];
                for (lg p = s->up[c]; p < s->up[c + 1] - 1; p++) z[s->ui[p]] -= w->ux[p] * zc;
            }
            for (lg t = 0; t < nu; t++) {
                double v = z[ur[t]];
                if (v == 0) continue;
                lg c = s->q[ur[t]];
                for (lg u = pmp[c]; u < pmp[c + 1]; u++) acc[pmi[u]] += pmx[u] * v;
            }
        }
        w->F.p[j] = nz;
        for (lg t = s->fp[j]; t < s->fp[j + 1]; t++) {
            lg i = s->fi[t];
            if (acc[i] != 0) {
                w->F.i[nz] = i;
                w->F.x[nz++] = acc[i];
            }
            acc[i] = 0;
        }
    }
    w->F.p[ni] = nz;
    if (info) info->fallback = 0;
    *F = &w->F;
    return JG_OK;
}
