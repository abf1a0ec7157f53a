/* Solver Jacobian methods (Simulink, "Choose a Jacobian Method";
 * jacgraph/solverjac.h): the four methods agree with each other and with the
 * matrix linearization's A (Fig. 1 of Han, Mosterman & Zhang, an independent
 * path) on the shipped models with states and on random diagrams of
 * jg_gen_random; the structural pattern holds every nonzero of the full
 * perturbation; the coloring is valid and no smaller than the largest row;
 * evaluations of f per Jacobian are n and the number of colors; auto follows
 * Simulink's rules; discrete blocks hold in a simulation; the simulator
 * installs the Jacobian for the implicit solvers; bad names fail with the
 * documented message.
 *
 * usage: test_linearize_solverjac [NSEEDS]   (default 60 random diagrams)
 */
#include <float.h>
#include <glob.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/solverjac.h"
#include "compile/program_impl.h"   /* private: the fallback test swaps a block's type */
#include "testlib.h"

#define TOL_EXACT 1e-10     /* graph replay vs matrix LFT: round-off only */
#define TOL_PERTURB 1e-6    /* forward differences, sqrt(eps) steps */

static const jg_solverjac_method_t METHODS[4] = {JG_SOLVERJAC_FULL_PERTURBATION, JG_SOLVERJAC_SPARSE_PERTURBATION,
                                            JG_SOLVERJAC_FULL_ANALYTICAL, JG_SOLVERJAC_SPARSE_ANALYTICAL};

static jg_program_t *compile_text(const char *json, jg_model_t **m, jg_error_t *err)
{
    jg_program_t *p = NULL;
    *m = NULL;
    if (jg_model_parse(json, "<test>", m, err) || jg_program_compile(*m, &p, err)) return NULL;
    return p;
}

/* Dense column-major copy of a compressed-column matrix (duplicates summed). */
static double *dense(const cs_dl *A, int64_t n)
{
    double *D = calloc((size_t)(n * n) + 1, sizeof(double));
    for (int64_t j = 0; D && j < A->n; j++)
        for (int64_t q = A->p[j]; q < A->p[j + 1]; q++) D[A->i[q] + j * n] += A->x[q];
    return D;
}

/* max |a - b| / max(1, max |b|) over n x n dense matrices */
static double reldiff(const double *a, const double *b, int64_t n)
{
    double d = 0, s = 1;
    for (int64_t k = 0; k < n * n; k++) {
        d = fmax(d, fabs(a[k] - b[k]));
        s = fmax(s, fabs(b[k]));
    }
    return d / s;
}

static int in_pattern(const cs_dl *S, int64_t i, int64_t j)
{
    for (int64_t q = S->p[j]; q < S->p[j + 1]; q++)
        if (S->i[q] == i) return 1;
    return 0;
}

/* A of the matrix linearization (no I/O points) at (t, x): the reference. */
static double *reference_A(const jg_program_t *p, double t, const double *x, jg_error_t *err)
{
    jg_lin_opts_t o = {.no_defaults = 1};
    jg_lin_t *l = NULL;
    jg_lin_sys_t *s = NULL;
    double *A = NULL;
    int64_t n = jg_program_nstates(p);
    if (!jg_lin_create(p, &o, &l, err)) {
        memcpy(jg_lin_states(l), x, sizeof(double) * (size_t)n);
        jg_lin_set_time(l, t);
        if (!jg_lin_run(l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &s, NULL, err)) A = dense(s->A, n);
    }
    jg_lin_sys_free(s);
    jg_lin_free(l);
    return A;
}

/* Everything the four methods must satisfy at (t, x) on program p (private
 * works: every rate executing, as in linearization).  Returns 1 when all
 * hold; what[] says what failed, res[] what was measured. */
typedef struct {
    double d_an, d_pert;     /* worst analytical / perturbation difference to A */
    int64_t n, nnz, colors, maxrow;
} meas_t;

static int check_point(const jg_program_t *p, double t, const double *x, double tol_pert,
                       meas_t *me, char *what, size_t nwhat)
{
    jg_error_t err;
    jg_error_clear(&err);
    const int64_t n = jg_program_nstates(p);
    double *A = reference_A(p, t, x, &err), *J[4] = {0};
    jg_solverjac_t *sj[4] = {0};
    cs_dl *M[4] = {0};
    int ok = 0;
    me->n = n;
    if (!A) {
        snprintf(what, nwhat, "matrix linearization: %.500s", err.msg);
        goto out;
    }
    for (int k = 0; k < 4; k++) {
        const char *name = jg_solverjac_method_name(METHODS[k]);
        if (jg_solverjac_create(p, (jg_solverjac_method_t)jg_solverjac_method_parse(name), NULL, &sj[k], &err)) {
            snprintf(what, nwhat, "%s: create: %.500s", name, err.msg);
            goto out;
        }
        if (jg_solverjac_method(sj[k]) != METHODS[k]) {
            snprintf(what, nwhat, "%s: method became %s (%s)", name,
                     jg_solverjac_method_name(jg_solverjac_method(sj[k])), jg_solverjac_reason(sj[k]));
            goto out;
        }
        M[k] = jg_solverjac_alloc(sj[k]);
        /* f at the point, as a solver would hand it over */
        double *fx = malloc(sizeof(double) * (size_t)(n + 1));
        jg_eval_work_t *w = jg_solverjac_work(sj[k]);
        memcpy(jg_eval_states(w), x, sizeof(double) * (size_t)n);
        int bad = !M[k] || !fx || jg_eval_outputs(w, t, &err) || jg_eval_derivatives(w, fx, &err);
        jg_solverjac_stats_t s0, s1;
        jg_solverjac_get_stats(sj[k], &s0);
        if (!bad) bad = jg_solverjac_eval(sj[k], t, x, fx, M[k], &err) != JG_OK;
        jg_solverjac_get_stats(sj[k], &s1);
        free(fx);
        if (bad) {
            snprintf(what, nwhat, "%s: eval: %.500s", name, err.msg);
            goto out;
        }
        long fe = s1.fevals - s0.fevals, want = (long)jg_solverjac_fevals_per_jacobian(sj[k]);
        long expect = METHODS[k] == JG_SOLVERJAC_FULL_PERTURBATION   ? (long)n
                      : METHODS[k] == JG_SOLVERJAC_SPARSE_PERTURBATION ? (long)jg_solverjac_ncolors(sj[k])
                                                                  : 0;
        if (fe != want || want != expect || s1.fevals_base != s0.fevals_base ||
            s1.jevals != s0.jevals + 1) {
            snprintf(what, nwhat, "%s: %ld evaluations of f (reported %ld, expected %ld), base %ld",
                     name, fe, want, expect, s1.fevals_base - s0.fevals_base);
            goto out;
        }
        /* the pattern filled: dense for the full methods, the structure for the sparse */
        const cs_dl *P = jg_solverjac_pattern(sj[k]), *S = jg_solverjac_structure(sj[k]);
        int sparse = METHODS[k] == JG_SOLVERJAC_SPARSE_PERTURBATION || METHODS[k] == JG_SOLVERJAC_SPARSE_ANALYTICAL;
        if (P->p[n] != (sparse ? S->p[n] : n * n) ||
            (jg_solverjac_solver_pattern(sj[k]) != NULL) != sparse) {
            snprintf(what, nwhat, "%s: pattern has %lld entries", name, (long long)P->p[n]);
            goto out;
        }
        J[k] = dense(M[k], n);
    }
    const cs_dl *S = jg_solverjac_structure(sj[0]);
    const int64_t *color = jg_solverjac_colors(sj[0]);
    me->nnz = S->p[n];
    me->colors = jg_solverjac_ncolors(sj[0]);
    me->maxrow = jg_solverjac_max_row_nnz(sj[0]);
    me->d_pert = fmax(reldiff(J[0], A, n), reldiff(J[1], A, n));
    me->d_an = fmax(reldiff(J[2], A, n), reldiff(J[3], A, n));
    if (!(me->d_an <= TOL_EXACT)) {
        snprintf(what, nwhat, "analytical differs from A by %.2e", me->d_an);
        goto out;
    }
    if (!(me->d_pert <= tol_pert)) {
        snprintf(what, nwhat, "perturbation differs from A by %.2e", me->d_pert);
        goto out;
    }
    /* nonzero: beyond the round-off of each method (the matrix LFT leaves
     * 1e-16-sized cancellations, a difference quotient eps |f| / h) */
    double scale = 1;
    for (int64_t k = 0; k < n * n; k++) scale = fmax(scale, fabs(A[k]));
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            if ((fabs(J[0][i + j * n]) > TOL_PERTURB * scale || fabs(A[i + j * n]) > TOL_EXACT * scale) &&
                !in_pattern(S, i, j)) {
                snprintf(what, nwhat, "nonzero (%lld, %lld) = %g (A: %g) outside the pattern", (long long)i,
                         (long long)j, J[0][i + j * n], A[i + j * n]);
                goto out;
            }
    if (!jg_solverjac_coloring_valid(S, color) || me->colors < me->maxrow) {
        snprintf(what, nwhat, "coloring: %lld colors, largest row %lld, valid %d",
                 (long long)me->colors, (long long)me->maxrow, jg_solverjac_coloring_valid(S, color));
        goto out;
    }
    ok = 1;
out:
    for (int k = 0; k < 4; k++) {
        free(J[k]);
        cs_dl_spfree(M[k]);
        jg_solverjac_free(sj[k]);
    }
    free(A);
    return ok;
}

/* ------------------------------------------------------ shipped models */

static void test_shipped(void)
{
    glob_t gl;
    int nmodels = 0;
    if (glob("graphs/*.json", 0, NULL, &gl)) {
        tap_ok(0, "graphs/*.json found (run from the source tree)");
        return;
    }
    for (size_t k = 0; k < gl.gl_pathc; k++) {
        const char *path = gl.gl_pathv[k];
        jg_model_t *m = NULL;
        jg_program_t *p = NULL;
        jg_error_t err;
        jg_error_clear(&err);
        if (jg_model_read(path, &m, &err) || jg_program_compile(m, &p, &err)) {
            /* models of other helpers' features (plugins) may not load here */
            printf("# %s: skipped: %.80s\n", path, err.msg);
            jg_model_free(m);
            continue;
        }
        int64_t n = jg_program_nstates(p);
        if (n == 0) {
            jg_program_free(p);
            jg_model_free(m);
            continue;
        }
        nmodels++;
        /* ROBER's forward differences err by h f''/2 = 3e7 h in column y2,
         * far beyond 1e-6: test_rober holds them to exactly that instead */
        double tol = !strcmp(jg_program_name(p), "rober") ? 1.0 : TOL_PERTURB;
        double *x = malloc(sizeof(double) * (size_t)n);
        jg_program_initial_states(p, x, &err);
        char what[600] = "";
        meas_t me = {0}, me2 = {0};
        int ok = check_point(p, 0, x, tol, &me, what, sizeof what);
        /* a second point: states moved (the replay, not a rebuild) */
        for (int64_t i = 0; ok && i < n; i++) x[i] += 0.01 * (double)((i % 5) + 1) * fmax(1, fabs(x[i]));
        if (ok) ok = check_point(p, 0.25, x, tol, &me2, what, sizeof what);
        tap_ok(ok,
               "%s: %lld states, pattern %lld, %lld colors (largest row %lld): analytical = A "
               "(%.1e), perturbation = A (%.1e), pattern and coloring hold%s%s",
               path, (long long)n, (long long)me.nnz, (long long)me.colors, (long long)me.maxrow,
               fmax(me.d_an, me2.d_an), fmax(me.d_pert, me2.d_pert), ok ? "" : ": ", what);
        free(x);
        jg_program_free(p);
        jg_model_free(m);
    }
    globfree(&gl);
    tap_ok(nmodels >= 8, "%d shipped models with states checked", nmodels);
}

/* ROBER (y2' = ... - 3e7 y2^2): f is quadratic in y2 and linear in y1, y3,
 * so a forward difference with step h in y2 errs by exactly h f''/2 =
 * -+3e7 h in rows y2 and y3 of that column and not at all elsewhere (the
 * limit of one-sided differences with sqrt(eps) steps on stiff kinetics;
 * auto takes the analytical Jacobian). */
static void test_rober(void)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    if (jg_model_read("graphs/rober.json", &m, &err) || jg_program_compile(m, &p, &err)) {
        tap_ok(0, "rober: %s", err.msg);
        return;
    }
    double pts[2][3] = {{1, 0, 0}, {0.9, 2e-5, 0.1}};
    for (int k = 0; k < 2; k++) {
        const double *y = pts[k];
        double *A = reference_A(p, 0, y, &err), worst = 0, *Jd = NULL;
        jg_solverjac_t *sj = NULL;
        cs_dl *J = NULL;
        if (A && !jg_solverjac_create(p, JG_SOLVERJAC_FULL_PERTURBATION, NULL, &sj, &err) && (J = jg_solverjac_alloc(sj)) &&
            !jg_solverjac_eval(sj, 0, y, NULL, J, &err) && (Jd = dense(J, 3))) {
            double h = (y[1] + sqrt(DBL_EPSILON) * fmax(fabs(y[1]), 1)) - y[1];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double e = j == 1 && i == 1 ? -3e7 * h : j == 1 && i == 2 ? 3e7 * h : 0;
                    worst = fmax(worst, fabs(Jd[i + 3 * j] - (A[i + 3 * j] + e)));
                }
        } else {
            worst = INFINITY;
        }
        tap_ok(worst <= 1e-6, "rober at (%g, %g, %g): full perturbation = A + h f''/2 in column y2 (%.1e)",
               y[0], y[1], y[2], worst);
        free(A);
        free(Jd);
        cs_dl_spfree(J);
        jg_solverjac_free(sj);
    }
    jg_program_free(p);
    jg_model_free(m);
}

/* An Algebraic Constraint survives the full elimination (lib/graph leaves
 * its output to the LFT): x1' = z, x2' = -x1 with z^2 - 2 + x2 = 0, so
 * J_x = [0 -1/(2z); -1 0] comes from the pattern closure and the LFT. */
static const char constrained[] =
    "{\"name\":\"constrained\",\"blocks\":["
    "{\"name\":\"x1\",\"type\":\"Integrator\",\"InitialCondition\":0},"
    "{\"name\":\"x2\",\"type\":\"Integrator\",\"InitialCondition\":1},"
    "{\"name\":\"N\",\"type\":\"Gain\",\"Gain\":-1},"
    "{\"name\":\"AC\",\"type\":\"AlgebraicConstraint\",\"InitialGuess\":1},"
    "{\"name\":\"Sq\",\"type\":\"Math\",\"Operator\":\"square\"},"
    "{\"name\":\"Two\",\"type\":\"Constant\",\"Value\":2},"
    "{\"name\":\"Sum\",\"type\":\"Sum\",\"Inputs\":\"+-+\"}],"
    "\"lines\":[{\"src\":\"AC:1\",\"dst\":[\"Sq:1\",\"x1:1\"]},{\"src\":\"Sq:1\",\"dst\":\"Sum:1\"},"
    "{\"src\":\"Two:1\",\"dst\":\"Sum:2\"},{\"src\":\"x2:1\",\"dst\":\"Sum:3\"},"
    "{\"src\":\"Sum:1\",\"dst\":\"AC:1\"},{\"src\":\"x1:1\",\"dst\":\"N:1\"},"
    "{\"src\":\"N:1\",\"dst\":\"x2:1\"}]}";

static void test_constraint(void)
{
    jg_error_t err;
    jg_model_t *m = NULL;
    jg_error_clear(&err);
    jg_program_t *p = compile_text(constrained, &m, &err);
    if (!p) {
        tap_ok(0, "constrained: %s", err.msg);
        return;
    }
    double pts[2][2] = {{0, 1}, {0.5, -2}};
    for (int k = 0; k < 2; k++) {
        meas_t me = {0};
        char what[600] = "";
        int ok = check_point(p, 0, pts[k], TOL_PERTURB, &me, what, sizeof what);
        jg_solverjac_t *sj = NULL;
        cs_dl *J = NULL;
        double z = sqrt(2 - pts[k][1]), v = NAN;
        if (!jg_solverjac_create(p, JG_SOLVERJAC_SPARSE_ANALYTICAL, NULL, &sj, &err) && (J = jg_solverjac_alloc(sj)) &&
            !jg_solverjac_eval(sj, 0, pts[k], NULL, J, &err))
            v = J->x[1];   /* pattern (1, 0), (0, 1): column 2 holds d x1'/d x2 */
        tap_ok(ok && me.nnz == 2 && fabs(v + 1 / (2 * z)) < 1e-12,
               "Algebraic Constraint at x2 = %g: the four methods agree with A, pattern %lld, "
               "dx1'/dx2 = -1/(2z) (%.17g)%s%s",
               pts[k][1], (long long)me.nnz, v, ok ? "" : ": ", what);
        cs_dl_spfree(J);
        jg_solverjac_free(sj);
    }
    jg_program_free(p);
    jg_model_free(m);
}

/* ------------------------------------------------------ random diagrams */

static void test_random(int nseeds)
{
    int good = 0, with_loops = 0;
    int64_t max_states = 0;
    for (uint64_t seed = 1; seed <= (uint64_t)nseeds; seed++) {
        jg_gen_random_opts_t o;
        jg_gen_random_defaults(&o, seed * 7919, 10 + (int)((seed * 37) % 70));
        o.vectors = seed % 2;
        o.loops = seed % 3 != 0;
        o.max_depth = (int)(seed % 3);
        jg_gen_random_info_t info;
        char *text = fx_gen_text(&o, &info);
        jg_model_t *m = NULL;
        jg_error_t err;
        jg_error_clear(&err);
        jg_program_t *p = compile_text(text, &m, &err);
        char what[600] = "";
        meas_t me = {0};
        int ok = p != NULL;
        if (!p) snprintf(what, sizeof what, "compile: %.500s", err.msg);
        int64_t n = p ? jg_program_nstates(p) : 0;
        if (ok && n > 0) {
            double *x = malloc(sizeof(double) * (size_t)n);
            jg_program_initial_states(p, x, &err);
            for (int64_t i = 0; i < n; i++) x[i] += 0.1 * (double)((i * 7 + seed) % 11) - 0.5;
            ok = check_point(p, 0, x, TOL_PERTURB, &me, what, sizeof what);
            free(x);
            if (info.nloops) with_loops++;
            if (n > max_states) max_states = n;
        }
        good += ok;
        if (!ok || seed <= 3)
            tap_ok(ok, "random diagram seed %" PRIu64 " (%d blocks, %lld states, %d loops)%s%s",
                   o.seed, info.nblocks, (long long)n, info.nloops, ok ? "" : ": ", what);
        jg_program_free(p);
        jg_model_free(m);
        free(text);
    }
    tap_ok(good == nseeds, "random diagrams: %d of %d agree (%d with algebraic loops, up to %lld states)",
           good, nseeds, with_loops, (long long)max_states);
    tap_ok(with_loops > nseeds / 3 && max_states >= 10,
           "random diagrams cover algebraic loops and models of 10+ states");
}

/* ------------------------------------------------------------- coloring */

static cs_dl *pattern_from(int64_t m, int64_t n, const int64_t *ij, int64_t nz)
{
    cs_dl *T = cs_dl_spalloc(m, n, nz + 1, 1, 1);
    for (int64_t k = 0; k < nz; k++) cs_dl_entry(T, ij[2 * k], ij[2 * k + 1], 1);
    cs_dl *C = cs_dl_compress(T);
    cs_dl_spfree(T);
    cs_dl_dupl(C);
    return C;
}

/* jg_solverjac_keep_from_drop: keep from (row, column) pairs; the first pair
 * that is no entry of the pattern is reported, never written outside keep */
static void test_keep_from_drop(void)
{
    static const int64_t seed[] = {0, 0, 0, 2, 1, 1, 2, 1};
    cs_dl *A = pattern_from(3, 3, seed, 4), *T = cs_dl_transpose(A, 1), *S = cs_dl_transpose(T, 1);
    /* S's entries in column order: (0,0) (1,1) (2,1) (0,2) */
    unsigned char keep[5] = {7, 7, 7, 7, 7};
    static const int64_t drop[] = {2, 1, 0, 2};
    int64_t r = jg_solverjac_keep_from_drop(S, drop, 2, keep);
    tap_ok(r == -1 && keep[0] == 1 && keep[1] == 1 && keep[2] == 0 && keep[3] == 0 && keep[4] == 7,
           "keep from drop: (2,1) and (0,2) dropped, the others kept, nothing past the entries");
    r = jg_solverjac_keep_from_drop(S, NULL, 0, keep);
    tap_ok(r == -1 && keep[0] == 1 && keep[1] == 1 && keep[2] == 1 && keep[3] == 1, "no pairs: every entry kept");
    static const int64_t zero[] = {0, 0, 1, 0};   /* (1,0) is a structural zero */
    tap_ok(jg_solverjac_keep_from_drop(S, zero, 2, keep) == 1, "a structural zero to drop: its index reported");
    static const int64_t out[] = {3, 0, 0, -1};
    tap_ok(jg_solverjac_keep_from_drop(S, out, 1, keep) == 0 && jg_solverjac_keep_from_drop(S, out + 2, 1, keep) == 0,
           "a pair outside the rows or columns: its index reported");
    cs_dl_spfree(A);
    cs_dl_spfree(T);
    cs_dl_spfree(S);
}

static void test_coloring(void)
{
    jg_error_t err;
    int64_t nc;
    /* Simulink's example ("Choose a Jacobian Method"):
     * x1' = f1(x1, x3), x2' = f2(x2), x3' = f3(x2): x1 and x2 are perturbed
     * together */
    static const int64_t seed[] = {0, 0, 0, 2, 1, 1, 2, 1};
    cs_dl *A = pattern_from(3, 3, seed, 4);
    int64_t color[400];
    jg_solverjac_color_columns(A, color, &nc, &err);
    tap_ok(nc == 2 && color[0] != color[2] && jg_solverjac_coloring_valid(A, color),
           "Simulink's example: 2 colors, x1 and x3 apart, x2 with one of them (colors %lld %lld %lld)",
           (long long)color[0], (long long)color[1], (long long)color[2]);
    /* the check itself must catch a bad grouping */
    int64_t bad[3] = {0, 0, 0};
    tap_ok(!jg_solverjac_coloring_valid(A, bad), "jg_solverjac_coloring_valid rejects columns 1 and 3 together");
    cs_dl_spfree(A);

    /* tridiagonal 300: 3 colors, the lower bound */
    int64_t ij[2 * 1200], nz = 0;
    for (int64_t i = 0; i < 300; i++)
        for (int64_t j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < 300) ij[2 * nz] = i, ij[2 * nz + 1] = j, nz++;
    A = pattern_from(300, 300, ij, nz);
    int64_t *c300 = malloc(sizeof(int64_t) * 300);
    jg_solverjac_color_columns(A, c300, &nc, &err);
    tap_ok(nc == 3 && jg_solverjac_coloring_valid(A, c300), "tridiagonal 300: %lld colors (bound 3)", (long long)nc);
    cs_dl_spfree(A);

    /* 5-point stencil on a 15 x 15 grid: largest row 5 */
    nz = 0;
    for (int64_t r = 0; r < 15; r++)
        for (int64_t c = 0; c < 15; c++) {
            int64_t i = r * 15 + c;
            const int64_t d[5][2] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};
            for (int k = 0; k < 5; k++) {
                int64_t rr = r + d[k][0], cc = c + d[k][1];
                if (rr >= 0 && rr < 15 && cc >= 0 && cc < 15) ij[2 * nz] = i, ij[2 * nz + 1] = rr * 15 + cc, nz++;
            }
        }
    A = pattern_from(225, 225, ij, nz);
    int64_t *c225 = malloc(sizeof(int64_t) * 225);
    jg_solverjac_color_columns(A, c225, &nc, &err);
    tap_ok(nc >= 5 && nc <= 7 && jg_solverjac_coloring_valid(A, c225),
           "5-point stencil 15x15: %lld colors (bound 5)", (long long)nc);
    cs_dl_spfree(A);
    free(c225);

    /* an arrow (one full row, one full column, diagonal): n colors are needed */
    nz = 0;
    for (int64_t i = 0; i < 40; i++) {
        ij[2 * nz] = 0, ij[2 * nz + 1] = i, nz++;
        if (i) ij[2 * nz] = i, ij[2 * nz + 1] = 0, nz++;
        if (i) ij[2 * nz] = i, ij[2 * nz + 1] = i, nz++;
    }
    A = pattern_from(40, 40, ij, nz);
    jg_solverjac_color_columns(A, c300, &nc, &err);
    tap_ok(nc == 40 && jg_solverjac_coloring_valid(A, c300), "arrow 40: %lld colors (a full row)", (long long)nc);
    cs_dl_spfree(A);

    /* empty columns take no color; an empty pattern needs no evaluation */
    static const int64_t one[] = {1, 1};
    A = pattern_from(4, 4, one, 1);
    jg_solverjac_color_columns(A, color, &nc, &err);
    tap_ok(nc == 1 && color[0] == -1 && color[1] == 0 && color[2] == -1 && color[3] == -1,
           "empty columns: color -1, %lld color for the one entry", (long long)nc);
    cs_dl_spfree(A);
    free(c300);
}

/* ------------------------------------------------------------ auto rule */

/* A chain of n integrators x_k' = x_{k-1} - x_k (x_0' = -x_0). */
static char *chain_model(int n)
{
    size_t cap = 256 + (size_t)n * 200;
    char *s = malloc(cap), *e = s;
    e += sprintf(e, "{\"name\":\"chain%d\",\"blocks\":[", n);
    for (int k = 0; k < n; k++)
        e += sprintf(e, "%s{\"name\":\"x%d\",\"type\":\"Integrator\",\"InitialCondition\":%d},"
                        "{\"name\":\"S%d\",\"type\":\"Sum\",\"Inputs\":\"%s\"}",
                     k ? "," : "", k, k % 3, k, k ? "+-" : "-");
    e += sprintf(e, "],\"lines\":[");
    for (int k = 0; k < n; k++) {
        e += sprintf(e, "%s{\"src\":\"S%d:1\",\"dst\":\"x%d:1\"},", k ? "," : "", k, k);
        if (k + 1 < n)
            e += sprintf(e, "{\"src\":\"x%d:1\",\"dst\":[\"S%d:%d\",\"S%d:1\"]}", k, k, k ? 2 : 1, k + 1);
        else
            e += sprintf(e, "{\"src\":\"x%d:1\",\"dst\":\"S%d:%d\"}", k, k, k ? 2 : 1);
    }
    sprintf(e, "]}");
    return s;
}

static void test_auto(void)
{
    jg_error_t err;
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_solverjac_t *sj = NULL;
    jg_error_clear(&err);
    if (jg_model_read("graphs/vdp.json", &m, &err) || jg_program_compile(m, &p, &err) ||
        jg_solverjac_create(p, JG_SOLVERJAC_AUTO, NULL, &sj, &err)) {
        tap_ok(0, "vdp: %s", err.msg);
        return;
    }
    tap_ok(jg_solverjac_method(sj) == JG_SOLVERJAC_FULL_ANALYTICAL, "vdp (2 states): auto picks %s",
           jg_solverjac_method_name(jg_solverjac_method(sj)));
    tap_streq(jg_solverjac_reason(sj),
              "auto: every block has an analytic Jacobian (analytical), 2 states < 50 (full)",
              "vdp: auto says why");
    /* the analytic vdp Jacobian at (2, 0), mu = 1: [0 1; -1 -3] (the model's note) */
    cs_dl *J = jg_solverjac_alloc(sj);
    double x[2] = {2, 0};
    jg_solverjac_eval(sj, 0, x, NULL, J, &err);
    tap_ok(J->x[0] == 0 && J->x[1] == -1 && J->x[2] == 1 && J->x[3] == -3,
           "vdp at (2, 0): J_x = [0 1; -1 -3] (dense column-major %g %g %g %g)", J->x[0], J->x[1],
           J->x[2], J->x[3]);
    cs_dl_spfree(J);
    jg_solverjac_free(sj);
    sj = NULL;

    /* a block without an analytic Jacobian: perturbation, said so (no block
     * of the current set lacks one; plugins may) */
    int32_t gb = jg_program_find_block(p, "Mu");
    jg_block_t *B = &p->blocks[gb];
    const jg_block_type_t *saved = B->type;
    jg_block_type_t nojac = *saved;
    nojac.jacobian = NULL;
    B->type = &nojac;
    jg_solverjac_create(p, JG_SOLVERJAC_AUTO, NULL, &sj, &err);
    tap_ok(sj && jg_solverjac_method(sj) == JG_SOLVERJAC_FULL_PERTURBATION, "no analytic Jacobian: auto picks %s",
           sj ? jg_solverjac_method_name(jg_solverjac_method(sj)) : "(failed)");
    tap_streq(sj ? jg_solverjac_reason(sj) : "",
              "auto: block 'Mu' (Gain) has no analytic Jacobian (perturbation), 2 states < 50 (full)",
              "no analytic Jacobian: auto says why");
    jg_solverjac_free(sj);
    sj = NULL;
    jg_solverjac_create(p, JG_SOLVERJAC_SPARSE_ANALYTICAL, NULL, &sj, &err);
    tap_ok(sj && jg_solverjac_method(sj) == JG_SOLVERJAC_SPARSE_PERTURBATION,
           "sparse-analytical asked, a block without: sparse-perturbation (as in Simulink)");
    tap_streq(sj ? jg_solverjac_reason(sj) : "",
              "sparse-analytical requested, but block 'Mu' (Gain) has no analytic Jacobian: "
              "sparse-perturbation instead",
              "the fallback says why");
    jg_solverjac_free(sj);
    sj = NULL;
    B->type = saved;

    /* bad method name: the exact message, from the API and the simulator */
    jg_error_clear(&err);
    jg_status_t st = jg_solverjac_create(p, (jg_solverjac_method_t)7, NULL, &sj, &err);
    tap_ok(st == JG_ARG && !sj, "unknown method: JG_ARG");
    tap_streq(err.msg,
              "unknown solver Jacobian method 7 (valid: 0 to 4, auto full-perturbation "
              "sparse-perturbation full-analytical sparse-analytical)",
              "unknown method: message");
    tap_ok(jg_solverjac_method_parse("sparse") == -1 && jg_solverjac_method_parse("Sparse-Analytical") == -1 &&
               jg_solverjac_method_parse("sparse-analytical") == JG_SOLVERJAC_SPARSE_ANALYTICAL,
           "method names parse exactly");
    jg_sim_opts_t so = {.solver = JG_SOLVER_ODE45, .tstop = 1, .jacobian = (jg_solverjac_method_t)-1};
    jg_sim_t *s = NULL;
    jg_error_clear(&err);
    st = jg_sim_create(p, &so, &s, &err);
    tap_ok(st == JG_ARG && !s &&
               !strcmp(err.msg, "unknown solver Jacobian method -1 (valid: auto "
                                "full-perturbation sparse-perturbation full-analytical "
                                "sparse-analytical)"),
           "jg_sim_create checks the method for any solver: %s", err.msg);
    jg_program_free(p);
    jg_model_free(m);

    /* 60 states: sparse */
    char *text = chain_model(60);
    p = compile_text(text, &m, &err);
    free(text);
    if (!p) {
        tap_ok(0, "chain60: %s", err.msg);
        return;
    }
    jg_solverjac_create(p, JG_SOLVERJAC_AUTO, NULL, &sj, &err);
    tap_ok(sj && jg_solverjac_method(sj) == JG_SOLVERJAC_SPARSE_ANALYTICAL, "chain (60 states): auto picks %s",
           sj ? jg_solverjac_method_name(jg_solverjac_method(sj)) : err.msg);
    tap_streq(sj ? jg_solverjac_reason(sj) : "",
              "auto: every block has an analytic Jacobian (analytical), 60 states >= 50 (sparse)",
              "chain: auto says why");
    const cs_dl *S = jg_solverjac_structure(sj);
    tap_ok(S->p[60] == 119 && jg_solverjac_ncolors(sj) == 2 && jg_solverjac_max_row_nnz(sj) == 2,
           "chain: bidiagonal pattern (%lld entries), 2 colors (%lld)", (long long)S->p[60],
           (long long)jg_solverjac_ncolors(sj));
    meas_t me;
    char what[600] = "";
    double *x0 = malloc(sizeof(double) * 60);
    jg_program_initial_states(p, x0, &err);
    int ok = check_point(p, 0, x0, TOL_PERTURB, &me, what, sizeof what);
    tap_ok(ok, "chain: the four methods agree with A%s%s", ok ? "" : ": ", what);
    /* the adapter for jg_solver_set_jacobian: same values, errors to the sink */
    J = jg_solverjac_alloc(sj);
    cs_dl *J2 = jg_solverjac_alloc(sj);
    jg_solverjac_set_error(sj, &err);
    int r = jg_solverjac_solver_jac(0, x0, NULL, J, sj);
    jg_solverjac_eval(sj, 0, x0, NULL, J2, &err);
    tap_ok(r == 0 && !memcmp(J->x, J2->x, sizeof(double) * 119), "jg_solverjac_solver_jac = jg_solverjac_eval");
    cs_dl *Jbad = cs_dl_spalloc(60, 60, 10, 1, 0);   /* a valid 60 x 60 matrix of no entries */
    for (int64_t c = 0; Jbad && c <= 60; c++) Jbad->p[c] = 0;   /* (malloc'ed: unset, it could say 119) */
    jg_error_clear(&err);
    r = jg_solverjac_solver_jac(0, x0, NULL, Jbad, sj);
    tap_ok(r < 0 && err.status == JG_ARG && strstr(err.msg, "expected a 60 x 60 compressed-column matrix with 119 entries"),
           "adapter: a matrix of another pattern fails into the sink (%s)", err.msg);
    cs_dl_spfree(Jbad);
    cs_dl_spfree(J);
    cs_dl_spfree(J2);
    free(x0);
    jg_solverjac_free(sj);
    jg_program_free(p);
    jg_model_free(m);
}

/* ---------------------------------------------- simulation: held blocks */

/* x' = -x - 2 ZOH(x): linearization (every rate executing) A = -3; between
 * sample hits the ZOH holds, so the solver's J_x = -1. */
static const char held[] =
    "{\"name\":\"held\",\"blocks\":["
    "{\"name\":\"x\",\"type\":\"Integrator\",\"InitialCondition\":1},"
    "{\"name\":\"ZOH\",\"type\":\"ZeroOrderHold\",\"SampleTime\":0.1},"
    "{\"name\":\"K\",\"type\":\"Gain\",\"Gain\":2},"
    "{\"name\":\"S\",\"type\":\"Sum\",\"Inputs\":\"--\"}],"
    "\"lines\":[{\"src\":\"x:1\",\"dst\":[\"ZOH:1\",\"S:2\"]},{\"src\":\"ZOH:1\",\"dst\":\"K:1\"},"
    "{\"src\":\"K:1\",\"dst\":\"S:1\"},{\"src\":\"S:1\",\"dst\":\"x:1\"}]}";

static void test_held(void)
{
    jg_error_t err;
    jg_model_t *m = NULL;
    jg_error_clear(&err);
    jg_program_t *p = compile_text(held, &m, &err);
    if (!p) {
        tap_ok(0, "held: %s", err.msg);
        return;
    }
    double x = 1;
    double *A = reference_A(p, 0, &x, &err);
    tap_ok(A && A[0] == -3, "held: linearization A = -3 (%g)", A ? A[0] : NAN);
    free(A);
    jg_sim_opts_t so = {.solver = JG_SOLVER_ODE45, .tstop = 1};
    jg_sim_t *s = NULL;
    if (jg_sim_create(p, &so, &s, &err) || jg_sim_run(s, 0.05, NULL, NULL, &err)) {
        tap_ok(0, "held: simulate: %s", err.msg);
        jg_sim_free(s);
        jg_program_free(p);
        jg_model_free(m);
        return;
    }
    double v[4];
    for (int k = 0; k < 4; k++) {
        jg_solverjac_t *sj = NULL;
        cs_dl *J = NULL;
        v[k] = NAN;
        if (!jg_solverjac_create(p, METHODS[k], jg_sim_work(s), &sj, &err) &&
            (J = jg_solverjac_alloc(sj)) && !jg_solverjac_eval(sj, jg_sim_time(s), jg_sim_states(s), NULL, J, &err))
            v[k] = J->x[0];
        cs_dl_spfree(J);
        jg_solverjac_free(sj);
    }
    tap_ok(fabs(v[0] + 1) < 1e-7 && fabs(v[1] + 1) < 1e-7 && v[2] == -1 && v[3] == -1,
           "held: between hits every method gives J_x = -1 (%g %g %g %g)", v[0], v[1], v[2], v[3]);
    jg_sim_free(s);
    jg_program_free(p);
    jg_model_free(m);
}

/* ------------------------------------- simulation: the implicit solvers */

static void test_simulate(void)
{
    jg_error_t err;
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_error_clear(&err);
    if (jg_model_read("graphs/vdp.json", &m, &err) || jg_program_compile(m, &p, &err)) {
        tap_ok(0, "vdp: %s", err.msg);
        return;
    }
    jg_sim_opts_t so = {.solver = JG_SOLVER_ODE45, .tstop = 1};
    jg_sim_t *s = NULL;
    const char *why = "x";
    jg_sim_create(p, &so, &s, &err);
    tap_ok(s && jg_sim_jacobian(s, &why) == NULL && why == NULL,
           "explicit solver: no solver Jacobian installed");
    jg_sim_free(s);
    s = NULL;
    /* ode23s: a new Jacobian every step, by our callback: its f evaluations
     * are n or colors per Jacobian, none for the analytical methods */
    for (int k = 0; k < 4; k++) {
        const char *name = jg_solverjac_method_name(METHODS[k]);
        so = (jg_sim_opts_t){.solver = JG_SOLVER_ODE23S, .tstop = 1, .so = {.rtol = 1e-6, .atol = 1e-9},
                             .jacobian = METHODS[k]};
        jg_sim_stats_t st = {0};
        const char *used = NULL;
        int ok = !jg_sim_create(p, &so, &s, &err) && (used = jg_sim_jacobian(s, &why)) &&
                 !strcmp(used, name) && !jg_sim_run(s, 1, NULL, NULL, &err);
        if (ok) jg_sim_stats(s, &st);
        long per = METHODS[k] == JG_SOLVERJAC_FULL_PERTURBATION ? 2 : METHODS[k] == JG_SOLVERJAC_SPARSE_PERTURBATION ? 2 : 0;
        tap_ok(ok && st.solver.jevals > 0 && st.solver.fevals_jac == per * st.solver.jevals,
               "ode23s --jacobian %s: %ld Jacobians, %ld f evaluations for them%s%s", name,
               st.solver.jevals, st.solver.fevals_jac, ok ? "" : ": ", ok ? "" : err.msg);
        jg_sim_free(s);
        s = NULL;
    }
    jg_program_free(p);
    jg_model_free(m);
}

/* ------------------------------------------------------------------ CLI */

/* Run the CLI; its stdout (and stderr) into buf, the exit code returned. */
static int run_cli(const char *exe, const char *args, char *buf, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", exe, args);
    FILE *f = popen(cmd, "r");
    size_t used = 0;
    if (!f) return -1;
    while (used + 1 < n) {
        size_t k = fread(buf + used, 1, n - 1 - used, f);
        if (!k) break;
        used += k;
    }
    buf[used] = '\0';
    int rc = pclose(f);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void test_cli(const char *argv0)
{
    char exe[1024], *out = malloc(1 << 16);
    const char *env = getenv("JACGRAPH");
    if (env) {
        snprintf(exe, sizeof exe, "%s", env);
    } else {   /* build/tests/test_linearize_solverjac -> build/tools/jacgraph */
        snprintf(exe, sizeof exe, "%s", argv0);
        char *sl = strrchr(exe, '/');
        snprintf(sl ? sl + 1 : exe, sizeof exe - (size_t)(sl ? sl + 1 - exe : 0), "../tools/jacgraph");
    }
    int rc = run_cli(exe, "jacobian graphs/vdp.json", out, 1 << 16);
    tap_ok(rc == 0 && strstr(out, "method: full-analytical (auto: every block has an analytic Jacobian") &&
               strstr(out, "pattern: 3 of 4 entries") && strstr(out, "colors: 2") &&
               strstr(out, "f evaluations per Jacobian: 0") && strstr(out, "  x2        -1        -3"),
           "jacgraph jacobian vdp: method, pattern, colors, cost, J_x with names");
    if (rc) printf("# %s\n", out);
    rc = run_cli(exe, "jacobian graphs/f14.json --method sparse-perturbation --format json", out, 1 << 16);
    tap_ok(rc == 0 && strstr(out, "\"method\": \"sparse-perturbation\"") && strstr(out, "\"colors\": 6") &&
               strstr(out, "\"fevals_per_jacobian\": 6") && strstr(out, "\"pattern_nnz\": 32"),
           "jacgraph jacobian f14 --format json: 32 entries, 6 colors, 6 evaluations");
    rc = run_cli(exe, "jacobian graphs/vdp.json --method full-perturbation --at 1 --format mm", out, 1 << 16);
    tap_ok(rc == 0 && strstr(out, "%%MatrixMarket matrix coordinate real general") &&
               strstr(out, "% state 2: x2") && strstr(out, "\n2 2 3\n"),
           "jacgraph jacobian --at 1 --format mm: 3 nonzeros with state names");
    char dir[256], svg[300], args[512];
    if (!tl_tmpdir(dir, sizeof dir, "test_linearize_solverjac")) dir[0] = '\0';
    snprintf(svg, sizeof svg, "%s/pattern.svg", dir);
    snprintf(args, sizeof args, "jacobian graphs/hierarchy.json --pattern-svg %s", svg);
    rc = run_cli(exe, args, out, 1 << 16);
    FILE *f = fopen(svg, "r");
    int squares = 0;
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) squares += strstr(line, "fill=\"black\"") || strstr(line, "fill=\"#bbb\"");
        fclose(f);
        remove(svg);
    }
    rmdir(dir);
    tap_ok(rc == 0 && squares == 17, "--pattern-svg: one square per pattern entry (%d of 17)", squares);
    rc = run_cli(exe, "jacobian graphs/vdp.json --method sparse", out, 1 << 16);
    tap_ok(rc == 2 && !strcmp(out, "jacgraph: error: unknown solver Jacobian method 'sparse' (valid: auto "
                                   "full-perturbation sparse-perturbation full-analytical sparse-analytical)\n"),
           "bad --method: exit 2 and the message (%d)", rc);
    rc = run_cli(exe, "simulate graphs/vdp.json --solver ode23s --jacobian sparse-perturbation --stop 1 --stats --out /dev/null",
                 out, 1 << 16);
    tap_ok(rc == 0 && strstr(out, "vdp: solver Jacobian sparse-perturbation (sparse-perturbation requested)"),
           "simulate --stats names the solver Jacobian");
    free(out);
}

int main(int argc, char **argv)
{
    int nseeds = argc > 1 ? atoi(argv[1]) : 60;
    test_coloring();
    test_keep_from_drop();
    test_shipped();
    test_rober();
    test_constraint();
    test_random(nseeds);
    test_auto();
    test_held();
    test_simulate();
    test_cli(argv[0]);
    return tap_done();
}
