/* test_graph_vector.c -- vector algebraic loops in the vertex elimination:
 * a diagonal pivot block (elementwise blocks) is inverted and applied
 * entry by entry, so the eliminated graph stays O(w); a non-diagonal pivot
 * wider than the dense limit is left to the LFT.  Results are checked
 * against y = u / (1 - g) computed here in long double, and against the
 * matrix method. */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

typedef struct {
    jg_model_t *m;
    jg_program_t *p;
    jg_lin_t *l;
    jg_error_t err;
} vx_t;

static jg_status_t vx_load(vx_t *v, const char *json)
{
    memset(v, 0, sizeof *v);
    jg_status_t st = jg_model_parse(json, "<test>", &v->m, &v->err);
    if (!st) st = jg_program_compile(v->m, &v->p, &v->err);
    if (!st) st = jg_lin_create(v->p, NULL, &v->l, &v->err);
    return st;
}

static void vx_unload(vx_t *v)
{
    jg_lin_free(v->l);
    jg_program_free(v->p);
    jg_model_free(v->m);
}

/* y = u + G y with Inport width w; gain is the Gain block's parameter text
 * and mult its Multiplication (NULL: elementwise).  Returns a malloc'd JSON. */
static char *loop_model(int64_t w, const char *gain, const char *mult)
{
    size_t n = strlen(gain) + 512;
    char *s = malloc(n);
    if (!s) return NULL;
    snprintf(s, n,
             "{\"name\": \"vecloop\", \"blocks\": ["
             "{\"name\": \"In1\", \"type\": \"Inport\", \"Port\": 1, \"PortDimensions\": %lld},"
             "{\"name\": \"S\", \"type\": \"Sum\", \"Inputs\": \"++\"},"
             "{\"name\": \"G\", \"type\": \"Gain\", \"Gain\": \"%s\"%s%s%s},"
             "{\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1}],"
             "\"lines\": [{\"src\": \"In1:1\", \"dst\": \"S:1\"},"
             "{\"src\": \"S:1\", \"dst\": [\"G:1\", \"Out1:1\"]},"
             "{\"src\": \"G:1\", \"dst\": \"S:2\"}]}",
             (long long)w, gain, mult ? ", \"Multiplication\": \"" : "", mult ? mult : "",
             mult ? "\"" : "");
    return s;
}

/* "[g_1 g_2 ...]" with g_i = gi(i), in %.17g. */
static char *vec_text(int64_t w, double (*gi)(int64_t))
{
    size_t n = (size_t)w * 26 + 4, k = 0;
    char *s = malloc(n);
    if (!s) return NULL;
    s[k++] = '[';
    for (int64_t i = 0; i < w; i++) k += (size_t)snprintf(s + k, n - k, "%s%.17g", i ? " " : "", gi(i));
    s[k++] = ']';
    s[k] = 0;
    return s;
}

static double g_smooth(int64_t i) { return 0.9 * sin(0.37 * (double)i); }
/* one entry of the loop gain at 1 - 1e-9: its scalar pivot is ill-conditioned */
static double g_tiny(int64_t i) { return i == 7 ? 1 - 1e-9 : 0.5; }
static double g_one(int64_t i) { return i == 3 ? 1.0 : 0.25; }

/* Live-edge nonzeros of the reduced graph (what extraction reads). */
static int64_t live_nnz(const jg_graph_t *g)
{
    int64_t nz = 0;
    for (int64_t e = 0; e < jg_graph_nedges(g); e++) {
        jg_edge_info_t ei;
        jg_graph_edge(g, e, &ei);
        if (ei.alive) nz += ei.nnz;
    }
    return nz;
}

static const struct {
    jg_graph_reduce_t r;
    const char *name;
} reds[3] = {{JG_GRAPH_REDUCE_NONE, "none"},
            {JG_GRAPH_REDUCE_MARKOWITZ, "markowitz"},
            {JG_GRAPH_REDUCE_FULL, "full"}};

/* Largest |D_ii (1 - g_i) - 1| and the largest off-diagonal |D_ij|. */
static double diag_err(const cs_dl *D, int64_t w, double (*gi)(int64_t))
{
    long double e = 0;
    for (int64_t j = 0; j < w; j++)
        for (int64_t k = D->p[j]; k < D->p[j + 1]; k++) {
            long double want = D->i[k] == j ? 1.0L / (1.0L - (long double)gi(j)) : 0.0L;
            long double d = fabsl((long double)D->x[k] - want) / fmaxl(1.0L, fabsl(want));
            if (!(d <= e)) e = d;
        }
    return (double)e;
}

/* The width-2000 diagonal loop: every reduction equals the matrix method to
 * 1e-14 and the exact y = u / (1 - g); the eliminated graph holds O(w) values. */
static void test_diagonal(int64_t w, double (*gi)(int64_t), const char *what)
{
    char *gain = vec_text(w, gi), *json = gain ? loop_model(w, gain, NULL) : NULL;
    vx_t v;
    jg_status_t st = json ? vx_load(&v, json) : JG_NOMEM;
    tap_ok(!st, "%s loop of width %lld compiles", what, (long long)w);
    if (st) goto done;
    jg_lin_sys_t *ref = NULL;
    st = jg_lin_run(v.l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &ref, NULL, &v.err);
    tap_ok(!st && ref->ny == w && ref->nu == w, "%s: matrix method", what);
    if (st) goto done;
    double eref = diag_err(ref->D, w, gi);
    tap_ok(eref < 1e-15, "%s: matrix D = diag(1 / (1 - g)) (%.2g)", what, eref);
    for (int r = 0; r < 3; r++) {
        jg_lin_sys_t *s = NULL;
        jg_lin_stats_t ls;
        st = jg_lin_run(v.l, JG_LIN_GRAPH, reds[r].r, &s, &ls, &v.err);
        const char *which = "-";
        double d = st ? INFINITY : jg_lin_sys_diff(s, ref, &which);
        tap_ok(!st && d <= 1e-14, "%s: graph/%s == matrix (%.2g in %s)%s%s", what, reds[r].name, d,
               which, st ? ": " : "", st ? v.err.msg : "");
        tap_ok(!st && diag_err(s->D, w, gi) < 1e-15, "%s: graph/%s D exact", what, reds[r].name);
        jg_lin_sys_free(s);
        const jg_graph_t *g = NULL;
        st = jg_lin_graph(v.l, reds[r].r, &g, &v.err);
        jg_graph_stats_t gs = {0};
        if (!st) jg_graph_stats(g, &gs);
        int64_t nz = st ? -1 : live_nnz(g);
        tap_ok(!st && nz >= 0 && nz < 10 * w && gs.bytes_graph < (size_t)1000 * (size_t)w,
               "%s: graph/%s stays O(w): %lld live nonzeros, %zu graph bytes", what, reds[r].name,
               (long long)nz, gs.bytes_graph);
        if (reds[r].r != JG_GRAPH_REDUCE_NONE)
            tap_ok(!st && gs.eliminated > 0 && (gi == g_tiny ? gs.refused >= 1 : gs.refused == 0),
                   "%s: graph/%s eliminated %lld, refused %lld", what, reds[r].name,
                   (long long)gs.eliminated, (long long)gs.refused);
        st = JG_OK;
    }
    jg_lin_sys_free(ref);
done:
    if (json) vx_unload(&v);
    free(gain);
    free(json);
}

/* A loop gain of 1 in one element: every path reports the singular loop. */
static void test_singular(void)
{
    int64_t w = 100;
    char *gain = vec_text(w, g_one), *json = gain ? loop_model(w, gain, NULL) : NULL;
    vx_t v;
    jg_status_t st = json ? vx_load(&v, json) : JG_NOMEM;
    tap_ok(!st, "singular diagonal loop compiles");
    for (int r = 0; !st && r < 3; r++) {
        jg_lin_sys_t *s = NULL;
        jg_status_t s2 = jg_lin_run(v.l, JG_LIN_GRAPH, reds[r].r, &s, NULL, &v.err);
        tap_ok(s2 == JG_SINGULAR_LOOP && !s, "singular diagonal loop, graph/%s: %s", reds[r].name,
               v.err.msg);
        jg_lin_sys_free(s);
    }
    if (json) vx_unload(&v);
    free(gain);
    free(json);
}

/* A matrix gain K = 0.5 (cyclic shift): the pivot I - K is not diagonal.
 * Up to JG__GRAPH_DENSE_PIVOT_MAX (64) it is inverted densely; wider, the
 * vertex is left to the LFT.  D = (I - K)^-1 = sum_k (K)^k: with the shift
 * P of order w, (I - 0.5 P)^-1 = sum_{k<w} 0.5^k P^k / (1 - 0.5^w). */
static void test_shift(int64_t w)
{
    size_t n = (size_t)(w * w * 4 + w * 2 + 8), k = 0;
    char *gain = malloc(n), *json = NULL;
    if (gain) {
        gain[k++] = '[';
        for (int64_t i = 0; i < w; i++)
            for (int64_t j = 0; j < w; j++)
                k += (size_t)snprintf(gain + k, n - k, "%s%s", j == (i + w - 1) % w ? "0.5" : "0",
                                      j == w - 1 ? (i == w - 1 ? "" : ";") : " ");
        gain[k++] = ']';
        gain[k] = 0;
        json = loop_model(w, gain, "Matrix(K*u)");
    }
    vx_t v;
    jg_status_t st = json ? vx_load(&v, json) : JG_NOMEM;
    tap_ok(!st, "shift loop of width %lld compiles%s%s", (long long)w, st ? ": " : "",
           st ? v.err.msg : "");
    if (st) goto done;
    jg_lin_sys_t *ref = NULL;
    st = jg_lin_run(v.l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &ref, NULL, &v.err);
    long double den = 1.0L - powl(0.5L, (long double)w), e = 0;
    for (int64_t i = 0; !st && i < w; i++)
        for (int64_t j = 0; j < w; j++) {
            int64_t p = ((i - j) % w + w) % w;   /* y_i gets u_{i - p} through p shifts */
            long double want = powl(0.5L, (long double)p) / den;
            e = fmaxl(e, fabsl((long double)fx_entry(ref->D, i, j) - want));
        }
    tap_ok(!st && e < 1e-15, "shift width %lld: matrix D exact (%.2Lg)", (long long)w, e);
    for (int r = 1; !st && r < 3; r++) {
        jg_lin_sys_t *s = NULL;
        jg_status_t s2 = jg_lin_run(v.l, JG_LIN_GRAPH, reds[r].r, &s, NULL, &v.err);
        double d = s2 ? INFINITY : jg_lin_sys_diff(s, ref, NULL);
        tap_ok(!s2 && d < 1e-14, "shift width %lld: graph/%s == matrix (%.2g)", (long long)w,
               reds[r].name, d);
        jg_lin_sys_free(s);
        const jg_graph_t *g = NULL;
        jg_graph_stats_t gs = {0};
        if (!jg_lin_graph(v.l, reds[r].r, &g, &v.err)) jg_graph_stats(g, &gs);
        /* wide: the vertices of the loop stay (refused); narrow: eliminated */
        int wide = w > 64;
        tap_ok(g && (wide ? gs.refused > 0 : gs.refused == 0),
               "shift width %lld: graph/%s %s the dense pivot (refused %lld)", (long long)w,
               reds[r].name, wide ? "leaves to the LFT" : "eliminates", (long long)gs.refused);
    }
    jg_lin_sys_free(ref);
done:
    if (json) vx_unload(&v);
    free(gain);
    free(json);
}

int main(void)
{
    test_diagonal(2000, g_smooth, "diagonal");
    test_diagonal(300, g_tiny, "ill-conditioned entry");
    test_singular();
    test_shift(8);
    test_shift(100);
    return tap_done();
}
