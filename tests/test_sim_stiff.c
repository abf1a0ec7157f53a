/* Stiff solvers: ode23s and lie on HIRES and ROBER against the
 * reference solutions of the Test Set for IVP Solvers (Mazzia et al., Univ. Bari;
 * values in docs/references.md), analytic against perturbed
 * Jacobians, dense LAPACK against sparse KLU, convergence order and sparsing of lie,
 * counters, dense output, limits and error paths. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/solver.h"
#include "testlib.h"

/* ---- problems: f and a dense analytic Jacobian D (column-major n x n) ---- */

typedef void (*jdense_fn)(double t, const double *x, double *D);

typedef struct problem {
    const char *name;
    int64_t n;
    jg_rhs_fn f;
    jdense_fn jd;
    double t1;
    const double *x0, *ref;   /* initial value, reference solution at t1 */
    double ratio;             /* atol / rtol, for the run and for mescd */
} problem_t;

#define D(i, j) D[(i) + (j) * n]

/* HIRES, README "HIRES (8 states)" */
static int hires_f(double t, const double *y, double *dy, void *u)
{
    (void)t, (void)u;
    dy[0] = -1.71 * y[0] + 0.43 * y[1] + 8.32 * y[2] + 0.0007;
    dy[1] = 1.71 * y[0] - 8.75 * y[1];
    dy[2] = -10.03 * y[2] + 0.43 * y[3] + 0.035 * y[4];
    dy[3] = 8.32 * y[1] + 1.71 * y[2] - 1.12 * y[3];
    dy[4] = -1.745 * y[4] + 0.43 * y[5] + 0.43 * y[6];
    dy[5] = -280 * y[5] * y[7] + 0.69 * y[3] + 1.71 * y[4] - 0.43 * y[5] + 0.69 * y[6];
    dy[6] = 280 * y[5] * y[7] - 1.81 * y[6];
    dy[7] = -280 * y[5] * y[7] + 1.81 * y[6];
    return 0;
}
static void hires_j(double t, const double *y, double *D)
{
    (void)t;
    const int n = 8;
    memset(D, 0, sizeof(double) * 64);
    D(0, 0) = -1.71, D(0, 1) = 0.43, D(0, 2) = 8.32;
    D(1, 0) = 1.71, D(1, 1) = -8.75;
    D(2, 2) = -10.03, D(2, 3) = 0.43, D(2, 4) = 0.035;
    D(3, 1) = 8.32, D(3, 2) = 1.71, D(3, 3) = -1.12;
    D(4, 4) = -1.745, D(4, 5) = 0.43, D(4, 6) = 0.43;
    D(5, 3) = 0.69, D(5, 4) = 1.71, D(5, 5) = -280 * y[7] - 0.43, D(5, 6) = 0.69, D(5, 7) = -280 * y[5];
    D(6, 5) = 280 * y[7], D(6, 6) = -1.81, D(6, 7) = 280 * y[5];
    D(7, 5) = -280 * y[7], D(7, 6) = 1.81, D(7, 7) = -280 * y[5];
}
static const double hires_x0[8] = {1, 0, 0, 0, 0, 0, 0, 0.0057};
static const double hires_ref[8] = {0.7371312573325668e-3, 0.1442485726316185e-3, 0.5888729740967575e-4,
                                    0.1175651343283149e-2, 0.2386356198831331e-2, 0.6238968252742796e-2,
                                    0.2849998395185769e-2, 0.2850001604814231e-2};

static void rober_j(double t, const double *y, double *D)
{
    (void)t;
    const int n = 3;
    D(0, 0) = -0.04, D(0, 1) = 1e4 * y[2], D(0, 2) = 1e4 * y[1];
    D(1, 0) = 0.04, D(1, 1) = -1e4 * y[2] - 6e7 * y[1], D(1, 2) = -1e4 * y[1];
    D(2, 0) = 0, D(2, 1) = 6e7 * y[1], D(2, 2) = 0;
}
static const double rober_x0[3] = {1, 0, 0};
static const double rober_ref[3] = {0.2083340149701255e-7, 0.8333360770334713e-13, 0.9999999791665050};

/* Tolerances: atol = 1e-4 rtol for both, and the same ratio in mescd.  With the
 * ratio 1 of the test set's HIRES runs the mescd denominator 1 + |ref| would
 * score HIRES's components (all near 1e-3) by absolute error alone. */
static const problem_t HIRES = {"HIRES", 8, hires_f, hires_j, 321.8122, hires_x0, hires_ref, 1e-4};
static const problem_t ROBER = {"ROBER", 3, tl_rober_f, rober_j, 1e11, rober_x0, rober_ref, 1e-4};

/* mescd, README: -log10(max_i |y_i - ref_i| / (atol/rtol + |ref_i|)) */
static double mescd(const problem_t *p, const double *y)
{
    double m = 0;
    for (int64_t i = 0; i < p->n; i++) m = fmax(m, fabs(y[i] - p->ref[i]) / (p->ratio + fabs(p->ref[i])));
    return -log10(m);
}

/* The analytic Jacobian into any pattern (dense: the callback gets every entry). */
static int jac_cb(double t, const double *x, const double *fx, cs_dl *J, void *u)
{
    (void)fx;
    const problem_t *p = u;
    double D[64];
    p->jd(t, x, D);
    for (int64_t j = 0; j < p->n; j++)
        for (int64_t k = J->p[j]; k < J->p[j + 1]; k++) J->x[k] = D[J->i[k] + j * p->n];
    return 0;
}

/* The structural pattern: the analytic Jacobian's nonzeros at a generic point. */
static cs_dl *pattern_of(const problem_t *p)
{
    double y[8], D[64];
    for (int i = 0; i < 8; i++) y[i] = 1 + 0.1 * i;
    p->jd(0, y, D);
    cs_dl *T = cs_dl_spalloc(p->n, p->n, p->n * p->n, 1, 1);
    for (int64_t j = 0; j < p->n; j++)
        for (int64_t i = 0; i < p->n; i++)
            if (D[i + j * p->n] != 0) cs_dl_entry(T, i, j, 1);
    cs_dl *C = cs_dl_compress(T);
    cs_dl_spfree(T);
    return C;
}

enum { ANALYTIC_DENSE, ANALYTIC_SPARSE, PERTURB_DENSE, PERTURB_SPARSE };
static const char *mode_name[] = {"analytic dense", "analytic sparse (KLU)", "perturbation dense",
                                  "perturbation sparse (KLU)"};

typedef struct result {
    jg_status_t st;
    double t, x[8];
    jg_solver_stats_t stats;
    jg_error_t e;
} result_t;

static result_t solve(const problem_t *p, const char *solver, double rtol, double hfix, int mode)
{
    result_t r;
    memset(&r, 0, sizeof r);
    jg_solver_opts_t o = {.rtol = rtol, .atol = p->ratio * rtol, .fixed_step = hfix};
    jg_solver_t *s = NULL;
    cs_dl *pat = mode == ANALYTIC_SPARSE || mode == PERTURB_SPARSE ? pattern_of(p) : NULL;
    r.st = jg_solver_create((jg_solver_method_t)jg_solver_method_parse(solver), p->n, p->f, NULL, &o, &s, &r.e);
    if (!r.st && (mode != PERTURB_DENSE))
        r.st = jg_solver_set_jacobian(s, mode <= ANALYTIC_SPARSE ? jac_cb : NULL, pat, (void *)p, &r.e);
    if (!r.st) r.st = jg_solver_init(s, 0, p->x0, p->t1, &r.e);
    while (!r.st && r.t < p->t1) r.st = jg_solver_step(s, INFINITY, &r.t, r.x, &r.e);
    jg_solver_get_stats(s, &r.stats);
    jg_solver_free(s);
    cs_dl_spfree(pat);
    return r;
}

/* ---- a linear stiff problem with a known solution ----
 * Prothero-Robinson-like and coupled: x' = J (x - g(t)) + g'(t) with
 * g = (cos t, sin t, e^-t) and the constant
 *   J = [-1000  0.01  0 ]
 *       [  0    -1    1 ]
 *       [ 0.5    0   -2 ]
 * so that x = g(t) from x(0) = g(0) whatever J is; 0.01 is the weak coupling
 * that sparsing drops. */
static int pr_f(double t, const double *x, double *dx, void *u)
{
    (void)u;
    double e0 = x[0] - cos(t), e1 = x[1] - sin(t), e2 = x[2] - exp(-t);
    dx[0] = -1000 * e0 + 0.01 * e1 - sin(t);
    dx[1] = -e1 + e2 + cos(t);
    dx[2] = 0.5 * e0 - 2 * e2 - exp(-t);
    return 0;
}
static void pr_j(double t, const double *x, double *D)
{
    (void)t, (void)x;
    const int n = 3;
    memset(D, 0, sizeof(double) * 9);
    D(0, 0) = -1000, D(0, 1) = 0.01;
    D(1, 1) = -1, D(1, 2) = 1;
    D(2, 0) = 0.5, D(2, 2) = -2;
}
static void pr_exact(double t, double *x)
{
    x[0] = cos(t), x[1] = sin(t), x[2] = exp(-t);
}
static const double pr_x0[3] = {1, 0, 1};
static const problem_t PR = {"PR", 3, pr_f, pr_j, 1, pr_x0, NULL, 1e-3};

static double pr_err(double t, const double *x)
{
    double g[3], e = 0;
    pr_exact(t, g);
    for (int i = 0; i < 3; i++) e = fmax(e, fabs(x[i] - g[i]));
    return e;
}

/* Least-squares slope of log(err) against log(h). */
static double slope(const double *h, const double *e, int m)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < m; i++) {
        double lx = log(h[i]), ly = log(e[i]);
        sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    }
    return (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

/* lie on PR to t = 1 with step h, optional mask (per entry of pattern_of(&PR)
 * when sparse, per dense entry otherwise). */
typedef struct lie_run {
    jg_status_t st;
    double t, x[3], err, mid_err;
    int64_t dropped;
    jg_solver_stats_t stats;
    jg_error_t e;
} lie_run_t;

static lie_run_t run_lie(double h, int mode, const unsigned char *keep)
{
    lie_run_t r;
    memset(&r, 0, sizeof r);
    jg_solver_opts_t o = {.fixed_step = h};
    jg_solver_t *s = NULL;
    cs_dl *pat = mode == ANALYTIC_SPARSE || mode == PERTURB_SPARSE ? pattern_of(&PR) : NULL;
    r.st = jg_solver_create(JG_SOLVER_LIE, 3, pr_f, NULL, &o, &s, &r.e);
    if (!r.st && mode != PERTURB_DENSE)
        r.st = jg_solver_set_jacobian(s, mode <= ANALYTIC_SPARSE ? jac_cb : NULL, pat, (void *)&PR, &r.e);
    if (!r.st && keep) r.st = jg_solver_set_sparsing(s, keep, &r.e);
    if (!r.st) r.st = jg_solver_init(s, 0, PR.x0, PR.t1, &r.e);
    while (!r.st && r.t < PR.t1) {
        r.st = jg_solver_step(s, INFINITY, &r.t, r.x, &r.e);
        double tp = jg_solver_last_step_start(s), tm = 0.5 * (tp + r.t), xm[3], xp[3];
        if (!r.st && jg_solver_interpolate(s, tm, xm) == JG_OK && jg_solver_interpolate(s, tp, xp) == JG_OK)
            for (int i = 0; i < 3; i++) r.mid_err = fmax(r.mid_err, fabs(xm[i] - 0.5 * (xp[i] + r.x[i])));
        else if (!r.st)
            r.mid_err = INFINITY;
    }
    r.err = pr_err(r.t, r.x);
    r.dropped = jg_solver_sparsing_dropped(s);
    jg_solver_get_stats(s, &r.stats);
    jg_solver_free(s);
    cs_dl_spfree(pat);
    return r;
}

/* ---- right-hand sides and Jacobians that fail ---- */

/* y' = y^2, y(0) = 1: y = 1/(1 - t) blows up at t = 1 */
static int blowup_f(double t, const double *x, double *dx, void *u)
{
    (void)t, (void)u;
    dx[0] = x[0] * x[0];
    return 0;
}

/* y' = -y, but f rejects (returns 1) any evaluation beyond *(double *)u */
static int reject_f(double t, const double *x, double *dx, void *u)
{
    dx[0] = -x[0];
    return t > *(const double *)u ? 1 : 0;
}

/* x' = 10 x: I - h J is singular for h = 0.1 */
static int ten_f(double t, const double *x, double *dx, void *u)
{
    (void)t, (void)u;
    dx[0] = 10 * x[0];
    return 0;
}

static int none_f(double t, const double *x, double *dx, void *u)
{
    (void)t, (void)x, (void)dx, (void)u;
    return 0;
}

static int jac_fatal(double t, const double *x, const double *fx, cs_dl *J, void *u)
{
    (void)x, (void)fx, (void)J;
    jg_error_set(u, JG_PARAM, "block 'Plant/f': no Jacobian at t = %g", t);
    return -1;
}
static int jac_reject(double t, const double *x, const double *fx, cs_dl *J, void *u)
{
    (void)t, (void)x, (void)fx, (void)J, (void)u;
    return 1;
}
static int jac_nan(double t, const double *x, const double *fx, cs_dl *J, void *u)
{
    (void)t, (void)x, (void)fx, (void)u;
    J->x[0] = NAN;
    return 0;
}

/* a smooth nonlinear non-autonomous problem for the local order of ode23s */
static int smooth_f(double t, const double *x, double *dx, void *u)
{
    (void)u;
    dx[0] = -x[1] * x[0] + cos(t);
    dx[1] = x[0] - x[1] * t;
    return 0;
}

/* One step of size h from (0.3, x0) to t1 = 0.3 + h: *err_end and *err_mid (at 0.3 + h/2)
 * against ode45 at rtol 1e-13. */
static void one_step(const char *name, double h, double *err_end, double *err_mid)
{
    jg_error_t e;
    const double x0[2] = {1, 0.5};
    jg_solver_t *s = NULL, *r = NULL;
    jg_solver_opts_t o = {.rtol = 0.1, .atol = 0.1, .initial_step = h, .max_step = h, .fixed_step = h};
    jg_solver_opts_t oref = {.rtol = 1e-13, .atol = 1e-13};
    double t, x[2], xm[2], tr, xr[2];
    jg_solver_create((jg_solver_method_t)jg_solver_method_parse(name), 2, smooth_f, NULL, &o, &s, &e);
    jg_solver_init(s, 0.3, x0, 10, &e);
    jg_solver_step(s, INFINITY, &t, x, &e);
    jg_solver_interpolate(s, 0.3 + 0.5 * h, xm);
    *err_end = *err_mid = INFINITY;
    if (t != 0.3 + h) goto out;
    jg_solver_create(JG_SOLVER_ODE45, 2, smooth_f, NULL, &oref, &r, &e);
    jg_solver_init(r, 0.3, x0, 10, &e);
    for (tr = 0.3; tr < 0.3 + 0.5 * h;) jg_solver_step(r, 0.3 + 0.5 * h, &tr, xr, &e);
    *err_mid = fmax(fabs(xr[0] - xm[0]), fabs(xr[1] - xm[1]));
    for (; tr < t;) jg_solver_step(r, t, &tr, xr, &e);
    *err_end = fmax(fabs(xr[0] - x[0]), fabs(xr[1] - x[1]));
out:
    jg_solver_free(s);
    jg_solver_free(r);
}

static int starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

int main(void)
{
    const problem_t *probs[] = {&HIRES, &ROBER};
    jg_error_t e;
    jg_solver_t *s = NULL;

    /* ---- ode23s on HIRES and ROBER: accuracy against the test set's references,
     * four Jacobian/linear-algebra modes, counters.  Measured figures as comments. ---- */
    for (int q = 0; q < 2; q++) {
        const problem_t *p = probs[q];
        const double tols[] = {1e-6, 1e-8};
        for (int m = 0; m < 2; m++) {
            result_t r[4];
            for (int mode = 0; mode < 4; mode++) {
                r[mode] = solve(p, "ode23s", tols[m], 0, mode);
                printf("# ode23s %s rtol %g atol %g, %s: mescd %.2f, steps %ld, rejected %ld, f evals %ld "
                       "(%ld for Jacobians), jevals %ld, factorizations %ld\n",
                       p->name, tols[m], p->ratio * tols[m], mode_name[mode], mescd(p, r[mode].x), r[mode].stats.steps,
                       r[mode].stats.rejected, r[mode].stats.fevals, r[mode].stats.fevals_jac, r[mode].stats.jevals,
                       r[mode].stats.factorizations);
            }
            if (m == 0) continue;   /* the checks at rtol 1e-8 */
            for (int mode = 0; mode < 4; mode++) {
                const result_t *x = &r[mode];
                const jg_solver_stats_t *st = &x->stats;
                tap_ok(x->st == JG_OK && x->t == p->t1 && mescd(p, x->x) >= 6,
                       "ode23s %s rtol 1e-8, %s: reaches t = %g with %.2f >= 6 mixed significant digits", p->name,
                       mode_name[mode], p->t1, mescd(p, x->x));
                long perjac = mode >= PERTURB_DENSE ? p->n : 0;
                tap_ok(st->jevals == st->steps && st->factorizations == st->steps + st->rejected &&
                           st->fevals_jac == perjac * st->jevals &&
                           st->fevals == 1 + 2 * (st->steps + st->rejected) + st->steps + st->fevals_jac,
                       "ode23s %s, %s: a Jacobian per step (%ld = %ld), a factorization per attempt (%ld = %ld + %ld), "
                       "f evals 1 + 2 per attempt + 1 per step (df/dt) + %ld per Jacobian = %ld", p->name,
                       mode_name[mode], st->jevals, st->steps, st->factorizations, st->steps, st->rejected, perjac,
                       st->fevals);
            }
            double dsparse = 0, dpert = 0;
            for (int64_t i = 0; i < p->n; i++) {
                double sc = p->ratio + fabs(p->ref[i]);
                dsparse = fmax(dsparse, fmax(fabs(r[1].x[i] - r[0].x[i]), fabs(r[3].x[i] - r[2].x[i])) / sc);
                dpert = fmax(dpert, fabs(r[2].x[i] - r[0].x[i]) / sc);
            }
            /* not bitwise: the two LUs round differently, and 1e4 steps accumulate it */
            tap_ok(dsparse < 1e-9 && r[1].stats.steps == r[0].stats.steps && r[3].stats.steps == r[2].stats.steps,
                   "ode23s %s: dense LAPACK and sparse KLU give the same answer (%.1e scaled) in as many steps",
                   p->name, dsparse);
            tap_ok(dpert < 1e-9, "ode23s %s: the perturbed Jacobian changes the answer by %.1e scaled (< 1e-9)",
                   p->name, dpert);
        }
    }

    /* ---- local orders: ode23s's step is second order (local error h^3) and so is its
     * continuous extension; lie's step is first order (h^2) ---- */
    {
        double hs[5], ee[5], em[5], le[5], lm[5];
        for (int k = 0; k < 5; k++) {
            hs[k] = 0.2 / (1 << k);
            one_step("ode23s", hs[k], &ee[k], &em[k]);
            one_step("lie", hs[k], &le[k], &lm[k]);
        }
        double pe = slope(hs, ee, 5), pm = slope(hs, em, 5), pl = slope(hs, le, 5);
        tap_ok(fabs(pe - 3) < 0.2 && fabs(pm - 3) < 0.2,
               "ode23s: local error of one step O(h^%.2f), of its continuous extension at mid-step O(h^%.2f) "
               "(3 within 0.2; non-autonomous, so df/dt matters)", pe, pm);
        tap_ok(fabs(pl - 2) < 0.2, "lie: local error O(h^%.2f) (2 within 0.2)", pl);
    }

    /* ---- ode23s: dense output, limits, reset ---- */
    {
        jg_solver_opts_t o = {.rtol = 1e-6, .atol = 1e-9};
        int ok = jg_solver_create(JG_SOLVER_ODE23S, 3, pr_f, NULL, &o, &s, &e) == JG_OK &&
                 jg_solver_set_jacobian(s, jac_cb, NULL, (void *)&PR, &e) == JG_OK &&
                 jg_solver_init(s, 0, pr_x0, 2, &e) == JG_OK;
        double t = 0, x[3], mid = 0, endmax = 0, hmaxseen = 0;
        int exact_ends = 1, at_limits = 1;
        const double limits[] = {0.3, 0.30001, 1.0 / 3, 1.5};
        int nl = 0;
        while (ok && t < 2) {
            double lim = nl < 4 ? limits[nl] : INFINITY;
            ok = jg_solver_step(s, lim, &t, x, &e) == JG_OK;
            if (nl < 4 && t == lim) nl++;
            else if (nl < 4 && t > lim) at_limits = 0;
            double tp = jg_solver_last_step_start(s), xq[3], xp[3];
            hmaxseen = fmax(hmaxseen, t - tp);
            for (int k = 1; k < 8; k++) {
                double tq = tp + (t - tp) * k / 8;
                ok &= jg_solver_interpolate(s, tq, xq) == JG_OK;
                mid = fmax(mid, pr_err(tq, xq));
            }
            ok &= jg_solver_interpolate(s, tp, xp) == JG_OK && jg_solver_interpolate(s, t, xq) == JG_OK;
            exact_ends &= !memcmp(xq, x, sizeof x);
            endmax = fmax(endmax, pr_err(t, x));
        }
        printf("# ode23s PR rtol 1e-6: largest step %g, max error at step ends %.2e, inside steps %.2e\n", hmaxseen,
               endmax, mid);
        tap_ok(ok && t == 2 && at_limits && nl == 4,
               "ode23s: steps end exactly at each limit passed (0.3, 0.30001, 1/3, 1.5) and at the stop time");
        tap_ok(ok && exact_ends && endmax < 1e-5 && mid < 1e-5,
               "ode23s: the continuous extension is exact at the step end and as accurate inside the steps "
               "(%.1e) as at their ends (%.1e) on a stiff non-autonomous problem", mid, endmax);
        tap_ok(jg_solver_interpolate(s, t + 0.1, x) == JG_ARG, "ode23s: dense output refuses a time outside the step");
        /* a reset drops f, J and the step: continuing equals starting afresh there */
        double xr[3] = {1.2, 0.1, 0.5}, xa[3], xb[3], ta = 0, tb = 0;
        jg_solver_stats_t st0, st1;
        jg_solver_get_stats(s, &st0);
        ok = jg_solver_reset(s, 1, xr, &e) == JG_OK;
        while (ok && ta < 2) ok = jg_solver_step(s, INFINITY, &ta, xa, &e) == JG_OK;
        jg_solver_get_stats(s, &st1);
        jg_solver_t *s2 = NULL;
        ok &= jg_solver_create(JG_SOLVER_ODE23S, 3, pr_f, NULL, &o, &s2, &e) == JG_OK &&
              jg_solver_set_jacobian(s2, jac_cb, NULL, (void *)&PR, &e) == JG_OK &&
              jg_solver_init(s2, 0, pr_x0, 2, &e) == JG_OK && jg_solver_reset(s2, 1, xr, &e) == JG_OK;
        jg_solver_stats_t st2;
        jg_solver_get_stats(s2, &st2);   /* s2's counters start here */
        while (ok && tb < 2) ok = jg_solver_step(s2, INFINITY, &tb, xb, &e) == JG_OK;
        jg_solver_stats_t st3;
        jg_solver_get_stats(s2, &st3);
        tap_ok(ok && !memcmp(xa, xb, sizeof xa) && st1.steps - st0.steps == st3.steps - st2.steps &&
                   st1.fevals - st0.fevals == st3.fevals - st2.fevals && st1.steps > st0.steps,
               "ode23s: after a reset the run is bitwise the one of a solver reset there afresh (%ld steps)",
               st1.steps - st0.steps);
        jg_solver_free(s2);
        jg_solver_free(s);
        s = NULL;
    }

    /* ---- lie: order 1, grid, dense output, counters, dense = sparse ---- */
    {
        double hs[5], errs[5], errs_sp[5];
        int ok = 1, counts = 1;
        for (int k = 0; k < 5; k++) {
            hs[k] = 0.1 / (1 << k);
            lie_run_t a = run_lie(hs[k], ANALYTIC_DENSE, NULL), b = run_lie(hs[k], ANALYTIC_SPARSE, NULL);
            lie_run_t c = run_lie(hs[k], PERTURB_DENSE, NULL);
            errs[k] = a.err;
            errs_sp[k] = b.err;
            ok &= a.st == JG_OK && b.st == JG_OK && c.st == JG_OK && a.t == 1 && a.mid_err < 1e-15;
            long nsteps = lround(1 / hs[k]);
            counts &= a.stats.steps == nsteps && a.stats.jevals == nsteps && a.stats.factorizations == nsteps &&
                      a.stats.fevals == nsteps && a.stats.fevals_jac == 0 && c.stats.fevals == 4 * nsteps &&
                      c.stats.fevals_jac == 3 * nsteps && c.stats.rejected == 0;
            ok &= fabs(b.err - a.err) < 1e-13 && fabs(c.err - a.err) < 1e-6 * a.err;
            printf("# lie PR h = %g: error %.3e (sparse %.3e, perturbed %.3e)\n", hs[k], a.err, b.err, c.err);
        }
        double p = slope(hs, errs, 5);
        tap_ok(ok && fabs(p - 1) < 0.2, "lie: order %.3f (1 within 0.2) on a stiff linear problem (|h lambda| up to 100); "
               "dense output linear; KLU and LAPACK agree", p);
        tap_ok(errs[0] < 0.1, "lie: stable at h lambda = -100, error %.2e = O(h)", errs[0]);
        tap_ok(counts, "lie: per step one f, one Jacobian, one factorization (perturbation: 3 more f for 3 states)");
        (void)errs_sp;
    }
    {
        /* the grid: a step cut at the limit, then back on t0 + k h */
        jg_solver_opts_t o = {.fixed_step = 0.1};
        double t = 0, x[3];
        int ok = jg_solver_create(JG_SOLVER_LIE, 3, pr_f, NULL, &o, &s, &e) == JG_OK && jg_solver_init(s, 0, pr_x0, 1, &e) == JG_OK;
        double ts[4];
        const double lims[4] = {INFINITY, 0.15, INFINITY, INFINITY};
        for (int k = 0; k < 4 && ok; k++) ok = jg_solver_step(s, lims[k], &ts[k], x, &e) == JG_OK;
        tap_ok(ok && ts[0] == 0.1 && ts[1] == 0.15 && ts[2] == 2 * 0.1 && ts[3] == 3 * 0.1,
               "lie: steps on the grid, one cut at the limit 0.15, then 0.2 and 0.3 again");
        tap_ok(jg_solver_is_fixed(s) == 1 && jg_solver_sparsing_dropped(s) == 0, "lie: fixed-step; nothing dropped without a mask");
        (void)t;
        jg_solver_free(s);
        s = NULL;
    }

    /* ---- lie: sparsing ("Sparsing of Jacobians") ---- */
    {
        /* pattern_of(&PR), column by column: (0,0) (2,0) | (0,1) (1,1) | (1,2) (2,2) */
        const unsigned char weak[6] = {1, 1, 0, 1, 1, 1};          /* drop J(0,1) = 0.01 */
        const unsigned char mixed[6] = {1, 1, 0, 0, 0, 1};         /* state 1 explicit: its row and column */
        const unsigned char stiff[6] = {0, 1, 1, 1, 1, 1};         /* drop J(0,0) = -1000: must break */
        unsigned char weak_dense[9] = {1, 1, 1, 0, 1, 1, 1, 1, 1}; /* column-major: (0,1) is entry 3 */
        double hs[4], ew[4], ews[4], em[4], e0[4];
        int ok = 1, fj = 1, dr = 1;
        for (int k = 0; k < 4; k++) {
            hs[k] = 0.1 / (1 << k);
            lie_run_t full = run_lie(hs[k], ANALYTIC_SPARSE, NULL);
            lie_run_t w = run_lie(hs[k], ANALYTIC_SPARSE, weak), wd = run_lie(hs[k], ANALYTIC_DENSE, weak_dense);
            lie_run_t m = run_lie(hs[k], PERTURB_SPARSE, mixed);
            ok &= full.st == JG_OK && w.st == JG_OK && wd.st == JG_OK && m.st == JG_OK;
            e0[k] = full.err, ew[k] = w.err, ews[k] = wd.err, em[k] = m.err;
            dr &= w.dropped == 1 && wd.dropped == 1 && m.dropped == 3;
            fj &= m.stats.fevals_jac == 2 * m.stats.steps;
            printf("# lie PR h = %g: error %.3e full, %.3e weak coupling dropped (dense %.3e), %.3e mixed mode\n",
                   hs[k], full.err, w.err, wd.err, m.err);
        }
        tap_ok(ok && dr, "lie sparsing: reports 1 entry dropped (weak coupling, sparse and dense masks), 3 (mixed mode)");
        tap_ok(fabs(slope(hs, ew, 4) - 1) < 0.2 && fabs(slope(hs, em, 4) - 1) < 0.2 && ew[3] < 2 * e0[3] &&
                   fabs(ews[3] - ew[3]) < 1e-12,
               "lie sparsing: still order 1 (%.3f weak coupling dropped, %.3f mixed mode), error %.2e against %.2e "
               "unsparsed", slope(hs, ew, 4), slope(hs, em, 4), ew[3], e0[3]);
        tap_ok(fj, "lie sparsing: a column with nothing kept costs no evaluation (2 of 3 columns perturbed)");
        lie_run_t bad = run_lie(0.1, ANALYTIC_SPARSE, stiff);
        tap_ok(bad.st != JG_OK || !(bad.err < 1), "lie sparsing: dropping the stiff entry does take effect "
               "(explicit in x0 at h lambda = -100: error %.1e)", bad.err);
        /* ode23s ignores masks */
        jg_solver_opts_t o = {.rtol = 1e-5};
        cs_dl *pat = pattern_of(&PR);
        int ok2 = jg_solver_create(JG_SOLVER_ODE23S, 3, pr_f, NULL, &o, &s, &e) == JG_OK &&
                  jg_solver_set_jacobian(s, jac_cb, pat, (void *)&PR, &e) == JG_OK &&
                  jg_solver_set_sparsing(s, stiff, &e) == JG_OK && jg_solver_init(s, 0, pr_x0, 1, &e) == JG_OK;
        double t = 0, x[3];
        while (ok2 && t < 1) ok2 = jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK;
        tap_ok(ok2 && pr_err(t, x) < 1e-4 && jg_solver_sparsing_dropped(s) == 0,
               "ode23s ignores a sparsing mask (reports 0 dropped, error %.1e)", pr_err(t, x));
        jg_solver_free(s);
        s = NULL;
        cs_dl_spfree(pat);
    }

    /* ---- Jacobian and mask changed between steps: the structure follows ---- */
    {
        const unsigned char stiff[6] = {0, 1, 1, 1, 1, 1};   /* drops J(0,0) = -1000 */
        cs_dl *pat = pattern_of(&PR);
        double t = 0, x[3], err30;
        int ok = jg_solver_create(JG_SOLVER_LIE, 3, pr_f, NULL, &(jg_solver_opts_t){.fixed_step = 0.01}, &s, &e) == JG_OK &&
                 jg_solver_init(s, 0, pr_x0, 1, &e) == JG_OK;
        for (int k = 0; ok && k < 30; k++) ok = jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK;   /* dense perturbation */
        err30 = pr_err(t, x);
        ok &= jg_solver_set_jacobian(s, jac_cb, pat, (void *)&PR, &e) == JG_OK &&
              jg_solver_set_sparsing(s, stiff, &e) == JG_OK && jg_solver_sparsing_dropped(s) == 1;
        for (int k = 0; ok && k < 30; k++) ok = jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK;
        tap_ok(ok && err30 < 0.01 && !(pr_err(t, x) < 1e3),
               "lie: a pattern and mask installed mid-run take effect (error %.1e, then %.1e with the stiff entry "
               "dropped at h lambda = -10)", err30, pr_err(t, x));
        jg_solver_free(s);
        ok = jg_solver_create(JG_SOLVER_ODE23S, 3, pr_f, NULL, &(jg_solver_opts_t){.rtol = 1e-6}, &s, &e) == JG_OK &&
             jg_solver_init(s, 0, pr_x0, 1, &e) == JG_OK;
        t = 0;
        for (int k = 0; ok && k < 30; k++) ok = jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK;
        ok &= jg_solver_set_jacobian(s, jac_cb, pat, (void *)&PR, &e) == JG_OK;
        jg_solver_stats_t a, b;
        jg_solver_get_stats(s, &a);
        while (ok && t < 1) ok = jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK;
        jg_solver_get_stats(s, &b);
        tap_ok(ok && pr_err(t, x) < 1e-5 && b.fevals_jac == a.fevals_jac && b.jevals > a.jevals,
               "ode23s: an analytic sparse Jacobian installed mid-run replaces perturbation (error %.1e)", pr_err(t, x));
        jg_solver_free(s);
        s = NULL;
        cs_dl_spfree(pat);
    }

    /* ---- error paths ---- */
    {
        const double x1[1] = {1};
        cs_dl *rect = cs_dl_spalloc(3, 4, 1, 1, 0), *badrow = cs_dl_spalloc(3, 3, 1, 1, 0);
        for (int j = 0; j <= 4; j++) rect->p[j] = 0;
        badrow->p[0] = 0, badrow->p[1] = 1, badrow->p[2] = 1, badrow->p[3] = 1, badrow->i[0] = 5;
        jg_solver_create(JG_SOLVER_ODE23S, 3, pr_f, NULL, NULL, &s, &e);
        jg_status_t st = jg_solver_set_jacobian(s, jac_cb, rect, (void *)&PR, &e);
        tap_ok(st == JG_ARG && strstr(e.msg, "3 x 3"), "set_jacobian: a 3 x 4 pattern for 3 states: %s", e.msg);
        st = jg_solver_set_jacobian(s, jac_cb, badrow, (void *)&PR, &e);
        if (!st) st = jg_solver_init(s, 0, pr_x0, 1, &e);
        tap_ok(st == JG_ARG && strstr(e.msg, "row 5") && strstr(e.msg, "0..2"), "init: a pattern row out of range: %s",
               e.msg);
        jg_solver_free(s);
        jg_solver_create(JG_SOLVER_LIE, 3, pr_f, NULL, &(jg_solver_opts_t){.fixed_step = 0.1}, &s, &e);
        st = jg_solver_set_jacobian(s, NULL, badrow, NULL, &e);
        if (!st) st = jg_solver_init(s, 0, pr_x0, 1, &e);
        tap_ok(st == JG_ARG && strstr(e.msg, "'lie'"), "lie init: the same bad pattern fails: %s", e.msg);
        jg_solver_free(s);
        cs_dl_spfree(rect);
        cs_dl_spfree(badrow);

        double t = 0, x[1];
        jg_solver_create(JG_SOLVER_ODE23S, 1, blowup_f, NULL, &(jg_solver_opts_t){.rtol = 1e-6}, &s, &e);
        jg_solver_init(s, 0, x1, 2, &e);
        st = JG_OK;
        while (!st && t < 2) st = jg_solver_step(s, INFINITY, &t, x, &e);
        tap_ok(st == JG_NUMERIC && starts(e.msg, "solver 'ode23s': step size too small at t = 0.99") && t < 1,
               "ode23s on y' = y^2 stops before the blow-up at t = 1: %s", e.msg);
        jg_solver_free(s);

        /* f rejects evaluations beyond t = 0.5 until told otherwise: the step shrinks */
        double wall = 0.5;
        jg_solver_create(JG_SOLVER_ODE23S, 1, reject_f, &wall, &(jg_solver_opts_t){.rtol = 1e-6, .initial_step = 0.3}, &s, &e);
        jg_solver_init(s, 0, x1, 2, &e);
        t = 0;
        st = JG_OK;
        while (!st && t < 0.45) st = jg_solver_step(s, INFINITY, &t, x, &e);   /* steps pile up before 0.5 */
        jg_solver_stats_t sst;
        jg_solver_get_stats(s, &sst);
        tap_ok(st == JG_OK && sst.rejected > 0 && t <= 0.5 && fabs(x[0] - exp(-t)) < 1e-4 && e.status == JG_OK,
               "ode23s: f returning > 0 shrinks the step (%ld rejected) and leaves no error", sst.rejected);
        jg_solver_free(s);

        jg_solver_create(JG_SOLVER_LIE, 1, reject_f, &wall, &(jg_solver_opts_t){.fixed_step = 0.3}, &s, &e);
        jg_solver_init(s, 0, x1, 2, &e);
        st = JG_OK;
        t = 0;
        while (!st && t < 2) st = jg_solver_step(s, INFINITY, &t, x, &e);
        /* lie evaluates f only at the start of a step: the third step finds the wall */
        double xl;
        tap_ok(st == JG_NUMERIC && strstr(e.msg, "at t = 0.59999999999999998") && strstr(e.msg, "cannot shorten") &&
                   t == 2 * 0.3 && jg_solver_interpolate(s, t, &xl) == JG_OK && xl == x[0],
               "lie: f returning > 0 fails (%s), the last point stays", e.msg);
        jg_solver_free(s);

        jg_solver_create(JG_SOLVER_LIE, 1, ten_f, NULL, &(jg_solver_opts_t){.fixed_step = 0.1}, &s, &e);
        jg_solver_init(s, 0, x1, 1, &e);
        st = jg_solver_step(s, INFINITY, &t, x, &e);
        tap_ok(st == JG_NUMERIC && strstr(e.msg, "singular"), "lie: singular I - h J (x' = 10 x, h = 0.1): %s", e.msg);
        jg_solver_free(s);

        /* Jacobian callbacks that fail */
        jg_jac_fn bad[3] = {jac_fatal, jac_reject, jac_nan};
        const char *want[3] = {"block 'Plant/f': no Jacobian at t = 0", "rejected the state", "Jacobian entry (0, 0) is nan"};
        const char *names[2] = {"ode23s", "lie"};
        for (int m = 0; m < 2; m++)
            for (int k = 0; k < 3; k++) {
                jg_solver_create((jg_solver_method_t)jg_solver_method_parse(names[m]), 3, pr_f, NULL, &(jg_solver_opts_t){.fixed_step = 0.1}, &s, &e);
                jg_solver_set_jacobian(s, bad[k], NULL, &e, &e);
                jg_solver_init(s, 0, pr_x0, 1, &e);
                st = jg_solver_step(s, INFINITY, &t, x, &e);
                tap_ok(st == (k ? JG_NUMERIC : JG_PARAM) && strstr(e.msg, want[k]), "%s: Jacobian callback failure %d: %s",
                       names[m], k, e.msg);
                jg_solver_free(s);
            }

        /* no states: time advances */
        int ok = 1;
        for (int m = 0; m < 2; m++) {
            ok &= jg_solver_create((jg_solver_method_t)jg_solver_method_parse(names[m]), 0, none_f, NULL, &(jg_solver_opts_t){.fixed_step = 0.25}, &s, &e) == JG_OK &&
                  jg_solver_init(s, 0, NULL, 1, &e) == JG_OK;
            t = 0;
            while (ok && t < 1) ok = jg_solver_step(s, INFINITY, &t, NULL, &e) == JG_OK;
            jg_solver_free(s);
        }
        tap_ok(ok, "ode23s and lie with no states reach the stop time");
    }
    return tap_done();
}
