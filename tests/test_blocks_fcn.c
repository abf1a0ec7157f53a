/* Fcn block: expression values against C, the forward-mode Jacobian against
 * hand derivatives and central differences, Van der Pol written with Fcn,
 * precedence, workspace scoping, widths, patterns, and every error message. */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

#define PI 3.14159265358979323846

/* In1 (width n) -> F (Fcn expr) -> Int (Integrator) and Out1: the value of F
 * is the derivative of Int, its gradient the D row of the linearization. */
static char *fcn_model(const char *expr, int n, const char *params)
{
    static char buf[65536];
    snprintf(buf, sizeof buf,
             "{\"name\":\"fcn\",\"parameters\":{%s},\"blocks\":["
             "{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1,\"PortDimensions\":%d},"
             "{\"name\":\"F\",\"type\":\"Fcn\",\"Expr\":\"%s\"},"
             "{\"name\":\"Int\",\"type\":\"Integrator\"},"
             "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],"
             "\"lines\":[{\"src\":\"In1:1\",\"dst\":\"F:1\"},"
             "{\"src\":\"F:1\",\"dst\":[\"Int:1\",\"Out1:1\"]}]}",
             params ? params : "", n, expr);
    return buf;
}

/* Value of the loaded single-Fcn model at u. */
static jg_status_t value_at(fx_t *f, const double *u, int n, double *y)
{
    double *in = jg_eval_inputs(f->w), dx[1];
    for (int k = 0; k < n; k++) in[k] = u[k];
    jg_status_t st = jg_eval_outputs(f->w, 0, &f->err);
    if (!st) st = jg_eval_derivatives(f->w, dx, &f->err);
    if (!st) *y = dx[0];
    return st;
}

/* Gradient (D row) at u by method m. */
static jg_status_t grad_at(fx_t *f, const double *u, int n, jg_lin_method_t m, double *g)
{
    double *in = jg_lin_inputs(f->l);
    for (int k = 0; k < n; k++) in[k] = u[k];
    jg_lin_sys_t *s = NULL;
    jg_status_t st = jg_lin_run(f->l, m, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f->err);
    if (!st)
        for (int k = 0; k < n; k++) g[k] = fx_entry(s->D, 0, k);
    jg_lin_sys_free(s);
    return st;
}

/* Compile expr and return its value at u (NAN on failure, with a diagnostic). */
static double eval_expr(const char *expr, int n, const double *u, const char *params)
{
    fx_t f;
    double y = NAN;
    jg_status_t st = fx_load(&f, fcn_model(expr, n, params), NULL);
    if (!st) st = value_at(&f, u, n, &y);
    if (st) printf("#   %s: %s\n", expr, f.err.msg);
    fx_unload(&f);
    return st ? NAN : y;
}

static const char params[] = "\"mu\":1.5,\"k\":2,\"kk\":\"k\"";

/* ------------------------------------------------------------------ values */

static void test_values(void)
{
    const double a = 0.3, b = -0.7, c = 2.5;
    const double u3[3] = {a, b, c};
    struct {
        const char *expr;
        double want;
    } t[] = {
        {"1 - u(1)^2", 1 - a * a},
        {"mu*(1-u(1)^2)*u(2) - u(1)", 1.5 * (1 - a * a) * b - a},
        {"1e-3*u(3) + .5", 1e-3 * c + .5},
        {"2.5E+1 - 1. + 0.25e1", 25 - 1 + 2.5},
        {"sin(u(1)) + cos(u(2)) * tan(u(3))", sin(a) + cos(b) * tan(c)},
        {"asin(u(1)) - acos(u(2)) + atan(u(3))", asin(a) - acos(b) + atan(c)},
        {"atan2(u(2), u(1))", atan2(b, a)},
        {"atan2(u(2), -u(1))", atan2(b, -a)},
        {"sinh(u(1))*cosh(u(2))/tanh(u(3))", sinh(a) * cosh(b) / tanh(c)},
        {"exp(u(2)) + log(u(3)) + log10(u(3)*4)", exp(b) + log(c) + log10(c * 4)},
        {"sqrt(u(3)) * abs(u(2))", sqrt(c) * fabs(b)},
        {"pow(u(3), u(1)) + pow(u(2), 3)", pow(c, a) + pow(b, 3)},
        {"hypot(u(1), u(2))", hypot(a, b)},
        {"min(u(1), u(2)) + 10*max(u(1), u(3))", fmin(a, b) + 10 * fmax(a, c)},
        {"sign(u(1)) + 2*sign(u(2)) + 4*sign(u(1)-u(1))", 1 - 2 + 0},
        {"pi*u(3)", PI * c},
        {"k^u(3) + kk", pow(2, c) + 2},
        {"u(2)^2 + u(2)^3", b * b + b * b * b},
        {"u(3)^-1 + 2^-2", 1 / c + 0.25},
        {"-u(1)^2", -(a * a)},
        {"(-u(2))^0.5", sqrt(-b)},
        {"u(1)*u(2)*u(3)/(u(1)+u(3))", a * b * c / (a + c)},
        {" \\tu(1)\\t*\\n2 ", 2 * a},   /* JSON escapes: tab, newline */
        {"u(01)", a},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        double y = eval_expr(t[i].expr, 3, u3, params);
        char name[160];
        snprintf(name, sizeof name, "value of \"%s\"", t[i].expr);
        tap_near(y, t[i].want, 1e-14, name);
    }
    /* the documented scalar forms: u is u(1) of a width-1 input */
    double u1 = 0.7;
    tap_near(eval_expr("sin(u) + 2*u", 1, &u1, NULL), sin(0.7) + 1.4, 1e-15,
             "value of \"sin(u) + 2*u\"");
    tap_near(eval_expr("u + u(1)", 1, &u1, NULL), 1.4, 1e-15, "u and u(1) are the same element");
    tap_near(eval_expr("mu", 1, &u1, params), 1.5, 0, "an expression of parameters only");
}

static void test_precedence(void)
{
    double u = 0;
    struct {
        const char *expr;
        double want;
    } t[] = {
        {"-2^2", -4},       {"2^3^2", 512},    {"1-2-3", -4},       {"6/2/3", 1},
        {"(-2)^2", 4},      {"2*3+4*5", 26},   {"1+2*3^2", 19},     {"2^-1", 0.5},
        {"-2^-2", -0.25},   {"2*-3", -6},      {"--2", 2},          {"+-+2", -2},
        {"2^-1^2", 0.5},    {"(2^3)^2", 64},   {"-(1-3)*2", 4},     {"8/2*4", 16},
        {"1-2+3", 2},       {"2^2*3", 12},     {"-3^2+1", -8},      {"((((7))))", 7},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        char name[96];
        snprintf(name, sizeof name, "precedence: %s = %g", t[i].expr, t[i].want);
        tap_near(eval_expr(t[i].expr, 1, &u, NULL), t[i].want, 0, name);
    }
}

/* --------------------------------------------------------------- Jacobian */

typedef struct {
    const char *expr;
    int n;
    double u[3];
    double d[3];   /* hand derivative */
} jcase_t;

static void test_jacobian(void)
{
    const double a = 0.3, b = -0.7, c = 2.5;
    const jcase_t t[] = {
        {"sin(u)", 1, {a}, {cos(a)}},
        {"cos(u)", 1, {a}, {-sin(a)}},
        {"tan(u)", 1, {a}, {1 / (cos(a) * cos(a))}},
        {"asin(u)", 1, {b}, {1 / sqrt(1 - b * b)}},
        {"acos(u)", 1, {b}, {-1 / sqrt(1 - b * b)}},
        {"atan(u)", 1, {c}, {1 / (1 + c * c)}},
        {"sinh(u)", 1, {b}, {cosh(b)}},
        {"cosh(u)", 1, {b}, {sinh(b)}},
        {"tanh(u)", 1, {b}, {1 - tanh(b) * tanh(b)}},
        {"exp(u)", 1, {b}, {exp(b)}},
        {"log(u)", 1, {c}, {1 / c}},
        {"log10(u)", 1, {c}, {1 / (c * log(10))}},
        {"sqrt(u)", 1, {c}, {0.5 / sqrt(c)}},
        {"abs(u)", 1, {b}, {-1}},
        {"sign(u)", 1, {b}, {0}},
        {"-u", 1, {a}, {-1}},
        {"u^3", 1, {b}, {3 * b * b}},
        {"u^-2", 1, {b}, {-2 / (b * b * b)}},
        {"2^u", 1, {c}, {pow(2, c) * log(2)}},
        {"k^u", 1, {c}, {pow(2, c) * log(2)}},
        {"1/u", 1, {b}, {-1 / (b * b)}},
        {"atan2(u(1), u(2))", 2, {a, b}, {b / (a * a + b * b), -a / (a * a + b * b)}},
        {"hypot(u(1), u(2))", 2, {a, b}, {a / hypot(a, b), b / hypot(a, b)}},
        {"pow(u(1), u(2))", 2, {c, a}, {a * pow(c, a - 1), pow(c, a) * log(c)}},
        {"u(1)^u(2)", 2, {c, b}, {b * pow(c, b - 1), pow(c, b) * log(c)}},
        {"min(u(1), u(2))", 2, {a, b}, {0, 1}},
        {"max(u(1), u(2))", 2, {a, b}, {1, 0}},
        {"min(u(1), u(2))", 2, {a, a}, {0.5, 0.5}},
        {"u(1)*u(2)", 2, {a, b}, {b, a}},
        {"u(1)/u(2)", 2, {a, b}, {1 / b, -a / (b * b)}},
        {"u(1)-u(2)", 2, {a, b}, {1, -1}},
        {"mu*(1-u(1)^2)*u(2)-u(1)", 2, {a, b}, {1.5 * -2 * a * b - 1, 1.5 * (1 - a * a)}},
        {"exp(u(1)*u(2))*sin(u(3)) + u(3)^2", 3, {a, b, c},
         {b * exp(a * b) * sin(c), a * exp(a * b) * sin(c), exp(a * b) * cos(c) + 2 * c}},
        {"sqrt(mu - 1.5) + u", 1, {a}, {1}},   /* sqrt at 0 of a constant: no derivative needed */
        {"u(3)", 3, {a, b, c}, {0, 0, 1}},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        fx_t f;
        jg_status_t st = fx_load(&f, fcn_model(t[i].expr, t[i].n, params), NULL);
        double gg[3] = {0}, gm[3] = {0}, cd[3] = {0};
        if (!st) st = grad_at(&f, t[i].u, t[i].n, JG_LIN_GRAPH, gg);
        if (!st) st = grad_at(&f, t[i].u, t[i].n, JG_LIN_MATRIX, gm);
        /* central differences of the value, h relative to |u| */
        for (int k = 0; !st && k < t[i].n; k++) {
            double u[3], yp = 0, ym = 0, h = 1e-6 * fmax(1, fabs(t[i].u[k]));
            memcpy(u, t[i].u, sizeof u);
            u[k] = t[i].u[k] + h;
            st = value_at(&f, u, t[i].n, &yp);
            u[k] = t[i].u[k] - h;
            if (!st) st = value_at(&f, u, t[i].n, &ym);
            cd[k] = (yp - ym) / (2 * h);
        }
        double e_hand = 0, e_cd = 0, e_mat = 0;
        for (int k = 0; k < t[i].n; k++) {
            e_hand = fmax(e_hand, fabs(gg[k] - t[i].d[k]) / fmax(1, fabs(t[i].d[k])));
            e_mat = fmax(e_mat, fabs(gm[k] - gg[k]) / fmax(1, fabs(gg[k])));
            /* min/max at a tie: the convention (average), not a derivative */
            if (t[i].u[0] != t[i].u[1] || strncmp(t[i].expr, "min", 3))
                e_cd = fmax(e_cd, fabs(gg[k] - cd[k]) / fmax(1, fabs(cd[k])));
        }
        if (st) printf("#   %s\n", f.err.msg);
        tap_ok(!st && e_hand <= 1e-14 && e_mat <= 1e-14 && e_cd <= 1e-8,
               "Jacobian of \"%s\": vs hand %.1e, vs central differences %.1e, vs matrix %.1e",
               t[i].expr, e_hand, e_cd, e_mat);
        fx_unload(&f);
    }
}

/* Pattern: only the u(k) that appear; no u at all is no feedthrough. */
static void test_pattern(void)
{
    fx_t f;
    jg_status_t st = fx_load(&f, fcn_model("u(1) + 3*u(3)", 4, NULL), NULL);
    const jg_graph_t *g = NULL;
    if (!st) st = jg_lin_graph(f.l, JG_GRAPH_REDUCE_NONE, &g, &f.err);
    int32_t F = jg_program_find_block(f.p, "F");
    int found = 0, ok = 0;
    for (int64_t e = 0; !st && e < jg_graph_nedges(g); e++) {
        jg_edge_info_t ei;
        jg_graph_edge(g, e, &ei);
        jg_vertex_info_t vs, vd;
        jg_graph_vertex(g, ei.src, &vs);
        jg_graph_vertex(g, ei.dst, &vd);
        if (vs.kind != JG_V_INPUT || vd.kind != JG_V_OUTPUT || vs.block != F) continue;
        found++;
        ok = ei.rows == 1 && ei.cols == 4 && ei.nnz == 2 && ei.p[0] == 0 && ei.p[1] == 1 &&
             ei.p[2] == 1 && ei.p[3] == 2 && ei.p[4] == 2 && ei.x && ei.x[0] == 1 && ei.x[1] == 3;
    }
    tap_ok(!st && found == 1 && ok, "d pattern of \"u(1) + 3*u(3)\" on width 4: columns 1 and 3");
    tap_ok(!st && jg_program_block_feedthrough(f.p, F, 0), "u(k) used: direct feedthrough");
    fx_unload(&f);

    /* an expression without u, fed back to itself: no feedthrough, no loop */
    static const char selfloop[] =
        "{\"parameters\":{\"mu\":2},\"blocks\":["
        "{\"name\":\"F\",\"type\":\"Fcn\",\"Expr\":\"3*mu\"},"
        "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],"
        "\"lines\":[{\"src\":\"F:1\",\"dst\":[\"F:1\",\"Out1:1\"]}]}";
    st = fx_load(&f, selfloop, NULL);
    F = st ? -1 : jg_program_find_block(f.p, "F");
    double y = 0;
    if (!st) st = jg_eval_outputs(f.w, 0, &f.err);
    if (!st) y = jg_eval_signals(f.w)[0];
    tap_ok(!st && !jg_program_block_feedthrough(f.p, F, 0) && jg_program_nloops(f.p) == 0 &&
               y == 6,
           "\"3*mu\" in a self-loop: no feedthrough, no algebraic loop, y = 6");
    if (st) printf("#   %s\n", f.err.msg);
    fx_unload(&f);

    /* wide expression: the stack (101 deep) and gradient (101 x 100) leave the local buffers */
    char expr[4096] = "", *p = expr;
    for (int k = 1; k <= 100; k++) p += sprintf(p, "u(%d)*%d+(", k, k);
    p += sprintf(p, "0");
    for (int k = 1; k <= 100; k++) *p++ = ')';
    *p = 0;
    double u[100], gr[100], yv = 0, want = 0;
    for (int k = 0; k < 100; k++) {
        u[k] = 0.01 * k;
        want += (k + 1) * u[k];
    }
    st = fx_load(&f, fcn_model(expr, 100, NULL), NULL);
    if (!st) st = value_at(&f, u, 100, &yv);
    if (!st) st = grad_at(&f, u, 100, JG_LIN_GRAPH, gr);
    int gok = !st;
    for (int k = 0; !st && k < 100; k++) gok &= gr[k] == k + 1;
    tap_ok(gok && fabs(yv - want) <= 1e-13 * want,
           "100 inputs nested 100 deep: value and gradient");
    if (!st && !gok) printf("#   gr[0] = %g, gr[99] = %g\n", gr[0], gr[99]);
    if (st) printf("#   %s\n", f.err.msg);
    fx_unload(&f);
}

/* ------------------------------------------------------------ Van der Pol */


static const char vdp[] =
    "{\"name\":\"vdp_fcn\",\"parameters\":{\"mu\":1},\"blocks\":["
    "{\"name\":\"x1\",\"type\":\"Integrator\",\"InitialCondition\":2},"
    "{\"name\":\"x2\",\"type\":\"Integrator\",\"InitialCondition\":0},"
    "{\"name\":\"X\",\"type\":\"Mux\",\"Inputs\":2},"
    "{\"name\":\"F\",\"type\":\"Fcn\",\"Expr\":\"mu*(1-u(1)^2)*u(2)-u(1)\"}],"
    "\"lines\":[{\"src\":\"x1:1\",\"dst\":\"X:1\"},{\"src\":\"x2:1\",\"dst\":[\"X:2\",\"x1:1\"]},"
    "{\"src\":\"X:1\",\"dst\":\"F:1\"},{\"src\":\"F:1\",\"dst\":\"x2:1\"}]}";

static void check_vdp(jg_lin_t *l, jg_error_t *err, const char *what, double a10, double a11)
{
    for (int k = 0; k < NPATHS; k++) {
        jg_lin_sys_t *s = NULL;
        jg_status_t st = jg_lin_run(l, paths[k].m, paths[k].r, &s, NULL, err);
        double tol = paths[k].m == JG_LIN_PERTURB ? 1e-7 : 1e-14;
        tap_ok(!st && s && s->nx == 2 && fabs(fx_entry(s->A, 0, 0)) <= tol &&
                   fabs(fx_entry(s->A, 0, 1) - 1) <= tol && fabs(fx_entry(s->A, 1, 0) - a10) <= tol &&
                   fabs(fx_entry(s->A, 1, 1) - a11) <= tol,
               "%s, %s: A = [0 1; %g %g]", what, paths[k].name, a10, a11);
        if (st) printf("#   %s\n", err->msg);
        jg_lin_sys_free(s);
    }
}

static void test_vdp(void)
{
    fx_t f;
    jg_status_t st = fx_load(&f, vdp, NULL);
    tap_ok(!st, "Van der Pol with one Fcn compiles");
    if (st) {
        printf("#   %s\n", f.err.msg);
        return;
    }
    tap_ok(jg_program_port_width(f.p, jg_program_find_block(f.p, "F"), 0, 0) == 2 &&
               jg_program_nwarnings(f.p) == 0,
           "Fcn input width 2 inherited from the Mux, no warnings");
    check_vdp(f.l, &f.err, "vdp Fcn at (2,0), mu=1", -1, -3);
    double *x = jg_lin_states(f.l);
    x[0] = 1;
    x[1] = 1;
    check_vdp(f.l, &f.err, "vdp Fcn replayed at (1,1)", -3, 0);
    fx_unload(&f);

    /* the shipped model file: two Fcn blocks, mu from the workspace */
    memset(&f, 0, sizeof f);
    st = jg_model_read("tests/data/fcn_vdp.json", &f.m, &f.err);
    if (!st) st = jg_program_compile(f.m, &f.p, &f.err);
    if (!st) st = jg_lin_create(f.p, NULL, &f.l, &f.err);
    tap_ok(!st, "tests/data/fcn_vdp.json compiles (run from the source root)");
    if (!st) check_vdp(f.l, &f.err, "fcn_vdp.json at (2,0), mu=1", -1, -3);
    else printf("#   %s\n", f.err.msg);
    jg_lin_free(f.l);
    jg_program_free(f.p);
    jg_model_free(f.m);
}

/* ----------------------------------------------------------- workspaces */

static void test_scope(void)
{
    /* mu = 1 in the model, 3 in SubSystem S: "mu*u" inside S uses 3 */
    static const char json[] =
        "{\"parameters\":{\"mu\":1,\"g\":\"mu\"},\"blocks\":["
        "{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1},"
        "{\"name\":\"S\",\"type\":\"SubSystem\",\"parameters\":{\"mu\":3},\"blocks\":["
        "  {\"name\":\"i\",\"type\":\"Inport\",\"Port\":1},"
        "  {\"name\":\"F\",\"type\":\"Fcn\",\"Expr\":\"mu*u + 0*g\"},"
        "  {\"name\":\"o\",\"type\":\"Outport\",\"Port\":1}],"
        " \"lines\":[{\"src\":\"i:1\",\"dst\":\"F:1\"},{\"src\":\"F:1\",\"dst\":\"o:1\"}]},"
        "{\"name\":\"F\",\"type\":\"Fcn\",\"Expr\":\"mu*u\"},"
        "{\"name\":\"G\",\"type\":\"Fcn\",\"Expr\":\"g*u\"},"
        "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1},"
        "{\"name\":\"Out2\",\"type\":\"Outport\",\"Port\":2},"
        "{\"name\":\"Out3\",\"type\":\"Outport\",\"Port\":3}],"
        "\"lines\":[{\"src\":\"In1:1\",\"dst\":[\"S:1\",\"F:1\",\"G:1\"]},"
        "{\"src\":\"S:1\",\"dst\":\"Out1:1\"},{\"src\":\"F:1\",\"dst\":\"Out2:1\"},"
        "{\"src\":\"G:1\",\"dst\":\"Out3:1\"}]}";
    fx_t f;
    jg_status_t st = fx_load(&f, json, NULL);
    jg_lin_sys_t *s = NULL;
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_FULL, &s, NULL, &f.err);
    tap_ok(!st && fx_entry(s->D, 0, 0) == 3 && fx_entry(s->D, 1, 0) == 1 && fx_entry(s->D, 2, 0) == 1,
           "SubSystem parameter mu = 3 shadows the model's mu = 1; alias g -> mu");
    if (st) printf("#   %s\n", f.err.msg);
    jg_lin_sys_free(s);
    fx_unload(&f);
}

/* ---------------------------------------------------------------- widths */

static void test_widths(void)
{
    /* unconnected input: the width comes from the largest u(k) */
    static const char json[] =
        "{\"blocks\":[{\"name\":\"F\",\"type\":\"Fcn\",\"Expr\":\"1 + u(1)*u(3)\"},"
        "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],"
        "\"lines\":[{\"src\":\"F:1\",\"dst\":\"Out1:1\"}]}";
    fx_t f;
    jg_status_t st = fx_load(&f, json, NULL);
    int32_t F = st ? -1 : jg_program_find_block(f.p, "F");
    tap_ok(!st && jg_program_port_width(f.p, F, 0, 0) == 3 &&
               jg_program_port_width(f.p, F, 1, 0) == 1,
           "unknown input width: the largest u(k) (3), output 1");
    fx_unload(&f);
}

/* ---------------------------------------------------------------- errors */

/* Compile a one-Fcn model with input width n and expect status and message. */
static void expect_err(const char *expr, int n, const char *ws, jg_status_t want,
                       const char *msg)
{
    fx_t f;
    jg_status_t st = fx_load(&f, fcn_model(expr, n, ws), NULL);
    char name[200];
    snprintf(name, sizeof name, "error for \"%s\" (status %s)", expr, jg_status_name(want));
    if (st != want) printf("#   status %s\n", jg_status_name(st));
    tap_streq(st == want ? f.err.msg : "", msg, name);
    fx_unload(&f);
}

/* Compile, then evaluate at u: expect a run-time error from outputs (jac = 0)
 * or from the Jacobian (jac = 1). */
static void expect_eval_err(const char *expr, int n, const double *u, int jac, const char *msg)
{
    fx_t f;
    jg_status_t st = fx_load(&f, fcn_model(expr, n, params), NULL);
    double y, g[4];
    if (!st) st = jac ? grad_at(&f, u, n, JG_LIN_GRAPH, g) : value_at(&f, u, n, &y);
    char name[200];
    snprintf(name, sizeof name, "%s error for \"%s\" (NUMERIC)", jac ? "Jacobian" : "value", expr);
    if (st != JG_NUMERIC) printf("#   status %s\n", jg_status_name(st));
    tap_streq(st == JG_NUMERIC ? f.err.msg : "", msg, name);
    fx_unload(&f);
}

static void test_errors(void)
{
    const char *pre = "block 'F' (Fcn), parameter 'Expr': ";
    struct {
        const char *expr;
        int n;
        jg_status_t st;
        const char *msg;
    } t[] = {
        {"sin(u(1)", 1, JG_PARAM,
         "column 9: expected ')' to close the '(' at column 4, found the end of the expression "
         "in \"sin(u(1)\""},
        {"1 +", 1, JG_PARAM,
         "column 4: expected a number, u, u(k), a name, a function call or '(', found the end "
         "of the expression in \"1 +\""},
        {"", 1, JG_PARAM,
         "column 1: expected a number, u, u(k), a name, a function call or '(', found the end "
         "of the expression in \"\""},
        {"2 * * u", 1, JG_PARAM,
         "column 5: expected a number, u, u(k), a name, a function call or '(', found '*' in "
         "\"2 * * u\""},
        {"2 3", 1, JG_PARAM,
         "column 3: expected an operator or the end of the expression, found '3' in \"2 3\""},
        {"u(1))", 1, JG_PARAM,
         "column 5: expected an operator or the end of the expression, found ')' in \"u(1))\""},
        {"3 # u", 1, JG_PARAM,
         "column 3: expected an operator or the end of the expression, found '#' in \"3 # u\""},
        {"2u", 1, JG_PARAM,
         "column 2: expected an operator or the end of the expression, found 'u' in \"2u\""},
        {"1e+ * u", 1, JG_PARAM,
         "column 1: malformed number '1e+': expected digits in the exponent in \"1e+ * u\""},
        {"1e999*u", 1, JG_PARAM, "column 1: the number '1e999' is out of range in \"1e999*u\""},
        {"1 + kp*u", 1, JG_PARAM,
         "column 5: unknown name 'kp' (not u, pi, a function, or a parameter in \"parameters\" "
         "of the model or of an enclosing SubSystem) in \"1 + kp*u\""},
        {"foo(u)", 1, JG_PARAM,
         "column 1: unknown function 'foo' (known functions: sin, cos, tan, asin, acos, atan, "
         "atan2, sinh, cosh, tanh, exp, log, log10, sqrt, abs, pow, hypot, min, max, sign) in "
         "\"foo(u)\""},
        {"2*sin", 1, JG_PARAM,
         "column 3: the function 'sin' needs its arguments in parentheses in \"2*sin\""},
        {"atan2(u)", 1, JG_PARAM, "column 1: atan2 takes 2 arguments, found 1 in \"atan2(u)\""},
        {"1 + sin(u, 2)", 1, JG_PARAM,
         "column 5: sin takes 1 argument, found 2 in \"1 + sin(u, 2)\""},
        {"atan2(u(1) u(2))", 2, JG_PARAM,
         "column 12: expected ',' and argument 2 of atan2, found 'u' in \"atan2(u(1) u(2))\""},
        {"sin()", 1, JG_PARAM,
         "column 5: expected a number, u, u(k), a name, a function call or '(', found ')' in "
         "\"sin()\""},
        {"u(0)", 1, JG_PARAM,
         "column 3: expected a positive integer index in u(k), found '0' in \"u(0)\""},
        {"u(1.5)", 2, JG_PARAM,
         "column 3: expected a positive integer index in u(k), found '1.5' in \"u(1.5)\""},
        {"u(k)", 2, JG_PARAM,
         "column 3: expected a positive integer index in u(k), found 'k' in \"u(k)\""},
        {"u(-1)", 2, JG_PARAM,
         "column 3: expected a positive integer index in u(k), found '-' in \"u(-1)\""},
        {"u(99999999999)", 2, JG_PARAM,
         "column 3: the index '99999999999' in u(k) is too large (at most 2147483647) in "
         "\"u(99999999999)\""},
        {"u(1+1)", 2, JG_PARAM,
         "column 4: expected ')' to close the '(' at column 2 after the index of u(k), found "
         "'+' in \"u(1+1)\""},
        {"K*u", 1, JG_PARAM,
         "column 1: the parameter 'K' is 1x2, but an expression takes scalar parameters only "
         "in \"K*u\""},
        {"u(1) + u(3)", 2, JG_WIDTH,
         "u(3) at column 8 of \"u(1) + u(3)\" needs an input of width 3 or more, but the input "
         "has width 2"},
        {"2*u", 3, JG_WIDTH,
         "u at column 3 of \"2*u\" needs a scalar input, but the input has width 3 (write u(1) "
         ".. u(3))"},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s%s", pre, t[i].msg);
        expect_err(t[i].expr, t[i].n, "\"K\":[1,2],\"k\":1", t[i].st, msg);
    }
    /* nesting deeper than the parser allows */
    char deep[1024];
    memset(deep, '(', 300);
    deep[300] = 'u';
    memset(deep + 301, ')', 300);
    deep[601] = 0;
    fx_t f;
    jg_status_t st = fx_load(&f, fcn_model(deep, 1, NULL), NULL);
    char want[1024], piece[121];
    memset(piece, '(', 120);
    piece[120] = 0;
    snprintf(want, sizeof want,
             "block 'F' (Fcn), parameter 'Expr': column 201: the expression nests deeper than "
             "200 levels in \"%s\" (characters 141-260 of 601)",
             piece);
    tap_streq(st == JG_PARAM ? f.err.msg : "", want,
              "300 nested parentheses: nesting error, long expression quoted around the column");
    fx_unload(&f);
    /* a long expression in a run-time message: the piece around the column */
    char longx[400] = "log(u";
    for (int k = 0; k < 50; k++) strcat(longx, " + 0*u");
    strcat(longx, ")");   /* 307 characters; log at column 1 */
    double zero = 0;
    char wantrt[1024];
    snprintf(wantrt, sizeof wantrt,
             "block 'F' (Fcn) at t = 0: log(0): the argument must be positive (column 1 of "
             "\"%.120s\" (characters 1-120 of %zu))",
             longx, strlen(longx));
    expect_eval_err(longx, 1, &zero, 0, wantrt);

    /* missing and non-string Expr */
    static const char missing[] = "{\"blocks\":[{\"name\":\"F\",\"type\":\"Fcn\"}]}";
    st = fx_load(&f, missing, NULL);
    tap_streq(st == JG_PARAM ? f.err.msg : "",
              "block 'F' (Fcn), parameter 'Expr': missing: expected an expression of u, e.g. "
              "\"sin(u(1))*u(2)\"",
              "missing Expr");
    fx_unload(&f);
    static const char number[] = "{\"blocks\":[{\"name\":\"F\",\"type\":\"Fcn\",\"Expr\":2}]}";
    st = fx_load(&f, number, NULL);
    tap_streq(st == JG_PARAM ? f.err.msg : "",
              "block 'F' (Fcn), parameter 'Expr': expected a string", "Expr not a string");
    fx_unload(&f);

    /* the width is too small where a scalar root Inport drives it */
    static const char narrow[] =
        "{\"blocks\":[{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1},"
        "{\"name\":\"F\",\"type\":\"Fcn\",\"Expr\":\"u(1)+u(2)\"}],"
        "\"lines\":[{\"src\":\"In1:1\",\"dst\":\"F:1\"}]}";
    st = fx_load(&f, narrow, NULL);
    tap_streq(st == JG_WIDTH ? f.err.msg : "",
              "block 'F' (Fcn), parameter 'Expr': u(2) at column 6 of \"u(1)+u(2)\" needs an "
              "input of width 2 or more, but the input has width 1",
              "scalar root Inport into u(2): width error");
    fx_unload(&f);

    /* run-time domain errors: status JG_NUMERIC, the function and its argument */
    const char *rt = "block 'F' (Fcn) at t = 0: ";
    struct {
        const char *expr;
        double u;
        int jac;
        const char *msg;
    } r[] = {
        {"log(u)", 0, 0, "log(0): the argument must be positive (column 1 of \"log(u)\")"},
        {"1 + log10(u)", -2, 0,
         "log10(-2): the argument must be positive (column 5 of \"1 + log10(u)\")"},
        {"sqrt(u - 1)", 0.5, 0,
         "sqrt(-0.5): the argument must not be negative (column 1 of \"sqrt(u - 1)\")"},
        {"2/u", 0, 0, "2 / 0: division by zero (column 2 of \"2/u\")"},
        {"asin(2*u)", 0.75, 0,
         "asin(1.5): the argument must lie in [-1, 1] (column 1 of \"asin(2*u)\")"},
        {"acos(u)", -1.5, 0,
         "acos(-1.5): the argument must lie in [-1, 1] (column 1 of \"acos(u)\")"},
        {"u^0.5", -4, 0,
         "(-4) ^ 0.5: a negative base needs an integer exponent (column 2 of \"u^0.5\")"},
        {"pow(u, -1)", 0, 0,
         "pow(0, -1): division by zero: zero base with a negative exponent (column 1 of "
         "\"pow(u, -1)\")"},
        {"exp(u)", 1000, 0, "exp(1000): the result overflows (column 1 of \"exp(u)\")"},
        {"u*u", 1e200, 0, "1e+200 * 1e+200: the result overflows (column 2 of \"u*u\")"},
        {"sqrt(u)", 0, 1,
         "Jacobian of sqrt(0): the derivative is infinite at 0 (column 1 of \"sqrt(u)\")"},
        {"asin(u)", 1, 1,
         "Jacobian of asin(1): the derivative is infinite at -1 and 1 (column 1 of "
         "\"asin(u)\")"},
        {"u^0.5", 0, 1,
         "Jacobian of 0 ^ 0.5: the derivative is infinite at a zero base (column 2 of "
         "\"u^0.5\")"},
        {"(-2)^u", 1, 1,
         "Jacobian of (-2) ^ 1: the derivative with respect to the exponent does not exist for "
         "a negative base (column 5 of \"(-2)^u\")"},
        {"atan2(u, 0)", 0, 1,
         "Jacobian of atan2(0, 0): not differentiable at the origin (column 1 of \"atan2(u, "
         "0)\")"},
        {"hypot(u, u)", 0, 1,
         "Jacobian of hypot(0, 0): not differentiable at the origin (column 1 of \"hypot(u, "
         "u)\")"},
    };
    for (size_t i = 0; i < sizeof r / sizeof *r; i++) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s%s", rt, r[i].msg);
        expect_eval_err(r[i].expr, 1, &r[i].u, r[i].jac, msg);
    }
    /* and linearization reports the same status at a bad operating point */
    st = fx_load(&f, fcn_model("log(u)", 1, NULL), NULL);
    jg_lin_sys_t *s = NULL;
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f.err);
    tap_ok(st == JG_NUMERIC && strstr(f.err.msg, "log(0): the argument must be positive"),
           "jg_lin_run at log(0): JG_NUMERIC");
    jg_lin_sys_free(s);
    fx_unload(&f);
}

int main(void)
{
    test_values();
    test_precedence();
    test_jacobian();
    test_pattern();
    test_vdp();
    test_scope();
    test_widths();
    test_errors();
    return tap_done();
}
