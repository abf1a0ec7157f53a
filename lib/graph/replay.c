/* Numeric phase of the Jacobian graph: load the edge values of the current
 * block Jacobians and replay the elimination tape, operation by operation
 * (the elimination's own numeric side, and the reference the compiled
 * replay of tape.c reproduces bit for bit).  Allocates nothing: a dense
 * pivot's LU uses the workspace the symbolic phase sized
 * (jg__graph_inverse_reserve).  A counting mode (jg__graph_replay_count)
 * counts the multiply-adds it executes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "graph_impl.h"
#include "../core/dense.h"

/* C += A * B; C's pattern contains the product's (decided symbolically).
 * cnt non-NULL: add the multiply-adds executed (inlined twice, so the
 * normal replay has no counting in its loop). */
static inline __attribute__((always_inline)) void
muladd_impl(jg_graph_t *g, const jg_gmat_t *A, const jg_gmat_t *B, const jg_gmat_t *C, int64_t *cnt)
{
    const double *ax = g->x + A->xoff, *bx = g->x + B->xoff;
    double *cx = g->x + C->xoff, *ws = g->ws;
    if (A->m == 1 && A->n == 1 && B->n == 1 && C->p[1] == 1 && B->p[1] == 1 && A->p[1] == 1) {
        cx[0] += ax[0] * bx[0];   /* scalar signals: the common case */
        if (cnt) ++*cnt;
        return;
    }
    for (int64_t j = 0; j < B->n; j++) {
        for (int64_t kk = B->p[j]; kk < B->p[j + 1]; kk++) {
            int64_t k = jg__gmat_i(B)[kk];
            double bkj = bx[kk];
            for (int64_t ii = A->p[k]; ii < A->p[k + 1]; ii++) ws[jg__gmat_i(A)[ii]] += ax[ii] * bkj;
            if (cnt) *cnt += A->p[k + 1] - A->p[k];
        }
        for (int64_t cc = C->p[j]; cc < C->p[j + 1]; cc++) {
            cx[cc] += ws[jg__gmat_i(C)[cc]];
            ws[jg__gmat_i(C)[cc]] = 0;
        }
    }
}

static void muladd(jg_graph_t *g, const jg_gmat_t *A, const jg_gmat_t *B, const jg_gmat_t *C)
{
    if (g->fma_count)
        muladd_impl(g, A, B, C, &g->fma_count[2]);
    else
        muladd_impl(g, A, B, C, NULL);
}

/* C += A where C's pattern contains A's (a product with a connection
 * identity: no multiplication). */
static void add(jg_graph_t *g, const jg_gmat_t *A, const jg_gmat_t *C)
{
    const double *ax = g->x + A->xoff;
    double *cx = g->x + C->xoff;
    for (int64_t j = 0; j < A->n; j++) {
        int64_t c = C->p[j];
        for (int64_t k = A->p[j]; k < A->p[j + 1]; k++) {
            while (jg__gmat_i(C)[c] < jg__gmat_i(A)[k]) c++;
            cx[c] += ax[k];
        }
    }
}

int jg__graph_inverse_reserve(jg_graph_t *g, int64_t n)
{
    if (n <= g->inv_cap) return 0;
    void *ip = malloc(jg__dense_ipiv_bytes(n));
    double *w = malloc(sizeof(double) * (size_t)n * 64);
    if (!ip || !w) {
        free(ip);
        free(w);
        return -1;
    }
    free(g->inv_ipiv);
    free(g->inv_work);
    g->inv_ipiv = ip;
    g->inv_work = w;
    g->inv_cap = n;
    return 0;
}

/* Largest column sum of |x| over n columns of an n-row dense matrix. */
static double norm1_dense(int64_t n, const double *x)
{
    double m = 0;
    for (int64_t j = 0; j < n; j++) {
        double c = 0;
        for (int64_t i = 0; i < n; i++) c += fabs(x[j * n + i]);
        m = fmax(m, c);
    }
    return m;
}

/* The pivot block of an elimination is I - D.  Its condition as a pivot is
 * that of D -> (I - D)^-1: max(1, |D|) |(I - D)^-1|.  For a scalar it is
 * max(1, |d|) / |1 - d|, the relative error that forming 1 - d from a d
 * known to the last bit passes on: 1e8 for d = 1 - 1e-8, where the loop as
 * a whole may be perfectly conditioned. */
double jg__graph_pivot(jg_graph_t *g, int64_t dmat, int64_t n, double *s)
{
    const jg_gmat_t *D = dmat >= 0 ? &g->mat[dmat] : NULL;
    const double *dx = D ? g->x + D->xoff : NULL;
    if (n == 1) {
        double d = D && D->p[1] ? dx[0] : 0.0, k = 1.0 - d, sc = fmax(1.0, fabs(d));
        if (!(fabs(k) > 1e-14 * sc)) return INFINITY;   /* NaN too */
        s[0] = 1.0 / k;
        return sc / fabs(k);
    }
    for (int64_t k = 0; k < n * n; k++) s[k] = 0;
    double dn = 0;
    for (int64_t j = 0; j < n; j++) {
        s[j * n + j] = 1;
        double c = 0;
        if (D)
            for (int64_t kk = D->p[j]; kk < D->p[j + 1]; kk++) {
                s[j * n + jg__gmat_i(D)[kk]] -= dx[kk];
                c += fabs(dx[kk]);
            }
        dn = fmax(dn, c);
    }
    /* LU with partial pivoting, in the workspace the symbolic phase sized
     * (the elimination's own trials, before it is sized, allocate) */
    int r = n <= g->inv_cap ? jg__dense_inverse_ws(n, s, g->inv_ipiv, g->inv_work, n * 64)
                            : jg__dense_inverse(n, s);
    if (r) return INFINITY;
    double c = fmax(1.0, dn) * norm1_dense(n, s);
    return isfinite(c) ? c : INFINITY;
}

double jg__graph_pivot_diag(jg_graph_t *g, int64_t dmat, int64_t n, double *s)
{
    const jg_gmat_t *D = dmat >= 0 ? &g->mat[dmat] : NULL;
    const double *dx = D ? g->x + D->xoff : NULL;
    double cmax = 1;
    for (int64_t j = 0; j < n; j++) {
        /* as the scalar case of jg__graph_pivot: the same bits per entry */
        double d = D && D->p[j + 1] > D->p[j] ? dx[D->p[j]] : 0.0, k = 1.0 - d,
               sc = fmax(1.0, fabs(d));
        if (!(fabs(k) > 1e-14 * sc)) return INFINITY;   /* NaN too */
        s[j] = 1.0 / k;
        cmax = fmax(cmax, sc / fabs(k));
    }
    return isfinite(cmax) ? cmax : INFINITY;
}

int jg__gmat_diagonal(const jg_graph_t *g, int64_t dmat)
{
    if (dmat < 0) return 1;
    const jg_gmat_t *D = &g->mat[dmat];
    if (D->m != D->n) return 0;
    for (int64_t j = 0; j < D->n; j++)
        for (int64_t k = D->p[j]; k < D->p[j + 1]; k++)
            if (jg__gmat_i(D)[k] != j) return 0;
    return 1;
}

/* S = (I - D)^-1 into S's dense (column-major) storage; 1 when singular.
 * Records the pivot's condition (jg__graph_pivot) for the caller's guard. */
static int invert(jg_graph_t *g, int64_t dmat, int64_t v, const jg_gmat_t *S)
{
    double c = jg__graph_pivot(g, dmat, S->m, g->x + S->xoff);
    /* LAPACK's LU and inverse (getrf + getri) take about n^3 multiply-adds;
     * the count cannot look inside them and takes the model's n^3 */
    if (g->fma_count) g->fma_count[0] += S->m * S->m * S->m;
    if (c > g->piv_cond) g->piv_cond = c;
    if (c > JG__GRAPH_PIVOT_COND_MAX && g->guard_v < 0) {
        g->guard_v = v;
        g->guard_cond = c;
    }
    return c == INFINITY;
}

/* The same for a diagonal D: S holds the diagonal of (I - D)^-1 only. */
static int invert_diag(jg_graph_t *g, int64_t dmat, int64_t v, const jg_gmat_t *S)
{
    double c = jg__graph_pivot_diag(g, dmat, S->m, g->x + S->xoff);
    if (g->fma_count) g->fma_count[0] += S->m;   /* one reciprocal per entry */
    if (c > g->piv_cond) g->piv_cond = c;
    if (c > JG__GRAPH_PIVOT_COND_MAX && g->guard_v < 0) {
        g->guard_v = v;
        g->guard_cond = c;
    }
    return c == INFINITY;
}

/* T = S * Ke with T's columns full where Ke's are nonempty. */
static void scale(jg_graph_t *g, const jg_gmat_t *S, const jg_gmat_t *K, const jg_gmat_t *T)
{
    int64_t n = S->m;
    const double *s = g->x + S->xoff, *kx = g->x + K->xoff;
    double *tx = g->x + T->xoff;
    for (int64_t j = 0; j < K->n; j++) {
        if (T->p[j + 1] == T->p[j]) continue;
        double *col = tx + T->p[j];
        for (int64_t i = 0; i < n; i++) col[i] = 0;
        for (int64_t kk = K->p[j]; kk < K->p[j + 1]; kk++) {
            int64_t k = jg__gmat_i(K)[kk];
            double v = kx[kk];
            for (int64_t i = 0; i < n; i++) col[i] += s[k * n + i] * v;
            if (g->fma_count) g->fma_count[1] += n;
        }
    }
}

/* T = S * Ke for a diagonal S (entry j of S at x[S->p[j]]): T has Ke's
 * pattern, each entry scaled by its row's pivot. */
static void scale_diag(jg_graph_t *g, const jg_gmat_t *S, const jg_gmat_t *K, const jg_gmat_t *T)
{
    const double *s = g->x + S->xoff, *kx = g->x + K->xoff;
    double *tx = g->x + T->xoff;
    for (int64_t kk = 0; kk < jg__nnz(K); kk++) tx[kk] = s[jg__gmat_i(K)[kk]] * kx[kk];
    if (g->fma_count) g->fma_count[1] += jg__nnz(K);
}

/* Scatter old's values into new's larger pattern (new is zero). */
static void expand(jg_graph_t *g, const jg_gmat_t *O, const jg_gmat_t *N)
{
    const double *ox = g->x + O->xoff;
    double *nx = g->x + N->xoff;
    for (int64_t j = 0; j < O->n; j++) {
        int64_t c = N->p[j];
        for (int64_t k = O->p[j]; k < O->p[j + 1]; k++) {
            while (jg__gmat_i(N)[c] < jg__gmat_i(O)[k]) c++;
            nx[c] = ox[k];
        }
    }
}

void jg__graph_load(jg_graph_t *g, const jg_eval_work_t *w)
{
    if (g->x_init8)
        for (int64_t k = 0; k < g->x_orig; k++) g->x[k] = (double)g->x_init8[k];
    else
        memcpy(g->x, g->x_init, sizeof(double) * (size_t)g->x_orig);
    for (int64_t k = 0; k < g->npartedge; k++) {
        const jg_gmat_t *m = &g->mat[g->pe_mat[k]];
        memcpy(g->x + m->xoff, jg__eval_jac_values(w, g->pe_part[k]),
               sizeof(double) * (size_t)jg__nnz(m));
    }
    memset(g->x + g->x_orig, 0, sizeof(double) * (size_t)(g->nx - g->x_orig));
    g->piv_cond = 1;
    g->guard_v = -1;
    g->guard_cond = 0;
}

int jg__gop_exec(jg_graph_t *g, int64_t k)
{
    const jg_gop_t *op = &g->ops[k];
    switch (op->code) {
    case OP_MULADD: muladd(g, &g->mat[op->a], &g->mat[op->b], &g->mat[op->c]); break;
    case OP_SCALE: scale(g, &g->mat[op->a], &g->mat[op->b], &g->mat[op->c]); break;
    case OP_EXPAND: expand(g, &g->mat[op->a], &g->mat[op->c]); break;
    case OP_INV: return invert(g, op->a, op->b, &g->mat[op->c]);
    case OP_SCALED: scale_diag(g, &g->mat[op->a], &g->mat[op->b], &g->mat[op->c]); break;
    case OP_INVD: return invert_diag(g, op->a, op->b, &g->mat[op->c]);
    case OP_ADD: add(g, &g->mat[op->a], &g->mat[op->c]); break;
    }
    return 0;
}

/* The error of a replay stopped by tape operation k's singular pivot. */
static jg_status_t singular(const jg_graph_t *g, int64_t k, jg_error_t *err)
{
    const jg_gvert_t *v = &g->v[g->ops[k].b];
    const jg_program_t *p = g->prog;
    int l = v->block >= 0 ? p->blk_loop[v->block] : -1;
    return jg_error_set(err, JG_SINGULAR_LOOP,
                        "singular algebraic loop: I - D is singular at vertex '%s'%s%s",
                        jg_graph_vertex_label(g, g->ops[k].b),
                        l >= 0 ? "; the loop goes through " : "", l >= 0 ? p->loop_names[l] : "");
}

/* 1 when g's replay runs the compiled program, compiling it now if it has
 * not been tried for this tape. */
static int compiled(jg_graph_t *g)
{
    if (jg__tape_current(g)) return 1;
    if (g->tape_failed == g->ops_n + 1) return 0;
    if (!jg__tape_compile(g)) return 1;
    g->tape_failed = g->ops_n + 1;
    return 0;
}

jg_status_t jg__graph_compile(jg_graph_t *g) { return compiled(g) ? JG_OK : JG_NOMEM; }

jg_status_t jg__graph_replay(jg_graph_t *g, const jg_eval_work_t *w, jg_error_t *err)
{
    g->replayed = 0;
    /* the compiled program (tape.c), built on the first replay unless a view
     * shares its graph's; interpreted when counting, or when it cannot be
     * built (the same values either way) */
    if (!g->fma_count && compiled(g)) {
        int64_t k = jg__tape_run(g, w);
        if (k >= 0) return singular(g, k, err);
        if (k == -1) {
            g->replayed = 1;
            return JG_OK;
        }
    }
    jg__graph_load(g, w);
    for (int64_t k = 0; k < g->ops_n; k++)
        if (jg__gop_exec(g, k)) return singular(g, k, err);
    g->replayed = 1;
    return JG_OK;
}

jg_status_t jg__graph_replay_count(jg_graph_t *g, const jg_eval_work_t *w, int64_t fma[3],
                                   jg_error_t *err)
{
    fma[0] = fma[1] = fma[2] = 0;
    g->fma_count = fma;
    jg_status_t st = jg__graph_replay(g, w, err);
    g->fma_count = NULL;
    return st;
}
