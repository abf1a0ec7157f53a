/* Discrete blocks (UnitDelay, Memory, DiscreteIntegrator, DiscreteStateSpace,
 * DiscreteTransferFcn, ZeroOrderHold): values and direct feedthrough at the
 * initial discrete states against hand computations and every linearization
 * path, a continuous loop through a sampler linearized by graph, matrix and
 * perturbation, every setup error message, and simulations of a multirate
 * model (discrete solver, and ode45 with an Integrator) and of Memory (ode4)
 * against sequences computed here with plain loops, independently of the
 * blocks. */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

#define MAXW 8

/* Root Inport In1 (width w) drives block B (its JSON keys after the name, '
 * for "); B's output drives the Integrator Y (so the derivatives are B's
 * values) and Out1 (so D is B's Jacobian). */
static const char *blk_model(const char *blk, int w)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{'name':'blk','blocks':[{'name':'In1','type':'Inport','Port':1,'PortDimensions':%d},"
             "{'name':'B',%s},{'name':'Y','type':'Integrator'},"
             "{'name':'Out1','type':'Outport','Port':1}],'lines':[{'src':'In1:1','dst':'B:1'},"
             "{'src':'B:1','dst':['Y:1','Out1:1']}]}",
             w, blk);
    return q(buf);
}

/* ------------------------------------------------- values and feedthrough */

typedef struct {
    const char *what;
    const char *blk;
    int nu;               /* input width */
    double u[MAXW];
    int ny;
    double y[MAXW];       /* expected output at the initial discrete states */
    double d[MAXW * MAXW];/* expected D, ny x nu row-major */
} dcase_t;

/* D (ny x nu dense, row-major) by one linearization path. */
static jg_status_t dmat(fx_t *f, int path, const double *u, int nu, double *D, int64_t *ny)
{
    double *in = jg_lin_inputs(f->l);
    for (int k = 0; k < nu; k++) in[k] = u[k];
    jg_lin_sys_t *s = NULL;
    jg_status_t st = jg_lin_run(f->l, paths[path].m, paths[path].r, &s, NULL, &f->err);
    if (st) return st;
    *ny = s->ny;
    memset(D, 0, sizeof(double) * (size_t)(s->ny * nu));
    for (int64_t j = 0; j < s->D->n; j++)
        for (int64_t k = s->D->p[j]; k < s->D->p[j + 1]; k++) D[s->D->i[k] * nu + j] = s->D->x[k];
    jg_lin_sys_free(s);
    return JG_OK;
}

static void check_case(const dcase_t *c)
{
    fx_t f;
    jg_status_t st = fx_load(&f, blk_model(c->blk, c->nu), NULL);
    double y[MAXW] = {0};
    if (!st) {
        double *in = jg_eval_inputs(f.w);
        for (int k = 0; k < c->nu; k++) in[k] = c->u[k];
        st = jg_eval_outputs(f.w, 0, &f.err);
        if (!st) st = jg_eval_derivatives(f.w, y, &f.err);
    }
    if (!st && jg_program_nstates(f.p) != c->ny) {
        printf("#   output width %lld, expected %d\n", (long long)jg_program_nstates(f.p), c->ny);
        st = JG_INTERNAL;
    }
    double ev = 0;
    for (int i = 0; !st && i < c->ny; i++)
        ev = fmax(ev, fabs(y[i] - c->y[i]) / fmax(1, fabs(c->y[i])));
    if (!st && ev > 1e-14)
        for (int i = 0; i < c->ny; i++)
            printf("#   y[%d] = %.17g, expected %.17g\n", i, y[i], c->y[i]);
    if (st) printf("#   %s\n", f.err.msg);
    tap_ok(!st && ev <= 1e-14, "%s: value (error %.1e)", c->what, ev);
    /* D by every path against the hand D: exact for the analytic paths,
     * perturbation to its accuracy (the discrete states are held) */
    double worst = 0;
    const char *bad = "";
    for (int k = 0; !st && k < NPATHS; k++) {
        double D[MAXW * MAXW];
        int64_t ny = -1;
        st = dmat(&f, k, c->u, c->nu, D, &ny);
        if (!st && ny != c->ny) st = JG_INTERNAL;
        double e = 0;
        for (int i = 0; !st && i < c->ny * c->nu; i++)
            e = fmax(e, fabs(D[i] - c->d[i]) / fmax(1, fabs(c->d[i])));
        double tol = paths[k].m == JG_LIN_PERTURB ? 1e-7 : 1e-14;
        if (!st && e > tol) {
            bad = paths[k].name;
            for (int i = 0; i < c->ny * c->nu; i++)
                printf("#   %s: D[%d][%d] = %.17g, expected %.17g\n", paths[k].name, i / c->nu,
                       i % c->nu, D[i], c->d[i]);
        }
        if (paths[k].m != JG_LIN_PERTURB) worst = fmax(worst, e);
    }
    if (st) printf("#   %s\n", f.err.msg);
    tap_ok(!st && !*bad, "%s: D by every path (worst analytic error %.1e)%s%s", c->what, worst,
           *bad ? ", wrong: " : "", bad);
    fx_unload(&f);
}

static void test_values(void)
{
    static const dcase_t c[] = {
        {"UnitDelay: y = InitialCondition, no feedthrough",
         "'type':'UnitDelay','InitialCondition':[1,-2],'SampleTime':0.1", 2, {5, 7}, 2, {1, -2},
         {0, 0, 0, 0}},
        {"UnitDelay: scalar IC expands to the input width",
         "'type':'UnitDelay','InitialCondition':3,'SampleTime':[0.5,0.25]", 3, {1, 2, 3}, 3,
         {3, 3, 3}, {0}},
        {"Memory: y = InitialCondition, no feedthrough", "'type':'Memory','InitialCondition':[4,5]",
         2, {1, 1}, 2, {4, 5}, {0}},
        {"DiscreteIntegrator Forward Euler: y = x(0), no feedthrough",
         "'type':'DiscreteIntegrator','gainval':2,'InitialCondition':1,'SampleTime':0.1", 1, {3},
         1, {1}, {0}},
        {"DiscreteIntegrator Backward Euler: y = x + K T u, D = K T",
         "'type':'DiscreteIntegrator','IntegratorMethod':'Integration: Backward Euler',"
         "'gainval':2,'InitialCondition':1,'SampleTime':0.1",
         1, {3}, 1, {1 + 2 * 0.1 * 3}, {2 * 0.1}},
        {"DiscreteIntegrator Trapezoidal: y = x + K T/2 u, D = K T/2 (per-element K)",
         "'type':'DiscreteIntegrator','IntegratorMethod':'Trapezoidal',"
         "'gainval':[2,-4],'InitialCondition':[1,0],'SampleTime':[0.4,0.1]",
         2, {3, 0.5}, 2, {1 + 2 * 0.2 * 3, -4 * 0.2 * 0.5}, {2 * 0.2, 0, 0, -4 * 0.2}},
        {"DiscreteIntegrator short form BackwardEuler, default SampleTime 1: D = K",
         "'type':'DiscreteIntegrator','IntegratorMethod':'BackwardEuler','gainval':3", 1, {2}, 1,
         {6}, {3}},
        {"DiscreteIntegrator Accumulation: Backward Euler: T = 1 whatever the period",
         "'type':'DiscreteIntegrator','IntegratorMethod':'Accumulation: Backward Euler',"
         "'InitialCondition':0.5,'SampleTime':0.1",
         1, {2}, 1, {2.5}, {1}},
        {"DiscreteStateSpace: y = C x0 + D u, D from the nonzeros",
         "'type':'DiscreteStateSpace','A':[[0.5,0.1],[0,0.3]],'B':[[1,0],[0.5,2]],"
         "'C':[[1,2],[0,-1],[3,0]],'D':[[0.7,0],[0,0],[0,-1.5]],'InitialCondition':[0.2,-0.4],"
         "'SampleTime':0.1",
         2, {1, 2}, 3, {0.2 - 0.8 + 0.7, 0.4, 0.6 - 3}, {0.7, 0, 0, 0, 0, -1.5}},
        {"DiscreteStateSpace with D = 0: no feedthrough, default SampleTime 1",
         "'type':'DiscreteStateSpace','A':0.5,'B':1,'C':2,'D':0,'InitialCondition':1.5", 1, {9},
         1, {3}, {0}},
        {"DiscreteStateSpace with an empty A: y = D u",
         "'type':'DiscreteStateSpace','A':[],'D':[[1,2]],'SampleTime':0.2", 2, {3, 4}, 1, {11},
         {1, 2}},
        {"DiscreteTransferFcn (2z+3)/(4z+2): D = 0.5, C x0 = 0.5 x0",
         "'type':'DiscreteTransferFcn','Numerator':[2,3],'Denominator':[4,2],'InitialStates':2,"
         "'SampleTime':0.1",
         1, {3}, 1, {0.5 * 2 + 0.5 * 3}, {0.5}},
        {"DiscreteTransferFcn strictly proper (z+0.5)/(z^2-0.5z+0.06): no feedthrough",
         "'type':'DiscreteTransferFcn','Numerator':[0,1,0.5],'Denominator':[1,-0.5,0.06],"
         "'InitialStates':[1,2],'SampleTime':0.1",
         1, {3}, 1, {1 * 1 + 0.5 * 2}, {0}},
        {"DiscreteTransferFcn default 1/(z+0.5), default SampleTime 1",
         "'type':'DiscreteTransferFcn'",
         1, {3}, 1, {0}, {0}},
        {"ZeroOrderHold: y = u, D = I", "'type':'ZeroOrderHold','SampleTime':0.25", 3, {1, -2, 3},
         3, {1, -2, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1}},
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) check_case(&c[k]);
}

/* --------------------------------------------- a continuous loop, linearized */

/* x' = y_F with F (DiscreteTransferFcn, D = 2) <- DI (Backward Euler, D = K T
 * = 0.2) <- P (DiscreteStateSpace, D = 0.7) <- Z (ZeroOrderHold) <- In1 - x;
 * a Memory and a UnitDelay read x (no feedthrough).  With the discrete states
 * held: y_P = C xd + 0.7 (u - x), so A = -0.28, B = 0.28, and for the outputs
 * (x, y_P, Memory, UnitDelay): C = [1, -0.7, 0, 0], D = [0, 0.7, 0, 0].
 * tests/data/regress_discrete.json is the same model (jacgraph check). */
static const char loop_model[] =
    "{'name':'discrete_loop','blocks':["
    "{'name':'In1','type':'Inport','Port':1},"
    "{'name':'S','type':'Sum','Inputs':'+-'},"
    "{'name':'Z','type':'ZeroOrderHold','SampleTime':0.1},"
    "{'name':'P','type':'DiscreteStateSpace','A':[[0.5,0.1],[0,0.3]],'B':[[1],[0.5]],"
    "'C':[[1,2]],'D':0.7,'InitialCondition':[0.2,-0.4],'SampleTime':0.1},"
    "{'name':'DI','type':'DiscreteIntegrator','IntegratorMethod':'Integration: Backward Euler',"
    "'gainval':2,'InitialCondition':0.3,'SampleTime':0.1},"
    "{'name':'F','type':'DiscreteTransferFcn','Numerator':[2,1],'Denominator':[1,0.5],"
    "'SampleTime':0.1},"
    "{'name':'I','type':'Integrator','InitialCondition':0.3},"
    "{'name':'M','type':'Memory','InitialCondition':-1},"
    "{'name':'UD','type':'UnitDelay','InitialCondition':2,'SampleTime':0.2},"
    "{'name':'Out1','type':'Outport','Port':1},{'name':'Out2','type':'Outport','Port':2},"
    "{'name':'Out3','type':'Outport','Port':3},{'name':'Out4','type':'Outport','Port':4}],"
    "'lines':[{'src':'In1:1','dst':'S:1'},{'src':'S:1','dst':'Z:1'},{'src':'Z:1','dst':'P:1'},"
    "{'src':'P:1','dst':['DI:1','Out2:1']},{'src':'DI:1','dst':'F:1'},{'src':'F:1','dst':'I:1'},"
    "{'src':'I:1','dst':['S:2','Out1:1','M:1','UD:1']},{'src':'M:1','dst':'Out3:1'},"
    "{'src':'UD:1','dst':'Out4:1'}]}";

static void test_loop_linearization(void)
{
    fx_t f;
    jg_status_t st = fx_load(&f, q(loop_model), NULL);
    jg_lin_sys_t *s[NPATHS] = {NULL};
    for (int k = 0; !st && k < NPATHS; k++) {
        jg_lin_inputs(f.l)[0] = 0.4;
        st = jg_lin_run(f.l, paths[k].m, paths[k].r, &s[k], NULL, &f.err);
    }
    if (st) printf("#   %s\n", f.err.msg);
    /* hand values */
    int hand = !st && s[0]->nx == 1 && s[0]->nu == 1 && s[0]->ny == 4;
    const double Cw[4] = {1, -0.7, 0, 0}, Dw[4] = {0, 0.7, 0, 0};
    double eh = INFINITY;
    if (hand) {
        eh = fmax(fabs(fx_entry(s[0]->A, 0, 0) + 0.28), fabs(fx_entry(s[0]->B, 0, 0) - 0.28));
        for (int i = 0; i < 4; i++)
            eh = fmax(eh, fmax(fabs(fx_entry(s[0]->C, i, 0) - Cw[i]),
                               fabs(fx_entry(s[0]->D, i, 0) - Dw[i])));
    }
    tap_ok(hand && eh < 1e-14,
           "loop through ZOH, DiscreteStateSpace, Backward Euler, DiscreteTransferFcn: A = -0.28, "
           "B = 0.28, C, D by hand (error %.1e)",
           eh);
    for (int k = 1; !st && k < NPATHS; k++) {
        const char *which = "";
        double d = jg_lin_sys_diff(s[0], s[k], &which);
        double tol = paths[k].m == JG_LIN_PERTURB ? 1e-7 : 1e-13;
        tap_ok(d < tol, "loop: %s = %s (%.1e%s%s)", paths[0].name, paths[k].name, d,
               d < tol ? "" : " in ", d < tol ? "" : which);
    }
    if (st) tap_ok(0, "loop: every linearization path");
    for (int k = 0; k < NPATHS; k++) jg_lin_sys_free(s[k]);

    /* no edge into UnitDelay, Memory (no feedthrough, held states) */
    const jg_graph_t *g = NULL;
    if (!st) st = jg_lin_graph(f.l, JG_GRAPH_REDUCE_NONE, &g, &f.err);
    int into = 0;
    for (int64_t e = 0; !st && e < jg_graph_nedges(g); e++) {
        jg_edge_info_t ei;
        jg_vertex_info_t vs, vd;
        jg_graph_edge(g, e, &ei);
        jg_graph_vertex(g, ei.src, &vs);
        jg_graph_vertex(g, ei.dst, &vd);
        /* an edge u -> y inside UD or M would be a d part */
        if (vs.block == vd.block && (vs.block == jg_program_find_block(f.p, "UD") ||
                                     vs.block == jg_program_find_block(f.p, "M")))
            into++;
    }
    tap_ok(!st && into == 0, "UnitDelay and Memory: no u -> y edge in the graph (%d)", into);
    fx_unload(&f);
}

/* ---------------------------------------------------------------- errors */

static void expect_err(const char *blk, int w, jg_status_t want, const char *msg)
{
    fx_t f;
    jg_status_t st = fx_load(&f, blk_model(blk, w), NULL);
    if (st != want) printf("#   status %s: %s\n", jg_status_name(st), st ? f.err.msg : "");
    char name[240];
    snprintf(name, sizeof name, "%s: %.200s", jg_status_name(want), msg + strlen("block "));
    tap_streq(st == want ? f.err.msg : "", msg, name);
    fx_unload(&f);
}

static void test_errors(void)
{
    const struct {
        const char *blk;
        int w;
        jg_status_t st;
        const char *msg;
    } t[] = {
        /* DiscreteStateSpace: the continuous StateSpace's checks */
        {"'type':'DiscreteStateSpace','A':[[1,2,3],[4,5,6]],'B':[[1],[1]],'C':[[1,1]],'D':0", 1,
         JG_PARAM,
         "block 'B' (DiscreteStateSpace), parameter 'A': expected a square matrix, got 2x3"},
        {"'type':'DiscreteStateSpace','A':[[1,0],[0,1]],'B':[[1],[1],[1]],'C':[[1,1]],'D':0", 1,
         JG_PARAM,
         "block 'B' (DiscreteStateSpace), parameter 'B': expected 2x1 (rows of A x input "
         "width), got 3x1"},
        {"'type':'DiscreteStateSpace','A':[[1,0],[0,1]],'B':[[1],[1]],'C':[[1,1,1]],'D':0", 1,
         JG_PARAM,
         "block 'B' (DiscreteStateSpace), parameter 'C': expected 1x2 (output width x rows of "
         "A), got 1x3"},
        {"'type':'DiscreteStateSpace','A':[[1,0],[0,1]],'B':[[1],[1]],'C':[[1,1]],'D':[[0,0]]", 1,
         JG_PARAM,
         "block 'B' (DiscreteStateSpace), parameter 'D': expected 1x1 (rows of C x columns of "
         "B), got 1x2"},
        {"'type':'DiscreteStateSpace','A':[],'B':[[1]],'D':1", 1, JG_PARAM,
         "block 'B' (DiscreteStateSpace), parameter 'B': expected an empty matrix because A is "
         "empty (no states), got 1x1"},
        {"'type':'DiscreteStateSpace','A':[[1,0],[0,1]],'B':[[1],[1]],'C':[[1,1]],'D':0,"
         "'InitialCondition':[1,2,3]",
         1, JG_PARAM,
         "block 'B' (DiscreteStateSpace), parameter 'InitialCondition': expected a scalar or 2 "
         "elements (one per row of A), got 3"},
        {"'type':'DiscreteStateSpace','A':0.5,'B':[[1,1]],'C':1,'D':[[0,0]]", 3, JG_WIDTH,
         "block 'B' (DiscreteStateSpace): input has width 3 but the system has 2 inputs "
         "(columns of B and D)"},
        /* DiscreteTransferFcn */
        {"'type':'DiscreteTransferFcn','Numerator':[1,2,3],'Denominator':[1,2]", 1, JG_PARAM,
         "block 'B' (DiscreteTransferFcn), parameter 'Numerator': numerator degree 2 exceeds "
         "denominator degree 1: expected a proper transfer function"},
        {"'type':'DiscreteTransferFcn','Numerator':[1],'Denominator':[0,1]", 1, JG_PARAM,
         "block 'B' (DiscreteTransferFcn), parameter 'Denominator': expected a nonzero leading "
         "coefficient (highest power first)"},
        {"'type':'DiscreteTransferFcn','Numerator':[[1,2],[3,4]]", 1, JG_PARAM,
         "block 'B' (DiscreteTransferFcn), parameter 'Numerator': expected a non-empty vector "
         "of coefficients, highest power first (one output only), got 2x2"},
        {"'type':'DiscreteTransferFcn','Denominator':[1,0.5,0.1],'InitialStates':[1,2,3]", 1,
         JG_PARAM,
         "block 'B' (DiscreteTransferFcn), parameter 'InitialStates': expected a scalar or 2 "
         "elements (the denominator degree), got 3"},
        {"'type':'DiscreteTransferFcn'", 2, JG_WIDTH,
         "block 'B' (DiscreteTransferFcn): input has width 2 but a transfer function takes a "
         "scalar"},
        /* DiscreteIntegrator */
        {"'type':'DiscreteIntegrator','IntegratorMethod':'Integration: Runge-Kutta'", 1, JG_PARAM,
         "block 'B' (DiscreteIntegrator), parameter 'IntegratorMethod': expected \"Integration: "
         "Forward Euler\", \"Integration: Backward Euler\", \"Integration: Trapezoidal\" (or "
         "ForwardEuler, BackwardEuler, Trapezoidal, or \"Accumulation: ...\"), got "
         "\"Integration: Runge-Kutta\""},
        {"'type':'DiscreteIntegrator','InitialConditionSetting':'Output'", 1, JG_PARAM,
         "block 'B' (DiscreteIntegrator), parameter 'InitialConditionSetting': expected \"State "
         "(most efficient)\" (x(0) = InitialCondition; \"Output\" and \"Compatibility\" are not "
         "supported), got \"Output\""},
        {"'type':'DiscreteIntegrator','gainval':[1,2,3]", 2, JG_WIDTH,
         "block 'B' (DiscreteIntegrator): input has width 2 but the state has width 3 (from "
         "InitialCondition, gainval or the input)"},
        {"'type':'DiscreteIntegrator','gainval':[]", 1, JG_PARAM,
         "block 'B' (DiscreteIntegrator), parameter 'gainval': expected a non-empty value"},
        /* UnitDelay, Memory */
        {"'type':'UnitDelay','InitialCondition':[1,2],'SampleTime':0.1", 3, JG_WIDTH,
         "block 'B' (UnitDelay): input has width 3 but the state has width 2 (from "
         "InitialCondition or the input)"},
        {"'type':'Memory','InitialCondition':[]", 1, JG_PARAM,
         "block 'B' (Memory), parameter 'InitialCondition': expected a non-empty value"},
        /* sample times (read by the compiler) */
        {"'type':'UnitDelay','SampleTime':[0.1,0.2]", 1, JG_PARAM,
         "block 'B' (UnitDelay), parameter 'SampleTime': expected -1 (inherited), 0 "
         "(continuous), inf (constant), a period T > 0 or [T, offset] with 0 <= offset < T"},
        {"'type':'ZeroOrderHold','SampleTime':[0.1,0.1]", 1, JG_PARAM,
         "block 'B' (ZeroOrderHold), parameter 'SampleTime': expected -1 (inherited), 0 "
         "(continuous), inf (constant), a period T > 0 or [T, offset] with 0 <= offset < T"},
        {"'type':'DiscreteIntegrator','SampleTime':-2", 1, JG_PARAM,
         "block 'B' (DiscreteIntegrator), parameter 'SampleTime': expected -1 (inherited), 0 "
         "(continuous), inf (constant), a period T > 0 or [T, offset] with 0 <= offset < T"},
        {"'type':'UnitDelay'", 1, JG_MODEL,
         "block 'B' (UnitDelay): gets a continuous sample time; a discrete block needs a "
         "discrete SampleTime (T > 0 or [T, offset])"},
        {"'type':'ZeroOrderHold','SampleTime':-1", 1, JG_MODEL,
         "block 'B' (ZeroOrderHold): gets a continuous sample time; a discrete block needs "
         "a discrete SampleTime (T > 0 or [T, offset])"},
    };
    for (size_t k = 0; k < sizeof t / sizeof *t; k++)
        expect_err(t[k].blk, t[k].w, t[k].st, t[k].msg);
}

/* ------------------------------------------------------------ simulation */

#define NLOG 4096
#define MAXSIG 8

typedef struct {
    int n, nsig, nx;
    double t[NLOG], sig[NLOG][MAXSIG], x[NLOG];
} rec_t;

static int record(double t, const double *x, const double *sig, void *user)
{
    rec_t *r = user;
    if (r->n >= NLOG) return 1;
    r->t[r->n] = t;
    for (int k = 0; k < r->nsig; k++) r->sig[r->n][k] = sig[k];
    r->x[r->n] = r->nx ? x[0] : 0;
    r->n++;
    return 0;
}

static jg_status_t simulate(const char *json, const char *solver, double h, double tstop,
                            rec_t *r, jg_error_t *err)
{
    fx_t f;
    memset(&f, 0, sizeof f);
    jg_status_t st = jg_model_parse(json, "<test>", &f.m, &f.err);
    if (!st) st = jg_program_compile(f.m, &f.p, &f.err);
    jg_sim_opts_t o = {.solver = (jg_solver_method_t)jg_solver_method_parse(solver), .t0 = 0, .tstop = tstop, .out_step = 0};
    o.so.fixed_step = h;
    o.so.rtol = 1e-10;
    o.so.atol = 1e-12;
    jg_sim_t *s = NULL;
    memset(r, 0, sizeof *r);
    if (!st) st = jg_sim_create(f.p, &o, &s, &f.err);
    if (!st) {
        r->nsig = (int)jg_sim_nlogged(s);
        r->nx = (int)jg_program_nstates(f.p);
        if (r->nsig > MAXSIG) st = JG_INTERNAL;
    }
    if (!st) st = jg_sim_run(s, tstop, record, r, &f.err);
    if (st) *err = f.err;
    jg_sim_free(s);
    jg_program_free(f.p);
    jg_model_free(f.m);
    return st;
}

/* The multirate model on the grid t = m * 0.05:
 *   C  Clock                        (continuous)
 *   UD UnitDelay(C), 0.1, IC 0.5                hits m % 2 == 0
 *   FE DiscreteIntegrator Forward Euler(UD), K 1.5, inherited (0.1)
 *   BE DiscreteIntegrator Backward Euler(UD), K 2, IC 1, [0.3, 0.1]  m % 6 == 2
 *   TR DiscreteIntegrator Trapezoidal(UD), K 0.5, IC -1, [0.3, 0.1]
 *   W  SineWave sin t                (continuous)
 *   Z  ZeroOrderHold(W), 0.25                   m % 5 == 0
 *   F  DiscreteTransferFcn(Z) (z^2 + 0.5 z + 0.25)/(z^2 - 0.5 z + 0.06), 0.2   m % 4 == 0
 *   I  Integrator(Z)                  (ode45 variant only)
 * Outputs in this order: UD, FE, BE, TR, Z, F (, I). */
#define GRID 0.05
#define MMAX 60   /* tstop 3 */
enum { S_UD, S_FE, S_BE, S_TR, S_Z, S_F, S_I, NS };

static const char *multirate_model(int with_integrator)
{
    static char buf[8192];
    int n = snprintf(
        buf, sizeof buf,
        "{'name':'multirate','blocks':["
        "{'name':'C','type':'Clock'},"
        "{'name':'UD','type':'UnitDelay','InitialCondition':0.5,'SampleTime':0.1},"
        "{'name':'FE','type':'DiscreteIntegrator','gainval':1.5,'SampleTime':-1},"
        "{'name':'BE','type':'DiscreteIntegrator','IntegratorMethod':'Integration: Backward "
        "Euler','gainval':2,'InitialCondition':1,'SampleTime':[0.3,0.1]},"
        "{'name':'TR','type':'DiscreteIntegrator','IntegratorMethod':'Integration: "
        "Trapezoidal','gainval':0.5,'InitialCondition':-1,'SampleTime':[0.3,0.1]},"
        "{'name':'W','type':'SineWave'},"
        "{'name':'Z','type':'ZeroOrderHold','SampleTime':0.25},"
        "{'name':'F','type':'DiscreteTransferFcn','Numerator':[1,0.5,0.25],"
        "'Denominator':[1,-0.5,0.06],'SampleTime':0.2},"
        "{'name':'O1','type':'Outport','Port':1},{'name':'O2','type':'Outport','Port':2},"
        "{'name':'O3','type':'Outport','Port':3},{'name':'O4','type':'Outport','Port':4},"
        "{'name':'O5','type':'Outport','Port':5},{'name':'O6','type':'Outport','Port':6}");
    if (with_integrator)
        n += snprintf(buf + n, sizeof buf - n,
                      ",{'name':'I','type':'Integrator'},{'name':'O7','type':'Outport','Port':7}");
    n += snprintf(buf + n, sizeof buf - n,
                  "],'lines':[{'src':'C:1','dst':'UD:1'},"
                  "{'src':'UD:1','dst':['FE:1','BE:1','TR:1','O1:1']},"
                  "{'src':'FE:1','dst':'O2:1'},{'src':'BE:1','dst':'O3:1'},"
                  "{'src':'TR:1','dst':'O4:1'},{'src':'W:1','dst':'Z:1'},"
                  "{'src':'Z:1','dst':['F:1','O5:1'%s]},{'src':'F:1','dst':'O6:1'}%s]}",
                  with_integrator ? ",'I:1'" : "",
                  with_integrator ? ",{'src':'I:1','dst':'O7:1'}" : "");
    return q(buf);
}

/* The expected outputs after the hits at grid point m (held values), by the
 * difference equations written out here: hand[m][S_*]; hit[m]: some rate hits. */
static double hand[MMAX + 1][NS];
static int hit[MMAX + 1];

static void multirate_hand(void)
{
    double ud_x = 0.5, fe_x = 0, be_x = 1, tr_x = -1;
    double y_ud = 0, y_fe = 0, y_be = 0, y_tr = 0, y_z = 0, y_f = 0;
    double yf1 = 0, yf2 = 0, uf1 = 0, uf2 = 0;   /* F: y(k-1), y(k-2), u(k-1), u(k-2) */
    for (int m = 0; m <= MMAX; m++) {
        double t = m * GRID;
        int h01 = m % 2 == 0, h03 = m % 6 == 2, h025 = m % 5 == 0, h02 = m % 4 == 0;
        hit[m] = h01 || h03 || h025 || h02;
        /* outputs, drivers first */
        if (h01) y_ud = ud_x;               /* y(k) = u(k-1) */
        if (h01) y_fe = fe_x;               /* Forward Euler: y = x */
        if (h03) {
            y_be = be_x + 2 * 0.3 * y_ud;   /* Backward Euler: y = x + K T u */
            y_tr = tr_x + 0.5 * 0.3 / 2 * y_ud;   /* Trapezoidal: y = x + K T/2 u */
        }
        if (h025) y_z = sin(t);
        if (h02) y_f = 0.5 * yf1 - 0.06 * yf2 + y_z + 0.5 * uf1 + 0.25 * uf2;
        /* updates */
        if (h01) {
            ud_x = t;
            fe_x += 1.5 * 0.1 * y_ud;
        }
        if (h03) {
            be_x = y_be;
            tr_x = y_tr + 0.5 * 0.3 / 2 * y_ud;
        }
        if (h02) {
            yf2 = yf1;
            yf1 = y_f;
            uf2 = uf1;
            uf1 = y_z;
        }
        hand[m][S_UD] = y_ud;
        hand[m][S_FE] = y_fe;
        hand[m][S_BE] = y_be;
        hand[m][S_TR] = y_tr;
        hand[m][S_Z] = y_z;
        hand[m][S_F] = y_f;
    }
}

/* Integral of the held sine up to t. */
static double zoh_integral(double t)
{
    double acc = 0;
    int j = 0;
    for (; 0.25 * (j + 1) <= t + 1e-12; j++) acc += 0.25 * sin(0.25 * j);
    return acc + (t - 0.25 * j) * sin(0.25 * j);
}

static void check_multirate(const char *solver, int with_integrator)
{
    static rec_t r;
    jg_error_t err;
    jg_status_t st = simulate(multirate_model(with_integrator), solver, 0, MMAX * GRID, &r, &err);
    if (st) printf("#   %s\n", err.msg);
    int nsig = with_integrator ? 7 : 6;
    double worst = 0;
    int worst_k = -1, worst_s = -1, hits_seen = 0, nhits = 0, bad_t = 0;
    for (int m = 0; m <= MMAX; m++) nhits += hit[m];
    for (int k = 0; !st && k < r.n; k++) {
        double t = r.t[k];
        int m = (int)floor(t / GRID + 1e-9);
        if (m > MMAX) m = MMAX;
        int on_grid = fabs(t - m * GRID) < 1e-9;
        if (on_grid && hit[m] && (k == 0 || r.t[k - 1] < t - 1e-9)) hits_seen++;
        if (!with_integrator && !(on_grid && hit[m])) bad_t++;   /* only hits are steps */
        for (int s2 = 0; s2 < nsig; s2++) {
            /* BE and TR have no output before their first hit at 0.1 */
            if ((s2 == S_BE || s2 == S_TR) && m < 2) continue;
            double want = s2 == S_I ? zoh_integral(t) : hand[m][s2];
            double e = fabs(r.sig[k][s2] - want);
            if (e > worst) {
                worst = e;
                worst_k = k;
                worst_s = s2;
            }
        }
        if (with_integrator) {
            double e = fabs(r.x[k] - zoh_integral(t));
            if (e > worst) {
                worst = e;
                worst_k = k;
                worst_s = S_I;
            }
        }
    }
    if (!st && worst > 1e-12 && worst_k >= 0) {
        int m = (int)floor(r.t[worst_k] / GRID + 1e-9);
        printf("#   worst at t = %.17g signal %d: got %.17g, expected %.17g\n", r.t[worst_k],
               worst_s,
               r.sig[worst_k][worst_s],
               worst_s == S_I ? zoh_integral(r.t[worst_k]) : hand[m > MMAX ? MMAX : m][worst_s]);
    }
    tap_ok(!st && r.nsig == nsig && worst <= 1e-12,
           "multirate (UnitDelay 0.1, DiscreteIntegrator FE/BE/TR, DiscreteTransferFcn 0.2, ZOH "
           "0.25%s) with %s: every logged step matches the hand sequence (error %.1e over %d "
           "points)",
           with_integrator ? ", Integrator" : "", solver, worst, r.n);
    tap_ok(!st && hits_seen == nhits && bad_t == 0,
           "multirate with %s: a major step at every one of the %d sample hits (%d seen%s)", solver,
           nhits, hits_seen, bad_t ? ", and steps off the hits" : "");
}

/* Memory(SineWave) under ode4, h = 0.1: at every major step the output is
 * the input at the previous one (InitialCondition at t0).  An Integrator of
 * Memory(Clock) sees during step [t_j, t_j+1] the input at t_j, so
 * x(t_k) = h sum_{j<k} t_j = h^2 k (k - 1) / 2 (ode4 is exact on constants). */
static void test_memory(void)
{
    static const char mem[] =
        "{'name':'mem','blocks':[{'name':'W','type':'SineWave'},"
        "{'name':'M','type':'Memory','InitialCondition':7},"
        "{'name':'C','type':'Clock'},{'name':'MC','type':'Memory'},"
        "{'name':'I','type':'Integrator'},"
        "{'name':'O1','type':'Outport','Port':1},{'name':'O2','type':'Outport','Port':2}],"
        "'lines':[{'src':'W:1','dst':['M:1','O2:1']},{'src':'M:1','dst':'O1:1'},"
        "{'src':'C:1','dst':'MC:1'},{'src':'MC:1','dst':'I:1'}]}";
    static rec_t r;
    jg_error_t err;
    const double h = 0.1;
    jg_status_t st = simulate(q(mem), "ode4", h, 2, &r, &err);
    if (st) printf("#   %s\n", err.msg);
    double e = 0, ex = 0;
    for (int k = 0; !st && k < r.n; k++) {
        double want = k == 0 ? 7 : sin(r.t[k - 1]);
        e = fmax(e, fabs(r.sig[k][0] - want));
        e = fmax(e, fabs(r.sig[k][1] - sin(r.t[k])));
        double kk = nearbyint(r.t[k] / h);
        ex = fmax(ex, fabs(r.x[k] - h * h * kk * (kk - 1) / 2));
    }
    tap_ok(!st && r.n == 21 && e < 1e-12,
           "Memory(SineWave) with ode4, h = 0.1: the input at the previous major step (error "
           "%.1e over %d steps)",
           e, r.n);
    tap_ok(!st && r.n == 21 && ex < 1e-12,
           "Integrator(Memory(Clock)) with ode4: h^2 k (k-1)/2, the held value between major "
           "steps (error %.1e)",
           ex);
}

/* A 20-state DiscreteStateSpace shift register (more states than the update's
 * stack buffer; e->xdw is the array e->xd points to): y(k) = u(k - 20), the
 * Clock sampled at 0.1, so y = t - 2 from t = 2 on, 0 before. */
static void test_shift_register(void)
{
    enum { N = 20 };
    static char json[16384];
    int n = snprintf(json, sizeof json,
                     "{'name':'shift','blocks':[{'name':'C','type':'Clock'},"
                     "{'name':'P','type':'DiscreteStateSpace','SampleTime':0.1,'D':0,'A':[");
    for (int i = 0; i < N; i++) {
        n += snprintf(json + n, sizeof json - n, "%s[", i ? "," : "");
        for (int j = 0; j < N; j++)
            n += snprintf(json + n, sizeof json - n, "%s%d", j ? "," : "", j == i - 1);
        n += snprintf(json + n, sizeof json - n, "]");
    }
    n += snprintf(json + n, sizeof json - n, "],'B':[");
    for (int i = 0; i < N; i++)
        n += snprintf(json + n, sizeof json - n, "%s[%d]", i ? "," : "", i == 0);
    n += snprintf(json + n, sizeof json - n, "],'C':[[");
    for (int j = 0; j < N; j++)
        n += snprintf(json + n, sizeof json - n, "%s%d", j ? "," : "", j == N - 1);
    snprintf(json + n, sizeof json - n,
             "]]},{'name':'O1','type':'Outport','Port':1}],"
             "'lines':[{'src':'C:1','dst':'P:1'},{'src':'P:1','dst':'O1:1'}]}");
    static rec_t r;
    jg_error_t err;
    jg_status_t st = simulate(q(json), "discrete", 0, 3, &r, &err);
    if (st) printf("#   %s\n", err.msg);
    double e = 0;
    for (int k = 0; !st && k < r.n; k++) {
        long kk = lround(r.t[k] / 0.1);
        e = fmax(e, fabs(r.sig[k][0] - (kk >= N ? (kk - N) * 0.1 : 0)));
    }
    tap_ok(!st && r.n == 31 && e < 1e-12,
           "DiscreteStateSpace, 20-state shift register: y(k) = u(k - 20) (error %.1e over %d "
           "steps)",
           e, r.n);
}

/* A delay in a loop that inherits its sample time, as library blocks do
 * (SampleTime -1 everywhere but the source): the loop takes the source's rate
 * (Simulink's propagation), instead of never settling. */
static void test_inherited_loop(void)
{
    fx_t f;
    const char *json =
        "{\"blocks\": ["
        "{\"name\": \"Src\", \"type\": \"DiscretePulseGenerator\", \"SampleTime\": 0.1},"
        "{\"name\": \"Sum\", \"type\": \"Sum\", \"Inputs\": \"++\", \"SampleTime\": -1},"
        "{\"name\": \"UD\", \"type\": \"UnitDelay\", \"SampleTime\": -1},"
        "{\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1}],"
        " \"lines\": [{\"src\": \"Src:1\", \"dst\": \"Sum:1\"},"
        "  {\"src\": \"Sum:1\", \"dst\": [\"UD:1\", \"Out1:1\"]}, {\"src\": \"UD:1\", \"dst\": \"Sum:2\"}]}";
    jg_status_t st = fx_load(&f, json, NULL);
    if (tap_ok(!st, "an inherited delay in a loop compiles")) {
        double T, off, T2, off2;
        jg_program_block_sample_time(f.p, jg_program_find_block(f.p, "UD"), &T, &off);
        jg_program_block_sample_time(f.p, jg_program_find_block(f.p, "Sum"), &T2, &off2);
        tap_ok(T == 0.1 && T2 == 0.1, "the loop takes the driver's 0.1 s");
    } else {
        printf("#   %s\n", f.err.msg);
    }
    fx_unload(&f);
}

int main(void)
{
    test_values();
    test_inherited_loop();
    test_loop_linearization();
    test_errors();
    multirate_hand();
    check_multirate("discrete", 0);
    check_multirate("ode45", 1);
    test_memory();
    test_shift_register();
    return tap_done();
}
