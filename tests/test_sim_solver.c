/* Solvers: tableau order conditions, convergence orders, error control, dense output, FSAL, bad input. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "jacgraph/solver.h"
#include "sim/solver_impl.h"   /* private: order conditions are checked on the Butcher tableaus */
#include "tap.h"

/* ---- problems with known solutions ---- */

/* y' = -y + sin t, y(0) = 1 */
static int rhs_sin(double t, const double *x, double *dx, void *u)
{
    (void)u;
    dx[0] = -x[0] + sin(t);
    return 0;
}
static double ex_sin(double t, int i)
{
    (void)i;
    return 1.5 * exp(-t) + 0.5 * (sin(t) - cos(t));
}

/* y' = -2 t y, y(0) = 1 */
static int rhs_gauss(double t, const double *x, double *dx, void *u)
{
    (void)u;
    dx[0] = -2 * t * x[0];
    return 0;
}
static double ex_gauss(double t, int i)
{
    (void)i;
    return exp(-t * t);
}

/* x' = v, v' = -x, (x, v)(0) = (1, 0) */
static int rhs_osc(double t, const double *x, double *dx, void *u)
{
    (void)t;
    (void)u;
    dx[0] = x[1];
    dx[1] = -x[0];
    return 0;
}
static double ex_osc(double t, int i)
{
    return i == 0 ? cos(t) : -sin(t);
}

/* Van der Pol x' = v, v' = mu (1 - x^2) v - x, mu = *(double *)u: its local error constant
 * changes by orders of magnitude along the limit cycle, a test of the step-size controller */
static int rhs_vdp(double t, const double *x, double *dx, void *u)
{
    (void)t;
    const double mu = *(const double *)u;
    dx[0] = x[1];
    dx[1] = mu * (1 - x[0] * x[0]) * x[1] - x[0];
    return 0;
}

typedef double (*exact_fn)(double t, int i);

static const double PI = 3.14159265358979323846;

static int starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

typedef struct run {
    jg_status_t st;
    double t, x[4];
    double err;        /* max_i |x_i(tf) - exact| */
    double mid_err;    /* max over steps and i of the dense output error at step midpoints */
    double hmax;       /* largest step taken */
    jg_solver_stats_t stats;
    jg_error_t e;
} run_t;

/* Integrate from t0 to tf with INFINITY step limits, checking the dense output at every midpoint. */
static run_t run(const char *name, int64_t n, jg_rhs_fn f, void *user, const jg_solver_opts_t *o, double t0,
                 const double *x0, double tf, exact_fn ex)
{
    run_t r;
    memset(&r, 0, sizeof r);
    jg_solver_t *s = NULL;
    r.st = jg_solver_create((jg_solver_method_t)jg_solver_method_parse(name), n, f, user, o, &s, &r.e);
    if (!r.st) r.st = jg_solver_init(s, t0, x0, tf, &r.e);
    r.t = t0;
    for (long k = 0; !r.st && r.t < tf && k < 10000000; k++) {
        r.st = jg_solver_step(s, INFINITY, &r.t, r.x, &r.e);
        if (r.st) break;
        double tp = jg_solver_last_step_start(s), xm[4];
        r.hmax = fmax(r.hmax, r.t - tp);
        if (ex) {
            double tm = 0.5 * (tp + r.t);
            if (jg_solver_interpolate(s, tm, xm) != JG_OK) r.mid_err = INFINITY;
            for (int i = 0; i < n; i++) r.mid_err = fmax(r.mid_err, fabs(xm[i] - ex(tm, i)));
        }
    }
    if (ex)
        for (int i = 0; i < n; i++) r.err = fmax(r.err, fabs(r.x[i] - ex(r.t, i)));
    jg_solver_get_stats(s, &r.stats);
    jg_solver_free(s);
    return r;
}

/* Least-squares slope of log(err) against log(h). */
static double slope(const double *h, const double *e, int m)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < m; i++) {
        double lx = log(h[i]), ly = log(e[i]);
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
    }
    return (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

/* ---- tableaus: order conditions up to order 4 for weights w (or w(theta)) ---- */

static int conditions_hold(const jg_rk_tableau_t *tb, const double *w, int order, double th)
{
    const int s = tb->stages;
    double Ac[JG__RK_MAX_STAGES] = {0}, Ac2[JG__RK_MAX_STAGES] = {0}, AAc[JG__RK_MAX_STAGES] = {0};
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++) {
            Ac[i] += tb->a[i * s + j] * tb->c[j];
            Ac2[i] += tb->a[i * s + j] * tb->c[j] * tb->c[j];
        }
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++) AAc[i] += tb->a[i * s + j] * Ac[j];
    double q[8] = {0};
    for (int i = 0; i < s; i++) {
        double c = tb->c[i];
        q[0] += w[i];
        q[1] += w[i] * c;
        q[2] += w[i] * c * c;
        q[3] += w[i] * Ac[i];
        q[4] += w[i] * c * c * c;
        q[5] += w[i] * c * Ac[i];
        q[6] += w[i] * Ac2[i];
        q[7] += w[i] * AAc[i];
    }
    const double want[8] = {th, th * th / 2, pow(th, 3) / 3, pow(th, 3) / 6,
                            pow(th, 4) / 4, pow(th, 4) / 8, pow(th, 4) / 12, pow(th, 4) / 24};
    const int ord[8] = {1, 2, 3, 3, 4, 4, 4, 4};
    for (int k = 0; k < 8; k++)
        if (ord[k] <= order && fabs(q[k] - want[k]) > 1e-14) return 0;
    return 1;
}

static void check_tableau(const char *name, const jg_rk_tableau_t *tb)
{
    const int s = tb->stages;
    int rows = 1;
    for (int i = 0; i < s; i++) {
        double sum = 0;
        for (int j = 0; j < s; j++) {
            sum += tb->a[i * s + j];
            if (j >= i && tb->a[i * s + j] != 0) rows = 0;   /* explicit */
        }
        if (fabs(sum - tb->c[i]) > 1e-15) rows = 0;
    }
    tap_ok(rows, "%s: explicit, row sums equal the nodes", name);
    tap_ok(conditions_hold(tb, tb->b, tb->order > 4 ? 4 : tb->order, 1), "%s: weights satisfy the order-%d conditions",
           name, tb->order);
    if (tb->order < 4)
        tap_ok(!conditions_hold(tb, tb->b, tb->order + 1, 1), "%s: weights are not of order %d", name, tb->order + 1);
    if (tb->e) {
        double bh[JG__RK_MAX_STAGES];
        for (int i = 0; i < s; i++) bh[i] = tb->b[i] - tb->e[i];
        tap_ok(conditions_hold(tb, bh, tb->err_order, 1) &&
                   (tb->err_order >= 4 || !conditions_hold(tb, bh, tb->err_order + 1, 1)),
               "%s: embedded weights of order exactly %d", name, tb->err_order);
    }
    if (tb->fsal) {
        int ok = tb->c[s - 1] == 1;
        for (int j = 0; j < s; j++) ok &= fabs(tb->a[(s - 1) * s + j] - tb->b[j]) < 1e-16;
        tap_ok(ok, "%s: last stage is f at the new point (FSAL)", name);
    }
    int dense = 1;
    for (int k = 0; k <= 4; k++) {
        double th = k / 4.0, w[JG__RK_MAX_STAGES];
        for (int i = 0; i < s; i++) {
            w[i] = 0;
            for (int p = 0; p < tb->ndense; p++) w[i] += tb->d[i * tb->ndense + p] * pow(th, p + 1);
            if (k == 4 && fabs(w[i] - tb->b[i]) > 1e-14) dense = 0;
        }
        if (!conditions_hold(tb, w, tb->dense_order, th)) dense = 0;
    }
    tap_ok(dense, "%s: dense output of order %d, equal to the weights at theta = 1", name, tb->dense_order);
}

/* ---- right-hand sides that fail ---- */

typedef struct fail_ctx {
    double tcur;        /* the solver's current time, kept by the test */
    double reach;       /* +1 when evaluated beyond tcur + reach */
    double fatal_at;    /* -1 at t >= fatal_at */
    jg_error_t *err;    /* when set, explain the fatal failure here */
} fail_ctx_t;

static int rhs_fail(double t, const double *x, double *dx, void *u)
{
    fail_ctx_t *c = u;
    dx[0] = -x[0];
    if (t >= c->fatal_at) {
        if (c->err) jg_error_set(c->err, JG_PARAM, "block 'Plant/f': domain error at t = %g", t);
        return -1;
    }
    if (t > c->tcur + c->reach) return 1;
    return 0;
}

/* y' = y^2, y(0) = 1: y = 1/(1 - t) blows up at t = 1 */
static int rhs_blowup(double t, const double *x, double *dx, void *u)
{
    (void)t;
    (void)u;
    dx[0] = x[0] * x[0];
    return 0;
}

static int rhs_count(double t, const double *x, double *dx, void *u)
{
    (void)t;
    (void)x;
    (void)dx;
    ++*(long *)u;
    return 0;
}

/* The step-size controller shared by ode23, ode45 and ode23s (white-box:
 * lib/sim/stepctl.c through the registry's ops tables), against hand values:
 * norms that are powers of 2 make en^(-1/k) exact. */
static void test_stepctl(void)
{
    jg_error_t e;
    jg_solver_t *s = NULL;
    const double x0[2] = {0, 0};
    jg_solver_opts_t o = {.rtol = 1, .atol = 1, .max_step = 10};
    if (jg_solver_create(JG_SOLVER_ODE45, 2, rhs_count, NULL, &o, &s, &e) || jg_solver_init(s, 0, x0, 100, &e)) {
        tap_ok(0, "stepctl: ode45 created");
        return;
    }
    const jg__stepctl_t *c = s->ops->ctl;
    tap_ok(c && c->k == 5 && c->pi && !c->halve_again, "ode45's entry carries the PI controller with k = 5");
    const double v[2] = {1, 2}, y[2] = {1, 3};
    tap_near(jg__stepctl_norm(s, v, x0, y), 0.5, 1e-15, "norm: RMS of v / (atol + rtol max(|x|, |y|)) = 0.5");
    jg__stepctl_accepted(c, s, 1.0 / 32, 0.1, 0.1, 0, 0);
    tap_near(s->h, 0.16, 1e-15, "no previous norm: h 0.8 en^(-1/5) = 1.6 h");
    jg__stepctl_accepted(c, s, 1.0 / 32, 0.1, 0.1, 0, 0);
    tap_near(s->h, 0.1 * 0.8 * pow(2, 0.65), 1e-14, "PI: h 0.8 en^-0.17 en_prev^0.04 (en = en_prev = 2^-5)");
    jg__stepctl_accepted(c, s, 1.0 / 32, 0.1, 0.1, 0, 1);
    tap_near(s->h, 0.1, 1e-15, "after a rejection: no growth");
    jg__stepctl_accepted(c, s, 0, 4, 4, 0, 0);
    tap_near(s->h, 10, 0, "zero error: 5 h, clamped to max_step");
    s->errold = 0.5;
    jg__stepctl_accepted(c, s, 1.0 / 32, 1, 0.2, 1, 0);
    tap_ok(s->h == 1 && s->errold == 0.5, "clipped below h/4: proposal and PI memory kept");
    jg__stepctl_accepted(c, s, 32, 1, 0.5, 1, 0);
    tap_near(s->h, 0.2, 1e-15, "clipped at h/2 with a large estimate: min(h, hh 0.8 en^(-1/5)) = 0.4 hh");
    tap_near(jg__stepctl_rejected(c, 32, 1, 0), 0.4, 1e-15, "rejected: 0.8 en^(-1/5) h");
    tap_near(jg__stepctl_rejected(c, 1e10, 1, 1), 0.2, 0, "rejected: at least 0.2 h");
    tap_near(jg__stepctl_rejected(c, NAN, 1, 0), 0.2, 0, "rejected with a NaN norm: 0.2 h");
    double hh, tn;
    int clipped;
    s->t = 1;
    tap_ok(jg__stepctl_attempt(s, 0.5, 1.52, &hh, &tn, &clipped, &e) == JG_OK && fabs(hh - 0.52) < 1e-15 &&
               tn == 1.52 && !clipped,
           "attempt: stretched by up to 10%% to end at the limit");
    tap_ok(jg__stepctl_attempt(s, 0.5, 1.25, &hh, &tn, &clipped, &e) == JG_OK && tn == 1.25 && clipped,
           "attempt: shortened to end at the limit");
    tap_ok(jg__stepctl_attempt(s, 1e-17, 2, &hh, &tn, &clipped, &e) == JG_NUMERIC &&
               strstr(e.msg, "step size too small at t = 1"),
           "attempt: a step below 16 eps |t| is JG_NUMERIC");
    jg_solver_free(s);

    int ok = jg_solver_create(JG_SOLVER_ODE23, 2, rhs_count, NULL, &o, &s, &e) == JG_OK && s->ops->ctl &&
             s->ops->ctl->k == 3 && s->ops->ctl->pi;
    jg_solver_free(s);
    tap_ok(ok, "ode23's entry: PI with k = 3");
    ok = jg_solver_create(JG_SOLVER_ODE4, 2, rhs_count, NULL, &(jg_solver_opts_t){.fixed_step = 0.1}, &s, &e) == JG_OK &&
         !s->ops->ctl;
    jg_solver_free(s);
    tap_ok(ok, "a fixed-step entry has no controller");

    /* MATLAB's ode23s rules: elementary k = 3, at least 0.5 h, halving, no change after a rejection */
    if (jg_solver_create(JG_SOLVER_ODE23S, 2, rhs_count, NULL, &o, &s, &e) || jg_solver_init(s, 0, x0, 100, &e)) {
        tap_ok(0, "stepctl: ode23s created");
        return;
    }
    c = s->ops->ctl;
    tap_ok(c && c->k == 3 && !c->pi && c->halve_again && c->hold_after_fail, "ode23s's entry: MATLAB's controller");
    s->errold = 0.5;   /* no PI: the previous norm does not count */
    jg__stepctl_accepted(c, s, 1.0 / 8, 0.1, 0.1, 0, 0);
    tap_near(s->h, 0.16, 1e-15, "ode23s accepted: h 0.8 en^(-1/3) = 1.6 h");
    jg__stepctl_accepted(c, s, 1.0 / 8, 0.1, 0.1, 0, 1);
    tap_near(s->h, 0.1, 0, "ode23s accepted after a rejection: the same h");
    tap_near(jg__stepctl_rejected(c, 1.728, 1, 0), 0.8 / 1.2, 1e-15, "ode23s rejected: 0.8 en^(-1/3) h");
    tap_near(jg__stepctl_rejected(c, 8, 1, 0), 0.5, 0, "ode23s rejected: at least 0.5 h");
    tap_near(jg__stepctl_rejected(c, 1.728, 1, 1), 0.5, 0, "ode23s rejected again: halved");
    jg_solver_free(s);
}

int main(void)
{
    jg_error_t e;
    jg_solver_t *s = NULL;
    const double x1[1] = {1}, xosc[2] = {1, 0};

    test_stepctl();

    /* names */
    tap_streq(jg_solver_names(), "ode1 ode2 ode3 ode4 ode5 ode23 ode45 discrete ode23s lie ode15s", "solver names");
    {
        const char *names[] = {"ode1", "ode2", "ode3", "ode4", "ode5", "ode23", "ode45"};
        const int fixed[] = {1, 1, 1, 1, 1, 0, 0};
        int ok = 1;
        jg_solver_opts_t o = {.fixed_step = 0.1};
        for (int k = 0; k < 7; k++) {
            ok &= jg_solver_create((jg_solver_method_t)jg_solver_method_parse(names[k]), 1, rhs_sin, NULL, &o, &s, &e) == JG_OK && jg_solver_is_fixed(s) == fixed[k] &&
                  !strcmp(jg_solver_name(s), names[k]);
            jg_solver_free(s);
        }
        tap_ok(ok, "every name creates its solver, fixed or variable as documented");
    }

    /* tableaus */
    check_tableau("Euler", &jg__rk_euler);
    check_tableau("Heun", &jg__rk_heun);
    check_tableau("RK4", &jg__rk_rk4);
    check_tableau("Bogacki-Shampine", &jg__rk_bs23);
    check_tableau("Dormand-Prince", &jg__rk_dp54);

    /* convergence order of the fixed-step solvers at t = 1, end point and dense output */
    {
        const char *names[] = {"ode1", "ode2", "ode3", "ode4", "ode5"};
        const long evals[] = {1, 2, 3, 4, 6}, first[] = {0, 0, 1, 0, 1};   /* per step; FSAL's first */
        const double hs[4] = {0.1, 0.05, 0.025, 0.0125};
        for (int k = 0; k < 5; k++) {
            double err[4], mid[4];
            int ok = 1, steps_ok = 1;
            for (int m = 0; m < 4; m++) {
                jg_solver_opts_t o = {.fixed_step = hs[m]};
                run_t r = run(names[k], 1, rhs_sin, NULL, &o, 0, x1, 1, ex_sin);
                ok &= r.st == JG_OK && r.t == 1;
                err[m] = r.err;
                mid[m] = r.mid_err;
                long nsteps = lround(1 / hs[m]);
                steps_ok &= r.stats.steps == nsteps && r.stats.rejected == 0 &&
                            r.stats.fevals == evals[k] * nsteps + first[k];
            }
            double p = slope(hs, err, 4), pm = slope(hs, mid, 4);
            tap_ok(ok, "%s: runs to t = 1 exactly", names[k]);
            tap_ok(steps_ok, "%s: 1/h steps of %ld evaluations each%s", names[k], evals[k],
                   first[k] ? " (plus the first, FSAL)" : "");
            if (!tap_ok(fabs(p - (k + 1)) <= 0.2, "%s: global error slope %.3f is the order %d within 0.2", names[k], p,
                        k + 1))
                printf("#   errors %.3e %.3e %.3e %.3e\n", err[0], err[1], err[2], err[3]);
            if (!tap_ok(fabs(pm - (k + 1)) <= 0.2, "%s: dense output error slope %.3f is the order %d within 0.2",
                        names[k], pm, k + 1))
                printf("#   midpoint errors %.3e %.3e %.3e %.3e\n", mid[0], mid[1], mid[2], mid[3]);
        }
    }

    /* fixed-step grid: a limit shortens one step, the next ends on the grid */
    {
        jg_solver_opts_t o = {.fixed_step = 0.1};
        double t = 0, x[1];
        int ok = jg_solver_create(JG_SOLVER_ODE4, 1, rhs_sin, NULL, &o, &s, &e) == JG_OK &&
                 jg_solver_init(s, 0, x1, 1, &e) == JG_OK;
        ok &= jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK && t == 0.1;
        ok &= jg_solver_step(s, 0.25, &t, x, &e) == JG_OK && t == 0.2;
        ok &= jg_solver_step(s, 0.25, &t, x, &e) == JG_OK && t == 0.25;
        ok &= jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK && t == 0.1 * 3;
        int n = 3;
        while (ok && t < 1 && n < 100) ok &= jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK, n++;
        tap_ok(ok && t == 1 && n == 10, "ode4: limit 0.25 shortens one step, the grid 0.3 ... 1 is kept (%d steps)", n);
        tap_ok(jg_solver_step(s, INFINITY, &t, x, &e) == JG_ARG, "step at the stop time is JG_ARG");
        jg_solver_free(s);
    }

    /* variable step against exact solutions: the error at the end is below 10 tol per unit
     * of time and proportional to tol (max_step large so that only the tolerance limits) */
    {
        const char *names[] = {"ode45", "ode23"};
        const double tols[3] = {1e-3, 1e-6, 1e-9};
        long steps_osc[2][3] = {{0}};
        for (int k = 0; k < 2; k++) {
            int ntol = k == 0 ? 3 : 2;
            double eg[3], eo[3];
            for (int m = 0; m < ntol; m++) {
                jg_solver_opts_t o = {.rtol = tols[m], .atol = tols[m], .max_step = 100};
                run_t rg = run(names[k], 1, rhs_gauss, NULL, &o, 0, x1, 2, ex_gauss);
                run_t ro = run(names[k], 2, rhs_osc, NULL, &o, 0, xosc, 2 * PI, ex_osc);
                eg[m] = rg.err / tols[m];
                eo[m] = ro.err / tols[m];
                steps_osc[k][m] = ro.stats.steps;
                tap_ok(rg.st == JG_OK && rg.t == 2 && rg.err <= 10 * tols[m] * 2,
                       "%s rtol %g: y' = -2ty, error at t = 2 is %.2f tol (%ld steps, %ld rejected)", names[k],
                       tols[m], eg[m], rg.stats.steps, rg.stats.rejected);
                tap_ok(ro.st == JG_OK && ro.t == 2 * PI && ro.err <= 10 * tols[m] * 2 * PI,
                       "%s rtol %g: oscillator, error at t = 2 pi is %.2f tol (%ld steps, %ld rejected)", names[k],
                       tols[m], eo[m], ro.stats.steps, ro.stats.rejected);
                tap_ok(ro.mid_err <= 10 * tols[m] * 2 * PI && rg.mid_err <= 10 * tols[m] * 2,
                       "%s rtol %g: dense output at step midpoints within the same bound (%.2f, %.2f tol)", names[k],
                       tols[m], ro.mid_err / tols[m], rg.mid_err / tols[m]);
            }
            int prop = 1;
            for (int m = 1; m < ntol; m++)
                prop &= eg[m] < 3 * eg[0] && eg[m] > eg[0] / 3 && eo[m] < 3 * eo[0] && eo[m] > eo[0] / 3;
            tap_ok(prop, "%s: errors decrease in proportion to the tolerance", names[k]);
        }
        tap_ok(steps_osc[0][1] * 4 < steps_osc[1][1],
               "ode45 needs far fewer steps than ode23 at rtol 1e-6 (%ld vs %ld)", steps_osc[0][1], steps_osc[1][1]);
        run_t r = run("ode45", 2, rhs_osc, NULL, NULL, 0, xosc, 10, NULL);
        tap_ok(r.st == JG_OK && r.hmax <= 10.0 / 50 * (1 + 1e-12) && r.stats.steps >= 50,
               "ode45 defaults: steps within the max step (tstop - t0)/50 (%ld steps)", r.stats.steps);
        jg_solver_opts_t o = {.max_step = 0.01};
        r = run("ode23", 2, rhs_osc, NULL, &o, 0, xosc, 1, NULL);
        tap_ok(r.st == JG_OK && r.hmax <= 0.01 * (1 + 1e-12) && r.stats.steps >= 100,
               "ode23: steps within max_step 0.01 (%ld steps)", r.stats.steps);
    }

    /* FSAL: 6 evaluations per attempted step, plus the first, plus the starting-step estimate */
    {
        jg_solver_opts_t o = {.rtol = 1e-6, .atol = 1e-6};
        run_t r = run("ode45", 2, rhs_osc, NULL, &o, 0, xosc, 10, NULL);
        tap_ok(r.st == JG_OK && r.stats.fevals == 6 * (r.stats.steps + r.stats.rejected) + 2,
               "ode45: fevals %ld = 6 (steps %ld + rejected %ld) + 2", r.stats.fevals, r.stats.steps, r.stats.rejected);
        o.initial_step = 1e-3;
        r = run("ode45", 2, rhs_osc, NULL, &o, 0, xosc, 10, NULL);
        tap_ok(r.st == JG_OK && r.stats.fevals == 6 * (r.stats.steps + r.stats.rejected) + 1,
               "ode45 with an initial step: fevals %ld = 6 (steps + rejected) + 1", r.stats.fevals);
        o.initial_step = 0;
        r = run("ode23", 2, rhs_osc, NULL, &o, 0, xosc, 10, NULL);
        tap_ok(r.st == JG_OK && r.stats.fevals == 3 * (r.stats.steps + r.stats.rejected) + 2,
               "ode23: fevals %ld = 3 (steps + rejected) + 2", r.stats.fevals);
        o.initial_step = 3;   /* far too large: rejections */
        o.max_step = 10;
        r = run("ode45", 2, rhs_osc, NULL, &o, 0, xosc, 10, ex_osc);
        tap_ok(r.st == JG_OK && r.stats.rejected > 0 && r.err < 1e-4 &&
                   r.stats.fevals == 6 * (r.stats.steps + r.stats.rejected) + 1,
               "ode45: a too large initial step is rejected (%ld rejected), FSAL count holds", r.stats.rejected);
    }

    /* step-size controller (white-box), k = q + 1: the first step after init proposes
     * h clamp(0.8 norm^(-1/k), 0.2, 5), the later ones h clamp(0.8 norm^(-alpha) norm_prev^beta, 0.2, 5)
     * with beta = 0.2/k, alpha = 1/k - 0.75 beta (PI); no growth after a rejection */
    {
        const char *names[] = {"ode45", "ode23"};
        for (int k = 0; k < 2; k++) {
            jg_solver_opts_t o = {.rtol = 1e-6, .atol = 1e-6, .max_step = 10, .initial_step = k == 0 ? 0.2 : 0.02};
            double t = 0, x[2], xp[2] = {xosc[0], xosc[1]}, en[2] = {0, 0}, want[2] = {0, 0}, hs[2] = {0, 0};
            jg_solver_stats_t ss;
            int ok = jg_solver_create((jg_solver_method_t)jg_solver_method_parse(names[k]), 2, rhs_osc, NULL, &o, &s, &e) == JG_OK &&
                     jg_solver_init(s, 0.5, xosc, 2, &e) == JG_OK;
            const jg_rk_tableau_t *tb = s->tab;
            const double kq = tb->err_order + 1, beta = 0.2 / kq, alpha = 1 / kq - 0.75 * beta;
            for (int step = 0; ok && step < 2; step++) {
                ok &= jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK;
                double h = t - jg_solver_last_step_start(s);
                for (int i = 0; i < 2; i++) {   /* RMS of the scaled estimate */
                    double est = 0;
                    for (int l = 0; l < tb->stages; l++) est += tb->e[l] * s->k[l][i];
                    est *= h / (o.atol + o.rtol * fmax(fabs(xp[i]), fabs(x[i])));
                    en[step] += est * est / 2;
                }
                en[step] = sqrt(en[step]);
                double fac = step == 0 ? 0.8 * pow(en[0], -1 / kq) : 0.8 * pow(en[1], -alpha) * pow(en[0], beta);
                want[step] = h * fmin(5, fmax(0.2, fac));
                hs[step] = s->h;
                ok &= fabs(s->h - want[step]) <= 1e-9 * want[step];
                xp[0] = x[0], xp[1] = x[1];
            }
            jg_solver_get_stats(s, &ss);
            tap_ok(ok && ss.rejected == 0 && en[0] > 0.01 && en[0] <= 1 && en[1] > 0.01 && en[1] <= 1,
                   "%s: next steps %.6g = h 0.8 norm^(-1/%g) (norm %.3f), then %.6g = h 0.8 norm^-%.4f "
                   "norm_prev^%.4f (norm %.3f)", names[k], hs[0], kq, en[0], hs[1], alpha, beta, en[1]);
            jg_solver_free(s);
        }
        /* f = 0: zero error, the step grows by exactly 5 up to max_step: 1e-4 ... 0.3125, 19 x 0.5, 0.109 */
        long calls = 0;
        jg_solver_opts_t o = {.initial_step = 1e-4, .max_step = 0.5};
        double t = 0, x[1], hprev = 0;
        int ok = jg_solver_create(JG_SOLVER_ODE45, 1, rhs_count, &calls, &o, &s, &e) == JG_OK &&
                 jg_solver_init(s, 0, x1, 10, &e) == JG_OK;
        int growth = 1, n = 0;
        while (ok && t < 10 && n < 100) {
            ok &= jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK;
            double h = t - jg_solver_last_step_start(s);
            if (n > 0 && t < 10) growth &= fabs(h - fmin(5 * hprev, 0.5)) <= 1e-12;
            hprev = h;
            n++;
        }
        tap_ok(ok && growth && n == 26, "growth limited to 5 per step and by max_step (%d steps)", n);
        jg_solver_free(s);
        /* a rejection: the step after it is no larger */
        o = (jg_solver_opts_t){.rtol = 1e-6, .initial_step = 3, .max_step = 10};
        jg_solver_stats_t ss;
        double x2[2];
        ok = jg_solver_create(JG_SOLVER_ODE45, 2, rhs_osc, NULL, &o, &s, &e) == JG_OK &&
             jg_solver_init(s, 0, xosc, 10, &e) == JG_OK && jg_solver_step(s, INFINITY, &t, x2, &e) == JG_OK;
        jg_solver_get_stats(s, &ss);
        tap_ok(ok && ss.rejected > 0 && s->h <= t - jg_solver_last_step_start(s),
               "after %ld rejections the next step (%.4g) does not grow", ss.rejected, s->h);
        jg_solver_free(s);
    }

    /* Van der Pol, mu = 1, from (2, 0): few rejections (the elementary controller with safety 0.9
     * rejected 268 attempts for 484 steps with ode45 at rtol 1e-3 on [0, 200], 493 for 1409 at 1e-6;
     * ode23 418 for 1277 at 1e-3), and the global error still proportional to the tolerance */
    {
        const char *names[] = {"ode45", "ode23"};
        const double xv[2] = {2, 0}, rtols[2] = {1e-3, 1e-6};
        double mu = 1;
        for (int k = 0; k < 2; k++)
            for (int m = 0; m < 2; m++) {   /* the defaults otherwise: atol 1e-6, max_step 200/50 */
                jg_solver_opts_t o = {.rtol = rtols[m]};
                run_t r = run(names[k], 2, rhs_vdp, &mu, &o, 0, xv, 200, NULL);
                tap_ok(r.st == JG_OK && r.t == 200 && r.stats.rejected <= 0.25 * r.stats.steps,
                       "%s rtol %g: Van der Pol on [0, 200] rejects %ld attempts for %ld steps (<= 25%%), %ld evaluations",
                       names[k], rtols[m], r.stats.rejected, r.stats.steps, r.stats.fevals);
            }
        /* x(20), v(20) with ode5 at steps 5e-4 and 2.5e-4 (they agree to 1e-14) */
        const double ref[2] = {2.0081497621749547, -0.042508875273273385};
        const double tols[3] = {1e-4, 1e-6, 1e-8};
        for (int k = 0; k < 2; k++) {
            double err[3], tl[3];
            int ok = 1;
            for (int m = 0; m < 3; m++) {
                jg_solver_opts_t o = {.rtol = tols[m], .atol = tols[m], .max_step = 100};
                run_t r = run(names[k], 2, rhs_vdp, &mu, &o, 0, xv, 20, NULL);
                err[m] = fmax(fabs(r.x[0] - ref[0]), fabs(r.x[1] - ref[1]));
                tl[m] = tols[m];
                ok &= r.st == JG_OK && r.t == 20 && err[m] <= 10 * tols[m] * 20;
            }
            double p = slope(tl, err, 3);
            if (!tap_ok(ok && p > 0.8 && p < 1.25,
                        "%s: Van der Pol on [0, 20], error at t = 20 within 10 tol per unit time, slope %.3f "
                        "against tol in [0.8, 1.25]", names[k], p))
                printf("#   errors %.3e %.3e %.3e at tol 1e-4 1e-6 1e-8\n", err[0], err[1], err[2]);
        }
    }

    /* a step cut short by t_limit: a sliver leaves the proposal and the PI memory as they were */
    {
        const char *names[] = {"ode45", "ode23"};
        const double xv[2] = {2, 0};
        double mu = 1;
        for (int k = 0; k < 2; k++) {
            jg_solver_opts_t o = {.rtol = 1e-3};
            double t = 0, x[2];
            int ok = jg_solver_create((jg_solver_method_t)jg_solver_method_parse(names[k]), 2, rhs_vdp, &mu, &o, &s, &e) == JG_OK &&
                     jg_solver_init(s, 0, xv, 200, &e) == JG_OK;
            for (int i = 0; ok && i < 5; i++) ok &= jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK;
            double h = s->h, eo = s->errold, lim = t + 1e-6 * h;
            ok &= jg_solver_step(s, lim, &t, x, &e) == JG_OK && t == lim;
            tap_ok(ok && s->h == h && s->errold == eo && eo > 0,
                   "%s: a step of 1e-6 of the proposal to reach t_limit keeps the proposal %.4g", names[k], h);
            jg_solver_free(s);
        }
        /* output limits every 0.37 (steps of about 0.6 cut to 0.37): the controller still sees the error
         * constant rise and avoids rejections */
        for (int k = 0; k < 2; k++) {
            jg_solver_opts_t o = {.rtol = 1e-3};
            double t = 0, x[2];
            int ok = jg_solver_create((jg_solver_method_t)jg_solver_method_parse(names[k]), 2, rhs_vdp, &mu, &o, &s, &e) == JG_OK &&
                     jg_solver_init(s, 0, xv, 200, &e) == JG_OK;
            long j = 1;
            while (ok && t < 200) {
                while (0.37 * (double)j <= t) j++;
                ok &= jg_solver_step(s, 0.37 * (double)j, &t, x, &e) == JG_OK;
            }
            jg_solver_stats_t ss;
            jg_solver_get_stats(s, &ss);
            tap_ok(ok && ss.rejected <= 0.25 * ss.steps,
                   "%s: Van der Pol with limits every 0.37: %ld rejected for %ld steps (<= 25%%)", names[k],
                   ss.rejected, ss.steps);
            jg_solver_free(s);
        }
    }

    /* output times: t_limit is never passed and is hit exactly; dense output is exact at both ends */
    {
        jg_solver_opts_t o = {.rtol = 1e-6};
        double t = 0, x[2], xq[2], out = 0.1;
        int ok = jg_solver_create(JG_SOLVER_ODE45, 2, rhs_osc, NULL, &o, &s, &e) == JG_OK &&
                 jg_solver_init(s, 0, xosc, 12, &e) == JG_OK;
        int hits = 0, ends = 1;
        while (ok && t < 10) {
            ok &= jg_solver_step(s, fmin(out, 10), &t, x, &e) == JG_OK && t <= out;
            if (t == out) hits++, out = 0.1 * (hits + 1);
            ends &= jg_solver_interpolate(s, t, xq) == JG_OK && xq[0] == x[0] && xq[1] == x[1];
            ends &= jg_solver_interpolate(s, jg_solver_last_step_start(s), xq) == JG_OK;
        }
        tap_ok(ok && hits == 100 && t == 10, "ode45: limits at 0.1, 0.2, ... are hit exactly (%d)", hits);
        tap_ok(ends, "interpolate at the step ends");
        tap_ok(jg_solver_interpolate(s, t + 1e-3, xq) == JG_ARG &&
                   jg_solver_interpolate(s, jg_solver_last_step_start(s) - 1e-3, xq) == JG_ARG,
               "interpolate outside the last step is JG_ARG");
        /* reset: restart at t = 10 from (0, 1), so x = sin(t - 10); FSAL and step estimate redone */
        jg_solver_stats_t s0, s1;
        jg_solver_get_stats(s, &s0);
        const double xr[2] = {0, 1};
        ok = jg_solver_reset(s, 10, xr, &e) == JG_OK && jg_solver_step(s, INFINITY, &t, x, &e) == JG_OK;
        jg_solver_get_stats(s, &s1);
        tap_ok(ok && s1.fevals - s0.fevals == 2 + 6 * (s1.rejected - s0.rejected + 1) &&
                   fabs(x[0] - sin(t - 10)) < 1e-5 && fabs(x[1] - cos(t - 10)) < 1e-5,
               "reset: fresh f and step estimate, then the new solution");
        jg_solver_free(s);
    }

    /* bad input */
    {
        jg_solver_opts_t o = {.fixed_step = 0};
        tap_ok(jg_solver_create((jg_solver_method_t)99, 1, rhs_sin, NULL, NULL, &s, &e) == JG_ARG && s == NULL,
               "unknown solver is JG_ARG");
        tap_streq(e.msg,
                  "unknown solver method 99 (valid: 0 to 11, auto ode1 ode2 ode3 ode4 ode5 ode23 ode45 discrete ode23s "
                  "lie ode15s)",
                  "unknown solver message");
        tap_ok(jg_solver_method_parse("ode99") == -1 && jg_solver_method_parse("ode23s") == JG_SOLVER_ODE23S &&
                   jg_solver_method_parse("auto") == JG_SOLVER_AUTO && jg_solver_method_name((jg_solver_method_t)12) == NULL,
               "solver method names parse both ways, unknown ones are -1 / NULL");
        int round = 1;
        for (int k = 0; k <= JG_SOLVER_ODE15S; k++) {
            round &= jg_solver_method_parse(jg_solver_method_name((jg_solver_method_t)k)) == k;
            if (k == JG_SOLVER_AUTO) continue;
            jg_solver_t *sk = NULL;
            const int64_t nk = k == JG_SOLVER_DISCRETE ? 0 : 1;
            round &= jg_solver_create((jg_solver_method_t)k, nk, rhs_sin, NULL, &(jg_solver_opts_t){.fixed_step = 0.1},
                                      &sk, &e) == JG_OK &&
                     !strcmp(jg_solver_name(sk), jg_solver_method_name((jg_solver_method_t)k)) &&
                     jg_solver_method(sk) == (jg_solver_method_t)k;
            jg_solver_free(sk);
        }
        tap_ok(round, "every solver method's name parses back to it and creates a solver of that name");
        tap_ok(jg_solver_create(JG_SOLVER_ODE4, 1, rhs_sin, NULL, &o, &s, &e) == JG_ARG, "fixed step 0 is JG_ARG");
        tap_streq(e.msg, "non-positive step 0 for fixed-step solver 'ode4'", "fixed step 0 message");
        o.fixed_step = -0.1;
        tap_ok(jg_solver_create(JG_SOLVER_ODE1, 1, rhs_sin, NULL, &o, &s, &e) == JG_ARG &&
                   !strcmp(e.msg, "non-positive step -0.1 for fixed-step solver 'ode1'"),
               "negative fixed step is JG_ARG");
        tap_ok(jg_solver_create(JG_SOLVER_ODE1, 1, rhs_sin, NULL, NULL, &s, &e) == JG_ARG, "fixed step missing is JG_ARG");
        o.fixed_step = 0;
        o.rtol = -1;
        tap_ok(jg_solver_create(JG_SOLVER_ODE45, 1, rhs_sin, NULL, &o, &s, &e) == JG_ARG, "negative rtol is JG_ARG");
        tap_ok(jg_solver_create(JG_SOLVER_ODE45, 1, NULL, NULL, NULL, &s, &e) == JG_ARG, "no right-hand side is JG_ARG");
        jg_solver_create(JG_SOLVER_ODE45, 1, rhs_sin, NULL, NULL, &s, &e);
        tap_ok(jg_solver_init(s, 1, x1, 0.5, &e) == JG_ARG, "stop before start is JG_ARG");
        tap_streq(e.msg, "stop time 0.5 before start time 1", "stop before start message");
        const double xnan[1] = {NAN};
        tap_ok(jg_solver_init(s, 0, xnan, 1, &e) == JG_ARG, "NaN initial state is JG_ARG");
        jg_solver_free(s);
        jg_solver_free(NULL);
    }

    /* a right-hand side returning -1 aborts with its error */
    {
        fail_ctx_t c = {.tcur = 0, .reach = INFINITY, .fatal_at = 0.5, .err = NULL};
        run_t r = run("ode45", 1, rhs_fail, &c, NULL, 0, x1, 1, NULL);
        tap_ok(r.st == JG_NUMERIC && r.t < 0.5, "f returning -1 aborts ode45 with JG_NUMERIC before t = 0.5");
        tap_ok(starts(r.e.msg, "solver 'ode45': right-hand side failed at t = ") &&
                   strstr(r.e.msg, "(returned -1)"),
               "... message names the time and the code: %s", r.e.msg);
        /* f explains itself through the caller's error context */
        jg_error_t shared;
        c.err = &shared;
        jg_solver_opts_t o = {.fixed_step = 0.1};
        jg_status_t st = jg_solver_create(JG_SOLVER_ODE4, 1, rhs_fail, &c, &o, &s, &shared);
        if (!st) st = jg_solver_init(s, 0, x1, 1, &shared);
        double t = 0;
        while (!st && t < 1) st = jg_solver_step(s, INFINITY, &t, NULL, &shared);
        tap_ok(st == JG_PARAM && !strcmp(shared.msg, "block 'Plant/f': domain error at t = 0.5") && fabs(t - 0.4) < 1e-12,
               "f's own status and message come through (%s)", shared.msg);
        jg_solver_free(s);
    }

    /* a right-hand side returning +1 forces smaller steps */
    {
        fail_ctx_t c = {.tcur = 0, .reach = 0.05, .fatal_at = INFINITY, .err = NULL};
        jg_solver_opts_t o = {.rtol = 1e-3};
        double t = 0, x[1], hmax = 0;
        jg_status_t st = jg_solver_create(JG_SOLVER_ODE45, 1, rhs_fail, &c, &o, &s, &e);
        if (!st) st = jg_solver_init(s, 0, x1, 10, &e);
        jg_solver_stats_t ss = {0}, prev;
        int nogrow = 1;   /* white-box: no growth right after a rejection */
        while (!st && t < 10) {
            prev = ss;
            st = jg_solver_step(s, INFINITY, &t, x, &e);
            double h = t - jg_solver_last_step_start(s);
            hmax = fmax(hmax, h);
            c.tcur = t;
            jg_solver_get_stats(s, &ss);
            if (ss.rejected > prev.rejected && t < 10) nogrow &= s->h <= h * (1 + 1e-12);
        }
        tap_ok(st == JG_OK && t == 10 && hmax <= 0.05 * (1 + 1e-12) && ss.rejected > 0 &&
                   fabs(x[0] - exp(-10)) < 1e-6,
               "f returning +1 beyond 0.05 ahead: steps <= 0.05 (largest %.4f, %ld rejected), solution right", hmax,
               ss.rejected);
        tap_ok(nogrow, "... and the step after each rejection is no larger than the one accepted");
        jg_solver_free(s);
        c.tcur = 0;
        jg_solver_opts_t of = {.fixed_step = 0.1};
        run_t r = run("ode2", 1, rhs_fail, &c, &of, 0, x1, 1, NULL);
        tap_ok(r.st == JG_NUMERIC && strstr(r.e.msg, "cannot shorten its step"),
               "f returning +1 stops a fixed-step solver with JG_NUMERIC");
        /* f refusing everything but the current point: halving ends in "step size too small" */
        c.tcur = 1;
        c.reach = 0;
        r = run("ode23", 1, rhs_fail, &c, NULL, 1, x1, 2, NULL);
        tap_ok(r.st == JG_NUMERIC && starts(r.e.msg, "solver 'ode23': step size too small at t = 1 ") &&
                   r.stats.rejected < 200,
               "f always +1: step size too small after %ld rejections", r.stats.rejected);
    }

    /* finite-time blow-up fails near t = 1 instead of looping */
    {
        jg_solver_opts_t o = {.rtol = 1e-6};
        run_t r = run("ode45", 1, rhs_blowup, NULL, &o, 0, x1, 2, NULL);
        tap_ok(r.st == JG_NUMERIC && strstr(r.e.msg, "step size too small at t = ") && fabs(r.t - 1) < 1e-3,
               "y' = y^2 fails with 'step size too small' at the blow-up t = 1 (at %.9f, %ld steps)", r.t, r.stats.steps);
    }

    /* discrete: time only, no evaluations */
    {
        long calls = 0;
        jg_solver_opts_t o = {.fixed_step = 0.2};
        run_t r = run("discrete", 0, rhs_count, &calls, &o, 0, NULL, 1, NULL);
        tap_ok(r.st == JG_OK && r.t == 1 && r.stats.steps == 5 && calls == 0 && r.stats.fevals == 0,
               "discrete: 5 steps to t = 1, f never called");
        tap_ok(jg_solver_create(JG_SOLVER_DISCRETE, 2, rhs_count, &calls, &o, &s, &e) == JG_ARG,
               "discrete with continuous states is JG_ARG");
        run_t rv = run("ode45", 0, rhs_count, &calls, NULL, 0, NULL, 1, NULL);
        tap_ok(rv.st == JG_OK && rv.t == 1 && rv.stats.steps <= 51, "ode45 with no states reaches the stop time (%ld steps)",
               rv.stats.steps);
    }
    return tap_done();
}
