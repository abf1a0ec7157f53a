/* Time sources (Step, SineWave, Ramp, Clock, PulseGenerator, FromWorkspace),
 * lookup tables (Lookup1D, Lookup2D) and discontinuous blocks (DeadZone,
 * Sign, MinMax, Relay, Switch): values against hand computations, analytic
 * Jacobians against the matrix method, perturbation and central differences,
 * simulations through an Integrator, and every setup error message. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

#define PI 3.14159265358979323846
#define MAXW 16

/* how fx_check_case names central differences at a point that is not smooth */
#define KINK " (kink) central differences "

/* Value of a source block (no inputs) at time t: width in *n. */
static jg_status_t source_at(const char *blk, double t, double *y, int64_t *n, jg_error_t *err)
{
    fx_t f;
    jg_status_t st = fx_load(&f, fx_blk_model(blk, 0, NULL), NULL);
    if (!st) {
        *n = jg_program_nstates(f.p);
        st = fx_value_at(&f, t, NULL, y);
    }
    if (st) *err = f.err;
    fx_unload(&f);
    return st;
}

static void check_source(const char *what, const char *blk, double t, int n, const double *want)
{
    double y[MAXW];
    int64_t w = -1;
    jg_error_t err;
    jg_status_t st = source_at(blk, t, y, &w, &err);
    double e = 0;
    for (int i = 0; !st && i < n; i++) e = fmax(e, fabs(y[i] - want[i]) / fmax(1, fabs(want[i])));
    if (st) printf("#   %s\n", err.msg);
    else if (w != n || e > 1e-14)
        for (int i = 0; i < n && i < w; i++) printf("#   y[%d] = %.17g, expected %.17g\n", i, y[i], want[i]);
    tap_ok(!st && w == n && e <= 1e-14, "%s at t = %g", what, t);
}

/* --------------------------------------------------------- time sources */

static void test_sources(void)
{
    const char *step = "'type':'Step','Time':1.5,'Before':[0,-1],'After':2";
    check_source("Step before Time: Before [0 -1]", step, 1.0, 2, (double[]){0, -1});
    check_source("Step at exactly Time: After", step, 1.5, 2, (double[]){2, 2});
    check_source("Step after Time", step, 7, 2, (double[]){2, 2});
    check_source("Step defaults (Time 1, 0 -> 1) at 0.999", "'type':'Step'", 0.999, 1, (double[]){0});
    check_source("Step defaults at 1", "'type':'Step'", 1, 1, (double[]){1});

    const double t = 0.3;
    check_source("SineWave Amplitude [1 2], Bias 1, Frequency 2, Phase [0 0.5]",
                 "'type':'SineWave','Amplitude':[1,2],'Bias':1,'Frequency':2,'Phase':[0,0.5]", t, 2,
                 (double[]){sin(2 * t) + 1, 2 * sin(2 * t + 0.5) + 1});
    check_source("SineWave defaults: sin(t)", "'type':'SineWave','SineType':'Time based'", 2.5, 1,
                 (double[]){sin(2.5)});

    const char *ramp = "'type':'Ramp','Slope':[2,-1],'StartTime':1,'InitialOutput':0.5";
    check_source("Ramp before StartTime: InitialOutput", ramp, 0.5, 2, (double[]){0.5, 0.5});
    check_source("Ramp at StartTime", ramp, 1, 2, (double[]){0.5, 0.5});
    check_source("Ramp after StartTime", ramp, 3.25, 2, (double[]){0.5 + 2 * 2.25, 0.5 - 2.25});
    check_source("Ramp defaults: y = t", "'type':'Ramp'", 4, 1, (double[]){4});

    check_source("Clock", "'type':'Clock'", 2.75, 1, (double[]){2.75});

    /* Period 2, 25 %: on for 0.5 s from PhaseDelay 0.5 + 2k */
    const char *pulse = "'type':'PulseGenerator','Amplitude':3,'Period':2,'PulseWidth':25,'PhaseDelay':0.5";
    const struct {
        double t, y;
    } pt[] = {{0, 0}, {0.49, 0}, {0.5, 3}, {0.9, 3}, {1.0, 0}, {2.4, 0}, {2.5, 3}, {2.99, 3}, {3, 0}, {4.75, 3}};
    for (size_t k = 0; k < sizeof pt / sizeof *pt; k++)
        check_source("PulseGenerator A 3, period 2, 25 %, delay 0.5", pulse, pt[k].t, 1, &pt[k].y);
    const char *pdef = "'type':'PulseGenerator','PulseType':'Time based'";
    check_source("PulseGenerator defaults on at 4.99", pdef, 4.99, 1, (double[]){1});
    check_source("PulseGenerator defaults off at 5", pdef, 5, 1, (double[]){0});
    check_source("PulseGenerator defaults on again at 10", pdef, 10, 1, (double[]){1});
    check_source("PulseGenerator vector Amplitude, PulseWidth [0 100]",
                 "'type':'PulseGenerator','Amplitude':[1,2],'PulseWidth':[0,100]", 3, 2,
                 (double[]){0, 2});

    /* sources have no Jacobian: Step + In1 -> Out1 linearizes to D = 1 at any t */
    fx_t f;
    jg_status_t st = fx_load(&f, q("{'blocks':[{'name':'In1','type':'Inport','Port':1},"
                                "{'name':'S','type':'Step'},{'name':'C','type':'Clock'},"
                                "{'name':'Sum','type':'Sum','Inputs':'+++'},"
                                "{'name':'Out1','type':'Outport','Port':1}],"
                                "'lines':[{'src':'In1:1','dst':'Sum:1'},{'src':'S:1','dst':'Sum:2'},"
                                "{'src':'C:1','dst':'Sum:3'},{'src':'Sum:1','dst':'Out1:1'}]}"), NULL);
    jg_lin_sys_t *s = NULL;
    if (!st) {
        jg_lin_set_time(f.l, 2);
        st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_NONE, &s, NULL, &f.err);
    }
    const jg_graph_t *g = NULL;
    if (!st) st = jg_lin_graph(f.l, JG_GRAPH_REDUCE_NONE, &g, &f.err);
    int src_edges = 0;
    for (int64_t e = 0; !st && e < jg_graph_nedges(g); e++) {
        jg_edge_info_t ei;
        jg_vertex_info_t vs;
        jg_graph_edge(g, e, &ei);
        jg_graph_vertex(g, ei.dst, &vs);
        int32_t b = vs.block;
        if (b == jg_program_find_block(f.p, "S") || b == jg_program_find_block(f.p, "C")) src_edges++;
    }
    tap_ok(!st && s->nu == 1 && s->ny == 1 && s->D->p[1] == 1 && s->D->x[0] == 1 && src_edges == 0,
           "Step and Clock are constants to linearization: D = 1, no edge into them");
    if (st) printf("#   %s\n", f.err.msg);
    jg_lin_sys_free(s);
    fx_unload(&f);
}

/* --------------------------------------------------------- FromWorkspace */

static char tmpdir[256], csv_path[300];   /* a scratch directory of this run */

static const char *fw_model(const char *path)
{
    static char blk[512];
    snprintf(blk, sizeof blk, "'type':'FromWorkspace','File':'%s'", path);
    return blk;
}

static void test_fromworkspace(void)
{
    /* CRLF, blanks around fields, a blank line and no newline at the end */
    tl_write_file(csv_path, "time, a, b\r\n0, 1, 10\r\n 1 ,3,20\r\n\r\n3,-1,2e1");
    const struct {
        double t, a, b;
    } pt[] = {{-1, 1, 10}, {0, 1, 10}, {0.5, 2, 15}, {0.25, 1.5, 12.5}, {1, 3, 20},
              {2, 1, 20}, {3, -1, 20}, {5, -1, 20}};
    for (size_t k = 0; k < sizeof pt / sizeof *pt; k++) {
        char what[96];
        snprintf(what, sizeof what, "FromWorkspace (%s)",
                 pt[k].t < 0 ? "before the first row: first row" : pt[k].t > 3 ? "after the end: hold" : "interpolated");
        check_source(what, fw_model(csv_path), pt[k].t, 2, (double[]){pt[k].a, pt[k].b});
    }
    /* Integrator(FromWorkspace a) over [0, 3] = 2 + 2 = 4; ode4 with h = 0.5
     * hits the kink at t = 1, and RK4 is exact on linear pieces */
    char model[1024];
    snprintf(model, sizeof model,
             "{'blocks':[{'name':'F','type':'FromWorkspace','File':'%s'},"
             "{'name':'D','type':'Demux','Outputs':2},{'name':'I','type':'Integrator'},"
             "{'name':'T','type':'Terminator'}],'lines':[{'src':'F:1','dst':'D:1'},"
             "{'src':'D:1','dst':'I:1'},{'src':'D:2','dst':'T:1'}]}",
             csv_path);
    fx_t f;
    jg_status_t st = fx_load(&f, q(model), NULL);
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE4, .t0 = 0, .tstop = 3};
    o.so.fixed_step = 0.5;
    jg_sim_t *s = NULL;
    if (!st) st = jg_sim_create(f.p, &o, &s, &f.err);
    if (!st) st = jg_sim_run(s, 3, NULL, NULL, &f.err);
    tap_ok(!st && fabs(jg_sim_states(s)[0] - 4) < 1e-13,
           "Integrator(FromWorkspace) with ode4, h = 0.5: integral over [0, 3] = 4 (got %.17g)",
           st ? NAN : jg_sim_states(s)[0]);
    if (st) printf("#   %s\n", f.err.msg);
    jg_sim_free(s);
    fx_unload(&f);

    /* 200 rows (the row buffer grows): y = 2k at t = k/10, bisection finds the row */
    static char big[8192];
    int n = snprintf(big, sizeof big, "t,y\n");
    for (int k = 0; k < 200; k++) n += snprintf(big + n, sizeof big - n, "%g,%d\n", k / 10.0, 2 * k);
    tl_write_file(csv_path, big);
    check_source("FromWorkspace with 200 rows, between rows 124 and 125", fw_model(csv_path), 12.35,
                 1, (double[]){247});
    check_source("FromWorkspace with 200 rows, on row 38", fw_model(csv_path), 3.7, 1, (double[]){74});

    /* a single row is a constant */
    tl_write_file(csv_path, "t,y\n2,7\n");
    check_source("FromWorkspace with one row: constant", fw_model(csv_path), 0, 1, (double[]){7});
    check_source("FromWorkspace with one row: constant after it", fw_model(csv_path), 9, 1, (double[]){7});
}

/* ----------------------------------------------------------- simulation */

/* Simulate json (' for ") with solver at step h (tolerances for the
 * variable-step ones), output points every 0.25. */
static jg_status_t run(const char *json, const char *solver, double h, double tstop, tl_rec_t *r,
                       jg_error_t *err)
{
    jg_sim_opts_t o = {.solver = (jg_solver_method_t)jg_solver_method_parse(solver), .t0 = 0, .tstop = tstop,
                       .out_step = 0.25, .so = {.fixed_step = h, .rtol = 1e-10, .atol = 1e-12}};
    return tl_simulate(q(json), &o, r, NULL, err);
}

static void test_simulation(void)
{
    static const char step_int[] =
        "{'blocks':[{'name':'S','type':'Step','Time':1,'Before':0,'After':1},"
        "{'name':'I','type':'Integrator'},{'name':'Out1','type':'Outport','Port':1}],"
        "'lines':[{'src':'S:1','dst':'I:1'},{'src':'I:1','dst':'Out1:1'}]}";
    static tl_rec_t r;
    jg_error_t err;
    /* ode1 evaluates at the start of each step only: the ramp is exact */
    jg_status_t st = run(step_int, "ode1", 0.25, 3, &r, &err);
    double e = 0;
    for (int k = 0; k < r.n; k++) e = fmax(e, fabs(r.x[k] - fmax(0, r.t[k] - 1)));
    tap_ok(!st && r.n == 13 && e < 1e-14,
           "Integrator(Step at 1) with ode1, h = 0.25: x = max(0, t - 1) exactly (error %.1e)", e);
    if (st) printf("#   %s\n", err.msg);

    /* ode4 lands on t = 1: x is 0 before, then a ramp of slope exactly 1.
     * The step [0.75, 1] evaluates its last stage at t = 1, where the Step
     * already gives After (blocks cannot tell minor from major steps yet), so
     * the ramp may be offset by at most h/6; the offset is constant after 1. */
    st = run(step_int, "ode4", 0.25, 3, &r, &err);
    double before = 0, slope_err = 0, off = st || r.n < 13 ? NAN : r.x[4] - 0;
    for (int k = 0; !st && k < r.n; k++) {
        if (r.t[k] < 1) before = fmax(before, fabs(r.x[k]));
        else slope_err = fmax(slope_err, fabs((r.x[k] - (r.t[k] - 1)) - off));
    }
    tap_ok(!st && r.n == 13 && before == 0 && slope_err < 1e-13 && fabs(off) <= 0.25 / 6 + 1e-15,
           "Integrator(Step at 1) with ode4, h = 0.25: 0 before 1, slope 1 after (offset %.3g <= h/6)",
           off);
    if (st) printf("#   %s\n", err.msg);

    /* Integrator(Clock) = t^2/2 and Integrator(Ramp) with ode4 (exact for polynomials) */
    static const char clock_int[] =
        "{'blocks':[{'name':'C','type':'Clock'},{'name':'I','type':'Integrator','InitialCondition':1}],"
        "'lines':[{'src':'C:1','dst':'I:1'}]}";
    st = run(clock_int, "ode4", 0.5, 3, &r, &err);
    e = 0;
    for (int k = 0; k < r.n; k++) e = fmax(e, fabs(r.x[k] - (1 + r.t[k] * r.t[k] / 2)));
    tap_ok(!st && r.n == 13 && e < 1e-13, "Integrator(Clock) with ode4: 1 + t^2/2 (error %.1e)", e);
    /* Integrator(SineWave) with ode45 at tight tolerances: 1 - cos t */
    static const char sine_int[] =
        "{'blocks':[{'name':'W','type':'SineWave'},{'name':'I','type':'Integrator'}],"
        "'lines':[{'src':'W:1','dst':'I:1'}]}";
    st = run(sine_int, "ode45", 0, 2 * PI, &r, &err);
    e = 0;
    for (int k = 0; k < r.n; k++) e = fmax(e, fabs(r.x[k] - (1 - cos(r.t[k]))));
    tap_ok(!st && r.n == 26 && e < 1e-8, "Integrator(SineWave) with ode45: 1 - cos t (error %.1e)", e);
    /* Integrator(PulseGenerator): period 1, 50 %, amplitude 2 -> 1 per period; ode1 h = 0.25 */
    static const char pulse_int[] =
        "{'blocks':[{'name':'P','type':'PulseGenerator','Amplitude':2,'Period':1,'PulseWidth':50},"
        "{'name':'I','type':'Integrator'}],'lines':[{'src':'P:1','dst':'I:1'}]}";
    st = run(pulse_int, "ode1", 0.25, 3, &r, &err);
    tap_ok(!st && r.n == 13 && fabs(r.x[4] - 1) < 1e-14 && fabs(r.x[6] - 2) < 1e-14 &&
               fabs(r.x[12] - 3) < 1e-14 && fabs(r.x[2] - 1) < 1e-14,
           "Integrator(PulseGenerator) with ode1: 1 per period, flat in the off half");
}

/* --------------------------------------------------------------- lookups */

static void test_lookup(void)
{
    const char *l1 = "'type':'Lookup1D','BreakpointsForDimension1':[0,1,3],'Table':[0,2,-2]";
    const char *l1lin =
        "'type':'Lookup1D','BreakpointsForDimension1':[0,1,3],'Table':[0,2,-2],'ExtrapMethod':'Linear'";
    const char *l1clip =
        "'type':'Lookup1D','BreakpointsForDimension1':[[0],[1],[3]],'Table':[[0],[2],[-2]],'ExtrapMethod':'Clip'";
    const fx_case_t t[] = {
        {"Lookup1D inside segment 1", l1, 1, {1}, {0.5}, 1, {1}, {2}, 1},
        {"Lookup1D inside segment 2", l1, 1, {1}, {2}, 1, {0}, {-2}, 1},
        {"Lookup1D clipped below", l1, 1, {1}, {-1}, 1, {0}, {0}, 1},
        {"Lookup1D clipped above", l1clip, 1, {1}, {4}, 1, {-2}, {0}, 1},
        {"Lookup1D linear extrapolation below", l1lin, 1, {1}, {-1}, 1, {-2}, {2}, 1},
        {"Lookup1D linear extrapolation above", l1lin, 1, {1}, {4}, 1, {-4}, {-2}, 1},
        {"Lookup1D on an inner breakpoint: segment to the right", l1, 1, {1}, {1}, 1, {2}, {-2}, 0},
        {"Lookup1D on the first breakpoint: first segment", l1, 1, {1}, {0}, 1, {0}, {2}, 0},
        {"Lookup1D on the last breakpoint: last segment", l1, 1, {1}, {3}, 1, {-2}, {-2}, 0},
        {"Lookup1D element-wise on width 4", l1, 1, {4}, {-1, 0.5, 2, 4}, 4, {0, 1, 0, -2},
         {0, 0, 0, 0, /**/ 0, 2, 0, 0, /**/ 0, 0, -2, 0, /**/ 0, 0, 0, 0}, 1},
        {"Lookup1D many breakpoints (bisection)",
         "'type':'Lookup1D','BreakpointsForDimension1':[0,1,2,3,4,5,6,7,8],"
         "'Table':[0,1,4,9,16,25,36,49,64]",
         1, {3}, {5.5, 0.25, 7.75}, 3, {30.5, 0.25, 60.25},
         {11, 0, 0, /**/ 0, 1, 0, /**/ 0, 0, 15}, 1},
    };
    fx_check_cases(t, sizeof t / sizeof *t, KINK);

    /* Table rows: u1 in [0 1 2], columns: u2 in [0 10] */
    const char *l2 = "'type':'Lookup2D','BreakpointsForDimension1':[0,1,2],"
                     "'BreakpointsForDimension2':[0,10],'Table':[[0,1],[2,3],[4,8]]";
    const char *l2lin = "'type':'Lookup2D','BreakpointsForDimension1':[0,1,2],"
                        "'BreakpointsForDimension2':[0,10],'Table':[[0,1],[2,3],[4,8]],"
                        "'ExtrapMethod':'Linear'";
    const fx_case_t t2[] = {
        /* row 0..1 at 0.5, column fraction 0.5: rows 0.5 and 2.5 -> 1.5 */
        {"Lookup2D in cell (1,1)", l2, 2, {1, 1}, {0.5, 5}, 1, {1.5}, {2, 0.1}, 1},
        /* rows 1..2 at 0.5, fraction 0.2: 2.2 and 4.8 -> 3.5 */
        {"Lookup2D in cell (2,1)", l2, 2, {1, 1}, {1.5, 2}, 1, {3.5}, {2.6, 0.25}, 1},
        {"Lookup2D u1 clipped above", l2, 2, {1, 1}, {3, 5}, 1, {6}, {0, 0.4}, 1},
        {"Lookup2D both clipped", l2, 2, {1, 1}, {-1, 12}, 1, {1}, {0, 0}, 1},
        {"Lookup2D u1 extrapolated linearly", l2lin, 2, {1, 1}, {3, 5}, 1, {9.5}, {3.5, 0.7}, 1},
        {"Lookup2D u2 extrapolated linearly", l2lin, 2, {1, 1}, {0.5, 20}, 1, {3}, {2, 0.1}, 1},
        {"Lookup2D vector u1, scalar u2 expands", l2, 2, {2, 1}, {0.5, 1.5, 5}, 2, {1.5, 4.25},
         {2, 0, 0.1, /**/ 0, 3.5, 0.25}, 1},
        {"Lookup2D on a breakpoint: cell to the right", l2, 2, {1, 1}, {1, 0}, 1, {2}, {2, 0.1}, 0},
    };
    fx_check_cases(t2, sizeof t2 / sizeof *t2, KINK);
}

/* --------------------------------------------------------- discontinuous */

static void test_discontinuous(void)
{
    const char *dz = "'type':'DeadZone','LowerValue':-1,'UpperValue':2";
    const char *mm3 = "'type':'MinMax','Function':'max','Inputs':3";
    const char *relay = "'type':'Relay','OnSwitchValue':1,'OffSwitchValue':-1,'OnOutputValue':5,"
                        "'OffOutputValue':-5";
    const double eps = 2.220446049250313e-16;
    const fx_case_t t[] = {
        {"DeadZone below", dz, 1, {1}, {-3}, 1, {-2}, {1}, 1},
        {"DeadZone inside", dz, 1, {1}, {0.5}, 1, {0}, {0}, 1},
        {"DeadZone above", dz, 1, {1}, {5}, 1, {3}, {1}, 1},
        {"DeadZone on its upper edge: slope 0", dz, 1, {1}, {2}, 1, {0}, {0}, 0},
        {"DeadZone defaults, width 3", "'type':'DeadZone'", 1, {3}, {-2, 0.1, 0.75}, 3,
         {-1.5, 0, 0.25}, {1, 0, 0, /**/ 0, 0, 0, /**/ 0, 0, 1}, 1},
        {"DeadZone vector limits, scalar input expands",
         "'type':'DeadZone','LowerValue':[-1,-3],'UpperValue':[1,0]", 1, {1}, {0.5}, 2, {0, 0.5},
         {0, 1}, 1},
        {"Sign", "'type':'Sign'", 1, {3}, {-2, 0, 3}, 3, {-1, 0, 1}, {0}, 0},
        {"Sign away from 0", "'type':'Sign'", 1, {2}, {-2, 3}, 2, {-1, 1}, {0}, 1},
        {"MinMax min over one input (default)", "'type':'MinMax'", 1, {3}, {3, 7, -1}, 1, {-1},
         {0, 0, 1}, 1},
        {"MinMax max over one input", "'type':'MinMax','Function':'max','Inputs':'1'", 1, {3},
         {3, 7, -1}, 1, {7}, {0, 1, 0}, 1},
        {"MinMax max over one input with a tie: 1/2 each", "'type':'MinMax','Function':'max'", 1,
         {3}, {7, 7, -1}, 1, {7}, {0.5, 0.5, 0}, 0},
        {"MinMax min of two, scalar expands", "'type':'MinMax','Function':'min','Inputs':2", 2,
         {3, 1}, {1, 5, 3, 2}, 3, {1, 2, 2}, {1, 0, 0, 0, /**/ 0, 0, 0, 1, /**/ 0, 0, 0, 1}, 1},
        {"MinMax max of three", mm3, 3, {2, 2, 2}, {1, 8, 4, 2, 3, 9}, 2, {4, 9},
         {0, 0, 1, 0, 0, 0, /**/ 0, 0, 0, 0, 0, 1}, 1},
        {"MinMax max of three with a three-way tie", mm3, 3, {1, 1, 1}, {2, 2, 2}, 1, {2},
         {1.0 / 3, 1.0 / 3, 1.0 / 3}, 0},
        {"Relay above OnSwitchValue", relay, 1, {1}, {2}, 1, {5}, {0}, 1},
        {"Relay below OffSwitchValue", relay, 1, {1}, {-2}, 1, {-5}, {0}, 1},
        {"Relay at OnSwitchValue: on", relay, 1, {1}, {1}, 1, {5}, {0}, 0},
        {"Relay at OffSwitchValue: off", relay, 1, {1}, {-1}, 1, {-5}, {0}, 0},
        {"Relay between its switch points, above the midpoint: holds its state (initially off)", relay, 1, {1}, {0.5}, 1, {-5},
         {0}, 1},
        {"Relay between its switch points, below the midpoint: holds its state (initially off)", relay, 1, {1}, {-0.5}, 1,
         {-5}, {0}, 1},
        {"Relay defaults (eps, eps, 1, 0) on width 3", "'type':'Relay'", 1, {3}, {eps, 0, -1}, 3,
         {1, 0, 0}, {0}, 0},
        {"Relay vector outputs, scalar input expands",
         "'type':'Relay','OnOutputValue':[1,2],'OffOutputValue':[-1,-2]", 1, {1}, {3}, 2, {1, 2},
         {0, 0}, 1},
        {"Switch u2 >= 0 (default)", "'type':'Switch'", 3, {3, 3, 3},
         {1, 2, 3, -1, 0, 1, 10, 20, 30}, 3, {10, 2, 3},
         {0, 0, 0, 0, 0, 0, 1, 0, 0, /**/ 0, 1, 0, 0, 0, 0, 0, 0, 0, /**/ 0, 0, 1, 0, 0, 0, 0, 0, 0},
         0},
        {"Switch u2 > Threshold 0", "'type':'Switch','Criteria':'u2 > Threshold'", 3, {3, 3, 3},
         {1, 2, 3, -1, 0, 1, 10, 20, 30}, 3, {10, 20, 3},
         {0, 0, 0, 0, 0, 0, 1, 0, 0, /**/ 0, 0, 0, 0, 0, 0, 0, 1, 0, /**/ 0, 0, 1, 0, 0, 0, 0, 0, 0},
         0},
        {"Switch u2 ~= 0", "'type':'Switch','Criteria':'u2 ~= 0','Threshold':5", 3, {3, 3, 3},
         {1, 2, 3, -1, 0, 1, 10, 20, 30}, 3, {1, 20, 3},
         {1, 0, 0, 0, 0, 0, 0, 0, 0, /**/ 0, 0, 0, 0, 0, 0, 0, 1, 0, /**/ 0, 0, 1, 0, 0, 0, 0, 0, 0},
         0},
        {"Switch vector Threshold, scalar control and data expand",
         "'type':'Switch','Threshold':[0,1,2]", 3, {1, 1, 3}, {7, 1.5, 10, 20, 30}, 3,
         {7, 7, 30}, {1, 0, 0, 0, 0, /**/ 1, 0, 0, 0, 0, /**/ 0, 0, 0, 0, 1}, 1},
        {"Switch away from the threshold", "'type':'Switch','Criteria':'u2 > Threshold','Threshold':0.5",
         3, {1, 1, 1}, {4, -3, 9}, 1, {9}, {0, 0, 1}, 1},
    };
    fx_check_cases(t, sizeof t / sizeof *t, KINK);

    /* zero slopes still make direct feedthrough: the output is computed after the input */
    const struct {
        const char *blk;
        int nin, port;
    } ft[] = {{"'type':'Sign'", 1, 0}, {"'type':'Relay'", 1, 0}, {"'type':'Switch'", 3, 1}};
    for (size_t k = 0; k < sizeof ft / sizeof *ft; k++) {
        fx_t f;
        int w[3] = {1, 1, 1};
        jg_status_t st = fx_load(&f, fx_blk_model(ft[k].blk, ft[k].nin, w), NULL);
        int32_t B = st ? -1 : jg_program_find_block(f.p, "B");
        tap_ok(!st && jg_program_block_feedthrough(f.p, B, ft[k].port),
               "%s: input %d has direct feedthrough despite slope 0", ft[k].blk, ft[k].port + 1);
        fx_unload(&f);
    }
}

/* ---------------------------------------------------------------- errors */

/* Compile block B and expect status want and message msg; the test is named
 * by `what`, or by the message when what is NULL. */
static void test_errors(void)
{
    static const int w1[3] = {1, 1, 1}, w3[3] = {3, 3, 3};
    const fx_err_case_t t[] = {
        /* lookup tables */
        {"'type':'Lookup1D','BreakpointsForDimension1':[0,2,1],'Table':[1,2,3]", 1, w1, JG_PARAM,
         "block 'B' (Lookup1D), parameter 'BreakpointsForDimension1': element 3 (1) is not "
         "greater than element 2 (2): breakpoints must increase strictly"},
        {"'type':'Lookup1D','BreakpointsForDimension1':[0,1,1],'Table':[1,2,3]", 1, w1, JG_PARAM,
         "block 'B' (Lookup1D), parameter 'BreakpointsForDimension1': element 3 (1) is not "
         "greater than element 2 (1): breakpoints must increase strictly"},
        {"'type':'Lookup1D','BreakpointsForDimension1':[0,1,2],'Table':[1,2]", 1, w1, JG_PARAM,
         "block 'B' (Lookup1D), parameter 'Table': has 2 elements but BreakpointsForDimension1 "
         "has 3: expected one value per breakpoint"},
        {"'type':'Lookup1D','BreakpointsForDimension1':[5],'Table':[1]", 1, w1, JG_PARAM,
         "block 'B' (Lookup1D), parameter 'BreakpointsForDimension1': expected at least 2 "
         "breakpoints, got 1"},
        {"'type':'Lookup1D','BreakpointsForDimension1':[[0,1],[2,3]],'Table':[1,2,3,4]", 1, w1,
         JG_PARAM,
         "block 'B' (Lookup1D), parameter 'BreakpointsForDimension1': expected a vector, got 2x2"},
        {"'type':'Lookup1D','Table':[1,2]", 1, w1, JG_PARAM,
         "block 'B' (Lookup1D), parameter 'BreakpointsForDimension1': missing: expected a vector "
         "of at least 2 strictly increasing breakpoints"},
        {"'type':'Lookup1D','BreakpointsForDimension1':[0,1]", 1, w1, JG_PARAM,
         "block 'B' (Lookup1D), parameter 'Table': missing: expected one output value per "
         "breakpoint"},
        {"'type':'Lookup1D','BreakpointsForDimension1':[0,1],'Table':[1,2],'ExtrapMethod':'Cubic "
         "spline'",
         1, w1, JG_PARAM,
         "block 'B' (Lookup1D), parameter 'ExtrapMethod': expected \"Clip\" or \"Linear\", got "
         "\"Cubic spline\""},
        {"'type':'Lookup2D','BreakpointsForDimension1':[0,1,2],'BreakpointsForDimension2':[0,1],"
         "'Table':[[1,2,3],[4,5,6]]",
         2, w1, JG_PARAM,
         "block 'B' (Lookup2D), parameter 'Table': is 2x3 but the breakpoints need 3x2 "
         "(BreakpointsForDimension1 x BreakpointsForDimension2)"},
        {"'type':'Lookup2D','BreakpointsForDimension1':[0,1],'BreakpointsForDimension2':[3,2],"
         "'Table':[[1,2],[4,5]]",
         2, w1, JG_PARAM,
         "block 'B' (Lookup2D), parameter 'BreakpointsForDimension2': element 2 (2) is not "
         "greater than element 1 (3): breakpoints must increase strictly"},
        {"'type':'Lookup2D','BreakpointsForDimension1':[0,1],'BreakpointsForDimension2':[2,3]", 2,
         w1, JG_PARAM,
         "block 'B' (Lookup2D), parameter 'Table': missing: expected a matrix with one row per "
         "breakpoint of dimension 1 and one column per breakpoint of dimension 2"},
        {"'type':'Lookup2D','BreakpointsForDimension1':[0,1],'BreakpointsForDimension2':[2,3],"
         "'Table':[[1,2],[4,5]]",
         2, (const int[]){2, 3}, JG_WIDTH,
         "block 'B' (Lookup2D): input 2 has width 3 but another input has width 2 (only scalars "
         "expand)"},
        /* discontinuous */
        {"'type':'MinMax','Function':'avg'", 1, w1, JG_PARAM,
         "block 'B' (MinMax), parameter 'Function': expected \"min\" or \"max\", got \"avg\""},
        {"'type':'MinMax','Inputs':0", 1, w1, JG_PARAM,
         "block 'B' (MinMax), parameter 'Inputs': expected a count of input ports from 1 to 1024"},
        {"'type':'MinMax','Inputs':'two'", 1, w1, JG_PARAM,
         "block 'B' (MinMax), parameter 'Inputs': expected a count of input ports from 1 to "
         "1024, got \"two\""},
        {"'type':'Switch','Criteria':'u2 == 1'", 3, w1, JG_PARAM,
         "block 'B' (Switch), parameter 'Criteria': expected \"u2 >= Threshold\", \"u2 > "
         "Threshold\" or \"u2 ~= 0\", got \"u2 == 1\""},
        {"'type':'Switch','Threshold':[1,2]", 3, w3, JG_WIDTH,
         "block 'B' (Switch), parameter 'Threshold': has 2 elements but the output has width 3"},
        {"'type':'DeadZone','LowerValue':1,'UpperValue':0", 1, w1, JG_PARAM,
         "block 'B' (DeadZone), parameter 'LowerValue': element 1 is 1, above UpperValue 0: "
         "expected LowerValue <= UpperValue"},
        {"'type':'DeadZone','LowerValue':[-1,-2],'UpperValue':[1,2,3]", 1, w1, JG_PARAM,
         "block 'B' (DeadZone), parameter 'UpperValue': has 3 elements but LowerValue has 2 (only "
         "scalars expand)"},
        {"'type':'DeadZone','UpperValue':[1,2]", 1, w3, JG_WIDTH,
         "block 'B' (DeadZone), parameter 'UpperValue': has 2 elements but the input has width 3"},
        {"'type':'Relay','OnSwitchValue':-1,'OffSwitchValue':1", 1, w1, JG_PARAM,
         "block 'B' (Relay), parameter 'OnSwitchValue': element 1 is -1, below OffSwitchValue 1: "
         "expected OnSwitchValue >= OffSwitchValue"},
        /* time sources */
        {"'type':'Step','Before':[1,2],'After':[1,2,3]", 0, NULL, JG_PARAM,
         "block 'B' (Step), parameter 'After': has 3 elements but Before has 2 (only scalars "
         "expand)"},
        {"'type':'Step','Time':[]", 0, NULL, JG_PARAM,
         "block 'B' (Step), parameter 'Time': expected a non-empty value"},
        {"'type':'SineWave','SineType':'Sample based'", 0, NULL, JG_PARAM,
         "block 'B' (SineWave), parameter 'SineType': expected \"Time based\" (sample-based "
         "sources are not supported), got \"Sample based\""},
        {"'type':'PulseGenerator','Period':0", 0, NULL, JG_PARAM,
         "block 'B' (PulseGenerator), parameter 'Period': element 1 is 0: expected a positive "
         "period"},
        {"'type':'PulseGenerator','PulseWidth':[50,120]", 0, NULL, JG_PARAM,
         "block 'B' (PulseGenerator), parameter 'PulseWidth': element 2 is 120: expected a "
         "percentage of the period from 0 to 100"},
        {"'type':'FromWorkspace'", 0, NULL, JG_PARAM,
         "block 'B' (FromWorkspace), parameter 'File': missing: expected the path of a CSV file "
         "(a header row, then time and the output values on each row)"},
        {"'type':'FromWorkspace','File':3", 0, NULL, JG_PARAM,
         "block 'B' (FromWorkspace), parameter 'File': expected a string"},
        {"'type':'FromWorkspace','File':'/nonexistent/dir/x.csv'", 0, NULL, JG_IO,
         "block 'B' (FromWorkspace), parameter 'File': cannot read '/nonexistent/dir/x.csv': No "
         "such file or directory"},
    };
    fx_expect_errs(t, sizeof t / sizeof *t);

    /* CSV content errors name file:line */
    const struct {
        const char *text, *msg;
    } c[] = {
        {"time,y\n0,1\n1,2\n1,3\n",
         "%s:4: time 1 is not after 1 on line 3 (times must increase strictly)"},
        {"time,y\n0,1\n\n2,2\n1.5,3\n",
         "%s:5: time 1.5 is not after 2 on line 4 (times must increase strictly)"},
        {"time,y,z\n0,1,2\n1,2\n", "%s:3: 2 fields, but the header has 3 columns"},
        {"time,y\n0,1\n1,abc\n", "%s:3: field 2 'abc' is not a number"},
        {"time,y\n0,1\n1,\n", "%s:3: field 2 '' is not a number"},
        {"time,y\n0,inf\n", "%s:2: field 2 'inf' is not a finite number"},
        {"time,y\n", "%s: no data rows after the header"},
        {"", "%s:1: expected a header row (time, then one column per output element), found an "
             "empty file"},
        {"\n0,1\n", "%s:1: expected a header row (time, then one column per output element), "
                    "found a blank line"},
        {"time\n0\n", "%s:1: the header has 1 column: expected time and at least one output "
                      "column"},
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        tl_write_file(csv_path, c[k].text);
        char want[1024], tail[900];
        snprintf(tail, sizeof tail, c[k].msg, csv_path);
        snprintf(want, sizeof want, "block 'B' (FromWorkspace), parameter 'File': %s", tail);
        snprintf(tail, sizeof tail, c[k].msg, "FILE");   /* the test name: no temporary path */
        fx_expect_err(fw_model(csv_path), 0, NULL, JG_PARAM, want, tail);
    }
}

/* --------------------------------------------------------- shipped model */

static void test_regress_model(void)
{
    fx_t f;
    memset(&f, 0, sizeof f);
    jg_status_t st = jg_model_read("tests/data/regress_time_blocks.json", &f.m, &f.err);
    if (!st) st = jg_program_compile(f.m, &f.p, &f.err);
    if (!st) st = jg_lin_create(f.p, NULL, &f.l, &f.err);
    const jg_lin_method_t ms[3] = {JG_LIN_GRAPH, JG_LIN_MATRIX, JG_LIN_PERTURB};
    jg_lin_sys_t *s[3] = {NULL, NULL, NULL};
    for (int k = 0; !st && k < 3; k++) st = jg_lin_run(f.l, ms[k], JG_GRAPH_REDUCE_MARKOWITZ, &s[k], NULL, &f.err);
    const char *which = "";
    double d1 = st ? INFINITY : jg_lin_sys_diff(s[0], s[1], &which);
    double d2 = st ? INFINITY : jg_lin_sys_diff(s[0], s[2], &which);
    tap_ok(!st && d1 < 1e-13 && d2 < 1e-7 && s[0]->nx == 3,
           "tests/data/regress_time_blocks.json: graph = matrix (%.1e), = perturbation (%.1e)", d1, d2);
    if (st) printf("#   %s\n", f.err.msg);
    for (int k = 0; k < 3; k++) jg_lin_sys_free(s[k]);
    jg_lin_free(f.l);
    jg_program_free(f.p);
    jg_model_free(f.m);
}

int main(void)
{
    if (!tl_tmpdir(tmpdir, sizeof tmpdir, "test_blocks_sources_lookup")) return 1;
    snprintf(csv_path, sizeof csv_path, "%s/ws.csv", tmpdir);
    test_sources();
    test_fromworkspace();
    test_simulation();
    test_lookup();
    test_discontinuous();
    test_errors();
    test_regress_model();
    remove(csv_path);
    rmdir(tmpdir);
    return tap_done();
}
