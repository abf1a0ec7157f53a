/* lib/batch: the points table (listed points, grid order, snapshots), the
 * engine's results against one-by-one jg_lin_run (bit for bit, for 1, 2, 3 and
 * 7 threads) and against hand-derived Jacobians, parameters (compiled per
 * combination; unknown and structure-changing ones refused), failing points
 * among good ones, a rank's share, points handed out during the run (the
 * MPI ranks' feed: random chunks, none yet, none at all, a failing feed), a
 * sink that stops the run, bad files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/batch.h"
#include "batch/batch_impl.h"
#include "testlib.h"

/* x' = u - K x^3, y = x, x(0) = x0 (workspace K, x0); a Constant of width N
 * into a Terminator (N changes the structure, nothing else).  At x:
 * A = -3 K x^2, B = 1, C = 1, D = 0. */
static const char cubic[] =
    "{'name':'cubic','parameters':{'K':2,'x0':1,'N':1},'blocks':["
    "{'name':'In1','type':'Inport','Port':1},{'name':'S','type':'Sum','Inputs':'+-'},"
    "{'name':'X','type':'Integrator','InitialCondition':'x0'},"
    "{'name':'P','type':'Product','Inputs':'***'},{'name':'G','type':'Gain','Gain':'K'},"
    "{'name':'C','type':'Constant','Value':'ones(1,N)'},{'name':'T','type':'Terminator'},"
    "{'name':'Out1','type':'Outport','Port':1}],"
    "'lines':[{'src':'In1:1','dst':'S:1'},{'src':'G:1','dst':'S:2'},{'src':'S:1','dst':'X:1'},"
    "{'src':'X:1','dst':['P:1','P:2','P:3','Out1:1']},{'src':'P:1','dst':'G:1'},"
    "{'src':'C:1','dst':'T:1'}]}";

/* v1 = u + p v1 + v2, v2 = -v1 (tests/test_graph_guard.c): D = 1 / (2 - p),
 * singular at p = 2; at p = 1 the elimination's pivot 1 - p is singular and
 * the run falls back to the unreduced graph. */
static const char loopm[] = TL_MODEL_PIVOT_LOOP;

static char dir[512];

static const char *tmpfile_with(const char *name, const char *text)
{
    static char path[4][1024];
    static int at;
    char *p = path[at++ % 4];
    snprintf(p, 1024, "%s/%s", dir, name);
    if (tl_write_file(p, text)) tap_ok(0, "write %s", p);
    return p;
}

/* ------------------------------------------------------------ a sink */

/* Every delivered result flattened: k, ok, the values, then A, B, C, D as
 * dense column-major doubles (bit patterns compared with memcmp). */
typedef struct {
    int64_t n, cap;
    int64_t *k;
    int *ok;
    double **data;
    size_t *len;
    char **error;
    int nvals;
    int64_t stop_at;   /* >= 0: return 1 at this k */
} rec_t;

static size_t dense_len(const jg_lin_sys_t *s)
{
    return (size_t)(s->nx * s->nx + s->nx * s->nu + s->ny * s->nx + s->ny * s->nu);
}

static void put_dense(double *d, const cs_dl *A)
{
    for (int64_t j = 0; j < A->n; j++)
        for (int64_t k = A->p[j]; k < A->p[j + 1]; k++) d[j * A->m + A->i[k]] = A->x[k];
}

static double *flatten(const jg_lin_sys_t *s, size_t *len)
{
    size_t n = dense_len(s);
    double *d = calloc(n + 1, sizeof(double));
    double *at = d;
    put_dense(at, s->A);
    at += s->nx * s->nx;
    put_dense(at, s->B);
    at += s->nx * s->nu;
    put_dense(at, s->C);
    at += s->ny * s->nx;
    put_dense(at, s->D);
    *len = n;
    return d;
}

static int rec_sink(void *ctx, int64_t k, const double *vals, const jg_lin_sys_t *sys, const char *error)
{
    rec_t *r = ctx;
    if (r->stop_at >= 0 && k == r->stop_at) return 1;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->k = realloc(r->k, sizeof(int64_t) * (size_t)r->cap);
        r->ok = realloc(r->ok, sizeof(int) * (size_t)r->cap);
        r->data = realloc(r->data, sizeof(double *) * (size_t)r->cap);
        r->len = realloc(r->len, sizeof(size_t) * (size_t)r->cap);
        r->error = realloc(r->error, sizeof(char *) * (size_t)r->cap);
    }
    int64_t i = r->n++;
    r->k[i] = k;
    r->ok[i] = sys != NULL && !error;
    r->error[i] = error ? strdup(error) : NULL;
    size_t len = 0;
    double *m = sys ? flatten(sys, &len) : NULL;
    r->len[i] = (size_t)r->nvals + len;
    r->data[i] = malloc(sizeof(double) * (r->len[i] + 1));
    memcpy(r->data[i], vals, sizeof(double) * (size_t)r->nvals);
    if (m) memcpy(r->data[i] + r->nvals, m, sizeof(double) * len);
    free(m);
    return 0;
}

static void rec_free(rec_t *r)
{
    for (int64_t i = 0; i < r->n; i++) {
        free(r->data[i]);
        free(r->error[i]);
    }
    free(r->k);
    free(r->ok);
    free(r->data);
    free(r->len);
    free(r->error);
    memset(r, 0, sizeof *r);
}

/* a and b hold the same results, bit for bit */
static int rec_same(const rec_t *a, const rec_t *b)
{
    if (a->n != b->n) return 0;
    for (int64_t i = 0; i < a->n; i++) {
        if (a->k[i] != b->k[i] || a->ok[i] != b->ok[i] || a->len[i] != b->len[i]) return 0;
        if (memcmp(a->data[i], b->data[i], sizeof(double) * a->len[i])) {
            for (size_t j = 0; j < a->len[i]; j++)
                if (memcmp(&a->data[i][j], &b->data[i][j], sizeof(double)))
                    printf("# result %lld entry %zu: %.17g != %.17g\n", (long long)i, j, a->data[i][j],
                           b->data[i][j]);
            return 0;
        }
        if (!a->ok[i] && strcmp(a->error[i], b->error[i])) return 0;
    }
    return 1;
}

typedef struct {
    jg_model_t *m;
    jg_program_t *p;
    const char *path;
} mod_t;

static int mod_load(mod_t *M, const char *name, const char *json)
{
    jg_error_t err = {0};
    M->path = strdup(tmpfile_with(name, q(json)));
    M->m = NULL;
    M->p = NULL;
    if (jg_import_load(M->path, NULL, &M->m, &err) || jg_program_compile(M->m, &M->p, &err)) {
        tap_ok(0, "model %s: %s", name, err.msg);
        return -1;
    }
    return 0;
}

static void mod_free(mod_t *M)
{
    free((char *)M->path);
    jg_program_free(M->p);
    jg_model_free(M->m);
}

static jg_status_t run(const mod_t *M, const jg_batch_points_t *P, int jobs, rec_t *r, jg_error_t *err,
                       jg_batch_opts_t *extra)
{
    jg_batch_opts_t o = extra ? *extra : (jg_batch_opts_t){.reduce = JG_GRAPH_REDUCE_MARKOWITZ};
    o.jobs = jobs;
    o.model_path = M->path;
    memset(r, 0, sizeof *r);
    r->nvals = jg_batch_points_nvals(P);
    r->stop_at = -1;
    jg_batch_stats_t st;
    return jg_batch_run(M->p, P, &o, rec_sink, r, &st, err);
}

/* ------------------------------------------------------------ tests */

static void test_table(const mod_t *M)
{
    jg_error_t err = {0};
    jg_batch_points_t *P = NULL;
    const char *f = tmpfile_with("t.json",
                                 q("{'grid':{'K':[1,2,3]},'points':[{'t':0.5,'states':{'X':4}},"
                                   "{'inputs':{'In1':-1},'parameters':{'x0':3}}]}"));
    jg_status_t st = jg_batch_points_read(f, M->p, &P, &err);
    tap_ok(!st, "points with a grid read: %s", err.msg);
    if (st) return;
    tap_ok(jg_batch_points_count(P) == 6, "2 points x 3 grid values = %lld points",
           (long long)jg_batch_points_count(P));
    tap_ok(jg_batch_points_nvals(P) == 5 && jg_batch_points_nparams(P) == 2,
           "values t, X, In1, K, x0 (%d, %d parameters)", jg_batch_points_nvals(P),
           jg_batch_points_nparams(P));
    const char *want[5] = {"t", "X", "In1", "K", "x0"};
    int names_ok = 1;
    for (int j = 0; j < 5; j++) names_ok &= !strcmp(jg_batch_points_name(P, j), want[j]);
    tap_ok(names_ok, "value names in order (grid parameters first)");
    /* k = g * 2 + i: the grid outer, the listed points inner */
    int order_ok = 1;
    for (int64_t k = 0; k < 6; k++) {
        double v[5];
        jg_batch_points_values(P, k, v);
        int g = (int)(k / 2), i = (int)(k % 2);
        order_ok &= v[3] == (double)(g + 1);
        order_ok &= i == 0 ? (v[0] == 0.5 && v[1] == 4 && v[2] == 0 && isnan(v[4]))
                           : (v[0] == 0 && v[1] == 1 && v[2] == -1 && v[4] == 3);
    }
    tap_ok(order_ok, "point k is grid value k / 2 and listed point k %% 2, defaults filled");
    double at[2] = {1, 2};
    st = jg_batch_points_set_times(P, 2, at, &err);
    tap_ok(!st && jg_batch_points_count(P) == 12, "snapshots: 2 times make 12 points");
    double v[5];
    jg_batch_points_values(P, 3, v);
    tap_ok(v[0] == 2 && v[1] == 1, "snapshot point 3: time 2 of listed point 1");
    tap_ok(jg_batch_points_values(P, 12, v) == -1, "values out of range refused");
    double bad[1] = {0.1};
    st = jg_batch_points_set_times(P, 1, bad, &err);
    tap_ok(st == JG_ARG && strstr(err.msg, "point 0") && strstr(err.msg, "before"),
           "a snapshot before a point's t refused: %s", err.msg);
    jg_batch_points_free(P);
}

static void expect_bad(const mod_t *M, const char *text, jg_status_t want, const char *const *frags,
                       const char *what)
{
    jg_error_t err = {0};
    jg_batch_points_t *P = NULL;
    const char *f = tmpfile_with("bad.json", text);
    jg_status_t st = jg_batch_points_read(f, M->p, &P, &err);
    int ok = st == want && !P && strstr(err.msg, "bad.json");
    for (int k = 0; frags[k]; k++) ok &= strstr(err.msg, frags[k]) != NULL;
    tap_ok(ok, "%s: %s", what, err.msg);
    jg_batch_points_free(P);
}

static void test_bad_files(const mod_t *M)
{
    expect_bad(M, "{\"points\": [{\"t\": 1},\n {\"states\": }]}", JG_PARSE,
               (const char *const[]){"bad.json:2:", NULL}, "malformed JSON: file:line:col");
    expect_bad(M, q("{'points':[{'t':1},{'states':{'Nope':1}}]}"), JG_ARG,
               (const char *const[]){"point 1", "unknown state \"Nope\"", NULL},
               "unknown state: file, point, entry");
    expect_bad(M, q("{'points':[{'inputs':{'In9':1}}]}"), JG_ARG,
               (const char *const[]){"point 0", "unknown input \"In9\"", NULL}, "unknown input");
    expect_bad(M, q("{'points':[{'states':{'X':[1,2]}}]}"), JG_ARG,
               (const char *const[]){"point 0", "state \"X\"", NULL}, "wrong number of values");
    expect_bad(M, q("{'points':[{'tt':1}]}"), JG_ARG,
               (const char *const[]){"point 0", "unknown key \"tt\"", NULL}, "unknown key of a point");
    expect_bad(M, q("{'points':[{'parameters':{'K':'a'}}]}"), JG_ARG,
               (const char *const[]){"point 0", "parameter \"K\"", NULL}, "parameter not a number");
    expect_bad(M, q("{'grid':{'K':[]}}"), JG_ARG, (const char *const[]){"grid", "\"K\"", NULL},
               "empty grid values");
    expect_bad(M, q("{'grid':{'K':[1,'x']}}"), JG_ARG,
               (const char *const[]){"grid", "element 2", NULL}, "grid value not a number");
    expect_bad(M, q("{'grid':{'K':[1]},'points':[{'parameters':{'K':2}}]}"), JG_ARG,
               (const char *const[]){"point 0", "also in the grid", NULL}, "parameter in grid and point");
    expect_bad(M, q("{'pts':[]}"), JG_ARG, (const char *const[]){"unknown key \"pts\"", NULL},
               "unknown top-level key");
    expect_bad(M, q("{'points':[]}"), JG_ARG, (const char *const[]){"non-empty", NULL}, "no points");
    expect_bad(M, "[1]", JG_ARG, (const char *const[]){"expected an object", NULL}, "not an object");
}

/* The batch against one jg_lin_t run point by point (every point from the
 * default operating point), bit for bit, and against A = -3 K x^2. */
static void test_bits(const mod_t *M)
{
    char text[8192];
    int n = snprintf(text, sizeof text, "{\"points\": [");
    for (int k = 0; k < 40; k++)
        n += snprintf(text + n, sizeof text - n, "%s{\"t\": %g, \"states\": {\"X\": %.17g}, "
                      "\"inputs\": {\"In1\": %g}}", k ? "," : "", 0.1 * k, 0.3 * k - 5.0 + 1.0 / 3, 0.5 * k);
    snprintf(text + n, sizeof text - n, "]}");
    jg_error_t err = {0};
    jg_batch_points_t *P = NULL;
    if (jg_batch_points_parse(text, "bits", M->p, &P, &err)) {
        tap_ok(0, "bits points: %s", err.msg);
        return;
    }
    /* the reference: one linearizer, point after point */
    rec_t ref = {.nvals = jg_batch_points_nvals(P), .stop_at = -1};
    jg_lin_t *l = NULL;
    jg_status_t st = jg_lin_create(M->p, NULL, &l, &err);
    double *x0 = malloc(sizeof(double) * 2);
    memcpy(x0, jg_lin_states(l), sizeof(double));
    int hand = 1;
    for (int64_t k = 0; !st && k < 40; k++) {
        double v[3];
        jg_batch_points_values(P, k, v);
        jg_lin_set_time(l, v[0]);
        jg_lin_states(l)[0] = v[1];
        jg_lin_inputs(l)[0] = v[2];
        jg_lin_sys_t *s = NULL;
        st = jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &err);
        if (st) break;
        rec_sink(&ref, k, v, s, NULL);
        double a = fx_entry(s->A, 0, 0), want = -3.0 * 2.0 * v[1] * v[1];
        hand &= fabs(a - want) <= 1e-13 * fabs(want) && fx_entry(s->B, 0, 0) == 1 &&
                fx_entry(s->C, 0, 0) == 1 && s->D->p[1] == 0;
        jg_lin_sys_free(s);
    }
    tap_ok(!st, "reference runs: %s", err.msg);
    tap_ok(hand, "reference A = -3 K x^2, B = C = 1, D = 0");
    free(x0);
    jg_lin_free(l);
    const int jobs[4] = {1, 2, 3, 7};
    for (int j = 0; j < 4; j++) {
        rec_t r;
        st = run(M, P, jobs[j], &r, &err, NULL);
        tap_ok(!st && r.n == 40, "batch with %d threads: %lld results: %s", jobs[j], (long long)r.n,
               err.msg);
        int inorder = 1;
        for (int64_t i = 0; i < r.n; i++) inorder &= r.k[i] == i;
        tap_ok(inorder, "%d threads: delivered in input order", jobs[j]);
        tap_ok(rec_same(&r, &ref), "%d threads: bit for bit the one-by-one jg_lin_run results", jobs[j]);
        rec_free(&r);
    }
    /* a rank's share: the odd points, in order, the same bits */
    rec_t r;
    jg_batch_opts_t o = {.nranks = 2, .rank = 1, .begin = 3, .end = 30, .reduce = JG_GRAPH_REDUCE_MARKOWITZ};
    st = run(M, P, 2, &r, &err, &o);
    int share = !st && r.n == 14;
    for (int64_t i = 0; share && i < r.n; i++) {
        share &= r.k[i] == 3 + 2 * i;
        share &= !memcmp(r.data[i], ref.data[r.k[i]], sizeof(double) * ref.nvals);
    }
    tap_ok(share, "rank 1 of 2 over [3, 30): the odd points 3..29 in order");
    rec_free(&r);
    /* the matrix method and perturbation through the engine */
    for (int m = 1; m < 3; m++) {
        jg_batch_opts_t om = {.method = (jg_lin_method_t)m};
        rec_t a, b;
        jg_status_t s1 = run(M, P, 1, &a, &err, &om), s2 = run(M, P, 3, &b, &err, &om);
        tap_ok(!s1 && !s2 && a.n == 40 && rec_same(&a, &b), "method %s: 1 and 3 threads agree",
               jg_lin_method_name((jg_lin_method_t)m));
        rec_free(&a);
        rec_free(&b);
    }
    /* a sink that stops */
    memset(&r, 0, sizeof r);
    r.nvals = jg_batch_points_nvals(P);
    r.stop_at = 17;
    jg_batch_opts_t os = {.jobs = 2};
    st = jg_batch_run(M->p, P, &os, rec_sink, &r, NULL, &err);
    tap_ok(st == JG_IO && r.n == 17 && strstr(err.msg, "17"), "a sink that stops at 17: %s", err.msg);
    rec_free(&r);
    rec_free(&ref);
    jg_batch_points_free(P);
}

/* A feed as an MPI rank sees one: the points k % 3 != 1 below end, in
 * chunks of 1..5, "none yet" at random when the engine does not wait, a
 * failure after fail_after points (-1: never). */
typedef struct {
    uint64_t rng;
    int64_t next, end, given, fail_after;
    int bad;     /* the engine broke the feed's contract */
} feed_t;

static int64_t feed_take(void *ctx, int64_t *ks, int64_t have, int64_t max, int wait, jg_error_t *err)
{
    feed_t *f = ctx;
    if (have != f->given) f->bad = 1;
    if (f->fail_after >= 0 && f->given >= f->fail_after)
        return jg_error_set(err, JG_IO, "the feed failed after %lld points", (long long)f->given), -2;
    if (!wait && tl_xorshift(&f->rng) % 3 == 0) return 0;
    int64_t n = 0, want = 1 + (int64_t)(tl_xorshift(&f->rng) % 5);
    for (; f->next < f->end && n < want && n < max; f->next++)
        if (f->next % 3 != 1) ks[have + n++] = f->next;
    f->given += n;
    return n ? n : -1;
}

static void test_fed(const mod_t *M)
{
    char text[16384];
    int n = snprintf(text, sizeof text, "{\"points\": [");
    for (int k = 0; k < 100; k++)
        n += snprintf(text + n, sizeof text - n, "%s{\"t\": %g, \"states\": {\"X\": %.17g}}", k ? "," : "",
                      0.1 * k, 0.05 * k - 2.0);
    snprintf(text + n, sizeof text - n, "]}");
    jg_error_t err = {0};
    jg_batch_points_t *P = NULL;
    if (jg_batch_points_parse(text, "fed", M->p, &P, &err)) {
        tap_ok(0, "fed points: %s", err.msg);
        return;
    }
    rec_t ref;
    jg_status_t st = run(M, P, 1, &ref, &err, NULL);
    tap_ok(!st && ref.n == 100, "fed: the reference run: %s", err.msg);
    const int jobs[4] = {1, 2, 3, 7};
    for (int j = 0; !st && j < 4; j++)
        for (int64_t end = 0; end <= 100; end += 50) {   /* none at all, half, all */
            feed_t f = {.rng = 0x9E3779B97F4A7C15ull + (uint64_t)(j * 101 + end), .end = end, .fail_after = -1};
            jg__batch_feed_t feed = {feed_take, &f, 1 + j * 5};
            jg_batch_opts_t o = {.jobs = jobs[j], .reduce = JG_GRAPH_REDUCE_MARKOWITZ};
            rec_t r = {.nvals = jg_batch_points_nvals(P), .stop_at = -1};
            jg_batch_stats_t bs;
            jg_status_t s = jg__batch_run_fed(M->p, P, &o, &feed, rec_sink, &r, &bs, &err);
            int same = !s && !f.bad && r.n == bs.npoints && r.n == f.given;
            int64_t want = 0;
            for (int64_t i = 0; same && i < r.n; i++, want++) {
                while (want % 3 == 1) want++;
                same &= r.k[i] == want && r.len[i] == ref.len[want] &&
                        !memcmp(r.data[i], ref.data[want], sizeof(double) * r.len[i]);
            }
            int64_t expect = 0;
            for (int64_t k = 0; k < end; k++) expect += k % 3 != 1;
            same &= r.n == expect;
            tap_ok(same, "fed, %d threads, points below %lld: %lld results in order, bit for bit: %s",
                   jobs[j], (long long)end, (long long)r.n, s ? err.msg : "");
            rec_free(&r);
        }
    /* a feed that fails: the run stops with its message, nothing hangs */
    for (int j = 0; !st && j < 4; j++) {
        feed_t f = {.rng = 7u + (uint64_t)j, .end = 100, .fail_after = 30};
        jg__batch_feed_t feed = {feed_take, &f, 4};
        jg_batch_opts_t o = {.jobs = jobs[j]};
        rec_t r = {.nvals = jg_batch_points_nvals(P), .stop_at = -1};
        jg_status_t s = jg__batch_run_fed(M->p, P, &o, &feed, rec_sink, &r, NULL, &err);
        tap_ok(s == JG_IO && strstr(err.msg, "the feed failed after") && r.n <= f.given,
               "a failing feed, %d threads: %s (%lld delivered)", jobs[j], err.msg, (long long)r.n);
        rec_free(&r);
    }
    rec_free(&ref);
    jg_batch_points_free(P);
}

/* A grid over K: every point's A from its own K; threads agree. */
static void test_grid(const mod_t *M)
{
    jg_error_t err = {0};
    jg_batch_points_t *P = NULL;
    const char *text = q("{'grid':{'K':[0.5,1,4]},'points':[{'states':{'X':2}},{'states':{'X':-1}},"
                         "{'parameters':{'x0':3}}]}");
    if (jg_batch_points_parse(text, "grid", M->p, &P, &err)) {
        tap_ok(0, "grid points: %s", err.msg);
        return;
    }
    rec_t a, b;
    jg_status_t s1 = run(M, P, 1, &a, &err, NULL);
    tap_ok(!s1 && a.n == 9, "grid run: 9 results: %s", err.msg);
    jg_status_t s2 = run(M, P, 3, &b, &err, NULL);
    tap_ok(!s2 && rec_same(&a, &b), "grid: 1 and 3 threads bit for bit");
    const double K[3] = {0.5, 1, 4}, X[3] = {2, -1, 3};
    int hand = a.n == 9;
    for (int64_t k = 0; hand && k < 9; k++) {
        const double *d = a.data[k];
        double want = -3 * K[k / 3] * X[k % 3] * X[k % 3];
        /* values t, X, In1, K, x0; then A */
        hand &= d[3] == K[k / 3] && d[1] == X[k % 3] && fabs(d[5] - want) <= 1e-13 * fabs(want);
    }
    tap_ok(hand, "grid: A = -3 K x^2 with each point's K (x0 = 3 from the parameter)");
    rec_free(&a);
    rec_free(&b);
    jg_batch_points_free(P);

    /* an unknown parameter, a structure-changing one: refused before any point */
    const char *bad[2] = {q("{'grid':{'Q':[1,2]}}"), NULL};
    char t2[256];
    snprintf(t2, sizeof t2, "%s", bad[0]);
    if (!jg_batch_points_parse(t2, "unk", M->p, &P, &err)) {
        rec_t r;
        jg_status_t st = run(M, P, 2, &r, &err, NULL);
        tap_ok(st == JG_ARG && r.n == 0 && strstr(err.msg, "unknown parameter \"Q\""),
               "unknown parameter refused: %s", err.msg);
        rec_free(&r);
        jg_batch_points_free(P);
    }
    if (!jg_batch_points_parse(q("{'grid':{'N':[1,2]}}"), "n", M->p, &P, &err)) {
        rec_t r;
        jg_status_t st = run(M, P, 2, &r, &err, NULL);
        tap_ok(st == JG_ARG && r.n == 0 && strstr(err.msg, "N = 2") && strstr(err.msg, "'C'") &&
                   strstr(err.msg, "structure"),
               "structure-changing parameter refused, naming it and the block: %s", err.msg);
        rec_free(&r);
        jg_batch_points_free(P);
    }
}

/* Failing points among good ones: delivered with their error, the others
 * right, the same for any number of threads. */
static void test_failing(const mod_t *L)
{
    jg_error_t err = {0};
    jg_batch_points_t *P = NULL;
    const double ps[8] = {0, 0.5, 2, 1 - 1e-10, 1, 2, -3, 0.25};
    char text[2048];
    int n = snprintf(text, sizeof text, "{\"points\": [");
    for (int k = 0; k < 8; k++)
        n += snprintf(text + n, sizeof text - n, "%s{\"inputs\": {\"P\": %.17g}}", k ? "," : "", ps[k]);
    snprintf(text + n, sizeof text - n, "]}");
    if (jg_batch_points_parse(text, "fail", L->p, &P, &err)) {
        tap_ok(0, "failing points: %s", err.msg);
        return;
    }
    rec_t a, b;
    jg_status_t s1 = run(L, P, 1, &a, &err, NULL), s2 = run(L, P, 3, &b, &err, NULL);
    tap_ok(!s1 && !s2 && a.n == 8, "a run with failing points completes: %s", err.msg);
    tap_ok(rec_same(&a, &b), "failing points: 1 and 3 threads agree");
    int good = a.n == 8;
    for (int k = 0; good && k < 8; k++) {
        if (ps[k] == 2) {
            good &= !a.ok[k] && a.error[k] && strstr(a.error[k], "singular") != NULL;
            continue;
        }
        /* values t, P's In1, P; D(0, 0) is the first entry of D after A, B, C
         * (nx = 0, two inputs, two outputs) */
        double d = a.data[k][a.nvals + 0];
        good &= a.ok[k] && fabs(d - 1 / (2 - ps[k])) <= 1e-9;
    }
    tap_ok(good, "p = 2 fails as a singular loop, the others give D = 1 / (2 - p)");
    rec_free(&a);
    rec_free(&b);
    jg_batch_points_free(P);
}

/* Snapshots: from x(0) = 1 with u = 0, x(t) = 1 / sqrt(1 + 2 K t). */
static void test_snapshots(const mod_t *M)
{
    jg_error_t err = {0};
    jg_batch_points_t *P = NULL;
    double at[2] = {0.5, 1};
    jg_status_t st = jg_batch_points_default(M->p, &P, &err);
    if (!st) st = jg_batch_points_set_times(P, 2, at, &err);
    tap_ok(!st && jg_batch_points_count(P) == 2, "default point with 2 snapshot times");
    if (st) return;
    jg_batch_opts_t o = {0};
    o.sim.so.rtol = 1e-10;
    o.sim.so.atol = 1e-12;
    rec_t a, b;
    jg_status_t s1 = run(M, P, 1, &a, &err, &o), s2 = run(M, P, 2, &b, &err, &o);
    tap_ok(!s1 && !s2 && a.n == 2 && rec_same(&a, &b), "snapshots: 1 and 2 threads agree: %s", err.msg);
    int ok = a.n == 2;
    for (int j = 0; ok && j < 2; j++) {
        double x = 1 / sqrt(1 + 4 * at[j]);
        ok &= a.data[j][0] == at[j] && fabs(a.data[j][1] - x) < 1e-7 &&
              fabs(a.data[j][a.nvals] + 6 * x * x) < 1e-6;
    }
    tap_ok(ok, "snapshot state 1 / sqrt(1 + 2 K t) and A = -3 K x^2 there");
    rec_free(&a);
    rec_free(&b);
    jg_batch_points_free(P);
}

int main(void)
{
    if (!tl_tmpdir(dir, sizeof dir, "test_batch")) {
        tap_ok(0, "temporary directory");
        return tap_done();
    }
    mod_t M, L;
    if (!mod_load(&M, "cubic.json", cubic) && !mod_load(&L, "loop.json", loopm)) {
        test_table(&M);
        test_bad_files(&M);
        test_bits(&M);
        test_fed(&M);
        test_grid(&M);
        test_failing(&L);
        test_snapshots(&M);
        mod_free(&L);
    }
    mod_free(&M);
    tl_rmtree(dir);
    tap_ok(jg_batch_ncores() >= 1, "ncores %d", jg_batch_ncores());
    return tap_done();
}
