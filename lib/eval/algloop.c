/* The algebraic loop solver: Y = G(Y) on the signals of one algebraic loop
 * by Newton's method with the analytic loop Jacobian (sparse, factored dense
 * or by KLU: algloop_mat.c) and a backtracking line search, stopping on a test
 * that does not depend on the units of the loop's equations. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval_impl.h"
#include "algloop_mat.h"

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

/* Append (i, j, x) to triplet T, growing it; -1 when out of memory. */
static int push(cs_dl *T, int64_t i, int64_t j, double x)
{
    if (T->nz >= T->nzmax && !cs_dl_sprealloc(T, 2 * T->nzmax + 16)) return -1;
    T->i[T->nz] = i;
    T->p[T->nz] = j;
    T->x[T->nz++] = x;
    return 0;
}

/* dG/dY of the loop at the current point as triplets (row, column, value) in
 * T (reset first), from the loop blocks' analytic d parts and the connections
 * among them.  pos maps a signal to its place in Y (-1: outside the loop). */
static jg_status_t loop_jacobian(jg_eval_work_t *w, const int32_t *blk, int32_t nb,
                                 const int64_t *pos, cs_dl *T, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    T->nz = 0;
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
                    if (push(T, pos[yo + m->i[q]], pos[src], m->x[q]))
                        return jg_error_set(err, JG_NOMEM, "out of memory");
            }
        }
    }
    return JG_OK;
}

/* Largest magnitude; NaN when any entry is NaN (fmax would skip it and call a
 * NaN residual converged). */
static double norm_inf(const double *v, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(v[i])) return NAN;
        m = fmax(m, fabs(v[i]));
    }
    return m;
}

/* The componentwise backward error of R = Y - G(Y) (Oettli and Prager):
 * max_i |R_i| / T_i, where T_i is the magnitude of the terms that make up
 * R_i: |Y_i|, the terms |J_ij Y_j| of G_i and what G_i adds from outside the
 * loop |c_i| (c = G - J Y), and one level further the terms of the signals G_i
 * reads (so that the row of an Algebraic Constraint, 0 = f, is measured
 * against the terms of f, not against nothing).  Round-off in evaluating G
 * makes it a few eps, whatever the units of each equation.  J is the triplet
 * form of dG/dY at Y; g is scratch of n. */
static double backward_error(const cs_dl *J, int64_t n, const double *Y, const double *GY,
                             const double *R, double *g, double *c)
{
    for (int64_t i = 0; i < n; i++) {
        g[i] = 0;
        c[i] = GY[i];
    }
    for (int64_t k = 0; k < J->nz; k++) {
        g[J->i[k]] += fabs(J->x[k] * Y[J->p[k]]);
        c[J->i[k]] -= J->x[k] * Y[J->p[k]];
    }
    for (int64_t i = 0; i < n; i++) g[i] += fabs(c[i]);   /* g: terms of G_i */
    for (int64_t i = 0; i < n; i++) c[i] = fabs(Y[i]) + g[i];
    for (int64_t k = 0; k < J->nz; k++) c[J->i[k]] += fabs(J->x[k]) * g[J->p[k]];
    double w = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(R[i]) || isnan(c[i])) return NAN;
        if (R[i] == 0) continue;
        w = fmax(w, c[i] > 0 ? fabs(R[i]) / c[i] : INFINITY);
    }
    return w;
}

/* Convergence: the Newton step is at the round-off of the solution's size
 * (scale-free: a step is in Y's units whatever the units of the residual).  A
 * small backward error alone is not enough: y = y + 1e-20 f(y) has a tiny one
 * far from its root. */
#define STEP_TOL 1e-12
/* Acceptance when Newton stagnates (an ill-conditioned loop, whose steps are
 * round-off noise): a step at 1e-9 of the solution, or the residual at the
 * round-off of its terms (the condition warning of linearization says what
 * that means for the result). */
#define STEP_ACCEPT 1e-9
#define BERR_ACCEPT 1e-10

/* Solve Y = G(Y) on loop l (as Simulink solves algebraic loops): Newton's
 * method with the analytic loop Jacobian and a backtracking (weak) line
 * search.  The start is the loop's last values (the previous evaluation: a
 * warm start in simulation).  A loop of linear blocks starts from 0 and is
 * factored once: its first step is exact and the second an iterative
 * refinement. */
jg_status_t jg__eval_solve_loop(jg_eval_work_t *w, int l, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    int32_t nb;
    const int32_t *blk = jg_program_loop(p, l, &nb);
    int linear = 1;
    for (int32_t i = 0; i < nb; i++) linear &= (p->blocks[blk[i]].type->flags & JG_BT_LINEAR) != 0;
    jg_status_t st = JG_OK;
    int placed = 0;   /* loop_pos holds this loop's places (cleared at done) */
    int64_t n = loop_signals(p, blk, nb, NULL);
    size_t vb = sizeof(double) * (size_t)(n + 1);
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(n + 1));
    double *Y = calloc((size_t)n + 1, sizeof(double)), *GY = malloc(vb), *R = malloc(vb);
    double *dY = malloc(vb), *Yt = malloc(vb), *Gt = malloc(vb), *Rt = malloc(vb);
    double *s1 = malloc(vb), *s2 = malloc(vb);
    cs_dl *T = cs_dl_spalloc(n, n, 2 * n + 16, 1, 1), *K = NULL;
    jg__loopmat_t *lm = jg__loopmat_new(n);
    if (!w->loop_pos) {
        w->loop_pos = malloc(sizeof(int64_t) * (size_t)(p->ny + 1));
        if (w->loop_pos)
            for (int64_t k = 0; k < p->ny; k++) w->loop_pos[k] = -1;
    }
    if (!idx || !Y || !GY || !R || !dY || !Yt || !Gt || !Rt || !s1 || !s2 || !T || !lm ||
        !w->loop_pos) {
        st = jg_error_set(err, JG_NOMEM, "out of memory solving the algebraic loop through %s",
                          p->loop_names[l]);
        goto done;
    }
    loop_signals(p, blk, nb, idx);
    /* a nonlinear loop starts from its last values (a warm start, and the
     * root nearest to them); a linear one from 0, so that its solution does
     * not carry the round-off of whatever was evaluated before (the error of a
     * solve grows with the distance it travels) */
    for (int64_t k = 0; k < n; k++) {
        w->loop_pos[idx[k]] = k;
        Y[k] = linear ? 0.0 : w->y[idx[k]];
    }
    placed = 1;
    const int maxit = linear ? 4 : 50;   /* linear: the solve and refinements */
    int it = 0, converged = 0, factored = 0;
    double yscale = norm_inf(Y, n), sn = INFINITY, berr = INFINITY;
    if ((st = loop_map(w, blk, nb, idx, n, Y, GY, err))) goto done;
    for (int64_t k = 0; k < n; k++) R[k] = Y[k] - GY[k];
    double rn = norm_inf(R, n);
    for (it = 0; it < maxit; it++) {
        /* a factored Jacobian at the start, even when the start solves the
         * loop (a singular loop has many solutions: never return one of
         * them); at every iterate of a nonlinear loop (the loop blocks'
         * inputs are those at Y: the last evaluation was at Y) */
        if (!factored || !linear) {
            if ((st = loop_jacobian(w, blk, nb, w->loop_pos, T, err))) goto done;
            cs_dl_spfree(K);
            /* K = I - dG/dY: the identity goes in as triplets too, so that an
             * Algebraic Constraint's self-loop cancels it exactly */
            int64_t nzj = T->nz;
            for (int64_t k = 0; k < nzj; k++) T->x[k] = -T->x[k];
            for (int64_t i = 0; i < n; i++)
                if (push(T, i, i, 1.0)) {
                    st = jg_error_set(err, JG_NOMEM, "out of memory");
                    goto done;
                }
            K = cs_dl_compress(T);
            T->nz = nzj;
            for (int64_t k = 0; k < nzj; k++) T->x[k] = -T->x[k];   /* T is dG/dY again */
            if (!K || !cs_dl_dupl(K)) {
                st = jg_error_set(err, JG_NOMEM, "out of memory");
                goto done;
            }
            int r = jg__loopmat_factor(lm, K);
            if (r < 0) {
                st = jg_error_set(err, JG_NOMEM, "out of memory factoring the algebraic loop through %s",
                                  p->loop_names[l]);
                goto done;
            }
            if (r) {
                st = jg_error_set(err, JG_SINGULAR_LOOP,
                                  "singular algebraic loop through %s: the loop equations have no "
                                  "unique solution",
                                  p->loop_names[l]);
                goto done;
            }
            factored = 1;
        }
        /* the Newton step dY = -K^-1 R and the tests */
        for (int64_t k = 0; k < n; k++) dY[k] = -R[k];
        jg__loopmat_solve(lm, dY);
        sn = norm_inf(dY, n);
        for (int64_t k = 0; k < n; k++) Yt[k] = Y[k] + dY[k];
        yscale = fmax(yscale, fmax(norm_inf(Y, n), norm_inf(Yt, n)));
        berr = backward_error(T, n, Y, GY, R, s1, s2);
        if (rn == 0) {
            converged = 1;
            break;
        }
        if (sn <= STEP_TOL * yscale) {   /* take the (tiny) last step: Newton squares the error */
            memcpy(Y, Yt, sizeof(double) * (size_t)n);
            converged = 1;
            break;
        }
        double lambda = 1, rt = INFINITY;
        int evaluated = 0;
        for (int ls = 0; ls < 30; ls++, lambda *= 0.5) {
            for (int64_t k = 0; k < n; k++) Yt[k] = Y[k] + lambda * dY[k];
            evaluated = 1;
            if ((st = loop_map(w, blk, nb, idx, n, Yt, Gt, err))) {
                if (st != JG_NUMERIC || linear) goto done;   /* a domain error: shorter step */
                jg_error_clear(err);
                st = JG_OK;
                rt = INFINITY;
                continue;
            }
            for (int64_t k = 0; k < n; k++) Rt[k] = Yt[k] - Gt[k];
            rt = norm_inf(Rt, n);
            if (rt <= (1 - 1e-4 * lambda) * rn || rt == 0) break;
        }
        if (!(rt < rn)) {   /* no descent along a fresh Newton direction: stagnation */
            /* the blocks' inputs must be those at Y again for the final map */
            if (evaluated && (st = loop_map(w, blk, nb, idx, n, Y, GY, err))) goto done;
            break;
        }
        memcpy(Y, Yt, sizeof(double) * (size_t)n);
        memcpy(GY, Gt, sizeof(double) * (size_t)n);
        memcpy(R, Rt, sizeof(double) * (size_t)n);
        rn = rt;
    }
    if (!converged && !(sn <= STEP_ACCEPT * yscale || berr <= BERR_ACCEPT)) {
        if (linear)
            st = jg_error_set(err, JG_NUMERIC,
                              "algebraic loop through %s: the linear solve left a residual of "
                              "%.3g (backward error %.3g, last correction %.3g of the solution's "
                              "size %.3g): the loop is ill-conditioned",
                              p->loop_names[l], rn, berr, sn, yscale);
        else
            st = jg_error_set(err, JG_NONLINEAR_LOOP,
                              "algebraic loop through %s did not converge: residual %.3g "
                              "(backward error %.3g, last Newton step %.3g of the solution's size "
                              "%.3g) after %d Newton iterations",
                              p->loop_names[l], rn, berr, sn, yscale, it);
        goto done;
    }
    /* the loop blocks' inputs at Y, and the signals Y itself: G(Y) differs by
     * round-off in the units of each equation, which for an Algebraic
     * Constraint (y = y + s f) is s times the round-off of f */
    if ((st = loop_map(w, blk, nb, idx, n, Y, GY, err))) goto done;
    for (int64_t k = 0; k < n; k++) w->y[idx[k]] = Y[k];
done:
    if (placed)
        for (int64_t k = 0; k < n; k++) w->loop_pos[idx[k]] = -1;
    free(idx);
    free(Y);
    free(GY);
    free(R);
    free(dY);
    free(Yt);
    free(Gt);
    free(Rt);
    free(s1);
    free(s2);
    cs_dl_spfree(T);
    cs_dl_spfree(K);
    jg__loopmat_free(lm);
    return st;
}

double *jg__eval_signals_w(jg_eval_work_t *w) { return w->y; }
