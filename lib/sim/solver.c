/* The solver registry (every method is an ops table, solver_impl.h) and the life cycle common to all:
 * create, options, init, reset, step, dense output at the step's ends, the fixed-step grid. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "solver_impl.h"

#define JG__SOLVER_ENTRY(id) &jg__##id##_ops,
static const jg__solver_ops_t *const registry[] = {JG__SOLVER_LIST(JG__SOLVER_ENTRY)};
#undef JG__SOLVER_ENTRY
#define NMETHODS ((int)(sizeof registry / sizeof registry[0]))

const char *jg_solver_names(void)
{
#define JG__SOLVER_NAME(id) " " #id
    static const char names[] = JG__SOLVER_LIST(JG__SOLVER_NAME);
#undef JG__SOLVER_NAME
    return names + 1;   /* past the leading space */
}

/* Names in the order of jg_solver_method_t; the registry is searched by name,
 * so its order (jg_solver_names) and the enum's need not agree. */
static const char *const method_names[] = {"auto", "ode1",    "ode2",     "ode3",   "ode4", "ode5",
                                           "ode23", "ode45",  "discrete", "ode23s", "lie",  "ode15s"};
#define NENUM ((int)(sizeof method_names / sizeof method_names[0]))

const char *jg_solver_method_name(jg_solver_method_t m)
{
    return (unsigned)m < (unsigned)NENUM ? method_names[m] : NULL;
}

int jg_solver_method_parse(const char *s)
{
    for (int k = 0; s && k < NENUM; k++)
        if (!strcmp(s, method_names[k])) return k;
    return -1;
}

const char *jg_solver_name(const jg_solver_t *s) { return s ? s->name : NULL; }
jg_solver_method_t jg_solver_method(const jg_solver_t *s) { return s ? s->method : JG_SOLVER_AUTO; }
int jg_solver_is_fixed(const jg_solver_t *s) { return s ? s->fixed : 0; }
double jg_solver_last_step_start(const jg_solver_t *s) { return s ? s->tprev : NAN; }

void jg_solver_get_stats(const jg_solver_t *s, jg_solver_stats_t *st)
{
    if (s && st) *st = s->stats;
}

void jg_solver_free(jg_solver_t *s)
{
    if (!s) return;
    if (s->ops->free) s->ops->free(s);
    cs_dl_spfree(s->jpat);
    free(s->jkeep);
    free(s->mem);
    free(s);
}

static int bad_opt(double v) { return isnan(v) || v < 0 || isinf(v); }

jg_status_t jg_solver_create(jg_solver_method_t method, int64_t n, jg_rhs_fn f, void *user,
                             const jg_solver_opts_t *o, jg_solver_t **out, jg_error_t *err)
{
    static const jg_solver_opts_t defaults = {0, 0, 0, 0, 0};
    if (!out) return jg_error_set(err, JG_ARG, "solver: no output pointer");
    *out = NULL;
    if ((unsigned)method >= (unsigned)NENUM)
        return jg_error_set(err, JG_ARG, "unknown solver method %d (valid: 0 to %d, auto %s)", (int)method,
                            NENUM - 1, jg_solver_names());
    if (method == JG_SOLVER_AUTO) method = n > 0 ? JG_SOLVER_ODE45 : JG_SOLVER_DISCRETE;
    int m = 0;
    while (m < NMETHODS && strcmp(method_names[method], registry[m]->name)) m++;
    if (m == NMETHODS)   /* an enum value without a registry entry: a build mistake */
        return jg_error_set(err, JG_ARG, "solver '%s' is not in the registry", method_names[method]);
    const jg__solver_ops_t *ops = registry[m];
    const char *nm = ops->name;
    const int nstages = ops->tab ? ops->tab->stages : 0;
    if (n < 0) return jg_error_set(err, JG_ARG, "solver '%s': negative state count %lld", nm, (long long)n);
    if (!ops->time_only && !f) return jg_error_set(err, JG_ARG, "solver '%s': no right-hand side", nm);
    if (ops->time_only && n > 0)
        return jg_error_set(err, JG_ARG,
                            "solver '%s' cannot integrate %lld continuous states; choose another solver",
                            nm, (long long)n);
    if (!o) o = &defaults;
    if (bad_opt(o->rtol) || bad_opt(o->atol) || bad_opt(o->max_step) || bad_opt(o->initial_step))
        return jg_error_set(err, JG_ARG, "solver '%s': rtol, atol, max step and initial step must be finite and >= 0", nm);
    if (ops->fixed && !(o->fixed_step > 0 && isfinite(o->fixed_step)))
        return jg_error_set(err, JG_ARG, "non-positive step %g for fixed-step solver '%s'", o->fixed_step, nm);

    size_t nv = (size_t)(4 + nstages);
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
    s->method = method;
    s->ops = ops;
    s->tab = ops->tab;
    s->fixed = ops->fixed;
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
    for (int i = 0; i < nstages; i++) s->k[i] = mem + (size_t)(4 + i) * len;
    memset(mem, 0, nv * len * sizeof(double));
    s->hlast = 0;
    if (ops->create) {
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
    if (!s->ops->set_projection)
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

double jg__solver_grid_next(const jg_solver_t *s, double lim, long long *grid)
{
    /* Times come from t0 + k h rather than a running sum, so the grid does not drift. */
    const double hf = s->opts.fixed_step;
    long long g = s->grid;
    double tg = s->t0 + (double)(g + 1) * hf, tol = jg__rk_grid_tol(s, tg), tnew;
    if (tg >= lim - tol) {   /* the limit comes first, or the grid point is the limit */
        tnew = lim;
        if (tg <= lim + tol) g++;
    } else {
        tnew = tg;
        g++;
    }
    *grid = g;
    return tnew;
}

void jg__solver_accept(jg_solver_t *s, double tnew, double h)
{
    double *old = s->xprev;
    s->xprev = s->x;
    s->x = s->xnew;
    s->xnew = old;
    s->tprev = s->t;
    s->t = tnew;
    s->hlast = h;
    s->stats.steps++;
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
    return s->ops->init ? s->ops->init(s, err) : JG_OK;
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
    return s->ops->reset ? s->ops->reset(s, err) : JG_OK;
}

jg_status_t jg_solver_step(jg_solver_t *s, double t_limit, double *t, double *x, jg_error_t *err)
{
    if (!s) return jg_error_set(err, JG_ARG, "solver: NULL solver");
    jg_error_clear(err);   /* f may report into err: whatever is set below came from this call */
    double lim = fmin(t_limit, s->tstop);   /* fmin ignores a NaN t_limit */
    if (!(lim > s->t))
        return jg_error_set(err, JG_ARG, "solver '%s': t = %.17g is already at the step limit %.17g", s->name,
                            s->t, lim);
    jg_status_t st = s->ops->step(s, lim, err);
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
    return s->ops->interpolate(s, tq, xq);
}
