/* The algebraic loop solver: Y = G(Y) on the signals of one algebraic loop
 * by Newton's method with the analytic loop Jacobian, a line search and
 * Broyden updates (one LU solve for a loop of linear blocks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval_impl.h"
#include "../core/dense.h"

/* Signal elements written by the blocks of loop l. */
static int64_t loop_signals(const jg_program_t *p, const int32_t *blk, int32_t nb, int64_t *idx)
{
    int64_t n = 0;
    for (int32_t i = 0; i < nb; i++) {
        const jg_block_t *B = &p->blocks[blk[i]];
        for (int q = 0; q < B->nout; q++)
            for (int64_t e = 0; e < B->out_w[q]; e++) {
                if (idx) idx[n] = p->y_off[jg__outport(p, blk[i], q)] + e;
                n++;
            }
    }
    return n;
}

/* G(Y): with the loop's signals set to Y, the loop's blocks compute new ones.
 * Inputs are gathered for all loop blocks before any output is written. */
static jg_status_t loop_map(jg_eval_work_t *w, const int32_t *blk, int32_t nb, const int64_t *idx,
                            int64_t n, const double *Y, double *GY, jg_error_t *err)
{
    for (int64_t k = 0; k < n; k++) w->y[idx[k]] = Y[k];
    for (int32_t i = 0; i < nb; i++) jg__eval_gather(w, blk[i]);
    for (int32_t i = 0; i < nb; i++) {
        const jg_block_t *B = &w->p->blocks[blk[i]];
        jg_eval_t e;
        jg__eval_make_eval(w, blk[i], &e, err);
        if (B->type->outputs && B->type->outputs(B, &e))
            return err && err->status ? err->status : JG_NUMERIC;
    }
    for (int64_t k = 0; k < n; k++) GY[k] = w->y[idx[k]];
    return JG_OK;
}

/* dG/dY of loop l at the current point, dense column-major n x n, assembled
 * from the loop blocks' analytic d parts and the connections among them (the
 * Jacobian graph's loop edges).  pos maps a signal to its place in Y (-1). */
static jg_status_t loop_jacobian(jg_eval_work_t *w, const int32_t *blk, int32_t nb, int64_t n,
                                 const int64_t *pos, double *J, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    memset(J, 0, sizeof(double) * (size_t)(n * n));
    for (int32_t i = 0; i < nb; i++) {
        const jg_block_t *B = &p->blocks[blk[i]];
        if (!B->npart) continue;
        jg_eval_t e;
        jg__eval_make_eval(w, blk[i], &e, err);
        if (B->type->jacobian(B, &e)) return err && err->status ? err->status : JG_NUMERIC;
        cs_dl *const *part = jg__eval_parts(w, blk[i]);
        for (int k = 0; k < B->npart; k++) {
            if (B->part[k].kind != JG_JAC_D) continue;
            const cs_dl *m = part[k];
            int64_t uo = p->u_off[jg__inport(p, blk[i], B->part[k].col_port)];
            int64_t yo = p->y_off[jg__outport(p, blk[i], B->part[k].row_port)];
            for (int64_t j = 0; j < m->n; j++) {
                int64_t src = w->conn.src[uo + j];
                if (src < 0 || pos[src] < 0) continue;   /* read from outside the loop */
                for (int64_t q = m->p[j]; q < m->p[j + 1]; q++)
                    J[pos[src] * n + pos[yo + m->i[q]]] += m->x[q];
            }
        }
    }
    return JG_OK;
}

static double norm_inf(const double *v, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
    return m;
}

/* Solve Y = G(Y) on loop l (as Simulink solves algebraic loops): Newton's
 * method with the analytic loop Jacobian, a backtracking (weak) line search,
 * and rank-one Broyden updates of the inverse between Jacobian evaluations.
 * The start is the loop's last values (the previous evaluation: a warm start in
 * simulation).  A loop of linear blocks converges in one step. */
jg_status_t jg__eval_solve_loop(jg_eval_work_t *w, int l, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    int32_t nb;
    const int32_t *blk = jg_program_loop(p, l, &nb);
    int linear = 1;
    for (int32_t i = 0; i < nb; i++) linear &= (p->blocks[blk[i]].type->flags & JG_BT_LINEAR) != 0;
    jg_status_t st = JG_OK;
    int64_t n = loop_signals(p, blk, nb, NULL);
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(n + 1));
    double *Y = calloc((size_t)n + 1, sizeof(double)), *GY = malloc(sizeof(double) * (size_t)(n + 1));
    double *R = malloc(sizeof(double) * (size_t)(n + 1)), *dY = malloc(sizeof(double) * (size_t)(n + 1));
    double *Yt = malloc(sizeof(double) * (size_t)(n + 1)), *Rt = malloc(sizeof(double) * (size_t)(n + 1));
    double *H = malloc(sizeof(double) * (size_t)(n * n + 1));   /* (I - dG/dY)^-1 */
    double *v = malloc(sizeof(double) * (size_t)(n + 1)), *u = malloc(sizeof(double) * (size_t)(n + 1));
    if (!w->loop_pos) {
        w->loop_pos = malloc(sizeof(int64_t) * (size_t)(p->ny + 1));
        if (w->loop_pos)
            for (int64_t k = 0; k < p->ny; k++) w->loop_pos[k] = -1;
    }
    if (!idx || !Y || !GY || !R || !dY || !Yt || !Rt || !H || !v || !u || !w->loop_pos) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    loop_signals(p, blk, nb, idx);
    for (int64_t k = 0; k < n; k++) {
        w->loop_pos[idx[k]] = k;
        Y[k] = w->y[idx[k]];
    }
    const int maxit = 50;
    double rn = 0;
    int it = 0, fresh = 0, need_jac = 1;
    if ((st = loop_map(w, blk, nb, idx, n, Y, GY, err))) goto done;
    for (int64_t k = 0; k < n; k++) R[k] = Y[k] - GY[k];
    rn = norm_inf(R, n);
    if (linear) {   /* affine G: one LU solve of (I - dG/dY) dY = -R is exact */
        if ((st = loop_jacobian(w, blk, nb, n, w->loop_pos, H, err))) goto done;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) H[j * n + i] = (i == j) - H[j * n + i];
        for (int64_t k = 0; k < n; k++) dY[k] = -R[k];
        if (jg__dense_solve(n, H, 1, dY)) {
            st = jg_error_set(err, JG_SINGULAR_LOOP,
                              "singular algebraic loop through %s: the loop equations have no "
                              "unique solution",
                              p->loop_names[l]);
            goto done;
        }
        for (int64_t k = 0; k < n; k++) Y[k] += dY[k];
        if ((st = loop_map(w, blk, nb, idx, n, Y, GY, err))) goto done;
        for (int64_t k = 0; k < n; k++) R[k] = Y[k] - GY[k];
        rn = norm_inf(R, n);
        if (!(rn <= 1e-9 * (1 + norm_inf(Y, n))))
            st = jg_error_set(err, JG_NUMERIC,
                              "algebraic loop through %s: residual %.3g after the linear solve "
                              "(ill-conditioned loop)",
                              p->loop_names[l], rn);
        goto done;   /* y holds G(Y), within round-off of Y */
    }
    for (it = 0; it < maxit; it++) {
        /* a Jacobian at the start, even when the start solves the loop (a
         * singular loop has many solutions: never return one of them), and
         * again only when a Broyden step fails to descend */
        if (need_jac) {
            /* the loop blocks' inputs must be those at Y (a rejected trial may
             * have been the last evaluation) */
            if (it > 0 && (st = loop_map(w, blk, nb, idx, n, Y, GY, err))) goto done;
            if ((st = loop_jacobian(w, blk, nb, n, w->loop_pos, H, err))) goto done;
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) H[j * n + i] = (i == j) - H[j * n + i];
            if (jg__dense_inverse(n, H)) {
                st = jg_error_set(err, JG_SINGULAR_LOOP,
                                  "singular algebraic loop through %s: the loop equations have "
                                  "no unique solution",
                                  p->loop_names[l]);
                goto done;
            }
            fresh = 1;
            need_jac = 0;
        }
        if (rn <= 1e-12 * (1 + norm_inf(Y, n))) break;
        for (int64_t i = 0; i < n; i++) {   /* dY = -H R */
            double acc = 0;
            for (int64_t j = 0; j < n; j++) acc += H[j * n + i] * R[j];
            dY[i] = -acc;
        }
        double lambda = 1, rt = INFINITY;
        for (int ls = 0; ls < 30; ls++, lambda *= 0.5) {
            for (int64_t k = 0; k < n; k++) Yt[k] = Y[k] + lambda * dY[k];
            if ((st = loop_map(w, blk, nb, idx, n, Yt, GY, err))) {
                if (st != JG_NUMERIC || linear) goto done;   /* a domain error: shorter step */
                jg_error_clear(err);
                st = JG_OK;
                continue;
            }
            for (int64_t k = 0; k < n; k++) Rt[k] = Yt[k] - GY[k];
            rt = norm_inf(Rt, n);
            if (rt <= (1 - 1e-4 * lambda) * rn || rt <= 1e-12 * (1 + norm_inf(Yt, n))) break;
        }
        if (!(rt < rn)) {   /* no descent: a Broyden inverse is stale, a fresh one failed */
            if (fresh) break;
            need_jac = 1;
            continue;
        }
        /* Broyden's "good" update of the inverse: H += (s - H y) s' H / (s' H y),
         * s = Y_new - Y, y = R_new - R */
        for (int64_t k = 0; k < n; k++) {
            dY[k] = Yt[k] - Y[k];   /* s */
            R[k] = Rt[k] - R[k];    /* y */
        }
        double den = 0;
        for (int64_t i = 0; i < n; i++) {
            double hy = 0, sh = 0;
            for (int64_t j = 0; j < n; j++) {
                hy += H[j * n + i] * R[j];
                sh += dY[j] * H[i * n + j];
            }
            u[i] = dY[i] - hy;
            v[i] = sh;
            den += dY[i] * hy;
        }
        if (fabs(den) > 1e-300)
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) H[j * n + i] += u[i] * v[j] / den;
        fresh = 0;
        memcpy(Y, Yt, sizeof(double) * (size_t)n);
        memcpy(R, Rt, sizeof(double) * (size_t)n);
        rn = rt;
    }
    if (!(rn <= 1e-9 * (1 + norm_inf(Y, n)))) {
        st = jg_error_set(err, JG_NONLINEAR_LOOP,
                          "algebraic loop through %s did not converge: residual %.3g after %d "
                          "Newton iterations",
                          p->loop_names[l], rn, it);
        goto done;
    }
    if ((st = loop_map(w, blk, nb, idx, n, Y, GY, err))) goto done;   /* leave y = G(Y) */
done:
    if (idx && w->loop_pos)
        for (int64_t k = 0; k < n; k++) w->loop_pos[idx[k]] = -1;
    free(idx);
    free(Y);
    free(GY);
    free(R);
    free(dY);
    free(Yt);
    free(Rt);
    free(H);
    free(v);
    free(u);
    return st;
}
