/* Blocks for Simulink models: SignalGenerator, DigitalClock,
 * RepeatingSequence, BandLimitedWhiteNoise, DiscreteFilter, DiscreteZeroPole,
 * DiscretePulseGenerator, Derivative, RateLimiter, PIDController and Stop.
 * Values against hand results (closed forms, recursions computed here with
 * plain loops), simulations through the hybrid loop, linearizations by every
 * path (the PID's analytic Jacobian against perturbation), and setup errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* A source block B (its JSON keys after the name) into an Integrator Y: the
 * derivatives are B's outputs. */
static const char *src_model(const char *blk)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{'name':'s','blocks':[{'name':'B',%s},{'name':'Y','type':'Integrator'}],"
             "'lines':[{'src':'B:1','dst':'Y:1'}]}",
             blk);
    return q(buf);
}

/* Outputs of the source at time t (not in a simulation: no held pieces). */
static jg_status_t src_at(fx_t *f, double t, double *y)
{
    jg_status_t st = jg_eval_outputs(f->w, t, &f->err);
    return st ? st : jg_eval_derivatives(f->w, y, &f->err);
}

typedef struct {
    int n;
    int64_t nsig, nx;   /* logged signals and states of the run */
    double t[4096], y[4096][3];
    double x[4096];
} rec_t;

static int record(double t, const double *x, const double *sig, void *user)
{
    rec_t *r = user;
    if (r->n >= 4096) return 1;
    r->t[r->n] = t;
    for (int k = 0; k < 3; k++) r->y[r->n][k] = k < r->nsig ? sig[k] : 0;
    r->x[r->n] = r->nx ? x[0] : 0;
    r->n++;
    return 0;
}

/* Simulate json (' for ") with o, recording up to 3 logged signals. */
static jg_status_t sim(const char *json, jg_sim_opts_t o, rec_t *r, jg_sim_stats_t *ss,
                       double *tend, double *x, jg_error_t *err)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_sim_t *s = NULL;
    memset(r, 0, sizeof *r);
    jg_status_t st = jg_model_parse(q(json), "<test>", &m, err);
    if (!st) st = jg_program_compile(m, &p, err);
    if (!st) st = jg_sim_create(p, &o, &s, err);
    if (!st) {
        r->nsig = jg_sim_nlogged(s);
        r->nx = jg_program_nstates(p);
        st = jg_sim_run(s, o.tstop, record, r, err);
    }
    if (!st && ss) jg_sim_stats(s, ss);
    if (!st && ss && ss->stop_block) {   /* the path lives in the program: copy what the test needs */
        static char path[64];
        snprintf(path, sizeof path, "%s", ss->stop_block);
        ss->stop_block = path;
        /* a further run returns at once, at the same time */
        double t1 = jg_sim_time(s);
        jg_status_t st2 = jg_sim_run(s, o.tstop, record, r, err);
        tap_ok(!st2 && jg_sim_time(s) == t1, "after a Stop, jg_sim_run returns at once");
    }
    if (!st && tend) *tend = jg_sim_time(s);
    if (!st && x) memcpy(x, jg_sim_states(s), sizeof(double) * (size_t)jg_program_nstates(p));
    jg_sim_free(s);
    jg_program_free(p);
    jg_model_free(m);
    return st;
}

/* Index of the record at time t (-1). */
static int at(const rec_t *r, double t)
{
    for (int k = 0; k < r->n; k++)
        if (fabs(r->t[k] - t) < 1e-9) return k;
    return -1;
}

/* -------------------------------------------------------------- sources */

static void test_signal_generator(void)
{
    fx_t f;
    double y[4];
    jg_status_t st = fx_load(&f, src_model("'type':'SignalGenerator','WaveForm':'square','Amplitude':[2,3]"), NULL);
    int ok = !st;
    double ts[] = {0, 0.25, 0.5, 0.75, 1.0, 1.6};
    double want[] = {-1, -1, 1, 1, -1, 1};   /* r >= 0.5: +A */
    for (int k = 0; ok && k < 6; k++) {
        st = src_at(&f, ts[k], y);
        ok = !st && y[0] == 2 * want[k] && y[1] == 3 * want[k];
        if (!ok) printf("#   t = %g: %g %g\n", ts[k], y[0], y[1]);
    }
    tap_ok(ok, "square: -A over the first half period, +A over the second (vector Amplitude)");
    fx_unload(&f);

    st = fx_load(&f, src_model("'type':'SignalGenerator','WaveForm':'sawtooth','Amplitude':2,'Frequency':0.5"), NULL);
    ok = !st;
    double saw_t[] = {0, 0.5, 1.5, 2.0, 3.0};
    double saw_y[] = {2, 1, -1, 2, 0};   /* 2 (1 - 2 frac(t/2)) */
    for (int k = 0; ok && k < 5; k++) {
        st = src_at(&f, saw_t[k], y);
        ok = !st && fabs(y[0] - saw_y[k]) < 1e-15;
    }
    tap_ok(ok, "sawtooth: A (1 - 2 frac(f t)), from A down to -A");
    fx_unload(&f);

    st = fx_load(&f, src_model("'type':'SignalGenerator','Amplitude':1.5,'Frequency':3,'Units':'rad/sec'"), NULL);
    ok = !st && !src_at(&f, 0.4, y) && fabs(y[0] - 1.5 * sin(1.2)) < 1e-15;
    fx_unload(&f);
    st = fx_load(&f, src_model("'type':'SignalGenerator','Frequency':2"), NULL);
    ok = ok && !st && !src_at(&f, 0.1, y) && fabs(y[0] - sin(6.283185307179586 * 2 * 0.1)) < 1e-14;
    tap_ok(ok, "sine: A sin(F t) in rad/sec, A sin(2 pi F t) in Hertz (the default)");
    fx_unload(&f);

    /* the square wave integrated: its switches are zero crossings */
    rec_t r;
    jg_error_t err;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 2.25, .out_step = 0.25,
                       .so = {.rtol = 1e-8, .atol = 1e-10}};
    st = sim("{'name':'sq','blocks':[{'name':'G','type':'SignalGenerator','WaveForm':'square'},"
             "{'name':'I','type':'Integrator'},{'name':'O','type':'Outport','Port':1}],"
             "'lines':[{'src':'G:1','dst':'I:1'},{'src':'I:1','dst':'O:1'}]}",
             o, &r, NULL, NULL, NULL, &err);
    double worst = 0;
    for (int k = 0; k < r.n; k++) {
        double t = r.t[k], fr = t - floor(t), want = fr < 0.5 ? -fr : fr - 1;   /* the triangle */
        worst = fmax(worst, fabs(r.y[k][0] - want));
    }
    tap_ok(!st && r.n == 10 && worst < 1e-9, "integral of the square wave: the triangle (error %.1e)", worst);

    o.tstop = 3;
    o.out_step = 0.5;
    st = sim("{'name':'rn','blocks':[{'name':'G','type':'SignalGenerator','WaveForm':'random','Amplitude':2},"
             "{'name':'O','type':'Outport','Port':1}],'lines':[{'src':'G:1','dst':'O:1'}]}",
             o, &r, NULL, NULL, NULL, &err);
    ok = !st && r.n == 7;
    int distinct = 0;
    for (int k = 0; ok && k < r.n; k++) {
        ok = fabs(r.y[k][0]) <= 2;
        if (k && r.y[k][0] != r.y[k - 1][0]) distinct++;
    }
    tap_ok(ok && distinct >= 5, "random: values in [-A, A], new at major steps");
}

static void test_digital_clock(void)
{
    rec_t r;
    jg_error_t err;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 2, .out_step = 0.25};
    jg_status_t st = sim("{'name':'dc','blocks':[{'name':'C','type':'DigitalClock','SampleTime':0.5},"
                         "{'name':'O','type':'Outport','Port':1}],'lines':[{'src':'C:1','dst':'O:1'}]}",
                         o, &r, NULL, NULL, NULL, &err);
    double worst = 0;
    for (int k = 0; k < r.n; k++) worst = fmax(worst, fabs(r.y[k][0] - floor(r.t[k] / 0.5 + 1e-9) * 0.5));
    tap_ok(!st && r.n == 9 && worst == 0, "DigitalClock: t at its hits, held between");
    st = sim("{'name':'dc','blocks':[{'name':'C','type':'DigitalClock'},"
             "{'name':'O','type':'Outport','Port':1}],'lines':[{'src':'C:1','dst':'O:1'}]}",
             o, &r, NULL, NULL, NULL, &err);
    int k = at(&r, 1.75);
    tap_ok(!st && k >= 0 && r.y[k][0] == 1, "DigitalClock: SampleTime 1 by default");
}

static void test_repeating_sequence(void)
{
    fx_t f;
    double y[2];
    jg_status_t st = fx_load(&f, src_model("'type':'RepeatingSequence','rep_seq_t':[0,1,1,2],"
                                            "'rep_seq_y':[0,1,-1,0]"),
                             NULL);
    double ts[] = {0, 0.5, 1, 1.5, 2, 2.5, 3.25, -0.5};
    double ys[] = {0, 0.5, -1, -0.5, 0, 0.5, -0.75, -0.5};
    int ok = !st;
    for (int k = 0; ok && k < 8; k++) {
        ok = !src_at(&f, ts[k], y) && fabs(y[0] - ys[k]) < 1e-15;
        if (!ok) printf("#   t = %g: %.17g, expected %g\n", ts[k], y[0], ys[k]);
    }
    tap_ok(ok, "RepeatingSequence: interp1 at t0 + mod(t - t0, T); a repeated time takes the later value");
    fx_unload(&f);

    st = fx_load(&f, src_model("'type':'RepeatingSequence'"), NULL);
    tap_ok(!st && !src_at(&f, 3, y) && y[0] == 1, "defaults [0 2] / [0 2]: a sawtooth of period 2 (y(3) = 1)");
    fx_unload(&f);

    rec_t r;
    jg_error_t err;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 4, .out_step = 0.5,
                       .so = {.rtol = 1e-9, .atol = 1e-12}};
    st = sim("{'name':'rs','blocks':[{'name':'R','type':'RepeatingSequence','rep_seq_t':[1,3],"
             "'rep_seq_y':[0,2]},{'name':'I','type':'Integrator'},{'name':'O','type':'Outport','Port':1}],"
             "'lines':[{'src':'R:1','dst':'I:1'},{'src':'I:1','dst':'O:1'}]}",
             o, &r, NULL, NULL, NULL, &err);
    /* y = mod(t - 1, 2): t + 1 on [0, 1) (integral 1.5), t - 1 on [1, 3) (2 more), t - 3 on
     * [3, 4) (0.5 more) */
    int k3 = at(&r, 3), k4 = at(&r, 4);
    tap_ok(!st && k3 >= 0 && k4 >= 0 && fabs(r.y[k3][0] - 3.5) < 1e-8 && fabs(r.y[k4][0] - 4) < 1e-8,
           "integral of a RepeatingSequence across its wraps (%.12g, %.12g)", k3 >= 0 ? r.y[k3][0] : NAN,
           k4 >= 0 ? r.y[k4][0] : NAN);
}

static void test_noise(void)
{
    static rec_t r1, r2;
    jg_error_t err;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 300, .out_step = 0.1};
    const char *m = "{'name':'wn','blocks':[{'name':'N','type':'BandLimitedWhiteNoise','Cov':0.1,"
                    "'Ts':0.1,'seed':23341},{'name':'O','type':'Outport','Port':1}],"
                    "'lines':[{'src':'N:1','dst':'O:1'}]}";
    jg_status_t st = sim(m, o, &r1, NULL, NULL, NULL, &err);
    jg_status_t st2 = sim(m, o, &r2, NULL, NULL, NULL, &err);
    int same = !st && !st2 && r1.n == r2.n && r1.n == 3001;
    for (int k = 0; same && k < r1.n; k++) same = r1.y[k][0] == r2.y[k][0];
    tap_ok(same, "BandLimitedWhiteNoise: the same sequence on every run (%d samples)", r1.n);
    double mean = 0, var = 0;
    for (int k = 0; k < r1.n; k++) mean += r1.y[k][0];
    mean /= r1.n;
    for (int k = 0; k < r1.n; k++) var += (r1.y[k][0] - mean) * (r1.y[k][0] - mean);
    var /= r1.n - 1;
    /* variance Cov/Ts = 1: the sample variance has std sqrt(2/n) ~ 0.026 */
    tap_ok(fabs(mean) < 4 / sqrt(r1.n) && fabs(var - 1) < 0.13,
           "noise mean %.4f and variance %.4f (Cov/Ts = 1) within statistical bounds", mean, var);
    int held = 1;
    jg_sim_opts_t o2 = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 1, .out_step = 0.05};
    st = sim("{'name':'wn','blocks':[{'name':'N','type':'BandLimitedWhiteNoise','seed':[1,2]},"
             "{'name':'O','type':'Outport','Port':1}],'lines':[{'src':'N:1','dst':'O:1'}]}",
             o2, &r2, NULL, NULL, NULL, &err);
    for (int k = 1; held && k < r2.n; k += 2) held = r2.y[k][0] == r2.y[k - 1][0];
    tap_ok(!st && held && r2.n == 21 && r2.y[4][0] != r1.y[2][0],
           "a vector seed gives a vector output, held between the hits of Ts");
}

/* ------------------------------------------------------- discrete blocks */

static void test_discrete_filter(void)
{
    rec_t r;
    jg_error_t err;
    jg_sim_opts_t o = {.t0 = 0, .tstop = 12, .out_step = 1};
    /* an impulse from a sample-based pulse generator */
    jg_status_t st = sim(
        "{'name':'df','blocks':[{'name':'P','type':'DiscretePulseGenerator','Period':1000},"
        "{'name':'F','type':'DiscreteFilter','Numerator':[1,0.5],'Denominator':[2,-1,0.5]},"
        "{'name':'G','type':'DiscreteFilter','Numerator':[1,2,3],'Denominator':1},"
        "{'name':'O1','type':'Outport','Port':1},{'name':'O2','type':'Outport','Port':2}],"
        "'lines':[{'src':'P:1','dst':['F:1','G:1']},{'src':'F:1','dst':'O1:1'},{'src':'G:1','dst':'O2:1'}]}",
        o, &r, NULL, NULL, NULL, &err);
    double y[16] = {0}, x[16] = {0};
    x[0] = 1;
    double worst = 0, worst2 = 0;
    for (int k = 0; k < 13; k++) {   /* 2 y[k] = x[k] + 0.5 x[k-1] + y[k-1] - 0.5 y[k-2] */
        y[k] = (x[k] + (k ? 0.5 * x[k - 1] + y[k - 1] : 0) - (k > 1 ? 0.5 * y[k - 2] : 0)) / 2;
        if (k < r.n) worst = fmax(worst, fabs(r.y[k][0] - y[k]));
        double g = k == 0 ? 1 : k == 1 ? 2 : k == 2 ? 3 : 0;
        if (k < r.n) worst2 = fmax(worst2, fabs(r.y[k][1] - g));
    }
    tap_ok(!st && r.n == 13 && worst < 1e-15,
           "DiscreteFilter impulse response = the recursion in z^-1 (error %.1e)", worst);
    if (st) printf("#   %s\n", err.msg);
    tap_ok(!st && worst2 == 0, "an FIR DiscreteFilter (Denominator 1): 1, 2, 3, 0, ...");
}

static void test_zero_pole(void)
{
    rec_t r;
    jg_error_t err;
    jg_sim_opts_t o = {.t0 = 0, .tstop = 3, .out_step = 0.1};
    /* 2 (z - 0.5) / ((z - 0.2)(z + 0.4)) = (2 z - 1) / (z^2 + 0.2 z - 0.08) */
    jg_status_t st = sim(
        "{'name':'zp','blocks':[{'name':'S','type':'Step','Time':0.25},"
        "{'name':'Z','type':'DiscreteZeroPole','Zeros':0.5,'Poles':[0.2,-0.4],'Gain':2,'SampleTime':0.1},"
        "{'name':'T','type':'DiscreteTransferFcn','Numerator':[2,-1],'Denominator':[1,0.2,-0.08],'SampleTime':0.1},"
        "{'name':'O1','type':'Outport','Port':1},{'name':'O2','type':'Outport','Port':2}],"
        "'lines':[{'src':'S:1','dst':['Z:1','T:1']},{'src':'Z:1','dst':'O1:1'},{'src':'T:1','dst':'O2:1'}]}",
        o, &r, NULL, NULL, NULL, &err);
    double worst = 0, last = 0;
    for (int k = 0; k < r.n; k++) worst = fmax(worst, fabs(r.y[k][0] - r.y[k][1]));
    if (r.n) last = r.y[r.n - 1][0];
    /* DC gain 2 (0.5) / (0.8 * 1.4) */
    tap_ok(!st && r.n == 31 && worst < 1e-14 && fabs(last - 1 / 1.12) < 1e-3,
           "DiscreteZeroPole = DiscreteTransferFcn of the expanded polynomials (step response, %g)", last);
}

static void test_pulse(void)
{
    rec_t r;
    jg_error_t err;
    jg_sim_opts_t o = {.t0 = 0, .tstop = 5, .out_step = 0.5};
    jg_status_t st = sim(
        "{'name':'pg','blocks':[{'name':'P','type':'DiscretePulseGenerator','Amplitude':2,'Period':3,"
        "'PulseWidth':1,'PhaseDelay':1,'SampleTime':0.5},{'name':'O','type':'Outport','Port':1}],"
        "'lines':[{'src':'P:1','dst':'O:1'}]}",
        o, &r, NULL, NULL, NULL, &err);
    int ok = !st && r.n == 11;
    for (int k = 0; ok && k < r.n; k++) ok = r.y[k][0] == ((k == 1 || k == 4 || k == 7 || k == 10) ? 2 : 0);
    tap_ok(ok, "sample based: on at samples k >= PhaseDelay with (k - PhaseDelay) mod Period < PulseWidth");

    fx_t f;
    st = fx_load(&f, q("{'name':'pt','blocks':[{'name':'A','type':'DiscretePulseGenerator',"
                       "'PulseType':'Time based','Amplitude':[1,3],'Period':2,'PulseWidth':25,"
                       "'PhaseDelay':0.5,'SampleTime':1},"
                       "{'name':'B','type':'PulseGenerator','Amplitude':[1,3],'Period':2,'PulseWidth':25,'PhaseDelay':0.5},"
                       "{'name':'YA','type':'Integrator'},{'name':'YB','type':'Integrator'}],"
                       "'lines':[{'src':'A:1','dst':'YA:1'},{'src':'B:1','dst':'YB:1'}]}"),
                 NULL);
    ok = !st;
    int on = 0;
    for (int k = 0; ok && k <= 400; k++) {
        double t = k * 0.0125, y[4];
        ok = !src_at(&f, t, y) && y[0] == y[2] && y[1] == y[3];
        on += y[0] != 0;
    }
    tap_ok(ok && on > 50 && on < 150, "time based: the PulseGenerator's output (SampleTime ignored)");
    fx_unload(&f);
}

/* ------------------------------------------------- Derivative, RateLimiter */

/* SISO transfer function D + C (s I - A)^-1 B at a real s, nx <= 4. */
static double tf_at(const jg_lin_sys_t *L, double s)
{
    int n = (int)L->nx;
    double M[4][5] = {{0}};
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) M[i][j] = (i == j ? s : 0) - fx_entry(L->A, i, j);
        M[i][n] = fx_entry(L->B, i, 0);
    }
    for (int c = 0; c < n; c++) {   /* Gauss-Jordan, no pivoting needed for these */
        for (int i = 0; i < n; i++) {
            if (i == c) continue;
            double f = M[i][c] / M[c][c];
            for (int j = c; j <= n; j++) M[i][j] -= f * M[c][j];
        }
    }
    double g = fx_entry(L->D, 0, 0);
    for (int i = 0; i < n; i++) g += fx_entry(L->C, 0, i) * M[i][n] / M[i][i];
    return g;
}

static const char *siso_model(const char *blk)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{'name':'siso','blocks':[{'name':'In1','type':'Inport','Port':1},{'name':'B',%s},"
             "{'name':'Out1','type':'Outport','Port':1}],"
             "'lines':[{'src':'In1:1','dst':'B:1'},{'src':'B:1','dst':'Out1:1'}]}",
             blk);
    return q(buf);
}

static void test_derivative(void)
{
    fx_t f;
    jg_status_t st = fx_load(&f, siso_model("'type':'Derivative','CoefficientInTFapproximation':0.01"), NULL);
    int ok = !st && jg_program_nstates(f.p) == 1;
    for (int k = 0; ok && k < NPATHS; k++) {
        jg_lin_sys_t *L = NULL;
        ok = !jg_lin_run(f.l, paths[k].m, paths[k].r, &L, NULL, &f.err);
        double g1 = ok ? tf_at(L, 1) : NAN, g5 = ok ? tf_at(L, 5) : NAN;
        ok = ok && fabs(g1 - 1 / 1.01) < 1e-8 && fabs(g5 - 5 / 1.05) < 1e-7;
        if (!ok) printf("#   %s: G(1) = %.17g, G(5) = %.17g\n", paths[k].name, g1, g5);
        jg_lin_sys_free(L);
    }
    tap_ok(ok, "Derivative linearizes to s/(c s + 1) by every path (c = 0.01)");
    fx_unload(&f);
    st = fx_load(&f, siso_model("'type':'Derivative','CoefficientInTFapproximation':'inf'"), NULL);
    jg_lin_sys_t *L = NULL;
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &L, NULL, &f.err);
    tap_ok(!st && fabs(tf_at(L, 10) - 10 / (1e-5 + 1)) < 1e-6,
           "c = inf (Simulink's default) takes c = 1e-6: G(10) = 10/(1e-5 + 1)");
    jg_lin_sys_free(L);
    fx_unload(&f);

    rec_t r;
    jg_error_t err;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 2, .out_step = 0.5};
    o.so.max_step = 1e-3;
    jg_sim_stats_t ss;
    st = sim("{'name':'dv','blocks':[{'name':'W','type':'SineWave'},{'name':'R','type':'Ramp','Slope':3},"
             "{'name':'D1','type':'Derivative'},{'name':'D2','type':'Derivative'},"
             "{'name':'O1','type':'Outport','Port':1},{'name':'O2','type':'Outport','Port':2}],"
             "'lines':[{'src':'W:1','dst':'D1:1'},{'src':'R:1','dst':'D2:1'},{'src':'D1:1','dst':'O1:1'},"
             "{'src':'D2:1','dst':'O2:1'}]}",
             o, &r, &ss, NULL, NULL, &err);
    int k1 = at(&r, 1), k2 = at(&r, 2);
    tap_ok(!st && r.n == 5 && r.y[0][0] == 0 && r.y[0][1] == 0, "Derivative: 0 at the first step");
    tap_ok(k1 > 0 && k2 > 0 && fabs(r.y[k1][1] - 3) < 1e-9 && fabs(r.y[k2][1] - 3) < 1e-9 &&
               fabs(r.y[k1][0] - cos(1)) < 1e-3 && fabs(r.y[k2][0] - cos(2)) < 1e-3,
           "Derivative: the difference quotient over the last major step (ramp 3, sine -> cos)");
}

static void test_rate_limiter(void)
{
    rec_t r;
    jg_error_t err;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE4, .t0 = 0, .tstop = 6, .out_step = 0.1};
    o.so.fixed_step = 0.1;
    jg_status_t st = sim("{'name':'rl','blocks':[{'name':'S','type':'Step','Time':1},"
                         "{'name':'S2','type':'Step','Time':4,'After':-1},{'name':'A','type':'Sum'},"
                         "{'name':'L','type':'RateLimiter','RisingSlewLimit':0.5,'FallingSlewLimit':-2},"
                         "{'name':'O','type':'Outport','Port':1}],"
                         "'lines':[{'src':'S:1','dst':'A:1'},{'src':'S2:1','dst':'A:2'},"
                         "{'src':'A:1','dst':'L:1'},{'src':'L:1','dst':'O:1'}]}",
                         o, &r, NULL, NULL, NULL, &err);
    /* the step reaches the limiter at the major step t = 1, whose previous
     * step is t = 0.9: y = 0.5 (t - 0.9) up to 1; then down at -2 from t = 4 */
    double worst = 0;
    for (int k = 0; k < r.n; k++) {
        double t = r.t[k], want = t < 1 - 1e-9 ? 0 : fmin(1, 0.5 * (t - 0.9));
        if (t > 4 - 1e-9) want = fmax(0, 1 - 2 * (t - 3.9));
        worst = fmax(worst, fabs(r.y[k][0] - want));
    }
    tap_ok(!st && r.n == 61 && worst < 1e-12, "RateLimiter: slopes 0.5 up and -2 down over major steps (error %.1e)", worst);

    fx_t f;
    st = fx_load(&f, siso_model("'type':'RateLimiter'"), NULL);
    jg_lin_sys_t *L = NULL;
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &L, NULL, &f.err);
    tap_ok(!st && fx_entry(L->D, 0, 0) == 1, "RateLimiter linearizes as a gain 1 (LinearizeAsGain on)");
    jg_lin_sys_free(L);
    fx_unload(&f);
    st = fx_load(&f, siso_model("'type':'RateLimiter','LinearizeAsGain':'off'"), NULL);
    L = NULL;
    if (!st) st = jg_lin_run(f.l, JG_LIN_PERTURB, JG_GRAPH_REDUCE_NONE, &L, NULL, &f.err);
    tap_ok(!st && fx_entry(L->D, 0, 0) == 0, "LinearizeAsGain off: gain 0 (perturbation agrees)");
    jg_lin_sys_free(L);
    fx_unload(&f);
}

/* ------------------------------------------------------------------ PID */

static void test_pid_step(void)
{
    rec_t r;
    jg_error_t err;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 1, .out_step = 0.1,
                       .so = {.rtol = 1e-10, .atol = 1e-12}};
    jg_status_t st = sim(
        "{'name':'pid','blocks':[{'name':'E','type':'Constant','Value':2},"
        "{'name':'C1','type':'PIDController','P':3,'I':0.5,'D':0.2,'N':10},"
        "{'name':'C2','type':'PIDController','Form':'Ideal','P':3,'I':0.5,'D':0.2,'N':10},"
        "{'name':'C3','type':'PIDController','Controller':'PI','P':3,'I':0.5,'D':0.2,'InitialConditionForIntegrator':1},"
        "{'name':'O1','type':'Outport','Port':1},{'name':'O2','type':'Outport','Port':2},"
        "{'name':'O3','type':'Outport','Port':3}],"
        "'lines':[{'src':'E:1','dst':['C1:1','C2:1','C3:1']},{'src':'C1:1','dst':'O1:1'},"
        "{'src':'C2:1','dst':'O2:1'},{'src':'C3:1','dst':'O3:1'}]}",
        o, &r, NULL, NULL, NULL, &err);
    double w1 = 0, w2 = 0, w3 = 0;
    for (int k = 0; k < r.n; k++) {
        double t = r.t[k];
        w1 = fmax(w1, fabs(r.y[k][0] - (6 + t + 4 * exp(-10 * t))));        /* P e + I e t + D N e e^-Nt */
        w2 = fmax(w2, fabs(r.y[k][1] - 3 * (2 + t + 4 * exp(-10 * t))));    /* P (e + I e t + D N e e^-Nt) */
        w3 = fmax(w3, fabs(r.y[k][2] - (6 + 1 + t)));                       /* PI: no D, IC 1 */
    }
    tap_ok(!st && r.n == 11 && w1 < 1e-8, "PID parallel, constant error: P e + I e t + D N e exp(-N t) (%.1e)", w1);
    tap_ok(!st && w2 < 1e-8, "PID ideal: P (e + I e t + D N e exp(-N t)) (%.1e)", w2);
    tap_ok(!st && w3 < 1e-8, "PI: no derivative, integrator from its initial condition (%.1e)", w3);
}

/* An "I" controller with an upper limit 0.5, error 1 until t = 2, then -1. */
static const char *windup_model(const char *aw)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{'name':'aw','blocks':[{'name':'E','type':'Step','Time':2,'Before':1,'After':-1},"
             "{'name':'C','type':'PIDController','Controller':'I','I':1,'LimitOutput':'on',"
             "'UpperSaturationLimit':0.5,'AntiWindupMode':'%s'},{'name':'O','type':'Outport','Port':1}],"
             "'lines':[{'src':'E:1','dst':'C:1'},{'src':'C:1','dst':'O:1'}]}",
             aw);
    return buf;
}

static void test_pid_windup(void)
{
    rec_t r;
    jg_error_t err;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 2, .out_step = 0.25,
                       .so = {.rtol = 1e-10, .atol = 1e-12}};
    double x[2] = {0};
    jg_status_t st = sim(windup_model("none"), o, &r, NULL, NULL, x, &err);
    int k = at(&r, 0.25);
    tap_ok(!st && fabs(x[0] - 2) < 1e-8 && k >= 0 && fabs(r.y[k][0] - 0.25) < 1e-9 && r.y[r.n - 1][0] == 0.5,
           "no anti-windup: the integrator winds up to 2 behind the limit 0.5");
    st = sim(windup_model("clamping"), o, &r, NULL, NULL, x, &err);
    tap_ok(!st && fabs(x[0] - 0.5) < 1e-8, "clamping: the integrator stops at the limit (%.12g)", x[0]);
    st = sim(windup_model("back-calculation"), o, &r, NULL, NULL, x, &err);
    /* xi' = 1 + (0.5 - xi) from xi(0.5) = 0.5: xi = 1.5 - exp(-(t - 0.5)) */
    tap_ok(!st && fabs(x[0] - (1.5 - exp(-1.5))) < 1e-7, "back-calculation: xi = 1.5 - exp(-(t - 0.5)) (%.12g)",
           x[0]);
    o.tstop = 2.5;
    st = sim(windup_model("clamping"), o, &r, NULL, NULL, x, &err);
    tap_ok(!st && fabs(r.y[r.n - 1][0] - 0) < 1e-8, "clamping: the output leaves the limit as soon as the error turns");
    st = sim(windup_model("none"), o, &r, NULL, NULL, x, &err);
    tap_ok(!st && r.y[r.n - 1][0] == 0.5, "without anti-windup it stays saturated after the error turns");
}

/* The analytic Jacobian against perturbation (central differences) at
 * operating points inside and outside the limits. */
static void test_pid_jacobian(void)
{
    static const char *const cfg[] = {
        "'type':'PIDController','P':2,'I':3,'D':0.5,'N':20,'LimitOutput':'on','UpperSaturationLimit':1,"
        "'LowerSaturationLimit':-2,'AntiWindupMode':'back-calculation','Kb':0.7",
        "'type':'PIDController','Form':'Ideal','P':2,'I':3,'D':0.5,'N':20,'LimitOutput':'on',"
        "'UpperSaturationLimit':1,'LowerSaturationLimit':-2,'AntiWindupMode':'clamping'",
        "'type':'PIDController','Controller':'PD','P':2,'D':0.5,'N':20",
        "'type':'PIDController','Controller':'I','I':4"};
    static const double xs[3][2] = {{0.1, 0.02}, {3, -0.1}, {-4, 0.2}};   /* inside, above, below */
    for (int c = 0; c < 4; c++) {
        fx_t f;
        jg_status_t st = fx_load(&f, siso_model(cfg[c]), NULL);
        double worst = 0;
        int64_t nx = st ? 0 : jg_program_nstates(f.p);
        for (int p = 0; !st && p < 3; p++) {
            double *x = jg_lin_states(f.l);
            for (int64_t i = 0; i < nx; i++) x[i] = xs[p][i];
            jg_lin_inputs(f.l)[0] = 0.3;
            jg_lin_sys_t *G = NULL, *P = NULL;
            st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &G, NULL, &f.err);
            if (!st) st = jg_lin_run(f.l, JG_LIN_PERTURB, JG_GRAPH_REDUCE_NONE, &P, NULL, &f.err);
            for (int64_t i = 0; !st && i < nx + 1; i++)
                for (int64_t j = 0; j < nx + 1; j++) {
                    const cs_dl *mg = i < nx ? (j < nx ? G->A : G->B) : (j < nx ? G->C : G->D);
                    const cs_dl *mp = i < nx ? (j < nx ? P->A : P->B) : (j < nx ? P->C : P->D);
                    int64_t r = i < nx ? i : 0, cc = j < nx ? j : 0;
                    double a = fx_entry(mg, r, cc), b = fx_entry(mp, r, cc);
                    worst = fmax(worst, fabs(a - b) / fmax(1, fabs(b)));
                }
            jg_lin_sys_free(G);
            jg_lin_sys_free(P);
        }
        tap_ok(!st && worst < 1e-6, "PID Jacobian = perturbation inside and beyond the limits (config %d, %.1e)", c + 1,
               worst);
        if (st) printf("#   %s\n", f.err.msg);
        fx_unload(&f);
    }
    /* unsaturated parallel PID: P + I/s + D N s/(s + N) */
    fx_t f;
    jg_status_t st = fx_load(&f, siso_model("'type':'PIDController','P':2,'I':3,'D':0.5,'N':20"), NULL);
    jg_lin_sys_t *L = NULL;
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &L, NULL, &f.err);
    double s = 4, want = 2 + 3 / s + 0.5 * 20 * s / (s + 20);
    tap_ok(!st && L->nx == 2 && fabs(tf_at(L, s) - want) < 1e-12, "PID transfer function P + I/s + D N s/(s+N) at s = 4");
    jg_lin_sys_free(L);
    fx_unload(&f);
    st = fx_load(&f, siso_model("'type':'PIDController','Controller':'I'"), NULL);
    tap_ok(!st && jg_program_nstates(f.p) == 1, "an I controller: one state and no feedthrough");
    fx_unload(&f);
}

/* ------------------------------------------------------------------ Stop */

static void test_stop(void)
{
    rec_t r;
    jg_error_t err;
    jg_sim_stats_t ss;
    double tend = 0;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 10, .out_step = 0.5};
    jg_status_t st = sim("{'name':'st','blocks':[{'name':'W','type':'SineWave'},{'name':'I','type':'Integrator'},"
                         "{'name':'S','type':'Step','Time':1.234},{'name':'Halt','type':'Stop'},"
                         "{'name':'O','type':'Outport','Port':1}],"
                         "'lines':[{'src':'W:1','dst':'I:1'},{'src':'I:1','dst':'O:1'},{'src':'S:1','dst':'Halt:1'}]}",
                         o, &r, &ss, &tend, NULL, &err);
    tap_ok(!st && fabs(tend - 1.234) < 1e-9, "a Stop ends the run after the step where its input turns nonzero (t = %.12g)",
           tend);
    tap_ok(!st && ss.stop_block && !strcmp(ss.stop_block, "Halt") && ss.stop_time == tend,
           "the stats name the Stop block and the time");
    tap_ok(!st && r.n == 4 && fabs(r.t[3] - 1.234) < 1e-9 && fabs(r.y[3][0] - (1 - cos(r.t[3]))) < 1e-5,
           "the stop time is logged, off the output grid");
    st = sim("{'name':'st','blocks':[{'name':'W','type':'Ground'},{'name':'Halt','type':'Stop'}],"
             "'lines':[{'src':'W:1','dst':'Halt:1'}]}",
             o, &r, &ss, &tend, NULL, &err);
    tap_ok(!st && tend == 10 && !ss.stop_block, "a Stop whose input stays 0 lets the run reach its stop time");
    st = sim("{'name':'st','blocks':[{'name':'C','type':'DigitalClock','SampleTime':0.3},"
             "{'name':'B','type':'Constant','Value':-1},{'name':'A','type':'Sum'},{'name':'R','type':'Sign'},"
             "{'name':'G','type':'Sum','Inputs':'++'},{'name':'K','type':'Constant','Value':1},"
             "{'name':'Halt','type':'Stop'}],"
             "'lines':[{'src':'C:1','dst':'A:1'},{'src':'B:1','dst':'A:2'},{'src':'A:1','dst':'R:1'},"
             "{'src':'R:1','dst':'G:1'},{'src':'K:1','dst':'G:2'},{'src':'G:1','dst':'Halt:1'}]}",
             o, &r, &ss, &tend, NULL, &err);
    /* sign(t - 1) + 1 at the hits of 0.3: 0 up to t = 0.9, 2 at t = 1.2 */
    tap_ok(!st && fabs(tend - 1.2) < 1e-12, "a Stop driven by a discrete rate stops at its hit (t = %g)", tend);
}

/* ---------------------------------------------------------------- errors */

static void expect_error(const char *what, const char *blk, const char *msg)
{
    fx_t f;
    jg_status_t st = fx_load(&f, siso_model(blk), NULL);
    int ok = st == JG_PARAM && strstr(f.err.msg, msg);
    if (!tap_ok(ok, "%s", what)) printf("#   status %d: %s\n", (int)st, f.err.msg);
    fx_unload(&f);
}

static void test_errors(void)
{
    expect_error("SignalGenerator: an unknown WaveForm", "'type':'SignalGenerator','WaveForm':'triangle'",
                 "parameter 'WaveForm': expected \"sine\", \"square\", \"sawtooth\" or \"random\", got \"triangle\"");
    expect_error("SignalGenerator: an external time source", "'type':'SignalGenerator','TimeSource':'Use external signal'",
                 "parameter 'TimeSource': expected \"Use simulation time\"");
    expect_error("RepeatingSequence: decreasing times", "'type':'RepeatingSequence','rep_seq_t':[0,2,1],'rep_seq_y':[0,1,2]",
                 "parameter 'rep_seq_t': element 3 (1) is before element 2 (2)");
    expect_error("RepeatingSequence: values and times differ in number", "'type':'RepeatingSequence','rep_seq_t':[0,2],'rep_seq_y':[0,1,2]",
                 "parameter 'rep_seq_y': expected a vector of 2 values");
    expect_error("BandLimitedWhiteNoise: a non-integer seed", "'type':'BandLimitedWhiteNoise','seed':1.5",
                 "parameter 'seed': element 1 is 1.5: expected an integer");
    expect_error("DiscreteFilter: a0 = 0", "'type':'DiscreteFilter','Denominator':[0,1]",
                 "parameter 'Denominator': expected a nonzero first coefficient a0");
    expect_error("DiscreteFilter: coefficients from a port", "'type':'DiscreteFilter','NumeratorSource':'Input port'",
                 "parameter 'NumeratorSource': expected \"Dialog\"");
    expect_error("DiscreteZeroPole: complex roots", "'type':'DiscreteZeroPole','Poles':[[0.1,0.2],[0.1,-0.2]]",
                 "parameter 'Poles': expected a vector of real roots, got a 2x2 matrix");
    expect_error("DiscreteZeroPole: improper", "'type':'DiscreteZeroPole','Zeros':[1,2],'Poles':0.5",
                 "parameter 'Zeros': 2 zeros but only 1 poles");
    expect_error("DiscretePulseGenerator: PulseWidth beyond Period", "'type':'DiscretePulseGenerator','Period':2,'PulseWidth':3",
                 "parameter 'PulseWidth': element 1 is 3 samples, more than the Period 2");
    expect_error("DiscretePulseGenerator: time-based width over 100 %", "'type':'DiscretePulseGenerator','PulseType':'Time based','PulseWidth':120",
                 "expected a percentage of the period from 0 to 100");
    expect_error("Derivative: a negative coefficient", "'type':'Derivative','CoefficientInTFapproximation':-1",
                 "expected a scalar c >= 0 (or inf)");
    expect_error("RateLimiter: falling above rising", "'type':'RateLimiter','RisingSlewLimit':-2",
                 "parameter 'FallingSlewLimit': element 1 is -1, above RisingSlewLimit -2");
    expect_error("PID: discrete time", "'type':'PIDController','TimeDomain':'Discrete-time'",
                 "parameter 'TimeDomain': \"Discrete-time\" is not supported");
    expect_error("PID: lower limit above the upper", "'type':'PIDController','LimitOutput':'on','UpperSaturationLimit':-1,'LowerSaturationLimit':1",
                 "parameter 'LowerSaturationLimit': element 1 is 1, not below UpperSaturationLimit -1");
    expect_error("PID: N <= 0", "'type':'PIDController','N':0", "parameter 'N': element 1 is 0: expected a filter coefficient N > 0");
    expect_error("PID: external initial conditions", "'type':'PIDController','InitialConditionSource':'external'",
                 "\"external\" is not supported");
    expect_error("PID: unknown Controller", "'type':'PIDController','Controller':'PIDF'",
                 "parameter 'Controller': expected \"PID\", \"PI\", \"PD\", \"P\" or \"I\", got \"PIDF\"");
}

int main(void)
{
    test_signal_generator();
    test_digital_clock();
    test_repeating_sequence();
    test_noise();
    test_discrete_filter();
    test_zero_pole();
    test_pulse();
    test_derivative();
    test_rate_limiter();
    test_pid_step();
    test_pid_windup();
    test_pid_jacobian();
    test_stop();
    test_errors();
    return tap_done();
}
