/* Solver registry and life cycle, plus the Runge-Kutta stage loop and dense output every method shares. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "solver_impl.h"

/* ode3/ode23 and ode5/ode45 share a tableau: the fixed-step ones ignore its estimate. */
/* The implicit methods borrow a tableau only for the common allocation (their
 * stage vectors serve as scratch) and bring their own ops. */
static const struct {
    const char *name;
    const jg_rk_tableau_t *tab;
    int fixed;
    const jg__solver_ops_t *ops;
} methods[] = {
    {"ode1", &jg__rk_euler, 1, NULL},  {"ode2", &jg__rk_heun, 1, NULL},
    {"ode3", &jg__rk_bs23, 1, NULL},   {"ode4", &jg__rk_rk4, 1, NULL},
    {"ode5", &jg__rk_dp54, 1, NULL},   {"ode23", &jg__rk_bs23, 0, NULL},
    {"ode45", &jg__rk_dp54, 0, NULL},  {"discrete", &jg__rk_discrete, 1, NULL},
    {"ode23s", &jg__rk_dp54, 0, &jg__ode23s_ops}, {"lie", &jg__rk_dp54, 1, &jg__lie_ops},
    {"ode15s", &jg__rk_dp54, 0, &jg__ode15s_ops},
};
#define NMETHODS ((int)(sizeof methods / sizeof methods[0]))

const char *jg_solver_names(void)
{
    return "ode1 ode2 ode3 ode4 ode5 ode23 ode45 discrete ode23s lie ode15s";
}

const char *jg_solver_name(const jg_solver_t *s) { return s ? s->name : NULL; }
int jg_solver_is_fixed(const jg_solver_t *s) { return s ? s->fixed : 0; }
double jg_solver_last_step_start(const jg_solver_t *s) { return s ? s->tprev : NAN; }

void jg_solver_get_stats(const jg_solver_t *s, jg_solver_stats_t *st)
{
    if (s && st) *st = s->stats;
}

void jg_solver_free(jg_solver_t *s)
{
    if (!s) return;
    if (s->ops && s->ops->free) s->ops->free(s);
    cs_dl_spfree(s->jpat);
    free(s->jkeep);
    free(s->mem);
    free(s);
}

static int bad_opt(double v) { return isnan(v) || v < 0 || isinf(v); }

jg_status_t jg_solver_create(const char *name, int64_t n, jg_rhs_fn f, void *user,
                             const jg_solver_opts_t *o, jg_solver_t **out, jg_error_t *err)
{
    static const jg_solver_opts_t defaults = {0, 0, 0, 0, 0};
    if (!out) return jg_error_set(err, JG_ARG, "solver: no output pointer");
    *out = NULL;
    int m = 0;
    while (m < NMETHODS && !(name && !strcmp(name, methods[m].name))) m++;
    if (m == NMETHODS)
        return jg_error_set(err, JG_ARG, "unknown solver '%s' (valid: %s)", name ? name : "(null)",
                            jg_solver_names());
    const char *nm = methods[m].name;
    const jg_rk_tableau_t *tb = methods[m].tab;
    if (n < 0) return jg_error_set(err, JG_ARG, "solver '%s': negative state count %lld", nm, (long long)n);
    if (tb->stages > 0 && !f) return jg_error_set(err, JG_ARG, "solver '%s': no right-hand side", nm);
    if (tb->stages == 0 && n > 0)
        return jg_error_set(err, JG_ARG,
                            "solver '%s' cannot integrate %lld continuous states; choose another solver",
                            nm, (long long)n);
    if (!o) o = &defaults;
    if (bad_opt(o->rtol) || bad_opt(o->atol) || bad_opt(o->max_step) || bad_opt(o->initial_step))
        return jg_error_set(err, JG_ARG, "solver '%s': rtol, atol, max step and initial step must be finite and >= 0", nm);
    if (methods[m].fixed && !(o->fixed_step > 0 && isfinite(o->fixed_step)))
        return jg_error_set(err, JG_ARG, "non-positive step %g for fixed-step solver '%s'", o->fixed_step, nm);

    size_t nv = (size_t)(4 + tb->stages);
    if ((uint64_t)n > SIZE_MAX / sizeof(double) / nv) return jg_error_set(err, JG_NOMEM, "solver '%s': %lld states", nm, (long long)n);
    size_t len = (size_t)n ? (size_t)n : 1;   /* never a NULL vector, even for n = 0 */
    jg_solver_t *s = calloc(1, sizeof *s);
    double *mem = malloc(nv * len * sizeof(double));
    if (!s || !mem) {
        free(s);
        free(mem);
        return jg_error_set(err, JG_NOMEM, "solver '%s': out of memory for %lld states", nm, (long long)n);
    }
    s->name = nm;
    s->tab = tb;
    s->fixed = methods[m].fixed;
    s->n = n;
    s->f = f;
    s->user = user;
    s->opts = *o;
    s->rtol = o->rtol > 0 ? fmax(o->rtol, 100 * DBL_EPSILON) : 1e-3;
    s->atol = o->atol > 0 ? o->atol : 1e-6;
    s->mem = mem;
    s->x = mem;
    s->xprev = mem + len;
    s->xnew = mem + 2 * len;
    s->xs = mem + 3 * len;
    for (int i = 0; i < tb->stages; i++) s->k[i] = mem + (size_t)(4 + i) * len;
    memset(mem, 0, nv * len * sizeof(double));
    s->hlast = 0;
    s->ops = methods[m].ops;
    if (s->ops && s->ops->create) {
        jg_status_t st = s->ops->create(s, err);
        if (st) {
            jg_solver_free(s);
            return st;
        }
    }
    *out = s;
    return JG_OK;
}

jg_status_t jg_solver_set_jacobian(jg_solver_t *s, jg_jac_fn jac, const cs_dl *pattern, void *user,
                                   jg_error_t *err)
{
    if (!s) return jg_error_set(err, JG_ARG, "solver: NULL solver");
    if (pattern && (pattern->nz != -1 || pattern->m != s->n || pattern->n != s->n))
        return jg_error_set(err, JG_ARG, "solver '%s': the Jacobian pattern must be %lld x %lld "
                            "compressed-column", s->name, (long long)s->n, (long long)s->n);
    cs_dl *copy = NULL;
    if (pattern) {
        int64_t nz = pattern->p[pattern->n];
        copy = cs_dl_spalloc(s->n, s->n, nz ? nz : 1, 1, 0);
        if (!copy) return jg_error_set(err, JG_NOMEM, "out of memory");
        memcpy(copy->p, pattern->p, sizeof(int64_t) * (size_t)(s->n + 1));
        if (nz) memcpy(copy->i, pattern->i, sizeof(int64_t) * (size_t)nz);
        memset(copy->x, 0, sizeof(double) * (size_t)(nz ? nz : 1));
    }
    cs_dl_spfree(s->jpat);
    free(s->jkeep);
    s->jkeep = NULL;
    s->jpat = copy;
    s->jac = jac;
    s->jac_user = user;
    return JG_OK;
}

jg_status_t jg_solver_set_projection(jg_solver_t *s, jg_proj_fn fn, void *user, jg_error_t *err)
{
    if (!s) return jg_error_set(err, JG_ARG, "solver: NULL solver");
    if (!s->ops || !s->ops->set_projection)
        return jg_error_set(err, JG_ARG, "solver '%s' does not project inside its steps", s->name);
    s->proj = fn;
    s->proj_user = user;
    return s->ops->set_projection(s, err);
}

jg_status_t jg_solver_set_sparsing(jg_solver_t *s, const unsigned char *keep, jg_error_t *err)
{
    if (!s) return jg_error_set(err, JG_ARG, "solver: NULL solver");
    free(s->jkeep);
    s->jkeep = NULL;
    if (!keep) return JG_OK;
    int64_t nz = s->jpat ? s->jpat->p[s->n] : s->n * s->n;
    s->jkeep = malloc((size_t)nz + 1);
    if (!s->jkeep) return jg_error_set(err, JG_NOMEM, "out of memory");
    memcpy(s->jkeep, keep, (size_t)nz);
    return JG_OK;
}

double jg__rk_grid_tol(const jg_solver_t *s, double t)
{
    return fmax(1e-9 * s->opts.fixed_step, 4 * DBL_EPSILON * fabs(t));
}

static jg_status_t check_state(const jg_solver_t *s, const double *x, jg_error_t *err)
{
    if (s->n > 0 && !x) return jg_error_set(err, JG_ARG, "solver '%s': no state vector", s->name);
    for (int64_t i = 0; i < s->n; i++)
        if (!isfinite(x[i]))
            return jg_error_set(err, JG_ARG, "solver '%s': state x[%lld] = %g is not finite", s->name,
                                (long long)i, x[i]);
    return JG_OK;
}

/* Common to init and reset: a fresh point with no step behind it. */
static void restart(jg_solver_t *s, double t, const double *x)
{
    if (s->n) memcpy(s->x, x, (size_t)s->n * sizeof(double));
    s->t = s->tprev = t;
    s->hlast = 0;
    s->have_k0 = s->fsal_pending = 0;
    s->h = s->opts.initial_step > 0 ? fmin(s->opts.initial_step, s->hmax) : 0;
    s->errold = 0;   /* the step controller starts without memory */
    if (s->fixed) {
        double hf = s->opts.fixed_step, tol = jg__rk_grid_tol(s, t);
        long long k = (long long)floor((t - s->t0) / hf);
        while (s->t0 + (double)(k + 1) * hf <= t + tol) k++;   /* floor may be off by one */
        while (s->t0 + (double)k * hf > t + tol) k--;
        s->grid = k;
    }
}

jg_status_t jg_solver_init(jg_solver_t *s, double t0, const double *x0, double tstop, jg_error_t *err)
{
    if (!s) return jg_error_set(err, JG_ARG, "solver: NULL solver");
    if (!isfinite(t0)) return jg_error_set(err, JG_ARG, "solver '%s': start time %g is not finite", s->name, t0);
    if (isnan(tstop)) return jg_error_set(err, JG_ARG, "solver '%s': stop time is NaN", s->name);
    if (tstop < t0) return jg_error_set(err, JG_ARG, "stop time %g before start time %g", tstop, t0);
    jg_status_t st = check_state(s, x0, err);
    if (st) return st;
    s->t0 = t0;
    s->tstop = tstop;
    s->hmax = s->opts.max_step > 0 ? s->opts.max_step : (tstop - t0) / 50;
    if (!(s->hmax > 0)) s->hmax = INFINITY;   /* tstop == t0: no step will be taken */
    memset(&s->stats, 0, sizeof s->stats);
    restart(s, t0, x0);
    return s->ops && s->ops->init ? s->ops->init(s, err) : JG_OK;
}

jg_status_t jg_solver_reset(jg_solver_t *s, double t, const double *x, jg_error_t *err)
{
    if (!s) return jg_error_set(err, JG_ARG, "solver: NULL solver");
    if (!isfinite(t) || t > s->tstop)
        return jg_error_set(err, JG_ARG, "solver '%s': reset time %g outside the run (stop time %g)", s->name, t,
                            s->tstop);
    jg_status_t st = check_state(s, x, err);
    if (st) return st;
    restart(s, t, x);
    return s->ops && s->ops->reset ? s->ops->reset(s, err) : JG_OK;
}

jg_status_t jg_solver_step(jg_solver_t *s, double t_limit, double *t, double *x, jg_error_t *err)
{
    if (!s) return jg_error_set(err, JG_ARG, "solver: NULL solver");
    jg_error_clear(err);   /* f may report into err: whatever is set below came from this call */
    double lim = fmin(t_limit, s->tstop);   /* fmin ignores a NaN t_limit */
    if (!(lim > s->t))
        return jg_error_set(err, JG_ARG, "solver '%s': t = %.17g is already at the step limit %.17g", s->name,
                            s->t, lim);
    jg_status_t st = s->ops      ? s->ops->step(s, lim, err)
                     : s->fixed ? jg__rk_step_fixed(s, lim, err)
                                : jg__rk_step_adaptive(s, lim, err);
    if (st) return st;
    jg_error_clear(err);   /* drop notes of recoverable failures */
    if (t) *t = s->t;
    if (x && s->n) memcpy(x, s->x, (size_t)s->n * sizeof(double));
    return JG_OK;
}

jg_status_t jg__rk_rhs_error(const jg_solver_t *s, double t, int code, jg_error_t *err)
{
    if (err && err->status != JG_OK) return err->status;   /* f explained itself */
    return jg_error_set(err, JG_NUMERIC, "solver '%s': right-hand side failed at t = %.17g (returned %d)", s->name,
                        t, code);
}

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
    double *old = s->xprev;
    s->xprev = s->x;
    s->x = s->xnew;
    s->xnew = old;
    s->tprev = s->t;
    s->t = tnew;
    s->hlast = h;
    s->have_k0 = 0;
    s->fsal_pending = s->tab->fsal;
    s->stats.steps++;
}

jg_status_t jg_solver_interpolate(const jg_solver_t *s, double tq, double *xq)
{
    if (!s || (s->n > 0 && !xq)) return JG_ARG;
    const size_t bytes = (size_t)s->n * sizeof(double);
    if (tq == s->t) {
        if (bytes) memcpy(xq, s->x, bytes);
        return JG_OK;
    }
    if (!(s->hlast > 0 && tq >= s->tprev && tq <= s->t)) return JG_ARG;
    if (tq == s->tprev) {
        if (bytes) memcpy(xq, s->xprev, bytes);
        return JG_OK;
    }
    if (s->ops) return s->ops->interpolate(s, tq, xq);
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
