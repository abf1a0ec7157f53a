/* Numeric phase of the Jacobian graph: load the edge values of the current
 * block Jacobians and replay the elimination tape.  Allocates nothing. */
#include <math.h>
#include <string.h>
#include "graph_impl.h"
#include "../core/dense.h"

/* C += A * B; C's pattern contains the product's (decided symbolically). */
static void muladd(jg_graph_t *g, const jg_gmat_t *A, const jg_gmat_t *B, const jg_gmat_t *C)
{
    const double *ax = g->x + A->xoff, *bx = g->x + B->xoff;
    double *cx = g->x + C->xoff, *ws = g->ws;
    if (A->m == 1 && A->n == 1 && B->n == 1 && C->p[1] == 1 && B->p[1] == 1 && A->p[1] == 1) {
        cx[0] += ax[0] * bx[0];   /* scalar signals: the common case */
        return;
    }
    for (int64_t j = 0; j < B->n; j++) {
        for (int64_t kk = B->p[j]; kk < B->p[j + 1]; kk++) {
            int64_t k = B->i[kk];
            double bkj = bx[kk];
            for (int64_t ii = A->p[k]; ii < A->p[k + 1]; ii++) ws[A->i[ii]] += ax[ii] * bkj;
        }
        for (int64_t cc = C->p[j]; cc < C->p[j + 1]; cc++) {
            cx[cc] += ws[C->i[cc]];
            ws[C->i[cc]] = 0;
        }
    }
}

/* S = (I - D)^-1 into S's dense (column-major) storage. */
static int invert(jg_graph_t *g, const jg_gmat_t *D, const jg_gmat_t *S)
{
    int64_t n = S->m;
    double *s = g->x + S->xoff;
    const double *dx = g->x + D->xoff;
    if (n == 1) {
        double d = D->p[1] ? dx[0] : 0.0, k = 1.0 - d;
        if (!(fabs(k) > 1e-14 * fmax(1.0, fabs(d)))) return 1;
        s[0] = 1.0 / k;
        return 0;
    }
    for (int64_t k = 0; k < n * n; k++) s[k] = 0;
    for (int64_t j = 0; j < n; j++) {
        s[j * n + j] = 1;
        for (int64_t kk = D->p[j]; kk < D->p[j + 1]; kk++) s[j * n + D->i[kk]] -= dx[kk];
    }
    return jg__dense_inverse(n, s);
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
            int64_t k = K->i[kk];
            double v = kx[kk];
            for (int64_t i = 0; i < n; i++) col[i] += s[k * n + i] * v;
        }
    }
}

/* Scatter old's values into new's larger pattern (new is zero). */
static void expand(jg_graph_t *g, const jg_gmat_t *O, const jg_gmat_t *N)
{
    const double *ox = g->x + O->xoff;
    double *nx = g->x + N->xoff;
    for (int64_t j = 0; j < O->n; j++) {
        int64_t c = N->p[j];
        for (int64_t k = O->p[j]; k < O->p[j + 1]; k++) {
            while (N->i[c] < O->i[k]) c++;
            nx[c] = ox[k];
        }
    }
}

jg_status_t jg__graph_replay(jg_graph_t *g, const jg_eval_work_t *w, jg_error_t *err)
{
    memcpy(g->x, g->x_init, sizeof(double) * (size_t)g->x_orig);
    for (int64_t k = 0; k < g->npartedge; k++) {
        const jg_gmat_t *m = &g->mat[g->pe_mat[k]];
        memcpy(g->x + m->xoff, jg__eval_jac_values(w, g->pe_part[k]),
               sizeof(double) * (size_t)jg__nnz(m));
    }
    memset(g->x + g->x_orig, 0, sizeof(double) * (size_t)(g->nx - g->x_orig));
    for (int64_t k = 0; k < g->ops_n; k++) {
        const jg_gop_t *op = &g->ops[k];
        switch (op->code) {
        case OP_MULADD: muladd(g, &g->mat[op->a], &g->mat[op->b], &g->mat[op->c]); break;
        case OP_SCALE: scale(g, &g->mat[op->a], &g->mat[op->b], &g->mat[op->c]); break;
        case OP_EXPAND: expand(g, &g->mat[op->a], &g->mat[op->c]); break;
        case OP_INV:
            if (invert(g, &g->mat[op->a], &g->mat[op->c])) {
                const jg_gvert_t *v = &g->v[op->b];
                const jg_program_t *p = g->prog;
                int l = v->block >= 0 ? p->blk_loop[v->block] : -1;
                return jg_error_set(err, JG_SINGULAR_LOOP,
                                    "singular algebraic loop: I - D is singular at vertex '%s'%s%s",
                                    jg_graph_vertex_label(g, op->b),
                                    l >= 0 ? "; the loop goes through " : "",
                                    l >= 0 ? p->loop_names[l] : "");
            }
            break;
        }
    }
    g->replayed = 1;
    return JG_OK;
}
