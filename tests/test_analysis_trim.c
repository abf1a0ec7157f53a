/* test_analysis_trim.c -- trim (lib/analysis, jacgraph/analysis.h) against
 * hand results: the water tank's level and pump voltage, Van der Pol's
 * equilibrium, the pendulum's two equilibria (the one nearest the guess), an
 * input that holds an output at a value, discrete fixed points, element
 * names, output bounds, an infeasible specification (the best point and the
 * violated specifications), bad specifications, and the operating-point
 * file read back by the linearizer. */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
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
    tap_ok(in.fd_columns > 0, "dfixed: discrete columns by differences (%lld)", (long long)in.fd_columns);
    unload(&f);
    /* a known discrete state and a free input: y = 2 u with y = 5 */
    tap_ok(!load(&f, "tests/data/trim/dfixed.json", NULL, "{'states': {'y': {'value': 5, 'known': true}}}"),
           "dfixed: y known");
    if (solved(&f, "dfixed, y known"))
        tap_near(value(&f, JG_ANALYSIS_TRIM_INPUT, "In1"), 2.5, 1e-12, "dfixed: In1 = y / 2");
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
