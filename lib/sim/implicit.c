/* Solver Jacobian (callback or forward differences) and the iteration matrix
 * W = I - gamma h J of the implicit solvers: dense LAPACK or sparse KLU (see implicit.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "implicit.h"

void jg__implicit_create(jg__implicit_t *im, const jg_solver_t *s, int use_mask)
{
    memset(im, 0, sizeof *im);
    im->n = s->n;
    im->use_mask = use_mask;
}

static void free_structure(jg__implicit_t *im)
{
    if (im->num) klu_l_free_numeric(&im->num, &im->kc);
    if (im->sym) klu_l_free_symbolic(&im->sym, &im->kc);
    cs_dl_spfree(im->J);
    free(im->keep);
    free(im->W);
    free(im->ipiv);
    free(im->Wp);
    free(im->Wi);
    free(im->jmap);
    free(im->wdiag);
    free(im->Wx);
    free(im->xs);
    free(im->fs);
    int64_t n = im->n;
    int use_mask = im->use_mask;
    memset(im, 0, sizeof *im);
    im->n = n;
    im->use_mask = use_mask;
}

void jg__implicit_free(jg__implicit_t *im)
{
    if (im) free_structure(im);
}

static int64_t pattern_nz(const jg_solver_t *s) { return s->jpat ? s->jpat->p[s->n] : s->n * s->n; }

int64_t jg__implicit_dropped(const jg_solver_t *s)
{
    if (!s || !s->jkeep) return 0;
    int64_t nz = pattern_nz(s), d = 0;
    for (int64_t k = 0; k < nz; k++) d += !s->jkeep[k];
    return d;
}

/* Does the structure still describe s->jpat (and s->jkeep)? */
static int current(const jg__implicit_t *im, const jg_solver_t *s)
{
    if (!im->built || im->sparse != (s->jpat != NULL)) return 0;
    int64_t n = im->n, nz = pattern_nz(s);
    if (s->jpat) {
        const cs_dl *P = s->jpat, *J = im->J;
        if (J->p[n] != nz || memcmp(J->p, P->p, sizeof(int64_t) * (size_t)(n + 1)) ||
            (nz && memcmp(J->i, P->i, sizeof(int64_t) * (size_t)nz)))
            return 0;
    }
    if (!im->use_mask) return 1;
    if (im->had_keep != (s->jkeep != NULL)) return 0;
    return !s->jkeep || nz == 0 || !memcmp(im->keep, s->jkeep, (size_t)nz);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* W's pattern: per column the kept rows of J and the diagonal, sorted, each once
 * (a pattern may list an entry twice: both add into the same W entry). */
static jg_status_t build_sparse(jg__implicit_t *im, const jg_solver_t *s, jg_error_t *err)
{
    const int64_t n = im->n, *Jp = im->J->p, *Ji = im->J->i, nz = Jp[n];
    const unsigned char *keep = im->keep;
    im->Wp = malloc(sizeof(int64_t) * (size_t)(n + 1));
    im->Wi = malloc(sizeof(int64_t) * (size_t)(nz + n + 1));
    im->jmap = malloc(sizeof(int64_t) * (size_t)(nz + 1));
    im->wdiag = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *seen = malloc(sizeof(int64_t) * (size_t)(n + 1)), *pos = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!im->Wp || !im->Wi || !im->jmap || !im->wdiag || !seen || !pos) {
        free(seen);
        free(pos);
        return jg_error_set(err, JG_NOMEM, "solver '%s': out of memory for the iteration matrix", s->name);
    }
    for (int64_t i = 0; i < n; i++) seen[i] = -1;
    int64_t w = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t start = w;
        im->Wp[j] = start;
        for (int64_t k = Jp[j]; k <= Jp[j + 1]; k++) {
            int64_t i = k < Jp[j + 1] ? Ji[k] : j;   /* the diagonal last */
            if (k < Jp[j + 1] && keep && !keep[k]) continue;
            if (seen[i] != j) {
                seen[i] = j;
                im->Wi[w++] = i;
            }
        }
        qsort(im->Wi + start, (size_t)(w - start), sizeof(int64_t), cmp_i64);
        for (int64_t q = start; q < w; q++) pos[im->Wi[q]] = q;
        for (int64_t k = Jp[j]; k < Jp[j + 1]; k++) im->jmap[k] = keep && !keep[k] ? -1 : pos[Ji[k]];
        im->wdiag[j] = pos[j];
    }
    im->Wp[n] = w;
    free(seen);
    free(pos);
    im->Wx = malloc(sizeof(double) * (size_t)(w ? w : 1));
    if (!im->Wx) return jg_error_set(err, JG_NOMEM, "solver '%s': out of memory for the iteration matrix", s->name);
    klu_l_defaults(&im->kc);
    im->sym = klu_l_analyze(n, im->Wp, im->Wi, &im->kc);
    if (!im->sym)
        return jg_error_set(err, im->kc.status == KLU_OUT_OF_MEMORY ? JG_NOMEM : JG_INTERNAL,
                            "solver '%s': KLU could not analyze the %lld x %lld iteration matrix "
                            "(%lld entries; status %d)", s->name, (long long)n, (long long)n, (long long)w,
                            (int)im->kc.status);
    return JG_OK;
}

jg_status_t jg__implicit_prepare(jg__implicit_t *im, jg_solver_t *s, int *rebuilt, jg_error_t *err)
{
    if (rebuilt) *rebuilt = 0;
    if (current(im, s)) return JG_OK;
    if (rebuilt) *rebuilt = 1;
    free_structure(im);
    const int64_t n = im->n;
    if (n == 0) {   /* nothing to factor: steps only advance time */
        im->built = 1;
        im->sparse = s->jpat != NULL;
        im->had_keep = im->use_mask && s->jkeep;
        if (!(im->J = cs_dl_spalloc(0, 0, 1, 1, 0))) return jg_error_set(err, JG_NOMEM, "solver '%s': out of memory", s->name);
        im->J->p[0] = 0;
        return JG_OK;
    }
    int64_t nz;
    if (s->jpat) {
        const cs_dl *P = s->jpat;
        if (P->p[0] != 0)
            return jg_error_set(err, JG_ARG, "solver '%s': Jacobian pattern column pointer p[0] = %lld, expected 0",
                                s->name, (long long)P->p[0]);
        for (int64_t j = 0; j < n; j++)
            if (P->p[j + 1] < P->p[j])
                return jg_error_set(err, JG_ARG, "solver '%s': Jacobian pattern column pointers decrease at "
                                    "column %lld (p = %lld then %lld)", s->name, (long long)j,
                                    (long long)P->p[j], (long long)P->p[j + 1]);
        nz = P->p[n];
        for (int64_t k = 0; k < nz; k++)
            if (P->i[k] < 0 || P->i[k] >= n)
                return jg_error_set(err, JG_ARG, "solver '%s': Jacobian pattern entry %lld has row %lld, "
                                    "expected 0..%lld", s->name, (long long)k, (long long)P->i[k],
                                    (long long)(n - 1));
    } else {
        if ((uint64_t)n > (uint64_t)INT32_MAX / (uint64_t)n)   /* lapack_int is 32-bit */
            return jg_error_set(err, JG_NOMEM, "solver '%s': a dense %lld x %lld Jacobian is too large; "
                                "give a sparse pattern", s->name, (long long)n, (long long)n);
        nz = n * n;
    }
    jg_status_t st = JG_OK;
    im->J = cs_dl_spalloc(n, n, nz ? nz : 1, 1, 0);
    im->xs = malloc(sizeof(double) * (size_t)n);
    im->fs = malloc(sizeof(double) * (size_t)n);
    if (!im->J || !im->xs || !im->fs) goto nomem;
    if (s->jpat) {
        memcpy(im->J->p, s->jpat->p, sizeof(int64_t) * (size_t)(n + 1));
        if (nz) memcpy(im->J->i, s->jpat->i, sizeof(int64_t) * (size_t)nz);
    } else {
        for (int64_t j = 0; j <= n; j++) im->J->p[j] = j * n;
        for (int64_t k = 0; k < nz; k++) im->J->i[k] = k % n;
    }
    memset(im->J->x, 0, sizeof(double) * (size_t)(nz ? nz : 1));
    if (im->use_mask && s->jkeep) {
        if (!(im->keep = malloc((size_t)nz + 1))) goto nomem;
        memcpy(im->keep, s->jkeep, (size_t)nz);
        im->had_keep = 1;
        im->dropped = jg__implicit_dropped(s);
    }
    im->sparse = s->jpat != NULL;
    if (im->sparse) {
        if ((st = build_sparse(im, s, err))) goto fail;
    } else {
        im->W = malloc(sizeof(double) * (size_t)nz);
        im->ipiv = malloc(sizeof(lapack_int) * (size_t)n);
        if (!im->W || !im->ipiv) goto nomem;
    }
    im->built = 1;
    return JG_OK;
nomem:
    st = jg_error_set(err, JG_NOMEM, "solver '%s': out of memory for a %lld-state Jacobian", s->name, (long long)n);
fail:
    free_structure(im);
    return st;
}

static int dropped(const jg__implicit_t *im, int64_t k) { return im->keep && !im->keep[k]; }

/* Column j of J by a forward difference of f with increment del (signed),
 * skipping dropped entries. */
static jg_status_t perturb_column(jg__implicit_t *im, jg_solver_t *s, double t, const double *x, const double *fx,
                                  int64_t j, double del, jg_error_t *err)
{
    const int64_t *Jp = im->J->p, *Ji = im->J->i;
    double *Jx = im->J->x, *xs = im->xs, *fs = im->fs;
    int64_t k0 = Jp[j], k1 = Jp[j + 1], k;
    for (k = k0; k < k1 && dropped(im, k); k++) {}
    if (k == k1) return JG_OK;   /* nothing kept in this column: no evaluation */
    int r = 1;
    for (int tries = 0; tries < 2 && r > 0; tries++, del = -del) {
        double xj = x[j] + del;
        double d = xj - x[j];   /* the step actually taken, exact in floating point */
        xs[j] = xj;
        s->stats.fevals++;
        s->stats.fevals_jac++;
        r = s->f(t, xs, fs, s->user);
        xs[j] = x[j];
        if (r < 0) return jg__rk_rhs_error(s, t, r, err);
        if (r == 0)
            for (k = k0; k < k1; k++) Jx[k] = dropped(im, k) ? 0 : (fs[Ji[k]] - fx[Ji[k]]) / d;
    }
    if (r > 0)
        return jg_error_set(err, JG_NUMERIC, "solver '%s': right-hand side rejected both perturbations of "
                            "x[%lld] = %g for the Jacobian at t = %.17g (returned %d)", s->name, (long long)j, x[j],
                            t, r);
    jg_error_clear(err);   /* a rejected first try may have left a note */
    return JG_OK;
}

jg_status_t jg__implicit_jacobian(jg__implicit_t *im, jg_solver_t *s, double t, const double *x, const double *fx,
                                  double h, jg_error_t *err)
{
    const int64_t n = im->n;
    if (n == 0) return JG_OK;
    cs_dl *J = im->J;
    const int64_t nz = J->p[n];
    s->stats.jevals++;
    memset(J->x, 0, sizeof(double) * (size_t)(nz ? nz : 1));
    if (s->jac) {
        int r = s->jac(t, x, fx, J, s->jac_user);
        if (r < 0) {
            if (err && err->status != JG_OK) return err->status;
            return jg_error_set(err, JG_NUMERIC, "solver '%s': Jacobian callback failed at t = %.17g (returned %d)",
                                s->name, t, r);
        }
        if (r > 0)
            return jg_error_set(err, JG_NUMERIC, "solver '%s': Jacobian callback rejected the state at t = %.17g "
                                "(returned %d); no smaller step can help", s->name, t, r);
        if (J->p[n] != nz) return jg_error_set(err, JG_INTERNAL, "solver '%s': Jacobian callback changed the pattern", s->name);
    } else {
        /* Increments of CVODE's difference-quotient Jacobian (cvLsDenseDQJac):
         * sqrt(eps) |x_j|, but at least minc (atol + rtol |x_j|) with minc =
         * 1000 |h| eps n ||fx|| (weighted RMS), a change far below the error
         * tolerance yet above the rounding of f.  A floor tied to the
         * tolerances alone (MATLAB's atol/rtol threshold) is too coarse for a
         * state far below it: ROBER's y2 (1e-13 .. 4e-5) enters f squared
         * with 3e7, and that floor cost a digit of the final answer. */
        double fn = 0;
        for (int64_t i = 0; i < n; i++) {
            double r = fx[i] / (s->atol + s->rtol * fabs(x[i]));
            fn += r * r;
        }
        fn = sqrt(fn / (double)n);
        double minc = fn > 0 ? 1000 * fabs(h) * DBL_EPSILON * (double)n * fn : 1;
        memcpy(im->xs, x, sizeof(double) * (size_t)n);
        for (int64_t j = 0; j < n; j++) {
            double del = fmax(sqrt(DBL_EPSILON) * fabs(x[j]), minc * (s->atol + s->rtol * fabs(x[j])));
            jg_status_t st = perturb_column(im, s, t, x, fx, j, x[j] < 0 ? -del : del, err);
            if (st) return st;
        }
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t k = J->p[j]; k < J->p[j + 1]; k++)
            if (!isfinite(J->x[k]) && !dropped(im, k))
                return jg_error_set(err, JG_NUMERIC, "solver '%s': Jacobian entry (%lld, %lld) is %g at t = %.17g",
                                    s->name, (long long)J->i[k], (long long)j, J->x[k], t);
    return JG_OK;
}

/* KLU leaves a singular matrix's factors half done (status KLU_SINGULAR, a
 * warning); drop them so that the next W is factored afresh. */
static jg_status_t klu_failed(jg__implicit_t *im, const jg_solver_t *s, int *singular, jg_error_t *err)
{
    int status = (int)im->kc.status;
    if (im->num) klu_l_free_numeric(&im->num, &im->kc);
    if (status == KLU_SINGULAR) {
        *singular = 1;
        return JG_OK;
    }
    return jg_error_set(err, status == KLU_OUT_OF_MEMORY ? JG_NOMEM : JG_INTERNAL,
                        "solver '%s': KLU failed to factor the iteration matrix (status %d)", s->name, status);
}

jg_status_t jg__implicit_factor(jg__implicit_t *im, jg_solver_t *s, double gh, int *singular, jg_error_t *err)
{
    const int64_t n = im->n;
    *singular = 0;
    if (n == 0) return JG_OK;
    const cs_dl *J = im->J;
    const double *Jx = J->x;
    s->stats.factorizations++;
    if (!im->sparse) {
        double *W = im->W;
        for (int64_t k = 0; k < n * n; k++) W[k] = dropped(im, k) ? 0 : -gh * Jx[k];
        for (int64_t j = 0; j < n; j++) W[j * n + j] += 1;
        lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, W, (lapack_int)n, im->ipiv);
        if (info > 0) *singular = 1;
        else if (info < 0)
            return jg_error_set(err, JG_INTERNAL, "solver '%s': dgetrf argument %d invalid", s->name, (int)-info);
        return JG_OK;
    }
    double *Wx = im->Wx;
    memset(Wx, 0, sizeof(double) * (size_t)(im->Wp[n] ? im->Wp[n] : 1));
    for (int64_t k = 0; k < J->p[n]; k++)
        if (im->jmap[k] >= 0) Wx[im->jmap[k]] -= gh * Jx[k];
    for (int64_t j = 0; j < n; j++) Wx[im->wdiag[j]] += 1;
    if (im->num) {
        /* Refactor keeps the pivot order of the last full factorization, chosen
         * for another h and J; as SUNDIALS' KLU interface does, factor afresh
         * when KLU's cheap condition estimate (min/max |U_ii|) falls below
         * eps^(2/3): the old order has gone bad. */
        if (!klu_l_refactor(im->Wp, im->Wi, Wx, im->sym, im->num, &im->kc) || im->kc.status != KLU_OK ||
            !klu_l_rcond(im->sym, im->num, &im->kc) || !(im->kc.rcond > 3.7e-11))   /* eps^(2/3) */
            klu_l_free_numeric(&im->num, &im->kc);
    }
    if (!im->num) {
        im->num = klu_l_factor(im->Wp, im->Wi, Wx, im->sym, &im->kc);
        if (!im->num || im->kc.status != KLU_OK) return klu_failed(im, s, singular, err);
    }
    return JG_OK;
}

void jg__implicit_solve(jg__implicit_t *im, double *b)
{
    const int64_t n = im->n;
    if (n == 0) return;
    if (!im->sparse)
        LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', (lapack_int)n, 1, im->W, (lapack_int)n, im->ipiv, b, (lapack_int)n);
    else
        klu_l_solve(im->sym, im->num, n, 1, b, &im->kc);
}
