/* bench_batch: throughput of jg_batch_run (jacgraph batch) on a generated
 * model: points per second against threads, and the cost of a point against
 * one evaluation of every block Jacobian.
 *
 *   bench_batch [--blocks N] [--points N] [--jobs 1,2,...] [--repeat N] [--ref N] [--md FILE] [--svg FILE]
 *               [--ranks FILE]
 *
 * The model is `jacgraph generate aerospace --blocks N --seed 1` (default
 * 10,000 blocks).  The points (default 10,000) each set t and perturb twenty
 * states (their values differ from point to point).  Each thread count runs
 * the whole batch --repeat times (default 3) into a sink that only counts, in
 * interleaved rounds; reported: the median wall time and points per second,
 * the speedup over one thread.  The reference cost, measured on the same
 * model, in thread CPU time: one evaluation of the outputs and every block
 * Jacobian (jg_eval_outputs + jg_eval_jacobians, the least a point needs),
 * median of 200; the cost of a point is the batch's CPU time with one thread
 * over the points; and one jg_lin_run's stages (evaluation, replay, LFT, the rest:
 * extraction and the result) on one linearizer (--ref N: medians of N instead
 * of 200; 0 skips both, for profiling the batch alone).  Output: markdown on stdout
 * (and --md FILE), the plot points/s against threads as SVG (--svg FILE),
 * with a second panel against MPI ranks when --ranks names the CSV that
 * `bench_batch_mpi.sh --csv FILE` wrote (there: the CLI's runs, the file
 * written, and this program's batch alone across the ranks).
 * Under mpirun (a build with -Dmpi=enabled), every rank does the same and
 * the batch is jg_batch_mpi_run across the ranks, each with the --jobs
 * threads: the ranks meet at a barrier, rank 0's clock runs until every rank
 * has met at a second one after the run, and rank 0's sink counts the
 * points of all ranks (their results come in by MPI as in `jacgraph batch`);
 * CPU is the sum over the ranks.  This is the rank count's throughput
 * measured as the threads' is, without the launch, MPI_Init, the model's
 * load and the file that bench_batch_mpi.sh's runs of the CLI include; the
 * reference is measured on rank 0 while the others wait, and only rank 0
 * writes the report.
 * Exit status 0; 1 when a run failed; 2 usage.  Benchmarks measure: no target
 * changes the status. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/batch.h"
#include "jacgraph/gen.h"
#include "blas.h"
#ifdef JG_HAVE_MPI
#include <mpi.h>
#endif

static const char usage[] =
    "usage: bench_batch [options]\n"
    "\n"
    "  --blocks N      aerospace model size (default 10000)\n"
    "  --points N      points (default 10000)\n"
    "  --jobs LIST     thread counts, e.g. 1,2,3,4 (default 1,2)\n"
    "  --repeat N      runs per thread count (default 3)\n"
    "  --reduce R      markowitz (default), full or none\n"
    "  --ref N         reference evaluations and jg_lin_run stage samples (default 200;\n"
    "                  0: none, the batch alone, e.g. under callgrind)\n"
    "  --md FILE       also write the markdown to FILE\n"
    "  --svg FILE      the plot points/s against threads\n"
    "  --ranks FILE    with --svg: a second panel, points/s against MPI ranks, from the CSV of\n"
    "                  bench_batch_mpi.sh --csv FILE\n"
    "Under mpirun (an MPI build): the batch across the ranks, each with --jobs threads.\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double tcpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
    int64_t n, failed;
} count_t;

static int count_sink(void *ctx, int64_t k, const double *vals, const jg_lin_sys_t *sys, const char *error)
{
    (void)k, (void)vals, (void)sys;
    count_t *c = ctx;
    c->n++;
    c->failed += error != NULL;
    return 0;
}

/* Across ranks (nranks > 1, MPI started): every rank waits for all; the sum
 * of v over the ranks.  One process: nothing, v. */
static void barrier(int nranks)
{
#ifdef JG_HAVE_MPI
    if (nranks > 1) MPI_Barrier(MPI_COMM_WORLD);
#else
    (void)nranks;
#endif
}

static double sum_ranks(double v, int nranks)
{
#ifdef JG_HAVE_MPI
    double s = v;
    if (nranks > 1) MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return s;
#else
    (void)nranks;
    return v;
#endif
}

/* A points file text: t and twenty states per point. */
static char *points_text(const jg_program_t *p, int64_t n)
{
    int64_t nx = jg_program_nstates(p), ns = nx < 20 ? nx : 20;
    size_t cap = (size_t)n * (size_t)(64 + ns * 96) + 64, len = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    len += (size_t)snprintf(s + len, cap - len, "{\"points\": [");
    for (int64_t k = 0; k < n; k++) {
        len += (size_t)snprintf(s + len, cap - len, "%s{\"t\": %.17g, \"states\": {", k ? ",\n" : "",
                                1e-4 * (double)k);
        for (int64_t j = 0; j < ns; j++) {
            /* the element name, JSON-escaped enough for generated names */
            len += (size_t)snprintf(s + len, cap - len, "%s\"%s\": %.17g", j ? ", " : "",
                                    jg_program_state_name(p, j * (nx / ns)),
                                    0.01 * (double)k + 0.1 * (double)j);
        }
        len += (size_t)snprintf(s + len, cap - len, "}}");
    }
    snprintf(s + len, cap - len, "]}\n");
    return s;
}

/* The panel points/s against MPI ranks from bench_batch_mpi.sh's CSV (a
 * header, then "ranks,wall_s,points_per_s,speedup,net_points_per_s,
 * net_speedup,batch_wall_s,batch_points_per_s,batch_speedup" per rank count,
 * increasing). */
static jg_status_t ranks_panel(const char *path, jg_plot_t **out, jg_error_t *err)
{
    const char *names[4] = {"the batch alone (as the threads above)", "the CLI, without the fixed cost",
                            "the CLI end to end", "linear (1 rank of the batch alone x K)"};
    jg_plot_opts_t po = {.title = "jacgraph batch: points per second against MPI ranks",
                         .subtitle = "under mpirun, one thread a rank; the CLI writes FILE.h5",
                         .xlabel = "ranks", .ylabel = "points/s"};
    FILE *f = fopen(path, "r");
    char line[256];
    if (!f) return jg_error_set(err, JG_IO, "cannot open");
    jg_status_t st = jg_plot_create(4, names, &po, out, err);
    double base = 0;
    int n = 0;
    if (!fgets(line, sizeof line, f) || strncmp(line, "ranks,", 6))
        st = st ? st : jg_error_set(err, JG_ARG, "line 1: expected the header ranks,...");
    for (int ln = 2; !st && fgets(line, sizeof line, f); ln++) {
        double r, pps, npps, bpps;   /* (the walls and speedups skipped) */
        int end = 0;                 /* %n: the ninth number was read too */
        if (sscanf(line, "%lf,%*f,%lf,%*f,%lf,%*f,%*f,%lf,%*f%n", &r, &pps, &npps, &bpps, &end) != 4 || !end ||
            !(r >= 1) || !(pps > 0) || !(npps > 0) || !(bpps > 0)) {
            st = jg_error_set(err, JG_ARG, "line %d: expected nine numbers", ln);
            break;
        }
        if (!n) base = bpps / r;
        double y[4] = {bpps, npps, pps, r * base};
        st = jg_plot_add(*out, r, y, err);
        n++;
    }
    fclose(f);
    if (!st && !n) st = jg_error_set(err, JG_ARG, "no rank counts");
    if (st) {
        jg_plot_free(*out);
        *out = NULL;
    }
    return st;
}

int main(int argc, char **argv)
{
    cli_blas_quiet();   /* as the CLI: one BLAS thread, no idle pool spinning beside the batch */
    int64_t blocks = 10000, npoints = 10000;
    int repeat = 3, jobs[16] = {1, 2}, njobs = 2, nref = 200;
    const char *md = NULL, *svg = NULL, *ranks = NULL;
    int reduce = JG_GRAPH_REDUCE_MARKOWITZ;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!v) {
            fputs(usage, stderr);
            return 2;
        }
        i++;
        if (!strcmp(a, "--blocks")) blocks = atoll(v);
        else if (!strcmp(a, "--points")) npoints = atoll(v);
        else if (!strcmp(a, "--repeat")) repeat = atoi(v);
        else if (!strcmp(a, "--ref")) nref = atoi(v);
        else if (!strcmp(a, "--md")) md = v;
        else if (!strcmp(a, "--svg")) svg = v;
        else if (!strcmp(a, "--ranks")) ranks = v;
        else if (!strcmp(a, "--reduce")) reduce = jg_graph_reduce_parse(v);
        else if (!strcmp(a, "--jobs")) {
            njobs = 0;
            for (char *e, *s = (char *)v; *s && njobs < 16; s = *e ? e + 1 : e) {
                jobs[njobs++] = (int)strtol(s, &e, 10);
                if (e == s) break;
            }
        } else {
            fputs(usage, stderr);
            return 2;
        }
    }
    if (blocks < 10 || npoints < 1 || repeat < 1 || njobs < 1 || reduce < 0 || nref < 0 || nref > 200) {
        fputs(usage, stderr);
        return 2;
    }
    jg_error_t err = {0};
    int rank = 0, nranks = 1;
    if (jg_batch_mpi_init(&rank, &nranks, &err)) {
        fprintf(stderr, "bench_batch: %s\n", err.msg);
        return 1;
    }
    if (rank) nref = 0;   /* the reference on rank 0 alone, the others waiting */
    char path[] = "/tmp/bench_batch.XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    jg_gen_opts_t go;
    jg_gen_opts_default(&go, JG_GEN_AEROSPACE, blocks, 1);
    jg_gen_info_t gi;
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    if (!f || jg_gen_write(&go, f, &gi, &err) || fclose(f) || jg_import_load(path, NULL, &m, &err) ||
        jg_program_compile(m, &p, &err)) {
        fprintf(stderr, "bench_batch: model: %s\n", err.msg);
        unlink(path);
        return 1;
    }
    char *text = points_text(p, npoints);
    jg_batch_points_t *P = NULL;
    if (!text || jg_batch_points_parse(text, "points", p, &P, &err)) {
        fprintf(stderr, "bench_batch: points: %s\n", err.msg);
        return 1;
    }
    free(text);

    /* the reference: outputs and every block Jacobian, median of nref */
    jg_eval_work_t *w = NULL;
    double tev[200] = {0};
    if (jg_eval_create(p, &w, &err)) return 1;
    for (int r = 0; r < nref; r++) {
        jg_eval_states(w)[0] = 0.01 * r;
        double t0 = tcpu();
        if (jg_eval_outputs(w, 1e-4 * r, &err) || jg_eval_jacobians(w, &err)) return 1;
        tev[r] = tcpu() - t0;
    }
    double t_eval = nref ? median(tev, nref) : NAN;
    jg_eval_free(w);

    /* one linearizer's stages, median over nref points after the first */
    jg_lin_t *l = NULL;
    double st_eval[200] = {0}, st_rep[200] = {0}, st_lft[200] = {0}, st_tot[200] = {0};
    if (jg_lin_create(p, NULL, &l, &err)) return 1;
    for (int r = 0; r <= nref && nref; r++) {
        jg_lin_states(l)[0] = 0.01 * r;
        jg_lin_sys_t *s = NULL;
        jg_lin_stats_t ls;
        double t0 = tcpu();
        if (jg_lin_run(l, JG_LIN_GRAPH, (jg_graph_reduce_t)reduce, &s, &ls, &err)) return 1;
        double t1 = tcpu();
        jg_lin_sys_free(s);
        if (!r) continue;
        st_eval[r - 1] = ls.t_eval;
        st_rep[r - 1] = ls.t_replay;
        st_lft[r - 1] = ls.t_lft;
        st_tot[r - 1] = t1 - t0;
    }
    jg_lin_free(l);
    int nm = nref ? nref : 1;
    double m_eval = median(st_eval, nm), m_rep = median(st_rep, nm), m_lft = median(st_lft, nm),
           m_tot = median(st_tot, nm);

    /* the batch, thread counts interleaved round by round */
    double *tw = calloc((size_t)(njobs * repeat), sizeof(double));
    double *tsym = calloc((size_t)(njobs * repeat), sizeof(double));
    double *tcpu = calloc((size_t)(njobs * repeat), sizeof(double));
    int bad = 0;
    for (int r = 0; r < repeat; r++)
        for (int j = 0; j < njobs; j++) {
            jg_batch_opts_t o = {.reduce = (jg_graph_reduce_t)reduce, .jobs = jobs[j]};
            count_t c = {0};
            jg_batch_stats_t bs;
            barrier(nranks);
            double t0 = now(), c0 = cpu();
            jg_status_t st = jg_batch_mpi_run(p, P, &o, count_sink, &c, &bs, &err);   /* one rank: jg_batch_run */
            barrier(nranks);
            tw[j * repeat + r] = now() - t0;
            tcpu[j * repeat + r] = sum_ranks(cpu() - c0, nranks);
            tsym[j * repeat + r] = bs.t_symbolic;
            if (st || (!rank && (c.n != npoints || c.failed))) {
                fprintf(stderr, "bench_batch: rank %d, %d threads: %s (%lld points, %lld failed)\n", rank, jobs[j],
                        st ? err.msg : "", (long long)c.n, (long long)c.failed);
                jg_batch_mpi_finalize(1);   /* under MPI: ends every rank (the others wait at the barrier) */
                bad = 1;
            }
        }
    if (rank) goto out;   /* only rank 0 reports */
    double *wall = calloc((size_t)njobs, sizeof(double)), *sym = calloc((size_t)njobs, sizeof(double));
    double *cput = calloc((size_t)njobs, sizeof(double));
    for (int j = 0; j < njobs; j++) {
        wall[j] = median(tw + j * repeat, repeat);
        cput[j] = median(tcpu + j * repeat, repeat);
        sym[j] = median(tsym + j * repeat, repeat);
    }
    double base = wall[0], load = -1;
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%lf", &load) != 1) load = -1;
        fclose(la);
    }
    char buf[8192], ranks_text[160] = "";
    size_t n = 0;
    if (nranks > 1)
        snprintf(ranks_text, sizeof ranks_text, "**%d MPI ranks**, each with a row's threads, rank 0 counting "
                 "the points of all (wall: barrier to barrier; CPU: all ranks); ", nranks);
    n += (size_t)snprintf(buf + n, sizeof buf - n,
                          "## Batch linearization throughput (bench_batch)\n\n"
                          "Model: `jacgraph generate aerospace --blocks %lld --seed 1` (%lld blocks, "
                          "%lld states); %lld points (t and 20 states each), graph method, "
                          "%s elimination; a sink that only counts; %s%d cores usable by a process (its CPU affinity; load average %.1f at the end); "
                          "median of %d runs.\n\n"
                          "| threads | wall (s) | points/s | speedup | CPU (s, all threads) | CPU per point (us) | "
                          "symbolic phase (s) |\n"
                          "|---|---|---|---|---|---|---|\n",
                          (long long)blocks, (long long)gi.nblocks, (long long)gi.nstates,
                          (long long)npoints, jg_graph_reduce_name((jg_graph_reduce_t)reduce), ranks_text, jg_batch_ncores(),
                          load, repeat);
    for (int j = 0; j < njobs; j++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "| %d | %.3f | %.0f | %.2f | %.3f | %.1f | %.4f |\n",
                              jobs[j], wall[j], (double)npoints / wall[j], base / wall[j], cput[j],
                              1e6 * cput[j] / (double)npoints, sym[j]);
    double per_point = base / (double)npoints, per_cpu = cput[0] / (double)npoints;
    n += (size_t)snprintf(buf + n, sizeof buf - n,
                          "\nOne evaluation of the outputs and every block Jacobian: %.1f us (thread CPU time, "
                          "median of %d).\nPer point with one thread: %.1f us of CPU = **%.2fx** that "
                          "evaluation (wall: %.1f us).\n\n"
                          "One `jg_lin_run` on one linearizer (medians of %d points): %.1f us of CPU; its "
                          "stages (wall): evaluation of the outputs and block Jacobians %.1f, "
                          "replay of the elimination tape %.1f, extraction of the LFT operands "
                          "and the LFT %.1f.\n",
                          1e6 * t_eval, nref, 1e6 * per_cpu, per_cpu / t_eval, 1e6 * per_point, nref, 1e6 * m_tot,
                          1e6 * m_eval, 1e6 * m_rep, 1e6 * m_lft);
    fputs(buf, stdout);
    if (md) {
        FILE *o = fopen(md, "w");
        if (o) {
            fputs(buf, o);
            fclose(o);
        }
    }
    if (svg) {
        const char *names[2] = {"measured", "linear (one thread x threads)"};
        jg_plot_opts_t po = {.title = "jacgraph batch: points per second against threads",
                             .subtitle = "aerospace model, graph method, a sink that counts",
                             .xlabel = "threads", .ylabel = "points/s"};
        jg_plot_t *pl[2] = {NULL, NULL};
        int npl = 0;
        if (!jg_plot_create(2, names, &po, &pl[0], &err)) {
            npl = 1;
            for (int j = 0; j < njobs; j++) {
                double y[2] = {(double)npoints / wall[j], jobs[j] * (double)npoints / base};
                jg_plot_add(pl[0], jobs[j], y, &err);
            }
        }
        if (npl && ranks) {
            if (ranks_panel(ranks, &pl[1], &err)) {
                fprintf(stderr, "bench_batch: --ranks %s: %s\n", ranks, err.msg);
                bad = 1;
            } else {
                npl = 2;
            }
        }
        if (npl && jg_plot_save_svg_stack((const jg_plot_t *const *)pl, npl, svg, &err))
            fprintf(stderr, "bench_batch: %s\n", err.msg);
        jg_plot_free(pl[0]);
        jg_plot_free(pl[1]);
    }
    free(cput);
    free(wall);
    free(sym);
out:
    free(tw);
    free(tsym);
    free(tcpu);
    jg_batch_points_free(P);
    jg_program_free(p);
    jg_model_free(m);
    unlink(path);
    jg_batch_mpi_finalize(0);
    return bad;
}
