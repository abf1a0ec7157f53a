/* ode15s: variable-order BDF (orders 1..5) through SUNDIALS CVODE 6.
 *
 * CVODE does the integration, error control, order and step selection and
 * Newton iteration; this file maps the jg_solver life cycle onto it:
 *   create  SUNContext, CVODE memory (CV_BDF), tolerances, options and an error
 *           handler that keeps CVODE's message instead of printing it;
 *   init    the linear solver for the installed Jacobian, max step, initial
 *           step, CVodeReInit at (t0, x0);
 *   step    CVodeSetStopTime(lim) and one CVode(..., CV_ONE_STEP) call;
 *   interpolate  CVodeGetDky(k = 0) on the last step (CVODE's Nordsieck
 *           history: the interpolant of the BDF order in use);
 *   reset   CVodeReInit at the new (t, x) (a restart at order 1).
 * Linear solver: with a Jacobian callback and a pattern (s->jac, s->jpat) a
 * compressed-column SUNSparseMatrix with KLU; otherwise a SUNDenseMatrix with
 * dense LU, filled by s->jac when there is one (as a dense cs_dl) or by
 * CVODE's own difference quotients (one f per column).
 *
 * Zero crossings: the simulator locates them on the dense output of each step
 * (jg_solver_interpolate, like every other solver) and restarts the solver at
 * the event with jg_solver_reset; CVODE's own root finding (CVodeRootInit) is
 * not used, because the simulator's location (direction rules, adaptive band,
 * consecutive-crossing counts) has to be the same for every solver.
 *
 * A Jacobian installed after jg_solver_init (a new callback or pattern) is
 * picked up at the next step: the linear solver is rebuilt and CVODE
 * restarts there (CVODE initializes a linear solver only at the start).
 *
 * Statistics accumulate over CVodeReInit and CVodeSetLinearSolver (which
 * clear CVODE's counters):
 * steps, rejected = error-test failures + nonlinear-solver step failures,
 * fevals = f calls by CVODE + those of its difference-quotient Jacobian
 * (fevals_jac), jevals, factorizations = linear-solver setups (each forms
 * I - gamma J and factors it). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <cvode/cvode_proj.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include "solver_impl.h"

/* The copy of the pattern into SUNDIALS' index arrays relies on this. */
_Static_assert(sizeof(sunindextype) == sizeof(int64_t), "SUNDIALS must use 64-bit indices (cs_dl's)");

typedef struct {
    SUNContext ctx;
    void *mem;              /* CVODE */
    N_Vector y;             /* CVode's output and the (Re)Init state */
    N_Vector yq;            /* interpolation: its data pointer is set to the caller's array */
    SUNMatrix A;
    SUNLinearSolver LS;
    /* what the linear solver was built for (rebuilt when they change) */
    jg_jac_fn ls_jac;
    const cs_dl *ls_pat;
    int64_t ls_nnz;
    int64_t *dp, *di;       /* the dense pattern as compressed columns (dense s->jac) */
    int started;            /* CVODE has been (re)initialized at least once */
    int flat;               /* the last "step" was too short for CVODE: x held constant */
    /* failures seen inside CVODE, for the error after it returns */
    double f_t, j_t;        /* time of the last failing f / Jacobian call */
    int f_code, j_code;     /* their return codes (0: none) */
    char msg[200];          /* CVODE's last error message */
    jg_solver_stats_t base; /* counters of the CVODE runs before the last CVodeReInit */
} cv_t;

static cv_t *impl(const jg_solver_t *s) { return (cv_t *)s->impl; }

/* ------------------------------------------------------------ callbacks */

static int cv_rhs(realtype t, N_Vector y, N_Vector ydot, void *user)
{
    jg_solver_t *s = user;
    cv_t *c = impl(s);
    int r = s->f(t, NV_DATA_S(y), NV_DATA_S(ydot), s->user);
    if (r) {
        c->f_t = t;
        c->f_code = r;
    }
    return r > 0 ? 1 : r < 0 ? -1 : 0;   /* CVODE: > 0 recoverable (smaller step), < 0 fatal */
}

/* J = df/dx into CVODE's matrix.  The callback sees a cs_dl over the
 * SUNMatrix's own arrays: sparse, the pattern copied into them first (CVODE
 * zeroes the whole matrix, index arrays included, before each call); dense,
 * the column-major data is exactly the values of the full compressed-column
 * pattern. */
static int cv_jac(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user, N_Vector t1, N_Vector t2,
                  N_Vector t3)
{
    (void)t1, (void)t2, (void)t3;
    jg_solver_t *s = user;
    cv_t *c = impl(s);
    const int64_t n = s->n;
    cs_dl M = {.m = n, .n = n, .nz = -1};
    if (s->jpat) {
        int64_t nz = s->jpat->p[n];
        if (SM_NNZ_S(J) < nz) {   /* cannot happen: A is allocated for the pattern and only grows */
            c->j_t = t;
            c->j_code = -1;
            return -1;
        }
        memcpy(SM_INDEXPTRS_S(J), s->jpat->p, sizeof(int64_t) * (size_t)(n + 1));
        if (nz) memcpy(SM_INDEXVALS_S(J), s->jpat->i, sizeof(int64_t) * (size_t)nz);
        M.nzmax = SM_NNZ_S(J);
        M.p = (int64_t *)SM_INDEXPTRS_S(J);
        M.i = (int64_t *)SM_INDEXVALS_S(J);
        M.x = SM_DATA_S(J);
    } else {
        M.nzmax = n * n;
        M.p = c->dp;
        M.i = c->di;
        M.x = SM_DATA_D(J);
    }
    int r = s->jac(t, NV_DATA_S(y), NV_DATA_S(fy), &M, s->jac_user);
    if (r) {
        c->j_t = t;
        c->j_code = r;
    }
    return r > 0 ? 1 : r < 0 ? -1 : 0;
}

/* CVODE reports through this instead of printing to stderr; the message is
 * kept for jg_error_set.  Warnings (t + h == t, ...) are dropped: the step
 * either succeeds or fails with an error of its own. */
static void cv_errh(int code, const char *module, const char *function, char *msg, void *user)
{
    (void)module;
    if (code == CV_WARNING) return;
    cv_t *c = user;
    snprintf(c->msg, sizeof c->msg, "%s: %s", function, msg);
}

/* ------------------------------------------------------------ helpers */

/* s->stats = base + CVODE's counters since its last (Re)Init. */
static void update_stats(jg_solver_t *s)
{
    cv_t *c = impl(s);
    long nst = 0, nfe = 0, nfels = 0, nje = 0, nsetups = 0, netf = 0, ncfn = 0;
    if (c->started) {
        CVodeGetNumSteps(c->mem, &nst);
        CVodeGetNumRhsEvals(c->mem, &nfe);
        CVodeGetNumLinRhsEvals(c->mem, &nfels);
        CVodeGetNumJacEvals(c->mem, &nje);
        CVodeGetNumLinSolvSetups(c->mem, &nsetups);
        CVodeGetNumErrTestFails(c->mem, &netf);
        CVodeGetNumStepSolveFails(c->mem, &ncfn);
    }
    s->stats.steps = c->base.steps + nst;
    s->stats.rejected = c->base.rejected + netf + ncfn;
    s->stats.fevals = c->base.fevals + nfe + nfels;
    s->stats.fevals_jac = c->base.fevals_jac + nfels;
    s->stats.jevals = c->base.jevals + nje;
    s->stats.factorizations = c->base.factorizations + nsetups;
}

/* A CVODE failure (flag < 0) as a jg error. */
static jg_status_t cv_error(jg_solver_t *s, int flag, double t, jg_error_t *err)
{
    cv_t *c = impl(s);
    /* f or the Jacobian failed fatally (CVODE stops at once, with a flag that
     * depends on where it was called): their own error when they set one */
    if (c->f_code < 0) return jg__rk_rhs_error(s, c->f_t, c->f_code, err);
    if (c->j_code < 0) {
        if (err && err->status != JG_OK) return err->status;
        return jg_error_set(err, JG_NUMERIC, "solver '%s': the Jacobian callback failed at t = %.17g (returned %d)",
                            s->name, c->j_t, c->j_code);
    }
    char *name = CVodeGetReturnFlagName(flag);   /* malloc'ed by CVODE */
    jg_status_t st = jg_error_set(err, JG_NUMERIC, "solver '%s': CVODE failed at t = %.17g (%s)%s%s", s->name, t,
                                  name ? name : "?", c->msg[0] ? ": " : "", c->msg);
    free(name);
    return st;
}

static jg_status_t cv_fail(jg_solver_t *s, const char *what, int flag, jg_error_t *err)
{
    cv_t *c = impl(s);
    char *name = CVodeGetReturnFlagName(flag);
    jg_status_t st = jg_error_set(err, flag == CV_MEM_FAIL ? JG_NOMEM : JG_INTERNAL,
                                  "solver '%s': %s failed (%s)%s%s", s->name, what, name ? name : "?",
                                  c->msg[0] ? ": " : "", c->msg);
    free(name);
    return st;
}

/* CVodeReInit and CVodeSetLinearSolver clear CVODE's counters: keep the totals. */
static void save_stats(jg_solver_t *s)
{
    cv_t *c = impl(s);
    update_stats(s);
    c->base = s->stats;
}

/* CVODE restarts at (s->t, s->x) with the step s->h (0: its own estimate).
 * The counters must have been saved (save_stats). */
static jg_status_t reinit(jg_solver_t *s, jg_error_t *err)
{
    cv_t *c = impl(s);
    memcpy(NV_DATA_S(c->y), s->x, sizeof(double) * (size_t)s->n);
    c->msg[0] = '\0';
    int flag = CVodeReInit(c->mem, s->t, c->y);
    if (flag == CV_SUCCESS) flag = CVodeSetInitStep(c->mem, s->h);
    if (flag == CV_SUCCESS) flag = CVodeSetMaxStep(c->mem, isfinite(s->hmax) ? s->hmax : 0);
    if (flag != CV_SUCCESS) return cv_fail(s, "CVodeReInit", flag, err);
    c->started = 1;
    c->flat = 0;
    return JG_OK;
}

/* The linear solver for the Jacobian installed now (jg_solver_set_jacobian);
 * built at init, rebuilt (with a restart) when the Jacobian changed since. */
static jg_status_t ensure_linsol(jg_solver_t *s, jg_error_t *err)
{
    cv_t *c = impl(s);
    const int64_t n = s->n;
    int sparse = s->jac && s->jpat;
    int64_t nnz = sparse ? s->jpat->p[n] : 0;
    if (c->LS && c->ls_jac == s->jac && c->ls_pat == (sparse ? s->jpat : NULL) && c->ls_nnz == nnz)
        return JG_OK;
    SUNMatrix A = NULL;
    SUNLinearSolver LS = NULL;
    if (sparse) {
        /* room for the diagonal that CVODE adds when it forms I - gamma J */
        A = SUNSparseMatrix(n, n, nnz + n, CSC_MAT, c->ctx);
        if (A) LS = SUNLinSol_KLU(c->y, A, c->ctx);
        /* AMD, not SUNDIALS' default COLAMD: I - gamma J is structurally
         * symmetric-ish, and on the 2-D Brusselator COLAMD gives 2.2x the fill
         * (a 10^4-state run 3.6 s -> 1.2 s, benchmarks/README.md) */
        if (LS) SUNLinSol_KLUSetOrdering(LS, 0);
    } else {
        if (s->jac && !c->dp) {
            c->dp = malloc(sizeof(int64_t) * (size_t)(n + 1));
            c->di = malloc(sizeof(int64_t) * (size_t)(n * n));
            if (!c->dp || !c->di) {
                free(c->dp), free(c->di);
                c->dp = c->di = NULL;
                return jg_error_set(err, JG_NOMEM, "solver '%s': out of memory for a %lld x %lld Jacobian",
                                    s->name, (long long)n, (long long)n);
            }
            for (int64_t j = 0; j <= n; j++) c->dp[j] = j * n;
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) c->di[j * n + i] = i;
        }
        A = SUNDenseMatrix(n, n, c->ctx);
        if (A) LS = SUNLinSol_Dense(c->y, A, c->ctx);
    }
    if (!A || !LS) {
        if (LS) SUNLinSolFree(LS);
        if (A) SUNMatDestroy(A);
        return jg_error_set(err, JG_NOMEM, "solver '%s': out of memory for the %s linear solver (%lld states)",
                            s->name, sparse ? "KLU" : "dense", (long long)n);
    }
    c->msg[0] = '\0';
    if (c->started) save_stats(s);
    int flag = CVodeSetLinearSolver(c->mem, LS, A);   /* replaces (does not free) the old pair */
    if (flag == CVLS_SUCCESS) flag = CVodeSetJacFn(c->mem, s->jac ? cv_jac : NULL);   /* NULL: CVODE's DQ */
    if (flag != CVLS_SUCCESS) {
        SUNLinSolFree(LS);
        SUNMatDestroy(A);
        char *name = CVodeGetLinReturnFlagName(flag);
        jg_status_t st = jg_error_set(err, JG_INTERNAL, "solver '%s': CVodeSetLinearSolver failed (%s)%s%s",
                                      s->name, name ? name : "?", c->msg[0] ? ": " : "", c->msg);
        free(name);
        return st;
    }
    if (c->LS) SUNLinSolFree(c->LS);
    if (c->A) SUNMatDestroy(c->A);
    c->A = A;
    c->LS = LS;
    c->ls_jac = s->jac;
    c->ls_pat = sparse ? s->jpat : NULL;
    c->ls_nnz = nnz;
    /* a new linear solver is initialized only at the start of an integration */
    return c->started ? reinit(s, err) : JG_OK;
}

/* ------------------------------------------------------------ life cycle */

static void cv_free(jg_solver_t *s)
{
    cv_t *c = impl(s);
    if (!c) return;
    if (c->mem) CVodeFree(&c->mem);
    if (c->LS) SUNLinSolFree(c->LS);
    if (c->A) SUNMatDestroy(c->A);
    if (c->y) N_VDestroy(c->y);
    if (c->yq) N_VDestroy(c->yq);
    if (c->ctx) SUNContext_Free(&c->ctx);
    free(c->dp);
    free(c->di);
    free(c);
    s->impl = NULL;
}

/* CVODE's projection callback (CVodeSetProjFn): ours moves x in place; CVODE
 * wants the correction too.  The error estimate is not projected. */
static int cv_proj(realtype t, N_Vector ycur, N_Vector corr, realtype eps, N_Vector errv, void *user)
{
    (void)eps, (void)errv;
    jg_solver_t *s = user;
    double *y = NV_DATA_S(ycur), *cr = NV_DATA_S(corr);
    for (int64_t i = 0; i < s->n; i++) cr[i] = y[i];
    int r = s->proj(t, y, s->proj_user);
    if (r) return r < 0 ? -1 : 1;
    for (int64_t i = 0; i < s->n; i++) cr[i] = y[i] - cr[i];
    return 0;
}

static jg_status_t cv_set_projection(jg_solver_t *s, jg_error_t *err)
{
    cv_t *c = impl(s);
    if (s->n == 0 || !s->proj) return JG_OK;
    int flag = CVodeSetProjFn(c->mem, cv_proj);
    if (flag == CV_SUCCESS) flag = CVodeSetProjErrEst(c->mem, SUNFALSE);
    return flag == CV_SUCCESS ? JG_OK : cv_fail(s, "CVodeSetProjFn", flag, err);
}

static jg_status_t cv_create(jg_solver_t *s, jg_error_t *err)
{
    cv_t *c = calloc(1, sizeof *c);
    if (!c) return jg_error_set(err, JG_NOMEM, "solver '%s': out of memory", s->name);
    s->impl = c;
    if (s->n == 0) return JG_OK;   /* nothing to integrate: step only advances time */
    if (SUNContext_Create(NULL, &c->ctx) != 0) {
        cv_free(s);
        return jg_error_set(err, JG_NOMEM, "solver '%s': out of memory (SUNContext_Create failed)", s->name);
    }
    c->y = N_VNew_Serial(s->n, c->ctx);
    c->yq = N_VMake_Serial(s->n, NULL, c->ctx);   /* data set per call */
    c->mem = CVodeCreate(CV_BDF, c->ctx);
    if (!c->y || !c->yq || !c->mem) {
        cv_free(s);
        return jg_error_set(err, JG_NOMEM, "solver '%s': out of memory for CVODE (%lld states)", s->name,
                            (long long)s->n);
    }
    N_VConst(0.0, c->y);
    int flag = CVodeSetErrHandlerFn(c->mem, cv_errh, c);
    if (flag == CV_SUCCESS) flag = CVodeInit(c->mem, cv_rhs, 0.0, c->y);
    if (flag == CV_SUCCESS) flag = CVodeSetUserData(c->mem, s);
    if (flag == CV_SUCCESS) flag = CVodeSStolerances(c->mem, s->rtol, s->atol);
    if (flag == CV_SUCCESS) flag = CVodeSetMaxOrd(c->mem, 5);
    /* one step per CVode call (CV_ONE_STEP): the limit on internal steps
     * per call never bites, so it is only set out of the way */
    if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(c->mem, 1000000000L);
    if (flag != CV_SUCCESS) {
        jg_status_t st = cv_fail(s, "CVODE set-up", flag, err);
        cv_free(s);
        return st;
    }
    return JG_OK;
}

static jg_status_t cv_init(jg_solver_t *s, jg_error_t *err)
{
    cv_t *c = impl(s);
    memset(&c->base, 0, sizeof c->base);
    c->flat = 0;
    if (s->n == 0) return JG_OK;
    c->started = 0;   /* the counters of an earlier run are not carried over */
    jg_status_t st = ensure_linsol(s, err);
    return st ? st : reinit(s, err);
}

static jg_status_t cv_reset(jg_solver_t *s, jg_error_t *err)
{
    if (s->n == 0) return JG_OK;
    save_stats(s);
    return reinit(s, err);
}

static jg_status_t cv_step(jg_solver_t *s, double lim, jg_error_t *err)
{
    cv_t *c = impl(s);
    const int64_t n = s->n;
    const double t0 = s->t;
    /* until this step succeeds there is no dense output */
    s->tprev = t0;
    s->hlast = 0;
    c->flat = 0;
    if (n == 0) {   /* time only */
        s->t = lim;
        s->hlast = lim - t0;
        s->stats.steps++;
        return JG_OK;
    }
    jg_status_t st = ensure_linsol(s, err);
    if (st) return st;
    memcpy(s->xprev, s->x, sizeof(double) * (size_t)n);
    c->f_code = c->j_code = 0;
    c->msg[0] = '\0';

    long nst = 0;
    realtype tn = t0;
    CVodeGetNumSteps(c->mem, &nst);
    CVodeGetCurrentTime(c->mem, &tn);
    if (nst > 0 && lim <= tn) {
        /* CVODE already stands at or past lim: it stopped within round-off of
         * an earlier limit (CV_TSTOP_RETURN interpolates there).  lim lies on
         * its last step, so the dense output gives the point. */
        N_VSetArrayPointer(s->x, c->yq);
        int flag = CVodeGetDky(c->mem, lim, 0, c->yq);
        if (flag != CV_SUCCESS) return cv_error(s, flag, t0, err);
        s->t = lim;
        s->hlast = lim - t0;
        return JG_OK;
    }
    if (nst == 0 && lim - t0 <= 4 * DBL_EPSILON * fmax(fabs(t0), fabs(lim))) {
        /* too short for CVODE to start (CV_TOO_CLOSE): the state cannot change
         * measurably over a few ulps of t; CVODE starts from t0 next time */
        s->t = lim;
        s->hlast = lim - t0;
        c->flat = 1;
        return JG_OK;
    }
    int flag = CVodeSetStopTime(c->mem, lim);
    if (flag != CV_SUCCESS) return cv_error(s, flag, t0, err);
    /* tout only serves CVODE's first-step estimate (|h0| <= 0.1 |tout - t0|) */
    double tout = isfinite(lim) ? lim : t0 + (isfinite(s->hmax) ? s->hmax : fmax(1.0, fabs(t0)));
    realtype tret = t0;
    flag = CVode(c->mem, tout, c->y, &tret, CV_ONE_STEP);
    update_stats(s);
    if (flag < 0) {
        realtype tcur = t0;
        CVodeGetCurrentTime(c->mem, &tcur);
        return cv_error(s, flag, tcur, err);
    }
    /* CVODE only warns when t + h == t and goes on (a recoverable f failure
     * can drive h down to that): fail as the other solvers do when the step
     * falls below 16 eps |t|.  A step cut to end at lim may be that short. */
    realtype hu = 0;
    CVodeGetLastStep(c->mem, &hu);
    if (!(tret > t0) || (flag == CV_SUCCESS && hu < 16 * DBL_EPSILON * fabs(tret)))
        return jg_error_set(err, JG_NUMERIC, "solver '%s': step size too small at t = %.17g (h = %g)%s",
                            s->name, t0, hu, c->f_code > 0 ? " (the right-hand side rejected larger ones)" : "");
    memcpy(s->x, NV_DATA_S(c->y), sizeof(double) * (size_t)n);
    /* the step is [t0, tret]: CVODE's own [tn - hu, tn] up to round-off (and
     * CVodeGetDky accepts that much), contiguous with the previous step as
     * the simulator's event bracketing expects */
    s->t = tret;
    s->hlast = tret - t0;
    return JG_OK;
}

static jg_status_t cv_interpolate(const jg_solver_t *s, double tq, double *xq)
{
    cv_t *c = impl(s);
    if (s->n == 0) return JG_OK;
    if (c->flat) {
        memcpy(xq, s->x, sizeof(double) * (size_t)s->n);
        return JG_OK;
    }
    N_VSetArrayPointer(xq, c->yq);
    int flag = CVodeGetDky(c->mem, tq, 0, c->yq);
    N_VSetArrayPointer(NULL, c->yq);
    return flag == CV_SUCCESS ? JG_OK : JG_ARG;
}

const jg__solver_ops_t jg__ode15s_ops = {
    .name = "ode15s",
    .create = cv_create,
    .free = cv_free,
    .init = cv_init,
    .step = cv_step,
    .interpolate = cv_interpolate,
    .reset = cv_reset,
    .set_projection = cv_set_projection,
};
