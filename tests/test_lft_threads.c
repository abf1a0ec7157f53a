/* test_lft_threads.c -- the LFT's column solves split among threads
 * (lib/lft/columns.c, jg_lin_opts_t.threads) give the serial result bit for
 * bit: the same pattern, the same order, the same values and the same nzmax,
 * on random operands (with and without M, loops that fill and pivot, no loop
 * at all) for 2, 3 and 4 threads, with the edge cases 0 columns, 1 column and
 * fewer columns than threads; and through jg_lin_run on random diagrams
 * (every graph reduction and the matrix method) and on a generated model
 * large enough to take the threads at the default threshold. */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "linearize/lin_impl.h"
#include "testlib.h"

/* 1 when A and B are the same matrix down to the bits: sizes, nzmax, column
 * pointers, row indices and values (both NULL counts as the same). */
static int same_csc(const cs_dl *A, const cs_dl *B)
{
    if (!A || !B) return !A && !B;
    if (A->m != B->m || A->n != B->n || A->nz != B->nz || A->nzmax != B->nzmax) return 0;
    int64_t nz = A->p[A->n];
    return !memcmp(A->p, B->p, sizeof(int64_t) * (size_t)(A->n + 1)) &&
           !memcmp(A->i, B->i, sizeof(int64_t) * (size_t)nz) &&
           !memcmp(A->x, B->x, sizeof(double) * (size_t)nz);
}

/* A random sparse m x n matrix, about density d, values of both signs. */
static cs_dl *random_csc(int64_t m, int64_t n, double d, double scale, unsigned *seed)
{
    cs_dl *T = cs_dl_spalloc(m, n, 1, 1, 1);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            if (rand_r(seed) < d * RAND_MAX) cs_dl_entry(T, i, j, scale * (2.0 * rand_r(seed) / RAND_MAX - 1.0));
    cs_dl *A = cs_dl_compress(T);
    cs_dl_spfree(T);
    return A;
}

static int same_info(const jg_lft_info_t *a, const jg_lft_info_t *b)
{
    return a->n == b->n && a->nnz_lu == b->nnz_lu && a->lu_fma == b->lu_fma &&
           !memcmp(&a->rcond, &b->rcond, sizeof a->rcond) && !memcmp(&a->cond, &b->cond, sizeof a->cond) &&
           a->cond_row == b->cond_row;
}

/* One operand set: jg_lft against jg__lft_threads on 2, 3 and 4 threads,
 * forced (min_work 0) and at the default threshold.  1 when all agree (the
 * status too); *solved counts the successful serial runs. */
static int check_ops(const cs_dl *P11, const cs_dl *P12, const cs_dl *P21, const cs_dl *P22,
                     const cs_dl *M, int *solved)
{
    cs_dl *F0 = NULL;
    jg_lft_info_t i0;
    jg_error_t e0;
    jg_status_t s0 = jg_lft(P11, P12, P21, P22, M, &F0, &i0, &e0);
    int ok = 1;
    if (!s0) (*solved)++;
    for (int t = 2; t <= 4; t++)
        for (int forced = 0; forced < 2; forced++) {
            cs_dl *F = NULL;
            jg_lft_info_t in;
            jg_error_t e;
            jg_status_t s = jg__lft_threads(P11, P12, P21, P22, M, &F, &in, t,
                                            forced ? 0 : JG__LFT_PAR_WORK, &e);
            ok &= s == s0 && same_csc(F, F0) && (s || same_info(&in, &i0)) &&
                  (!s || !strcmp(e.msg, e0.msg));
            cs_dl_spfree(F);
        }
    cs_dl_spfree(F0);
    return ok;
}

/* Random loops whose LU fills and pivots, M NULL or a random connection, and
 * the sizes around the split: 0, 1, 2, 3 columns (fewer than the threads),
 * no loop, columns of P21 left empty, and a few hundred columns (many
 * chunks, buffers that grow). */
static void test_random(void)
{
    unsigned seed = 11;
    int same = 1, runs = 0, solved = 0;
    for (int r = 0; r < 48; r++) {
        int64_t ni = r < 8 ? r % 4 : (r < 40 ? 4 + 7 * r : 300 + 20 * r);
        int64_t no = 1 + (r * 7) % 30, ny = r % 8 == 5 ? 0 : 3 + (r * 13) % 160;
        if (r >= 40) no = 200 + r;
        int withm = r % 3 == 1;
        int64_t nu = withm ? ny + r % 5 : ny;
        cs_dl *P11 = random_csc(no, ni, 0.2, 1.0, &seed), *P12 = random_csc(no, nu, 0.15, 1.0, &seed),
              *P21 = random_csc(ny, ni, r % 4 == 2 ? 0.01 : 0.1, 1.0, &seed),
              *P22 = random_csc(ny, nu, ny ? 2.5 / (double)ny : 0, 0.45, &seed),
              *M = withm ? random_csc(nu, ny, nu ? 1.5 / (double)nu : 0, 0.6, &seed) : NULL;
        same &= check_ops(P11, P12, P21, P22, M, &solved);
        runs++;
        cs_dl_spfree(P11), cs_dl_spfree(P12), cs_dl_spfree(P21), cs_dl_spfree(P22), cs_dl_spfree(M);
    }
    tap_ok(same && solved >= 36, "random operands (%d, %d solved): 2, 3, 4 threads give jg_lft's F "
                                 "bit for bit (nzmax included) and its info", runs, solved);
}

/* A singular loop: the threads change nothing of the refusal. */
static void test_singular(void)
{
    cs_dl *T = cs_dl_spalloc(2, 2, 4, 1, 1);
    cs_dl_entry(T, 0, 1, 1.0);
    cs_dl_entry(T, 1, 0, 1.0);   /* I - P22 = [1 -1; -1 1] */
    cs_dl *P22 = cs_dl_compress(T), *I2 = NULL;
    cs_dl_spfree(T);
    T = cs_dl_spalloc(2, 2, 2, 1, 1);
    cs_dl_entry(T, 0, 0, 1.0);
    cs_dl_entry(T, 1, 1, 1.0);
    I2 = cs_dl_compress(T);
    cs_dl_spfree(T);
    int solved = 0;
    cs_dl *F = NULL;
    jg_error_t e;
    jg_status_t s = jg__lft_threads(I2, I2, I2, P22, NULL, &F, NULL, 3, 0, &e);
    tap_ok(s == JG_SINGULAR_LOOP && !F && check_ops(I2, I2, I2, P22, NULL, &solved) && !solved,
           "singular I - P22 on 3 threads: JG_SINGULAR_LOOP, F NULL, jg_lft's message (%s)",
           jg_status_name(s));
    cs_dl_spfree(P22), cs_dl_spfree(I2);
}

/* 1 when the two systems are the same bits (matrices, sizes). */
static int same_sys(const jg_lin_sys_t *a, const jg_lin_sys_t *b)
{
    if (!a || !b) return !a && !b;
    return a->nx == b->nx && a->nu == b->nu && a->ny == b->ny && same_csc(a->A, b->A) &&
           same_csc(a->B, b->B) && same_csc(a->C, b->C) && same_csc(a->D, b->D);
}

/* One program by jg_lin_run on 1 thread and on 2, 3, 4 (threshold work
 * par_work: 0 threads every LFT): graph none, markowitz, full and the matrix
 * method.  1 when every run is the serial one's bits; *nrun counts them. */
static int check_program(const jg_program_t *p, int64_t par_work, int *nrun)
{
    static const struct {
        jg_lin_method_t m;
        jg_graph_reduce_t r;
    } runs[] = {{JG_LIN_GRAPH, JG_GRAPH_REDUCE_NONE},
                {JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ},
                {JG_LIN_GRAPH, JG_GRAPH_REDUCE_FULL},
                {JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE}};
    int ok = 1;
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        jg_lin_sys_t *ref = NULL;
        jg_lin_t *l = NULL;
        jg_error_t err, err0 = {0};
        jg_status_t s0 = jg_lin_create(p, NULL, &l, &err0);
        if (!s0) s0 = jg_lin_run(l, runs[k].m, runs[k].r, &ref, NULL, &err0);
        jg_lin_free(l);
        for (int t = 2; t <= 4; t++) {
            /* 2: the evaluation beside the graph build; 3: the graph built
             * beside the evaluation's set-up (prepare_graph), also before a
             * matrix run, which leaves it unused */
            jg_lin_opts_t o = {.threads = t, .prepare_graph = t == 3};
            jg_lin_sys_t *s = NULL;
            jg_lin_stats_t sts;
            jg_status_t st = jg__lin_create_min(p, &o, t <= 3 ? 0 : JG__LIN_OVERLAP_MIN, &l, &err);
            if (!st) {
                l->par_work = par_work;
                st = jg_lin_run(l, runs[k].m, runs[k].r, &s, &sts, &err);
                if (!st && runs[k].m == JG_LIN_GRAPH)
                    ok &= sts.build_overlap == (t == 2 ? 1 : t == 3 ? 2 : p->nblocks >= JG__LIN_OVERLAP_MIN);
            }
            ok &= st == s0 && same_sys(s, ref) && (!st || !strcmp(err.msg, err0.msg));
            (*nrun)++;
            jg_lin_sys_free(s);
            jg_lin_free(l);
        }
        jg_lin_sys_free(ref);
    }
    return ok;
}

/* Random diagrams (the graph tests' schedule, algebraic loops included). */
static void test_diagrams(void)
{
    int same = 1, nrun = 0, nprog = 0;
    for (int seed = 1; seed <= 30; seed++) {
        jg_gen_random_opts_t o;
        fx_random_opts(&o, seed);
        jg_model_t *m = NULL;
        jg_program_t *p = NULL;
        jg_error_t err;
        if (!fx_gen_program(&o, &m, &p, &err)) {
            same &= check_program(p, 0, &nrun);
            nprog++;
        }
        jg_program_free(p);
        jg_model_free(m);
    }
    tap_ok(same && nprog >= 25, "random diagrams (%d, %d runs): jg_lin_run on 2, 3, 4 threads = 1 "
                                "thread bit for bit", nprog, nrun);
}

/* A generated model whose LFT passes the default threshold (power, 30000
 * blocks: about 12,000 of work after markowitz), so the threads are taken as
 * a linearization takes them. */
static void test_generated(void)
{
    jg_gen_opts_t go;
    jg_gen_opts_default(&go, JG_GEN_POWER, 30000, 1);
    char *json = NULL;
    jg_error_t err;
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_status_t st = jg_gen_model(&go, &json, NULL, NULL, &err);
    if (!st) st = jg_model_parse(json, "<gen>", &m, &err);
    if (!st) st = jg_program_compile(m, &p, &err);
    int nrun = 0;
    tap_ok(!st && check_program(p, JG__LFT_PAR_WORK, &nrun),
           "generated power model, 30000 blocks, default threshold: threads = serial bit for bit (%s)",
           st ? err.msg : "ok");
    jg_program_free(p);
    jg_model_free(m);
    free(json);
}

/* The evaluation that runs on its own thread beside the graph build, or
 * after a graph built beside its set-up, fails: sqrt of a negative state at
 * the operating point.  The run ends with the evaluation's error, as on one
 * thread, and the graph built meanwhile is freed (ASan).  A second run on
 * the same linearizer meets the same error. */
static void test_overlap_error(void)
{
    static const char *const model =
        "{\"name\": \"bad\", \"blocks\": ["
        "{\"name\": \"H\", \"type\": \"Integrator\", \"InitialCondition\": -1},"
        "{\"name\": \"Sqrt\", \"type\": \"Math\", \"Operator\": \"sqrt\"},"
        "{\"name\": \"a\", \"type\": \"Gain\", \"Gain\": -2},"
        "{\"name\": \"Out\", \"type\": \"Outport\", \"Port\": 1}],"
        "\"lines\": [{\"src\": \"H:1\", \"dst\": [\"Sqrt:1\", \"Out:1\"]},"
        "{\"src\": \"Sqrt:1\", \"dst\": \"a:1\"}, {\"src\": \"a:1\", \"dst\": \"H:1\"}]}";
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_error_t e1 = {0}, e2 = {0}, e3 = {0};
    jg_status_t st = jg_model_parse(model, "<bad>", &m, &e1);
    if (!st) st = jg_program_compile(m, &p, &e1);
    jg_lin_t *l1 = NULL, *l2 = NULL;
    jg_lin_sys_t *s1 = NULL, *s2 = NULL, *s3 = NULL;
    jg_status_t r1 = st, r2 = st, r3 = st;
    if (!st && !(r1 = jg_lin_create(p, NULL, &l1, &e1)))
        r1 = jg_lin_run(l1, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s1, NULL, &e1);
    for (int prep = 0; prep <= 1; prep++) {
        jg_lin_opts_t o = {.threads = 2, .prepare_graph = prep};
        if (!st && !(r2 = jg__lin_create_min(p, &o, 0, &l2, &e2))) {
            r2 = jg_lin_run(l2, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s2, NULL, &e2);
            r3 = jg_lin_run(l2, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s3, NULL, &e3);
        }
        tap_ok(!st && r1 == JG_NUMERIC && r2 == r1 && r3 == r1 && !s1 && !s2 && !s3 &&
                   !strcmp(e1.msg, e2.msg) && !strcmp(e1.msg, e3.msg) && strstr(e2.msg, "Sqrt"),
               "evaluation failing with the graph built %s: the one-thread error (%s; %s)",
               prep ? "beforehand, beside its set-up" : "beside it", jg_status_name(r2), e2.msg);
        jg_lin_free(l2);
        l2 = NULL;
    }
    jg_lin_free(l1);
    jg_program_free(p);
    jg_model_free(m);
}

static void test_refusal(void)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_error_t err;
    jg_gen_random_opts_t o;
    fx_random_opts(&o, 4);
    jg_status_t st = fx_gen_program(&o, &m, &p, &err);
    jg_lin_opts_t lo = {.threads = -1};
    if (!st) st = jg_lin_create(p, &lo, &l, &err);
    tap_ok(st == JG_ARG && !l && strstr(err.msg, "threads -1"), "threads -1: JG_ARG (%s)", err.msg);
    jg_program_free(p);
    jg_model_free(m);
}

int main(void)
{
    test_random();
    test_singular();
    test_diagrams();
    test_generated();
    test_overlap_error();
    test_refusal();
    return tap_done();
}
