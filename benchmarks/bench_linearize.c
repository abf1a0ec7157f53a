/* bench_linearize: the graph algorithm (each reduction) against the matrix-based
 * block-by-block algorithm on the same models, in one run.
 *
 *   bench_linearize [--repeat N] MODEL.json...        models from files
 *   bench_linearize [--repeat N] --gen SEED:NBLOCKS... generated models (tests/gen.c)
 *
 * Per model: blocks, Jacobian graph size before and after elimination, bytes of
 * the intermediate structures, and the median over N runs of: compile, the
 * first graph linearization (build + symbolic elimination + replay + LFT), a
 * repeated one at the same jg_lin_t (numeric replay + LFT only), and the
 * matrix algorithm.  Every run's result is compared with the matrix result; a
 * disagreement beyond 1e-10 fails the benchmark (exit 1).  Output: a markdown
 * table on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "jacgraph/jacgraph.h"
#include "gen.h"

void openblas_set_num_threads(int num_threads);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
    double compile, first, replay, matrix;
    jg_lin_stats_t gst, mst;
} sample_t;

/* One full measurement of one model; returns 0, or 1 on disagreement / error. */
static int measure(const char *label, const char *json, int repeat, jg_reduce_t red)
{
    double *tc = calloc((size_t)repeat, sizeof(double)), *tf = calloc((size_t)repeat, sizeof(double)),
           *tr = calloc((size_t)repeat, sizeof(double)), *tm = calloc((size_t)repeat, sizeof(double));
    jg_lin_stats_t gst = {0}, mst = {0};
    int32_t nblocks = 0;
    int64_t nx = 0;
    int rc = 0;
    double worst = 0;
    for (int k = 0; k < repeat && !rc; k++) {
        jg_error_t err;
        jg_model_t *m = NULL;
        jg_program_t *p = NULL;
        jg_lin_t *l = NULL;
        jg_linsys_t *sg = NULL, *sr = NULL, *sm = NULL;
        double t0 = now();
        if (jg_model_parse(json, label, &m, &err) || jg_program_compile(m, &p, &err)) {
            fprintf(stderr, "%s: %s\n", label, err.msg);
            rc = 1;
            goto next;
        }
        double t1 = now();
        nblocks = jg_program_nblocks(p);
        nx = jg_program_nstates(p);
        if (jg_lin_create(p, NULL, &l, &err) ||
            jg_lin_run(l, JG_METHOD_GRAPH, red, &sg, &gst, &err)) {
            fprintf(stderr, "%s: %s\n", label, err.msg);
            rc = 1;
            goto next;
        }
        double t2 = now();
        jg_lin_stats_t rst;
        if (jg_lin_run(l, JG_METHOD_GRAPH, red, &sr, &rst, &err)) {
            fprintf(stderr, "%s: %s\n", label, err.msg);
            rc = 1;
            goto next;
        }
        double t3 = now();
        if (jg_lin_run(l, JG_METHOD_MATRIX, JG_REDUCE_NONE, &sm, &mst, &err)) {
            fprintf(stderr, "%s: %s\n", label, err.msg);
            rc = 1;
            goto next;
        }
        double t4 = now();
        tc[k] = t1 - t0;
        tf[k] = t2 - t1;
        tr[k] = t3 - t2;
        tm[k] = t4 - t3;
        double d1 = jg_linsys_diff(sg, sm, NULL), d2 = jg_linsys_diff(sr, sm, NULL);
        worst = d1 > worst ? d1 : worst;
        worst = d2 > worst ? d2 : worst;
        if (!(d1 <= 1e-10 && d2 <= 1e-10)) {
            fprintf(stderr, "%s: graph and matrix disagree (%.3g, %.3g)\n", label, d1, d2);
            rc = 1;
        }
    next:
        jg_linsys_free(sg);
        jg_linsys_free(sr);
        jg_linsys_free(sm);
        jg_lin_free(l);
        jg_program_free(p);
        jg_model_free(m);
    }
    if (!rc) {
        double c = median(tc, repeat), f = median(tf, repeat), r = median(tr, repeat),
               mm = median(tm, repeat);
        const jg_graph_stats_t *g = &gst.graph;
        printf("| %s | %d | %lld | V:%lld E:%lld | V:%lld E:%lld | %zu | %zu | %.1f%% | %.3f | %.3f | "
               "%.3f | %.3f | %.2f | %.1e |\n",
               label, nblocks, (long long)nx, (long long)g->v_before, (long long)g->e_before,
               (long long)g->v_after, (long long)g->e_after, gst.bytes_lft, mst.bytes_matrix,
               mst.bytes_matrix ? 100.0 * ((double)gst.bytes_lft / (double)mst.bytes_matrix - 1) : 0,
               1e3 * c, 1e3 * f, 1e3 * r, 1e3 * mm, mm > 0 ? f / mm : 0, worst);
    }
    free(tc);
    free(tf);
    free(tr);
    free(tm);
    return rc;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    int repeat = 5, gen = 0, rc = 0;
    jg_reduce_t red = JG_REDUCE_MARKOWITZ;
    openblas_set_num_threads(1);
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--gen")) {
            gen = 1;
        } else if (!strcmp(argv[i], "--reduce") && i + 1 < argc) {
            int r = jg_reduce_parse(argv[++i]);
            if (r < 0) {
                fprintf(stderr, "unknown reduction '%s'\n", argv[i]);
                return 2;
            }
            red = (jg_reduce_t)r;
        } else {
            fprintf(stderr, "usage: bench_linearize [--repeat N] [--reduce S] [--gen] MODEL|SEED:N...\n");
            return 2;
        }
    }
    if (repeat < 1 || i == argc) {
        fprintf(stderr, "usage: bench_linearize [--repeat N] [--reduce S] [--gen] MODEL|SEED:N...\n");
        return 2;
    }
    printf("Graph algorithm (%s elimination) vs matrix algorithm; times are medians of %d runs "
           "in ms.\n\n",
           jg_reduce_name(red), repeat);
    printf("| model | blocks | states | J | J_r | graph bytes | matrix bytes | memory | compile | "
           "graph first | graph replay | matrix | graph/matrix | max diff |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (; i < argc; i++) {
        char *json = NULL;
        if (gen) {
            gen_opts_t o;
            unsigned long long seed = 0;
            long n = 0;
            if (sscanf(argv[i], "%llu:%ld", &seed, &n) != 2 || n < 1) {
                fprintf(stderr, "--gen wants SEED:NBLOCKS, got '%s'\n", argv[i]);
                return 2;
            }
            gen_opts_default(&o, seed, (int)n);
            o.max_depth = 2;
            json = gen_model(&o, NULL);
        } else {
            json = slurp(argv[i]);
        }
        if (!json) {
            fprintf(stderr, "%s: cannot read or generate\n", argv[i]);
            rc = 1;
            continue;
        }
        rc |= measure(argv[i], json, repeat, red);
        free(json);
    }
    return rc;
}
