/* test_analysis_trim.c -- trim (lib/analysis, jacgraph/analysis.h) against
 * hand results: the water tank's level and pump voltage, Van der Pol's
 * equilibrium, the pendulum's two equilibria (the one nearest the guess), an
 * input that holds an output at a value, discrete fixed points, element
 * names, output bounds, an infeasible specification (the best point and the
 * violated specifications), bad specifications, and the operating-point
 * file read back by the linearizer.  Discrete states: the analytic update
 * Jacobians (no differences, no more iterations than with differences), a
 * model mixing continuous and discrete states whose Jacobian matches forward
 * differences entry by entry, and the fallback for a type without djacobian
 * (simulated by swapping a block's type for a copy without it). */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "analysis/trim_impl.h"   /* private: the Jacobian against differences, types swapped */
#include "testlib.h"

static char dir[512];
static const double pi = 3.14159265358979323846;

/* A scratch file holding text (' for "), its path in a static buffer. */
static const char *scratch(const char *name, const char *text)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (tl_write_file(path, q(text))) tap_ok(0, "write %s", path);
    return path;
}

typedef struct {
    jg_model_t *m;
    jg_program_t *p;
    jg_analysis_trim_t *t;
    jg_error_t err;
} trim_fx_t;

/* Load a model file (or JSON text when it starts with '{') and create the
 * trim problem, then read the guess and the specification when given. */
static jg_status_t load(trim_fx_t *f, const char *model, const char *op, const char *spec)
{
    memset(f, 0, sizeof *f);
    jg_status_t st = model[0] == '{' ? jg_model_parse(q(model), "<test>", &f->m, &f->err)
                                     : jg_import_load(model, NULL, &f->m, &f->err);
    if (!st) st = jg_program_compile(f->m, &f->p, &f->err);
    if (!st) st = jg_analysis_trim_create(f->p, NULL, &f->t, &f->err);
    if (!st && op) st = jg_analysis_trim_read_op(f->t, scratch("op.json", op), &f->err);
    if (!st && spec) st = jg_analysis_trim_read_spec(f->t, scratch("spec.json", spec), &f->err);
    return st;
}

static void unload(trim_fx_t *f)
{
    jg_analysis_trim_free(f->t);
    jg_program_free(f->p);
    jg_model_free(f->m);
}

/* The value of the element called name of a kind (NAN when absent). */
static double value(const trim_fx_t *f, jg_analysis_trim_kind_t kind, const char *name)
{
    for (int64_t k = 0; k < jg_analysis_trim_count(f->t, kind); k++)
        if (!strcmp(jg_analysis_trim_name(f->t, kind, k), name))
            return jg_analysis_trim_value(f->t, kind, k, NULL);
    return NAN;
}

static int solved(trim_fx_t *f, const char *what)
{
    jg_status_t st = jg_analysis_trim_run(f->t, &f->err);
    jg_analysis_trim_info_t in;
    jg_analysis_trim_info(f->t, &in);
    int ok = tap_ok(!st && in.converged && in.finished && in.max_residual <= 1e-9, "%s: converged", what);
    if (!ok) printf("#   %s\n", f->err.msg);
    return ok;
}

static void test_watertank(void)
{
    trim_fx_t f;
    /* H known at 10: the PI integrator (= V, the error being zero) must
     * balance the outflow, b V = a sqrt(H): V = a sqrt(10) / b */
    const double V = 2 * sqrt(10.0) / 5;
    tap_ok(!load(&f, "graphs/watertank.json", NULL,
                 "{'states': {'Water-Tank System/H': {'value': 10, 'known': true},"
                 " 'Controller/Integrator': {'value': 0}}}"),
           "watertank: spec read");
    if (solved(&f, "watertank, H = 10 known")) {
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "Controller/Integrator"), V, 1e-13,
                 "watertank: V = a sqrt(10) / b");
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "Water-Tank System/H"), 10, 0, "watertank: H stays 10");
        tap_near(value(&f, JG_ANALYSIS_TRIM_OUTPUT, "H"), 10, 1e-14, "watertank: output H = 10");
        int known;
        jg_analysis_trim_value(f.t, JG_ANALYSIS_TRIM_STATE, 1, &known);
        tap_ok(known, "watertank: H is marked known");
        double r;
        tap_streq(jg_analysis_trim_equation(f.t, 0, &r), "d/dt Controller/Integrator", "first equation named");
        tap_ok(jg_analysis_trim_nequations(f.t) == 2 && fabs(r) <= 1e-12, "two equations, residual ~ 0");
    }
    unload(&f);
    /* everything free from a guess far off: the loop's equilibrium is the
     * reference level */
    tap_ok(!load(&f, "graphs/watertank.json",
                 "{'states': {'Water-Tank System/H': 4, 'Controller/Integrator': 0}}", NULL),
           "watertank: guess read");
    if (solved(&f, "watertank from H = 4")) {
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "Water-Tank System/H"), 10, 1e-12, "watertank: H = Href");
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "Controller/Integrator"), V, 1e-12, "watertank: V");
    }
    unload(&f);
}

static void test_vdp(void)
{
    trim_fx_t f;
    tap_ok(!load(&f, "graphs/vdp.json", NULL, NULL), "vdp loads");
    if (solved(&f, "vdp from (2, 0)")) {
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "x1"), 0, 1e-12, "vdp: x1 = 0");
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "x2"), 0, 1e-12, "vdp: x2 = 0");
    }
    jg_analysis_trim_info_t in;
    jg_analysis_trim_info(f.t, &in);
    tap_ok(in.fd_columns == 0 && in.iterations <= 10, "vdp: analytic Jacobians only, %d iterations",
           in.iterations);
    unload(&f);
}

static void test_pendulum(void)
{
    trim_fx_t f;
    /* the model starts at (3, 0.2): near pi */
    tap_ok(!load(&f, "tests/data/trim/pendulum.json", NULL, NULL), "pendulum loads");
    if (solved(&f, "pendulum from theta = 3")) {
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "theta"), pi, 1e-13, "pendulum: theta = pi (upright)");
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "omega"), 0, 1e-13, "pendulum: omega = 0");
    }
    unload(&f);
    tap_ok(!load(&f, "tests/data/trim/pendulum.json", "{'states': {'theta': 0.5}}", NULL),
           "pendulum: guess theta = 0.5");
    if (solved(&f, "pendulum from theta = 0.5"))
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "theta"), 0, 1e-13, "pendulum: theta = 0 (hanging)");
    unload(&f);
    tap_ok(!load(&f, "tests/data/trim/pendulum.json", NULL, "{'states': {'theta': {'value': -2.9}}}"),
           "pendulum: spec guess theta = -2.9");
    if (solved(&f, "pendulum from theta = -2.9"))
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "theta"), -pi, 1e-13, "pendulum: theta = -pi");
    unload(&f);
}

static void test_output_spec(void)
{
    trim_fx_t f;
    /* y = x^2 + x = 6 at steady state x' = u - 2x = 0: x = 2, u = 4 */
    tap_ok(!load(&f, "tests/data/trim/outspec.json", NULL, "{'outputs': {'y': {'value': 6, 'known': true}}}"),
           "outspec: spec read");
    if (solved(&f, "outspec, y = 6")) {
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "x"), 2, 1e-13, "outspec: x = 2");
        tap_near(value(&f, JG_ANALYSIS_TRIM_INPUT, "u"), 4, 1e-13, "outspec: u = 4 holds y at 6");
        tap_near(value(&f, JG_ANALYSIS_TRIM_OUTPUT, "y"), 6, 1e-13, "outspec: y = 6");
    }
    /* the file the linearizer reads back: the same point, exactly */
    char path[1024];
    snprintf(path, sizeof path, "%s/trimmed.json", dir);
    tap_ok(!jg_analysis_trim_write_op(f.t, path, &f.err), "outspec: op file written");
    jg_lin_t *l = NULL;
    jg_lin_sys_t *s = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    int ok = !jg_lin_create(f.p, NULL, &l, &err) && !jg_lin_read_op(l, path, &err);
    tap_ok(ok && jg_lin_states(l)[0] == value(&f, JG_ANALYSIS_TRIM_STATE, "x") &&
               jg_lin_inputs(l)[0] == value(&f, JG_ANALYSIS_TRIM_INPUT, "u"),
           "outspec: jg_lin_read_op reads the trimmed point back exactly");
    /* there: A = -2, B = 1, C = 2x + 1 = 5 */
    ok = ok && !jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &err);
    tap_ok(ok && fabs(fx_entry(s->A, 0, 0) + 2) < 1e-14 && fabs(fx_entry(s->C, 0, 0) - 5) < 1e-12,
           "outspec: linearized at the trimmed point, C = 2x + 1 = 5");
    jg_lin_sys_free(s);
    jg_lin_free(l);
    unload(&f);
    /* a free state that may move ("steady": false) and an output bound:
     * y <= 1 with u = 2x at steady state */
    tap_ok(!load(&f, "tests/data/trim/outspec.json", NULL, "{'outputs': {'y': {'max': 1}}}"), "outspec: bound read");
    if (solved(&f, "outspec, y <= 1"))
        tap_ok(value(&f, JG_ANALYSIS_TRIM_OUTPUT, "y") <= 1 + 1e-9 &&
                   fabs(value(&f, JG_ANALYSIS_TRIM_INPUT, "u") - 2 * value(&f, JG_ANALYSIS_TRIM_STATE, "x")) < 1e-9,
               "outspec: y within its bound at a steady state");
    unload(&f);
    tap_ok(!load(&f, "tests/data/trim/outspec.json", NULL,
                 "{'states': {'x': {'steady': false}}, 'inputs': {'u': {'value': 3, 'known': true}},"
                 " 'outputs': {'y': {'value': 2, 'known': true}}}"),
           "outspec: non-steady spec read");
    if (solved(&f, "outspec, x not steady")) {
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "x"), 1, 1e-13, "outspec: y = 2 at x = 1 (x moving)");
        tap_ok(jg_analysis_trim_nequations(f.t) == 1, "outspec: only the output equation");
    }
    unload(&f);
}

static void test_infeasible(void)
{
    trim_fx_t f;
    /* y = 6 needs u = 4, but u <= 3 */
    tap_ok(!load(&f, "tests/data/trim/outspec.json", NULL,
                 "{'outputs': {'y': {'value': 6, 'known': true}}, 'inputs': {'u': {'max': 3}}}"),
           "infeasible: spec read");
    jg_status_t st = jg_analysis_trim_run(f.t, &f.err);
    jg_analysis_trim_info_t in;
    jg_analysis_trim_info(f.t, &in);
    tap_ok(st == JG_NUMERIC && jg_status_exit(st) == 5 && in.finished && !in.converged,
           "infeasible: JG_NUMERIC (exit 5), the run finished");
    tap_ok(strstr(f.err.msg, "violated: ") && strstr(f.err.msg, "d/dt x (residual") &&
               strstr(f.err.msg, "y = 6 (residual"),
           "infeasible: the message lists the violated specifications");
    if (!strstr(f.err.msg, "violated")) printf("#   %s\n", f.err.msg);
    tap_near(value(&f, JG_ANALYSIS_TRIM_INPUT, "u"), 3, 0, "infeasible: the best point keeps u at its bound");
    tap_ok(in.iterations < 50, "infeasible: stops once the residual stops decreasing (%d iterations)",
           in.iterations);
    unload(&f);
}

static void test_discrete(void)
{
    trim_fx_t f;
    tap_ok(!load(&f, "tests/data/trim/dfixed.json", NULL, "{'inputs': {'In1': {'value': 1.5, 'known': true}}}"),
           "dfixed: spec read");
    tap_ok(jg_analysis_trim_count(f.t, JG_ANALYSIS_TRIM_DSTATE) == 2 &&
               jg_analysis_trim_count(f.t, JG_ANALYSIS_TRIM_STATE) == 0,
           "dfixed: two discrete states take part");
    if (solved(&f, "dfixed")) {
        tap_near(value(&f, JG_ANALYSIS_TRIM_DSTATE, "x"), 0.73908513321516064, 1e-13,
                 "dfixed: x = cos(x), the Dottie number");
        tap_near(value(&f, JG_ANALYSIS_TRIM_DSTATE, "y"), 3, 1e-13, "dfixed: y = 0.5 y + 1.5 gives 3");
        tap_near(value(&f, JG_ANALYSIS_TRIM_OUTPUT, "X"), 0.73908513321516064, 1e-13, "dfixed: output X");
    }
    jg_analysis_trim_info_t in;
    jg_analysis_trim_info(f.t, &in);
    /* 5: the iterations when the discrete entries were forward differences */
    tap_ok(in.fd_columns == 0 && in.fd_types == NULL && in.iterations <= 5,
           "dfixed: analytic update Jacobians, 0 differenced columns, %d iterations (<= 5 by differences)",
           in.iterations);
    unload(&f);
    /* a known discrete state and a free input: y = 2 u with y = 5 */
    tap_ok(!load(&f, "tests/data/trim/dfixed.json", NULL, "{'states': {'y': {'value': 5, 'known': true}}}"),
           "dfixed: y known");
    if (solved(&f, "dfixed, y known"))
        tap_near(value(&f, JG_ANALYSIS_TRIM_INPUT, "In1"), 2.5, 1e-12, "dfixed: In1 = y / 2");
    unload(&f);
}

/* dfixed with the types of the named UnitDelays swapped for copies without
 * djacobian (as a plug-in or future type would be): the fallback. */
static void fallback_run(const char *const *names, int nnames, int *iterations)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_analysis_trim_t *t = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    jg_block_type_t nodj[2];
    const jg_block_type_t *saved[2] = {NULL, NULL};
    int32_t at[2] = {-1, -1};
    *iterations = -1;
    int ok = !jg_import_load("tests/data/trim/dfixed.json", NULL, &m, &err) && !jg_program_compile(m, &p, &err);
    for (int k = 0; ok && k < nnames; k++) {
        at[k] = jg_program_find_block(p, names[k]);
        if (at[k] < 0) {
            ok = 0;
            break;
        }
        saved[k] = p->blocks[at[k]].type;
        nodj[k] = *saved[k];
        nodj[k].djacobian = NULL;
        p->blocks[at[k]].type = &nodj[k];
    }
    ok = ok && !jg_analysis_trim_create(p, NULL, &t, &err) &&
         !jg_analysis_trim_read_spec(t, scratch("spec.json", "{'inputs': {'In1': {'value': 1.5, 'known': true}}}"),
                                     &err);
    tap_ok(ok, "fallback (%d swapped): set up", nnames);
    if (ok && !jg_analysis_trim_run(t, &err)) {
        jg_analysis_trim_info_t in;
        jg_analysis_trim_info(t, &in);
        double x = NAN, y = NAN;
        for (int64_t k = 0; k < jg_analysis_trim_count(t, JG_ANALYSIS_TRIM_DSTATE); k++) {
            const char *n = jg_analysis_trim_name(t, JG_ANALYSIS_TRIM_DSTATE, k);
            double v = jg_analysis_trim_value(t, JG_ANALYSIS_TRIM_DSTATE, k, NULL);
            if (!strcmp(n, "x")) x = v;
            if (!strcmp(n, "y")) y = v;
        }
        tap_near(x, 0.73908513321516064, 1e-13, nnames == 1 ? "fallback (x swapped): x = cos(x)"
                                                            : "fallback (both swapped): x = cos(x)");
        tap_near(y, 3, 1e-13, nnames == 1 ? "fallback (x swapped): y = 3" : "fallback (both swapped): y = 3");
        /* a UnitDelay has an input: its update row is differenced in every
         * column, so every unknown's column costs one evaluation */
        tap_ok(in.fd_columns == 2 * (int64_t)in.iterations && in.fd_types && !strcmp(in.fd_types, "UnitDelay"),
               "fallback (%d swapped): %lld columns differenced over %d iterations, types \"%s\"", nnames,
               (long long)in.fd_columns, in.iterations, in.fd_types ? in.fd_types : "(none)");
        *iterations = in.iterations;
    } else {
        tap_ok(0, "fallback (%d swapped): converged: %s", nnames, err.msg);
    }
    jg_analysis_trim_free(t);
    for (int k = 0; k < nnames; k++)
        if (saved[k]) p->blocks[at[k]].type = saved[k];
    jg_program_free(p);
    jg_model_free(m);
}

static void test_fallback(void)
{
    static const char *const both[2] = {"x", "y"};
    int it1, it2, it0 = -1;
    fallback_run(both, 1, &it1);
    fallback_run(both, 2, &it2);
    trim_fx_t f;
    if (!load(&f, "tests/data/trim/dfixed.json", NULL, "{'inputs': {'In1': {'value': 1.5, 'known': true}}}") &&
        !jg_analysis_trim_run(f.t, &f.err)) {
        jg_analysis_trim_info_t in;
        jg_analysis_trim_info(f.t, &in);
        it0 = in.iterations;
    }
    unload(&f);
    tap_ok(it0 > 0 && it1 > 0 && it2 > 0 && it0 <= it1 && it0 <= it2,
           "dfixed: analytic %d iterations <= %d (one type differenced) and %d (both)", it0, it1, it2);
}

static void test_mixed(void)
{
    trim_fx_t f;
    const double tf = 8 / 0.56;
    tap_ok(!load(&f, "tests/data/trim/dmix.json", NULL,
                 "{'inputs': {'In1': {'value': 7, 'known': true}}, 'states': {'x': {'value': 1}}}"),
           "dmix: spec read");
    /* d, tf (2), w; the Memory at the discrete rate is held */
    tap_ok(jg_analysis_trim_count(f.t, JG_ANALYSIS_TRIM_DSTATE) == 4 &&
               jg_analysis_trim_count(f.t, JG_ANALYSIS_TRIM_STATE) == 1,
           "dmix: one continuous and four discrete states take part");
    if (solved(&f, "dmix, u = 7")) {
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "x"), 2, 1e-13, "dmix: x^3 = 0.5 x + 7 gives x = 2");
        tap_near(value(&f, JG_ANALYSIS_TRIM_DSTATE, "d"), 8, 1e-13, "dmix: d = x^3 = 8");
        tap_near(value(&f, JG_ANALYSIS_TRIM_DSTATE, "w"), tf, 1e-12, "dmix: w = d / 0.56 (DC gain)");
        tap_near(value(&f, JG_ANALYSIS_TRIM_OUTPUT, "W"), tf, 1e-12, "dmix: output W = d / 0.56");
        tap_near(value(&f, JG_ANALYSIS_TRIM_OUTPUT, "Mem"), 0.25, 0, "dmix: the Memory held at 0.25");
    }
    jg_analysis_trim_info_t in;
    jg_analysis_trim_info(f.t, &in);
    tap_ok(in.fd_columns == 0 && in.fd_types == NULL, "dmix: no differenced columns (%d iterations)",
           in.iterations);
    unload(&f);
    /* the input that holds the discrete output W at 5: d = 2.8, x = cbrt(2.8) */
    tap_ok(!load(&f, "tests/data/trim/dmix.json", NULL,
                 "{'outputs': {'W': {'value': 5, 'known': true}}, 'states': {'x': {'value': 1}}}"),
           "dmix: W = 5 spec read");
    if (solved(&f, "dmix, W = 5")) {
        tap_near(value(&f, JG_ANALYSIS_TRIM_INPUT, "In1"), 2.8 - 0.5 * cbrt(2.8), 1e-13,
                 "dmix: In1 = 2.8 - cbrt(2.8) / 2");
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "x"), cbrt(2.8), 1e-13, "dmix: x = cbrt(2.8)");
    }
    /* the Jacobian at an arbitrary point against forward differences of the
     * whole model (every discrete state treated as a type without
     * djacobian): every entry, the analytic ones from the blocks' update
     * Jacobians through the connections */
    jg_analysis_trim_t *t = f.t;
    int64_t m = t->neq, nv = t->nv, n = 0;
    jg__trim_prob_t P = {.t = t, .m = m};
    P.unk = calloc((size_t)nv + 1, sizeof(int64_t));
    P.col = calloc((size_t)nv + 1, sizeof(int64_t));
    P.rowx = calloc((size_t)t->nx + 1, sizeof(int64_t));
    P.rowy = calloc((size_t)t->ny + 1, sizeof(int64_t));
    P.rowd = calloc((size_t)t->nd + 1, sizeof(int64_t));
    P.rp = calloc((size_t)m + 1, sizeof(double));
    P.vp = calloc((size_t)nv + 1, sizeof(double));
    double *v = calloc((size_t)nv + 1, sizeof(double)), *r = calloc((size_t)m + 1, sizeof(double));
    double *Ja = calloc((size_t)(m * nv) + 1, sizeof(double)), *Jf = calloc((size_t)(m * nv) + 1, sizeof(double));
    int ok = P.unk && P.col && P.rowx && P.rowy && P.rowd && P.rp && P.vp && v && r && Ja && Jf && m == 6;
    for (int64_t i = 0; ok && i < nv; i++) {
        v[i] = t->v[i] + 0.1 * (double)(i + 1);
        P.col[i] = -1;
        if (!t->spec.known[i]) P.col[i] = n, P.unk[n++] = i;
    }
    P.n = n;
    for (int64_t i = 0; ok && i < t->nx; i++) P.rowx[i] = -1;
    for (int64_t i = 0; ok && i < t->ny; i++) P.rowy[i] = -1;
    for (int64_t i = 0; ok && i < t->nd; i++) P.rowd[i] = -1;
    for (int64_t e = 0; ok && e < m; e++) {
        if (t->eq[e].kind == JG__TRIM_EQ_DX) P.rowx[t->eq[e].idx] = e;
        if (t->eq[e].kind == JG__TRIM_EQ_DD) P.rowd[t->eq[e].idx] = e;
    }
    ok = ok && n == 6 && !jg__trim_eval(t, v, r, &f.err);
    P.J = Ja;
    int64_t fd0 = t->info.fd_columns;
    ok = ok && !jg__trim_jacobian(&P, v, r, &f.err) && t->info.fd_columns == fd0;
    tap_ok(ok, "dmix: analytic Jacobian at a point off the solution, no column differenced");
    for (int64_t k = 0; k < t->nd; k++) t->d_fd[k] = JG__TRIM_FD_ROWS;
    P.J = Jf;
    ok = ok && !jg__trim_jacobian(&P, v, r, &f.err) && t->info.fd_columns == fd0 + n;
    double worst = 0, scale = 0;
    int64_t nonzero = 0;
    for (int64_t k = 0; ok && k < m * n; k++) {
        worst = fmax(worst, fabs(Ja[k] - Jf[k]));
        scale = fmax(scale, fabs(Jf[k]));
        nonzero += Ja[k] != 0;
    }
    tap_ok(ok && worst <= 1e-6 * fmax(1, scale) && nonzero >= 12,
           "dmix: the %lldx%lld Jacobian (%lld nonzeros) matches forward differences (largest gap %.2g)",
           (long long)m, (long long)n, (long long)nonzero, worst);
    if (!ok) printf("#   %s\n", f.err.msg);
    free(P.unk), free(P.col), free(P.rowx), free(P.rowy), free(P.rowd), free(P.rp), free(P.vp);
    free(v), free(r), free(Ja), free(Jf);
    unload(&f);
}

/* x' = c - x for a two-element Integrator: element names and arrays */
static const char vec_model[] =
    "{'name': 'vec', 'blocks': ["
    " {'name': 'c', 'type': 'Constant', 'Value': [3, 4]},"
    " {'name': 'S', 'type': 'Sum', 'Inputs': '+-'},"
    " {'name': 'x', 'type': 'Integrator', 'InitialCondition': [1, 2]},"
    " {'name': 'Out1', 'type': 'Outport', 'Port': 1}],"
    " 'lines': [{'src': 'c:1', 'dst': 'S:1'}, {'src': 'S:1', 'dst': 'x:1'},"
    " {'src': 'x:1', 'dst': ['S:2', 'Out1:1']}]}";

static void test_elements(void)
{
    trim_fx_t f;
    tap_ok(!load(&f, vec_model, NULL, "{'states': {'x(2)': {'value': 7, 'known': true, 'steady': false}}}"),
           "vec: element spec read");
    tap_streq(jg_analysis_trim_name(f.t, JG_ANALYSIS_TRIM_STATE, 1), "x(2)", "vec: element names");
    tap_streq(jg_analysis_trim_name(f.t, JG_ANALYSIS_TRIM_OUTPUT, 1), "Out1(2)", "vec: output element names");
    if (solved(&f, "vec")) {
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "x(1)"), 3, 1e-13, "vec: x(1) = c(1)");
        tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "x(2)"), 7, 0, "vec: x(2) known, not steady");
    }
    unload(&f);
    tap_ok(!load(&f, vec_model, NULL, "{'states': {'x': {'value': [5, 6], 'min': [0, 5], 'max': 10}}}"),
           "vec: array values and bounds read");
    /* x(2) = c(2) = 4 is below its min: x(1) solves, x(2) stays at 5 */
    jg_status_t st = jg_analysis_trim_run(f.t, &f.err);
    tap_ok(st == JG_NUMERIC && strstr(f.err.msg, "d/dt x(2) (residual -1)") && !strstr(f.err.msg, "d/dt x(1)"),
           "vec: x(2) cannot be steady inside its bounds; x(1) can");
    tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "x(1)"), 3, 1e-13, "vec: x(1) = 3");
    tap_near(value(&f, JG_ANALYSIS_TRIM_STATE, "x(2)"), 5, 0, "vec: x(2) held at its min 5");
    unload(&f);
}

static void bad_spec(const char *spec, jg_status_t want, const char *fragment)
{
    trim_fx_t f;
    jg_status_t st = load(&f, "tests/data/trim/outspec.json", NULL, NULL);
    const char *path = scratch("bad.json", spec);
    if (!st) st = jg_analysis_trim_read_spec(f.t, path, &f.err);
    int ok = st == want && strstr(f.err.msg, fragment) && strstr(f.err.msg, path);
    tap_ok(ok, "bad spec %s: %s", spec, fragment);
    if (!ok) printf("#   status %d: %s\n", (int)st, f.err.msg);
    /* the previous (default) specification is kept */
    if (f.t) tap_ok(!jg_analysis_trim_run(f.t, &f.err), "after a bad spec the default one still solves");
    unload(&f);
}

static void test_bad_specs(void)
{
    bad_spec("{'states': {'xx': {'value': 1}}}", JG_ARG, "unknown state \"xx\"; did you mean \"x\"?");
    bad_spec("{'outputs': {'Y': {'value': 1, 'known': true}}}", JG_ARG, "unknown output \"Y\"; did you mean \"y\"?");
    bad_spec("{'inputs': {'zzzzzz': {}}}", JG_ARG, "unknown input \"zzzzzz\"");
    bad_spec("{'sates': {}}", JG_ARG, "unknown key \"sates\"; did you mean \"states\"?");
    bad_spec("{'states': {'x': {'knwon': true}}}", JG_ARG, "unknown key \"knwon\"; did you mean \"known\"?");
    bad_spec("{'inputs': {'u': {'steady': true}}}", JG_ARG, "\"steady\" applies to states only");
    bad_spec("{'states': {'x': {'min': 2, 'max': 1}}}", JG_ARG, "min 2 is above max 1");
    bad_spec("{'states': {'x': {'value': 5, 'known': true, 'max': 4}}}", JG_ARG, "outside");
    bad_spec("{'states': {'x': {'value': [1, 2]}}}", JG_ARG, "an array of 1 numbers");
    bad_spec("{'states': {'x': {'known': 1}}}", JG_ARG, "must be true or false");
    bad_spec("{'outputs': {'y': {'known': true}}}", JG_ARG, "needs a \"value\"");
    bad_spec("{'states': [1]}", JG_ARG, "must be an object");
    bad_spec("{'states': ", JG_PARSE, ":1:");
    trim_fx_t f;
    tap_ok(!load(&f, "tests/data/trim/outspec.json", NULL, NULL), "outspec loads");
    tap_ok(jg_analysis_trim_read_spec(f.t, "/nonexistent/spec.json", &f.err) == JG_IO &&
               strstr(f.err.msg, "/nonexistent/spec.json"),
           "missing spec file: JG_IO naming it");
    tap_ok(jg_analysis_trim_read_op(f.t, "/nonexistent/op.json", &f.err) == JG_IO, "missing op file: JG_IO");
    tap_ok(jg_analysis_trim_name(f.t, JG_ANALYSIS_TRIM_STATE, 5) == NULL &&
               isnan(jg_analysis_trim_value(f.t, JG_ANALYSIS_TRIM_INPUT, -1, NULL)) &&
               jg_analysis_trim_equation(f.t, 0, NULL) == NULL,
           "out-of-range accessors: NULL / NaN");
    unload(&f);
    jg_error_t err;
    jg_error_clear(&err);
    tap_ok(jg_analysis_trim_create(NULL, NULL, NULL, &err) == JG_ARG, "NULL program: JG_ARG");
    jg_analysis_trim_free(NULL);
}

int main(void)
{
    if (!tl_tmpdir(dir, sizeof dir, "jg_trim")) {
        tap_ok(0, "scratch directory");
        return tap_done();
    }
    test_watertank();
    test_vdp();
    test_pendulum();
    test_output_spec();
    test_infeasible();
    test_discrete();
    test_fallback();
    test_mixed();
    test_elements();
    test_bad_specs();
    char path[1100];
    const char *names[] = {"op.json", "spec.json", "bad.json", "trimmed.json"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        remove(path);
    }
    rmdir(dir);
    return tap_done();
}
