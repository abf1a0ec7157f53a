/* test_graph_guard.c -- the numerical guards of the linearization: vertex
 * elimination refuses ill-conditioned pivots (and a tape that meets one at
 * another operating point falls back to the pivoted LFT), the condition
 * estimate and its warning, NaN and Inf named by their blocks, parameters
 * whose reciprocals overflow refused at setup.  Reproducers of the
 * hostile-input trial are in tests/data/reliability (README.md there); every
 * result is checked against an exact answer computed here in long double. */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

#define DATA "tests/data/reliability/"

typedef struct {
    jg_model_t *m;
    jg_program_t *p;
    jg_lin_t *l;
    jg_error_t err;
    int nwarn;
    char warn[JG_ERROR_MSG_MAX];
} gx_t;

static void on_warn(void *ctx, const char *msg)
{
    gx_t *g = ctx;
    g->nwarn++;
    snprintf(g->warn, sizeof g->warn, "%s", msg);
}

/* A model from a file (json NULL) or a JSON string, compiled, with a linearizer. */
static jg_status_t gx_load(gx_t *g, const char *path, const char *json)
{
    memset(g, 0, sizeof *g);
    jg_status_t st = path ? jg_model_read(path, &g->m, &g->err)
                          : jg_model_parse(json, "<test>", &g->m, &g->err);
    if (!st) st = jg_program_compile(g->m, &g->p, &g->err);
    if (!st) st = jg_lin_create(g->p, NULL, &g->l, &g->err);
    if (!st) jg_lin_set_warn(g->l, on_warn, g);
    return st;
}

static void gx_unload(gx_t *g)
{
    jg_lin_free(g->l);
    jg_program_free(g->p);
    jg_model_free(g->m);
}

/* The four exact-Jacobian paths. */
static const struct {
    jg_lin_method_t m;
    jg_graph_reduce_t r;
    const char *name;
} lpaths[4] = {{JG_LIN_GRAPH, JG_GRAPH_REDUCE_NONE, "graph/none"},
              {JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, "graph/markowitz"},
              {JG_LIN_GRAPH, JG_GRAPH_REDUCE_FULL, "graph/full"},
              {JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, "matrix"}};

/* Largest |D(:, 0) - want| / max |want| over ny outputs. */
static double d_err(const jg_lin_sys_t *s, const long double *want, int ny)
{
    long double e = 0, sc = 0;
    for (int i = 0; i < ny; i++) {
        long double d = (long double)fx_entry(s->D, i, 0) - want[i];
        e = fmaxl(e, fabsl(d));
        sc = fmaxl(sc, fabsl(want[i]));
    }
    double r = (double)(e / (sc > 0 ? sc : 1));
    return isnan(fx_entry(s->D, 0, 0)) ? INFINITY : r;
}

/* ---------------------------------------------------------- reproducers */

/* v1 = u + a v1 + v2, v2 = -v1: eliminating v1 first divides by 1 - a = 1e-8
 * although the system (condition 2.6) has D = [1, -1] / (2 - a). */
static void test_reduce_full(void)
{
    gx_t g;
    jg_status_t st = gx_load(&g, DATA "wrong_reduce_full.json", NULL);
    tap_ok(!st, "wrong_reduce_full.json loads: %s", g.err.msg);
    const long double a = 0.99999999;
    long double want[2] = {1.0L / (2.0L - a), -1.0L / (2.0L - a)};
    for (int k = 0; !st && k < 4; k++) {
        jg_lin_sys_t *s = NULL;
        jg_lin_stats_t ls;
        jg_status_t r = jg_lin_run(g.l, lpaths[k].m, lpaths[k].r, &s, &ls, &g.err);
        double e = r ? INFINITY : d_err(s, want, 2);
        tap_ok(e < 1e-15, "wrong_reduce_full %s: D exact to %.2g (condition estimate %.3g)",
               lpaths[k].name, e, ls.cond);
        tap_ok(!r && ls.cond < 100, "wrong_reduce_full %s: well-conditioned, no warning",
               lpaths[k].name);
        jg_lin_sys_free(s);
    }
    tap_ok(g.nwarn == 0, "no conditioning warning on a condition-2.6 loop");
    gx_unload(&g);
}

/* v1 = v1 + v2, v2 = v1 + u: v1's pivot 1 - 1 is singular, the system is not
 * (D = -1).  The same with width-2 signals (a 2 x 2 pivot block I - I). */
static const char falsesing_w2[] =
    "{'name':'fs2','blocks':[{'name':'In1','type':'Inport','Port':1},"
    "{'name':'In2','type':'Inport','Port':2},{'name':'Mx','type':'Mux','Inputs':2},"
    "{'name':'V1','type':'Sum','Inputs':'++'},{'name':'Ga','type':'Gain','Gain':1},"
    "{'name':'Gb','type':'Gain','Gain':1},{'name':'V2','type':'Sum','Inputs':'++'},"
    "{'name':'Gc','type':'Gain','Gain':1},{'name':'Out1','type':'Outport','Port':1}],"
    "'lines':[{'src':'In1:1','dst':'Mx:1'},{'src':'In2:1','dst':'Mx:2'},"
    "{'src':'Mx:1','dst':'V2:2'},{'src':'V1:1','dst':['Ga:1','Gc:1','Out1:1']},"
    "{'src':'Ga:1','dst':'V1:1'},{'src':'Gb:1','dst':'V1:2'},{'src':'V2:1','dst':'Gb:1'},"
    "{'src':'Gc:1','dst':'V2:1'}]}";

static void test_falsesing(void)
{
    for (int c = 0; c < 2; c++) {
        gx_t g;
        jg_status_t st = c ? gx_load(&g, NULL, q(falsesing_w2))
                           : gx_load(&g, DATA "falsesing_markowitz.json", NULL);
        tap_ok(!st, "%s loads: %s", c ? "width-2 variant" : "falsesing_markowitz.json", g.err.msg);
        for (int k = 0; !st && k < 4; k++) {
            jg_lin_sys_t *s = NULL;
            jg_status_t r = jg_lin_run(g.l, lpaths[k].m, lpaths[k].r, &s, NULL, &g.err);
            int good = !r && s->D->m == (c ? 2 : 1);
            for (int i = 0; good && i < (c ? 2 : 1); i++)
                for (int j = 0; j < (c ? 2 : 1); j++)
                    good &= fabs(fx_entry(s->D, i, j) - (i == j ? -1.0 : 0.0)) < 1e-15;
            tap_ok(good, "%s %s: D = -I, no false singularity (%s)",
                   c ? "width-2" : "falsesing", lpaths[k].name, r ? g.err.msg : "ok");
            jg_lin_sys_free(s);
        }
        gx_unload(&g);
    }
}

/* ------------------------------------------------- replay at another point */

/* wrong_reduce_full.json with its gain 0.99999999 replaced by a Product
 * with the input p: v1 = u + p v1 + v2, v2 = -v1 + 0 v2 + 0 u.  At p = 0 the
 * full elimination's tape inverts 1 - p at v1; at p = 1 - 1e-10 the same
 * tape would divide by 1e-10 and at p = 1 by zero, while D = 1 / (2 - p) is
 * perfectly conditioned. */
static const char replay_model[] = TL_MODEL_PIVOT_LOOP;

static void test_replay_guard(void)
{
    for (int k = 1; k < 3; k++) {
        gx_t g;
        jg_status_t st = gx_load(&g, NULL, q(replay_model));
        tap_ok(!st, "replay model loads: %s", g.err.msg);
        if (st) continue;
        const double ps[4] = {0, 1 - 1e-10, 1, 0.5};
        for (int t = 0; t < 4; t++) {
            jg_lin_inputs(g.l)[1] = ps[t];
            jg_lin_sys_t *s = NULL;
            jg_lin_stats_t ls;
            jg_status_t r = jg_lin_run(g.l, lpaths[k].m, lpaths[k].r, &s, &ls, &g.err);
            long double want = 1.0L / (2.0L - (long double)ps[t]);
            double e = r ? INFINITY : d_err(s, &want, 1);
            tap_ok(e < 1e-15, "%s at p = %.17g: D = 1 / (2 - p) to %.2g%s (%s)", lpaths[k].name,
                   ps[t], e, ls.pivot_fallback ? ", fell back to the pivoted LFT" : "",
                   r ? g.err.msg : "ok");
            if (k == 2 && (t == 1 || t == 2))
                tap_ok(ls.pivot_fallback, "%s at p = %.17g: the tape's pivot is refused",
                       lpaths[k].name, ps[t]);
            if (t == 0 || t == 3) tap_ok(!ls.pivot_fallback, "%s at p = %g: the tape is used",
                                         lpaths[k].name, ps[t]);
            jg_lin_sys_free(s);
        }
        gx_unload(&g);
    }
}

/* -------------------------------------------------------- NaN and Inf */

/* A lookup of +-1e308 (slope Inf - Inf = NaN), and a Fcn 1/u at u = 0 (a
 * derivative of -Inf): errors for every method, naming the block. */
static const char inf_fcn[] =
    "{'name':'inf','blocks':[{'name':'In1','type':'Inport','Port':1},"
    "{'name':'Recip','type':'Fcn','Expr':'1/u(1)'},{'name':'G','type':'Gain','Gain':2},"
    "{'name':'Out1','type':'Outport','Port':1}],"
    "'lines':[{'src':'In1:1','dst':'G:1'},{'src':'G:1','dst':'Recip:1'},"
    "{'src':'Recip:1','dst':'Out1:1'}]}";
/* A lookup segment whose slope is beyond double's range (2e308 over 1e-300):
 * the derivative itself is not representable. */
static const char steep_lookup[] =
    "{'name':'steep','blocks':[{'name':'In1','type':'Inport','Port':1},"
    "{'name':'L','type':'Lookup1D','BreakpointsForDimension1':[0,1e-300],"
    "'Table':[-1e308,1e308]},{'name':'Out1','type':'Outport','Port':1}],"
    "'lines':[{'src':'In1:1','dst':'L:1'},{'src':'L:1','dst':'Out1:1'}]}";
/* Gains of 1e200 in series: every Jacobian finite, the product overflows. */
static const char overflow_chain[] =
    "{'name':'ovf','blocks':[{'name':'In1','type':'Inport','Port':1},"
    "{'name':'G1','type':'Gain','Gain':1e200},{'name':'G2','type':'Gain','Gain':1e200},"
    "{'name':'Out1','type':'Outport','Port':1}],"
    "'lines':[{'src':'In1:1','dst':'G1:1'},{'src':'G1:1','dst':'G2:1'},"
    "{'src':'G2:1','dst':'Out1:1'}]}";

static void test_nonfinite(void)
{
    const char *what[3] = {"lookup slope 2e308/1e-300", "Fcn 1/u at 0", "gains 1e200 x 1e200"};
    const char *name[3] = {"'L'", "'Recip'", "overflowed"};
    for (int c = 0; c < 3; c++) {
        gx_t g;
        jg_status_t st = c == 0   ? gx_load(&g, NULL, q(steep_lookup))
                         : c == 1 ? gx_load(&g, NULL, q(inf_fcn))
                                  : gx_load(&g, NULL, q(overflow_chain));
        tap_ok(!st, "%s loads: %s", what[c], g.err.msg);
        /* perturbation sees the lookup's outputs, which are finite */
        for (int k = 0; !st && k < (c == 0 ? 4 : 5); k++) {
            jg_lin_method_t m = k < 4 ? lpaths[k].m : JG_LIN_PERTURB;
            jg_graph_reduce_t r = k < 4 ? lpaths[k].r : JG_GRAPH_REDUCE_NONE;
            jg_lin_sys_t *s = NULL;
            jg_error_clear(&g.err);
            jg_status_t rs = jg_lin_run(g.l, m, r, &s, NULL, &g.err);
            const char *nm = c == 2 && k == 4 ? "'G2'" : name[c];   /* its output is Inf */
            if (c == 2 && (k == 0 || k == 3))   /* partial pivoting on the unscaled
                                                   I - D*M breaks down first */
                tap_ok(rs != JG_OK && !s, "%s, %s: refused: %s", what[c], lpaths[k].name, g.err.msg);
            else
            tap_ok(rs == JG_NUMERIC && strstr(g.err.msg, nm) && !s,
                   "%s, %s: numeric error naming %s: %s", what[c], k < 4 ? lpaths[k].name : "perturb",
                   nm, g.err.msg);
            jg_lin_sys_free(s);
        }
        gx_unload(&g);
    }
    /* comparing a NaN system is a difference, not agreement */
    gx_t g;
    const char *pm = "{'name':'p','blocks':[{'name':'In1','type':'Inport','Port':1},"
                     "{'name':'G','type':'Gain','Gain':2},{'name':'Out1','type':'Outport','Port':1}],"
                     "'lines':[{'src':'In1:1','dst':'G:1'},{'src':'G:1','dst':'Out1:1'}]}";
    if (!gx_load(&g, NULL, q(pm))) {
        jg_lin_sys_t *a = NULL, *b = NULL;
        jg_lin_run(g.l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &a, NULL, &g.err);
        jg_lin_run(g.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_FULL, &b, NULL, &g.err);
        if (a && b) {
            const char *which = "";
            tap_ok(jg_lin_sys_diff(b, a, &which) == 0, "equal systems differ by 0");
            b->D->x[0] = NAN;
            double d = jg_lin_sys_diff(b, a, &which);
            tap_ok(!(d <= 1e-10) && !strcmp(which, "D"), "a NaN entry is a difference (%g in %s)",
                   d, which);
        }
        jg_lin_sys_free(a);
        jg_lin_sys_free(b);
        gx_unload(&g);
    }
}

/* Breakpoints and table values near the end of double's range: the
 * differences x1 - x0 and y1 - y0 overflow, the slopes do not
 * (nan_lookup_check_pass.json gave NaN Jacobians and a wrong output -1e308
 * at u = 0).  1-D: y = u; 2-D: y = u1 + 2 u2 over [-1e308, 1e308]^2 with a
 * table of corner values (both axes' partials and the output at (0, 0)). */
static void test_huge_lookup(void)
{
    static const char lut2[] =
        "{'name':'l2','blocks':[{'name':'In1','type':'Inport','Port':1},"
        "{'name':'In2','type':'Inport','Port':2},"
        "{'name':'L','type':'Lookup2D','BreakpointsForDimension1':[-1e308,1e308],"
        "'BreakpointsForDimension2':[-4e307,4e307],"
        "'Table':[[-1.7e308,-1e308],[-1e307,1.7e308]]},{'name':'Out1','type':'Outport','Port':1}],"
        "'lines':[{'src':'In1:1','dst':'L:1'},{'src':'In2:1','dst':'L:2'},"
        "{'src':'L:1','dst':'Out1:1'}]}";
    for (int c = 0; c < 2; c++) {
        gx_t g;
        jg_status_t st = c == 0 ? gx_load(&g, DATA "nan_lookup_check_pass.json", NULL) : gx_load(&g, NULL, q(lut2));
        tap_ok(!st, "huge lookup %d loads: %s", c + 1, g.err.msg);
        for (int k = 0; !st && k < 4; k++) {
            jg_lin_sys_t *s = NULL;
            jg_error_clear(&g.err);
            jg_status_t rs = jg_lin_run(g.l, lpaths[k].m, lpaths[k].r, &s, NULL, &g.err);
            tap_ok(rs == JG_OK && s, "huge lookup %d, %s: linearizes: %s", c + 1, lpaths[k].name, g.err.msg);
            if (rs || !s) continue;
            double d[2] = {0, 0};
            for (int64_t j = 0; j < s->D->n; j++)
                for (int64_t p = s->D->p[j]; p < s->D->p[j + 1]; p++) d[j] = s->D->x[p];
            if (c == 0) {
                tap_ok(d[0] == 1, "1-D: dy/du = 1 (got %.17g)", d[0]);
            } else {
                /* along dimension 1 at u2 = 0: the rows' midpoints -1.35e308 and 0.8e308,
                   2.15e308 over 2e308; along dimension 2 at u1 = 0: the mean of the rows'
                   slopes 0.7e308 / 8e307 = 0.875 and 1.8e308 / 8e307 = 2.25 */
                double s1 = 1.075, s2 = 1.5625;
                tap_ok(fabs(d[0] - s1) <= 1e-15 * fabs(s1) && fabs(d[1] - s2) <= 1e-15 * fabs(s2),
                       "2-D: partials %.17g, %.17g (hand: %.17g, %.17g)", d[0], d[1], s1, s2);
            }
            jg_lin_sys_free(s);
        }
        gx_unload(&g);
    }
}

/* ------------------------------------- parameters whose reciprocal overflows */

static void test_tiny_params(void)
{
    static const struct {
        const char *blk, *param;
        int ok;
    } c[] = {
        {"'type':'TransportDelay','DelayTime':1e-300,'PadeOrder':10", "DelayTime", 0},
        {"'type':'TransportDelay','DelayTime':1e-300,'PadeOrder':0", "DelayTime", 1},
        {"'type':'TransportDelay','DelayTime':4e-320", "DelayTime", 0},
        {"'type':'Derivative','CoefficientInTFapproximation':1e-310", "CoefficientInTFapproximation", 0},
        {"'type':'TransferFcn','Numerator':1,'Denominator':[1e-310,1]", "Denominator", 0},
        {"'type':'TransferFcn','Numerator':1,'Denominator':[1e-300,1e10,1]", "Denominator", 0},
        {"'type':'TransferFcn','Numerator':1,'Denominator':[1e-20,1]", "Denominator", 1},
    };
    gx_t g;
    jg_status_t st = gx_load(&g, DATA "inf_pade_subnormal_delay.json", NULL);
    tap_ok(st == JG_PARAM && strstr(g.err.msg, "DelayTime") && strstr(g.err.msg, "'T'"),
           "inf_pade_subnormal_delay.json: DelayTime 1e-310 refused: %s", g.err.msg);
    gx_unload(&g);
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        int w = 1;
        st = gx_load(&g, NULL, q(fx_blk_model(c[k].blk, 1, &w)));
        if (c[k].ok)
            tap_ok(!st, "{%s} accepted (%s)", c[k].blk, g.err.msg);
        else
            tap_ok(st == JG_PARAM && strstr(g.err.msg, c[k].param),
                   "{%s} refused naming %s: %s", c[k].blk, c[k].param, g.err.msg);
        gx_unload(&g);
    }
}

/* ------------------------------------------------ condition and warning */

/* A loop of gain 1 - 1e-11 (condition 1e11), and three gains of 1e6 in
 * series without a loop (the unscaled I - D*M has condition 1e18, the
 * problem none: it must not warn). */
static const char illcond_loop[] =
    "{'name':'ic','blocks':[{'name':'In1','type':'Inport','Port':1},"
    "{'name':'Sum','type':'Sum','Inputs':'++'},{'name':'Fb','type':'Gain','Gain':0.99999999999},"
    "{'name':'Out1','type':'Outport','Port':1}],"
    "'lines':[{'src':'In1:1','dst':'Sum:1'},{'src':'Sum:1','dst':['Fb:1','Out1:1']},"
    "{'src':'Fb:1','dst':'Sum:2'}]}";
static const char gain_chain[] =
    "{'name':'gc','blocks':[{'name':'In1','type':'Inport','Port':1},"
    "{'name':'G1','type':'Gain','Gain':1e6},{'name':'G2','type':'Gain','Gain':1e6},"
    "{'name':'G3','type':'Gain','Gain':1e-6},{'name':'S','type':'Sum','Inputs':'++'},"
    "{'name':'Out1','type':'Outport','Port':1}],"
    "'lines':[{'src':'In1:1','dst':['G1:1','S:2']},{'src':'G1:1','dst':'G2:1'},"
    "{'src':'G2:1','dst':'G3:1'},{'src':'G3:1','dst':'S:1'},{'src':'S:1','dst':'Out1:1'}]}";

static void test_condition(void)
{
    for (int c = 0; c < 3; c++) {
        gx_t g;
        jg_status_t st = c == 0   ? gx_load(&g, DATA "check_reference_illcond.json", NULL)
                         : c == 1 ? gx_load(&g, NULL, q(illcond_loop))
                                  : gx_load(&g, NULL, q(gain_chain));
        const char *what = c == 0 ? "check_reference_illcond" : c == 1 ? "loop 1 - 1e-11" : "gain chain";
        tap_ok(!st, "%s loads: %s", what, g.err.msg);
        for (int k = 0; !st && k < 4; k++) {
            jg_lin_sys_t *s = NULL;
            jg_lin_stats_t ls;
            jg_status_t r = jg_lin_run(g.l, lpaths[k].m, lpaths[k].r, &s, &ls, &g.err);
            if (c < 2)
                tap_ok(!r && ls.cond > JG_LIN_COND_WARN && ls.cond < 1e14,
                       "%s %s: condition estimate %.3g above the threshold", what, lpaths[k].name,
                       ls.cond);
            else
                tap_ok(!r && ls.cond < 10, "%s %s: condition estimate %.3g (no false alarm)", what,
                       lpaths[k].name, ls.cond);
            jg_lin_sys_free(s);
        }
        if (c == 0)
            tap_ok(g.nwarn == 1 && strstr(g.warn, "S0") && strstr(g.warn, "G6"),
                   "one warning naming the loop's blocks: %s", g.warn);
        else if (c == 1)
            tap_ok(g.nwarn == 1 && strstr(g.warn, "Sum, Fb"), "one warning naming the loop: %s", g.warn);
        else
            tap_ok(g.nwarn == 0, "no warning for a chain of gains");
        gx_unload(&g);
    }
}

/* ------------------------------------------------- random tiny pivots */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Solve (I - G) x = b in long double with partial pivoting; n <= 8.  Also
 * |(I - G)^-1|_inf into *ninv.  Returns 0, or 1 when singular. */
static int solve_ld(int n, const double G[8][8], const double *b, long double *x, long double *ninv)
{
    long double A[8][16];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 2 * n; j++)
            A[i][j] = j < n ? (i == j) - (long double)G[i][j] : (j - n == i);
    for (int k = 0; k < n; k++) {
        int pr = k;
        for (int i = k + 1; i < n; i++)
            if (fabsl(A[i][k]) > fabsl(A[pr][k])) pr = i;
        if (A[pr][k] == 0) return 1;
        for (int j = 0; j < 2 * n; j++) {
            long double t = A[k][j];
            A[k][j] = A[pr][j];
            A[pr][j] = t;
        }
        for (int i = 0; i < n; i++) {
            if (i == k) continue;
            long double f = A[i][k] / A[k][k];
            for (int j = k; j < 2 * n; j++) A[i][j] -= f * A[k][j];
        }
    }
    *ninv = 0;
    for (int i = 0; i < n; i++) {
        long double r = 0;
        x[i] = 0;
        for (int j = 0; j < n; j++) {
            long double inv = A[i][n + j] / A[i][i];
            r += fabsl(inv);
            x[i] += inv * b[j];
        }
        *ninv = fmaxl(*ninv, r);
    }
    return 0;
}

/* n Sum blocks V_i = b_i u + sum_j G_ij V_j (a Gain per nonzero G_ij), some
 * with a self gain 1 - delta, delta from 1e-6 to 1e-12: every path must
 * agree with the exact answer to about condition x eps. */
static void test_random_tiny_pivots(void)
{
    int trials = 0, checked = 0, worst_k = 0;
    double worst = 0;
    for (int t = 0; t < 300; t++) {
        int n = 2 + (int)(urand() * 4);   /* 2..5 */
        double G[8][8] = {{0}}, b[8];
        for (int i = 0; i < n; i++) {
            b[i] = urand() < 0.7 ? 2 * urand() - 1 : 0;
            for (int j = 0; j < n; j++)
                if (i != j && urand() < 0.6) G[i][j] = 3 * urand() - 1.5;
        }
        b[0] = 1;
        int ntiny = 1 + (urand() < 0.4);
        for (int k = 0; k < ntiny; k++) {
            int i = (int)(urand() * n);
            G[i][i] = 1 - pow(10, -6 - 6 * urand());
        }
        long double x[8], ninv;
        if (solve_ld(n, G, b, x, &ninv)) continue;
        long double gn = 0;
        for (int i = 0; i < n; i++) {
            long double r = 0;
            for (int j = 0; j < n; j++) r += fabsl((long double)G[i][j]);
            gn = fmaxl(gn, r);
        }
        double kappa = (double)(fmaxl(1, gn) * ninv);
        if (!(kappa < 1e12)) continue;
        trials++;
        /* the model */
        char js[16384];
        size_t o = 0;
        o += (size_t)snprintf(js + o, sizeof js - o,
                              "{'name':'rnd%d','blocks':[{'name':'In1','type':'Inport','Port':1}", t);
        for (int i = 0; i < n; i++) {
            int nin = 1;
            for (int j = 0; j < n; j++) nin += G[i][j] != 0;
            char signs[16] = "";
            for (int k = 0; k < nin; k++) strcat(signs, "+");
            o += (size_t)snprintf(js + o, sizeof js - o,
                                  ",{'name':'V%d','type':'Sum','Inputs':'%s'},"
                                  "{'name':'B%d','type':'Gain','Gain':%.17g},"
                                  "{'name':'Out%d','type':'Outport','Port':%d}",
                                  i, signs, i, b[i], i, i + 1);
            for (int j = 0; j < n; j++)
                if (G[i][j] != 0)
                    o += (size_t)snprintf(js + o, sizeof js - o,
                                          ",{'name':'G%d_%d','type':'Gain','Gain':%.17g}", i, j,
                                          G[i][j]);
        }
        o += (size_t)snprintf(js + o, sizeof js - o, "],'lines':[");
        int first = 1;
#define LINE(...)                                                                           \
    do {                                                                                    \
        o += (size_t)snprintf(js + o, sizeof js - o, "%s", first ? "" : ",");               \
        o += (size_t)snprintf(js + o, sizeof js - o, __VA_ARGS__);                          \
        first = 0;                                                                          \
    } while (0)
        o += (size_t)snprintf(js + o, sizeof js - o, "{'src':'In1:1','dst':[");
        for (int i = 0; i < n; i++) o += (size_t)snprintf(js + o, sizeof js - o, "%s'B%d:1'", i ? "," : "", i);
        o += (size_t)snprintf(js + o, sizeof js - o, "]}");
        first = 0;
        for (int i = 0; i < n; i++) {
            int port = 1;
            LINE("{'src':'B%d:1','dst':'V%d:%d'}", i, i, port++);
            for (int j = 0; j < n; j++)
                if (G[i][j] != 0) LINE("{'src':'G%d_%d:1','dst':'V%d:%d'}", i, j, i, port++);
            /* V_i drives Out_i and every G_k_i */
            o += (size_t)snprintf(js + o, sizeof js - o, ",{'src':'V%d:1','dst':['Out%d:1'", i, i);
            for (int k = 0; k < n; k++)
                if (G[k][i] != 0) o += (size_t)snprintf(js + o, sizeof js - o, ",'G%d_%d:1'", k, i);
            o += (size_t)snprintf(js + o, sizeof js - o, "]}");
        }
#undef LINE
        o += (size_t)snprintf(js + o, sizeof js - o, "]}");
        gx_t g;
        jg_status_t st = gx_load(&g, NULL, q(js));
        if (st) {
            tap_ok(0, "random model %d compiles: %s", t, g.err.msg);
            gx_unload(&g);
            continue;
        }
        for (int k = 0; k < 4; k++) {
            jg_lin_sys_t *s = NULL;
            jg_lin_stats_t ls;
            jg_status_t r = jg_lin_run(g.l, lpaths[k].m, lpaths[k].r, &s, &ls, &g.err);
            double e = r ? INFINITY : d_err(s, x, n);
            /* rounding of the data alone moves the answer by kappa * eps; the
             * algorithms add a few units more (the accepted pivots
             * are conditioned below 1e3) */
            double tol = 100 * DBL_EPSILON * fmax(kappa, 1);
            if (e / tol > worst) {
                worst = e / tol;
                worst_k = k;
            }
            if (!(e <= tol))
                tap_ok(0, "random %d (n %d, kappa %.3g) %s: error %.3g > %.3g (%s)", t, n, kappa,
                       lpaths[k].name, e, tol, r ? g.err.msg : "ok");
            checked++;
            jg_lin_sys_free(s);
        }
        gx_unload(&g);
    }
    tap_ok(trials > 200 && worst <= 1,
           "random loops with tiny pivots: %d models x 4 paths, worst error %.3g of its tolerance "
           "(%s)",
           trials, worst, lpaths[worst_k].name);
    (void)checked;
}

int main(void)
{
    test_reduce_full();
    test_falsesing();
    test_replay_guard();
    test_nonfinite();
    test_huge_lookup();
    test_tiny_params();
    test_condition();
    test_random_tiny_pivots();
    return tap_done();
}
