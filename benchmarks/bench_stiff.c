/* bench_stiff: solver Jacobian methods and the stiff solver ode15s on a stiff
 * sparse model family of growing size.
 *
 *   bench_stiff [options]
 *
 * The family is `jacgraph generate brusselator --states N` (docs/generator.md):
 * the 2-D Brusselator with diffusion on an nx x ny periodic grid, 2 nx ny
 * states in two vector Integrators, 25 blocks at every size.  For each size
 * (default 100, 1,000, 10,000, 100,000 states) the program
 *
 *   1. generates the model with the jacgraph CLI (--jacgraph, default the one
 *      next to this build: ../tools/jacgraph), loads and compiles it, and
 *      checks that the diagram's f at x0 is the hand-written one
 *      (benchmarks/bruss_hand.c) to the last bit;
 *   2. per solver Jacobian method (jacgraph/solverjac.h: full-perturbation,
 *      sparse-perturbation, full-analytical, sparse-analytical; the full ones
 *      up to --full-max states) creates the jg_solverjac_t (graph build,
 *      elimination, pattern, coloring: the "setup" column, one run), checks
 *      its J_x at x0 against the hand-written analytic Jacobian (the largest
 *      difference relative to the largest entry), then times jg_solverjac_eval at
 *      (0, x0) given f(x0), as the solvers call it, for all methods
 *      interleaved: round after round, one sample per method, a sample being
 *      a batch of evaluations sized to take about 5 ms, until every method
 *      has --repeat samples and --min-time seconds (a method stops at
 *      --max-runs samples or after --max-time seconds); reports the medians
 *      per evaluation (CPU and wall) and the evaluations of f per Jacobian
 *      (counted by the jg_solverjac_t's statistics);
 *   3. reports the colors of the column grouping against the largest number of
 *      entries in a row of the structural pattern (a lower bound on colors);
 *   4. up to --run-max states, integrates the ODE over [0, --tstop] with
 *      ode15s (CVODE BDF + KLU) three ways, alternated, at least --run-repeat
 *      times each: "hand" (bruss_hand.c's sh_solve: CVODE called directly
 *      with the analytic Jacobian, the program's own x0), and the block
 *      diagram through jg_sim_create + jg_sim_run + jg_sim_free with the
 *      sparse-analytical and the sparse-perturbation solver Jacobian (the same
 *      tolerances, maximum step (tstop)/50 and CVODE options); reports median
 *      wall times, the solver statistics, the ratio to hand (the overhead,
 *      target <= 1.5) and the largest difference of x(tstop) from hand's.
 *
 * Targets: sparse-analytical >= 10x faster per Jacobian than
 * full-perturbation at 1,000 states (the size nearest 1,000 that was measured
 * with both), and the whole-run overhead of the diagram with the
 * sparse-analytical Jacobian <= 1.5x; the summary says met or not met.
 *
 * Output: markdown on stdout (and --md FILE), --csv-jac FILE and --csv-run
 * FILE.  Exit status: 0; 1 when a check failed (f or the Jacobian differ from
 * the hand-written ones beyond --tol, a whole run disagrees with hand beyond
 * --run-tol, or a library call failed); 2 usage.  The targets do not affect
 * the exit status (benchmarks measure; see benchmarks/README.md). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "jacgraph/jacgraph.h"
#include "bruss_hand.h"
#include "measure.h"

static const char usage[] =
    "usage: bench_stiff [options]\n"
    "\n"
    "  --states LIST     sizes in states, comma-separated (default 100,1000,10000,100000);\n"
    "                    each must be 2 nx ny (jacgraph generate brusselator --help)\n"
    "  --seed S          generator seed (default 1)\n"
    "  --jacgraph PATH   the CLI that generates the models (default: ../tools/jacgraph\n"
    "                    next to this program)\n"
    "  --full-max N      full (dense) methods up to N states (default 10000)\n"
    "  --repeat N        timed samples per method, at least (default 5)...\n"
    "  --min-time S      ...and more until they took S seconds (default 0.5)\n"
    "  --max-runs N      at most N samples per method (default 1000)\n"
    "  --max-time S      stop sampling a method after S seconds (default 20)\n"
    "  --run-max N       whole ode15s runs up to N states (default 10000)\n"
    "  --run-repeat N    whole runs per variant, at least (default 3)...\n"
    "  --run-min-time S  ...and more until each variant took S seconds (default 2)\n"
    "  --tstop T         whole runs over [0, T] (default 1)\n"
    "  --rtol R          (default 1e-6)\n"
    "  --atol A          (default 1e-6)\n"
    "  --tol T           f and analytical Jacobian vs hand-written, relative (default 1e-12)\n"
    "  --run-tol T       x(tstop) of the diagram vs hand, relative to max |x| (default 1e-4)\n"
    "  --keep DIR        write the generated models to DIR (default: a temporary directory,\n"
    "                    removed at the end)\n"
    "  --md FILE         also write the markdown to FILE\n"
    "  --csv-jac FILE    one row per size and Jacobian method\n"
    "  --csv-run FILE    one row per size and whole-run variant\n";

typedef struct {
    int64_t *states;
    int nstates;
    unsigned long long seed;
    const char *jacgraph, *keep, *md, *csv_jac, *csv_run;
    int64_t full_max, run_max;
    int repeat, max_runs, run_repeat;
    double min_time, max_time, run_min_time, tstop, rtol, atol, tol, run_tol;
} opts_t;

/* ------------------------------------------------------------ results */

enum { M_FP, M_SP, M_FA, M_SA, NMETH };
static const char *const meth_name[NMETH] = {"full-perturbation", "sparse-perturbation", "full-analytical",
                                             "sparse-analytical"};

typedef struct {
    int done;              /* measured */
    char skip[128];        /* why not */
    int runs, batch;       /* samples, evaluations per sample */
    double t_setup, t_med; /* CPU seconds: setup (one run), median per Jacobian */
    double t_wall;         /* median wall seconds per Jacobian */
    double fevals;         /* f evaluations per Jacobian (measured) */
    double diff;           /* max |J - J_hand| / max |J_hand| */
} jrow_t;

enum { R_HAND, R_SA, R_SP, NRUN };
static const char *const run_name[NRUN] = {"hand-written CVODE (stiff_hand.c)", "ode15s, sparse-analytical",
                                           "ode15s, sparse-perturbation"};

typedef struct {
    int done;
    int runs;
    double t_med, t_wall;  /* medians: CPU, wall seconds */
    long steps, rejected, fevals, fevals_jac, jevals, factorizations;
    double diff;           /* max |x - x_hand| / max |x_hand| at tstop */
} rrow_t;

typedef struct {
    int64_t n, nx, ny;
    int ok;
    char err[1200];
    int32_t nblocks, nreal;
    double file_mb, t_gen, t_compile;
    double fdiff;          /* f(x0): diagram vs hand */
    int64_t nnz, maxrow, ncolors;
    jrow_t j[NMETH];
    int run_done;
    char run_skip[128];
    rrow_t r[NRUN];
} row_t;

/* ------------------------------------------------------------ helpers */

static int run_cmd(char *const argv[], char *msg, size_t len)
{
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(msg, len, "fork failed: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        execv(argv[0], argv);
        fprintf(stderr, "bench_stiff: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) break;
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        snprintf(msg, len, "'%s %s %s ...' failed (status %d)", argv[0], argv[1], argv[2],
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    return 0;
}

/* the diagram's f at (t, x) on work w */
static jg_status_t diagram_f(jg_eval_work_t *w, int64_t n, double t, const double *x, double *dx, jg_error_t *err)
{
    memcpy(jg_eval_states(w), x, sizeof(double) * (size_t)n);
    jg_status_t st = jg_eval_outputs(w, t, err);
    return st ? st : jg_eval_derivatives(w, dx, err);
}

/* ------------------------------------------------------------ one size */

typedef struct {
    const opts_t *o;
    const sh_bruss_t *b;
    const jg_program_t *p;
    int64_t n;
    const double *x0;
    /* hand-written J at x0, compressed-column */
    int64_t *hp, *hi;
    double *hx, hmax;
} ctx_t;

/* max |J - H| / max |H| for J in pattern P (sparse or dense column-major) */
static double jac_diff(const ctx_t *c, const cs_dl *J)
{
    const int64_t n = c->n;
    double d = 0;
    double *col = calloc((size_t)n, sizeof(double));
    if (!col) return INFINITY;
    for (int64_t j = 0; j < n; j++) {
        for (int64_t k = c->hp[j]; k < c->hp[j + 1]; k++) col[c->hi[k]] = c->hx[k];
        for (int64_t k = J->p[j]; k < J->p[j + 1]; k++) {
            d = fmax(d, fabs(J->x[k] - col[J->i[k]]));
            col[J->i[k]] = 0;   /* seen */
        }
        for (int64_t k = c->hp[j]; k < c->hp[j + 1]; k++) {
            d = fmax(d, fabs(col[c->hi[k]]));   /* entries J does not have */
            col[c->hi[k]] = 0;
        }
    }
    free(col);
    return d / c->hmax;
}

/* One method under measurement. */
typedef struct {
    jg_solverjac_t *J;
    cs_dl *M;
    double *fx;
    int batch;             /* evaluations per timed sample */
    int nsamp;
    double *wall, *cpu;    /* per evaluation, one per sample */
    double total;          /* wall seconds of the samples */
    jg_solverjac_stats_t s0;
} meas_t;

/* Create method m's jg_solverjac_t (timed: the setup), check its J_x at x0
 * against the hand-written one (one warm-up evaluation, also timed to size
 * the batches).  Returns 0, 1 when skipped (r->skip), -1 on error. */
static int method_open(const ctx_t *c, int m, meas_t *q, jrow_t *r, row_t *row, jg_error_t *err)
{
    const opts_t *o = c->o;
    const int64_t n = c->n;
    memset(q, 0, sizeof *q);
    if ((m == M_FP || m == M_FA) && n > o->full_max) {
        snprintf(r->skip, sizeof r->skip, "skipped: %" PRId64 " states > --full-max %" PRId64, n, o->full_max);
        return 1;
    }
    int cap = o->max_runs;
    q->fx = malloc(sizeof(double) * (size_t)n);
    q->wall = malloc(2 * sizeof(double) * (size_t)cap);
    if (!q->fx || !q->wall) goto nomem;
    q->cpu = q->wall + cap;
    double t0 = sh_cpu();
    if (jg_solverjac_create(c->p, (jg_solverjac_method_t)(m + 1), NULL, &q->J, err)) return -1;
    r->t_setup = sh_cpu() - t0;
    if (jg_solverjac_method(q->J) != (jg_solverjac_method_t)(m + 1)) {
        jg_error_set(err, JG_INTERNAL, "%s: the jg_solverjac_t uses %s (%s)", meth_name[m],
                     jg_solverjac_method_name(jg_solverjac_method(q->J)), jg_solverjac_reason(q->J));
        return -1;
    }
    if (row->ncolors < 0) {   /* the structure is the same for every method */
        const cs_dl *S = jg_solverjac_structure(q->J);
        row->nnz = S->p[n];
        row->maxrow = jg_solverjac_max_row_nnz(q->J);
        row->ncolors = jg_solverjac_ncolors(q->J);
    }
    q->M = jg_solverjac_alloc(q->J);
    if (!q->M) goto nomem;
    if (diagram_f(jg_solverjac_work(q->J), n, 0, c->x0, q->fx, err)) return -1;
    t0 = sh_now();
    if (jg_solverjac_eval(q->J, 0, c->x0, q->fx, q->M, err)) return -1;   /* warm-up */
    double tw = sh_now() - t0;
    /* samples of at least 5 ms, so that short evaluations are not clock noise */
    q->batch = tw >= 5e-3 ? 1 : tw <= 5e-6 ? 1000 : (int)ceil(5e-3 / tw);
    r->diff = jac_diff(c, q->M);
    /* perturbation: forward differences, about sqrt(eps) relative */
    double tol = m == M_FA || m == M_SA ? o->tol : 1e-5;
    if (!(r->diff <= tol)) {
        jg_error_set(err, JG_MISMATCH, "%s: J_x differs from the hand-written Jacobian by %.3g "
                     "(relative; tolerance %g)", meth_name[m], r->diff, tol);
        return -1;
    }
    jg_solverjac_get_stats(q->J, &q->s0);
    return 0;
nomem:
    jg_error_set(err, JG_NOMEM, "%s: out of memory at %" PRId64 " states", meth_name[m], n);
    return -1;
}

static void method_close(meas_t *q)
{
    free(q->fx);
    free(q->wall);
    cs_dl_spfree(q->M);
    jg_solverjac_free(q->J);
    memset(q, 0, sizeof *q);
}

/* 1 while method q wants more samples on its own account */
static int wants_more(const opts_t *o, const meas_t *q)
{
    if (q->nsamp >= o->max_runs) return 0;
    if (q->nsamp >= 1 && o->max_time > 0 && q->total >= o->max_time) return 0;
    return q->nsamp < o->repeat || q->total < o->min_time;
}

/* Time every method that was opened, interleaved: in each round, one sample
 * (a batch of evaluations) per method, so that a change of machine load
 * during the measurement hits all methods alike.  Rounds go on while some
 * method wants more samples; the others keep sampling alongside (up to
 * --max-runs samples), so the ratios compare the same stretch of time. */
static int time_methods(const ctx_t *c, meas_t *q, jrow_t *r, jg_error_t *err)
{
    const opts_t *o = c->o;
    for (;;) {
        int any = 0;
        for (int m = 0; m < NMETH; m++) any |= q[m].J && wants_more(o, &q[m]);
        if (!any) break;
        for (int m = 0; m < NMETH; m++) {
            meas_t *x = &q[m];
            if (!x->J || x->nsamp >= o->max_runs || (x->nsamp >= 1 && o->max_time > 0 && x->total >= o->max_time))
                continue;
            double ta = sh_now(), ca = sh_cpu();
            for (int b = 0; b < x->batch; b++)
                if (jg_solverjac_eval(x->J, 0, c->x0, x->fx, x->M, err)) return -1;
            double cw = sh_cpu() - ca, tw = sh_now() - ta;
            x->cpu[x->nsamp] = cw / x->batch;
            x->wall[x->nsamp++] = tw / x->batch;
            x->total += tw;
        }
    }
    for (int m = 0; m < NMETH; m++) {
        meas_t *x = &q[m];
        if (!x->J) continue;
        jg_solverjac_stats_t s1;
        jg_solverjac_get_stats(x->J, &s1);
        long evals = (long)x->nsamp * x->batch;
        r[m].runs = x->nsamp;
        r[m].batch = x->batch;
        r[m].fevals = (double)(s1.fevals + s1.fevals_base - x->s0.fevals - x->s0.fevals_base) / (double)evals;
        r[m].t_wall = jgb_median(x->wall, x->nsamp);
        r[m].t_med = jgb_median(x->cpu, x->nsamp);
        r[m].done = 1;
    }
    return 0;
}

static int run_diagram(const ctx_t *c, const char *method, rrow_t *r, double *x, double *secs, double *cpu,
                       jg_error_t *err)
{
    const opts_t *o = c->o;
    jg_sim_opts_t so;
    memset(&so, 0, sizeof so);
    so.solver = JG_SOLVER_ODE15S;
    so.t0 = 0;
    so.tstop = o->tstop;
    so.so.rtol = o->rtol;
    so.so.atol = o->atol;
    so.so.max_step = o->tstop / 50;   /* jacgraph's default, given explicitly as to hand */
    so.jacobian = (jg_solverjac_method_t)jg_solverjac_method_parse(method);
    jg_sim_t *sim = NULL;
    double t0 = sh_now(), c0 = sh_cpu();
    if (jg_sim_create(c->p, &so, &sim, err)) return -1;
    if (jg_sim_run(sim, o->tstop, NULL, NULL, err)) {
        jg_sim_free(sim);
        return -1;
    }
    jg_sim_stats_t sst;
    jg_sim_stats(sim, &sst);
    jg_solver_stats_t st = sst.solver;
    memcpy(x, jg_sim_states(sim), sizeof(double) * (size_t)c->n);
    jg_sim_free(sim);
    *secs = sh_now() - t0;
    *cpu = sh_cpu() - c0;
    r->steps = st.steps;
    r->rejected = st.rejected;
    r->fevals = st.fevals;
    r->fevals_jac = st.fevals_jac;
    r->jevals = st.jevals;
    r->factorizations = st.factorizations;
    return 0;
}

static int whole_runs(const ctx_t *c, row_t *row, jg_error_t *err)
{
    const opts_t *o = c->o;
    const int64_t n = c->n;
    int cap = 1000, rc = -1;
    double *t[NRUN] = {0}, *tc[NRUN] = {0}, *xh = malloc(sizeof(double) * (size_t)n), *xd = malloc(sizeof(double) * (size_t)n);
    int nomem = !xh || !xd;
    for (int v = 0; v < NRUN; v++) {
        nomem |= !(t[v] = malloc(sizeof(double) * (size_t)cap));
        nomem |= !(tc[v] = malloc(sizeof(double) * (size_t)cap));
    }
    if (nomem) {
        jg_error_set(err, JG_NOMEM, "whole runs: out of memory");
        goto done;
    }
    sh_opts_t ho = {0, o->tstop, o->rtol, o->atol, o->tstop / 50};
    double total[NRUN] = {0};
    int k = 0;
    /* alternate the variants, so that a change of machine load hits all alike,
     * and rotate which goes first (hand is needed before the others' diff:
     * its x(tstop) is kept from its first run) */
    for (;;) {
        int more = k < o->run_repeat;
        for (int v = 0; v < NRUN; v++) more |= total[v] < o->run_min_time;
        if (!more || k >= cap) break;
        for (int vv = 0; vv < NRUN; vv++) {
            int v = k == 0 ? vv : (vv + k) % NRUN;
            rrow_t *r = &row->r[v];
            double secs = 0, cpu = 0;
            if (v == R_HAND) {
                sh_stats_t hs;
                char msg[256];
                memcpy(xh, c->x0, sizeof(double) * (size_t)n);
                if (sh_solve(c->b, &ho, xh, &hs, msg, sizeof msg)) {
                    jg_error_set(err, JG_NUMERIC, "%s", msg);
                    goto done;
                }
                secs = hs.seconds;
                cpu = hs.cpu_seconds;
                r->steps = hs.steps;
                r->rejected = hs.err_fails + hs.conv_fails;
                r->fevals = hs.fevals;
                r->fevals_jac = 0;
                r->jevals = hs.jevals;
                r->factorizations = hs.setups;
                r->diff = 0;
            } else {
                if (run_diagram(c, v == R_SA ? "sparse-analytical" : "sparse-perturbation", r, xd, &secs, &cpu,
                                err))
                    goto done;
                double d = 0, mx = 0;
                for (int64_t i = 0; i < n; i++) {
                    d = fmax(d, fabs(xd[i] - xh[i]));
                    mx = fmax(mx, fabs(xh[i]));
                }
                r->diff = d / mx;
            }
            t[v][k] = secs;
            tc[v][k] = cpu;
            total[v] += secs;
        }
        k++;
    }
    for (int v = 0; v < NRUN; v++) {
        row->r[v].runs = k;
        row->r[v].t_wall = jgb_median(t[v], k);
        row->r[v].t_med = jgb_median(tc[v], k);
        row->r[v].done = 1;
    }
    row->run_done = 1;
    rc = 0;
done:
    for (int v = 0; v < NRUN; v++) free(t[v]), free(tc[v]);
    free(xh);
    free(xd);
    return rc;
}

static int measure_size(const opts_t *o, const char *dir, row_t *row)
{
    jg_error_t err = {0};
    jg_model_t *mdl = NULL;
    jg_program_t *p = NULL;
    jg_eval_work_t *w = NULL;
    double *x0 = NULL, *fd = NULL, *fh = NULL;
    ctx_t c = {0};
    sh_bruss_t b;
    int bad = 0;
    const int64_t n = row->n;
    row->ncolors = -1;
    if (jg_gen_brusselator_grid(n, &row->nx, &row->ny)) {
        snprintf(row->err, sizeof row->err, "%" PRId64 " states is not 2 nx ny with 3 <= nx <= ny", n);
        return 1;
    }
    char path[PATH_MAX], nbuf[32], sbuf[32];
    snprintf(path, sizeof path, "%s/brusselator-%" PRId64 ".json", dir, n);
    snprintf(nbuf, sizeof nbuf, "%" PRId64, n);
    snprintf(sbuf, sizeof sbuf, "%llu", o->seed);
    char *argv[] = {(char *)o->jacgraph, "generate", "brusselator", "--states", nbuf, "--seed", sbuf,
                    "--out", path, "--quiet", NULL};
    fprintf(stderr, "bench_stiff: %" PRId64 " states (%" PRId64 "x%" PRId64 " grid)\n", n, row->nx, row->ny);
    double t0 = sh_now();
    if (run_cmd(argv, row->err, sizeof row->err)) return 1;
    row->t_gen = sh_now() - t0;
    FILE *f = fopen(path, "rb");
    if (f) {
        fseek(f, 0, SEEK_END);
        row->file_mb = (double)ftell(f) / 1e6;
        fclose(f);
    }
    t0 = sh_now();
    if (jg_model_read(path, &mdl, &err) || jg_program_compile(mdl, &p, &err)) goto fail;
    row->t_compile = sh_now() - t0;
    jg_model_free(mdl);
    mdl = NULL;
    row->nblocks = jg_program_nblocks(p);
    row->nreal = jg_program_nreal(p);
    int32_t ub = jg_program_find_block(p, "U");
    if (jg_program_nstates(p) != n || ub < 0 || jg_program_port_width(p, ub, 1, 0) != row->nx * row->ny) {
        jg_error_set(&err, JG_MODEL, "%s: %" PRId64 " states, not the %" PRId64 "x%" PRId64 " Brusselator", path,
                     jg_program_nstates(p), row->nx, row->ny);
        goto fail;
    }
    sh_bruss_init(&b, row->nx, row->ny);
    x0 = malloc(sizeof(double) * (size_t)n);
    fd = malloc(sizeof(double) * (size_t)n);
    fh = malloc(sizeof(double) * (size_t)n);
    c.hp = malloc(sizeof(int64_t) * (size_t)(n + 1));
    c.hi = malloc(sizeof(int64_t) * (size_t)(6 * n));
    c.hx = malloc(sizeof(double) * (size_t)(6 * n));
    if (!x0 || !fd || !fh || !c.hp || !c.hi || !c.hx) {
        jg_error_set(&err, JG_NOMEM, "out of memory at %" PRId64 " states", n);
        goto fail;
    }
    if (jg_program_initial_states(p, x0, &err) || jg_eval_create(p, &w, &err) ||
        diagram_f(w, n, 0, x0, fd, &err))
        goto fail;
    sh_bruss_rhs(&b, x0, fh);
    double d = 0, mx = 0;
    for (int64_t i = 0; i < n; i++) {
        d = fmax(d, fabs(fd[i] - fh[i]));
        mx = fmax(mx, fabs(fh[i]));
    }
    row->fdiff = d / mx;
    if (!(row->fdiff <= o->tol)) {
        jg_error_set(&err, JG_MISMATCH, "f(x0) of the diagram differs from the hand-written one by %.3g "
                     "(relative; --tol %g)", row->fdiff, o->tol);
        goto fail;
    }
    sh_bruss_jac(&b, x0, c.hp, c.hi, c.hx);
    c.hmax = 0;
    for (int64_t k = 0; k < c.hp[n]; k++) c.hmax = fmax(c.hmax, fabs(c.hx[k]));
    c.o = o;
    c.b = &b;
    c.p = p;
    c.n = n;
    c.x0 = x0;
    {
        meas_t q[NMETH];
        memset(q, 0, sizeof q);
        int jrc = 0;
        for (int m = 0; m < NMETH && !jrc; m++) {
            fprintf(stderr, "bench_stiff:   %s: set-up\n", meth_name[m]);
            jrc = method_open(&c, m, &q[m], &row->j[m], row, &err) < 0;
        }
        if (!jrc) {
            fprintf(stderr, "bench_stiff:   Jacobians, interleaved\n");
            jrc = time_methods(&c, q, row->j, &err);
        }
        for (int m = 0; m < NMETH; m++) method_close(&q[m]);
        if (jrc) goto fail;
    }
    if (n <= o->run_max) {
        fprintf(stderr, "bench_stiff:   whole runs over [0, %g]\n", o->tstop);
        if (whole_runs(&c, row, &err)) goto fail;
        for (int v = R_SA; v < NRUN; v++)
            if (!(row->r[v].diff <= o->run_tol)) {
                jg_error_set(&err, JG_MISMATCH, "%s: x(%g) differs from hand's by %.3g (relative; --run-tol %g)",
                             run_name[v], o->tstop, row->r[v].diff, o->run_tol);
                goto fail;
            }
    } else {
        snprintf(row->run_skip, sizeof row->run_skip, "skipped: %" PRId64 " states > --run-max %" PRId64, n,
                 o->run_max);
    }
    row->ok = 1;
    goto done;
fail:
    snprintf(row->err, sizeof row->err, "%s", err.msg);
    bad = 1;
done:
    jg_eval_free(w);
    jg_program_free(p);
    jg_model_free(mdl);
    free(x0);
    free(fd);
    free(fh);
    free(c.hp);
    free(c.hi);
    free(c.hx);
    if (!o->keep) remove(path);
    return bad;
}

/* ------------------------------------------------------------ output */

static void fmt_ms(char *buf, size_t len, double s)
{
    if (!isfinite(s)) snprintf(buf, len, "-");
    else if (s < 1e-3) snprintf(buf, len, "%.4f", s * 1e3);
    else if (s < 1) snprintf(buf, len, "%.3f", s * 1e3);
    else snprintf(buf, len, "%.0f", s * 1e3);
}

/* the size measured with both methods nearest to `target` states; -1 none */
static int nearest_with(const row_t *rows, int nrows, int64_t target, int ma, int mb)
{
    int best = -1;
    for (int k = 0; k < nrows; k++) {
        if (!rows[k].ok || !rows[k].j[ma].done || !rows[k].j[mb].done) continue;
        if (best < 0 || llabs(rows[k].n - target) < llabs(rows[best].n - target)) best = k;
    }
    return best;
}

static void write_md(FILE *f, const opts_t *o, const row_t *rows, int nrows)
{
    char host[256];
    jgb_host(host, sizeof host);
    fprintf(f, "### Stiff benchmark: the 2-D Brusselator (`bench_stiff`, %ld cores, %s)\n\n",
            sysconf(_SC_NPROCESSORS_ONLN), host);
    int32_t nb = 0, nr = 0;
    for (int k = 0; k < nrows && !nb; k++)
        if (rows[k].ok) nb = rows[k].nblocks, nr = rows[k].nreal;
    fprintf(f, "Models: `jacgraph generate brusselator --states N --seed %llu` (%d blocks, %d of them real, "
               "at every size).  Jacobians at t = 0, x0.  Times are medians of the process CPU time (the wall "
               "time also counts other processes on a shared machine; it is in the CSV and in parentheses).  "
               "Whole runs: ode15s over [0, %g], rtol %g, atol %g, maximum step %g.\n\n",
            o->seed, (int)nb, (int)nr, o->tstop, o->rtol, o->atol, o->tstop / 50);
    fprintf(f, "| states | grid | file MB | compile s | pattern nnz | max nnz in a row (lower bound) | colors | "
               "f(x0) vs hand |\n|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int k = 0; k < nrows; k++) {
        const row_t *r = &rows[k];
        if (!r->ok) {
            fprintf(f, "| %" PRId64 " | failed: %s | | | | | | |\n", r->n, r->err);
            continue;
        }
        fprintf(f, "| %" PRId64 " | %" PRId64 "x%" PRId64 " | %.2f | %.3f | %" PRId64 " | %" PRId64 " | %" PRId64
                   " | %.1e |\n",
                r->n, r->nx, r->ny, r->file_mb, r->t_compile, r->nnz, r->maxrow, r->ncolors, r->fdiff);
    }
    fprintf(f, "\nPer Jacobian (`jg_solverjac_eval` given f(x0), as the solvers call it; the methods are timed "
               "interleaved, one sample of `batch` evaluations per method and round; setup = `jg_solverjac_create`: "
               "graph build, elimination, pattern, coloring, once):\n\n");
    fprintf(f, "| states | method | samples x batch | CPU ms per Jacobian (wall) | f evals per Jacobian | setup ms | "
               "full-perturbation / this | max rel diff vs hand J |\n|--:|---|--:|--:|--:|--:|--:|--:|\n");
    for (int k = 0; k < nrows; k++) {
        const row_t *r = &rows[k];
        if (!r->ok) continue;
        for (int m = 0; m < NMETH; m++) {
            const jrow_t *j = &r->j[m];
            if (!j->done) {
                fprintf(f, "| %" PRId64 " | %s | - | %s | | | | |\n", r->n, meth_name[m], j->skip);
                continue;
            }
            char a[32], aw[32], s[32], sp[32] = "-";
            fmt_ms(a, sizeof a, j->t_med);
            fmt_ms(aw, sizeof aw, j->t_wall);
            fmt_ms(s, sizeof s, j->t_setup);
            if (r->j[M_FP].done) snprintf(sp, sizeof sp, "%.1f", r->j[M_FP].t_med / j->t_med);
            fprintf(f, "| %" PRId64 " | %s | %d x %d | %s (%s) | %.0f | %s | %s | %.1e |\n", r->n, meth_name[m],
                    j->runs, j->batch, a, aw, j->fevals, s, sp, j->diff);
        }
    }
    fprintf(f, "\nWhole runs (create + run + free of the simulation; hand: CVode set-up to free):\n\n");
    fprintf(f, "| states | variant | runs | CPU s (wall) | steps | rejected | f evals (for J) | Jacobians | "
               "factorizations | **/ hand** (wall) | max rel diff of x(T) vs hand |\n"
               "|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int k = 0; k < nrows; k++) {
        const row_t *r = &rows[k];
        if (!r->ok) continue;
        if (!r->run_done) {
            fprintf(f, "| %" PRId64 " | (all) | - | %s | | | | | | | |\n", r->n, r->run_skip);
            continue;
        }
        for (int v = 0; v < NRUN; v++) {
            const rrow_t *q = &r->r[v];
            fprintf(f, "| %" PRId64 " | %s | %d | %.4g (%.4g) | %ld | %ld | %ld (%ld) | %ld | %ld | **%.2f** (%.2f) | "
                       "%.1e |\n",
                    r->n, run_name[v], q->runs, q->t_med, q->t_wall, q->steps, q->rejected, q->fevals, q->fevals_jac,
                    q->jevals, q->factorizations, q->t_med / r->r[R_HAND].t_med, q->t_wall / r->r[R_HAND].t_wall,
                    q->diff);
        }
    }
    fprintf(f, "\nTargets:\n\n");
    int k = nearest_with(rows, nrows, 1000, M_FP, M_SA);
    if (k < 0) fprintf(f, "- sparse-analytical vs full-perturbation: not measured\n");
    else {
        double ratio = rows[k].j[M_FP].t_med / rows[k].j[M_SA].t_med;
        fprintf(f, "- sparse-analytical is **%.1fx** faster per Jacobian than full-perturbation at %" PRId64
                   " states (CPU time; wall %.1fx; target >= 10x): **%s**\n",
                ratio, rows[k].n, rows[k].j[M_FP].t_wall / rows[k].j[M_SA].t_wall, ratio >= 10 ? "met" : "not met");
    }
    int any = 0;
    for (int q = 0; q < nrows; q++) {
        if (!rows[q].ok || !rows[q].run_done) continue;
        double ratio = rows[q].r[R_SA].t_med / rows[q].r[R_HAND].t_med;
        fprintf(f, "- whole-run overhead, ode15s + sparse-analytical on the diagram / hand-written CVODE, %" PRId64
                   " states: **%.2fx** (CPU time; wall %.2fx; target <= 1.5x): **%s**\n",
                rows[q].n, ratio, rows[q].r[R_SA].t_wall / rows[q].r[R_HAND].t_wall, ratio <= 1.5 ? "met" : "not met");
        any = 1;
    }
    if (!any) fprintf(f, "- whole-run overhead: not measured\n");
}

static void write_csv_jac(FILE *f, const row_t *rows, int nrows)
{
    fprintf(f, "states,nx,ny,method,measured,samples,batch,cpu_seconds_per_jacobian,wall_seconds_per_jacobian,"
               "fevals_per_jacobian,setup_cpu_seconds,"
               "pattern_nnz,max_row_nnz,colors,max_rel_diff_vs_hand,note\n");
    for (int k = 0; k < nrows; k++) {
        const row_t *r = &rows[k];
        if (!r->ok) {
            fprintf(f, "%" PRId64 ",,,,0,,,,,,,,,,,\"failed: %s\"\n", r->n, r->err);
            continue;
        }
        for (int m = 0; m < NMETH; m++) {
            const jrow_t *j = &r->j[m];
            fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%d,%d,%d,%.6e,%.6e,%.1f,%.6e,%" PRId64 ",%" PRId64
                       ",%" PRId64 ",%.3e,\"%s\"\n",
                    r->n, r->nx, r->ny, meth_name[m], j->done, j->runs, j->batch, j->done ? j->t_med : NAN,
                    j->done ? j->t_wall : NAN,
                    j->done ? j->fevals : NAN, j->done ? j->t_setup : NAN, r->nnz, r->maxrow, r->ncolors,
                    j->done ? j->diff : NAN, j->skip);
        }
    }
}

static void write_csv_run(FILE *f, const row_t *rows, int nrows)
{
    fprintf(f, "states,variant,runs,cpu_seconds,wall_seconds,steps,rejected,fevals,fevals_jac,jevals,"
               "factorizations,cpu_ratio_to_hand,wall_ratio_to_hand,max_rel_diff_vs_hand\n");
    static const char *const key[NRUN] = {"hand", "ode15s-sparse-analytical", "ode15s-sparse-perturbation"};
    for (int k = 0; k < nrows; k++) {
        const row_t *r = &rows[k];
        if (!r->ok || !r->run_done) continue;
        for (int v = 0; v < NRUN; v++) {
            const rrow_t *q = &r->r[v];
            fprintf(f, "%" PRId64 ",%s,%d,%.6e,%.6e,%ld,%ld,%ld,%ld,%ld,%ld,%.4f,%.4f,%.3e\n", r->n, key[v], q->runs,
                    q->t_med, q->t_wall, q->steps, q->rejected, q->fevals, q->fevals_jac, q->jevals,
                    q->factorizations, q->t_med / r->r[R_HAND].t_med, q->t_wall / r->r[R_HAND].t_wall, q->diff);
        }
    }
}

/* ------------------------------------------------------------ main */

static int parse_list(const char *s, int64_t **out, int *n)
{
    *n = 0;
    *out = NULL;
    while (*s) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno || v <= 0) return -1;
        int64_t *q = realloc(*out, sizeof(int64_t) * (size_t)(*n + 1));
        if (!q) return -1;
        *out = q;
        (*out)[(*n)++] = v;
        s = end;
        while (*s == ',' || *s == ' ') s++;
    }
    return *n ? 0 : -1;
}

static int write_file(const char *path, void (*fn)(FILE *, const row_t *, int), const row_t *rows,
                      int nrows)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench_stiff: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fn(f, rows, nrows);
    return fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
    opts_t o = {.seed = 1, .full_max = 10000, .run_max = 10000, .repeat = 5, .max_runs = 1000,
                .run_repeat = 3, .min_time = 0.5, .max_time = 20, .run_min_time = 2, .tstop = 1,
                .rtol = 1e-6, .atol = 1e-6, .tol = 1e-12, .run_tol = 1e-4};
    const char *states = "100,1000,10000,100000";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_stiff: unknown option or missing value: '%s' (see --help)\n", a);
            return 2;
        }
        const char *v = argv[++i];
        char *end = NULL;
        errno = 0;
        if (!strcmp(a, "--states")) states = v;
        else if (!strcmp(a, "--seed")) o.seed = strtoull(v, &end, 10);
        else if (!strcmp(a, "--jacgraph")) o.jacgraph = v;
        else if (!strcmp(a, "--keep")) o.keep = v;
        else if (!strcmp(a, "--md")) o.md = v;
        else if (!strcmp(a, "--csv-jac")) o.csv_jac = v;
        else if (!strcmp(a, "--csv-run")) o.csv_run = v;
        else if (!strcmp(a, "--full-max")) o.full_max = strtoll(v, &end, 10);
        else if (!strcmp(a, "--run-max")) o.run_max = strtoll(v, &end, 10);
        else if (!strcmp(a, "--repeat")) o.repeat = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--max-runs")) o.max_runs = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--run-repeat")) o.run_repeat = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--min-time")) o.min_time = strtod(v, &end);
        else if (!strcmp(a, "--max-time")) o.max_time = strtod(v, &end);
        else if (!strcmp(a, "--run-min-time")) o.run_min_time = strtod(v, &end);
        else if (!strcmp(a, "--tstop")) o.tstop = strtod(v, &end);
        else if (!strcmp(a, "--rtol")) o.rtol = strtod(v, &end);
        else if (!strcmp(a, "--atol")) o.atol = strtod(v, &end);
        else if (!strcmp(a, "--tol")) o.tol = strtod(v, &end);
        else if (!strcmp(a, "--run-tol")) o.run_tol = strtod(v, &end);
        else {
            fprintf(stderr, "bench_stiff: unknown option '%s' (see --help)\n", a);
            return 2;
        }
        if (end && (end == v || *end || errno)) {
            fprintf(stderr, "bench_stiff: %s: bad value '%s'\n", a, v);
            return 2;
        }
    }
    if (o.repeat < 1 || o.run_repeat < 1 || o.max_runs < 1 || !(o.tstop > 0) || !(o.rtol > 0) || !(o.atol > 0)) {
        fprintf(stderr, "bench_stiff: --repeat, --run-repeat, --max-runs, --tstop, --rtol, --atol must be positive\n");
        return 2;
    }
    int64_t *sizes;
    int nsizes;
    if (parse_list(states, &sizes, &nsizes)) {
        free(sizes);
        fprintf(stderr, "bench_stiff: --states: a comma-separated list of positive integers expected, not '%s'\n",
                states);
        return 2;
    }
    for (int k = 0; k < nsizes; k++) {
        int64_t nx, ny;
        if (jg_gen_brusselator_grid(sizes[k], &nx, &ny)) {
            fprintf(stderr, "bench_stiff: --states: %" PRId64 " is not 2 nx ny with 3 <= nx <= ny\n", sizes[k]);
            free(sizes);
            return 2;
        }
    }
    char self[PATH_MAX], jg[PATH_MAX + 32];
    if (!o.jacgraph) {
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0) {
            fprintf(stderr, "bench_stiff: cannot find this program's directory; give --jacgraph PATH\n");
            free(sizes);
            return 2;
        }
        self[len] = 0;
        char *slash = strrchr(self, '/');
        if (slash) *slash = 0;
        snprintf(jg, sizeof jg, "%s/../tools/jacgraph", self);
        o.jacgraph = jg;
    }
    if (access(o.jacgraph, X_OK)) {
        fprintf(stderr, "bench_stiff: %s is not executable (build it, or give --jacgraph PATH)\n", o.jacgraph);
        free(sizes);
        return 2;
    }
    /* a fresh scratch directory under $TMPDIR: two runs never share it */
    char tmpl[4096];
    const char *tmpbase = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/bench_stiff.XXXXXX", tmpbase && *tmpbase ? tmpbase : "/tmp");
    const char *dir = o.keep;
    if (!dir) {
        dir = mkdtemp(tmpl);
        if (!dir) {
            fprintf(stderr, "bench_stiff: mkdtemp failed: %s\n", strerror(errno));
            free(sizes);
            return 2;
        }
    }
    row_t *rows = calloc((size_t)nsizes, sizeof *rows);
    if (!rows) {
        free(sizes);
        return 2;
    }
    int bad = 0;
    for (int k = 0; k < nsizes; k++) {
        rows[k].n = sizes[k];
        if (measure_size(&o, dir, &rows[k])) {
            fprintf(stderr, "bench_stiff: %" PRId64 " states: %s\n", sizes[k], rows[k].err);
            bad = 1;
        }
    }
    if (!o.keep) rmdir(dir);
    write_md(stdout, &o, rows, nsizes);
    if (o.md) {
        FILE *f = fopen(o.md, "w");
        if (!f) {
            fprintf(stderr, "bench_stiff: cannot write %s: %s\n", o.md, strerror(errno));
            bad = 1;
        } else {
            write_md(f, &o, rows, nsizes);
            if (fclose(f)) bad = 1;
        }
    }
    if (o.csv_jac && write_file(o.csv_jac, write_csv_jac, rows, nsizes)) bad = 1;
    if (o.csv_run && write_file(o.csv_run, write_csv_run, rows, nsizes)) bad = 1;
    free(rows);
    free(sizes);
    return bad;
}
