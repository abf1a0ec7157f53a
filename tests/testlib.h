/* testlib.h -- the one helper header the C tests share (tap.h below it is the
 * TAP primitive: ok lines, near, streq, the plan).  Here: JSON written with '
 * for ", a scratch directory under $TMPDIR, whole files read and written, the
 * external Simulink corpus' skip and import problems; the fixture (a model
 * from a JSON string, compiled, with an evaluation work and a linearizer) and
 * what tests read off it (a matrix entry, a dense D, one block checked at one
 * point, an expected error); simulations recorded at their output points;
 * a program's sorted block order, the shipped models compiled one by one and
 * (for tests that include lib/graph's interface first) a structural graph
 * and a strategy run on it; a small random generator for property tests.
 * Header-only: every helper is static and marked unused. */
#ifndef JG_TESTS_TESTLIB_H
#define JG_TESTS_TESTLIB_H
#include <dirent.h>   /* opendir, for tl_each_shipped */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>   /* rmdir, for what tl_tmpdir made */
#include "jacgraph/jacgraph.h"
#include "tap.h"

/* xorshift64* (Vigna): the next of the sequence in *state (nonzero), for
 * property tests that want the same random inputs on every run. */
__attribute__((unused)) static uint64_t tl_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

/* JSON is written with ' for " (readable in C strings) and converted here.
 * The result lives in a static buffer that the next call overwrites. */
__attribute__((unused)) static const char *q(const char *s)
{
    static char buf[65536];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *c = buf; *c; c++)
        if (*c == '\'') *c = '"';
    return buf;
}

/* A fresh directory $TMPDIR/PREFIX.XXXXXX (/tmp when TMPDIR is unset), its path
 * in dir (n bytes): two runs at once never share a name.  Returns dir, or NULL
 * (errno set by mkdtemp).  The caller removes what it puts there. */
__attribute__((unused)) static char *tl_tmpdir(char *dir, size_t n, const char *prefix)
{
    const char *base = getenv("TMPDIR");
    int len = snprintf(dir, n, "%s/%s.XXXXXX", base && *base ? base : "/tmp", prefix);
    if (len < 0 || (size_t)len >= n) return NULL;
    return mkdtemp(dir);
}

/* Write text to path (replacing it); 0 on success, -1 if it cannot be written. */
__attribute__((unused)) static int tl_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int bad = fputs(text, f) < 0;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

/* The whole file, NUL-terminated, its length in *len (len may be NULL); the
 * caller frees it.  NULL if it cannot be read. */
__attribute__((unused)) static char *tl_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0, k;
    char *b = malloc(cap);
    while (b && (k = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap) {
            char *p = realloc(b, cap *= 2);
            if (!p) free(b);
            b = p;
        }
    }
    fclose(f);
    if (b) b[n] = 0;
    if (len) *len = n;
    return b;
}

/* qsort comparator for an array of C strings. */
__attribute__((unused)) static int tl_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The external Simulink corpus (real models we may not redistribute) lives in
 * the directory "shared/simulink" beside the repository (tests run from its
 * root): the path of file in it (NULL: the directory itself), in a static
 * buffer that the next call overwrites. */
__attribute__((unused)) static const char *tl_corpus(const char *file)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s/simulink%s%s", "..", "shared", file ? "/" : "", file ? file : "");
    return path;
}

/* Is the corpus directory there?  If not, the skip line and an ok "# SKIP"
 * are printed and 0 returned. */
__attribute__((unused)) static int tl_corpus_present(void)
{
    if (!access(tl_corpus(NULL), R_OK | X_OK)) return 1;
    printf("# skipped: external corpus not present\n");
    tap_ok(1, "# SKIP external corpus not present");
    return 0;
}

/* Remove the scratch directory dir and everything in it. */
__attribute__((unused)) static void tl_rmtree(const char *dir)
{
    char cmd[1200];
    if (!dir || !*dir || snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) >= (int)sizeof cmd) return;
    if (system(cmd)) {
    }
}

/* Are the n strings got (the caller's, freed here) the sorted want (nw)?
 * got is sorted first; on a difference it is printed as TAP comments. */
__attribute__((unused)) static int tl_same_strs(char **got, int n, const char *const *want, int nw)
{
    qsort(got, (size_t)n, sizeof *got, tl_cmp_str);
    int same = n == nw;
    for (int k = 0; same && k < n; k++) same = !strcmp(got[k], want[k]);
    for (int k = 0; k < n; k++) {
        if (!same) printf("#   %s\n", got[k]);
        free(got[k]);
    }
    return same;
}

/* Is the external corpus file absent?  Then the skip line and an ok
 * "# SKIP what" are printed and 1 returned. */
__attribute__((unused)) static int tl_corpus_absent(const char *file, const char *what)
{
    if (!access(file, R_OK)) return 0;
    printf("skipped: external corpus not present\n");
    tap_ok(1, "# SKIP %s", what);
    return 1;
}

__attribute__((unused)) static char *tl_warned;
__attribute__((unused)) static void tl_keep_warning(void *ctx, const char *msg)
{
    (void)ctx;
    if (strstr(msg, "cannot be imported")) {
        free(tl_warned);
        tl_warned = strdup(msg);
    }
}

/* Import file and return its problem list, "\n  PATH (TYPE): reason" each:
 * the "cannot be imported" warning, else the error message when the import
 * failed, else "" (the caller frees it); the import's status in *st. */
__attribute__((unused)) static char *tl_import_problems(const char *file, jg_status_t *st)
{
    jg_import_opts_t o = {.warn = tl_keep_warning};
    jg_model_t *m = NULL;
    jg_error_t err;
    *st = jg_import_load(file, &o, &m, &err);
    jg_model_free(m);
    char *list = tl_warned ? tl_warned : strdup(*st ? err.msg : "");
    tl_warned = NULL;
    return list;
}

/* A model whose elimination pivot depends on an input (' for ", see q):
 * v1 = u + p v1 + v2, v2 = -v1 + 0 v2 + 0 u with the input p, so D = 1 / (2 - p)
 * (singular at p = 2) while the full elimination's pivot 1 - p at v1 is
 * singular at p = 1 (test_graph_guard.c, test_batch.c). */
#define TL_MODEL_PIVOT_LOOP \
    "{'name':'rp','blocks':[{'name':'In1','type':'Inport','Port':1}," \
    "{'name':'P','type':'Inport','Port':2},{'name':'V1','type':'Sum','Inputs':'+++'}," \
    "{'name':'M','type':'Product','Inputs':'**'},{'name':'Gb','type':'Gain','Gain':1}," \
    "{'name':'V2','type':'Sum','Inputs':'++++'},{'name':'Gc','type':'Gain','Gain':-1}," \
    "{'name':'Gd','type':'Gain','Gain':0},{'name':'Ge','type':'Gain','Gain':0}," \
    "{'name':'Gf','type':'Gain','Gain':0},{'name':'Out1','type':'Outport','Port':1}," \
    "{'name':'Out2','type':'Outport','Port':2}]," \
    "'lines':[{'src':'In1:1','dst':['V1:1','Ge:1']},{'src':'P:1','dst':['M:1','Gf:1']}," \
    "{'src':'V1:1','dst':['M:2','Gc:1','Out1:1']},{'src':'M:1','dst':'V1:2'}," \
    "{'src':'Gb:1','dst':'V1:3'},{'src':'V2:1','dst':['Gb:1','Gd:1','Out2:1']}," \
    "{'src':'Gc:1','dst':'V2:1'},{'src':'Gd:1','dst':'V2:2'},{'src':'Ge:1','dst':'V2:3'}," \
    "{'src':'Gf:1','dst':'V2:4'}]}"

/* The sorted order of p's blocks as "A B C" (their paths), in a static buffer
 * that the next call overwrites (4096 bytes; a longer order is cut). */
__attribute__((unused)) static const char *tl_sorted(const jg_program_t *p)
{
    static char buf[4096];
    int32_t n;
    const int32_t *o = jg_program_sorted(p, &n);
    size_t k = 0;
    buf[0] = 0;
    for (int32_t i = 0; i < n && k < sizeof buf; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", i ? " " : "", jg_program_block_path(p, o[i]));
    return buf;
}

/* Every shipped model graphs/NAME.json (tests run from the repository root;
 * the first 256 in directory order) read and compiled: fn(path, p, user) for
 * each.  One that does not read or compile (not a model of this kind) is
 * passed over with a comment "# PATH: skipped (why)".  Returns how many were
 * compiled; 0 and a failing TAP line when graphs/ does not open. */
__attribute__((unused)) static int tl_each_shipped(void (*fn)(const char *path, const jg_program_t *p, void *user),
                                                   void *user)
{
    DIR *d = opendir("graphs");
    if (!d) {
        tap_ok(0, "graphs/ opens (tests run from the repository root)");
        return 0;
    }
    struct dirent *de;
    char *names[256];
    int n = 0, nmodels = 0;
    while ((de = readdir(d)) && n < 256) {
        size_t len = strlen(de->d_name);
        if (len > 5 && !strcmp(de->d_name + len - 5, ".json")) names[n++] = strdup(de->d_name);
    }
    closedir(d);
    for (int k = 0; k < n; k++) {
        char path[512];
        snprintf(path, sizeof path, "graphs/%s", names[k]);
        jg_model_t *m = NULL;
        jg_program_t *p = NULL;
        jg_error_t err;
        jg_error_clear(&err);
        if (jg_model_read(path, &m, &err) || jg_program_compile(m, &p, &err)) {
            printf("# %s: skipped (%.80s)\n", path, err.msg);
        } else {
            fn(path, p, user);
            nmodels++;
        }
        jg_program_free(p);
        jg_model_free(m);
        free(names[k]);
    }
    return nmodels;
}

#ifdef JG_GRAPH_INTERNAL_H
/* A structural Jacobian graph (for tests that include lib/graph's internal
 * interface graph/graph_internal.h, directly or through a private header of
 * lib/graph, before this file): a model from JSON, compiled, with every
 * input and output of the root and its graph built. */
typedef struct {
    jg_model_t *m;
    jg_program_t *p;
    jg_iospec_t *io;
    jg_graph_t *g;
    jg_error_t err;
} gx_t;

/* Parse, compile, make the I/O spec and build the graph; stops at the first
 * failure and returns its status (message in x->err). */
__attribute__((unused)) static jg_status_t gx_load(gx_t *x, const char *json)
{
    memset(x, 0, sizeof *x);
    jg_status_t st = jg_model_parse(json, "<test>", &x->m, &x->err);
    if (!st) st = jg_program_compile(x->m, &x->p, &x->err);
    if (!st) st = jg__iospec_create(x->p, 0, NULL, 0, NULL, 0, NULL, 1, &x->io, &x->err);
    if (!st) st = jg__graph_build(x->p, x->io, &x->g, &x->err);
    return st;
}

__attribute__((unused)) static void gx_unload(gx_t *x)
{
    jg_graph_free(x->g);
    jg__iospec_free(x->io);
    jg_program_free(x->p);
    jg_model_free(x->m);
}

#ifdef JG_STRATEGY_IMPL_H
/* Run strategy spec structurally (time limit tlim seconds) on a fresh graph
 * of x (for tests that include graph/strategy_impl.h first): its cost into
 * *c, and (ord not NULL) a malloc'd copy of its order into *ord.  The
 * status, the message in err. */
__attribute__((unused)) static jg_status_t gx_run_order(gx_t *x, const char *spec, double tlim,
                                                        jg_graph_cost_t *c, int64_t **ord, jg_error_t *err)
{
    jg_graph_strategy_t *s = NULL;
    jg_graph_t *g = NULL;
    jg_status_t st = jg_graph_strategy_parse(spec, &s, err);
    if (!st) st = jg__graph_build(x->p, x->io, &g, err);
    if (!st) {
        jg_graph_strategy_set_time_limit(s, tlim);
        st = jg__graph_eliminate_strategy(g, s, NULL, err);
    }
    if (!st) jg_graph_cost(g, c);
    if (!st && ord) {
        const int64_t *o;
        int64_t n = jg_graph_order(g, &o);
        *ord = malloc(sizeof(int64_t) * (size_t)(n + 1));
        if (*ord && n) memcpy(*ord, o, sizeof(int64_t) * (size_t)n);
    }
    jg_graph_free(g);
    jg_graph_strategy_free(s);
    return st;
}

/* gx_run_order without the order. */
__attribute__((unused)) static jg_status_t gx_run(gx_t *x, const char *spec, double tlim, jg_graph_cost_t *c,
                                                  jg_error_t *err)
{
    return gx_run_order(x, spec, tlim, c, NULL, err);
}
#endif
#endif

/* ------------------------------------------------------------ the fixture */

typedef struct {
    jg_model_t *m;
    jg_program_t *p;
    jg_eval_work_t *w;
    jg_lin_t *l;
    jg_error_t err;
} fx_t;

/* Parse, compile, create the work and the linearizer (o may be NULL); stops at
 * the first failure and returns its status (message in f->err). */
__attribute__((unused)) static jg_status_t fx_load(fx_t *f, const char *json,
                                                   const jg_lin_opts_t *o)
{
    memset(f, 0, sizeof *f);
    jg_status_t st = jg_model_parse(json, "<test>", &f->m, &f->err);
    if (!st) st = jg_program_compile(f->m, &f->p, &f->err);
    if (!st) st = jg_eval_create(f->p, &f->w, &f->err);
    if (!st) st = jg_lin_create(f->p, o, &f->l, &f->err);
    return st;
}

__attribute__((unused)) static void fx_unload(fx_t *f)
{
    jg_lin_free(f->l);
    jg_eval_free(f->w);
    jg_program_free(f->p);
    jg_model_free(f->m);
}

/* A(i, j) of a compressed-column matrix (0 when not stored). */
__attribute__((unused)) static double fx_entry(const cs_dl *A, int64_t i, int64_t j)
{
    for (int64_t k = A->p[j]; k < A->p[j + 1]; k++)
        if (A->i[k] == i) return A->x[k];
    return 0;
}

/* A model around one block: root Inports In1..Ink (widths w[k]) drive the
 * inputs of block B (its JSON keys after the name, ' for "); B's output drives
 * the Integrator Y (so the derivatives are B's values) and Out1 (so D is B's
 * Jacobian).  The JSON lives in a static buffer that the next call overwrites. */
__attribute__((unused)) static const char *fx_blk_model(const char *blk, int nin, const int *w)
{
    static char buf[8192];
    int n = snprintf(buf, sizeof buf, "{'name':'blk','blocks':[");
    for (int k = 0; k < nin; k++)
        n += snprintf(buf + n, sizeof buf - n,
                      "{'name':'In%d','type':'Inport','Port':%d,'PortDimensions':%d},", k + 1,
                      k + 1, w[k]);
    n += snprintf(buf + n, sizeof buf - n,
                  "{'name':'B',%s},{'name':'Y','type':'Integrator'},"
                  "{'name':'Out1','type':'Outport','Port':1}],'lines':[",
                  blk);
    for (int k = 0; k < nin; k++)
        n += snprintf(buf + n, sizeof buf - n, "{'src':'In%d:1','dst':'B:%d'},", k + 1, k + 1);
    snprintf(buf + n, sizeof buf - n, "{'src':'B:1','dst':['Y:1','Out1:1']}]}");
    for (char *c = buf; *c; c++)
        if (*c == '\'') *c = '"';
    return buf;
}

/* D (ny x nu, row-major, dense) by method m at inputs u (Markowitz reduction). */
__attribute__((unused)) static jg_status_t fx_dmat(fx_t *f, jg_lin_method_t m, const double *u, double *D,
                                                   int64_t *ny, int64_t *nu)
{
    double *in = jg_lin_inputs(f->l);
    for (int64_t k = 0; k < jg_eval_ninput_elems(f->w); k++) in[k] = u[k];
    jg_lin_sys_t *s = NULL;
    jg_status_t st = jg_lin_run(f->l, m, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f->err);
    if (st) return st;
    *ny = s->ny;
    *nu = s->nu;
    memset(D, 0, sizeof(double) * (size_t)(s->ny * s->nu));
    for (int64_t j = 0; j < s->D->n; j++)
        for (int64_t k = s->D->p[j]; k < s->D->p[j + 1]; k++) D[s->D->i[k] * s->nu + j] = s->D->x[k];
    jg_lin_sys_free(s);
    return JG_OK;
}

/* B's output at time t and inputs u (all input elements, port after port):
 * the derivatives of the Integrator Y of fx_blk_model. */
__attribute__((unused)) static jg_status_t fx_value_at(fx_t *f, double t, const double *u, double *y)
{
    double *in = jg_eval_inputs(f->w);
    for (int64_t k = 0; k < jg_eval_ninput_elems(f->w); k++) in[k] = u[k];
    jg_status_t st = jg_eval_outputs(f->w, t, &f->err);
    if (!st) st = jg_eval_derivatives(f->w, y, &f->err);
    return st;
}

#define FX_MAXW 16

/* One block at one point (fx_check_case). */
typedef struct {
    const char *what;
    const char *blk;   /* block JSON keys, ' for " */
    int nin;
    int w[4];          /* input widths */
    double u[FX_MAXW]; /* input elements */
    int ny;
    double y[FX_MAXW]; /* expected output */
    double d[FX_MAXW * FX_MAXW];   /* expected D, ny x nu row-major */
    int smooth;        /* central differences and perturbation must match */
} fx_case_t;

/* Value and Jacobian of one block at one point (two TAP lines): the hand
 * value and D, the graph method against the matrix method, perturbation and
 * (at smooth points) central differences of the value.  rough: how the second
 * line names central differences at a point that is not smooth. */
__attribute__((unused)) static void fx_check_case(const fx_case_t *c, const char *rough)
{
    fx_t f;
    jg_status_t st = fx_load(&f, fx_blk_model(c->blk, c->nin, c->w), NULL);
    int nu = 0;
    for (int k = 0; k < c->nin; k++) nu += c->w[k];
    double y[FX_MAXW] = {0}, Dg[FX_MAXW * FX_MAXW], Dm[FX_MAXW * FX_MAXW], Dp[FX_MAXW * FX_MAXW],
           cd[FX_MAXW * FX_MAXW];
    int64_t ny = 0, nu2 = 0, ny2, nu3;
    if (!st) st = fx_value_at(&f, 0, c->u, y);
    if (!st && jg_program_nstates(f.p) != c->ny) {
        printf("#   output width %lld, expected %d\n", (long long)jg_program_nstates(f.p), c->ny);
        st = JG_INTERNAL;
    }
    double ev = 0;
    for (int i = 0; !st && i < c->ny; i++) ev = fmax(ev, fabs(y[i] - c->y[i]) / fmax(1, fabs(c->y[i])));
    if (!st && ev > 1e-14)
        for (int i = 0; i < c->ny; i++) printf("#   y[%d] = %.17g, expected %.17g\n", i, y[i], c->y[i]);
    tap_ok(!st && ev <= 1e-14, "%s: value (error %.1e)", c->what, ev);
    if (!st) st = fx_dmat(&f, JG_LIN_GRAPH, c->u, Dg, &ny, &nu2);
    if (!st) st = fx_dmat(&f, JG_LIN_MATRIX, c->u, Dm, &ny2, &nu3);
    if (!st) st = fx_dmat(&f, JG_LIN_PERTURB, c->u, Dp, &ny2, &nu3);
    /* central differences of the value, h relative to |u| */
    for (int k = 0; !st && k < nu; k++) {
        double u[FX_MAXW], yp[FX_MAXW], ym[FX_MAXW], h = 1e-6 * fmax(1, fabs(c->u[k]));
        memcpy(u, c->u, sizeof u);
        u[k] = c->u[k] + h;
        st = fx_value_at(&f, 0, u, yp);
        u[k] = c->u[k] - h;
        if (!st) st = fx_value_at(&f, 0, u, ym);
        for (int i = 0; i < c->ny; i++) cd[i * nu + k] = (yp[i] - ym[i]) / (2 * h);
    }
    double e_hand = 0, e_mat = 0, e_cd = 0, e_pert = 0;
    for (int i = 0; !st && i < c->ny * nu; i++) {
        e_hand = fmax(e_hand, fabs(Dg[i] - c->d[i]) / fmax(1, fabs(c->d[i])));
        e_mat = fmax(e_mat, fabs(Dm[i] - Dg[i]) / fmax(1, fabs(Dg[i])));
        e_cd = fmax(e_cd, fabs(cd[i] - Dg[i]) / fmax(1, fabs(Dg[i])));
        e_pert = fmax(e_pert, fabs(Dp[i] - Dg[i]) / fmax(1, fabs(Dg[i])));
    }
    if (st) printf("#   %s\n", f.err.msg);
    else if (e_hand > 1e-14)
        for (int i = 0; i < c->ny * nu; i++)
            printf("#   D[%d][%d] = %.17g, expected %.17g\n", i / nu, i % nu, Dg[i], c->d[i]);
    int ok = !st && ny == c->ny && nu2 == nu && e_hand <= 1e-14 && e_mat <= 1e-14 &&
             (!c->smooth || (e_cd <= 1e-8 && e_pert <= 1e-7));
    tap_ok(ok, "%s: D vs hand %.1e, vs matrix %.1e%s%.1e, vs perturbation %.1e", c->what, e_hand,
           e_mat, c->smooth ? ", vs central differences " : rough, e_cd, e_pert);
    fx_unload(&f);
}

/* One TAP line: the one-block model of fx_blk_model fails with status want and
 * exactly the message msg; named by what, or by msg without "block ". */
__attribute__((unused)) static void fx_expect_err(const char *blk, int nin, const int *w, jg_status_t want,
                                                  const char *msg, const char *what)
{
    fx_t f;
    jg_status_t st = fx_load(&f, fx_blk_model(blk, nin, w), NULL);
    if (st != want) printf("#   status %s: %s\n", jg_status_name(st), st ? f.err.msg : "");
    char name[240];
    snprintf(name, sizeof name, "%s: %.200s", jg_status_name(want), what ? what : msg + strlen("block "));
    tap_streq(st == want ? f.err.msg : "", msg, name);
    fx_unload(&f);
}

/* Van der Pol with mu = 1 from x = (2, 0), no I/O blocks: x1' = x2,
 * x2' = mu (1 - x1^2) x2 - x1 (the linearization and graph tests' model). */
__attribute__((unused)) static const char tl_vdp[] =
    "{\"name\":\"vdp\",\"parameters\":{\"mu\":1},\"blocks\":["
    "{\"name\":\"x1\",\"type\":\"Integrator\",\"InitialCondition\":2},"
    "{\"name\":\"x2\",\"type\":\"Integrator\",\"InitialCondition\":0},"
    "{\"name\":\"Sq\",\"type\":\"Math\",\"Operator\":\"square\"},"
    "{\"name\":\"One\",\"type\":\"Constant\",\"Value\":1},"
    "{\"name\":\"S1\",\"type\":\"Sum\",\"Inputs\":\"+-\"},"
    "{\"name\":\"P\",\"type\":\"Product\",\"Inputs\":\"**\"},"
    "{\"name\":\"Mu\",\"type\":\"Gain\",\"Gain\":\"mu\"},"
    "{\"name\":\"S2\",\"type\":\"Sum\",\"Inputs\":\"+-\"}],"
    "\"lines\":[{\"src\":\"x2:1\",\"dst\":[\"x1:1\",\"P:1\"]},"
    "{\"src\":\"x1:1\",\"dst\":[\"Sq:1\",\"S2:2\"]},{\"src\":\"One:1\",\"dst\":\"S1:1\"},"
    "{\"src\":\"Sq:1\",\"dst\":\"S1:2\"},{\"src\":\"S1:1\",\"dst\":\"P:2\"},"
    "{\"src\":\"P:1\",\"dst\":\"Mu:1\"},{\"src\":\"Mu:1\",\"dst\":\"S2:1\"},"
    "{\"src\":\"S2:1\",\"dst\":\"x2:1\"}]}";

/* Every case of a table, fx_check_case each (two TAP lines a case). */
__attribute__((unused)) static void fx_check_cases(const fx_case_t *c, size_t n, const char *rough)
{
    for (size_t k = 0; k < n; k++) fx_check_case(&c[k], rough);
}

/* One refused one-block model: fx_expect_err's arguments as a table row. */
typedef struct {
    const char *blk;
    int nin;
    const int *w;
    jg_status_t st;
    const char *msg;
} fx_err_case_t;

/* Every row of a table of refusals, fx_expect_err each (one TAP line a row). */
__attribute__((unused)) static void fx_expect_errs(const fx_err_case_t *t, size_t n)
{
    for (size_t k = 0; k < n; k++) fx_expect_err(t[k].blk, t[k].nin, t[k].w, t[k].st, t[k].msg, NULL);
}

/* ------------------------------------------------------ simulations logged */

#define TL_NLOG 4096   /* output points kept */
#define TL_NSIG 3      /* logged signals kept at each */

/* What a simulation logged at each output point: the time, the first TL_NSIG
 * logged signals (NAN past the model's) and the first state (NAN without). */
typedef struct {
    int n, nsig;
    int64_t nx;
    double t[TL_NLOG], y[TL_NLOG][TL_NSIG], x[TL_NLOG];
} tl_rec_t;

/* jg_sim_run's callback into a tl_rec_t; stops the run when it is full. */
__attribute__((unused)) static int tl_record(double t, const double *x, const double *sig, void *user)
{
    tl_rec_t *r = user;
    if (r->n >= TL_NLOG) return 1;
    r->t[r->n] = t;
    for (int k = 0; k < TL_NSIG; k++) r->y[r->n][k] = k < r->nsig && sig ? sig[k] : NAN;
    r->x[r->n] = r->nx && x ? x[0] : NAN;
    r->n++;
    return 0;
}

/* Parse (JSON text as is), compile and simulate with o to o->tstop, logging
 * into r (cleared first); the run's statistics into ss when not NULL.  The
 * status; the message in err. */
__attribute__((unused)) static jg_status_t tl_simulate(const char *json, const jg_sim_opts_t *o, tl_rec_t *r,
                                                       jg_sim_stats_t *ss, jg_error_t *err)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_sim_t *s = NULL;
    memset(r, 0, sizeof *r);
    jg_status_t st = jg_model_parse(json, "<test>", &m, err);
    if (!st) st = jg_program_compile(m, &p, err);
    if (!st) st = jg_sim_create(p, o, &s, err);
    if (!st) {
        r->nsig = (int)jg_sim_nlogged(s);
        r->nx = jg_program_nstates(p);
        st = jg_sim_run(s, o->tstop, tl_record, r, err);
    }
    if (!st && ss) jg_sim_stats(s, ss);
    jg_sim_free(s);
    jg_program_free(p);
    jg_model_free(m);
    return st;
}

/* ROBER, Robertson's chemical kinetics (Test Set for IVP Solvers, Mazzia et
 * al.; docs/references.md), as a solver right-hand side: the stiff solvers'
 * reference problem. */
__attribute__((unused)) static int tl_rober_f(double t, const double *y, double *dy, void *u)
{
    (void)t, (void)u;
    dy[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    dy[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1];
    dy[2] = 3e7 * y[1] * y[1];
    return 0;
}

/* The random diagram of o (lib/gen, the caller frees it); a generator failure
 * ends the test with "Bail out!". */
__attribute__((unused)) static char *fx_gen_text(const jg_gen_random_opts_t *o, jg_gen_random_info_t *info)
{
    char *text = NULL;
    jg_error_t err;
    if (jg_gen_random(o, &text, info, &err)) {
        printf("Bail out! generator: %s\n", err.msg);
        exit(1);
    }
    return text;
}

/* The random diagram of o (fx_gen_text) parsed (named "<gen>") and compiled:
 * the status (message in err), the model and the program in *m and *p (NULL
 * where not made; the caller frees both). */
__attribute__((unused)) static jg_status_t fx_gen_program(const jg_gen_random_opts_t *o, jg_model_t **m,
                                                          jg_program_t **p, jg_error_t *err)
{
    char *text = fx_gen_text(o, NULL);
    *m = NULL;
    *p = NULL;
    jg_error_clear(err);
    jg_status_t st = jg_model_parse(text, "<gen>", m, err);
    if (!st) st = jg_program_compile(*m, p, err);
    free(text);
    return st;
}

/* The options of random diagram seed (1, 2, ...) in the schedule the graph
 * tests share: 5 to 64 blocks, vectors on odd seeds, algebraic loops unless
 * seed % 3 == 0, subsystems nested seed % 3 deep. */
__attribute__((unused)) static void fx_random_opts(jg_gen_random_opts_t *o, int seed)
{
    jg_gen_random_defaults(o, (uint64_t)seed, 5 + (seed * 37) % 60);
    o->vectors = seed % 2;
    o->loops = seed % 3 != 0;
    o->max_depth = seed % 3;
}

/* One TAP line named name: A, B, C, D of the model json after strategy spec
 * (time limit tlim seconds) equal the matrix method's to 1e-12. */
__attribute__((unused)) static void fx_matrix_agrees(const char *name, const char *json, const char *spec,
                                                     double tlim)
{
    fx_t f;
    jg_status_t st = fx_load(&f, json, NULL);
    jg_graph_strategy_t *s = NULL;
    jg_lin_sys_t *a = NULL, *m = NULL;
    if (!st) st = jg_graph_strategy_parse(spec, &s, &f.err);
    if (!st) jg_graph_strategy_set_time_limit(s, tlim);
    if (!st) st = jg_lin_run_strategy(f.l, s, &a, NULL, &f.err);
    if (!st) st = jg_lin_run(f.l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &m, NULL, &f.err);
    const char *which = "";
    double d = st ? 1 : jg_lin_sys_diff(a, m, &which);
    tap_ok(!st && d < 1e-12, "%s: A, B, C, D after %s equal the matrix method's (diff %.3g %s)", name, spec, d,
           which ? which : "");
    if (st) printf("#   %s\n", f.err.msg);
    jg_lin_sys_free(a);
    jg_lin_sys_free(m);
    jg_graph_strategy_free(s);
    fx_unload(&f);
}

/* Every linearization path, each to be held to the others. */
__attribute__((unused)) static const struct {
    jg_lin_method_t m;
    jg_graph_reduce_t r;
    const char *name;
} paths[] = {{JG_LIN_GRAPH, JG_GRAPH_REDUCE_NONE, "graph/none"},
             {JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, "graph/markowitz"},
             {JG_LIN_GRAPH, JG_GRAPH_REDUCE_FULL, "graph/full"},
             {JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, "matrix"},
             {JG_LIN_PERTURB, JG_GRAPH_REDUCE_NONE, "perturb"}};
#define NPATHS (int)(sizeof paths / sizeof *paths)

#endif
