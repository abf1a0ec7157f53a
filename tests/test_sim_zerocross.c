/* Zero crossings (Simulink, "How Simulink Works": "Blocks that Register Zero
 * Crossings") and the full Integrator: its ports, values and setup errors; its
 * linearization with saturation limits, cross-checked by every path; and
 * simulations whose switching times are known exactly -- the bouncing ball of
 * docs/references.md, resets, limits, Relay hysteresis, Saturation,
 * HitCrossing, Step, MinMax, Sign, Abs, DeadZone and Switch driven by sines. */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

#define PI 3.14159265358979323846

/* ------------------------------------------------------------ simulation */

typedef struct {
    int n, cap, nsig, nx;
    double *t, *sig, *x;   /* rows: time, logged signals, states */
} rec_t;

static int record(double t, const double *x, const double *sig, void *user)
{
    rec_t *r = user;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->t = realloc(r->t, sizeof(double) * (size_t)r->cap);
        r->sig = realloc(r->sig, sizeof(double) * (size_t)(r->cap * (r->nsig + 1)));
        r->x = realloc(r->x, sizeof(double) * (size_t)(r->cap * (r->nx + 1)));
        if (!r->t || !r->sig || !r->x) return 1;
    }
    r->t[r->n] = t;
    memcpy(r->sig + (size_t)r->n * r->nsig, sig, sizeof(double) * (size_t)r->nsig);
    memcpy(r->x + (size_t)r->n * r->nx, x, sizeof(double) * (size_t)r->nx);
    r->n++;
    return 0;
}

static void rec_free(rec_t *r)
{
    free(r->t);
    free(r->sig);
    free(r->x);
    memset(r, 0, sizeof *r);
}

static double S(const rec_t *r, int k, int j) { return r->sig[(size_t)k * r->nsig + j]; }
static double X(const rec_t *r, int k, int j) { return r->x[(size_t)k * r->nx + j]; }

typedef struct {
    jg_status_t st;
    jg_error_t err;
    rec_t r;
    jg_sim_stats_t stats;
} run_t;

/* Simulate a model (JSON text, " quotes) logging every major step.
 * tight: rtol 1e-10, atol 1e-12; otherwise the default tolerances. */
static void simulate(const char *json, double tstop, int tight, jg_zc_mode_t zc, run_t *o)
{
    memset(o, 0, sizeof *o);
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_sim_t *s = NULL;
    jg_sim_opts_t opt = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = tstop, .out_step = 0, .zc = zc};
    if (tight) {
        opt.so.rtol = 1e-10;
        opt.so.atol = 1e-12;
    }
    o->st = jg_model_parse(json, "<test>", &m, &o->err);
    if (!o->st) o->st = jg_program_compile(m, &p, &o->err);
    if (!o->st) o->st = jg_sim_create(p, &opt, &s, &o->err);
    if (!o->st) {
        o->r.nsig = (int)jg_sim_nlogged(s);
        o->r.nx = (int)jg_program_nstates(p);
        o->st = jg_sim_run(s, tstop, record, &o->r, &o->err);
        jg_sim_stats(s, &o->stats);
        if (!o->st && fabs(jg_sim_time(s) - tstop) > 1e-12) {
            o->st = JG_INTERNAL;
            snprintf(o->err.msg, sizeof o->err.msg, "stopped at t = %.17g", jg_sim_time(s));
        }
    }
    if (o->st) printf("#   simulation failed: %s\n", o->err.msg);
    jg_sim_free(s);
    jg_program_free(p);
    jg_model_free(m);
}

/* Is there a logged major step at or just after tk (within tol)? */
static int step_at(const rec_t *r, double tk, double tol)
{
    for (int k = 0; k < r->n; k++)
        if (r->t[k] >= tk - 1e-12 && r->t[k] <= tk + tol) return 1;
    return 0;
}

/* Times of the logged rows where signal j changes (the row with the new value). */
static int changes(const rec_t *r, int j, double *at, int max)
{
    int n = 0;
    for (int k = 1; k < r->n && n < max; k++)
        if (S(r, k, j) != S(r, k - 1, j)) at[n++] = r->t[k];
    return n;
}

/* ------------------------------------------------ Integrator: structure */

/* The Integrator I with the given options; root Inports In1 (u), In2 (reset),
 * In3 (IC) as the ports exist; each output q of I drives an Integrator Yq, so
 * the derivatives show I's outputs. */
static const char *integ_model(const char *opts, int nin, int nout)
{
    static char buf[4096];
    int n = snprintf(buf, sizeof buf, "{'name':'integ','blocks':[");
    for (int k = 1; k <= nin; k++)
        n += snprintf(buf + n, sizeof buf - n, "{'name':'In%d','type':'Inport','Port':%d},", k, k);
    n += snprintf(buf + n, sizeof buf - n, "{'name':'I','type':'Integrator'%s%s}", *opts ? "," : "",
                  opts);
    for (int k = 1; k <= nout; k++)
        n += snprintf(buf + n, sizeof buf - n, ",{'name':'Y%d','type':'Integrator'}", k);
    n += snprintf(buf + n, sizeof buf - n, "],'lines':[");
    for (int k = 1; k <= nin; k++)
        n += snprintf(buf + n, sizeof buf - n, "%s{'src':'In%d:1','dst':'I:%d'}", k > 1 ? "," : "", k, k);
    for (int k = 1; k <= nout; k++)
        n += snprintf(buf + n, sizeof buf - n, ",{'src':'I:%d','dst':'Y%d:1'}", k, k);
    snprintf(buf + n, sizeof buf - n, "]}");
    return q(buf);
}

static const char full_opts[] =
    "'ExternalReset':'rising','InitialConditionSource':'external','UpperSaturationLimit':2,"
    "'LowerSaturationLimit':-1,'ShowSaturationPort':'on','ShowStatePort':'on'";

static void test_structure(void)
{
    static const struct {
        const char *opts;
        int nin, nout;
        int64_t nzc, nd;
        const char *what;
    } c[] = {
        {"", 1, 1, 0, 0, "plain: u -> y, no zero crossings, no modes"},
        {"'ExternalReset':'falling'", 2, 1, 1, 1,
         "reset: u, reset -> y; one zero crossing, the reset input's last value"},
        {"'InitialConditionSource':'external'", 2, 1, 0, 0, "external IC: u, x0 -> y"},
        {"'ShowStatePort':'on'", 1, 2, 0, 0, "state port: u -> y, state"},
        {"'ShowSaturationPort':1", 1, 2, 0, 0, "saturation port without limits: u -> y, saturation"},
        {"'LowerSaturationLimit':0", 1, 1, 1, 1, "lower limit: one zero crossing (x - lower), one mode"},
        {"'UpperSaturationLimit':'inf','LowerSaturationLimit':'-inf'", 1, 1, 0, 0,
         "limits \"inf\"/\"-inf\": no zero crossings"},
        {full_opts, 3, 3, 3, 2, "all options: u, reset, x0 -> y, saturation, state"},
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        fx_t f;
        jg_status_t st = fx_load(&f, integ_model(c[k].opts, c[k].nin, c[k].nout), NULL);
        int nin = -1, nout = -1, ft = 0;
        int32_t b = st ? -1 : jg_program_find_block(f.p, "I");
        if (b >= 0) jg_program_block_nports(f.p, b, &nin, &nout);
        for (int p = 0; b >= 0 && p < nin; p++) ft |= jg_program_block_feedthrough(f.p, b, p);
        int ok = !st && nin == c[k].nin && nout == c[k].nout && !ft &&
                 jg_program_nzc(f.p) == c[k].nzc && jg_program_ndstates(f.p) == c[k].nd;
        tap_ok(ok, "Integrator %s (no input fed through)", c[k].what);
        if (!ok)
            printf("#   st %d (%s), ports %d -> %d, feedthrough %d, nzc %lld, nd %lld\n", st,
                   st ? f.err.msg : "", nin, nout, ft, st ? -1LL : (long long)jg_program_nzc(f.p),
                   st ? -1LL : (long long)jg_program_ndstates(f.p));
        fx_unload(&f);
    }

    /* a vector state with a scalar reset: one zero crossing; with a vector
     * reset: one per element; limits on two elements of three */
    for (int w = 1; w <= 3; w += 2) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{'blocks':[{'name':'R','type':'Inport','Port':1,'PortDimensions':%d},"
                 "{'name':'U','type':'Constant','Value':[1,2,3]},"
                 "{'name':'I','type':'Integrator','InitialCondition':[1,2,3],'ExternalReset':'either',"
                 "'UpperSaturationLimit':[5,6,7]}],"
                 "'lines':[{'src':'U:1','dst':'I:1'},{'src':'R:1','dst':'I:2'}]}",
                 w);
        fx_t f;
        jg_status_t st = fx_load(&f, q(json), NULL);
        tap_ok(!st && jg_program_nzc(f.p) == w + 3 && jg_program_ndstates(f.p) == 3 + w,
               "Integrator width 3, reset width %d: %d reset zero crossings + 3 upper; 3 modes + %d "
               "reset values", w, w, w);
        if (st) printf("#   %s\n", f.err.msg);
        fx_unload(&f);
    }
}

/* ------------------------------------- Integrator: values (no simulator) */

static void test_values(void)
{
    fx_t f;
    jg_status_t st = fx_load(&f, integ_model(full_opts, 3, 3), NULL);
    tap_ok(!st, "Integrator with every option compiles");
    if (st) {
        printf("#   %s\n", f.err.msg);
        return;
    }
    /* states: I, Y1 (y), Y2 (saturation), Y3 (state port) */
    static const struct {
        double x, u, dx, y, sat, state;
        const char *what;
    } c[] = {
        {0.5, 3, 3, 0.5, 0, 0.5, "between the limits: x' = u, y = x, saturation 0"},
        {2, 1, 0, 2, 1, 2, "at the upper limit pushing out: x' = 0, saturation +1"},
        {2, -1, -1, 2, 1, 2, "at the upper limit pulling in: x' = u"},
        {3, 1, 0, 2, 1, 3, "beyond the upper limit: y clamped, state port unclamped"},
        {-1, -2, 0, -1, -1, -1, "at the lower limit pushing out: x' = 0, saturation -1"},
        {-1, 2, 2, -1, -1, -1, "at the lower limit pulling in: x' = u"},
        {-4, 1, 1, -1, -1, -4, "below the lower limit: y = -1, state -4"},
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        double *x = jg_eval_states(f.w), *in = jg_eval_inputs(f.w), dx[4];
        x[0] = c[k].x;
        in[0] = c[k].u;
        in[1] = 1;   /* reset and IC inputs: no effect outside update() */
        in[2] = 7;
        st = jg_eval_outputs(f.w, 0, &f.err);
        if (!st) st = jg_eval_derivatives(f.w, dx, &f.err);
        int ok = !st && dx[0] == c[k].dx && dx[1] == c[k].y && dx[2] == c[k].sat && dx[3] == c[k].state;
        tap_ok(ok, "Integrator x = %g, u = %g: %s", c[k].x, c[k].u, c[k].what);
        if (!ok) printf("#   x' %g, y %g, saturation %g, state %g\n", dx[0], dx[1], dx[2], dx[3]);
    }
    /* the initial state is the InitialCondition clamped into the limits */
    fx_unload(&f);
    st = fx_load(&f,
                 q("{'blocks':[{'name':'U','type':'Constant','Value':[0,0,0]},"
                   "{'name':'I','type':'Integrator','InitialCondition':[-3,0,9],'UpperSaturationLimit':4,"
                   "'LowerSaturationLimit':[-2,-1,0]}],'lines':[{'src':'U:1','dst':'I:1'}]}"),
                 NULL);
    if (st) printf("#   %s\n", f.err.msg);
    const double *x0 = st ? NULL : jg_eval_states(f.w);
    tap_ok(x0 && x0[0] == -2 && x0[1] == 0 && x0[2] == 4,
           "Integrator x(0) = InitialCondition [-3 0 9] clamped into [[-2 -1 0], 4]: [-2 0 4]");
    fx_unload(&f);
}

/* Linearization of the Integrator with limits, every path against the
 * analytic A, B (and the others against each other) at points away from the
 * limits and beyond them. */
static void test_linearization(void)
{
    fx_t f;
    jg_status_t st = fx_load(&f, integ_model(full_opts, 3, 3), NULL);
    static const struct {
        double x, u, b, c;   /* b = dx'/du, c = dy/dx */
        const char *what;
    } pt[] = {{0.5, 1, 1, 1, "x = 0.5 (between the limits)"},
              {-0.75, -2, 1, 1, "x = -0.75, u < 0 (between the limits)"},
              {2.5, 1, 0, 0, "x = 2.5, u > 0 (beyond the upper limit)"},
              {-3, -1, 0, 0, "x = -3, u < 0 (below the lower limit)"}};
    for (size_t k = 0; !st && k < sizeof pt / sizeof *pt; k++) {
        for (int pi = 0; pi < NPATHS; pi++) {
            double *x = jg_lin_states(f.l), *u = jg_lin_inputs(f.l);
            x[0] = pt[k].x;
            x[1] = x[2] = x[3] = 0;
            u[0] = pt[k].u;
            u[1] = 0;
            u[2] = 0;
            jg_lin_sys_t *s = NULL;
            jg_status_t st2 = jg_lin_run(f.l, paths[pi].m, paths[pi].r, &s, NULL, &f.err);
            /* A over (I, Y1, Y2, Y3): row Y1 = c (y), row Y3 = 1 (state port),
             * row Y2 = 0 (the saturation port has no path); B over (u, reset,
             * x0): only (I, u) = b */
            double want_a[4][4] = {{0}}, want_b[4][3] = {{0}}, err = 0;
            want_a[1][0] = pt[k].c;
            want_a[3][0] = 1;
            want_b[0][0] = pt[k].b;
            for (int i = 0; !st2 && i < 4; i++) {
                for (int j = 0; j < 4; j++) err = fmax(err, fabs(fx_entry(s->A, i, j) - want_a[i][j]));
                for (int j = 0; j < 3; j++) err = fmax(err, fabs(fx_entry(s->B, i, j) - want_b[i][j]));
            }
            double tol = paths[pi].m == JG_LIN_PERTURB ? 1e-6 : 0;
            tap_ok(!st2 && s->nx == 4 && s->nu == 3 && err <= tol,
                   "Integrator limits [-1, 2], %s: A and B by %s (error %.1e)", pt[k].what,
                   paths[pi].name, err);
            if (st2) printf("#   %s\n", f.err.msg);
            jg_lin_sys_free(s);
        }
    }
    if (st) tap_ok(0, "Integrator linearization model compiles: %s", f.err.msg);
    fx_unload(&f);
}

/* ------------------------------------------------------- setup errors */

static void test_errors(void)
{
    static const struct {
        const char *opts;
        int nin, nout;
        jg_status_t st;
        const char *msg;
    } c[] = {
        {"'ExternalReset':'sometimes'", 1, 1, JG_PARAM,
         "block 'I' (Integrator), parameter 'ExternalReset': expected \"none\", \"rising\", "
         "\"falling\", \"either\" or \"level\", got \"sometimes\""},
        {"'InitialConditionSource':'outside'", 1, 1, JG_PARAM,
         "block 'I' (Integrator), parameter 'InitialConditionSource': expected \"internal\" or "
         "\"external\", got \"outside\""},
        {"'UpperSaturationLimit':1,'LowerSaturationLimit':1", 1, 1, JG_PARAM,
         "block 'I' (Integrator), parameter 'LowerSaturationLimit': element 1 is 1, not below "
         "UpperSaturationLimit 1: expected LowerSaturationLimit < UpperSaturationLimit"},
        {"'UpperSaturationLimit':[1,2],'LowerSaturationLimit':[0,0,0]", 1, 1, JG_PARAM,
         "block 'I' (Integrator), parameter 'LowerSaturationLimit': has 3 elements but "
         "UpperSaturationLimit has 2 (only scalars expand)"},
        {"'UpperSaturationLimit':'infinity'", 1, 1, JG_PARAM,
         "block 'I' (Integrator), parameter 'UpperSaturationLimit': unknown workspace name "
         "'infinity' (expected a number, \"inf\", \"-inf\" or a workspace parameter)"},
        {"'ShowStatePort':'yes'", 1, 1, JG_PARAM,
         "block 'I' (Integrator), parameter 'ShowStatePort': expected \"on\" or \"off\" (or 1 / 0)"},
        {"'ShowSaturationPort':2", 1, 1, JG_PARAM,
         "block 'I' (Integrator), parameter 'ShowSaturationPort': expected \"on\" or \"off\" (or 1 / 0)"},
        {"'InitialCondition':[1,2,3],'UpperSaturationLimit':[1,2]", 1, 1, JG_PARAM,
         "block 'I' (Integrator), parameter 'UpperSaturationLimit': expected a scalar or 3 elements, "
         "got 2"},
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        fx_t f;
        jg_status_t st = fx_load(&f, integ_model(c[k].opts, c[k].nin, c[k].nout), NULL);
        tap_ok(st == c[k].st, "error status for %s", c[k].opts);
        tap_streq(f.err.msg, c[k].msg, "error message names block, parameter and expectation");
        fx_unload(&f);
    }

    /* port widths: a reset of width 2 for a state of width 3 */
    fx_t f;
    jg_status_t st = fx_load(
        &f,
        q("{'blocks':[{'name':'R','type':'Constant','Value':[0,0]},"
          "{'name':'U','type':'Constant','Value':[1,2,3]},"
          "{'name':'I','type':'Integrator','ExternalReset':'rising','InitialConditionSource':'external'},"
          "{'name':'X0','type':'Constant','Value':[1,2,3,4]}],"
          "'lines':[{'src':'U:1','dst':'I:1'},{'src':'R:1','dst':'I:2'},{'src':'X0:1','dst':'I:3'}]}"),
        NULL);
    tap_ok(st == JG_WIDTH, "reset input of width 2 for a state of width 3 is JG_WIDTH");
    tap_streq(f.err.msg,
              "block 'I' (Integrator), parameter 'ExternalReset': the reset input (port 2) has width 2: "
              "expected 1 or 3",
              "reset width error names the port and the widths");
    fx_unload(&f);
    st = fx_load(
        &f,
        q("{'blocks':[{'name':'U','type':'Constant','Value':[1,2,3]},"
          "{'name':'I','type':'Integrator','InitialConditionSource':'external'},"
          "{'name':'X0','type':'Constant','Value':[1,2]}],"
          "'lines':[{'src':'U:1','dst':'I:1'},{'src':'X0:1','dst':'I:2'}]}"),
        NULL);
    tap_ok(st == JG_WIDTH, "IC input of width 2 for a state of width 3 is JG_WIDTH");
    tap_streq(f.err.msg,
              "block 'I' (Integrator), parameter 'InitialConditionSource': the initial-condition input "
              "(port 2) has width 2: expected 1 or 3",
              "IC width error names the port and the widths");
    fx_unload(&f);

    /* HitCrossing */
    static const struct {
        const char *opts;
        const char *msg;
    } h[] = {
        {"'HitCrossingDirection':'up'",
         "block 'H' (HitCrossing), parameter 'HitCrossingDirection': expected \"rising\", "
         "\"falling\" or \"either\", got \"up\""},
        {"'ShowOutputPort':'maybe'",
         "block 'H' (HitCrossing), parameter 'ShowOutputPort': expected \"on\" or \"off\" (or 1 / 0)"},
        {"'HitCrossingOffset':[]",
         "block 'H' (HitCrossing), parameter 'HitCrossingOffset': expected a non-empty value"},
        {"'HitCrossingOffset':[1,2,3]",
         "block 'H' (HitCrossing), parameter 'HitCrossingOffset': has 3 elements but the input has "
         "width 2"},
    };
    for (size_t k = 0; k < sizeof h / sizeof *h; k++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{'blocks':[{'name':'U','type':'Constant','Value':[1,2]},"
                 "{'name':'H','type':'HitCrossing',%s},{'name':'T','type':'Terminator'}],"
                 "'lines':[{'src':'U:1','dst':'H:1'}%s]}",
                 h[k].opts, strstr(h[k].opts, "ShowOutputPort") ? "" : ",{'src':'H:1','dst':'T:1'}");
        st = fx_load(&f, q(json), NULL);
        tap_ok(st != JG_OK, "HitCrossing %s fails", h[k].opts);
        tap_streq(f.err.msg, h[k].msg, "HitCrossing error message");
        fx_unload(&f);
    }
}

/* Zero-crossing counts and feedthrough of the other blocks. */
static void test_counts(void)
{
    static const struct {
        const char *blk;   /* driven by a Constant [1 2 3] at port 1 */
        int nin;
        int64_t nzc, nd;
        const char *what;
    } c[] = {
        {"'type':'Saturation'", 1, 6, 0, "Saturation: upper and lower per element"},
        {"'type':'DeadZone'", 1, 6, 0, "DeadZone: lower and upper per element"},
        {"'type':'Sign'", 1, 3, 3, "Sign: one per element, its held output each"},
        {"'type':'Abs'", 1, 3, 0, "Abs: one per element"},
        {"'type':'Relay'", 1, 3, 3, "Relay: one per element, an on/off state each"},
        {"'type':'Switch'", 3, 3, 3, "Switch: one per element, its held position each"},
        {"'type':'MinMax','Inputs':2", 2, 3, 3, "MinMax of 2 inputs: one per element, a selection each"},
        {"'type':'MinMax'", 1, 1, 1, "MinMax of one vector: one, one selection"},
        {"'type':'HitCrossing'", 1, 3, 3, "HitCrossing: one per element, a sign each"},
        {"'type':'HitCrossing','ShowOutputPort':'off'", 1, 3, 3, "HitCrossing without output"},
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        char json[1024];
        int n = snprintf(json, sizeof json,
                         "{'blocks':[{'name':'U','type':'Constant','Value':[1,2,3]},{'name':'B',%s}"
                         "%s],'lines':[",
                         c[k].blk, strstr(c[k].blk, "'off'") ? "" : ",{'name':'T','type':'Terminator'}");
        for (int p = 1; p <= c[k].nin; p++)
            n += snprintf(json + n, sizeof json - n, "%s{'src':'U:1','dst':'B:%d'}", p > 1 ? "," : "", p);
        snprintf(json + n, sizeof json - n, "%s]}",
                 strstr(c[k].blk, "'off'") ? "" : ",{'src':'B:1','dst':'T:1'}");
        fx_t f;
        jg_status_t st = fx_load(&f, q(json), NULL);
        int ok = !st && jg_program_nzc(f.p) == c[k].nzc && jg_program_ndstates(f.p) == c[k].nd;
        tap_ok(ok, "%s: %lld zero crossings, %lld discrete states", c[k].what, (long long)c[k].nzc,
               (long long)c[k].nd);
        if (!ok)
            printf("#   %s nzc %lld nd %lld\n", st ? f.err.msg : "",
                   st ? -1LL : (long long)jg_program_nzc(f.p), st ? -1LL : (long long)jg_program_ndstates(f.p));
        fx_unload(&f);
    }
    /* Step: one per element, rising */
    fx_t f;
    jg_status_t st = fx_load(&f, q("{'blocks':[{'name':'S','type':'Step','Time':[1,2]}]}"), NULL);
    tap_ok(!st && jg_program_nzc(f.p) == 2 && jg_program_ndstates(f.p) == 2,
           "Step with Time [1 2]: 2 zero crossings, 2 discrete states");
    fx_unload(&f);
    /* HitCrossing's output does not depend smoothly on u: D = 0 */
    st = fx_load(&f,
                 q("{'blocks':[{'name':'In1','type':'Inport','Port':1},{'name':'H','type':'HitCrossing'},"
                   "{'name':'Out1','type':'Outport','Port':1}],"
                   "'lines':[{'src':'In1:1','dst':'H:1'},{'src':'H:1','dst':'Out1:1'}]}"),
                 NULL);
    double worst = st ? INFINITY : 0;
    for (int pi = 0; !st && pi < NPATHS; pi++) {
        jg_lin_sys_t *s = NULL;
        jg_lin_inputs(f.l)[0] = 0.3;
        if (jg_lin_run(f.l, paths[pi].m, paths[pi].r, &s, NULL, &f.err)) {
            worst = INFINITY;
            break;
        }
        worst = fmax(worst, fabs(fx_entry(s->D, 0, 0)));
        jg_lin_sys_free(s);
    }
    tap_ok(worst == 0, "HitCrossing linearizes to D = 0 by every path");
    fx_unload(&f);
}

/* ------------------------------------------------------ bouncing ball */

/* The bouncing ball (graphs/bounce.json): impact times from
 * docs/references.md (section 2.3, "Bouncing ball, exact impact times"):
 * t1 = sqrt(2/9.81), t_k = t1 (1 + 2 sum_{j<k} 0.7^j), Zeno at 17/3 t1. */
static const double impact[4] = {0.45152364098573, 1.08365673836575, 1.52614990653177,
                                 1.83589512424798};
static const double t_zeno = 2.5586339655858;

static const char bounce[] =
    "{'name':'bounce','parameters':{'gravity':-9.81,'minus_e':-0.7,'h0':1,'v0':0},'blocks':["
    "{'name':'Gravity','type':'Constant','Value':'gravity'},"
    "{'name':'Velocity','type':'Integrator','InitialCondition':'v0','ExternalReset':'falling',"
    "'InitialConditionSource':'external','ShowStatePort':'on'},"
    "{'name':'Position','type':'Integrator','InitialCondition':'h0','LowerSaturationLimit':0},"
    "{'name':'CoR','type':'Gain','Gain':'minus_e'},"
    "{'name':'h','type':'Outport','Port':1},{'name':'v','type':'Outport','Port':2}],"
    "'lines':[{'src':'Gravity:1','dst':'Velocity:1'},"
    "{'src':'Velocity:1','dst':['Position:1','v:1']},{'src':'Velocity:2','dst':'CoR:1'},"
    "{'src':'CoR:1','dst':'Velocity:3'},{'src':'Position:1','dst':['Velocity:2','h:1']}]}";

/* Impacts: the logged major steps where v jumps from negative to positive;
 * the impact is the last row before the jump (the step placed at the
 * crossing logs its outputs before update() resets v). */
static void check_bounce(const char *json, const char *what, jg_zc_mode_t zc)
{
    run_t r;
    simulate(json, 2.0, 0, zc, &r);
    double at[16], hmin = INFINITY, vafter[16];
    int n = 0;
    for (int k = 1; !r.st && k < r.r.n; k++) {
        hmin = fmin(hmin, S(&r.r, k, 0));
        if (S(&r.r, k - 1, 1) < 0 && S(&r.r, k, 1) > 0 && n < 16) {
            at[n] = r.r.t[k - 1];
            vafter[n] = S(&r.r, k, 1) + 9.81 * (r.r.t[k] - r.r.t[k - 1]);   /* v just after */
            n++;
        }
    }
    double e = 0, ev = 0;
    for (int k = 0; k < n && k < 4; k++) {
        e = fmax(e, fabs(at[k] - impact[k]));
        /* impact velocity g (t_k - t_{k-1} ...): just before impact k the ball
         * falls for half its last flight; v after = 0.7 * that */
        double fall = k == 0 ? impact[0] : (impact[k] - impact[k - 1]) / 2;
        ev = fmax(ev, fabs(vafter[k] - 0.7 * 9.81 * fall));
    }
    tap_ok(!r.st && n == 4 && e < 1e-6,
           "%s: 4 impacts before t = 2 at the exact times (max error %.1e, reference README)", what, e);
    if (n != 4 || e >= 1e-6)
        for (int k = 0; k < n; k++) printf("#   impact %d at %.15g\n", k + 1, at[k]);
    tap_ok(!r.st && n == 4 && ev < 1e-6, "%s: rebound velocities 0.7 of the impact velocities (error %.1e)",
           what, ev);
    tap_ok(!r.st && hmin >= 0, "%s: h never below the ground (LowerSaturationLimit 0)", what);
    tap_ok(!r.st && r.stats.events >= 4, "%s: %ld zero-crossing events located", what, r.stats.events);
    rec_free(&r.r);
}

static void test_bounce(void)
{
    check_bounce(q(bounce), "bouncing ball, ode45 default tolerances", JG_ZC_MODE_NONADAPTIVE);
    check_bounce(q(bounce), "bouncing ball, adaptive location", JG_ZC_MODE_ADAPTIVE);
    /* the model file itself, when the tests run from the source tree */
    FILE *fp = fopen("graphs/bounce.json", "r");
    if (fp) {
        static char text[16384];
        size_t n = fread(text, 1, sizeof text - 1, fp);
        text[n] = 0;
        fclose(fp);
        check_bounce(text, "graphs/bounce.json", JG_ZC_MODE_NONADAPTIVE);
    }
    /* past the Zeno time the run must end, not hang */
    run_t r;
    simulate(q(bounce), 3.0, 0, JG_ZC_MODE_NONADAPTIVE, &r);
    tap_ok(!r.st, "bouncing ball to t = 3, past the Zeno time %.4f: the run completes (%ld events)",
           t_zeno, r.stats.events);
    rec_free(&r.r);
}

/* --------------------------------------------------- Integrator options */

static void test_resets(void)
{
    /* x' = 1 from 0, reset to 0 where sin t crosses zero in the direction */
    static const struct {
        const char *reset;
        double tstop, want;
        const char *what;
    } c[] = {
        {"rising", 7, 7 - 2 * PI, "rising: reset at 2 pi"},
        {"falling", 7, 7 - PI, "falling: reset at pi"},
        {"either", 7, 7 - 2 * PI, "either: reset at pi and 2 pi"},
        {"falling", 3, 3, "falling: no reset before pi"},
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        char json[2048];
        snprintf(json, sizeof json,
                 "{'blocks':[{'name':'One','type':'Constant','Value':1},{'name':'Sin','type':'SineWave'},"
                 "{'name':'I','type':'Integrator','ExternalReset':'%s','ShowStatePort':'on'},"
                 "{'name':'Out1','type':'Outport','Port':1},{'name':'Out2','type':'Outport','Port':2}],"
                 "'lines':[{'src':'One:1','dst':'I:1'},{'src':'Sin:1','dst':'I:2'},"
                 "{'src':'I:1','dst':'Out1:1'},{'src':'I:2','dst':'Out2:1'}]}",
                 c[k].reset);
        run_t r;
        simulate(q(json), c[k].tstop, 1, JG_ZC_MODE_NONADAPTIVE, &r);
        double x = r.r.n ? X(&r.r, r.r.n - 1, 0) : NAN;
        tap_ok(!r.st && fabs(x - c[k].want) < 1e-8, "Integrator ExternalReset %s: x(%g) = %.12g (error %.1e)",
               c[k].what, c[k].tstop, x, fabs(x - c[k].want));
        rec_free(&r.r);
    }

    /* the state port shows the value before the reset at the reset step */
    {
        run_t r;
        simulate(q("{'blocks':[{'name':'One','type':'Constant','Value':1},{'name':'Sin','type':'SineWave'},"
                   "{'name':'I','type':'Integrator','ExternalReset':'falling','InitialCondition':0.5,"
                   "'ShowStatePort':'on'},"
                   "{'name':'Out1','type':'Outport','Port':1},{'name':'Out2','type':'Outport','Port':2}],"
                   "'lines':[{'src':'One:1','dst':'I:1'},{'src':'Sin:1','dst':'I:2'},"
                   "{'src':'I:1','dst':'Out1:1'},{'src':'I:2','dst':'Out2:1'}]}"),
                 4, 1, JG_ZC_MODE_NONADAPTIVE, &r);
        int k = 1;
        while (k < r.r.n && !(S(&r.r, k, 1) < S(&r.r, k - 1, 1))) k++;
        /* row k - 1: the reset step at pi, y = state = 0.5 + pi; row k: after */
        int ok = !r.st && k < r.r.n && fabs(r.r.t[k - 1] - PI) < 1e-8 &&
                 fabs(S(&r.r, k - 1, 1) - (0.5 + PI)) < 1e-8 && S(&r.r, k - 1, 0) == S(&r.r, k - 1, 1) &&
                 fabs(S(&r.r, k, 1) - (0.5 + r.r.t[k] - r.r.t[k - 1])) < 1e-8;
        tap_ok(ok, "Integrator state port at the reset step (t = pi): the value before the reset, "
                   "0.5 + pi; after it the state restarts from InitialCondition 0.5");
        if (!ok && k < r.r.n)
            printf("#   row t = %.15g: y %.15g state %.15g; next t = %.15g state %.15g\n", r.r.t[k - 1],
                   S(&r.r, k - 1, 0), S(&r.r, k - 1, 1), r.r.t[k], S(&r.r, k, 1));
        rec_free(&r.r);
    }

    /* a reset input that jumps at a major step (a Step, held over minor
     * steps): the crossing is inside the major step, seen against the value
     * the block kept from the last one */
    {
        run_t r;
        simulate(q("{'blocks':[{'name':'One','type':'Constant','Value':1},"
                   "{'name':'R','type':'Step','Time':1.5,'Before':-1,'After':1},"
                   "{'name':'I','type':'Integrator','ExternalReset':'rising'},"
                   "{'name':'Out1','type':'Outport','Port':1}],"
                   "'lines':[{'src':'One:1','dst':'I:1'},{'src':'R:1','dst':'I:2'},"
                   "{'src':'I:1','dst':'Out1:1'}]}"),
                 4, 0, JG_ZC_MODE_NONADAPTIVE, &r);
        double x = r.r.n ? X(&r.r, r.r.n - 1, 0) : NAN;
        tap_ok(!r.st && fabs(x - 2.5) < 1e-9,
               "Integrator reset rising by a Step -1 -> 1 at t = 1.5: x(4) = 2.5 (got %.12g)", x);
        rec_free(&r.r);
    }

    /* a vector state with a vector reset: each element resets on its own
     * (sin t falls through 0 at pi, sin(t - 1) at pi + 1) */
    {
        run_t r;
        simulate(q("{'blocks':[{'name':'One','type':'Constant','Value':[1,1]},"
                   "{'name':'Sin','type':'SineWave','Phase':[0,-1]},"
                   "{'name':'I','type':'Integrator','InitialCondition':[0,0],'ExternalReset':'falling'},"
                   "{'name':'Out1','type':'Outport','Port':1}],"
                   "'lines':[{'src':'One:1','dst':'I:1'},{'src':'Sin:1','dst':'I:2'},"
                   "{'src':'I:1','dst':'Out1:1'}]}"),
                 5, 1, JG_ZC_MODE_NONADAPTIVE, &r);
        double x1 = r.r.n ? X(&r.r, r.r.n - 1, 0) : NAN, x2 = r.r.n ? X(&r.r, r.r.n - 1, 1) : NAN;
        tap_ok(!r.st && fabs(x1 - (5 - PI)) < 1e-8 && fabs(x2 - (4 - PI)) < 1e-8,
               "Integrator vector reset: element 1 reset at pi, element 2 at pi + 1 (x(5) = %.10g, %.10g)",
               x1, x2);
        rec_free(&r.r);
    }

    /* level: the state is reset at every major step while the reset input is
     * nonzero, and once more where it falls to zero (Step 1 -> 0 at t = 2) */
    {
        run_t r;
        simulate(q("{'blocks':[{'name':'One','type':'Constant','Value':1},"
                   "{'name':'R','type':'Step','Time':2,'Before':1,'After':0},"
                   "{'name':'I','type':'Integrator','ExternalReset':'level','InitialCondition':-1},"
                   "{'name':'Out1','type':'Outport','Port':1}],"
                   "'lines':[{'src':'One:1','dst':'I:1'},{'src':'R:1','dst':'I:2'},"
                   "{'src':'I:1','dst':'Out1:1'}]}"),
                 4, 1, JG_ZC_MODE_NONADAPTIVE, &r);
        double x = r.r.n ? X(&r.r, r.r.n - 1, 0) : NAN;
        tap_ok(!r.st && fabs(x - 1) < 1e-8,
               "Integrator ExternalReset level (Step 1 -> 0 at t = 2): held at -1 until 2, x(4) = 1 "
               "(got %.12g)", x);
        rec_free(&r.r);
    }

    /* external IC: loaded at t0 and at each reset */
    {
        run_t r;
        simulate(q("{'blocks':[{'name':'One','type':'Constant','Value':1},"
                   "{'name':'X0','type':'Constant','Value':5},"
                   "{'name':'I','type':'Integrator','InitialConditionSource':'external'},"
                   "{'name':'Out1','type':'Outport','Port':1}],"
                   "'lines':[{'src':'One:1','dst':'I:1'},{'src':'X0:1','dst':'I:2'},"
                   "{'src':'I:1','dst':'Out1:1'}]}"),
                 2, 1, JG_ZC_MODE_NONADAPTIVE, &r);
        double x = r.r.n ? X(&r.r, r.r.n - 1, 0) : NAN, y0 = r.r.n ? S(&r.r, 0, 0) : NAN;
        tap_ok(!r.st && fabs(x - 7) < 1e-9 && y0 == 5,
               "Integrator InitialConditionSource external: x(0) = 5 from the IC port, x(2) = 7 "
               "(got y(0) = %g, x(2) = %.12g)", y0, x);
        rec_free(&r.r);

        simulate(q("{'blocks':[{'name':'Zero','type':'Constant','Value':0},{'name':'Clk','type':'Clock'},"
                   "{'name':'Sin','type':'SineWave'},"
                   "{'name':'I','type':'Integrator','ExternalReset':'falling',"
                   "'InitialConditionSource':'external'},"
                   "{'name':'Out1','type':'Outport','Port':1}],"
                   "'lines':[{'src':'Zero:1','dst':'I:1'},{'src':'Sin:1','dst':'I:2'},"
                   "{'src':'Clk:1','dst':'I:3'},{'src':'I:1','dst':'Out1:1'}]}"),
                 5, 1, JG_ZC_MODE_NONADAPTIVE, &r);
        x = r.r.n ? X(&r.r, r.r.n - 1, 0) : NAN;
        tap_ok(!r.st && fabs(x - PI) < 1e-8,
               "Integrator reset falling with the IC port = t: x := pi at the crossing (got %.12g)", x);
        rec_free(&r.r);
    }
}

static void test_limits(void)
{
    /* x' = 1, x(0) = 0, upper limit 2: reaches it at t = 2 and stays */
    run_t r;
    simulate(q("{'blocks':[{'name':'One','type':'Constant','Value':1},"
               "{'name':'I','type':'Integrator','UpperSaturationLimit':2,'ShowSaturationPort':'on'},"
               "{'name':'Out1','type':'Outport','Port':1},{'name':'Out2','type':'Outport','Port':2}],"
               "'lines':[{'src':'One:1','dst':'I:1'},{'src':'I:1','dst':'Out1:1'},"
               "{'src':'I:2','dst':'Out2:1'}]}"),
             3, 0, JG_ZC_MODE_NONADAPTIVE, &r);
    int last = r.r.n - 1;
    tap_ok(!r.st && last > 0 && X(&r.r, last, 0) == 2 && S(&r.r, last, 0) == 2 && S(&r.r, last, 1) == 1 &&
               step_at(&r.r, 2, 1e-9),
           "Integrator of 1 with UpperSaturationLimit 2: a major step at t = 2, then x = y = 2 and "
           "saturation port +1");
    rec_free(&r.r);

    /* x' = sin t, x(0) = 0 (x = 1 - cos t) within [-0.25, 1.5]: the upper
     * limit from t = 2 pi/3 until u turns negative at pi, then x = 0.5 - cos t
     * down to the lower limit at 2 pi - acos(0.75), held until 2 pi, then
     * x = 0.75 - cos t */
    simulate(q("{'blocks':[{'name':'Sin','type':'SineWave'},"
               "{'name':'I','type':'Integrator','UpperSaturationLimit':1.5,'LowerSaturationLimit':-0.25,"
               "'ShowSaturationPort':'on','ShowStatePort':'on'},"
               "{'name':'Out1','type':'Outport','Port':1},{'name':'Out2','type':'Outport','Port':2},"
               "{'name':'Out3','type':'Outport','Port':3}],"
               "'lines':[{'src':'Sin:1','dst':'I:1'},{'src':'I:1','dst':'Out1:1'},"
               "{'src':'I:2','dst':'Out2:1'},{'src':'I:3','dst':'Out3:1'}]}"),
             7, 1, JG_ZC_MODE_NONADAPTIVE, &r);
    double worst = 0, t_up = 2 * PI / 3, t_lo = 2 * PI - acos(0.75);
    int sat_ok = 1;
    for (int k = 0; !r.st && k < r.r.n; k++) {
        double t = r.r.t[k], want, sat;
        if (t < t_up) want = 1 - cos(t), sat = 0;
        else if (t <= PI) want = 1.5, sat = 1;
        else if (t < t_lo) want = 0.5 - cos(t), sat = 0;
        else if (t <= 2 * PI) want = -0.25, sat = -1;
        else want = 0.75 - cos(t), sat = 0;
        /* rows just after a switch may still show the old side within the location tolerance */
        int near = fabs(t - t_up) < 1e-6 || fabs(t - PI) < 1e-6 || fabs(t - t_lo) < 1e-6 ||
                   fabs(t - 2 * PI) < 1e-6;
        if (!near) {
            worst = fmax(worst, fabs(S(&r.r, k, 0) - want));
            sat_ok &= S(&r.r, k, 1) == sat;
        }
    }
    tap_ok(!r.st && worst < 1e-7,
           "Integrator of sin t within [-0.25, 1.5]: y follows the exact clipped solution (error %.1e)", worst);
    tap_ok(!r.st && sat_ok, "Integrator saturation port: +1 on [2pi/3, pi], -1 on [2pi - acos 0.75, 2pi]");
    tap_ok(!r.st && step_at(&r.r, t_up, 1e-6) && step_at(&r.r, t_lo, 1e-6),
           "Integrator limits reached at major steps placed at 2pi/3 and 2pi - acos 0.75");
    rec_free(&r.r);
}

/* --------------------------------------------- nonlinear blocks on sines */

/* In1-free model: Sin (amplitude 1, frequency 1) -> block B -> Integrator I
 * and Out1.  B's extra inputs come from Constants (name:port list). */
static const char *sine_model(const char *blk, const char *extra_blocks, const char *extra_lines)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{'blocks':[{'name':'Sin','type':'SineWave'},{'name':'B',%s},"
             "{'name':'I','type':'Integrator'},{'name':'Out1','type':'Outport','Port':1}%s],"
             "'lines':[{'src':'Sin:1','dst':'B:1'},{'src':'B:1','dst':['I:1','Out1:1']}%s]}",
             blk, extra_blocks, extra_lines);
    return q(buf);
}

/* Integral of f over [0, T], f smooth between the breakpoints (Simpson on
 * each piece, 2000 panels: exact to ~1e-14 for these functions). */
static double integral(double (*f)(double), const double *bp, int nbp, double T)
{
    double a = 0, sum = 0;
    for (int k = 0; k <= nbp; k++) {
        double b = k < nbp ? fmin(bp[k], T) : T;
        if (b > a) {
            int n = 2000;
            double h = (b - a) / n, s = 0;
            /* evaluate just inside the piece: the pieces' own branch */
            for (int i = 0; i <= n; i++) {
                double t = a + i * h;
                if (i == 0) t += 1e-13;
                if (i == n) t -= 1e-13;
                s += f(t) * (i == 0 || i == n ? 1 : i % 2 ? 4 : 2);
            }
            sum += s * h / 3;
        }
        a = fmax(a, b);
    }
    return sum;
}

static double f_sat(double t) { return fmax(-0.5, fmin(0.5, sin(t))); }
static double f_dz(double t) { return sin(t) - f_sat(t); }
static double f_sign(double t) { return sin(t) > 0 ? 1 : sin(t) < 0 ? -1 : 0; }
static double f_abs(double t) { return fabs(sin(t)); }
static double f_max(double t) { return fmax(sin(t), cos(t)); }
static double f_switch(double t) { return sin(t) >= 0.5 ? 1 : -1; }

typedef struct {
    const char *what, *blk, *xb, *xl;
    double (*f)(double);
    double kinks[8];
    int nk;
} kcase_t;

static void test_kinks(void)
{
    const double s6 = PI / 6;
    const kcase_t c[] = {
        {"Saturation [-0.5, 0.5]", "'type':'Saturation'", "", "", f_sat,
         {s6, 5 * s6, 7 * s6, 11 * s6, 13 * s6}, 5},
        {"DeadZone [-0.5, 0.5]", "'type':'DeadZone'", "", "", f_dz, {s6, 5 * s6, 7 * s6, 11 * s6, 13 * s6}, 5},
        {"Sign", "'type':'Sign'", "", "", f_sign, {PI, 2 * PI}, 2},
        {"Abs", "'type':'Abs'", "", "", f_abs, {PI, 2 * PI}, 2},
        {"MinMax max(sin, cos)", "'type':'MinMax','Function':'max','Inputs':2",
         ",{'name':'Cos','type':'SineWave','Phase':1.5707963267948966}", ",{'src':'Cos:1','dst':'B:2'}",
         f_max, {PI / 4, 5 * PI / 4}, 2},
        {"Switch (u2 = sin >= 0.5)", "'type':'Switch','Threshold':0.5",
         "", "", NULL, {s6, 5 * s6, 13 * s6}, 3},
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        const char *json;
        double (*f)(double) = c[k].f;
        if (!f) {   /* Switch: u1 = 1, u2 = sin, u3 = -1 (the sine drives u2 here) */
            static char buf[4096];
            snprintf(buf, sizeof buf,
                     "{'blocks':[{'name':'S2','type':'SineWave'},{'name':'P','type':'Constant','Value':1},"
                     "{'name':'M','type':'Constant','Value':-1},{'name':'B',%s},"
                     "{'name':'I','type':'Integrator'},{'name':'Out1','type':'Outport','Port':1}],"
                     "'lines':[{'src':'P:1','dst':'B:1'},{'src':'S2:1','dst':'B:2'},"
                     "{'src':'M:1','dst':'B:3'},{'src':'B:1','dst':['I:1','Out1:1']}]}",
                     c[k].blk);
            json = q(buf);
            f = f_switch;
        } else {
            json = sine_model(c[k].blk, c[k].xb, c[k].xl);
        }
        run_t r;
        simulate(json, 7, 1, JG_ZC_MODE_NONADAPTIVE, &r);
        double x = r.r.n ? X(&r.r, r.r.n - 1, 0) : NAN;
        double want = integral(f, c[k].kinks, c[k].nk, 7);
        int at = 1;
        for (int i = 0; i < c[k].nk; i++) at &= step_at(&r.r, c[k].kinks[i], 1e-6);
        tap_ok(!r.st && at, "%s: a major step at each switch or kink time (%d, exact from the sine)",
               c[k].what, c[k].nk);
        tap_ok(!r.st && fabs(x - want) < 1e-8, "%s: its integral over [0, 7] is exact (error %.1e)", c[k].what,
               fabs(x - want));
        rec_free(&r.r);
    }
}

static void test_relay(void)
{
    /* sin t through a Relay on at 0.5, off at -0.5: on at pi/6, off at 7pi/6,
     * on again at 13pi/6; the output (1/0) switches at those major steps and
     * its integral over [0, 7] is the time on */
    run_t r;
    simulate(sine_model("'type':'Relay','OnSwitchValue':0.5,'OffSwitchValue':-0.5", "", ""), 7, 1,
             JG_ZC_MODE_NONADAPTIVE, &r);
    double at[8], want[3] = {PI / 6, 7 * PI / 6, 13 * PI / 6};
    int n = r.st ? 0 : changes(&r.r, 0, at, 8), ok = n == 3;
    for (int k = 0; ok && k < 3; k++) ok = at[k] >= want[k] - 1e-12 && at[k] - want[k] < 1e-6;
    tap_ok(!r.st && ok && S(&r.r, 0, 0) == 0,
           "Relay with hysteresis on sin t: off at t0, on at pi/6, off at 7pi/6, on at 13pi/6");
    if (!ok)
        for (int k = 0; k < n; k++) printf("#   switch at %.15g\n", at[k]);
    double x = r.r.n ? X(&r.r, r.r.n - 1, 0) : NAN, on = PI + (7 - 13 * PI / 6);
    tap_ok(!r.st && fabs(x - on) < 1e-8, "Relay: the integral of its output is the time on (error %.1e)",
           fabs(x - on));
    rec_free(&r.r);

    /* starts on when u >= OnSwitchValue at t0 (cos t = 1), off at acos(-0.5) */
    simulate(q("{'blocks':[{'name':'Cos','type':'SineWave','Phase':1.5707963267948966},"
               "{'name':'B','type':'Relay','OnSwitchValue':0.5,'OffSwitchValue':-0.5,'OnOutputValue':3,"
               "'OffOutputValue':-2},{'name':'Out1','type':'Outport','Port':1}],"
               "'lines':[{'src':'Cos:1','dst':'B:1'},{'src':'B:1','dst':'Out1:1'}]}"),
             3, 1, JG_ZC_MODE_NONADAPTIVE, &r);
    n = r.st ? 0 : changes(&r.r, 0, at, 8);
    tap_ok(!r.st && S(&r.r, 0, 0) == 3 && n == 1 && at[0] - 2 * PI / 3 >= -1e-12 && at[0] - 2 * PI / 3 < 1e-6,
           "Relay on cos t: on at t0 (u = 1 >= 0.5), off where cos t = -0.5 (t = 2pi/3)");
    rec_free(&r.r);
}

static void test_hitcrossing(void)
{
    static const struct {
        const char *dir;
        double at[4];
        int n;
    } c[] = {{"rising", {PI / 6, 13 * PI / 6}, 2},
             {"falling", {5 * PI / 6}, 1},
             {"either", {PI / 6, 5 * PI / 6, 13 * PI / 6}, 3}};
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        char blk[256];
        snprintf(blk, sizeof blk, "'type':'HitCrossing','HitCrossingOffset':0.5,'HitCrossingDirection':'%s'",
                 c[k].dir);
        run_t r;
        simulate(sine_model(blk, "", ""), 7, 0, JG_ZC_MODE_NONADAPTIVE, &r);
        int n = 0, ok = 1;
        for (int i = 0; !r.st && i < r.r.n; i++) {
            double y = S(&r.r, i, 0);
            if (y == 0) continue;
            ok &= y == 1 && n < c[k].n && r.r.t[i] - c[k].at[n] >= -1e-12 && r.r.t[i] - c[k].at[n] < 1e-6;
            n++;
        }
        double x = r.r.n ? X(&r.r, r.r.n - 1, 0) : NAN;
        tap_ok(!r.st && ok && n == c[k].n && x == 0,
               "HitCrossing offset 0.5 %s on sin t: output 1 at exactly the %d crossing steps, 0 elsewhere "
               "(and in minor steps: its integral is 0)",
               c[k].dir, c[k].n);
        if (!(ok && n == c[k].n))
            for (int i = 0; i < r.r.n; i++)
                if (S(&r.r, i, 0) != 0) printf("#   output %g at t = %.15g\n", S(&r.r, i, 0), r.r.t[i]);
        rec_free(&r.r);
    }
    /* without an output port it only makes the solver step on the crossing */
    run_t r;
    simulate(q("{'blocks':[{'name':'Sin','type':'SineWave'},"
               "{'name':'H','type':'HitCrossing','HitCrossingOffset':0.5,'ShowOutputPort':'off'},"
               "{'name':'I','type':'Integrator'},{'name':'Out1','type':'Outport','Port':1}],"
               "'lines':[{'src':'Sin:1','dst':['H:1','I:1']},{'src':'I:1','dst':'Out1:1'}]}"),
             3, 0, JG_ZC_MODE_NONADAPTIVE, &r);
    tap_ok(!r.st && step_at(&r.r, PI / 6, 1e-6) && step_at(&r.r, 5 * PI / 6, 1e-6),
           "HitCrossing without output port: major steps at pi/6 and 5pi/6");
    rec_free(&r.r);
}

static void test_step(void)
{
    /* Step at 1.2345 from -1 to 2 into an Integrator: exact at default
     * tolerances, since the output is held over minor steps and switches at
     * the major step placed at Time */
    run_t r;
    simulate(q("{'blocks':[{'name':'S','type':'Step','Time':1.2345,'Before':-1,'After':2},"
               "{'name':'I','type':'Integrator'},{'name':'Out1','type':'Outport','Port':1}],"
               "'lines':[{'src':'S:1','dst':['I:1','Out1:1']}]}"),
             3, 0, JG_ZC_MODE_NONADAPTIVE, &r);
    double x = r.r.n ? X(&r.r, r.r.n - 1, 0) : NAN, want = -1.2345 + 2 * (3 - 1.2345);
    double at[4];
    int n = r.st ? 0 : changes(&r.r, 0, at, 4);
    tap_ok(!r.st && n == 1 && at[0] >= 1.2345 && at[0] - 1.2345 < 1e-9,
           "Step at 1.2345: its output changes at a major step at Time");
    tap_ok(!r.st && fabs(x - want) < 1e-9,
           "Step into an Integrator, ode45 default tolerances: x(3) = %.6g exactly (error %.1e)", want,
           fabs(x - want));
    rec_free(&r.r);

    /* without location the switch waits for the first major step after Time */
    simulate(q("{'blocks':[{'name':'S','type':'Step','Time':1.2345,'Before':-1,'After':2},"
               "{'name':'I','type':'Integrator'},{'name':'Out1','type':'Outport','Port':1}],"
               "'lines':[{'src':'S:1','dst':['I:1','Out1:1']}]}"),
             3, 0, JG_ZC_MODE_OFF, &r);
    n = r.st ? 0 : changes(&r.r, 0, at, 4);
    tap_ok(!r.st && n == 1 && at[0] >= 1.2345, "Step with zero-crossing location off: switches at the first "
                                               "major step after Time (t = %.6g)", n ? at[0] : NAN);
    rec_free(&r.r);
}

int main(void)
{
    test_structure();
    test_values();
    test_linearization();
    test_errors();
    test_counts();
    test_bounce();
    test_resets();
    test_limits();
    test_kinks();
    test_relay();
    test_hitcrossing();
    test_step();
    return tap_done();
}
