/* User-defined block types (jacgraph/plugin.h) and invariant projection
 * (Simulink, "mdlProjection"; lib/sim/project.c):
 *   - the loader's errors, exact, and that a refused plugin leaves nothing
 *     registered; a model's "plugins" list and JACGRAPH_PLUGIN_PATH;
 *   - setup errors of plugin blocks, workspace parameters, width checks;
 *   - block Jacobians: the predator-prey block's analytic one against the
 *     closed form on every linearization path, the host's perturbation
 *     fallback (PredPreyFD, PTCube with an input and feedthrough);
 *   - zero crossings and state resets of a plugin block (PTSaw);
 *   - projection on the predator-prey model of mdlProjection's examples
 *     (a = 1, c = 2, d = 121.85, docs/references.md): without it the
 *     invariant residual drifts, with it it stays at round-off; the
 *     tolerance rule; CHOLMOD against the dense path on many invariants.
 * The plugins' paths come from tests/meson.build (PREDPREY_SO, PT_SO_*). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/solverjac.h"
#include "jacgraph/plugin.h"
#include "compile/block_impl.h"   /* private: the registry, jg__block_type_find, jg__block_type_names */
#include "model/model_internal.h" /* private: a model's plugin set */
#include "sim/project.h"    /* private: the projector's statistics and paths */
#include "compile/program_impl.h"   /* private: a program's projection limit (proj_dense_max) */
#include "tap.h"
#include "testlib.h"

/* Model `json` with both test plugins loaded into it (the example and
 * pt_plugins' good one): plugin types exist only in the model they were
 * loaded into. */
static jg_status_t parse_pl(const char *json, jg_model_t **m, jg_error_t *err)
{
    jg_status_t st = jg_model_parse(json, "<test>", m, err);
    if (!st) st = jg_plugin_load(*m, PREDPREY_SO, err);
    if (!st) st = jg_plugin_load(*m, PT_SO_GOOD, err);
    return st;
}

/* fx_load (testlib.h) on a model with the test plugins. */
static jg_status_t pl_load(fx_t *f, const char *json)
{
    memset(f, 0, sizeof *f);
    jg_status_t st = parse_pl(json, &f->m, &f->err);
    if (!st) st = jg_program_compile(f->m, &f->p, &f->err);
    if (!st) st = jg_eval_create(f->p, &f->w, &f->err);
    if (!st) st = jg_lin_create(f->p, NULL, &f->l, &f->err);
    return st;
}

/* The plugin types model m knows (its set, private). */
static const jg__plset_t *set(const jg_model_t *m) { return jg__model_plugins(m); }

/* Load `file` into a new empty model: the exact error, and nothing of the
 * plugin left in the model (type `gone`, when given, unknown there). */
static void expect_load_error(const char *what, const char *file, jg_status_t want, const char *msg,
                              const char *gone)
{
    jg_error_t err;
    jg_model_t *m = NULL;
    jg_error_clear(&err);
    jg_status_t st = jg_model_parse("{\"blocks\":[]}", "<test>", &m, &err);
    if (!st) st = jg_plugin_load(m, file, &err);
    int ok = st == want && !strcmp(err.msg, msg);
    tap_ok(ok, "%s", what);
    if (!ok) printf("#   status %d (want %d)\n#   got      '%s'\n#   expected '%s'\n", st, want, err.msg, msg);
    if (gone)
        tap_ok(m && !jg__block_type_find(set(m), gone) && jg_plugin_count(m) == 0,
               "... and nothing of it stays registered (%s unknown, no file)", gone);
    jg_model_free(m);
}

static void expect_compile_error(const char *what, const char *json, jg_status_t want, const char *msg)
{
    fx_t f;
    jg_status_t st = pl_load(&f, q(json));
    int ok = st == want && !strncmp(f.err.msg, msg, strlen(msg));
    tap_ok(ok, "%s", what);
    if (!ok) printf("#   status %d (want %d)\n#   got      '%s'\n#   expected '%s...'\n", st, want, f.err.msg, msg);
    fx_unload(&f);
}

/* ------------------------------------------------------------- loading */

static void test_loading(void)
{
    char msg[2048];
    jg_error_t err;
    jg_status_t st;

    expect_load_error("a missing file: JG_IO, the file and dlerror's reason", "/nonexistent/none.so", JG_IO,
                      "plugin '/nonexistent/none.so': cannot load: /nonexistent/none.so: cannot open shared "
                      "object file: No such file or directory",
                      NULL);
    jg_error_clear(&err);
    tap_ok(jg_plugin_load(NULL, PREDPREY_SO, &err) == JG_ARG && !strcmp(err.msg, "plugin: no model to load into"),
           "no model: JG_ARG");
    tap_ok(jg_plugin_count(NULL) == 0 && !jg_plugin_file(NULL, 0), "no model: no plugin files");

    snprintf(msg, sizeof msg,
             "plugin '%s': missing symbol 'jacgraph_plugin_abi_version' (define it with JG_PLUGIN_ABI "
             "from jacgraph/plugin.h)",
             PT_SO_NOVERSION);
    expect_load_error("no version symbol: exact message", PT_SO_NOVERSION, JG_MODEL, msg, NULL);
    snprintf(msg, sizeof msg,
             "plugin '%s': missing symbol 'jacgraph_plugin_init' (export int "
             "jacgraph_plugin_init(jg_plugin_registry_t *) with JG_PLUGIN_EXPORT)",
             PT_SO_NOINIT);
    expect_load_error("no init symbol: exact message", PT_SO_NOINIT, JG_MODEL, msg, NULL);
    snprintf(msg, sizeof msg,
             "plugin '%s': ABI version 99, this jacgraph supports version 1 (rebuild the plugin "
             "against this jacgraph/plugin.h)",
             PT_SO_VERSION);
    expect_load_error("version mismatch: exact message", PT_SO_VERSION, JG_MODEL, msg, NULL);
    snprintf(msg, sizeof msg, "plugin '%s': block type 'Gain' is already registered (built in)", PT_SO_BUILTIN);
    expect_load_error("a built-in type's name: exact message", PT_SO_BUILTIN, JG_MODEL, msg, NULL);
    snprintf(msg, sizeof msg, "plugin '%s': block type 'PTTwice' is already registered (by plugin '%s')",
             PT_SO_DUPSELF, PT_SO_DUPSELF);
    expect_load_error("a name registered twice by one plugin (its init ignoring the failure)", PT_SO_DUPSELF,
                      JG_MODEL, msg, "PTTwice");
    snprintf(msg, sizeof msg, "plugin '%s': jacgraph_plugin_init failed (returned 3)", PT_SO_INITFAIL);
    expect_load_error("init returning nonzero: exact message", PT_SO_INITFAIL, JG_MODEL, msg, "PTNever");

    const char *model = "{'name':'pp','plugins':['predprey'],'blocks':[{'name':'PP','type':'PredPrey'}]}";
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_error_clear(&err);
    if (jg_model_parse(q(model), "<test>", &m, &err)) printf("#   %s\n", err.msg);
    st = jg_program_compile(m, &p, &err);
    tap_ok(st == JG_MODEL && !strncmp(err.msg, "block 'PP': unknown block type 'PredPrey'; known types: Abs, ",
                                      strlen("block 'PP': unknown block type 'PredPrey'; known types: Abs, ")),
           "a plugin type before its plugin is loaded is an unknown type");
    jg_program_free(p);

    /* the model's "plugins" list */
    unsetenv("JACGRAPH_PLUGIN_PATH");
    st = jg_plugin_load_model(m, &err);
    tap_ok(st == JG_MODEL && !strcmp(err.msg, "model 'pp' needs plugin 'predprey': no predprey.so in "
                                              "JACGRAPH_PLUGIN_PATH (not set); load it with --plugin FILE.so"),
           "\"plugins\" without JACGRAPH_PLUGIN_PATH: exact message");
    if (st != JG_MODEL) printf("#   %s\n", err.msg);
    setenv("JACGRAPH_PLUGIN_PATH", "/nonexistent::" PREDPREY_DIR, 1);
    st = jg_plugin_load_model(m, &err);
    tap_ok(st == JG_OK && jg_plugin_count(m) == 1, "\"plugins\" found in the second directory of the path");
    if (st) printf("#   %s\n", err.msg);
    tap_streq(jg_plugin_file(m, 0), PREDPREY_DIR "/predprey.so", "the loaded file is named as found");
    st = jg_plugin_load_model(m, &err);
    tap_ok(st == JG_OK && jg_plugin_count(m) == 1, "loading the model's list again loads nothing more");
    st = jg_plugin_load(m, PREDPREY_SO, &err);
    tap_ok(st == JG_OK && jg_plugin_count(m) == 1, "loading the same file again is a no-op");
    jg_model_t *bad = NULL;
    if (jg_model_parse(q("{'name':'bad','plugins':'predprey','blocks':[]}"), "<test>", &bad, &err) == JG_OK) {
        st = jg_plugin_load_model(bad, &err);
        tap_ok(st == JG_MODEL && !strcmp(err.msg, "model 'bad': \"plugins\" must be an array of strings"),
               "\"plugins\" not an array: exact message");
        jg_model_free(bad);
    }

    snprintf(msg, sizeof msg, "plugin '%s': block type 'PredPrey' is already registered (by plugin '%s')",
             PT_SO_DUPPLUGIN, jg_plugin_file(m, 0));
    jg_error_clear(&err);
    st = jg_plugin_load(m, PT_SO_DUPPLUGIN, &err);
    tap_ok(st == JG_MODEL && !strcmp(err.msg, msg), "another plugin's type name: exact message naming both files");
    if (st != JG_MODEL) printf("#   %s\n", err.msg);
    jg_error_clear(&err);
    st = jg_plugin_load(m, PT_SO_GOOD, &err);
    tap_ok(st == JG_OK && jg_plugin_count(m) == 2, "the test plugin loads");
    if (st) printf("#   %s\n", err.msg);
    char *names = jg__block_type_names(set(m));
    tap_ok(names && strstr(names, ", PredPrey, PredPreyFD, ") && strstr(names, ", PTCube, PTRigid, PTSaw, "),
           "jg__block_type_names lists the loaded types in order");
    free(names);
    tap_ok(jg__block_type_find(set(m), "Gain") && jg__block_type_find(set(m), "PTRigid"),
           "built-in and loaded types are found");
    tap_ok(jg__block_type_find(NULL, "Gain") && !jg__block_type_find(NULL, "PTRigid"),
           "without a plugin set only the built-in types");
    jg_model_free(m);

    /* the same name in another model is no clash: each model has its own */
    st = jg_model_parse("{\"blocks\":[]}", "<test>", &m, &err);
    if (!st) st = jg_plugin_load(m, PT_SO_DUPPLUGIN, &err);
    tap_ok(st == JG_OK && jg__block_type_find(set(m), "PredPrey"),
           "a plugin registering PredPrey loads into a model without the example plugin");
    jg_model_free(m);
}

/* ---------------------------------------------------------- setup errors */

static void test_setup(void)
{
    expect_compile_error("Projection must be on or off",
                         "{'blocks':[{'name':'PP','type':'PredPrey','Projection':'maybe'}]}", JG_PARAM,
                         "block 'PP' (PredPrey), parameter 'Projection': expected \"on\" or \"off\", got \"maybe\"");
    expect_compile_error("the plugin's own parameter check",
                         "{'blocks':[{'name':'PP','type':'PredPrey','InitialCondition':[1,2,3]}]}", JG_PARAM,
                         "block 'PP' (PredPrey), parameter 'InitialCondition': expected [x0, y0], got 1x3");
    expect_compile_error("a scalar parameter given a vector",
                         "{'blocks':[{'name':'PP','type':'PredPrey','a':[1,2]}]}", JG_PARAM,
                         "block 'PP' (PredPrey), parameter 'a': expected a scalar, got 1x2");
    expect_compile_error("workspace names resolve as for built-in blocks",
                         "{'blocks':[{'name':'PP','type':'PredPrey','a':'nope'}]}", JG_PARAM,
                         "block 'PP' (PredPrey), parameter 'a': unknown workspace name 'nope'");
    expect_compile_error("widths are checked against the declaration",
                         "{'blocks':[{'name':'K','type':'Constant','Value':[1,2]},{'name':'C','type':'PTCube'}],"
                         "'lines':[{'src':'K:1','dst':'C:1'}]}",
                         JG_WIDTH, "block 'C' (PTCube): input 1 has width 2 but the block takes 1");

    fx_t f;
    jg_status_t st = pl_load(&f, q("{'parameters':{'aa':1.5},'blocks':[{'name':'PP','type':'PredPrey',"
                                   "'a':'aa','Foo':1,'Projection':'off'}]}"));
    tap_ok(st == JG_PARAM && strstr(f.err.msg, "block 'PP' (PredPrey): unknown parameter 'Foo'"),
           "an unknown parameter is an error; Projection and the plugin's own are known");
    fx_unload(&f);
    st = pl_load(&f, q("{'parameters':{'aa':1.5},'blocks':[{'name':'PP','type':'PredPrey',"
                       "'a':'aa','Projection':'off'}]}"));
    if (!st) {
        jg_lin_sys_t *ls = NULL;
        st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &ls, NULL, &f.err);
        /* x0 = (3, 1): A = [a(1 - y) -a x; c y -c(1 - x)] = [0 -4.5; 2 4] */
        tap_ok(!st && fabs(fx_entry(ls->A, 0, 1) + 4.5) < 1e-14 && fabs(fx_entry(ls->A, 1, 1) - 4) < 1e-14,
               "a workspace parameter reaches the plugin (a = 1.5: A(1,2) = -4.5)");
        jg_lin_sys_free(ls);
    }
    fx_unload(&f);
}

/* -------------------------------------------------------------- Jacobians */

/* Every linearization path on `json` against A, C given row-major (nx x nx,
 * ny x nx) and, when B/D are given, those too. */
static void check_paths(const char *what, const char *json, int nx, int nu, int ny, const double *A,
                        const double *B, const double *C, const double *D, double tol_graph)
{
    fx_t f;
    jg_status_t st = pl_load(&f, q(json));
    if (!tap_ok(st == JG_OK, "%s: compiles", what)) {
        printf("#   %s\n", f.err.msg);
        fx_unload(&f);
        return;
    }
    for (int k = 0; k < NPATHS; k++) {
        jg_lin_sys_t *ls = NULL;
        st = jg_lin_run(f.l, paths[k].m, paths[k].r, &ls, NULL, &f.err);
        double worst = st ? INFINITY : 0;
        for (int i = 0; !st && i < nx; i++)
            for (int j = 0; j < nx; j++) worst = fmax(worst, fabs(fx_entry(ls->A, i, j) - A[i * nx + j]));
        for (int i = 0; !st && B && i < nx; i++)
            for (int j = 0; j < nu; j++) worst = fmax(worst, fabs(fx_entry(ls->B, i, j) - B[i * nu + j]));
        for (int i = 0; !st && i < ny; i++)
            for (int j = 0; j < nx; j++) worst = fmax(worst, fabs(fx_entry(ls->C, i, j) - C[i * nx + j]));
        for (int i = 0; !st && D && i < ny; i++)
            for (int j = 0; j < nu; j++) worst = fmax(worst, fabs(fx_entry(ls->D, i, j) - D[i * nu + j]));
        double tol = paths[k].m == JG_LIN_PERTURB ? 1e-6 : tol_graph;
        if (!tap_ok(worst <= tol, "%s: %s within %g of the closed form", what, paths[k].name, tol))
            printf("#   worst %g %s\n", worst, st ? f.err.msg : "");
        jg_lin_sys_free(ls);
    }
    fx_unload(&f);
}

#define Y0 "1.0055523378053412"   /* on the level set d = 121.85 with x0 = 3 */

static void test_jacobians(void)
{
    const double x = 3, y = 1.0055523378053412, a = 1, c = 2;
    const double A[] = {a * (1 - y), -a * x, c * y, -c * (1 - x)};
    const double C[] = {1, 0, 0, 1};
    char json[1024];
    snprintf(json, sizeof json,
             "{'blocks':[{'name':'PP','type':'PredPrey','d':121.85,'InitialCondition':[3," Y0 "]},"
             "{'name':'Out1','type':'Outport','Port':1}],'lines':[{'src':'PP:1','dst':'Out1:1'}]}");
    check_paths("PredPrey (analytic)", json, 2, 0, 2, A, NULL, C, NULL, 1e-14);
    snprintf(json, sizeof json,
             "{'blocks':[{'name':'PP','type':'PredPreyFD','d':121.85,'InitialCondition':[3," Y0 "]},"
             "{'name':'Out1','type':'Outport','Port':1}],'lines':[{'src':'PP:1','dst':'Out1:1'}]}");
    check_paths("PredPreyFD (host's central differences, default parts)", json, 2, 0, 2, A, NULL, C, NULL, 1e-8);
    {   /* the solver-Jacobian 'auto' rule sees the perturbation behind PredPreyFD */
        fx_t f;
        jg_solverjac_t *sj = NULL;
        jg_status_t st = pl_load(&f, q(json));
        if (!st) st = jg_solverjac_create(f.p, JG_SOLVERJAC_AUTO, NULL, &sj, &f.err);
        const char *why = sj ? jg_solverjac_reason(sj) : "";
        tap_ok(!st && strstr(why, "block 'PP' (PredPreyFD) has no analytic Jacobian"),
               "auto: a plugin block without a Jacobian is not analytic (%s)", why);
        jg_solverjac_free(sj);
        fx_unload(&f);
    }
    /* PTCube: x' = u - x, y = u^3 + x with u = 2 + w: A = -1, B = 1, C = 1, D = 3 u^2 = 12 */
    const double A1[] = {-1}, B1[] = {1}, C1[] = {1}, D1[] = {12};
    check_paths("PTCube (input, feedthrough, perturbation fallback)",
                "{'blocks':[{'name':'In1','type':'Inport','Port':1},{'name':'Two','type':'Constant','Value':2},"
                "{'name':'S','type':'Sum','Inputs':'++'},{'name':'C','type':'PTCube','X0':0.5},"
                "{'name':'Out1','type':'Outport','Port':1}],"
                "'lines':[{'src':'In1:1','dst':'S:1'},{'src':'Two:1','dst':'S:2'},{'src':'S:1','dst':'C:1'},"
                "{'src':'C:1','dst':'Out1:1'}]}",
                1, 1, 1, A1, B1, C1, D1, 1e-8);
    /* feedthrough is what the D part says: a PTCube in a loop with a gain is an algebraic loop */
    fx_t f;
    jg_status_t st = pl_load(&f, q("{'blocks':[{'name':'C','type':'PTCube'},{'name':'G','type':'Gain','Gain':-0.5}],"
                                   "'lines':[{'src':'C:1','dst':'G:1'},{'src':'G:1','dst':'C:1'}]}"));
    tap_ok(st == JG_OK && jg_program_nloops(f.p) == 1, "a default D part makes the input direct feedthrough (1 loop)");
    if (st) printf("#   %s\n", f.err.msg);
    fx_unload(&f);
}

/* ------------------------------------------------------------- simulation */

typedef struct {
    int ires;              /* logged signal holding R, -1: none */
    double maxr;           /* max |R| after t0 */
    int n;
    double tlast, xmax;    /* PTSaw */
    int drops;             /* PTSaw: state going down (resets) */
    double xprev;
} acc_t;

static int acc_log(double t, const double *x, const double *sig, void *user)
{
    acc_t *a = user;
    if (a->ires >= 0 && t > 0) a->maxr = fmax(a->maxr, fabs(sig[a->ires]));
    if (a->n && x[0] < a->xprev) a->drops++;
    a->xprev = x[0];
    a->xmax = fmax(a->xmax, x[0]);
    a->tlast = t;
    a->n++;
    return 0;
}

static const char pp_model[] =
    "{'name':'pp','parameters':{'a':1,'c':2,'d':121.85},'blocks':["
    "{'name':'PP','type':'%s','a':'a','c':'c','d':'d','InitialCondition':[3," Y0 "],'Projection':'%s'},"
    "{'name':'Res','type':'Fcn','Expr':'d - u(1)^(-c)*exp(c*u(1))*u(2)^(-a)*exp(a*u(2))'},"
    "{'name':'Out1','type':'Outport','Port':1}],"
    "'lines':[{'src':'PP:1','dst':'Res:1'},{'src':'Res:1','dst':'Out1:1'}]}";

typedef struct {
    jg_model_t *m;
    jg_program_t *p;
    jg_sim_t *s;
    jg_error_t err;
} run_t;

/* The projection's dense limit run() gives its programs (0: the default). */
static int64_t run_dense_max;

static jg_status_t run(run_t *r, const char *json, const char *solver, double step, double tstop,
                       acc_t *acc)
{
    memset(r, 0, sizeof *r);
    jg_status_t st = parse_pl(q(json), &r->m, &r->err);
    if (!st) st = jg_program_compile(r->m, &r->p, &r->err);
    if (!st) r->p->proj_dense_max = run_dense_max;
    jg_sim_opts_t o = {.solver = (jg_solver_method_t)jg_solver_method_parse(solver), .tstop = tstop, .so = {.fixed_step = step}};
    if (!st) st = jg_sim_create(r->p, &o, &r->s, &r->err);
    if (!st) st = jg_sim_run(r->s, tstop, acc_log, acc, &r->err);
    if (st) printf("#   %s\n", r->err.msg);
    return st;
}

static void run_free(run_t *r)
{
    jg_sim_free(r->s);
    jg_program_free(r->p);
    jg_model_free(r->m);
}

static jg__proj_stats_t proj_stats(const run_t *r)
{
    jg__proj_stats_t st;
    memset(&st, 0, sizeof st);
    if (r->s && jg__sim_projector(r->s)) jg__proj_get_stats(jg__sim_projector(r->s), &st);
    return st;
}

static void test_projection(void)
{
    char json[4096];
    run_t r;
    jg_status_t st;

    /* without projection the residual drifts ... */
    acc_t a0 = {.ires = 0};
    snprintf(json, sizeof json, pp_model, "PredPrey", "off");
    st = run(&r, json, "ode45", 0, 100, &a0);
    tap_ok(!st && !jg__sim_projector(r.s), "Projection off: no projector");
    tap_ok(!st && a0.maxr > 1e-4, "without projection |R| drifts beyond 1e-4 (ode45, default tolerances, t <= 100)");
    printf("#   without projection: max |R| = %.3g over %d points\n", a0.maxr, a0.n);
    run_free(&r);

    /* ... with it, it stays at round-off at every major step */
    acc_t a1 = {.ires = 0};
    snprintf(json, sizeof json, pp_model, "PredPrey", "on");
    st = run(&r, json, "ode45", 0, 100, &a1);
    jg__proj_stats_t ps = proj_stats(&r);
    tap_ok(!st && a1.maxr < 1e-10, "with projection |R| < 1e-10 at every major step (t <= 100)");
    printf("#   with projection: max |R| = %.3g over %d points; %ld steps, %ld applied, %ld iterations, "
           "%ld corrections beyond the tolerance (%ld steps redone), log-form |g| %.2g -> %.2g\n",
           a1.maxr, a1.n, ps.steps, ps.applied, ps.iterations, ps.rejected, ps.retried, ps.max_before,
           ps.max_after);
    tap_ok(!st && ps.ninv == 1 && !ps.sparse && ps.applied > 0 && ps.not_applied == 0 && ps.failed == 0,
           "one invariant, dense path, corrections applied, none left undone");
    tap_ok(!st && ps.max_after < 1e-13 && ps.max_norm <= 1, "log-form residual after projection < 1e-13, "
                                                             "every applied correction within the tolerance");
    run_free(&r);

    /* the host's central-difference invariant Jacobian works as well */
    acc_t a2 = {.ires = 0};
    snprintf(json, sizeof json, pp_model, "PredPreyFD", "on");
    st = run(&r, json, "ode45", 0, 30, &a2);
    tap_ok(!st && a2.maxr < 1e-10, "PredPreyFD (perturbation Jacobians): |R| < 1e-10");
    run_free(&r);

    /* ode15s projects inside CVODE's step (CVodeSetProjFn), keeping its BDF
     * history: no restart per projection (which ran it at order 1, ~36,000
     * steps to t = 30); a correction beyond the tolerance fails the step */
    acc_t a15 = {.ires = 0};
    snprintf(json, sizeof json, pp_model, "PredPrey", "on");
    st = run(&r, json, "ode15s", 0, 30, &a15);
    jg_sim_stats_t ss;
    memset(&ss, 0, sizeof ss);
    if (!st) jg_sim_stats(r.s, &ss);
    tap_ok(!st && a15.maxr < 1e-10 && ss.solver.steps < 2000,
           "ode15s with projection inside CVODE: |R| %.2g < 1e-10 in %ld steps (< 2000)", a15.maxr,
           ss.solver.steps);
    run_free(&r);

    /* a fixed step the corrections fit in */
    acc_t a3 = {.ires = 0};
    snprintf(json, sizeof json, pp_model, "PredPrey", "on");
    st = run(&r, json, "ode4", 0.01, 30, &a3);
    ps = proj_stats(&r);
    tap_ok(!st && a3.maxr < 1e-10 && ps.not_applied == 0, "ode4, step 0.01: |R| < 1e-10");
    run_free(&r);

    /* the tolerance rule: Euler's corrections exceed the tolerance, a fixed
     * step cannot be redone, so they are left undone and reported */
    acc_t a4 = {.ires = 0};
    st = run(&r, json, "ode1", 0.05, 2, &a4);
    ps = proj_stats(&r);
    tap_ok(!st && ps.not_applied > 0 && ps.retried == 0 && !strncmp(ps.first_rejected, "block 'PP': correction norm ", 28),
           "ode1, step 0.05: corrections beyond the tolerance are not applied, and reported");
    printf("#   ode1: %ld of %ld corrections not applied; first: %s\n", ps.not_applied, ps.steps, ps.first_rejected);
    run_free(&r);
}

static void test_zero_crossings(void)
{
    run_t r;
    acc_t a = {.ires = -1};
    jg_status_t st = run(&r, "{'blocks':[{'name':'S','type':'PTSaw','Level':0.5}]}", "ode45", 0, 1.75, &a);
    jg_sim_stats_t ss;
    if (!st) jg_sim_stats(r.s, &ss);
    tap_ok(!st && ss.events == 3 && a.drops == 3, "PTSaw: 3 located crossings, 3 resets by update() in [0, 1.75]");
    tap_ok(!st && fabs(jg_sim_states(r.s)[0] - 0.25) < 1e-9 && a.xmax < 0.5 + 1e-9,
           "PTSaw: x(1.75) = 0.25, never above the level");
    run_free(&r);
}

/* Many invariants: CHOLMOD (more than 20 in all) against the dense path. */
static void test_cholmod(void)
{
    enum { NR = 15, NP = 30 };
    static char json[65536];
    size_t used = 0;
    used += (size_t)snprintf(json + used, sizeof json - used, "{'name':'rigid','blocks':[");
    for (int k = 0; k < NR; k++)
        used += (size_t)snprintf(json + used, sizeof json - used,
                                 "%s{'name':'R%d','type':'PTRigid','InitialCondition':[%g,%g,%g]}", k ? "," : "",
                                 k, 0.8 + 0.01 * k, 0.6 - 0.02 * k, 0.1 + 0.005 * k);
    snprintf(json + used, sizeof json - used, "]}");

    /* one projection of the same perturbed state, both ways */
    run_t r[2];
    double *xs[2] = {NULL, NULL};
    int64_t nx = 0;
    for (int way = 0; way < 2; way++) {
        memset(&r[way], 0, sizeof r[way]);
        jg_status_t st = parse_pl(q(json), &r[way].m, &r[way].err);
        if (!st) st = jg_program_compile(r[way].m, &r[way].p, &r[way].err);
        if (st) {
            printf("#   %s\n", r[way].err.msg);
            continue;
        }
        r[way].p->proj_dense_max = way ? 1000 : 0;   /* dense, or the default: CHOLMOD */
        jg__proj_t *P = NULL;
        jg_eval_work_t *w = NULL;
        st = jg__proj_create(r[way].p, &P, &r[way].err);
        if (!st) st = jg_eval_create(r[way].p, &w, &r[way].err);
        nx = jg_program_nstates(r[way].p);
        xs[way] = malloc(sizeof(double) * (size_t)nx);
        if (!st) {
            memcpy(xs[way], jg_eval_states(w), sizeof(double) * (size_t)nx);
            for (int64_t i = 0; i < nx; i++) xs[way][i] *= 1 + 1e-5 * sin((double)i);   /* off the invariants */
            int changed = 0;
            st = jg__proj_apply(P, 0, xs[way], NULL, 1e-3, 1e-6, &changed, &r[way].err);
            jg__proj_stats_t ps;
            jg__proj_get_stats(P, &ps);
            tap_ok(!st && changed && ps.ninv == 2 * NR && ps.sparse == !way,
                   "%s path: 30 invariants projected", way ? "dense" : "CHOLMOD");
            double g[2 * NR];
            jg__proj_residual(P, 0, xs[way], g, &r[way].err);
            double gmax = 0;
            for (int i = 0; i < 2 * NR; i++) gmax = fmax(gmax, fabs(g[i]));
            tap_ok(gmax < 1e-14, "%s path: invariants at round-off after one projection (%.2g)",
                   way ? "dense" : "CHOLMOD", gmax);
        }
        jg_eval_free(w);
        jg__proj_free(P);
    }
    double diff = 0;
    for (int64_t i = 0; xs[0] && xs[1] && i < nx; i++) diff = fmax(diff, fabs(xs[0][i] - xs[1][i]));
    tap_ok(xs[0] && xs[1] && diff < 1e-14, "CHOLMOD and dense projections agree (max difference %.2g)", diff);
    for (int way = 0; way < 2; way++) {
        free(xs[way]);
        jg_program_free(r[way].p);
        jg_model_free(r[way].m);
    }

    /* whole runs: 15 rigid bodies (2 coupled invariants each) */
    double *xe[2] = {NULL, NULL};
    for (int way = 0; way < 2; way++) {
        run_dense_max = way ? 1000 : 0;
        acc_t a = {.ires = -1};
        run_t rr;
        jg_status_t st = run(&rr, json, "ode45", 0, 20, &a);
        jg__proj_stats_t ps = proj_stats(&rr);
        double g[2 * NR], gmax = INFINITY;
        if (!st && !jg__proj_residual(jg__sim_projector(rr.s), 20, jg_sim_states(rr.s), g, &rr.err)) {
            gmax = 0;
            for (int i = 0; i < 2 * NR; i++) gmax = fmax(gmax, fabs(g[i]));
        }
        tap_ok(!st && ps.sparse == !way && ps.not_applied == 0 && gmax < 1e-13,
               "rigid bodies, %s: invariants at round-off at t = 20 (%.2g)", way ? "dense" : "CHOLMOD", gmax);
        if (!st) {
            xe[way] = malloc(sizeof(double) * 3 * NR);
            memcpy(xe[way], jg_sim_states(rr.s), sizeof(double) * 3 * NR);
        }
        run_free(&rr);
    }
    diff = 0;
    for (int i = 0; xe[0] && xe[1] && i < 3 * NR; i++) diff = fmax(diff, fabs(xe[0][i] - xe[1][i]));
    tap_ok(xe[0] && xe[1] && diff < 1e-9, "CHOLMOD and dense runs agree at t = 20 (max difference %.2g)", diff);
    free(xe[0]);
    free(xe[1]);

    /* 30 identical predator-prey blocks (CHOLMOD) against one (dense): the
     * error norm of identical copies is the single block's, so the steps and
     * the states are the same */
    used = 0;
    used += (size_t)snprintf(json + used, sizeof json - used, "{'name':'many','blocks':[");
    for (int k = 0; k < NP; k++)
        used += (size_t)snprintf(json + used, sizeof json - used,
                                 "%s{'name':'P%d','type':'PredPrey','d':121.85,'InitialCondition':[3," Y0 "]}",
                                 k ? "," : "", k);
    snprintf(json + used, sizeof json - used, "]}");
    run_dense_max = 0;
    acc_t a = {.ires = -1};
    run_t many, one;
    jg_status_t st = run(&many, json, "ode45", 0, 30, &a);
    jg__proj_stats_t ps = proj_stats(&many);
    char one_json[512];
    snprintf(one_json, sizeof one_json,
             "{'name':'one','blocks':[{'name':'P','type':'PredPrey','d':121.85,'InitialCondition':[3," Y0 "]}]}");
    acc_t b = {.ires = -1};
    jg_status_t st1 = run(&one, one_json, "ode45", 0, 30, &b);
    jg__proj_stats_t ps1 = proj_stats(&one);
    diff = st || st1 ? INFINITY : 0;
    for (int k = 0; !st && !st1 && k < NP; k++)
        for (int i = 0; i < 2; i++)
            diff = fmax(diff, fabs(jg_sim_states(many.s)[2 * k + i] - jg_sim_states(one.s)[i]));
    tap_ok(!st && !st1 && ps.sparse && !ps1.sparse && ps.steps == ps1.steps && diff < 1e-10,
           "30 predator-prey blocks by CHOLMOD equal one by the dense path (%ld and %ld projections, "
           "max difference %.2g)",
           ps.steps, ps1.steps, diff);
    run_free(&many);
    run_free(&one);
}

/* ------------------------------------------------------------- isolation */

/* Two small models, each needing one plugin: predator-prey (the example) and
 * PTCube (x' = u - x, y = u^3 + x with u = 2, x(0) = 0.5, so x(1) = 2 - 1.5/e). */
#define ISO_PP "{'name':'a','blocks':[{'name':'PP','type':'PredPrey','d':121.85,'InitialCondition':[3," Y0 "]}," \
               "{'name':'Out1','type':'Outport','Port':1}],'lines':[{'src':'PP:1','dst':'Out1:1'}]}"
#define ISO_CUBE "{'name':'b','blocks':[{'name':'K','type':'Constant','Value':2},{'name':'C','type':'PTCube','X0':0.5}," \
                 "{'name':'Out1','type':'Outport','Port':1}],'lines':[{'src':'K:1','dst':'C:1'},{'src':'C:1','dst':'Out1:1'}]}"

/* Parse json (' already turned into ") and load plugin `so` (NULL: none) into it. */
static jg_status_t iso_model(const char *json, const char *so, jg_model_t **m, jg_error_t *err)
{
    jg_status_t st = jg_model_parse(json, "<test>", m, err);
    if (!st && so) st = jg_plugin_load(*m, so, err);
    return st;
}

/* Simulate p from 0 to 1 with tight tolerances; the state vector's first
 * value at t = 1 in *x0 (NAN on failure). */
static jg_status_t iso_run(const jg_program_t *p, double *x0, jg_error_t *err)
{
    jg_sim_t *s = NULL;
    jg_sim_opts_t o = {.tstop = 1, .so = {.rtol = 1e-10, .atol = 1e-12}};
    jg_status_t st = jg_sim_create(p, &o, &s, err);
    if (!st) st = jg_sim_run(s, 1, NULL, NULL, err);
    *x0 = st ? NAN : jg_sim_states(s)[0];
    jg_sim_free(s);
    return st;
}

/* Compiling json with plugin `so` fails on `type` as unknown, and the list of
 * known types names `has` but not `hasnt`. */
static void iso_unknown(const char *what, const char *json, const char *so, const char *type, const char *has,
                        const char *hasnt)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    jg_status_t st = iso_model(json, so, &m, &err);
    if (!st) st = jg_program_compile(m, &p, &err);
    char head[256];
    snprintf(head, sizeof head, "unknown block type '%s'; known types: ", type);
    const char *known = strstr(err.msg, head);
    known = known ? known + strlen(head) : NULL;
    char hasq[64], hasntq[64];
    snprintf(hasq, sizeof hasq, " %s,", has);
    snprintf(hasntq, sizeof hasntq, " %s,", hasnt);
    int ok = st == JG_MODEL && known && (!*has || strstr(known, hasq)) && !strstr(known, hasntq);
    tap_ok(ok, "%s", what);
    if (!ok) printf("#   status %d: %.300s\n", st, err.msg);
    jg_program_free(p);
    jg_model_free(m);
}

typedef struct {
    const char *json, *so, *other;   /* the model, its plugin, the other model's type */
    double want;                     /* x(1) of the first state, NAN: only finite */
    int bad;                         /* rounds that went wrong */
} iso_thread_t;

static void *iso_thread(void *arg)
{
    iso_thread_t *t = arg;
    for (int r = 0; r < 20; r++) {
        jg_model_t *m = NULL;
        jg_program_t *p = NULL;
        jg_error_t err;
        double x = NAN;
        jg_status_t st = iso_model(t->json, t->so, &m, &err);
        if (!st) st = jg_program_compile(m, &p, &err);
        jg_model_free(m);   /* the program keeps the plugin types */
        if (!st) st = iso_run(p, &x, &err);
        if (st || !(isnan(t->want) ? isfinite(x) : fabs(x - t->want) < 1e-8)) t->bad++;
        jg_program_free(p);
        /* the other thread's type is never this model's */
        if (iso_model(t->json, t->so, &m, &err) || jg__block_type_find(set(m), t->other)) t->bad++;
        jg_model_free(m);
    }
    return NULL;
}

/* Plugins belong to a model: two models with different plugins in one
 * process (and in two threads) do not see each other's block types, and a
 * program keeps running on its model's plugin types after the model is freed
 * -- the file is closed only with the last program. */
static void test_isolation(void)
{
    char pp[2048], cube[2048];
    snprintf(pp, sizeof pp, "%s", q(ISO_PP));
    snprintf(cube, sizeof cube, "%s", q(ISO_CUBE));
    const double cube1 = 2 - 1.5 * exp(-1);

    iso_unknown("a model with the example plugin does not know the test plugin's PTCube", cube, PREDPREY_SO,
                "PTCube", "PredPrey", "PTCube");
    iso_unknown("a model with the test plugin does not know the example's PredPrey", pp, PT_SO_GOOD, "PredPrey",
                "PTCube", "PredPrey");
    iso_unknown("a model without plugins knows neither", pp, NULL, "PredPrey", "", "PTCube");

    jg_model_t *ma = NULL, *mb = NULL, *mc = NULL;
    jg_program_t *pa = NULL, *pb = NULL, *pc = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    jg_status_t st = iso_model(pp, PREDPREY_SO, &ma, &err);
    if (!st) st = iso_model(cube, PT_SO_GOOD, &mb, &err);
    if (!st) st = iso_model(pp, PREDPREY_SO, &mc, &err);   /* the same file in a second model */
    if (!st) st = jg_program_compile(ma, &pa, &err);
    if (!st) st = jg_program_compile(mb, &pb, &err);
    if (!st) st = jg_program_compile(mc, &pc, &err);
    tap_ok(!st, "each model compiles with its own plugin");
    if (st) printf("#   %s\n", err.msg);
    tap_ok(jg_plugin_count(ma) == 1 && jg_plugin_count(mb) == 1 && !strcmp(jg_plugin_file(ma, 0), PREDPREY_SO) &&
               !strcmp(jg_plugin_file(mb, 0), PT_SO_GOOD),
           "each model lists only the file loaded into it");
    jg_model_free(ma);
    jg_model_free(mb);
    jg_model_free(mc);
    double xa = NAN, xb = NAN, xc = NAN;
    if (!st) st = iso_run(pb, &xb, &err);
    tap_ok(!st && fabs(xb - cube1) < 1e-8, "a program runs after its model is freed (PTCube x(1) = %.10f, want %.10f)",
           xb, cube1);
    jg_program_free(pb);   /* the last holder of the test plugin: closed */
    if (!st) st = iso_run(pa, &xa, &err);
    jg_program_free(pa);   /* pc still holds the example plugin */
    if (!st) st = iso_run(pc, &xc, &err);
    tap_ok(!st && isfinite(xa) && xa != 3 && xa == xc,
           "the same plugin file in two models: each program runs, also after the other's is freed (x(1) = %g)", xa);
    if (st) printf("#   %s\n", err.msg);
    jg_program_free(pc);

    /* loaded again after the last program closed it */
    st = iso_model(cube, PT_SO_GOOD, &mb, &err);
    if (!st) st = jg_program_compile(mb, &pb, &err);
    if (!st) st = iso_run(pb, &xb, &err);
    tap_ok(!st && fabs(xb - cube1) < 1e-8, "a plugin loads again after every holder released it");
    jg_program_free(pb);
    jg_model_free(mb);

    /* two threads, each loading, compiling and running its own model */
    iso_thread_t t[2] = {{pp, PREDPREY_SO, "PTCube", NAN, 0}, {cube, PT_SO_GOOD, "PredPrey", cube1, 0}};
    pthread_t th[2];
    int started = 0;
    for (int k = 0; k < 2; k++) started += !pthread_create(&th[k], NULL, iso_thread, &t[k]);
    for (int k = 0; k < started; k++) pthread_join(th[k], NULL);
    tap_ok(started == 2 && !t[0].bad && !t[1].bad,
           "two threads with different plugins, 20 rounds each: right results, never the other's type");
}

int main(void)
{
    test_loading();
    test_isolation();
    jg_model_t *m = NULL;
    jg_error_t err;
    jg_status_t st = parse_pl("{\"blocks\":[]}", &m, &err);
    jg_model_free(m);
    if (st) {   /* everything below needs both plugins */
        tap_ok(0, "plugins load: %s", err.msg);
        return tap_done();
    }
    test_setup();
    test_jacobians();
    test_projection();
    test_zero_crossings();
    test_cholmod();
    return tap_done();
}
