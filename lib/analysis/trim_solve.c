/* Trim: the residual equations of a specification and their solution by
 * projected Levenberg-Marquardt on the Jacobian of trim_jac.c (Madsen,
 * Nielsen & Tingleff, "Methods for Non-Linear Least Squares Problems",
 * Algorithm 3.16: damping mu on J'J + mu I, gain-ratio update). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trim_impl.h"
#include "../core/dense.h"

static char *eq_name(const char *fmt, const char *name, double a, double b)
{
    size_t n = strlen(name) + 96;
    char *s = malloc(n);
    if (s) snprintf(s, n, fmt, name, a, b);
    return s;
}

/* The equations of the current specification (see analysis.h), in order. */
static jg_status_t build_equations(jg_analysis_trim_t *t, jg_error_t *err)
{
    const jg__trim_spec_t *s = &t->spec;
    for (int64_t k = 0; k < t->neq; k++) free(t->eq[k].name);
    free(t->eq);
    free(t->res);
    t->neq = 0;
    t->eq = malloc(sizeof(jg__trim_eq_t) * (size_t)(t->nx + t->nd + t->ny + 1));
    t->res = calloc((size_t)(t->nx + t->nd + t->ny) + 1, sizeof(double));
    if (!t->eq || !t->res) return jg_error_set(err, JG_NOMEM, "out of memory");
    for (int64_t i = 0; i < t->nx + t->nd; i++) {
        if (!s->steady[i]) continue;
        int cont = i < t->nx;
        jg__trim_eq_t *e = &t->eq[t->neq];
        *e = (jg__trim_eq_t){cont ? JG__TRIM_EQ_DX : JG__TRIM_EQ_DD, cont ? i : i - t->nx, NULL};
        if (!(e->name = eq_name(cont ? "d/dt %s" : "update %s", t->vname[i], 0, 0))) goto oom;
        t->neq++;
    }
    for (int64_t k = 0; k < t->ny; k++) {
        jg__trim_eq_t *e = &t->eq[t->neq];
        if (s->yknown[k]) {
            *e = (jg__trim_eq_t){JG__TRIM_EQ_Y, k, eq_name("%s = %.17g", t->yname[k], s->yval[k], 0)};
        } else if (isfinite(s->ylo[k]) || isfinite(s->yhi[k])) {
            *e = (jg__trim_eq_t){JG__TRIM_EQ_YBOUND, k,
                                 eq_name("%s in [%g, %g]", t->yname[k], s->ylo[k], s->yhi[k])};
        } else {
            continue;
        }
        if (!e->name) goto oom;
        t->neq++;
    }
    return JG_OK;
oom:
    return jg_error_set(err, JG_NOMEM, "out of memory");
}

static double half_sq(const double *r, int64_t m)
{
    double c = 0;
    for (int64_t e = 0; e < m; e++) c += r[e] * r[e];
    return 0.5 * c;
}

static double max_abs(const double *r, int64_t m)
{
    double c = 0;
    for (int64_t e = 0; e < m; e++) {
        if (isnan(r[e])) return INFINITY;   /* fmax would drop it */
        c = fmax(c, fabs(r[e]));
    }
    return c;
}

/* "violated: NAME (residual R); ..." of the equations off by more than tol. */
static jg_status_t failure(const jg_analysis_trim_t *t, const char *why, jg_error_t *err)
{
    char buf[JG_ERROR_MSG_MAX];
    size_t n = 0;
    int shown = 0, more = 0;
    for (int64_t e = 0; e < t->neq; e++) {
        if (fabs(t->res[e]) <= t->tol) continue;
        if (n < sizeof buf - 200) {
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s (residual %.3g)", shown ? "; " : "",
                                  t->eq[e].name, t->res[e]);
            shown++;
        } else {
            more++;
        }
    }
    if (more && n < sizeof buf - 32) snprintf(buf + n, sizeof buf - n, "; and %d more", more);
    return jg_error_set(err, JG_NUMERIC,
                        "no operating point meets the specification (%s; best point after %d "
                        "iterations, largest residual %.3g); violated: %s",
                        why, t->info.iterations, t->info.max_residual, shown ? buf : "none");
}

jg_status_t jg_analysis_trim_run(jg_analysis_trim_t *t, jg_error_t *err)
{
    if (!t) return jg_error_set(err, JG_ARG, "jg_analysis_trim_run: NULL argument");
    const jg__trim_spec_t *s = &t->spec;
    jg__trim_prob_t P = {.t = t};
    double *v = t->v, *vn = NULL, *rn = NULL, *g = NULL, *N = NULL, *M = NULL, *h = NULL;
    unsigned char *act = NULL;
    jg_status_t st;
    memset(&t->info, 0, sizeof t->info);
    t->info.fd_types = t->fd_types;
    if ((st = build_equations(t, err))) return st;
    int64_t nv = t->nv, m = t->neq, n = 0;
    P.m = m;
    P.unk = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    P.col = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    P.rowx = malloc(sizeof(int64_t) * (size_t)(t->nx + 1));
    P.rowy = malloc(sizeof(int64_t) * (size_t)(t->ny + 1));
    P.rowd = malloc(sizeof(int64_t) * (size_t)(t->nd + 1));
    P.rp = malloc(sizeof(double) * (size_t)(m + 1));
    P.vp = malloc(sizeof(double) * (size_t)(nv + 1));
    vn = malloc(sizeof(double) * (size_t)(nv + 1));
    rn = malloc(sizeof(double) * (size_t)(m + 1));
    if (!P.unk || !P.col || !P.rowx || !P.rowy || !P.rowd || !P.rp || !P.vp || !vn || !rn) goto oom;
    /* the starting point: known values as specified, unknowns at their guess
     * projected into their bounds */
    for (int64_t i = 0; i < nv; i++) {
        v[i] = s->val[i];
        P.col[i] = -1;
        if (s->known[i]) continue;
        v[i] = fmin(fmax(v[i], s->lo[i]), s->hi[i]);
        P.col[i] = n;
        P.unk[n++] = i;
    }
    P.n = n;
    for (int64_t i = 0; i < t->nx; i++) P.rowx[i] = -1;
    for (int64_t k = 0; k < t->ny; k++) P.rowy[k] = -1;
    for (int64_t k = 0; k < t->nd; k++) P.rowd[k] = -1;
    for (int64_t e = 0; e < m; e++) {
        if (t->eq[e].kind == JG__TRIM_EQ_DX) P.rowx[t->eq[e].idx] = e;
        if (t->eq[e].kind == JG__TRIM_EQ_DD) P.rowd[t->eq[e].idx] = e;
    }
    t->info.nunknowns = n;
    t->info.nequations = m;
    P.J = malloc(sizeof(double) * (size_t)(m * n + 1));
    g = malloc(sizeof(double) * (size_t)(n + 1));
    N = malloc(sizeof(double) * (size_t)(n * n + 1));
    M = malloc(sizeof(double) * (size_t)(n * n + 1));
    h = malloc(sizeof(double) * (size_t)(n + 1));
    act = malloc((size_t)n + 1);
    if (!P.J || !g || !N || !M || !h || !act) goto oom;
    if ((st = jg__trim_eval(t, v, t->res, err))) goto done;
    t->info.fevals++;
    double cost = half_sq(t->res, m), mu = 0, nu = 2;
    const char *why = "iteration limit reached";
    int polish = 1, slow = 0;
    for (;;) {
        /* once within tol, one more iteration while it still gains (a
         * quadratically converging step lands at round-off) */
        if (max_abs(t->res, m) <= t->tol && !polish--) break;
        if (t->info.iterations >= t->max_iter) break;
        if (n == 0) {
            why = "no unknowns left to adjust";
            break;
        }
        if ((st = jg__trim_jacobian(&P, v, t->res, err))) goto done;
        t->info.iterations++;
        /* g = J' r, N = J' J */
        double gmax = 0, dmax = 0;
        for (int64_t a = 0; a < n; a++) {
            const double *Ja = P.J + m * a;
            double acc = 0;
            for (int64_t e = 0; e < m; e++) acc += Ja[e] * t->res[e];
            g[a] = acc;
            gmax = fmax(gmax, fabs(acc));
            for (int64_t b = 0; b <= a; b++) {
                const double *Jb = P.J + m * b;
                double q = 0;
                for (int64_t e = 0; e < m; e++) q += Ja[e] * Jb[e];
                N[a + n * b] = N[b + n * a] = q;
            }
            dmax = fmax(dmax, N[a + n * a]);
        }
        /* active bounds: an unknown at a bound that the descent direction
         * -g pushes outward stays there this iteration (its row and column
         * leave the step's system), so the others take a proper reduced step
         * instead of a projected one */
        double gfree = 0;
        for (int64_t a = 0; a < n; a++) {
            int64_t i = P.unk[a];
            act[a] = (v[i] >= s->hi[i] && g[a] < 0) || (v[i] <= s->lo[i] && g[a] > 0);
            if (!act[a]) gfree = fmax(gfree, fabs(g[a]));
        }
        if (!(gfree > 1e-15 * gmax) || !(gmax > 0)) {
            why = "a stationary point of the residual: the specification has no solution here";
            break;
        }
        if (mu == 0) mu = 1e-3 * (dmax > 0 ? dmax : 1.0);
        int accepted = 0, stalled = 0, gauss_newton = 1;
        while (!accepted && !stalled) {
            /* first the undamped (Gauss-Newton) step: near a regular
             * solution it converges quadratically where the damped one is
             * only linear; when it does not reduce the residual, damping */
            double damp = gauss_newton ? 0 : mu;
            memcpy(M, N, sizeof(double) * (size_t)(n * n));
            for (int64_t a = 0; a < n; a++) {
                M[a + n * a] += damp;
                h[a] = -g[a];
                if (!act[a]) continue;
                for (int64_t b = 0; b < n; b++) M[a + n * b] = M[b + n * a] = 0;
                M[a + n * a] = 1;
                h[a] = 0;
            }
            int sing = jg__dense_solve(n, M, 1, h);
            if (sing < 0) goto oom;
            if (sing && gauss_newton) {
                if (max_abs(t->res, m) <= t->tol) break;
                gauss_newton = 0;
                continue;
            }
            double hn = 0, vnorm = 0;
            if (!sing) {
                memcpy(vn, v, sizeof(double) * (size_t)nv);
                for (int64_t a = 0; a < n; a++) {
                    int64_t i = P.unk[a];
                    vn[i] = fmin(fmax(v[i] + h[a], s->lo[i]), s->hi[i]);
                    h[a] = vn[i] - v[i];   /* the projected step */
                    hn = fmax(hn, fabs(h[a]));
                    vnorm = fmax(vnorm, fabs(v[i]));
                }
                if (hn <= 4 * DBL_EPSILON * (vnorm + DBL_EPSILON)) {
                    if (gauss_newton) {
                        if (max_abs(t->res, m) <= t->tol) break;
                        gauss_newton = 0;
                        continue;
                    }
                    stalled = 1;
                    why = "the step vanished (bounds or a local minimum of the residual)";
                    break;
                }
            }
            jg_error_t local;
            jg_error_clear(&local);
            /* a trial point outside the model's domain (sqrt of a negative
             * level...) is a rejected step, not an error */
            double gain = -1;
            if (!sing && !jg__trim_eval(t, vn, rn, &local)) {
                t->info.fevals++;
                double cn = half_sq(rn, m), pred = 0;
                for (int64_t a = 0; a < n; a++) {
                    double Nh = 0;
                    for (int64_t b = 0; b < n; b++) Nh += N[a + n * b] * h[b];
                    pred -= h[a] * g[a] + 0.5 * h[a] * Nh;
                }
                if (cn < cost) gain = pred > 0 ? (cost - cn) / pred : 1;
                if (gain > 0) {
                    /* no progress left (an infeasible specification's
                     * least-squares point): stop rather than creep */
                    if (cost - cn <= 1e-15 * cost) slow++;
                    else slow = 0;
                    memcpy(v, vn, sizeof(double) * (size_t)nv);
                    memcpy(t->res, rn, sizeof(double) * (size_t)m);
                    cost = cn;
                    double q = 2 * gain - 1;
                    mu *= fmax(1.0 / 3.0, 1 - q * q * q);
                    nu = 2;
                    accepted = 1;
                }
            }
            if (!accepted && gauss_newton) {
                if (max_abs(t->res, m) <= t->tol) break;   /* polishing: nothing more to gain */
                gauss_newton = 0;
                continue;
            }
            if (!accepted) {
                mu *= nu;
                nu *= 2;
                if (!(mu < 1e150)) {
                    stalled = 1;
                    why = "no step reduces the residual";
                }
            }
        }
        if (stalled || !accepted) break;
        if (slow >= 3) {
            why = "the residual stopped decreasing: a least-squares point, not a solution";
            break;
        }
    }
    /* the work, the outputs and the residuals at the point reported */
    if ((st = jg__trim_eval(t, v, t->res, err))) goto done;
    t->info.max_residual = max_abs(t->res, m);
    t->info.converged = t->info.max_residual <= t->tol;
    t->info.finished = 1;
    if (!t->info.converged) st = failure(t, why, err);
    goto done;
oom:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    free(P.unk);
    free(P.col);
    free(P.rowx);
    free(P.rowy);
    free(P.rowd);
    free(P.J);
    free(P.rp);
    free(P.vp);
    free(vn);
    free(rn);
    free(g);
    free(N);
    free(M);
    free(h);
    free(act);
    return st;
}
