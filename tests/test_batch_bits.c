/* test_batch_bits: the per-point path of repeated linearization gives the bits
 * of a fresh one.  A fresh linearizer's single run evaluates block by block,
 * extracts the LFT operands and factorizes the LFT afresh; a linearizer's
 * later runs take the fused evaluation plan on its I/O connection, keep the
 * constant Jacobian parts, gather the operands by recipe and refactorize; a
 * batch's clones do all of that from their first point and share one set of
 * names.  On every shipped model and a generated aerospace model, at several
 * operating points, A, B, C, D (and the names) must be the same bytes all
 * three ways, for the graph method (and the matrix and perturbation methods
 * on the shipped models, whose perturbations run through the plan's
 * injections); and the plan on a connection with an opening and an input
 * point on an internal signal evaluates the block-by-block path's signals. */
#include <glob.h>
#include <stdint.h>
#include "testlib.h"
#include "jacgraph/batch.h"
#include "jacgraph/gen.h"
#include "linearize/lin_internal.h"
#include "eval/eval_impl.h"   /* the work's plan (and the program's signal count) */

#define NPT 4   /* operating points per model */

/* Point k's state values: every state moved by a different amount (k = 0:
 * the initial states). */
static void point_states(const jg_program_t *p, int k, const double *x0, double *x)
{
    int64_t nx = jg_program_nstates(p);
    for (int64_t i = 0; i < nx; i++)
        x[i] = x0[i] + (k ? 0.01 * k * (double)(1 + i % 7) * (i % 2 ? -1 : 1) : 0);
}

static int same_csc(const cs_dl *a, const cs_dl *b)
{
    if (!a || !b) return a == b;
    int64_t nz = a->p[a->n];
    return a->m == b->m && a->n == b->n && nz == b->p[b->n] &&
           !memcmp(a->p, b->p, sizeof(int64_t) * (size_t)(a->n + 1)) &&
           !memcmp(a->i, b->i, sizeof(int64_t) * (size_t)nz) &&
           !memcmp(a->x, b->x, sizeof(double) * (size_t)nz);
}

static int same_names(char *const *a, char *const *b, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (!a || !b || !a[k] || !b[k] || strcmp(a[k], b[k])) return 0;
    return 1;
}

static int same_sys(const jg_lin_sys_t *a, const jg_lin_sys_t *b)
{
    return a && b && a->nx == b->nx && a->nu == b->nu && a->ny == b->ny &&
           !memcmp(&a->t, &b->t, sizeof a->t) && same_csc(a->A, b->A) && same_csc(a->B, b->B) &&
           same_csc(a->C, b->C) && same_csc(a->D, b->D) &&
           same_names(a->state_names, b->state_names, a->nx) &&
           same_names(a->input_names, b->input_names, a->nu) &&
           same_names(a->output_names, b->output_names, a->ny);
}

/* A fresh linearizer's one run at point k (t = 0.1 k), or NULL when the
 * model does not linearize there (*st says why). */
static jg_lin_sys_t *fresh(const jg_program_t *p, const jg_lin_opts_t *o, jg_lin_method_t m, int k,
                           jg_status_t *st)
{
    jg_error_t err = {0};
    jg_lin_t *l = NULL;
    jg_lin_sys_t *s = NULL;
    if (!(*st = jg_lin_create(p, o, &l, &err))) {
        double *x = jg_lin_states(l);
        int64_t nx = jg_program_nstates(p);
        double *x0 = malloc(sizeof(double) * (size_t)(nx + 1));
        memcpy(x0, x, sizeof(double) * (size_t)nx);
        point_states(p, k, x0, x);
        free(x0);
        jg_lin_set_time(l, 0.1 * k);
        *st = jg_lin_run(l, m, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &err);
    }
    jg_lin_free(l);
    return s;
}

typedef struct {
    jg_lin_sys_t **ref;   /* per point */
    int n, bad, shared;
} cmp_t;

static int sink(void *ctx, int64_t k, const double *vals, const jg_lin_sys_t *sys, const char *error)
{
    (void)vals;
    cmp_t *c = ctx;
    c->n++;
    if (error || !sys || !same_sys(sys, c->ref[k])) c->bad++;
    if (sys) c->shared += sys->names_shared;
    return 0;
}

/* The points table of point_states (the state names JSON-escaped). */
static jg_batch_points_t *points(const jg_program_t *p, const double *x0)
{
    int64_t nx = jg_program_nstates(p);
    size_t cap = 64 + (size_t)NPT * (size_t)(nx + 1) * 600, len = 0;
    char *s = malloc(cap);
    double *x = malloc(sizeof(double) * (size_t)(nx + 1));
    len += (size_t)snprintf(s + len, cap - len, "{\"points\": [");
    for (int k = 0; k < NPT; k++) {
        point_states(p, k, x0, x);
        len += (size_t)snprintf(s + len, cap - len, "%s{\"t\": %.17g, \"states\": {", k ? ", " : "", 0.1 * k);
        for (int64_t i = 0; i < nx; i++) {
            len += (size_t)snprintf(s + len, cap - len, "%s\"", i ? ", " : "");
            for (const char *c = jg_program_state_name(p, i); *c && len + 8 < cap; c++) {
                if (*c == '"' || *c == '\\') s[len++] = '\\';
                s[len++] = *c;
            }
            len += (size_t)snprintf(s + len, cap - len, "\": %.17g", x[i]);
        }
        len += (size_t)snprintf(s + len, cap - len, "}}");
    }
    snprintf(s + len, cap - len, "]}");
    jg_batch_points_t *P = NULL;
    jg_error_t err = {0};
    if (jg_batch_points_parse(s, "points", p, &P, &err)) tap_ok(0, "points: %s", err.msg);
    free(s);
    free(x);
    return P;
}

/* Model `name`: fresh runs against one linearizer's runs and the batch's,
 * graph method; the matrix and perturbation methods when `all`. */
static void check_model(const char *name, const jg_program_t *p, int all)
{
    jg_lin_sys_t *ref[NPT] = {0};
    jg_status_t st = JG_OK;
    int ok = 1, n = 0;
    for (int k = 0; k < NPT; k++) n += (ref[k] = fresh(p, NULL, JG_LIN_GRAPH, k, &st)) != NULL;
    if (n < NPT) {   /* (a model that does not linearize at every point: not this test's) */
        printf("# %s: %d of %d points linearize (%s); skipped\n", name, n, NPT, jg_strerror(st));
        for (int k = 0; k < NPT; k++) jg_lin_sys_free(ref[k]);
        return;
    }
    /* one linearizer, point after point, twice over */
    jg_error_t err = {0};
    jg_lin_t *l = NULL;
    if (jg_lin_create(p, NULL, &l, &err)) {
        tap_ok(0, "%s: linearizer: %s", name, err.msg);
        goto done;
    }
    int64_t nx = jg_program_nstates(p);
    double *x0 = malloc(sizeof(double) * (size_t)(nx + 1));
    memcpy(x0, jg_lin_states(l), sizeof(double) * (size_t)nx);
    for (int r = 0; r < 2 * NPT; r++) {
        jg_lin_sys_t *s = NULL;
        point_states(p, r % NPT, x0, jg_lin_states(l));
        jg_lin_set_time(l, 0.1 * (r % NPT));
        ok &= !jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &err) &&
              same_sys(s, ref[r % NPT]);
        jg_lin_sys_free(s);
    }
    jg_lin_free(l);
    tap_ok(ok, "%s: %d runs of one linearizer give a fresh one's bits", name, 2 * NPT);
    /* the batch, one thread and two */
    jg_batch_points_t *P = points(p, x0);
    for (int jobs = 1; P && jobs <= 2; jobs++) {
        cmp_t c = {.ref = ref};
        jg_batch_opts_t o = {.reduce = JG_GRAPH_REDUCE_MARKOWITZ, .jobs = jobs};
        st = jg_batch_run(p, P, &o, sink, &c, NULL, &err);
        tap_ok(!st && c.n == NPT && !c.bad && c.shared == NPT,
               "%s: batch on %d thread%s: %d points, %d differ from fresh runs, %d share names: %s", name,
               jobs, jobs > 1 ? "s" : "", c.n, c.bad, c.shared, st ? err.msg : "ok");
    }
    jg_batch_points_free(P);
    /* the other methods: a second run at the same point (the plan, its
     * injections for the perturbations) against the first */
    for (int m = JG_LIN_MATRIX; all && m <= JG_LIN_PERTURB; m++) {
        jg_lin_sys_t *a = NULL, *b = NULL;
        ok = !jg_lin_create(p, NULL, &l, &err);
        for (int r = 0; ok && r < 3; r++) {
            jg_lin_sys_free(b);
            b = NULL;
            point_states(p, 2, x0, jg_lin_states(l));
            ok = !jg_lin_run(l, (jg_lin_method_t)m, JG_GRAPH_REDUCE_MARKOWITZ, r ? &b : &a, NULL, &err);
            ok = ok && (!r || same_sys(a, b));
        }
        jg_lin_free(l);
        jg_lin_sys_free(a);
        jg_lin_sys_free(b);
        tap_ok(ok, "%s: method %s: later runs give the first run's bits", name,
               jg_lin_method_name((jg_lin_method_t)m));
    }
    free(x0);
done:
    for (int k = 0; k < NPT; k++) jg_lin_sys_free(ref[k]);
}

/* I/O points off the defaults: an opening on the signal of the first block
 * that drives another, an input point on a second; fresh runs against a
 * linearizer's later ones, and the work's signals after a planned evaluation
 * against a block-by-block one. */
static void check_points(const char *name, const jg_program_t *p)
{
    const char *io[2] = {NULL, NULL};
    char buf[2][512];
    int n = 0;
    for (int32_t b = 0; b < jg_program_nblocks(p) && n < 2; b++) {
        const char *path = jg_program_block_path(p, b);
        const char *type = jg_program_block_type(p, b);
        if (!strcmp(type, "Gain") || !strcmp(type, "Sum") || !strcmp(type, "Integrator")) {
            snprintf(buf[n], sizeof buf[n], "%s:1", path);
            io[n] = buf[n];
            n++;
        }
    }
    if (n < 2) return;
    jg_lin_opts_t o = {.nin = 1, .in = &io[1], .nopen = 1, .open = &io[0]};
    jg_status_t st;
    jg_lin_sys_t *ref = fresh(p, &o, JG_LIN_GRAPH, 1, &st);
    if (!ref) {
        printf("# %s with points %s, %s: %s; skipped\n", name, io[0], io[1], jg_strerror(st));
        return;
    }
    jg_error_t err = {0};
    jg_lin_t *l = NULL;
    int ok = !jg_lin_create(p, &o, &l, &err);
    int64_t nx = jg_program_nstates(p);
    double *x0 = malloc(sizeof(double) * (size_t)(nx + 1));
    if (ok) memcpy(x0, jg_lin_states(l), sizeof(double) * (size_t)nx);
    jg_eval_work_t *w = ok ? jg__lin_work(l) : NULL;
    int64_t ny = 0;
    double *y1 = NULL;
    for (int r = 0; ok && r < 3; r++) {
        jg_lin_sys_t *s = NULL;
        point_states(p, 1, x0, jg_lin_states(l));
        jg_lin_set_time(l, 0.1);
        ok = !jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &err) && same_sys(s, ref);
        jg_lin_sys_free(s);
        if (!r) {   /* the block-by-block signals */
            ny = jg__eval_program(w)->ny;
            y1 = malloc(sizeof(double) * (size_t)(ny + 1));
            memcpy(y1, jg_eval_signals(w), sizeof(double) * (size_t)ny);
        }
    }
    jg__plan_shape_t sh = {0};
    if (w) jg__plan_shape(w, &sh);
    int sig = ok && y1 && !memcmp(y1, jg_eval_signals(w), sizeof(double) * (size_t)ny) && sh.steps > 0;
    tap_ok(ok, "%s, opening %s, input point %s: later runs give a fresh one's bits: %s", name, io[0],
           io[1], err.msg);
    tap_ok(sig, "%s: the plan on that connection (%d steps, %d fused) evaluates the block-by-block "
           "signals (%lld)", name, sh.steps, sh.fused, (long long)ny);
    free(y1);
    free(x0);
    jg_lin_free(l);
    jg_lin_sys_free(ref);
}

static int load(const char *path, jg_model_t **m, jg_program_t **p)
{
    jg_error_t err = {0};
    *m = NULL;
    *p = NULL;
    if (jg_import_load(path, NULL, m, &err) || jg_program_compile(*m, p, &err)) {
        printf("# %s: %s\n", path, err.msg);
        return -1;
    }
    return 0;
}

int main(void)
{
    glob_t g;
    int nmod = 0;
    if (glob("graphs/*.json", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            jg_model_t *m;
            jg_program_t *p;
            if (!load(g.gl_pathv[i], &m, &p) && jg_program_nstates(p) > 0) {
                check_model(g.gl_pathv[i], p, 1);
                check_points(g.gl_pathv[i], p);
                nmod++;
            }
            jg_program_free(p);
            jg_model_free(m);
        }
        globfree(&g);
    }
    tap_ok(nmod >= 10, "%d shipped models checked", nmod);

    /* a generated aerospace model of 10,000 blocks */
    char dir[512], path[600];
    jg_error_t err = {0};
    if (!tl_tmpdir(dir, sizeof dir, "test_batch_bits")) {
        tap_ok(0, "temporary directory");
        return tap_done();
    }
    snprintf(path, sizeof path, "%s/aero.json", dir);
    jg_gen_opts_t go;
    jg_gen_opts_default(&go, JG_GEN_AEROSPACE, 10000, 1);
    FILE *f = fopen(path, "w");
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    int gen = f && !jg_gen_write(&go, f, NULL, &err);
    if (f) gen &= !fclose(f);
    if (tap_ok(gen && !load(path, &m, &p), "aerospace model of 10,000 blocks: %s", err.msg)) {
        check_model("aerospace 10k", p, 0);
        check_points("aerospace 10k", p);
    }
    jg_program_free(p);
    jg_model_free(m);
    tl_rmtree(dir);
    return tap_done();
}
