/* jacgraph batch: linearize a model at many operating points and parameter
 * values on every core, the results in one file (JSON Lines, MAT, HDF5). */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "jacgraph/batch.h"

/* Exit code when every point ran but some failed (the file marks them). */
enum { EXIT_POINTS_FAILED = 6, EXIT_INTERRUPTED = 130 };

static const char help[] =
    "usage: jacgraph batch MODEL --points FILE [options]\n"
    "       jacgraph batch MODEL --at T1,T2,... [options]\n"
    "\n"
    "Linearize MODEL at every point of FILE (operating points and workspace\n"
    "parameters, docs/batch.md) on every core, one symbolic phase for all of\n"
    "them, and write A, B, C, D per point in point order.\n"
    "\n"
    "  --points FILE       {\"points\": [{\"t\": T, \"states\": {...}, \"inputs\": {...},\n"
    "                      \"parameters\": {NAME: value}}, ...], \"grid\": {NAME: [values]}}:\n"
    "                      each point like a linearize --op file plus workspace\n"
    "                      parameters; the grid a full factorial over parameters,\n"
    "                      crossed with every listed point\n"
    "  --at T1,T2,...      snapshots: simulate from each point (or the default\n"
    "                      operating point) to each time and linearize there\n"
    "  --solver NAME, --rtol R, --atol A, --max-step H   the simulation of --at\n"
    "  --jobs N            worker threads (default: every core this process may use)\n"
    "  --out FILE          results: FILE.jsonl (JSON Lines), FILE.mat (MAT-file\n"
    "                      v7.3), FILE.h5 (HDF5); written under a temporary name and\n"
    "                      renamed when complete (default: JSON Lines on stdout)\n"
    "  --layout auto|dense|sparse   how .mat and .h5 files store A, B, C, D: dense,\n"
    "                      an m x n array per point (only for matrices of at most\n"
    "                      10,000 elements); sparse, each distinct pattern once and\n"
    "                      the nonzero values per point; auto (default) dense for a\n"
    "                      matrix of at most 10,000 elements whose first model has\n"
    "                      nonzeros in at least a quarter of them, sparse otherwise\n"
    "  --no-progress       no progress bar (shown on a terminal's stderr)\n"
    "  --method graph|matrix|perturb, --reduce STRATEGY (any of `jacgraph strategies`;\n"
    "  default markowitz), --order FILE,\n"
    "  --input BLOCK:N, --output BLOCK:N, --open BLOCK:N, --no-default-io,\n"
    "  --delays pade:N|exact   as for jacgraph linearize\n"
    CLI_TIME_HELP
    "\n"
    "Under mpirun or srun (a build with meson setup -Dmpi=enabled), rank r of K\n"
    "takes the points k with k mod K = r on its --jobs threads and rank 0 writes\n"
    "the file (docs/batch.md, \"Across machines: MPI\").\n"
    "\n"
    "Exit codes: 0 every point linearized; 6 every point ran but some failed (the\n"
    "output marks them with their error); 130 interrupted (no output file); the\n"
    "usual codes (docs/cli.md) for errors before the points run.\n";

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* "1,2.5,10" -> increasing times; the count, or -1 when malformed. */
static int parse_times(const char *s, double *t, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || n == max || (n && !(v > t[n - 1])) || !isfinite(v)) return -1;
        t[n++] = v;
        s = end;
        if (*s == ',') s++;
        else if (*s) return -1;
    }
    return n ? n : -1;
}

typedef struct {
    jg_io_batch_t *w;
    jg_error_t err;     /* the writer's error */
    int failed;
} sink_t;

static int sink(void *ctx, int64_t k, const double *vals, const jg_lin_sys_t *sys, const char *error)
{
    sink_t *s = ctx;
    if (interrupted) return 1;
    if (jg_io_batch_put(s->w, k, vals, sys, error, &s->err)) {
        s->failed = 1;
        return 1;
    }
    return 0;
}

/* The progress bar on stderr: points done, rate, time left; at most ten
 * redraws a second. */
typedef struct {
    double t0, last;
} progress_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void progress(void *ctx, int64_t done, int64_t total)
{
    progress_t *pr = ctx;
    double t = now();
    if (done < total && t - pr->last < 0.1) return;
    pr->last = t;
    double el = t - pr->t0, rate = el > 0 ? (double)done / el : 0;
    int bar = total ? (int)(30 * done / total) : 30;
    char b[31];
    for (int k = 0; k < 30; k++) b[k] = k < bar ? '#' : ' ';
    b[30] = 0;
    fprintf(stderr, "\r[%s] %lld/%lld points, %.0f/s", b, (long long)done, (long long)total, rate);
    if (done < total && rate > 0) fprintf(stderr, ", %.0f s left  ", (double)(total - done) / rate);
    else fprintf(stderr, "           ");
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

/* --rate, --ts: the linearize options that turn each result into discrete time
 * (cli_time_apply without printing: it runs on the worker threads). */
typedef struct {
    const cli_time_t *tm;
    int discrete;
} post_t;

static jg_status_t post(void *ctx, jg_lin_t *l, jg_lin_sys_t **s, jg_error_t *err)
{
    const post_t *pc = ctx;
    jg_lin_sys_t *sd = NULL;
    jg_status_t st;
    if (pc->discrete) {
        if ((st = jg_analysis_lin_discrete(l, &pc->tm->ro, &sd, err))) return st;
        jg_lin_sys_free(*s);
        *s = sd;
    }
    if (pc->tm->ts_s) {
        if ((*s)->Ts > 0)
            return jg_error_set(err, JG_ARG, "the model linearizes to discrete time (Ts = %g): --ts "
                                "converts continuous results; use --rate", (*s)->Ts);
        if ((st = jg_analysis_lin_convert(*s, pc->tm->c2d_ts, (jg_analysis_c2d_t)pc->tm->c2d_m,
                                          pc->tm->c2d_w, &sd, err)))
            return st;
        jg_lin_sys_free(*s);
        *s = sd;
    }
    return JG_OK;
}

int cmd_batch(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "batch"};
    cli_io_t io = {0};
    cli_time_t tm = {0};
    const char *model = NULL, *method = "graph", *reduce = NULL, *order = NULL, *out = NULL,
               *points = NULL, *at_s = NULL, *jobs_s = NULL, *layout_s = NULL;
    const char *solver_s = NULL, *rtol_s = NULL, *atol_s = NULL, *hmax_s = NULL;
    int r, show_progress = 1;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        if ((r = cli_io_opt(&a, &io)) || (r = cli_time_opt(&a, &tm)) ||
            (r = cli_opt(&a, "--method", &method)) || (r = cli_opt(&a, "--reduce", &reduce)) ||
            (r = cli_opt(&a, "--order", &order)) ||
            (r = cli_opt(&a, "--out", &out)) || (r = cli_opt(&a, "--points", &points)) ||
            (r = cli_opt(&a, "--layout", &layout_s)) ||
            (r = cli_opt(&a, "--at", &at_s)) || (r = cli_opt(&a, "--jobs", &jobs_s)) ||
            (r = cli_opt(&a, "--solver", &solver_s)) || (r = cli_opt(&a, "--rtol", &rtol_s)) ||
            (r = cli_opt(&a, "--atol", &atol_s)) || (r = cli_opt(&a, "--max-step", &hmax_s))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if (cli_flag(&a, "--no-progress")) {
            show_progress = 0;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    if (!points && !at_s) return cli_usage(a.cmd, "expected --points FILE and/or --at T1,...");
    if (io.op) return cli_usage(a.cmd, "--op: write the operating points into the --points file");
    int m = jg_lin_method_parse(method);
    const jg_graph_strategy_t *strat;
    if (m < 0) return cli_usage(a.cmd, "unknown --method '%s' (graph, matrix, perturb)", method);
    if ((r = cli_strategy(a.cmd, reduce, order, "markowitz", &strat))) return r;
    if ((r = cli_time_check(a.cmd, &tm, &io))) return r;
    int jobs = 0;
    if (jobs_s) {
        char *end;
        long j = strtol(jobs_s, &end, 10);
        if (!*jobs_s || *end || j < 1 || j > 1024) return cli_usage(a.cmd, "--jobs must be 1..1024");
        jobs = (int)j;
    }
    jg_io_batch_format_t fmt = JG_IO_BATCH_JSONL;
    if (out && jg_io_batch_format_parse(out, &fmt))
        return cli_usage(a.cmd, "--out '%s': expected a .jsonl, .mat or .h5 file", out);
    jg_io_batch_layout_t layout = JG_IO_BATCH_AUTO;
    if (layout_s) {
        static const char *const lnames[3] = {"auto", "dense", "sparse"};
        int l = 0;
        while (l < 3 && strcmp(layout_s, lnames[l])) l++;
        if (l == 3) return cli_usage(a.cmd, "unknown --layout '%s' (auto, dense, sparse)", layout_s);
        if (fmt == JG_IO_BATCH_JSONL)
            return cli_usage(a.cmd, "--layout applies to .mat and .h5 output, not JSON Lines");
        layout = (jg_io_batch_layout_t)l;
    }
    double at[256];
    int nat = 0;
    if (at_s && (nat = parse_times(at_s, at, 256)) < 0)
        return cli_usage(a.cmd, "--at expects increasing times separated by commas, e.g. 1,2.5,10");
    if (!nat && (solver_s || rtol_s || atol_s || hmax_s))
        return cli_usage(a.cmd, "--solver, --rtol, --atol and --max-step go with --at");
    jg_batch_opts_t bo = {.method = (jg_lin_method_t)m, .strategy = strat, .jobs = jobs};
    bo.sim.solver = JG_SOLVER_ODE45;
    if (solver_s && (r = cli_sim_methods(solver_s, NULL, &bo.sim))) return r;
    const char *const tol_names[3] = {"--rtol", "--atol", "--max-step"};
    const char *const tol_vals[3] = {rtol_s, atol_s, hmax_s};
    double *const tol_dst[3] = {&bo.sim.so.rtol, &bo.sim.so.atol, &bo.sim.so.max_step};
    for (int k = 0; k < 3; k++) {
        char *end;
        if (!tol_vals[k]) continue;
        *tol_dst[k] = strtod(tol_vals[k], &end);
        if (*end || !(*tol_dst[k] > 0) || !isfinite(*tol_dst[k]))
            return cli_usage(a.cmd, "%s must be a positive number", tol_names[k]);
    }
    bo.lin = (jg_lin_opts_t){.nin = io.nin, .nout = io.nout, .nopen = io.nopen, .in = io.in,
                             .out = io.out, .open = io.open, .no_defaults = io.no_defaults,
                             .delays = (jg_lin_delays_t)io.delays, .pade_order = io.pade_order};
    bo.model_path = model;
    bo.import = cli_import_opts();
    bo.nplugins = cli_plugins(&bo.plugins);

    jg_model_t *md = NULL;
    jg_program_t *p = NULL;
    jg_batch_points_t *P = NULL;
    sink_t sk = {0};
    jg_batch_stats_t bs;
    jg_error_t err;
    jg_error_clear(&err);
    jg_error_clear(&sk.err);
    progress_t pr = {now(), 0};
    post_t pc = {&tm, 0};
    struct sigaction sa = {0}, old_int, old_term;
    int sig_set = 0;
    /* under mpirun or srun: this process's share of the points, rank 0
     * writes the file (docs/batch.md, "Across machines") */
    int rank = 0, nranks = 1;
    if (jg_batch_mpi_init(&rank, &nranks, &err)) return cli_fail(&err);
    int rc = cli_load(model, &md, &p);
    if (rc) goto done;
    pc.discrete = tm.want_rate > 0 || (!tm.want_rate && jg_analysis_has_discrete(p));
    if (pc.discrete || tm.ts_s) {
        bo.post = post;
        bo.post_ctx = &pc;
    }
    if ((points ? jg_batch_points_read(points, p, &P, &err) : jg_batch_points_default(p, &P, &err)) ||
        (nat && jg_batch_points_set_times(P, nat, at, &err))) {
        rc = cli_fail(&err);
        goto done;
    }
    int nv = jg_batch_points_nvals(P);
    const char **names = malloc(sizeof(char *) * (size_t)(nv + 1));
    if (!names) {
        jg_error_set(&err, JG_NOMEM, "out of memory");
        rc = cli_fail(&err);
        goto done;
    }
    for (int j = 0; j < nv; j++) names[j] = jg_batch_points_name(P, j);
    jg_status_t ost = rank ? JG_OK : jg_io_batch_open(out ? out : "/dev/stdout", fmt,
                                                      jg_batch_points_count(P), nv, names, &sk.w, &err);
    free(names);
    if (!ost && sk.w) ost = jg_io_batch_set_layout(sk.w, layout, &err);
    if (ost) {
        rc = cli_fail(&err);
        goto done;
    }
    /* Ctrl-C and kill: stop at the next point and remove the temporary file */
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sig_set = 1;
    if (show_progress && rank == 0 && isatty(STDERR_FILENO)) {
        bo.progress = progress;
        bo.progress_ctx = &pr;
    }
    jg_status_t st = jg_batch_mpi_run(p, P, &bo, sink, &sk, &bs, &err);   /* jg_batch_run without MPI */
    if (st) {
        jg_io_batch_close(sk.w, 0, NULL);
        sk.w = NULL;
        if (interrupted) {
            fprintf(stderr, "jacgraph: interrupted: no output written\n");
            rc = EXIT_INTERRUPTED;
        } else {
            rc = cli_fail(sk.failed ? &sk.err : &err);
        }
        goto done;
    }
    jg_io_batch_t *w = sk.w;
    sk.w = NULL;
    if (jg_io_batch_close(w, 1, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    if (bs.nfailed && rank == 0) {   /* (rank 0 counts every rank's points) */
        fprintf(stderr, "jacgraph: %lld of %lld points failed (marked in the output)\n",
                (long long)bs.nfailed, (long long)bs.npoints);
        rc = EXIT_POINTS_FAILED;
    }
done:
    if (sk.w) jg_io_batch_close(sk.w, 0, NULL);
    /* MPI: a failure ends every rank, after rank 0 removed its partial file */
    jg_batch_mpi_finalize(rc && rc != EXIT_POINTS_FAILED ? rc : 0);
    if (sig_set) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    jg_batch_points_free(P);
    jg_program_free(p);
    jg_model_free(md);
    return rc;
}
