/* The Runge-Kutta stage loop (FSAL included), the step's acceptance and the tableau's dense output,
 * shared by the fixed-step (rk_fixed.c) and the embedded (rk_adaptive.c) methods. */
#include <string.h>
#include "solver_impl.h"

jg_status_t jg__rk_first_stage(jg_solver_t *s, jg_error_t *err)
{
    const int ns = s->tab->stages;
    s->tprev = s->t;   /* the stages of the last step are about to be overwritten */
    s->hlast = 0;
    if (ns == 0 || s->have_k0) return JG_OK;
    if (s->fsal_pending) {
        double *k0 = s->k[0];
        s->k[0] = s->k[ns - 1];
        s->k[ns - 1] = k0;
        s->fsal_pending = 0;
    } else {
        int r = jg__rk_call(s, s->t, s->x, s->k[0]);
        if (r < 0) return jg__rk_rhs_error(s, s->t, r, err);
        if (r > 0)
            return jg_error_set(err, JG_NUMERIC,
                                "solver '%s': right-hand side rejected the current state at t = %.17g "
                                "(returned %d), no smaller step can help", s->name, s->t, r);
    }
    s->have_k0 = 1;
    return JG_OK;
}

int jg__rk_attempt(jg_solver_t *s, double h, double tnew, double *tfail)
{
    const jg_rk_tableau_t *tb = s->tab;
    const int ns = tb->stages, last = tb->fsal ? ns - 1 : ns;
    const int64_t n = s->n;
    double *xs = s->xs, *xnew = s->xnew;
    const double *x = s->x;
    for (int i = 1; i < last; i++) {
        memcpy(xs, x, (size_t)n * sizeof(double));
        for (int l = 0; l < i; l++) {
            double ha = h * tb->a[i * ns + l];
            if (ha == 0) continue;
            const double *kl = s->k[l];
            for (int64_t j = 0; j < n; j++) xs[j] += ha * kl[j];
        }
        double ti = tb->c[i] == 1 ? tnew : s->t + tb->c[i] * h;
        int r = jg__rk_call(s, ti, xs, s->k[i]);
        if (r) {
            *tfail = ti;
            return r;
        }
    }
    memcpy(xnew, x, (size_t)n * sizeof(double));
    for (int l = 0; l < last; l++) {
        double hb = h * tb->b[l];
        if (hb == 0) continue;
        const double *kl = s->k[l];
        for (int64_t j = 0; j < n; j++) xnew[j] += hb * kl[j];
    }
    if (tb->fsal) {
        int r = jg__rk_call(s, tnew, xnew, s->k[ns - 1]);
        if (r) {
            *tfail = tnew;
            return r;
        }
    }
    return 0;
}

void jg__rk_accept(jg_solver_t *s, double tnew, double h)
{
    jg__solver_accept(s, tnew, h);
    s->have_k0 = 0;
    s->fsal_pending = s->tab->fsal;
}

/* x0 + h sum_i b_i(theta) k_i, the b_i(theta) by Horner (jg_rk_tableau_t). */
jg_status_t jg__rk_interpolate(const jg_solver_t *s, double tq, double *xq)
{
    const size_t bytes = (size_t)s->n * sizeof(double);
    const jg_rk_tableau_t *tb = s->tab;
    const int ns = tb->stages, nd = tb->ndense;
    const double theta = (tq - s->tprev) / s->hlast;
    double hb[JG__RK_MAX_STAGES];
    for (int i = 0; i < ns; i++) {
        const double *d = tb->d + i * nd;
        double v = 0;
        for (int p = nd - 1; p >= 0; p--) v = (v + d[p]) * theta;   /* Horner, lowest power theta */
        hb[i] = s->hlast * v;
    }
    if (bytes) memcpy(xq, s->xprev, bytes);
    for (int i = 0; i < ns; i++) {
        if (hb[i] == 0) continue;
        const double *ki = s->k[i];
        for (int64_t j = 0; j < s->n; j++) xq[j] += hb[i] * ki[j];
    }
    return JG_OK;
}
