/* The hybrid machinery (lib/compile/sampletime.c, lib/sim/simulate.c): sample
 * time resolution and its errors, fixed steps that miss sample hits, the hold
 * of a block given a discrete SampleTime, block priorities in the sorted
 * order, and zero-crossing location on a signal with a known crossing time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

static jg_status_t compile(const char *json, jg_model_t **m, jg_program_t **p, jg_error_t *err)
{
    *m = NULL;
    *p = NULL;
    jg_error_clear(err);
    jg_status_t st = jg_model_parse(q(json), "<test>", m, err);
    if (!st) st = jg_program_compile(*m, p, err);
    return st;
}

static void expect_compile_error(const char *what, const char *json, jg_status_t want,
                                 const char *msg)
{
    jg_model_t *m;
    jg_program_t *p;
    jg_error_t err;
    jg_status_t st = compile(json, &m, &p, &err);
    tap_ok(st == want && !strcmp(err.msg, msg), "%s", what);
    if (st != want || strcmp(err.msg, msg)) printf("# " "got %d '%s'", (int)st, err.msg), putchar(10);
    jg_program_free(p);
    jg_model_free(m);
}

static void test_resolution(void)
{
    jg_model_t *m;
    jg_program_t *p;
    jg_error_t err;
    /* 0.1 -> Gain (inherits 0.1) -> UnitDelay (inherits 0.1); a Sum of 0.1 and
     * [0.3, 0.1] inherits the faster 0.1, whose hits include the slower's */
    const char *json =
        "{'name':'r','blocks':[{'name':'A','type':'UnitDelay','SampleTime':0.1},"
        "{'name':'G','type':'Gain','Gain':2},{'name':'B','type':'UnitDelay'},"
        "{'name':'S3','type':'UnitDelay','SampleTime':[0.3,0.1]},"
        "{'name':'Sum','type':'Sum','Inputs':'++'},{'name':'C','type':'UnitDelay'},"
        "{'name':'K','type':'Constant','Value':1},{'name':'I','type':'Integrator'}],"
        "'lines':[{'src':'A:1','dst':'G:1'},{'src':'G:1','dst':['B:1','Sum:1']},"
        "{'src':'S3:1','dst':'Sum:2'},{'src':'Sum:1','dst':'C:1'},{'src':'K:1','dst':['A:1','S3:1']},"
        "{'src':'C:1','dst':'I:1'}]}";
    jg_status_t st = compile(json, &m, &p, &err);
    tap_ok(!st, "multirate model compiles");
    if (st) printf("# " "%s", err.msg), putchar(10);
    if (!st) {
        double T, off;
        const char *names[] = {"A", "G", "B", "S3", "Sum", "C", "K", "I"};
        const double want[][2] = {{0.1, 0}, {0.1, 0}, {0.1, 0}, {0.3, 0.1},
                                  {0.1, 0}, {0.1, 0}, {INFINITY, 0}, {0, 0}};
        for (int k = 0; k < 8; k++) {
            jg_program_block_sample_time(p, jg_program_find_block(p, names[k]), &T, &off);
            tap_ok(T == want[k][0] && off == want[k][1], "%s resolves to [%g, %g]", names[k],
               want[k][0], want[k][1]);
            if (T != want[k][0] || off != want[k][1]) printf("# " "got [%g, %g]", T, off), putchar(10);
        }
        tap_ok(jg_program_nrates(p) == 2, "two distinct rates");
        jg_program_rate(p, 0, &T, &off);
        tap_ok(T == 0.1 && off == 0, "fastest rate first");
        tap_ok(jg_program_ndstates(p) == 4, "four discrete states");
    }
    jg_program_free(p);
    jg_model_free(m);

    expect_compile_error(
        "rates that do not divide: a conflict naming both drivers",
        "{'name':'r','blocks':[{'name':'A','type':'UnitDelay','SampleTime':0.2},"
        "{'name':'B','type':'UnitDelay','SampleTime':0.3},{'name':'Sum','type':'Sum','Inputs':'++'},"
        "{'name':'C','type':'UnitDelay'}],"
        "'lines':[{'src':'A:1','dst':'Sum:1'},{'src':'B:1','dst':'Sum:2'},{'src':'Sum:1','dst':'C:1'}]}",
        JG_MODEL,
        "block 'Sum' (Sum): sample time conflict: it inherits 0.2 from 'A' and 0.3 from 'B', which "
        "the faster rate does not divide; set its SampleTime");
    expect_compile_error(
        "a discrete block fed by a continuous signal",
        "{'name':'r','blocks':[{'name':'W','type':'SineWave'},{'name':'D','type':'UnitDelay'}],"
        "'lines':[{'src':'W:1','dst':'D:1'}]}",
        JG_MODEL,
        "block 'D' (UnitDelay): gets a continuous sample time; a discrete block needs a discrete "
        "SampleTime (T > 0 or [T, offset])");
    expect_compile_error(
        "a discrete block in a loop of inherited blocks",
        "{'name':'r','blocks':[{'name':'D','type':'UnitDelay'},{'name':'G','type':'Gain'}],"
        "'lines':[{'src':'D:1','dst':'G:1'},{'src':'G:1','dst':'D:1'}]}",
        JG_MODEL,
        "block 'D' (UnitDelay): cannot inherit a sample time (its inputs are unconnected, constant "
        "or inherit from it); a discrete block needs a discrete SampleTime (T > 0 or [T, offset])");
    expect_compile_error(
        "an Integrator given a discrete SampleTime",
        "{'name':'r','blocks':[{'name':'I','type':'Integrator','SampleTime':0.1}],'lines':[]}",
        JG_PARAM,
        "block 'I' (Integrator), parameter 'SampleTime': a block with continuous states needs a "
        "continuous sample time (0 or -1), got 0.1");
    const char *bad[] = {"-2", "[0.1, 0.1]", "[0.1, -0.05]", "[1, 2, 3]", "'x'", "[-1, 0.5]"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char buf[512];
        snprintf(buf, sizeof buf,
                 "{'name':'r','parameters':{'x':-3},'blocks':[{'name':'G','type':'Gain','SampleTime':%s}],"
                 "'lines':[]}",
                 bad[k]);
        char what[64];
        snprintf(what, sizeof what, "SampleTime %s is rejected", bad[k]);
        expect_compile_error(what, buf, JG_PARAM,
                             "block 'G' (Gain), parameter 'SampleTime': expected -1 (inherited), 0 "
                             "(continuous), inf (constant), a period T > 0 or [T, offset] with 0 <= "
                             "offset < T");
    }
    expect_compile_error(
        "a non-integer Priority",
        "{'name':'r','blocks':[{'name':'G','type':'Gain','Priority':1.5}],'lines':[]}", JG_PARAM,
        "block 'G' (Gain), parameter 'Priority': expected an integer");
}

/* Independent chains: without priorities the file order, with them the
 * priority order where the data flow allows (C2 must still follow C1). */
static void test_priority(void)
{
    jg_model_t *m;
    jg_program_t *p;
    jg_error_t err;
    const char *json =
        "{'name':'r','blocks':[{'name':'A','type':'Constant','Priority':3},"
        "{'name':'B','type':'Constant','Priority':1},"
        "{'name':'C1','type':'Constant','Priority':2},{'name':'C2','type':'Gain','Priority':-5},"
        "{'name':'O1','type':'Outport','Port':1},{'name':'O2','type':'Outport','Port':2},"
        "{'name':'O3','type':'Outport','Port':3}],"
        "'lines':[{'src':'A:1','dst':'O1:1'},{'src':'B:1','dst':'O2:1'},{'src':'C1:1','dst':'C2:1'},"
        "{'src':'C2:1','dst':'O3:1'}]}";
    jg_status_t st = compile(json, &m, &p, &err);
    tap_ok(!st, "priority model compiles");
    if (!st) {
        int32_t n;
        const int32_t *s = jg_program_sorted(p, &n);
        int pos[16];
        for (int32_t k = 0; k < n; k++) pos[s[k]] = k;
        int32_t a = jg_program_find_block(p, "A"), b = jg_program_find_block(p, "B"),
                c1 = jg_program_find_block(p, "C1"), c2 = jg_program_find_block(p, "C2");
        tap_ok(pos[b] < pos[c1] && pos[c1] < pos[a], "priorities order independent blocks (B 1, C1 2, A 3)");
        tap_ok(pos[c1] < pos[c2], "a priority never overrides the data flow (C2 -5 after its source C1)");
    }
    jg_program_free(p);
    jg_model_free(m);
}

typedef struct {
    int n;
    double t[4096], y[4096];
} rec_t;

static int record(double t, const double *x, const double *sig, void *user)
{
    (void)x;
    rec_t *r = user;
    if (r->n >= 4096) return 1;
    r->t[r->n] = t;
    r->y[r->n] = sig[0];
    r->n++;
    return 0;
}

static jg_status_t run(const char *json, jg_sim_opts_t o, rec_t *r, jg_sim_stats_t *ss,
                       jg_error_t *err)
{
    jg_model_t *m;
    jg_program_t *p;
    jg_sim_t *s = NULL;
    memset(r, 0, sizeof *r);
    jg_status_t st = compile(json, &m, &p, err);
    if (!st) st = jg_sim_create(p, &o, &s, err);
    if (!st) st = jg_sim_run(s, o.tstop, record, r, err);
    if (s && ss) jg_sim_stats(s, ss);
    jg_sim_free(s);
    jg_program_free(p);
    jg_model_free(m);
    return st;
}

/* A Gain given SampleTime 0.5 samples and holds a continuous sine. */
static void test_hold(void)
{
    const char *json =
        "{'name':'h','blocks':[{'name':'W','type':'SineWave'},"
        "{'name':'G','type':'Gain','Gain':1,'SampleTime':0.5},{'name':'I','type':'Integrator'},"
        "{'name':'O','type':'Outport','Port':1}],"
        "'lines':[{'src':'W:1','dst':'I:1'},{'src':'W:1','dst':'G:1'},{'src':'G:1','dst':'O:1'}]}";
    rec_t r;
    jg_error_t err;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 3, .out_step = 0.05};
    jg_status_t st = run(json, o, &r, NULL, &err);
    tap_ok(!st && r.n == 61, "sample and hold runs (61 output points)");
    double worst = 0;
    for (int k = 0; k < r.n; k++) {
        double th = floor(r.t[k] / 0.5 + 1e-9) * 0.5;
        worst = fmax(worst, fabs(r.y[k] - sin(th)));
    }
    tap_ok(worst < 1e-12, "the Gain holds sin(0.5 floor(t / 0.5)) between its hits (error %.1e)", worst);

    o.solver = JG_SOLVER_ODE4;
    o.so.fixed_step = 0.03;
    st = run(json, o, &r, NULL, &err);
    tap_ok(st == JG_ARG && !strcmp(err.msg, "sample time [0.5, 0] of block 'G' is not a multiple of the "
                                        "fixed step 0.03"),
       "a fixed step that misses sample hits is an error");
    if (st != JG_ARG) printf("# " "%d %s", (int)st, err.msg), putchar(10);
    o.so.fixed_step = 0.05;
    st = run(json, o, &r, NULL, &err);
    worst = 0;
    for (int k = 0; k < r.n; k++) worst = fmax(worst, fabs(r.y[k] - sin(floor(r.t[k] / 0.5 + 1e-9) * 0.5)));
    tap_ok(!st && worst < 1e-12, "ode4 with a step dividing the period holds the same samples");
}

/* Step at t = 0.7137 into an Integrator: the Step's zero crossing puts a
 * major step at the step time, so ode45 integrates the kink exactly. */
static void test_step_event(void)
{
    const char *json =
        "{'name':'s','blocks':[{'name':'S','type':'Step','Time':0.7137,'Before':0,'After':1},"
        "{'name':'I','type':'Integrator'},{'name':'O','type':'Outport','Port':1}],"
        "'lines':[{'src':'S:1','dst':'I:1'},{'src':'I:1','dst':'O:1'}]}";
    rec_t r;
    jg_error_t err;
    jg_sim_stats_t ss;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 2, .out_step = 0.1};
    jg_status_t st = run(json, o, &r, &ss, &err);
    double worst = 0;
    for (int k = 0; k < r.n; k++) worst = fmax(worst, fabs(r.y[k] - fmax(0, r.t[k] - 0.7137)));
    tap_ok(!st && ss.events == 1, "the Step time is one zero-crossing event (%ld)", ss.events);
    tap_ok(worst < 1e-12, "ramp after the step exact to %.1e", worst);
    o.zc = JG_ZC_MODE_OFF;
    st = run(json, o, &r, &ss, &err);
    tap_ok(!st && ss.events == 0, "--zc off: no event located");
}

/* Chattering (Simulink, "How Simulink Works"): x' = -sign(x), x(0) = 1 reaches
 * 0 at t = 1 and then slides; every step crosses zero.  The non-adaptive
 * algorithm stops after 1000 consecutive crossings naming the block, the
 * adaptive one turns location off and completes with x held at zero up to the
 * step size; so does the bouncing ball past its Zeno time in both (it comes to
 * rest). */
static void test_chattering(void)
{
    const char *json =
        "{'name':'chatter','blocks':[{'name':'x','type':'Integrator','InitialCondition':1},"
        "{'name':'Sign','type':'Sign'},{'name':'Neg','type':'Gain','Gain':-1},"
        "{'name':'Out1','type':'Outport','Port':1}],"
        "'lines':[{'src':'x:1','dst':['Sign:1','Out1:1']},{'src':'Sign:1','dst':'Neg:1'},"
        "{'src':'Neg:1','dst':'x:1'}]}";
    rec_t r;
    jg_error_t err;
    jg_sim_stats_t ss;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 1.2, .out_step = 0.05};
    jg_status_t st = run(json, o, &r, &ss, &err);
    const char *want = "too many consecutive zero crossings (1000) at t = ";
    tap_ok(st == JG_NUMERIC && !strncmp(err.msg, want, strlen(want)) &&
               strstr(err.msg, "in 'Sign' (Sign): the model chatters or is Zeno"),
           "nonadaptive: x' = -sign(x) stops after 1000 consecutive crossings naming 'Sign'");
    if (st != JG_NUMERIC) printf("# %d %s\n", (int)st, err.msg);
    double tfail = st ? atof(err.msg + strlen(want)) : 0;
    tap_ok(fabs(tfail - 1) < 1e-9, "... at the sliding time t = 1 (%.15g)", tfail);
    o.max_zc = 50;
    st = run(json, o, &r, &ss, &err);
    tap_ok(st == JG_NUMERIC && strstr(err.msg, "consecutive zero crossings (50)"), "--max-zc 50 is honoured");
    o.max_zc = 0;
    o.zc = JG_ZC_MODE_ADAPTIVE;
    st = run(json, o, &r, &ss, &err);
    double worst = 0;
    for (int k = 0; k < r.n; k++) worst = fmax(worst, fabs(r.y[k] - fmax(0, 1 - r.t[k])));
    tap_ok(!st && r.n == 25 && fabs(r.t[r.n - 1] - 1.2) < 1e-12, "adaptive: the run completes");
    tap_ok(worst < 1e-4, "adaptive: x = max(0, 1 - t) within %.1e", worst);
    o.zc = JG_ZC_MODE_OFF;
    st = run(json, o, &r, &ss, &err);
    tap_ok(!st && ss.events == 0, "off: completes without locating");
}

/* graphs/sampled_pi.json against its exact ZOH discretization (the plant
 * 1/(s+1) over one sample: y+ = u + (y - u) e^-Ts), at every sample. */
static void test_sampled_pi(void)
{
    FILE *fp = fopen("graphs/sampled_pi.json", "rb");
    static char buf[8192];
    size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    if (fp) fclose(fp);
    buf[n] = 0;
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_sim_t *s = NULL;
    jg_error_t err;
    rec_t r;
    memset(&r, 0, sizeof r);
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 3, .out_step = 0.1};
    o.so.rtol = 1e-10;
    o.so.atol = 1e-12;
    jg_status_t st = jg_model_parse(buf, "graphs/sampled_pi.json", &m, &err);
    if (!st) st = jg_program_compile(m, &p, &err);
    if (!st) st = jg_sim_create(p, &o, &s, &err);
    if (!st) st = jg_sim_run(s, o.tstop, record, &r, &err);
    tap_ok(!st && r.n == 31, "graphs/sampled_pi.json simulates (31 samples)");
    double y = 0, xi = 0, d = 0, worst = 0;
    const double Ts = 0.1, Kp = 2, Ki = 3;
    for (int k = 0; k < r.n; k++) {
        double t = k * Ts, ref = t >= 0.5 - 1e-12 ? 1 : 0, u = d, e = ref - y;
        worst = fmax(worst, fabs(r.y[k] - y));
        double pi = Kp * e + xi;
        xi += Ki * Ts * e;
        d = pi;
        y = u + (y - u) * exp(-Ts);
    }
    tap_ok(worst < 1e-8, "y at every sample equals the exact discretization (error %.1e)", worst);
    jg_sim_free(s);
    jg_program_free(p);
    jg_model_free(m);
}

int main(void)
{
    test_resolution();
    test_priority();
    test_hold();
    test_step_event();
    test_chattering();
    test_sampled_pi();
    return tap_done();
}
