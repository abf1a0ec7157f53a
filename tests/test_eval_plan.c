/* test_eval_plan.c -- the fused evaluation plan (lib/eval/plan.c) against the
 * block-by-block evaluation it replaces: signals, derivatives, block
 * Jacobians, statuses and error messages bit for bit, at several states
 * (+0/-0, the model's initial states, perturbed, huge), on the shipped
 * models, the test models, seeded random diagrams (lib/gen), chains of scalar
 * sections like the simulation benchmark's (the element-wise kernels and
 * strided runs), and models built for the corner cases: kernel functions
 * failing in their domain (log, sqrt, reciprocal, asin) or overflowing
 * (exp, a Gain before them), the first error in sorted order when several
 * blocks fail, Integrators with limits, state ports and unconnected inputs.
 * The block-by-block path is reached through a copy of the program's
 * connection (the plan applies to the program's own connection only). */
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "eval/eval_impl.h"   /* private: jg__eval_set_conn, the work's arrays */
#include "testlib.h"

typedef struct {
    jg_program_t *p;
    jg_eval_work_t *wp, *wb;   /* planned, block by block */
    int64_t *src;              /* the copied connection of wb */
} pair_t;

static void pair_free(pair_t *c)
{
    jg_eval_free(c->wp);
    jg_eval_free(c->wb);
    jg_program_free(c->p);
    free(c->src);
}

static jg_status_t pair_make(pair_t *c, jg_model_t *m, jg_error_t *err)
{
    memset(c, 0, sizeof *c);
    jg_status_t st = jg_program_compile(m, &c->p, err);
    if (!st) st = jg_eval_create(c->p, &c->wp, err);
    if (!st) st = jg_eval_create(c->p, &c->wb, err);
    if (st) return st;
    c->src = malloc(sizeof(int64_t) * (size_t)(c->p->nu + 1));
    if (!c->src) return JG_NOMEM;
    memcpy(c->src, c->p->u_src, sizeof(int64_t) * (size_t)c->p->nu);
    jg__eval_set_conn(c->wb, &(jg_conn_t){.src = c->src});
    return JG_OK;
}

static int64_t njac(const jg_eval_work_t *w)
{
    int64_t n = 0;
    for (int32_t b = 0; b < w->p->nblocks; b++)
        for (int j = 0; j < w->p->blocks[b].npart; j++) n += w->p->blocks[b].part[j].m->nzmax;
    return n;
}

/* One point: states x (NULL: keep), time t, inputs ext filled with v.
 * Returns 1 when both paths agree on everything; why in *what. */
static int agree(pair_t *c, const double *x, double t, double v, const char **what)
{
    const jg_program_t *p = c->p;
    jg_eval_work_t *w[2] = {c->wp, c->wb};
    jg_error_t err[2] = {{0}, {0}};
    jg_status_t st[2];
    double *dx[2];
    for (int k = 0; k < 2; k++) {
        if (x) memcpy(jg_eval_states(w[k]), x, sizeof(double) * (size_t)p->nx);
        for (int64_t i = 0; i < jg_eval_ninput_elems(w[k]); i++) jg_eval_inputs(w[k])[i] = v;
        dx[k] = calloc((size_t)p->nx + 1, sizeof(double));
        st[k] = jg_eval_outputs(w[k], t, &err[k]);
    }
    int ok = 0;
    *what = "status";
    if (st[0] != st[1]) {
        printf("#   plan: %d %s\n#   block by block: %d %s\n", st[0], err[0].msg, st[1], err[1].msg);
        goto done;
    }
    *what = "error message";
    if (st[0]) {
        ok = !strcmp(err[0].msg, err[1].msg);
        if (!ok) printf("#   plan: %s\n#   block by block: %s\n", err[0].msg, err[1].msg);
        goto done;
    }
    *what = "signals";
    if (memcmp(c->wp->y, c->wb->y, sizeof(double) * (size_t)p->ny)) goto done;
    for (int k = 0; k < 2; k++) st[k] = jg_eval_derivatives(w[k], dx[k], &err[k]);
    *what = "derivatives";
    if (st[0] != st[1] || (!st[0] && memcmp(dx[0], dx[1], sizeof(double) * (size_t)p->nx))) goto done;
    for (int k = 0; k < 2; k++) st[k] = jg_eval_jacobians(w[k], &err[k]);
    *what = "block Jacobians";
    if (st[0] != st[1] || (st[0] && strcmp(err[0].msg, err[1].msg))) goto done;
    if (!st[0] && memcmp(c->wp->jacx, c->wb->jacx, sizeof(double) * (size_t)njac(c->wp))) goto done;
    *what = "inputs after the Jacobians";
    if (memcmp(c->wp->u, c->wb->u, sizeof(double) * (size_t)p->nu)) goto done;
    ok = 1;
done:
    free(dx[0]);
    free(dx[1]);
    return ok;
}

/* Every point of a model; returns the number of disagreements (printed). */
static int check_model(jg_model_t *m, const char *name, int *planned, int *kernels)
{
    pair_t c;
    jg_error_t err = {0};
    if (pair_make(&c, m, &err)) {
        printf("#   %s: %.100s (skipped)\n", name, err.msg);
        pair_free(&c);
        return 0;
    }
    int64_t n = c.p->nx;
    double *x0 = malloc(sizeof(double) * (size_t)(n + 1)), *x = malloc(sizeof(double) * (size_t)(n + 1));
    int bad = 0;
    jg_program_initial_states(c.p, x0, &err);
    /* the overflowing point comes last: after a failed evaluation the two
     * paths leave different partial signals behind (the plan evaluates its
     * later fused steps to find the first error in sorted order), and a
     * block that reads a stale input without feedthrough (0 * Inf in a
     * TransferFcn's D u) can then differ at the next point */
    for (int point = 0; point < 9; point++) {
        double t = 0.25 * point, v = point % 2 ? -0.75 : 1.5;
        for (int64_t i = 0; i < n; i++) {
            double h = sin(1.7 * (double)(i + 1) + point);
            x[i] = point == 0 ? 0.0 : point == 1 ? -0.0 : point == 2 ? x0[i]
                   : point == 3 ? x0[i] + 0.1 * h : point == 4 ? 3 * h
                   : point == 5 ? 1e300 * h : point == 6 ? (i % 2 ? -0.0 : 0.5 * h)
                   : point == 7 ? 1e300 : (i % 3 ? 1.7e308 : -1.7e308);   /* overflows */
        }
        const char *what;
        if (!agree(&c, x, t, v, &what)) {
            printf("#   %s: point %d: the %s differ\n", name, point, what);
            bad++;
        }
    }
    jg__plan_shape_t sh;
    jg__plan_shape(c.wp, &sh);
    if (sh.steps) {
        ++*planned;
        *kernels += sh.kernel_segs + (sh.deriv_copies > 0);
    }
    free(x0);
    free(x);
    pair_free(&c);
    return bad;
}

static int check_json(const char *json, const char *name, int *planned, int *kernels)
{
    jg_model_t *m = NULL;
    jg_error_t err = {0};
    if (jg_model_parse(json, name, &m, &err)) {
        printf("#   %s: %s\n", name, err.msg);
        return 1;
    }
    int bad = check_model(m, name, planned, kernels);
    jg_model_free(m);
    return bad;
}

/* The shipped models and the test models. */
static void test_files(void)
{
    const char *pat[] = {"graphs/*.json", "tests/data/*.json", "tests/data/reliability/*.json"};
    int nfiles = 0, bad = 0, planned = 0, kernels = 0;
    for (size_t k = 0; k < sizeof pat / sizeof *pat; k++) {
        glob_t g;
        if (glob(pat[k], 0, NULL, &g)) continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            jg_model_t *m = NULL;
            jg_error_t err = {0};
            /* (the reliability corpus's mem_* models are refused, after reading up to
             * the file limit: not read here) */
            if (strstr(g.gl_pathv[i], "/mem_") || jg_model_read(g.gl_pathv[i], &m, &err)) continue;
            nfiles++;
            bad += check_model(m, g.gl_pathv[i], &planned, &kernels);
            jg_model_free(m);
        }
        globfree(&g);
    }
    tap_ok(nfiles >= 20 && planned >= 20 && kernels > 0,
           "%d shipped and test models read, %d of them planned, %d kernel segments", nfiles,
           planned, kernels);
    tap_ok(bad == 0, "plan = block by block on the shipped and test models (%d differences)", bad);
}

/* Seeded random diagrams, scalar and vector, with loops and SubSystems. */
static void test_random(void)
{
    int bad = 0, planned = 0, kernels = 0, n = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        jg_gen_random_opts_t o;
        jg_gen_random_defaults(&o, seed, 20 + (int)(seed % 7) * 15);
        o.vectors = seed % 3 != 0;
        o.loops = seed % 2;
        char *json = NULL;
        jg_error_t err = {0};
        if (jg_gen_random(&o, &json, NULL, &err)) continue;
        char name[32];
        snprintf(name, sizeof name, "random seed %d", (int)seed);
        bad += check_json(json, name, &planned, &kernels);
        n++;
        free(json);
    }
    tap_ok(n == 60 && bad == 0, "plan = block by block on %d random diagrams (%d differences)", n, bad);
}

/* A ring of n sections x_i' = -a x_i + b x_{i-1} + c f(x_{i+1}) with scalar
 * blocks, f a Trigonometry or Math operator (the benchmark's chain when sin),
 * a and b scaled by ga and gb. */
static char *chain_scaled(int n, const char *op_type, const char *op, double ga, double gb)
{
    size_t cap = 4096 + (size_t)n * 900;
    char *s = malloc(cap);
    size_t len = 0;
    len += (size_t)snprintf(s + len, cap - len, "{\"name\": \"chain\", \"blocks\": [");
    for (int i = 1; i <= n; i++)
        len += (size_t)snprintf(s + len, cap - len,
                                "%s{\"name\": \"I%d\", \"type\": \"Integrator\", \"InitialCondition\": %g},"
                                "{\"name\": \"T%d\", \"type\": \"%s\", \"Operator\": \"%s\"},"
                                "{\"name\": \"A%d\", \"type\": \"Gain\", \"Gain\": %g},"
                                "{\"name\": \"B%d\", \"type\": \"Gain\", \"Gain\": %g},"
                                "{\"name\": \"C%d\", \"type\": \"Gain\", \"Gain\": %g},"
                                "{\"name\": \"S%d\", \"type\": \"Sum\", \"Inputs\": \"-++\"}",
                                i > 1 ? "," : "", i, 0.3 * sin(i), i, op_type, op, i,
                                ga * (0.01 + 0.001 * i), i, gb * (-1 + 0.01 * i), i, 0.9 + 0.002 * i, i);
    len += (size_t)snprintf(s + len, cap - len, "], \"lines\": [");
    for (int i = 1; i <= n; i++) {
        int prev = (i + n - 2) % n + 1, next = i % n + 1;
        len += (size_t)snprintf(s + len, cap - len,
                                "%s{\"src\": \"I%d:1\", \"dst\": [\"A%d:1\", \"B%d:1\", \"T%d:1\"]},"
                                "{\"src\": \"T%d:1\", \"dst\": \"C%d:1\"},"
                                "{\"src\": \"A%d:1\", \"dst\": \"S%d:1\"},"
                                "{\"src\": \"B%d:1\", \"dst\": \"S%d:2\"},"
                                "{\"src\": \"C%d:1\", \"dst\": \"S%d:3\"},"
                                "{\"src\": \"S%d:1\", \"dst\": \"I%d:1\"}",
                                i > 1 ? "," : "", i, i, next, prev, i, i, i, i, i, i, i, i, i, i);
    }
    snprintf(s + len, cap - len, "]}");
    return s;
}

static char *chain(int n, const char *op_type, const char *op)
{
    return chain_scaled(n, op_type, op, 1, 1);
}

/* The chains: every kernel operator, strided runs, and the plan's shape. */
static void test_chains(void)
{
    static const char *ops[][2] = {{"Trigonometry", "sin"},  {"Trigonometry", "cos"},
                                   {"Trigonometry", "tan"},  {"Trigonometry", "atan"},
                                   {"Trigonometry", "tanh"}, {"Trigonometry", "sinh"},
                                   {"Trigonometry", "cosh"}, {"Trigonometry", "asin"},
                                   {"Trigonometry", "acos"}, {"Math", "exp"},
                                   {"Math", "log"},          {"Math", "log10"},
                                   {"Math", "sqrt"},         {"Math", "square"},
                                   {"Math", "reciprocal"}};
    int bad = 0, planned = 0, kernels = 0;
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        for (int n = 3; n <= 40; n += 37) {
            char name[64];
            snprintf(name, sizeof name, "chain of %d, %s", n, ops[k][1]);
            char *json = chain(n, ops[k][0], ops[k][1]);
            bad += check_json(json, name, &planned, &kernels);
            free(json);
        }
    }
    tap_ok(bad == 0 && kernels >= 30, "plan = block by block on chains of every kernel operator "
                                      "(%d differences, %d kernel segments)", bad, kernels);
    /* large gains: at states 1e300 the Gains stay finite and some Sums
     * overflow (the Sums' runs fold their finiteness check) */
    char *big = chain_scaled(8, "Trigonometry", "sin", -5e9, -1e8);
    bad = check_json(big, "chain with overflowing Sums", &planned, &kernels);
    free(big);
    tap_ok(bad == 0, "plan = block by block on a chain whose Sums overflow");

    /* the benchmark's chain: one batch of runs, derivatives copied */
    char *json = chain(200, "Trigonometry", "sin");
    jg_model_t *m = NULL;
    jg_error_t err = {0};
    pair_t c;
    jg_status_t st = jg_model_parse(json, "chain", &m, &err);
    if (!st) st = pair_make(&c, m, &err);
    free(json);
    jg_model_free(m);
    if (st) {
        tap_ok(0, "chain of 200 compiles: %s", err.msg);
        return;
    }
    const char *what;
    int ok = agree(&c, NULL, 0, 0, &what);
    jg__plan_shape_t sh;
    jg__plan_shape(c.wp, &sh);
    tap_ok(ok && sh.fused == 1 && sh.calls == 0 && sh.runs >= 6 && sh.longest_run >= 199 &&
               sh.deriv_calls == 0 && sh.deriv_copies == 1,
           "chain of 200: one fused step, %d runs (longest %lld rows), no block calls, "
           "derivatives in one copy run (%lld)", sh.runs, (long long)sh.longest_run,
           (long long)sh.deriv_copies);
    pair_free(&c);
}

/* Corner cases of the kernels: errors and which block is named first. */
static void test_corners(void)
{
    int planned = 0, kernels = 0;
    const char *models[][2] = {
        /* log of a negative state, sqrt of -0 and of a negative, 1/0, asin(2) */
        {"log domain", "{'blocks':[{'name':'x','type':'Integrator','InitialCondition':[1,-1,0]},"
                       "{'name':'L','type':'Math','Operator':'log'},{'name':'R','type':'Math','Operator':'reciprocal'},"
                       "{'name':'Q','type':'Math','Operator':'sqrt'},{'name':'S','type':'Trigonometry','Operator':'asin'},"
                       "{'name':'Sum','type':'Sum','Inputs':'++++'}],"
                       "'lines':[{'src':'x:1','dst':['L:1','R:1','Q:1','S:1']},{'src':'L:1','dst':'Sum:1'},"
                       "{'src':'R:1','dst':'Sum:2'},{'src':'Q:1','dst':'Sum:3'},{'src':'S:1','dst':'Sum:4'},"
                       "{'src':'Sum:1','dst':'x:1'}]}"},
        /* exp overflow after a Gain, and a Gain overflow before a failing log */
        {"overflow", "{'blocks':[{'name':'x','type':'Integrator','InitialCondition':2},"
                     "{'name':'G','type':'Gain','Gain':1e306},{'name':'E','type':'Math','Operator':'exp'},"
                     "{'name':'H','type':'Gain','Gain':-1},{'name':'L','type':'Math','Operator':'log'},"
                     "{'name':'Sum','type':'Sum','Inputs':'++'}],"
                     "'lines':[{'src':'x:1','dst':['G:1','H:1']},{'src':'G:1','dst':'E:1'},{'src':'H:1','dst':'L:1'},"
                     "{'src':'E:1','dst':'Sum:1'},{'src':'L:1','dst':'Sum:2'},{'src':'Sum:1','dst':'x:1'}]}"},
        /* Integrators with limits, a state port, an unconnected input; a
         * kernel function of an unconnected input */
        {"integrators", "{'blocks':[{'name':'a','type':'Integrator','InitialCondition':0.5,"
                        "'UpperSaturationLimit':1,'LowerSaturationLimit':-1},"
                        "{'name':'b','type':'Integrator','InitialCondition':[1,2],'ShowStatePort':'on'},"
                        "{'name':'c','type':'Integrator','InitialCondition':3},"
                        "{'name':'T','type':'Trigonometry','Operator':'cos'},"
                        "{'name':'U','type':'Trigonometry','Operator':'sin'},"
                        "{'name':'M','type':'Math','Operator':'square'},{'name':'Out1','type':'Outport','Port':1}],"
                        "'lines':[{'src':'a:1','dst':'T:1'},{'src':'T:1','dst':'a:1'},"
                        "{'src':'b:1','dst':'M:1'},{'src':'M:1','dst':'b:1'},{'src':'b:2','dst':'Out1:1'},"
                        "{'src':'U:1','dst':'c:1'}]}"},
    };
    for (size_t k = 0; k < sizeof models / sizeof *models; k++) {
        int bad = check_json(q(models[k][1]), models[k][0], &planned, &kernels);
        tap_ok(bad == 0, "plan = block by block: %s", models[k][0]);
    }
    /* the error itself, through the plan: the log of -1 names block L */
    jg_model_t *m = NULL;
    jg_error_t err = {0};
    pair_t c;
    jg_status_t st = jg_model_parse(q(models[0][1]), "log", &m, &err);
    if (!st) st = pair_make(&c, m, &err);
    jg_model_free(m);
    if (!st) {
        st = jg_eval_outputs(c.wp, 0, &err);
        tap_ok(st == JG_NUMERIC && strstr(err.msg, "'L'") && strstr(err.msg, "positive"),
               "the plan's log of -1 names the block and the domain: %s", err.msg);
        pair_free(&c);
    } else {
        tap_ok(0, "log model compiles: %s", err.msg);
    }
}

int main(void)
{
    test_files();
    test_random();
    test_chains();
    test_corners();
    return tap_done();
}
