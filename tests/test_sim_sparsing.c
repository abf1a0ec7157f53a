/* Simulating with a sparsing ("Sparsing of Jacobians for real-time simulation
 * of stiff models"): the column grouping for the kept entries
 * (jg_solverjac_color_columns_kept), the solver Jacobian that computes only
 * the kept entries, bit for bit those of the full Jacobian, for every method
 * (jg_solverjac_set_keep), the mask files (jg_io_read_mask) and the linearly
 * implicit Euler run with a list of entries or the automatic choice
 * (jg_sim_opts_t sparsing_*), its statistics and its errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/io.h"
#include "tap.h"
#include "testlib.h"

/* A compressed-column pattern from a dense 0/1 table (row-major, n x n). */
static cs_dl *pattern(int64_t n, const int *dense)
{
    cs_dl *A = cs_dl_spalloc(n, n, n * n + 1, 1, 0);
    int64_t nz = 0;
    for (int64_t j = 0; j < n; j++) {
        A->p[j] = nz;
        for (int64_t i = 0; i < n; i++)
            if (dense[i * n + j]) {
                A->i[nz] = i;
                A->x[nz++] = 1;
            }
    }
    A->p[n] = nz;
    return A;
}

/* entry q of A at (i, j), -1 when absent */
static int64_t at(const cs_dl *A, int64_t i, int64_t j)
{
    for (int64_t q = A->p[j]; q < A->p[j + 1]; q++)
        if (A->i[q] == i) return q;
    return -1;
}

/* The pattern of the kept entries alone (what a naive grouping would color). */
static cs_dl *kept_pattern(const cs_dl *A, const unsigned char *keep)
{
    cs_dl *K = cs_dl_spalloc(A->m, A->n, A->p[A->n] + 1, 1, 0);
    int64_t nz = 0;
    for (int64_t j = 0; j < A->n; j++) {
        K->p[j] = nz;
        for (int64_t q = A->p[j]; q < A->p[j + 1]; q++)
            if (keep[q]) {
                K->i[nz] = A->i[q];
                K->x[nz++] = 1;
            }
    }
    K->p[A->n] = nz;
    return K;
}

/* ---------------------------------------------------------------- coloring */

static void test_coloring_hand(void)
{
    /* J's pattern: rows 0: {0, 1, 2}, 1: {1, 2}, 2: {2} */
    const int d[9] = {1, 1, 1, 0, 1, 1, 0, 0, 1};
    cs_dl *S = pattern(3, d);
    int64_t col[3], ncol = 0, naive[3], nn = 0;
    jg_error_t err;
    unsigned char keep[6];
    memset(keep, 1, sizeof keep);
    keep[at(S, 0, 1)] = 0;   /* drop (0, 1) */
    cs_dl *K = kept_pattern(S, keep);
    /* the kept pattern alone: columns 0 and 1 share no row, both meet 2 */
    jg_status_t st = jg_solverjac_color_columns(K, naive, &nn, &err);
    tap_ok(!st && nn == 2 && naive[0] == naive[1],
           "naive: the kept pattern alone groups columns 0 and 1 (%lld colors)", (long long)nn);
    tap_ok(!jg_solverjac_coloring_valid_kept(S, keep, naive),
           "naive grouping is wrong for the kept entry (0, 0): column 1's dropped (0, 1) adds into it");
    st = jg_solverjac_color_columns_kept(S, keep, col, &ncol, &err);
    tap_ok(!st && ncol == 3 && col[0] != col[1] && jg_solverjac_coloring_valid_kept(S, keep, col),
           "kept: columns 0 and 1 apart, 3 colors, valid");
    /* column 2 dropped whole: it is not perturbed, and 0, 1 still conflict */
    keep[at(S, 0, 2)] = keep[at(S, 1, 2)] = keep[at(S, 2, 2)] = 0;
    st = jg_solverjac_color_columns_kept(S, keep, col, &ncol, &err);
    tap_ok(!st && col[2] == -1 && ncol == 2 && jg_solverjac_coloring_valid_kept(S, keep, col),
           "a column with no kept entry is not colored (-1), %lld colors", (long long)ncol);
    /* (0, 0) dropped as well: only (1, 1) is wanted */
    keep[at(S, 0, 0)] = 0;
    st = jg_solverjac_color_columns_kept(S, keep, col, &ncol, &err);
    tap_ok(!st && ncol == 1 && col[0] == -1 && col[1] == 0,
           "only (1, 1) kept: one color, column 0 not perturbed");
    /* nothing kept at all: no colors */
    unsigned char none[6] = {0};
    st = jg_solverjac_color_columns_kept(S, none, col, &ncol, &err);
    tap_ok(!st && ncol == 0 && col[0] == -1 && col[1] == -1 && col[2] == -1,
           "nothing kept: 0 colors, every column -1");
    /* the validity check's own failure modes */
    int64_t bad[3] = {0, 0, 1};
    tap_ok(!jg_solverjac_coloring_valid_kept(S, NULL, bad) && !jg_solverjac_coloring_valid_kept(NULL, NULL, bad),
           "valid_kept refuses a grouping that shares a row, and a NULL pattern");
    cs_dl_spfree(K);
    cs_dl_spfree(S);
}

/* splitmix64: reproducible random patterns */
static uint64_t rng = 12345;
static uint64_t next_u64(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void test_coloring_random(void)
{
    int all_valid = 1, same_all = 1, fewer_or_equal = 1, naive_wrong = 0;
    jg_error_t err;
    for (int trial = 0; trial < 200; trial++) {
        int64_t n = 5 + (int64_t)(next_u64() % 40);
        int *d = calloc((size_t)(n * n), sizeof(int));
        int dens = 1 + (int)(next_u64() % 30);   /* percent */
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) d[i * n + j] = i == j || (int)(next_u64() % 100) < dens;
        cs_dl *S = pattern(n, d);
        int64_t nz = S->p[n];
        unsigned char *keep = malloc((size_t)nz), *ones = malloc((size_t)nz);
        int drop = (int)(next_u64() % 90);
        for (int64_t q = 0; q < nz; q++) {
            keep[q] = (int)(next_u64() % 100) >= drop;
            ones[q] = 1;
        }
        int64_t *c1 = malloc(sizeof(int64_t) * (size_t)n), *c2 = malloc(sizeof(int64_t) * (size_t)n);
        int64_t *c3 = malloc(sizeof(int64_t) * (size_t)n), n1, n2, n3;
        jg_solverjac_color_columns(S, c1, &n1, &err);
        jg_solverjac_color_columns_kept(S, ones, c2, &n2, &err);
        jg_solverjac_color_columns_kept(S, keep, c3, &n3, &err);
        if (n1 != n2 || memcmp(c1, c2, sizeof(int64_t) * (size_t)n)) same_all = 0;
        if (!jg_solverjac_coloring_valid_kept(S, keep, c3) || !jg_solverjac_coloring_valid(S, c1)) all_valid = 0;
        /* the kept conflicts are a subset of the full ones: a grouping for all
         * of J serves any sparsing, so it never needs more groups than that */
        if (!jg_solverjac_coloring_valid_kept(S, keep, c1)) all_valid = 0;
        if (n3 > n1 + 1) fewer_or_equal = 0;   /* greedy: near, not always below */
        cs_dl *K = kept_pattern(S, keep);
        int64_t nk;
        jg_solverjac_color_columns(K, c2, &nk, &err);
        if (!jg_solverjac_coloring_valid_kept(S, keep, c2)) naive_wrong++;
        cs_dl_spfree(K);
        cs_dl_spfree(S);
        free(d);
        free(keep);
        free(ones);
        free(c1);
        free(c2);
        free(c3);
    }
    tap_ok(same_all, "random patterns: everything kept gives the plain grouping, color for color");
    tap_ok(all_valid, "random patterns and sparsings: every kept grouping is valid (and the full one serves)");
    tap_ok(fewer_or_equal, "random: the kept grouping needs at most one color more than the full one");
    tap_ok(naive_wrong > 20, "random: coloring the kept pattern alone is wrong in %d of 200 cases", naive_wrong);
}

/* ---------------------------------------------------------- solver Jacobian */

/* J = A of the StateSpace: rows 0: {0, 1, 2}, 1: {1, 2}, 2: {2, 3}, 3: {0, 3} */
static const char ss4[] =
    "{'name':'ss4','blocks':[{'name':'P','type':'StateSpace',"
    "'A':[[-2,3,1,0],[0,-1,0.5,0],[0,0,-4,1],[1,0,0,-3]],'B':[[0],[0],[0],[0]],'C':[[1,1,1,1]],"
    "'D':[[0]],'InitialCondition':[1,-2,0.5,3]},{'name':'G','type':'Ground'},"
    "{'name':'Out1','type':'Outport','Port':1}],"
    "'lines':[{'src':'G:1','dst':'P:1'},{'src':'P:1','dst':'Out1:1'}]}";

static const jg_solverjac_method_t methods[4] = {JG_SOLVERJAC_FULL_PERTURBATION, JG_SOLVERJAC_SPARSE_PERTURBATION,
                                                 JG_SOLVERJAC_FULL_ANALYTICAL, JG_SOLVERJAC_SPARSE_ANALYTICAL};

/* Per method: J without the sparsing, then with keep (per entry of the
 * structural pattern, given as (row, col) pairs to drop): kept entries bit
 * for bit, dropped ones zero, f evaluations as announced; then cleared. */
static void check_keep(const char *json, const char *tag, const int64_t *drop, int ndrop, const double *x,
                       int64_t want_fe_sparse, int64_t want_fe_full)
{
    for (int mi = 0; mi < 4; mi++) {
        jg_model_t *m = NULL;
        jg_program_t *p = NULL;
        jg_solverjac_t *sj = NULL;
        jg_error_t err;
        jg_status_t st = jg_model_parse(q(json), "<test>", &m, &err);
        if (!st) st = jg_program_compile(m, &p, &err);
        if (!st) st = jg_solverjac_create(p, methods[mi], NULL, &sj, &err);
        if (st) {
            tap_ok(0, "%s %s: create (%s)", tag, jg_solverjac_method_name(methods[mi]), err.msg);
            jg_program_free(p);
            jg_model_free(m);
            continue;
        }
        const char *mname = jg_solverjac_method_name(jg_solverjac_method(sj));
        const cs_dl *S = jg_solverjac_structure(sj), *P = jg_solverjac_pattern(sj);
        const int64_t n = S->n, nz = S->p[n], nzP = P->p[n];
        cs_dl *J0 = jg_solverjac_alloc(sj), *J1 = jg_solverjac_alloc(sj);
        unsigned char *keep = malloc((size_t)nz + 1);
        memset(keep, 1, (size_t)nz);
        int in_pattern = 1;
        for (int k = 0; k < ndrop; k++) {
            int64_t e = at(S, drop[2 * k], drop[2 * k + 1]);
            if (e < 0) in_pattern = 0;
            else keep[e] = 0;
        }
        int64_t colors0 = jg_solverjac_ncolors(sj);
        st = jg_solverjac_eval(sj, 0, x, NULL, J0, &err);
        jg_solverjac_stats_t a, b;
        if (!st) st = jg_solverjac_set_keep(sj, keep, &err);
        jg_solverjac_get_stats(sj, &a);
        if (!st) st = jg_solverjac_eval(sj, 0, x, NULL, J1, &err);
        jg_solverjac_get_stats(sj, &b);
        int exact = !st && in_pattern, zero = !st;
        for (int64_t j = 0; j < n && !st; j++)
            for (int64_t q = P->p[j]; q < P->p[j + 1]; q++) {
                int64_t e = P == S ? q : at(S, P->i[q], j);
                int kept = e < 0 || keep[e];
                if (kept && e >= 0 && memcmp(&J0->x[q], &J1->x[q], sizeof(double))) exact = 0;
                if (!kept && J1->x[q] != 0) zero = 0;
            }
        int64_t fe = jg_solverjac_fevals_per_jacobian(sj);
        int64_t want = methods[mi] == JG_SOLVERJAC_SPARSE_PERTURBATION ? want_fe_sparse
                       : methods[mi] == JG_SOLVERJAC_FULL_PERTURBATION ? want_fe_full
                                                                      : 0;
        int64_t nkept = 0;
        for (int64_t e = 0; e < nz; e++) nkept += keep[e];
        tap_ok(exact && zero, "%s %s: kept entries equal the full Jacobian's bit for bit, dropped ones are 0%s%s",
               tag, mname, st ? ": " : "", st ? err.msg : "");
        tap_ok(fe == want && b.fevals - a.fevals == fe && jg_solverjac_nkept(sj) == nkept &&
                   jg_solverjac_coloring_valid_kept(S, keep, jg_solverjac_colors(sj)),
               "%s %s: %lld f evaluations per Jacobian (counted %ld), colors %lld -> %lld, "
               "%lld of %lld entries computed",
               tag, mname, (long long)fe, b.fevals - a.fevals, (long long)colors0,
               (long long)jg_solverjac_ncolors(sj), (long long)jg_solverjac_nkept(sj), (long long)nz);
        /* cleared: the full Jacobian and grouping again */
        st = jg_solverjac_set_keep(sj, NULL, &err);
        if (!st) st = jg_solverjac_eval(sj, 0, x, NULL, J1, &err);
        tap_ok(!st && !jg_solverjac_keep(sj) && jg_solverjac_ncolors(sj) == colors0 &&
                   !memcmp(J0->x, J1->x, sizeof(double) * (size_t)nzP) && jg_solverjac_nkept(sj) == nz,
               "%s %s: set_keep(NULL) restores the full Jacobian", tag, mname);
        free(keep);
        cs_dl_spfree(J0);
        cs_dl_spfree(J1);
        jg_solverjac_free(sj);
        jg_program_free(p);
        jg_model_free(m);
    }
}

static void test_solverjac_keep(void)
{
    const double x4[4] = {1, -2, 0.5, 3};
    /* (0, 1) dropped: the kept pattern alone would let columns 0 and 1
     * share a group; 3 colors as without the sparsing */
    const int64_t d1[] = {0, 1};
    check_keep(ss4, "ss4 drop (0,1)", d1, 1, x4, 3, 4);
    /* state 3 explicit too (row and column): column 3 not perturbed */
    const int64_t d2[] = {0, 1, 3, 0, 2, 3, 3, 3};
    check_keep(ss4, "ss4 mixed", d2, 4, x4, 3, 3);
    /* nonlinear (Van der Pol, mu = 1): x1' = x2, x2' = (1 - x1^2) x2 - x1;
     * dropping (1, 0) leaves column 0 with nothing kept */
    const double xv[2] = {1.3, -0.7};
    const int64_t dv[] = {1, 0};
    check_keep(tl_vdp, "vdp drop (1,0)", dv, 1, xv, 1, 1);
    /* bad arguments */
    jg_error_t err;
    tap_ok(jg_solverjac_set_keep(NULL, NULL, &err) == JG_ARG, "set_keep(NULL object) is JG_ARG");
}

/* ------------------------------------------------------------- mask files */

static void test_mask_files(void)
{
    char dir[512], path[600];
    if (!tl_tmpdir(dir, sizeof dir, "jg_mask")) {
        tap_ok(0, "temporary directory");
        return;
    }
    snprintf(path, sizeof path, "%s/mask", dir);
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_error_t err;
    jg_status_t st = jg_model_parse(q(ss4), "<test>", &m, &err);
    if (!st) st = jg_program_compile(m, &p, &err);
    tap_ok(!st && jg_program_nstates(p) == 4, "ss4 compiles (4 states)");
    if (st) return;
    int64_t *pr = NULL, np = -1;
    char text[1024];
    /* indices and names mixed; other members ignored */
    snprintf(text, sizeof text, "{\"model\": \"ss4\", \"drop\": [[0, 1], [\"%s\", \"%s\"], [2, \"%s\"]]}",
             jg_program_state_name(p, 3), jg_program_state_name(p, 0), jg_program_state_name(p, 3));
    tl_write_file(path, text);
    st = jg_io_read_mask(path, p, &pr, &np, &err);
    tap_ok(!st && np == 3 && pr[0] == 0 && pr[1] == 1 && pr[2] == 3 && pr[3] == 0 && pr[4] == 2 && pr[5] == 3,
           "JSON: indices and state names ('%s'), in order", jg_program_state_name(p, 3));
    free(pr);
    tl_write_file(path, "{\"drop\": []}");
    st = jg_io_read_mask(path, p, &pr, &np, &err);
    tap_ok(!st && np == 0, "JSON: an empty list");
    free(pr);
    tl_write_file(path, "%%MatrixMarket matrix coordinate pattern general\n% a comment\n4 4 2\n1 2\n4 1\n");
    st = jg_io_read_mask(path, p, &pr, &np, &err);
    tap_ok(!st && np == 2 && pr[0] == 0 && pr[1] == 1 && pr[2] == 3 && pr[3] == 0,
           "Matrix Market pattern, 1-based");
    free(pr);
    tl_write_file(path, "%%MatrixMarket matrix coordinate real general\n4 4 1\n3 4 0.5\n");
    st = jg_io_read_mask(path, p, &pr, &np, &err);
    tap_ok(!st && np == 1 && pr[0] == 2 && pr[1] == 3, "Matrix Market real: values ignored");
    free(pr);
    struct {
        const char *text, *msg;
        jg_status_t st;
    } bad[] = {
        {"{\"drop\": [[0, 4]]}", "\"drop\" entry 1: column 4 outside 0..3 (0-based, 4 states)", JG_ARG},
        {"{\"drop\": [[0, 1], [-1, 0]]}", "\"drop\" entry 2: row -1 outside 0..3 (0-based, 4 states)", JG_ARG},
        {"{\"drop\": [[\"nope\", 0]]}", "\"drop\" entry 1: unknown state \"nope\" (row)", JG_ARG},
        {"{\"drop\": [[0]]}", "\"drop\" entry 1: expected [row, column]", JG_ARG},
        {"{\"drop\": [[0.5, 1]]}", "\"drop\" entry 1: the row must be a 0-based index or a state name", JG_ARG},
        {"{\"keep\": []}", "expected an object with \"drop\": [[row, column], ...]", JG_ARG},
        {"{\"drop\": [[0, 1]", NULL, JG_PARSE},
        {"0 1\n", "not a sparsing mask (expected JSON {\"drop\": [[row, column], ...]} or a Matrix Market file)",
         JG_PARSE},
        {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1\n", "a 3 x 3 matrix; the Jacobian is 4 x 4",
         JG_ARG},
        {"%%MatrixMarket matrix array real general\n4 4\n", NULL, JG_ARG},
        {"%%MatrixMarket matrix coordinate pattern general\n4 4 2\n1 2\n", "2 entries announced, 1 found", JG_ARG},
        {"%%MatrixMarket matrix coordinate pattern general\n4 4 1\n5 1\n", NULL, JG_ARG},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        tl_write_file(path, bad[k].text);
        pr = (int64_t *)1;
        st = jg_io_read_mask(path, p, &pr, &np, &err);
        char want[700];
        snprintf(want, sizeof want, "%s: %s", path, bad[k].msg ? bad[k].msg : "");
        int ok = st == bad[k].st && pr == NULL && np == 0 && (!bad[k].msg || !strcmp(err.msg, want));
        tap_ok(ok, "bad mask %zu refused: %s", k + 1, err.msg + strlen(path) + 2);
        if (!ok) printf("#   status %d, message '%s'\n", (int)st, err.msg);
    }
    remove(path);
    st = jg_io_read_mask(path, p, &pr, &np, &err);
    tap_ok(st == JG_IO && strstr(err.msg, "cannot open"), "a missing file: JG_IO");
    tap_ok(jg_io_read_mask(NULL, p, &pr, &np, &err) == JG_ARG, "NULL path: JG_ARG");
    rmdir(dir);
    jg_program_free(p);
    jg_model_free(m);
}

/* ------------------------------------------------------------ simulation */

/* A stiff mode (-1000) weakly coupled to two slow ones (entries 0.5 and
 * 0.01); the slow ones coupled strongly (0.2, 5). */
static const char weak[] =
    "{'name':'weak','blocks':[{'name':'P','type':'StateSpace',"
    "'A':[[-1000,0.5,0],[0.01,-1,0.2],[0,5,-10]],'B':[[0],[0],[0]],'C':[[1,1,1]],'D':[[0]],"
    "'InitialCondition':[1,1,1]},{'name':'G','type':'Ground'},{'name':'Out1','type':'Outport','Port':1}],"
    "'lines':[{'src':'G:1','dst':'P:1'},{'src':'P:1','dst':'Out1:1'}]}";

static double maxdiff(const tl_rec_t *a, const tl_rec_t *b)
{
    double d = a->n == b->n ? 0 : INFINITY;
    for (int k = 0; k < a->n && k < b->n; k++) d = fmax(d, fabs(a->y[k][0] - b->y[k][0]));
    return d;
}

static void test_simulate(void)
{
    static tl_rec_t r0, r1, r2, r3;
    jg_error_t err;
    jg_sim_stats_t s0, s1, s2, s3;
    jg_sim_opts_t o = {.solver = JG_SOLVER_LIE, .t0 = 0, .tstop = 1, .out_step = 0.1};
    o.so.fixed_step = 0.01;
    jg_status_t st0 = tl_simulate(q(weak), &o, &r0, &s0, &err);
    const int64_t weak2[] = {0, 1, 1, 0}, all4[] = {0, 1, 1, 0, 1, 2, 2, 1};
    o.sparsing_drop = weak2;
    o.sparsing_ndrop = 2;
    jg_status_t st1 = tl_simulate(q(weak), &o, &r1, &s1, &err);
    o.sparsing_drop = all4;
    o.sparsing_ndrop = 4;
    jg_status_t st2 = tl_simulate(q(weak), &o, &r2, &s2, &err);
    tap_ok(!st0 && !st1 && !st2, "lie without a sparsing, with the weak couplings and with all couplings dropped");
    tap_ok(!s0.sparsing.active && s1.sparsing.active && s1.sparsing.nnz == 7 && s1.sparsing.nkept == 5 &&
               s1.sparsing.ndropped_nonzero == 2 && s2.sparsing.nkept == 3 && !s1.sparsing.measured,
           "stats: 7 entries, 5 kept (2 nonzero dropped), 3 kept with all couplings dropped");
    tap_ok(s1.sparsing.lu_full > 0 && s2.sparsing.lu > 0 && s2.sparsing.lu < s2.sparsing.lu_full,
           "stats: LU fill of I - hJ %lld, with all couplings dropped %lld", (long long)s2.sparsing.lu_full,
           (long long)s2.sparsing.lu);
    double d1 = maxdiff(&r1, &r0), d2 = maxdiff(&r2, &r0);
    /* lie's own global error here is O(h) = 1e-2; the weak couplings cost a
     * fraction of what dropping the strong ones does */
    tap_ok(d1 < 1e-3 && d1 < 0.1 * d2 && d2 > 1e-3,
           "dropping the weak couplings moves the output by %.1e, dropping all by %.1e", d1, d2);

    /* automatic: the paper's checks at t0 */
    o.sparsing_drop = NULL;
    o.sparsing_ndrop = 0;
    o.sparsing_auto = JG_SPARSING_ENTRIES;
    jg_status_t st3 = tl_simulate(q(weak), &o, &r3, &s3, &err);
    tap_ok(!st3 && s3.sparsing.active && s3.sparsing.measured && s3.sparsing.measure.check1 &&
               s3.sparsing.measure.check2 && s3.sparsing.nkept < 7,
           "auto: %lld of 7 entries kept, d1 %.2g < C1 %.2g, d2 %.2g < C2 %.2g%s%s",
           (long long)s3.sparsing.nkept, s3.sparsing.measure.d1, s3.sparsing.measure.C1, s3.sparsing.measure.d2,
           s3.sparsing.measure.C2, st3 ? ": " : "", st3 ? err.msg : "");
    /* here the checks allow every coupling to go (the spectrum of the step
     * barely moves): the output moves as much as with all4, still inside
     * lie's own error against a tight ode45 */
    static tl_rec_t ref;
    jg_sim_opts_t ro = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 1, .out_step = 0.1};
    ro.so.rtol = 1e-10;
    ro.so.atol = 1e-12;
    jg_status_t str = tl_simulate(q(weak), &ro, &ref, NULL, &err);
    double e0 = maxdiff(&r0, &ref), e3 = maxdiff(&r3, &ref);
    tap_ok(!st3 && !str && s3.sparsing.nkept == 3 && maxdiff(&r3, &r2) == 0 && e3 < 1.5 * e0,
           "auto: every coupling dropped (as all4); error against ode45 %.1e, lie's own %.1e", e3, e0);
    o.sparsing_auto = JG_SPARSING_ENTRIES | JG_SPARSING_MIXED;
    o.sparsing_slow = -1;   /* every mode counts */
    st3 = tl_simulate(q(weak), &o, &r3, &s3, &err);
    tap_ok(!st3 && s3.sparsing.measured && s3.sparsing.measure.slow_threshold == 0,
           "auto, mixed mode, slow threshold < 0 means S = 0 (%lld explicit states)",
           (long long)s3.sparsing.nexplicit);
    o.sparsing_slow = 0;

    /* sparse perturbation: state 2 explicit, so column 2 is never perturbed */
    const int64_t row2[] = {2, 2, 1, 2, 2, 1};
    o.sparsing_auto = 0;
    o.sparsing_drop = row2;
    o.sparsing_ndrop = 3;
    o.jacobian = JG_SOLVERJAC_SPARSE_PERTURBATION;
    st3 = tl_simulate(q(weak), &o, &r3, &s3, &err);
    tap_ok(!st3 && s3.sparsing.fevals_full == 3 && s3.sparsing.fevals == 2 && s3.sparsing.colors_full == 3 &&
               s3.sparsing.colors == 2,
           "sparse perturbation: f evaluations per Jacobian 3 -> 2, colors 3 -> 2");
    tap_ok(!st3 && s3.solver.jevals == 100 && s3.solver.fevals_jac == 2 * s3.solver.jevals,
           "measured: %ld f evaluations for %ld Jacobians (the choice at t0 not counted)", s3.solver.fevals_jac,
           s3.solver.jevals);
    o.jacobian = JG_SOLVERJAC_FULL_PERTURBATION;
    st3 = tl_simulate(q(weak), &o, &r3, &s3, &err);
    tap_ok(!st3 && s3.sparsing.fevals_full == 3 && s3.sparsing.fevals == 2 &&
               s3.solver.fevals_jac == 2 * s3.solver.jevals,
           "full perturbation: f evaluations per Jacobian 3 -> 2 (measured %ld for %ld)", s3.solver.fevals_jac,
           s3.solver.jevals);
    o.jacobian = JG_SOLVERJAC_AUTO;

    /* errors */
    struct {
        jg_solver_method_t solver;
        const int64_t *drop;
        int64_t ndrop;
        int autof;
        const char *msg;
    } bad[] = {
        {JG_SOLVER_ODE45, weak2, 2, 0, "sparsing applies to the linearly implicit Euler solver 'lie', not 'ode45'"},
        {JG_SOLVER_LIE, weak2, 2, JG_SPARSING_ENTRIES,
         "sparsing: either a list of entries to drop or automatic, not both"},
        {JG_SOLVER_LIE, NULL, 2, 0, "sparsing: 2 entries to drop without a list"},
        {JG_SOLVER_LIE, NULL, 0, 8, "sparsing: unknown automatic choice flags 8"},
        {JG_SOLVER_LIE, (const int64_t[]){0, 3}, 1, 0,
         "sparsing: entry 1 to drop, (0, 3), is outside 0..2 (0-based, 3 states)"},
        {JG_SOLVER_LIE, (const int64_t[]){0, 1, 0, 2}, 2, 0,
         "sparsing: entry 2 to drop, (0, 2) (P(1) <- P(3)), is not in the structural pattern of J_x"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        o.solver = bad[k].solver;
        o.sparsing_drop = bad[k].drop;
        o.sparsing_ndrop = bad[k].ndrop;
        o.sparsing_auto = bad[k].autof;
        jg_status_t st = tl_simulate(q(weak), &o, &r3, NULL, &err);
        int ok = st == JG_ARG && !strcmp(err.msg, bad[k].msg);
        tap_ok(ok, "refused: %s", bad[k].msg);
        if (!ok) printf("#   got %d '%s'\n", (int)st, err.msg);
    }
}

int main(void)
{
    test_coloring_hand();
    test_coloring_random();
    test_solverjac_keep();
    test_mask_files();
    test_simulate();
    return tap_done();
}
