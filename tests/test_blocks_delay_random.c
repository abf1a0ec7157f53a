/* Delay, Backlash, CombinatorialLogic, RandomNumber, UniformRandomNumber,
 * SampleTimeMath and Assignment against values derived by hand (sequences,
 * the play operator on a sine computed here on a fine grid, truth-table rows,
 * splitmix64's published first output), their linearizations and setup
 * errors; the Simulink BlockTypes that import through templates (DotProduct,
 * ManualSwitch, Assertion, DataTypeDuplicate, ToFile) and the refused ones
 * from small hand-written MDL files; and, where the external corpus is
 * present beside the repository, that the library-coverage model refuses
 * exactly the BlockTypes that remain, none for lack of a reason.  Runs from
 * the repository root. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jacgraph/jacgraph.h"
#include "blocks/random.h"   /* private: the draws are checked against the generator itself (jg__rand_*) */
#include "testlib.h"

#define NLOG 4096
#define MAXSIG 8

static char tmpdir[256];
static double max_step;   /* the solvers' largest step, 0: theirs */

/* JSON is written with ' for " (readable in C strings) and converted here. */
static char *qdup(const char *s)
{
    char *b = strdup(s);
    for (char *c = b; *c; c++)
        if (*c == '\'') *c = '"';
    return b;
}

typedef struct {
    int n, nsig;
    double t[NLOG], y[NLOG][MAXSIG];
    long events;
} rec_t;

static int record(double t, const double *x, const double *sig, void *user)
{
    (void)x;
    rec_t *r = user;
    if (r->n >= NLOG) return 1;
    r->t[r->n] = t;
    for (int k = 0; k < r->nsig; k++) r->y[r->n][k] = sig[k];
    r->n++;
    return 0;
}

/* Compile and simulate a model (logging the root Outports). */
static jg_status_t sim_model(jg_model_t *m, const char *solver, double h, double tstop, double out_step,
                             rec_t *r, jg_error_t *err)
{
    jg_program_t *p = NULL;
    jg_sim_t *s = NULL;
    memset(r, 0, sizeof *r);
    jg_status_t st = jg_program_compile(m, &p, err);
    jg_sim_opts_t o = {.solver = (jg_solver_method_t)jg_solver_method_parse(solver), .t0 = 0, .tstop = tstop, .out_step = out_step};
    o.so.fixed_step = h;
    o.so.rtol = 1e-10;
    o.so.atol = 1e-12;
    o.so.max_step = max_step;
    if (!st) st = jg_sim_create(p, &o, &s, err);
    if (!st) {
        r->nsig = (int)jg_sim_nlogged(s);
        if (r->nsig > MAXSIG) st = JG_INTERNAL;
    }
    if (!st) st = jg_sim_run(s, tstop, record, r, err);
    if (!st) {
        jg_sim_stats_t ss;
        jg_sim_stats(s, &ss);
        r->events = ss.events;
    }
    jg_sim_free(s);
    jg_program_free(p);
    return st;
}

static jg_status_t sim_json(const char *json, const char *solver, double h, double tstop,
                            double out_step, rec_t *r, jg_error_t *err)
{
    char *txt = qdup(json);
    jg_model_t *m = NULL;
    jg_status_t st = jg_model_parse(txt, "<test>", &m, err);
    free(txt);
    if (!st) st = sim_model(m, solver, h, tstop, out_step, r, err);
    jg_model_free(m);
    return st;
}

/* Compile only: the error of a bad setting. */
static jg_status_t compile_json(const char *json, jg_error_t *err)
{
    char *txt = qdup(json);
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    memset(err, 0, sizeof *err);
    jg_status_t st = jg_model_parse(txt, "<test>", &m, err);
    free(txt);
    if (!st) st = jg_program_compile(m, &p, err);
    jg_program_free(p);
    jg_model_free(m);
    return st;
}

static void expect_error(const char *json, const char *want, const char *what)
{
    jg_error_t err;
    jg_status_t st = compile_json(json, &err);
    tap_ok(st != JG_OK && strstr(err.msg, want), "%s: error names '%s'", what, want);
    if (st == JG_OK || !strstr(err.msg, want)) printf("#   got: %s\n", st ? err.msg : "(compiled)");
}

/* The value logged at time t (signal k), NAN when not logged. */
static double at(const rec_t *r, double t, int k)
{
    for (int i = r->n - 1; i >= 0; i--)
        if (fabs(r->t[i] - t) < 1e-9) return r->y[i][k];
    return NAN;
}

/* D(0, 0) of the linearization from the root Inport to the root Outport at
 * input u, by one path. */
static double lin_d(const char *json, double u, jg_lin_method_t meth, jg_error_t *err)
{
    char *txt = qdup(json);
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *s = NULL;
    double d = NAN;
    jg_status_t st = jg_model_parse(txt, "<test>", &m, err);
    free(txt);
    if (!st) st = jg_program_compile(m, &p, err);
    if (!st) st = jg_lin_create(p, NULL, &l, err);
    if (!st) {
        jg_lin_inputs(l)[0] = u;
        st = jg_lin_run(l, meth, JG_GRAPH_REDUCE_NONE, &s, NULL, err);
    }
    if (!st) {
        d = 0;
        for (int64_t k = s->D->p[0]; k < s->D->p[1]; k++)
            if (s->D->i[k] == 0) d = s->D->x[k];
    }
    jg_lin_sys_free(s);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
    return d;
}

/* ------------------------------------------------------------------ Delay */

static void test_delay(void)
{
    rec_t r;
    jg_error_t err;
    /* u(k) = k at T = 1; N = 2, IC 0.5: 0.5 0.5 0 1 2 3 */
    jg_status_t st = sim_json(
        "{'blocks':[{'name':'K','type':'DigitalClock','SampleTime':1},"
        "{'name':'D','type':'Delay','DelayLength':2,'InitialCondition':0.5},"
        "{'name':'Y','type':'Outport','Port':1}],"
        "'lines':[{'src':'K:1','dst':'D:1'},{'src':'D:1','dst':'Y:1'}]}",
        "discrete", 0, 5, 1, &r, &err);
    if (st) printf("#   %s\n", err.msg);
    static const double want[6] = {0.5, 0.5, 0, 1, 2, 3};
    int ok = !st;
    for (int k = 0; ok && k < 6; k++) ok = at(&r, k, 0) == want[k];
    tap_ok(ok, "Delay N=2, IC 0.5 of u(k) = k: 0.5 0.5 0 1 2 3");

    /* a vector: [k, 10 k], N = 1, IC per element [7 8] */
    st = sim_json("{'blocks':[{'name':'K','type':'DigitalClock','SampleTime':1},"
                  "{'name':'G','type':'Gain','Gain':[1,10]},"
                  "{'name':'D','type':'Delay','DelayLength':1,'InitialCondition':[7,8]},"
                  "{'name':'Y','type':'Outport','Port':1}],"
                  "'lines':[{'src':'K:1','dst':'G:1'},{'src':'G:1','dst':'D:1'},"
                  "{'src':'D:1','dst':'Y:1'}]}",
                  "discrete", 0, 3, 1, &r, &err);
    if (st) printf("#   %s\n", err.msg);
    tap_ok(!st && r.nsig == 2 && at(&r, 0, 0) == 7 && at(&r, 0, 1) == 8 && at(&r, 1, 0) == 0 &&
               at(&r, 1, 1) == 0 && at(&r, 3, 0) == 2 && at(&r, 3, 1) == 20,
           "Delay N=1 of [k, 10k], IC [7 8]: [7 8], [0 0], [1 10], [2 20]");

    /* N = 0 is direct feedthrough; N >= 1 has none */
    const char *lin0 = "{'blocks':[{'name':'U','type':'Inport','Port':1},"
                       "{'name':'D','type':'Delay','DelayLength':0,'SampleTime':0.1},"
                       "{'name':'Y','type':'Outport','Port':1}],"
                       "'lines':[{'src':'U:1','dst':'D:1'},{'src':'D:1','dst':'Y:1'}]}";
    const char *lin3 = "{'blocks':[{'name':'U','type':'Inport','Port':1},"
                       "{'name':'D','type':'Delay','DelayLength':3,'SampleTime':0.1},"
                       "{'name':'Y','type':'Outport','Port':1}],"
                       "'lines':[{'src':'U:1','dst':'D:1'},{'src':'D:1','dst':'Y:1'}]}";
    double dg = lin_d(lin0, 2, JG_LIN_GRAPH, &err), dp = lin_d(lin0, 2, JG_LIN_PERTURB, &err);
    tap_ok(dg == 1 && fabs(dp - 1) < 1e-9, "Delay N=0: D = 1 (graph %g, perturbation %.17g)", dg, dp);
    tap_ok(lin_d(lin3, 2, JG_LIN_GRAPH, &err) == 0 && lin_d(lin3, 2, JG_LIN_PERTURB, &err) == 0,
           "Delay N=3: D = 0 (its states are held)");

    static const char *const bad[][3] = {
        {"'DelayLengthSource':'Input port'", "DelayLengthSource", "delay length from a port"},
        {"'ExternalReset':'Rising'", "ExternalReset", "external reset"},
        {"'ShowEnablePort':'on'", "ShowEnablePort", "enable port"},
        {"'InitialConditionSource':'Input port'", "InitialConditionSource", "IC from a port"},
        {"'DelayLength':1.5", "DelayLength", "non-integer length"},
        {"'DelayLength':-1", "DelayLength", "negative length"},
        {"'InitialCondition':[1,2,3]", "InitialCondition", "IC of the wrong width"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{'blocks':[{'name':'K','type':'DigitalClock','SampleTime':1},"
                 "{'name':'G','type':'Gain','Gain':[1,10]},"
                 "{'name':'D','type':'Delay',%s},{'name':'Y','type':'Outport','Port':1}],"
                 "'lines':[{'src':'K:1','dst':'G:1'},{'src':'G:1','dst':'D:1'},"
                 "{'src':'D:1','dst':'Y:1'}]}",
                 bad[k][0]);
        char what[128];
        snprintf(what, sizeof what, "Delay: %s", bad[k][2]);
        expect_error(json, bad[k][1], what);
    }
}

/* --------------------------------------------------------------- Backlash */

/* The play operator applied along u(t) = sin t on a fine grid (exact up to
 * the grid: between grid points u is monotone except at its turns). */
static double play_ref(double t, double w, double y0)
{
    double y = y0, h = w / 2;
    int n = (int)ceil(t / 1e-5);
    for (int i = 0; i <= n; i++) {
        double u = sin(t * i / n);
        y = fmax(u - h, fmin(y, u + h));
    }
    return y;
}

static void test_backlash(void)
{
    rec_t r;
    jg_error_t err;
    const char *sine = "{'blocks':[{'name':'S','type':'SineWave','Amplitude':1,'Frequency':1},"
                       "{'name':'B','type':'Backlash','BacklashWidth':1,'InitialOutput':0},"
                       "{'name':'Y','type':'Outport','Port':1}],"
                       "'lines':[{'src':'S:1','dst':'B:1'},{'src':'B:1','dst':'Y:1'}]}";
    /* variable steps (at most 1e-3: the output follows the input's value at
     * major steps, so a turn inside a step is missed by up to its excursion,
     * (1e-3)^2/8 here, as in Simulink) */
    max_step = 1e-3;
    jg_status_t st = sim_json(sine, "ode45", 0, 7.5, 0.05, &r, &err);
    max_step = 0;
    if (st) printf("#   %s\n", err.msg);
    double worst = 0;
    for (int i = 0; !st && i < r.n; i++) worst = fmax(worst, fabs(r.y[i][0] - play_ref(r.t[i], 1, 0)));
    tap_ok(!st && r.n > 100 && worst < 1e-6,
           "Backlash width 1 on sin t: the play operator (0 until pi/6, sin t - 1/2 to pi/2, held "
           "1/2 to pi, sin t + 1/2 ...), max error %.2g",
           worst);
    tap_ok(!st && r.events >= 3, "Backlash: engagements at pi/6, pi, 2 pi located as events (%ld)",
           r.events);
    tap_near(at(&r, 2.5, 0), 0.5, 1e-6, "Backlash: held at 1/2 while the sine turns (t = 2.5)");
    /* fixed steps: exactly y(k) = play(u(k), y(k-1)) on the grid */
    st = sim_json(sine, "ode4", 0.1, 7.5, 0, &r, &err);
    if (st) printf("#   %s\n", err.msg);
    double y = 0;
    worst = 0;
    for (int i = 0; !st && i < r.n; i++) {
        y = fmax(sin(r.t[i]) - 0.5, fmin(y, sin(r.t[i]) + 0.5));
        worst = fmax(worst, fabs(r.y[i][0] - y));
    }
    tap_ok(!st && r.n > 70 && worst < 1e-12,
           "Backlash, ode4 h = 0.1: y(k) = max(u(k) - 1/2, min(y(k-1), u(k) + 1/2)) (error %.2g)", worst);

    /* an input outside the band at t0 starts engaged */
    static const double u0[3] = {3, -3, 0.2}, y0[3] = {2.5, -2.5, 0};
    for (int k = 0; k < 3; k++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{'blocks':[{'name':'C','type':'Constant','Value':%g,'SampleTime':0},"
                 "{'name':'B','type':'Backlash','BacklashWidth':1},"
                 "{'name':'Y','type':'Outport','Port':1}],"
                 "'lines':[{'src':'C:1','dst':'B:1'},{'src':'B:1','dst':'Y:1'}]}",
                 u0[k]);
        st = sim_json(json, "ode4", 0.1, 0.5, 0.1, &r, &err);
        if (st) printf("#   %s\n", err.msg);
        tap_ok(!st && at(&r, 0, 0) == y0[k] && at(&r, 0.5, 0) == y0[k],
               "Backlash: constant input %g, InitialOutput 0 -> %g", u0[k], y0[k]);
    }
    /* vector parameters: per-element widths and initial outputs */
    st = sim_json("{'blocks':[{'name':'C','type':'Constant','Value':1,'SampleTime':0},"
                  "{'name':'B','type':'Backlash','BacklashWidth':[1,4],'InitialOutput':[0,5]},"
                  "{'name':'Y','type':'Outport','Port':1}],"
                  "'lines':[{'src':'C:1','dst':'B:1'},{'src':'B:1','dst':'Y:1'}]}",
                  "ode4", 0.1, 0.2, 0.1, &r, &err);
    tap_ok(!st && r.nsig == 2 && at(&r, 0.1, 0) == 0.5 && at(&r, 0.1, 1) == 3,
           "Backlash: scalar input 1 against widths [1 4], outputs [0 5] -> [0.5 3]");

    const char *lin = "{'blocks':[{'name':'U','type':'Inport','Port':1},"
                      "{'name':'B','type':'Backlash','BacklashWidth':1},"
                      "{'name':'Y','type':'Outport','Port':1}],"
                      "'lines':[{'src':'U:1','dst':'B:1'},{'src':'B:1','dst':'Y:1'}]}";
    tap_ok(lin_d(lin, 0.2, JG_LIN_GRAPH, &err) == 0 && lin_d(lin, 0.2, JG_LIN_PERTURB, &err) == 0,
           "Backlash linearized inside the band: gain 0");
    tap_ok(lin_d(lin, 2, JG_LIN_GRAPH, &err) == 1 && fabs(lin_d(lin, 2, JG_LIN_PERTURB, &err) - 1) < 1e-6,
           "Backlash linearized engaged: gain 1");
    expect_error("{'blocks':[{'name':'U','type':'Inport','Port':1},"
                 "{'name':'B','type':'Backlash','BacklashWidth':-1},"
                 "{'name':'Y','type':'Outport','Port':1}],"
                 "'lines':[{'src':'U:1','dst':'B:1'},{'src':'B:1','dst':'Y:1'}]}",
                 "BacklashWidth", "Backlash: negative width");
}

/* ----------------------------------------------------- CombinatorialLogic */

static jg_status_t comb(const char *value, const char *table, rec_t *r, jg_error_t *err)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{'blocks':[{'name':'C','type':'Constant','Value':%s},"
             "{'name':'L','type':'CombinatorialLogic'%s%s},"
             "{'name':'Y','type':'Outport','Port':1}],"
             "'lines':[{'src':'C:1','dst':'L:1'},{'src':'L:1','dst':'Y:1'}]}",
             value, table ? ",'TruthTable':" : "", table ? table : "");
    return sim_json(json, "discrete", 0, 1, 1, r, err);
}

static void test_comblogic(void)
{
    rec_t r;
    jg_error_t err;
    /* default table rows (0-based): 0 [0 0] 1 [0 1] 2 [0 1] 3 [1 0] 4 [0 1] 5 [1 0] 6 [1 0] 7 [1 1] */
    static const struct {
        const char *u;
        double y0, y1;
    } c[] = {{"[1,0,1]", 1, 0}, {"[0,1,1]", 1, 0}, {"[0.5,0,0]", 0, 1}, {"[0,0,0]", 0, 0},
             {"[1,1,1]", 1, 1}, {"[0,0,-2]", 0, 1}};
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        jg_status_t st = comb(c[k].u, NULL, &r, &err);
        if (st) printf("#   %s\n", err.msg);
        tap_ok(!st && r.nsig == 2 && at(&r, 0, 0) == c[k].y0 && at(&r, 0, 1) == c[k].y1,
               "CombinatorialLogic default table, u = %s (first element the MSB) -> [%g %g]", c[k].u,
               c[k].y0, c[k].y1);
    }
    jg_status_t st = comb("[1,0]", "[[0],[1],[1],[0]]", &r, &err);
    double a = st ? NAN : at(&r, 0, 0);
    st = st ? st : comb("[1,1]", "[[0],[1],[1],[0]]", &r, &err);
    tap_ok(!st && a == 1 && at(&r, 0, 0) == 0, "CombinatorialLogic XOR table: 1 0 -> 1, 1 1 -> 0");
    expect_error("{'blocks':[{'name':'C','type':'Constant','Value':[1,0]},"
                 "{'name':'L','type':'CombinatorialLogic','TruthTable':[[0],[1],[1]]},"
                 "{'name':'Y','type':'Outport','Port':1}],"
                 "'lines':[{'src':'C:1','dst':'L:1'},{'src':'L:1','dst':'Y:1'}]}",
                 "TruthTable", "CombinatorialLogic: 3 rows");
    expect_error("{'blocks':[{'name':'C','type':'Constant','Value':[1,0]},"
                 "{'name':'L','type':'CombinatorialLogic'},"
                 "{'name':'Y','type':'Outport','Port':1}],"
                 "'lines':[{'src':'C:1','dst':'L:1'},{'src':'L:1','dst':'Y:1'}]}",
                 "width 2", "CombinatorialLogic: 8 rows for a 2-element input");
}

/* ----------------------------------------------------------------- Random */

static void test_random(void)
{
    /* splitmix64 from state 0: first output 0xE220A8397B1DCDAF (the
     * published reference value) */
    double u00 = ((double)(UINT64_C(0xE220A8397B1DCDAF) >> 11) + 0.5) * 0x1.0p-53;
    tap_ok(jg__rand_uniform(0, 0) == u00, "generator: draw 0 of stream 0 is splitmix64's first output");
    rec_t r, r2;
    jg_error_t err;
    const char *uni = "{'blocks':[{'name':'R','type':'UniformRandomNumber','Minimum':2,'Maximum':5,"
                      "'Seed':0,'SampleTime':1},{'name':'Y','type':'Outport','Port':1}],"
                      "'lines':[{'src':'R:1','dst':'Y:1'}]}";
    jg_status_t st = sim_json(uni, "discrete", 0, 4, 0.5, &r, &err);
    if (st) printf("#   %s\n", err.msg);
    tap_ok(!st && at(&r, 0, 0) == 2 + 3 * u00, "UniformRandomNumber [2, 5], Seed=0: y(0) = 2 + 3 u0");
    int held = !st, inrange = !st;
    for (int k = 0; !st && k < 4; k++) {
        held &= at(&r, k, 0) == at(&r, k + 0.5, 0);
        inrange &= at(&r, k, 0) > 2 && at(&r, k, 0) < 5 && at(&r, k, 0) == 2 + 3 * jg__rand_uniform(0, (uint64_t)k);
    }
    tap_ok(held && inrange && at(&r, 1, 0) != at(&r, 0, 0),
           "UniformRandomNumber: draw k at hit k, held between hits, inside (2, 5)");
    jg_status_t st2 = sim_json(uni, "discrete", 0, 4, 0.5, &r2, &err);
    int same = !st && !st2 && r.n == r2.n;
    for (int i = 0; same && i < r.n; i++) same = r.y[i][0] == r2.y[i][0];
    tap_ok(same, "UniformRandomNumber: reproducible run to run");

    /* normal: mean 1, variance 4 over 4000 hits */
    st = sim_json("{'blocks':[{'name':'R','type':'RandomNumber','Mean':1,'Variance':4,'Seed':3,"
                  "'SampleTime':0.1},{'name':'Y','type':'Outport','Port':1}],"
                  "'lines':[{'src':'R:1','dst':'Y:1'}]}",
                  "discrete", 0, 399.9, 0, &r, &err);
    if (st) printf("#   %s\n", err.msg);
    double s1 = 0, s2 = 0;
    for (int i = 0; !st && i < r.n; i++) s1 += r.y[i][0];
    double mean = st ? NAN : s1 / r.n;
    for (int i = 0; !st && i < r.n; i++) s2 += (r.y[i][0] - mean) * (r.y[i][0] - mean);
    double var = st ? NAN : s2 / (r.n - 1);
    /* 4 standard errors: 4 * 2 / sqrt(4000) for the mean, 4 * 4 sqrt(2/4000) for the variance */
    tap_ok(!st && r.n == 4000 && fabs(mean - 1) < 0.13 && fabs(var - 4) < 0.36,
           "RandomNumber mean 1, variance 4: sample mean %.3f, variance %.3f over %d", mean, var, r.n);
    tap_near(st ? NAN : r.y[0][0], 1 + 2 * jg__rand_normal(3, 0), 0, "RandomNumber: y(0) = mean + sd * draw 0");

    /* a vector from a vector seed; scalar parameters expand */
    st = sim_json("{'blocks':[{'name':'R','type':'UniformRandomNumber','Seed':[1,2,3],"
                  "'SampleTime':1},{'name':'Y','type':'Outport','Port':1}],"
                  "'lines':[{'src':'R:1','dst':'Y:1'}]}",
                  "discrete", 0, 1, 1, &r, &err);
    tap_ok(!st && r.nsig == 3 && r.y[0][0] != r.y[0][1] && r.y[0][1] != r.y[0][2] &&
               r.y[0][1] == -1 + 2 * jg__rand_uniform(2, 1),
           "UniformRandomNumber Seed [1 2 3]: three streams, element i draw n w + i");

    /* continuous (inherited): a new draw at each major step */
    st = sim_json("{'blocks':[{'name':'R','type':'RandomNumber'},"
                  "{'name':'I','type':'Integrator'},{'name':'Y','type':'Outport','Port':1}],"
                  "'lines':[{'src':'R:1','dst':'I:1'},{'src':'I:1','dst':'Y:1'}]}",
                  "ode4", 0.25, 1, 0.25, &r, &err);
    if (st) printf("#   %s\n", err.msg);
    /* held in minor steps: the integral over each step is h times that step's draw */
    double x = 0;
    for (int k = 0; k < 4; k++) x += 0.25 * jg__rand_normal(0, (uint64_t)k);
    tap_near(st ? NAN : at(&r, 1, 0), x, 1e-12,
             "RandomNumber, continuous: held over each major step (its integral by ode4 is exact)");

    expect_error("{'blocks':[{'name':'R','type':'UniformRandomNumber','Minimum':3,'Maximum':1},"
                 "{'name':'Y','type':'Outport','Port':1}],'lines':[{'src':'R:1','dst':'Y:1'}]}",
                 "Maximum", "UniformRandomNumber: Maximum below Minimum");
    expect_error("{'blocks':[{'name':'R','type':'RandomNumber','Variance':-1},"
                 "{'name':'Y','type':'Outport','Port':1}],'lines':[{'src':'R:1','dst':'Y:1'}]}",
                 "Variance", "RandomNumber: negative variance");
    expect_error("{'blocks':[{'name':'R','type':'RandomNumber','Seed':-2},"
                 "{'name':'Y','type':'Outport','Port':1}],'lines':[{'src':'R:1','dst':'Y:1'}]}",
                 "Seed", "RandomNumber: negative seed");
}

/* --------------------------------------------------------- SampleTimeMath */

static void test_sampletimemath(void)
{
    /* u = t at T = 0.5, w = 3 (w Ts = 1.5): values at t = 1 */
    static const struct {
        const char *op;
        double y;
    } c[] = {{"+", 2.5}, {"-", -0.5}, {"*", 1.5}, {"/", 1 / 0.5 / 3}, {"Ts Only", 1.5},
             {"1/Ts Only", 1 / 1.5}};
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{'blocks':[{'name':'K','type':'DigitalClock','SampleTime':0.5},"
                 "{'name':'W','type':'SampleTimeMath','TsampMathOp':'%s','weightValue':3},"
                 "{'name':'Y','type':'Outport','Port':1}],"
                 "'lines':[{'src':'K:1','dst':'W:1'},{'src':'W:1','dst':'Y:1'}]}",
                 c[k].op);
        rec_t r;
        jg_error_t err;
        jg_status_t st = sim_json(json, "discrete", 0, 1, 0.5, &r, &err);
        if (st) printf("#   %s\n", err.msg);
        tap_near(st ? NAN : at(&r, 1, 0), c[k].y, 1e-15, c[k].op);
    }
    expect_error("{'blocks':[{'name':'K','type':'Clock'},{'name':'W','type':'SampleTimeMath'},"
                 "{'name':'Y','type':'Outport','Port':1}],"
                 "'lines':[{'src':'K:1','dst':'W:1'},{'src':'W:1','dst':'Y:1'}]}",
                 "discrete", "SampleTimeMath: a continuous input has no sample time to use");
    expect_error("{'blocks':[{'name':'K','type':'DigitalClock'},"
                 "{'name':'W','type':'SampleTimeMath','TsampMathOp':'^'},"
                 "{'name':'Y','type':'Outport','Port':1}],"
                 "'lines':[{'src':'K:1','dst':'W:1'},{'src':'W:1','dst':'Y:1'}]}",
                 "TsampMathOp", "SampleTimeMath: unknown operation");
    expect_error("{'blocks':[{'name':'K','type':'DigitalClock'},"
                 "{'name':'W','type':'SampleTimeMath','TsampMathOp':'/','weightValue':0},"
                 "{'name':'Y','type':'Outport','Port':1}],"
                 "'lines':[{'src':'K:1','dst':'W:1'},{'src':'W:1','dst':'Y:1'}]}",
                 "weightValue", "SampleTimeMath: division by a zero weight");
}

/* ------------------------------------------------------------- Assignment */

static void test_assignment(void)
{
    static const struct {
        const char *u, *par;
        double y[4];
    } c[] = {{"[10,20]", "'Indices':[4,2]", {1, 20, 3, 10}},
             {"9", "'Indices':[0,2],'IndexMode':'Zero-based'", {9, 2, 9, 4}},
             {"[5,6]", "'Indices':[3,3]", {1, 2, 6, 4}}};
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{'blocks':[{'name':'Y0','type':'Constant','Value':[1,2,3,4]},"
                 "{'name':'U','type':'Constant','Value':%s},"
                 "{'name':'A','type':'Assignment',%s},{'name':'Y','type':'Outport','Port':1}],"
                 "'lines':[{'src':'Y0:1','dst':'A:1'},{'src':'U:1','dst':'A:2'},"
                 "{'src':'A:1','dst':'Y:1'}]}",
                 c[k].u, c[k].par);
        rec_t r;
        jg_error_t err;
        jg_status_t st = sim_json(json, "discrete", 0, 1, 1, &r, &err);
        if (st) printf("#   %s\n", err.msg);
        int ok = !st && r.nsig == 4;
        for (int i = 0; ok && i < 4; i++) ok = at(&r, 0, i) == c[k].y[i];
        tap_ok(ok, "Assignment y = [1 2 3 4], y(%s) = %s -> [%g %g %g %g]", c[k].par, c[k].u, c[k].y[0],
               c[k].y[1], c[k].y[2], c[k].y[3]);
    }
    const char *lin = "{'blocks':[{'name':'U','type':'Inport','Port':1},"
                      "{'name':'Y0','type':'Constant','Value':[1,2]},"
                      "{'name':'A','type':'Assignment','Indices':2},"
                      "{'name':'Y','type':'Outport','Port':1}],"
                      "'lines':[{'src':'Y0:1','dst':'A:1'},{'src':'U:1','dst':'A:2'},"
                      "{'src':'A:1','dst':'Y:1'}]}";
    jg_error_t err;
    tap_ok(lin_d(lin, 0, JG_LIN_GRAPH, &err) == 0, "Assignment: y(1) from Y0 does not depend on U");
    static const char *const bad[][2] = {{"'Indices':[5]", "Indices"},
                                         {"'Indices':[1],'NumberOfDimensions':2", "NumberOfDimensions"},
                                         {"'Indices':[1],'IndexOptions':'Assign all'", "IndexOptions"},
                                         {"'Indices':[0]", "Indices"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{'blocks':[{'name':'Y0','type':'Constant','Value':[1,2,3,4]},"
                 "{'name':'U','type':'Constant','Value':1},"
                 "{'name':'A','type':'Assignment',%s},{'name':'Y','type':'Outport','Port':1}],"
                 "'lines':[{'src':'Y0:1','dst':'A:1'},{'src':'U:1','dst':'A:2'},"
                 "{'src':'A:1','dst':'Y:1'}]}",
                 bad[k][0]);
        expect_error(json, bad[k][1], bad[k][0]);
    }
}

/* ------------------------------------------------------ import from MDL */

/* A model: blocks (MDL text), lines (MDL text), optional BlockParameterDefaults. */
static jg_status_t import_mdl(const char *defaults, const char *blocks, const char *lines,
                              jg_model_t **m, jg_error_t *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s/case.mdl", tmpdir);
    FILE *f = fopen(path, "w");
    if (!f) return JG_IO;
    fprintf(f, "Model {\n Name \"t7\"\n%s System {\n  Name \"t7\"\n%s%s }\n}\n", defaults ? defaults : "",
            blocks, lines);
    fclose(f);
    *m = NULL;
    memset(err, 0, sizeof *err);
    return jg_import_load(path, NULL, m, err);
}

#define BLK(type, name, extra) "  Block {\n   BlockType " type "\n   Name \"" name "\"\n" extra "  }\n"
#define LINE(s, sp, d, dp)                                                                   \
    "  Line {\n   SrcBlock \"" s "\"\n   SrcPort " #sp "\n   DstBlock \"" d "\"\n   DstPort " #dp \
    "\n  }\n"

/* Import, simulate a step with the discrete solver and return output 1 at t0. */
static double import_value(const char *defaults, const char *blocks, const char *lines, int k,
                           jg_error_t *err)
{
    jg_model_t *m = NULL;
    rec_t r;
    jg_status_t st = import_mdl(defaults, blocks, lines, &m, err);
    if (!st) st = sim_model(m, "discrete", 0, 1, 1, &r, err);
    jg_model_free(m);
    if (st) printf("#   %s\n", err->msg);
    return st || k >= r.nsig ? NAN : at(&r, 0, k);
}

/* One TAP line `what`: importing the system refuses it (JG_MODEL) with
 * fragment in the message. */
static void import_refused(const char *blocks, const char *lines, const char *fragment, const char *what)
{
    jg_model_t *m = NULL;
    jg_error_t err;
    jg_status_t st = import_mdl(NULL, blocks, lines, &m, &err);
    jg_model_free(m);
    tap_ok(st == JG_MODEL && strstr(err.msg, fragment), "%s", what);
}

static void test_import(void)
{
    jg_error_t err;
    /* Delay with the defaults: DelayLength 2, IC 0.0 (BlockParameterDefaults
     * absent: the built-in ones) */
    jg_model_t *m = NULL;
    rec_t r;
    jg_status_t st = import_mdl(NULL,
                                BLK("DigitalClock", "K", "   SampleTime \"1\"\n")
                                    BLK("Delay", "Integer Delay", "   DelayLength \"3\"\n")
                                        BLK("Outport", "Y", "   Port \"1\"\n"),
                                LINE("K", 1, "Integer Delay", 1) LINE("Integer Delay", 1, "Y", 1), &m,
                                &err);
    if (!st) st = sim_model(m, "discrete", 0, 5, 1, &r, &err);
    jg_model_free(m);
    if (st) printf("#   %s\n", err.msg);
    tap_ok(!st && at(&r, 2, 0) == 0 && at(&r, 3, 0) == 0 && at(&r, 4, 0) == 1 && at(&r, 5, 0) == 2,
           "import Delay (DelayLength 3, default IC 0): 0 0 0 0 1 2");
    import_refused(BLK("DigitalClock", "K", "") BLK("Delay", "D", "   ExternalReset \"Rising\"\n")
                       BLK("Outport", "Y", ""),
                   LINE("K", 1, "D", 1) LINE("D", 1, "Y", 1), "D (Delay): an external reset is not supported",
                   "import Delay with ExternalReset refused with its reason");
    import_refused(BLK("DigitalClock", "K", "") BLK("Delay", "D", "   DelayLengthSource \"Input port\"\n")
                       BLK("Outport", "Y", ""),
                   LINE("K", 1, "D", 1) LINE("D", 1, "Y", 1), "delay length from an input port",
                   "import Delay with DelayLengthSource 'Input port' refused with its reason");

    /* Dot Product: [1 2 3] . [4 5 6] = 32 */
    double y = import_value(NULL,
                            BLK("Constant", "A", "   Value \"[1 2 3]\"\n")
                                BLK("Constant", "B", "   Value \"[4 5 6]\"\n")
                                    BLK("DotProduct", "Dot", "") BLK("Outport", "Y", ""),
                            LINE("A", 1, "Dot", 1) LINE("B", 1, "Dot", 2) LINE("Dot", 1, "Y", 1), 0,
                            &err);
    tap_ok(y == 32, "import DotProduct: [1 2 3] . [4 5 6] = 32");

    /* Manual Switch: CurrentSetting / sw "1" passes the first input, "0" the second */
    static const struct {
        const char *def, *own;
        double want;
        const char *what;
    } ms[] = {
        {NULL, "", 1, "no setting: the built-in CurrentSetting 1, the first input"},
        {NULL, "   sw \"0\"\n", 2, "sw 0: the second input"},
        {NULL, "   sw \"1\"\n", 1, "sw 1: the first input"},
        {NULL, "   CurrentSetting \"0\"\n", 2, "CurrentSetting 0: the second input"},
        {" BlockParameterDefaults {\n  Block {\n   BlockType ManualSwitch\n   CurrentSetting \"0\"\n  }\n }\n",
         "", 2, "the file's default CurrentSetting 0: the second input"},
    };
    for (size_t k = 0; k < sizeof ms / sizeof *ms; k++) {
        char blocks[1024];
        snprintf(blocks, sizeof blocks, "%s  Block {\n   BlockType ManualSwitch\n   Name \"MS\"\n%s  }\n%s",
                 BLK("Constant", "A", "   Value \"1\"\n") BLK("Constant", "B", "   Value \"2\"\n"),
                 ms[k].own, BLK("Outport", "Y", ""));
        y = import_value(ms[k].def, blocks, LINE("A", 1, "MS", 1) LINE("B", 1, "MS", 2) LINE("MS", 1, "Y", 1),
                         0, &err);
        tap_ok(y == ms[k].want, "import ManualSwitch, %s", ms[k].what);
    }
    import_refused(BLK("Constant", "A", "") BLK("Constant", "B", "")
                       BLK("ManualSwitch", "MS", "   CurrentSetting \"2\"\n") BLK("Outport", "Y", ""),
                   LINE("A", 1, "MS", 1) LINE("B", 1, "MS", 2) LINE("MS", 1, "Y", 1), "must be 0 or 1",
                   "import ManualSwitch with CurrentSetting 2 refused with its reason");

    /* sinks */
    y = import_value(NULL,
                     BLK("Constant", "A", "   Value \"4\"\n") BLK("Constant", "B", "")
                         BLK("Constant", "C", "") BLK("Assertion", "Check", "")
                             BLK("ToFile", "Log", "   Filename \"out.mat\"\n")
                                 BLK("DataTypeDuplicate", "Dup", "   NumInputPorts \"3\"\n")
                                     BLK("Outport", "Y", ""),
                     LINE("A", 1, "Check", 1) LINE("A", 1, "Log", 1) LINE("A", 1, "Dup", 1)
                         LINE("B", 1, "Dup", 2) LINE("C", 1, "Dup", 3) LINE("A", 1, "Y", 1),
                     0, &err);
    tap_ok(y == 4, "import Assertion, ToFile, DataTypeDuplicate (3 inputs) as sinks");

    /* the native blocks through the table, with the file's defaults */
    st = import_mdl(" BlockParameterDefaults {\n  Block {\n   BlockType Backlash\n   BacklashWidth \"4\"\n"
                    "  }\n }\n",
                    BLK("Constant", "A", "   Value \"[1 0 1]\"\n") BLK("Constant", "C", "   Value \"3\"\n")
                        BLK("DigitalClock", "K", "   SampleTime \"0.5\"\n")
                            BLK("CombinatorialLogic", "CL", "") BLK("Backlash", "BL", "")
                                BLK("SampleTimeMath", "TS", "   TsampMathOp \"Ts Only\"\n")
                                    BLK("RandomNumber", "RN", "   SampleTime \"0\"\n")
                                        BLK("UniformRandomNumber", "URN", "   SampleTime \"0.5\"\n")
                                            BLK("Assignment", "AS", "   Indices \"2\"\n")
                                                BLK("Outport", "Y1", "   Port \"1\"\n")
                                                    BLK("Outport", "Y2", "   Port \"2\"\n")
                                                        BLK("Outport", "Y3", "   Port \"3\"\n")
                                                            BLK("Terminator", "T1", "")
                                                                BLK("Terminator", "T2", "")
                                                                    BLK("Outport", "Y4", "   Port \"4\"\n"),
                    LINE("A", 1, "CL", 1) LINE("CL", 1, "Y1", 1) LINE("C", 1, "BL", 1) LINE("BL", 1, "Y2", 1)
                        LINE("K", 1, "TS", 1) LINE("TS", 1, "Y3", 1) LINE("RN", 1, "T1", 1)
                            LINE("URN", 1, "T2", 1) LINE("A", 1, "AS", 1) LINE("C", 1, "AS", 2)
                                LINE("AS", 1, "Y4", 1),
                    &m, &err);
    if (!st) st = sim_model(m, "ode4", 0.5, 1, 0.5, &r, &err);
    jg_model_free(m);
    if (st) printf("#   %s\n", err.msg);
    /* Y1 = row 5 of the default table [1 0]; Y2 = 3 - 4/2 = 1; Y3 = 0.5; Y4 = [1 3 1] */
    tap_ok(!st && r.nsig == 7 && at(&r, 1, 0) == 1 && at(&r, 1, 1) == 0 && at(&r, 1, 2) == 1 &&
               at(&r, 1, 3) == 0.5 && at(&r, 1, 4) == 1 && at(&r, 1, 5) == 3 && at(&r, 1, 6) == 1,
           "import CombinatorialLogic, Backlash (file default width 4), SampleTimeMath, random "
           "sources, Assignment");

    /* refused BlockTypes carry a specific reason */
    static const char *const refused[][2] = {
        {"ComplexToRealImag", "complex signals are not supported"},
        {"RealImagToComplex", "complex signals are not supported"},
        {"ComplexToMagnitudeAngle", "complex signals are not supported"},
        {"MagnitudeAngleToComplex", "complex signals are not supported"},
        {"ArithShift", "bit shifts on integer types"},
        {"BusAssignment", "bus assignment is not supported"},
    };
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
        char blocks[512];
        snprintf(blocks, sizeof blocks, "%s  Block {\n   BlockType %s\n   Name \"X\"\n  }\n",
                 BLK("Constant", "A", ""), refused[k][0]);
        char what[256];
        snprintf(what, sizeof what, "import %s refused: %s", refused[k][0], refused[k][1]);
        import_refused(blocks, LINE("A", 1, "X", 1), refused[k][1], what);
    }
    import_refused(BLK("Constant", "A", "") BLK("Constant", "B", "")
                       BLK("Assignment", "X", "   OutputInitialize \"Specify size for each dimension in table\"\n"),
                   LINE("A", 1, "X", 1) LINE("B", 1, "X", 2), "OutputInitialize",
                   "import Assignment without Y0 refused with its reason");
}

/* ---------------------------------------------------- the external corpus */

static void test_corpus(void)
{
    const char *file = tl_corpus("EmbSys-WWU__Simulink2dL__ports_2013a.mdl");
    if (tl_corpus_absent(file, "BlockTypes of the external corpus")) return;
    /* the BlockTypes still refused (library links are test_import_library.c's) */
    static const char *const want[] = {
        "ArithShift", "BusAssignment", "BusSelector", "BusSelector", "ComplexToMagnitudeAngle",
        "ComplexToRealImag", "DataStoreMemory", "DataStoreRead", "DataStoreWrite", "FromFile",
        "FromWorkspace", "FromWorkspace", "M-S-Function", "MATLABFcn", "MagnitudeAngleToComplex",
        "RateTransition", "RealImagToComplex", "S-Function", "S-Function", "SubSystem",
        "VariableTransportDelay", "VariableTransportDelay",
    };
    jg_status_t st;
    char *list = tl_import_problems(file, &st);
    char *got[256];
    int ngot = 0, generic = 0;
    /* problems are "\n  PATH (TYPE): reason"; the type is the last "(...)" before ": " */
    for (const char *p = strstr(list, "\n  "); p && ngot < 256; p = strstr(p + 1, "\n  ")) {
        const char *e = strstr(p + 3, "\n  ");
        const char *colon = strstr(p + 3, "): ");
        if (!colon || (e && colon > e)) continue;
        const char *open = colon;
        while (open > p && *open != '(') open--;
        char *type = strndup(open + 1, (size_t)(colon - open - 1));
        generic += strncmp(colon + 3, "this BlockType is not supported", 31) == 0;
        if (!strcmp(type, "Reference")) {
            free(type);
            continue;
        }
        got[ngot++] = type;
    }
    const int nwant = (int)(sizeof want / sizeof *want);
    int same = tl_same_strs(got, ngot, want, nwant) && st == JG_MODEL;
    tap_ok(same, "ports_2013a.mdl: exactly these %d BlockTypes are refused (got %d)", nwant, ngot);
    tap_ok(st == JG_MODEL && generic == 0, "ports_2013a.mdl: no block refused with the generic reason (%d)",
           generic);
    free(list);
}

int main(void)
{
    if (!tl_tmpdir(tmpdir, sizeof tmpdir, "test_blocks_delay_random")) return 1;
    test_delay();
    test_backlash();
    test_comblogic();
    test_random();
    test_sampletimemath();
    test_assignment();
    test_import();
    test_corpus();
    tl_rmtree(tmpdir);
    return tap_done();
}
