/* jacgraph simulate: integrate a model and log time, states and signals to CSV,
 * optionally plotting them (--plot) and showing a progress bar on a terminal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "jacgraph/io.h"
#include "jacgraph/plot.h"
#include "jacgraph/simulate.h"

static const char help[] =
    "usage: jacgraph simulate MODEL [options]\n"
    "\n"
    "Simulate MODEL from its initial states and write a CSV with a header naming\n"
    "each column: time, the states (named as linearize names them), then the logged\n"
    "signals (root Outports, Scope and ToWorkspace inputs).\n"
    "\n"
    "  --solver NAME       ode45 (default), ode23, ode1..ode5 (fixed step); stiff:\n"
    "                      ode23s (Rosenbrock), lie (linearly implicit Euler, fixed\n"
    "                      step), ode15s (BDF, SUNDIALS CVODE)\n"
    "  --start T0          start time (default 0)\n"
    "  --stop TF           stop time (default 10)\n"
    "  --rtol R --atol A   variable-step tolerances (default 1e-3, 1e-6)\n"
    "  --max-step H        variable-step maximum step (default (TF-T0)/50)\n"
    "  --initial-step H    variable-step first step (default: estimated)\n"
    "  --step H            fixed-step solvers: the step (required for ode1..ode5, lie)\n"
    "  --out-step DT       log at T0 + k*DT from the solver's dense output\n"
    "                      (default: every major step)\n"
    "  --refine N          without --out-step: N points per major step, the N-1\n"
    "                      extra ones evenly inside it from the dense output\n"
    "                      (Simulink's Refine; default 1)\n"
    "  --decimation N      log every N-th point\n"
    "                      (these seven take positive values only: leave one out\n"
    "                      for its default)\n"
    "  --max-rows N        stop the run with an error (exit 3) rather than write more\n"
    "                      than N CSV rows (default 1000000; 0: no limit)\n"
    "  --out FILE          CSV file (default: stdout)\n"
    "  --plot FILE.svg     also draw the logged signals against time (the states\n"
    "                      when the model logs none; the first 12 curves)\n"
    "  --save-op T FILE    write the operating point at time T (for linearize --op)\n"
    "  --input-signal FILE.csv  drive the root Inports from a CSV table: header\n"
    "                      time,NAME,... (NAME(K): element K of a wide Inport), times\n"
    "                      increasing; the first row holds before it, the last after;\n"
    "                      Inports without a column read zero\n"
    "  --interp zoh|linear with --input-signal: hold each row until the next\n"
    "                      (default) or interpolate linearly; steps end on its times\n"
    "  --sparsing auto     solver lie: a sparsing of the solver Jacobian chosen at\n"
    "                      T0 for the step (\"Sparsing of Jacobians\", docs/sparsing.md):\n"
    "                      off-diagonal entries dropped while the checks d1 < C1 and\n"
    "                      d2 < C2 hold (as jacgraph sparsing --auto); the dropped\n"
    "                      entries are left out of I - hJ and never computed\n"
    "  --mixed-mode        with --sparsing auto: first make states explicit (row\n"
    "                      and column dropped) where the checks allow it\n"
    "  --slow-threshold S  with --sparsing auto: modes with h|mu| < S are left out of\n"
    "                      C1, C2 (default 0.1; 0: none)\n"
    "  --sparsing-mask FILE  solver lie: drop the entries FILE lists: JSON\n"
    "                      {\"drop\": [[row, col], ...]} (0-based indices or state\n"
    "                      names) or Matrix Market (1-based)\n"
    "  --zc ALG            zero-crossing location: nonadaptive (default), adaptive,\n"
    "                      off (crossings act at step ends, not located)\n"
    "  --zc-tol TOL        adaptive: stop locating once the crossing signals are\n"
    "                      within TOL of zero (default 0: to the time resolution)\n"
    "  --max-zc N          consecutive zero crossings allowed (default 1000)\n"
    "  --jacobian METHOD   solver Jacobian of the implicit solvers: auto (default),\n"
    "                      full-perturbation, sparse-perturbation, full-analytical,\n"
    "                      sparse-analytical (see jacgraph jacobian --help)\n"
    "  --stats             steps, rejected steps, right-hand-side evaluations,\n"
    "                      zero-crossing events, sample hits (stderr); with a\n"
    "                      sparsing: entries computed, f evaluations and colors per\n"
    "                      Jacobian and LU fill, without -> with it\n"
    "  --no-progress       no progress bar (otherwise shown on stderr when it is a\n"
    "                      terminal, for runs longer than a second; never with\n"
    "                      CI set, TERM=dumb, or the CSV on the same terminal)\n"
    "\n"
    "A variable-step solver whose steps stay below 1e-6 of TF-T0 for 1000 steps in\n"
    "a row gets one warning on stderr (with ode45/ode23: the model looks stiff, try\n"
    "ode15s or ode23s); the run goes on.\n";

/* ---- progress bar: one stderr line redrawn with \r, only on a terminal and
 * once the run has taken a second; driven by the output points (the run is
 * not sliced, so the results do not depend on where stderr goes). */
typedef struct {
    int on, shown;
    const char *name;
    double t0, tstop;
    double start, last;   /* wall clock (s): run start, last redraw */
} progress_t;

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void progress_draw(progress_t *pr, double t, double now)
{
    double span = pr->tstop - pr->t0, frac = span > 0 ? (t - pr->t0) / span : 1;
    if (!(frac >= 0)) frac = 0;
    if (frac > 1) frac = 1;
    int cols = 80;
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) cols = ws.ws_col;
    /* times with one digit more than the integer part of the span's ends */
    double amax = fmax(fabs(pr->t0), fabs(pr->tstop));
    int prec = amax >= 1 ? (int)floor(log10(amax)) + 2 : 3;
    if (prec < 3) prec = 3;
    if (prec > 12) prec = 12;
    char tail[160], bar[64], line[512];
    snprintf(tail, sizeof tail, " %3d%%  t = %.*g / %.*g  (%.1f s)", (int)floor(100 * frac), prec, t,
             prec, pr->tstop, now - pr->start);
    /* "simulate NAME: [bar]TAIL" in the terminal's width: a shorter bar, then
     * none, then the end cut (never wrap: \r would not reach the first line) */
    int fixed = (int)strlen("simulate : ") + (int)strlen(pr->name) + (int)strlen(tail);
    int barw = cols - 1 - fixed - 2;
    if (barw > 30) barw = 30;
    int n;
    if (barw >= 10) {
        int fill = (int)floor(barw * frac);
        for (int k = 0; k < barw; k++) bar[k] = k < fill ? '#' : '.';
        bar[barw] = '\0';
        n = snprintf(line, sizeof line, "\rsimulate %s: [%s]%s", pr->name, bar, tail);
    } else {
        n = snprintf(line, sizeof line, "\rsimulate %s:%s", pr->name, tail);
    }
    if (n > (int)sizeof line - 1) n = (int)sizeof line - 1;
    if (n > cols) n = cols;   /* cols - 1 characters after the \r */
    fwrite(line, 1, (size_t)n, stderr);
    fputs("\033[K", stderr);
    pr->shown = 1;
    pr->last = now;
}

/* The bar waits this long before it shows (JACGRAPH_PROGRESS_DELAY overrides
 * the second, so tests need not run for a second to see it). */
static double progress_delay(void)
{
    const char *e = getenv("JACGRAPH_PROGRESS_DELAY");
    char *end;
    double d = e ? strtod(e, &end) : 1.0;
    return e && *end == '\0' && d >= 0 ? d : 1.0;
}

static void progress_update(progress_t *pr, double t)
{
    double now = wall();
    if (now - pr->start < progress_delay() || now - pr->last < 0.1) return;
    progress_draw(pr, t, now);
}

/* A bar only on a terminal that is not also showing the CSV, never in CI
 * (CI set, as CI services do, even when they allocate a terminal) nor on a
 * dumb terminal (TERM=dumb: no \r redraw, no erase to end of line). */
static int progress_wanted(FILE *csv)
{
    const char *ci = getenv("CI"), *term = getenv("TERM");
    if (ci && *ci && strcmp(ci, "0") && strcmp(ci, "false")) return 0;
    if (term && !strcmp(term, "dumb")) return 0;
    return isatty(STDERR_FILENO) && !isatty(fileno(csv));
}

/* The last state of the bar and a newline, before anything else is printed. */
static void progress_end(progress_t *pr, double t)
{
    if (pr->on && pr->shown) {
        progress_draw(pr, t, wall());
        fputc('\n', stderr);
    }
    pr->on = 0;
}

/* ---- the log callback: a CSV row, a plot point, the progress bar */
typedef struct {
    FILE *f;
    int64_t nx, nlog;
    jg_plot_t *plot;        /* --plot: the recorder, else NULL */
    int plot_states;        /* the model logs no signals: plot the states */
    jg_status_t plot_st;    /* the recorder failed (out of memory): run stopped */
    jg_error_t plot_err;
    progress_t pr;
    long long rows, max_rows;   /* CSV rows written; the limit (0: none) */
    int over;                   /* a row beyond max_rows was due: run stopped */
    double t_over;              /* its time */
} logger_t;

static int log_row(double t, const double *x, const double *sig, void *user)
{
    logger_t *c = user;
    if (c->max_rows && c->rows >= c->max_rows) {   /* --max-rows: stop, the caller fails */
        c->over = 1;
        c->t_over = t;
        return 1;
    }
    c->rows++;
    jg_io_write_csv_row(c->f, t, c->nx, x, c->nlog, sig);
    if (c->plot && (c->plot_st = jg_plot_add(c->plot, t, c->plot_states ? x : sig, &c->plot_err)))
        return 1;
    if (c->pr.on) progress_update(&c->pr, t);
    return 0;
}

static int no_rhs(double t, const double *x, double *dx, void *user)
{
    (void)t, (void)x, (void)dx, (void)user;
    return 0;
}

/* Whether solver `name` steps with a fixed step (ode1..ode5, lie): asked of
 * the solver library, so that a new solver is known here too. */
static int fixed_step_solver(jg_solver_method_t m)
{
    jg_solver_opts_t so = {.fixed_step = 1};
    jg_solver_t *sv = NULL;
    int fixed = m != JG_SOLVER_AUTO && jg_solver_create(m, 0, no_rhs, NULL, &so, &sv, NULL) == JG_OK &&
                jg_solver_is_fixed(sv);
    jg_solver_free(sv);
    return fixed;
}

/* The simulation's notices (the step size collapsed), on their own line
 * below a progress bar. */
typedef struct {
    logger_t *c;
    const char *model;
    int explicit_solver;
} notice_t;

static void notice(void *ctx, const char *msg)
{
    notice_t *n = ctx;
    if (n->c->pr.on && n->c->pr.shown) fputc('\n', stderr);
    fprintf(stderr, "jacgraph: warning: %s: %s%s\n", n->model, msg,
            n->explicit_solver ? "; the model looks stiff: try --solver ode15s or ode23s" : "");
}

/* The error of a run --max-rows stopped. */
static jg_status_t over_error(const logger_t *c, jg_error_t *err)
{
    return jg_error_set(err, JG_IO,
                        "more than %lld output rows (--max-rows): the run stopped at t = %.9g; log "
                        "fewer points (--out-step, --decimation) or raise --max-rows (0: no limit)",
                        c->max_rows, c->t_over);
}

/* Remove a partly written output, but only a regular file (not /dev/null). */
static void discard(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode)) remove(path);
}

static void lu_text(char *buf, size_t cap, int64_t v)
{
    if (v < 0) snprintf(buf, cap, "- (singular)");
    else snprintf(buf, cap, "%lld", (long long)v);
}

/* --stats with a sparsing: what it saves, without -> with it */
static void print_sparsing(const jg_program_t *p, const jg_sim_stats_t *ss)
{
    const jg_sim_sparsing_t *sp = &ss->sparsing;
    const char *name = jg_program_name(p);
    char lf[32], ls[32];
    lu_text(lf, sizeof lf, sp->lu_full);
    lu_text(ls, sizeof ls, sp->lu);
    fprintf(stderr,
            "%s: sparsing: %lld of %lld entries of J_x dropped (%lld nonzero at t0); per Jacobian: "
            "entries computed %lld -> %lld, f evaluations %lld -> %lld, colors %lld -> %lld; LU fill "
            "of I - hJ %s -> %s",
            name, (long long)(sp->nnz - sp->nkept), (long long)sp->nnz, (long long)sp->ndropped_nonzero,
            (long long)sp->nnz, (long long)sp->nkept, (long long)sp->fevals_full, (long long)sp->fevals,
            (long long)sp->colors_full, (long long)sp->colors, lf, ls);
    if (ss->solver.jevals)
        fprintf(stderr, "; measured %.4g f evaluations per Jacobian",
                (double)ss->solver.fevals_jac / (double)ss->solver.jevals);
    fputc('\n', stderr);
    if (sp->measured) {
        const jg_sparsing_result_t *m = &sp->measure;
        fprintf(stderr,
                "%s: sparsing auto at t0: d1 %.3g < C1 %.3g %s, d2 %.3g < C2 %.3g %s, %lld explicit "
                "state%s\n",
                name, m->d1, m->C1, m->check1 ? "holds" : "fails", m->d2, m->C2,
                m->check2 ? "holds" : "fails", (long long)sp->nexplicit, sp->nexplicit == 1 ? "" : "s");
    }
}

int cmd_simulate(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "simulate"};
    const char *model = NULL, *out = NULL, *op_path = NULL, *plot_path = NULL;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 10};
    const char *solver = "ode45", *jacobian = NULL;
    double op_t = NAN, dec = 1, maxzc = -1, refine = 1, max_rows = 1e6;
    const char *zc = NULL, *sparsing = NULL, *mask = NULL;
    double slow = NAN;
    const char *insig = NULL, *interp = NULL;
    jg_io_signal_t *sig = NULL;
    int64_t *drop = NULL, ndrop = 0;
    int stats = 0, no_progress = 0, mixed = 0, r;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        if (cli_flag(&a, "--stats")) {
            stats = 1;
            continue;
        }
        if (cli_flag(&a, "--no-progress")) {
            no_progress = 1;
            continue;
        }
        if (cli_flag(&a, "--mixed-mode")) {
            mixed = 1;
            continue;
        }
        const cli_num_t nums[] = {{"--start", &o.t0, 0},          {"--stop", &o.tstop, 0},
                                  {"--rtol", &o.so.rtol, 1},      {"--atol", &o.so.atol, 1},
                                  {"--max-step", &o.so.max_step, 1}, {"--initial-step", &o.so.initial_step, 1},
                                  {"--step", &o.so.fixed_step, 1}, {"--out-step", &o.out_step, 1},
                                  {"--decimation", &dec, 1},      {"--refine", &refine, 1},
                                  {"--max-rows", &max_rows, 0},   {"--zc-tol", &o.zc_tol, 0},
                                  {"--max-zc", &maxzc, 0},        {"--slow-threshold", &slow, 0}};
        if ((r = cli_nums(&a, nums, sizeof nums / sizeof *nums)) || (r = cli_opt(&a, "--solver", &solver)) ||
            (r = cli_opt(&a, "--out", &out)) ||
            (r = cli_opt(&a, "--plot", &plot_path)) || (r = cli_opt(&a, "--zc", &zc)) ||
            (r = cli_opt(&a, "--jacobian", &jacobian)) || (r = cli_opt(&a, "--sparsing", &sparsing)) ||
            (r = cli_opt(&a, "--sparsing-mask", &mask)) ||
            (r = cli_opt(&a, "--input-signal", &insig)) || (r = cli_opt(&a, "--interp", &interp))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if (!strcmp(argv[a.i], "--save-op")) {
            if (a.i + 2 >= argc) return cli_usage(a.cmd, "--save-op needs a time and a file");
            if (cli_num(a.cmd, "--save-op", argv[a.i + 1], &op_t)) return EXIT_USAGE;
            op_path = argv[a.i + 2];
            a.i += 3;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    if (dec != floor(dec) || dec > 1e9) return cli_usage(a.cmd, "--decimation expects a positive integer");
    if (refine != floor(refine) || refine > 1e6) return cli_usage(a.cmd, "--refine expects a positive integer");
    if (refine > 1 && o.out_step > 0)
        return cli_usage(a.cmd, "--refine adds points between major steps; with --out-step there are none to refine");
    if (max_rows < 0 || max_rows != floor(max_rows) || max_rows > 1e15)
        return cli_usage(a.cmd, "--max-rows expects a non-negative integer (0: no limit)");
    if (plot_path && !*plot_path) return cli_usage(a.cmd, "--plot expects a file name");
    o.decimation = (int)dec;
    o.refine = (int)refine;
    if (maxzc != -1 && (maxzc < 1 || maxzc != floor(maxzc) || maxzc > 1e9))
        return cli_usage(a.cmd, "--max-zc expects a positive integer");
    o.max_zc = maxzc == -1 ? 0 : (int)maxzc;
    if (o.zc_tol < 0) return cli_usage(a.cmd, "--zc-tol expects a non-negative number");
    if (zc) {
        if (!strcmp(zc, "nonadaptive")) o.zc = JG_ZC_MODE_NONADAPTIVE;
        else if (!strcmp(zc, "adaptive")) o.zc = JG_ZC_MODE_ADAPTIVE;
        else if (!strcmp(zc, "off")) o.zc = JG_ZC_MODE_OFF;
        else return cli_usage(a.cmd, "--zc expects nonadaptive, adaptive or off, got '%s'", zc);
    }
    if (sparsing && strcmp(sparsing, "auto"))
        return cli_usage(a.cmd, "--sparsing expects 'auto' (or --sparsing-mask FILE), got '%s'", sparsing);
    if (sparsing && mask) return cli_usage(a.cmd, "--sparsing auto and --sparsing-mask exclude each other");
    if (interp && strcmp(interp, "zoh") && strcmp(interp, "linear"))
        return cli_usage(a.cmd, "--interp expects zoh or linear, got '%s'", interp);
    if (interp && !insig) return cli_usage(a.cmd, "--interp goes with --input-signal FILE.csv");
    if ((mixed || !isnan(slow)) && !sparsing)
        return cli_usage(a.cmd, "%s goes with --sparsing auto", mixed ? "--mixed-mode" : "--slow-threshold");
    if (!(isnan(slow) || slow >= 0))
        return cli_usage(a.cmd, "--slow-threshold expects a non-negative number, got %g", slow);
    if (sparsing) {
        o.sparsing_auto = JG_SPARSING_ENTRIES | (mixed ? JG_SPARSING_MIXED : 0);
        o.sparsing_slow = isnan(slow) ? 0 : slow > 0 ? slow : -1;   /* the library's 0 is the default */
    }
    if (op_path && !(op_t >= o.t0 && op_t <= o.tstop))
        return cli_usage(a.cmd, "--save-op time %g is outside [%g, %g]", op_t, o.t0, o.tstop);
    jg_model_t *m;
    jg_program_t *p;
    jg_sim_t *s = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    if ((r = cli_sim_methods(solver, jacobian, &o))) return r;
    int rc = cli_load(model, &m, &p);
    if (rc) return rc;
    FILE *f = NULL, *pf = NULL;
    logger_t c = {.max_rows = (long long)max_rows};
    if (mask) {
        if (jg_io_read_mask(mask, p, &drop, &ndrop, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        o.sparsing_drop = drop ? drop : (const int64_t[1]){0};   /* an empty list drops nothing */
        o.sparsing_ndrop = ndrop;
    }
    if (insig) {   /* the table's rows are where the input jumps or kinks */
        jg_io_interp_t in = interp && !strcmp(interp, "linear") ? JG_IO_INTERP_LINEAR : JG_IO_INTERP_ZOH;
        if (jg_io_signal_read(insig, p, in, &sig, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        o.input = jg_io_signal_input;
        o.input_ctx = sig;
        o.input_breaks = jg_io_signal_times(sig, &o.input_nbreaks);
    }
    /* before the solver's own "non-positive step 0" (a model without
     * continuous states runs without --step: from sample hit to sample hit) */
    if (jg_program_nstates(p) && !(o.so.fixed_step > 0) && fixed_step_solver(o.solver)) {
        rc = cli_usage(a.cmd, "the fixed-step solver '%s' needs --step T (the step size)", solver);
        goto done;
    }
    notice_t nt = {.c = &c, .model = jg_program_name(p)};
    o.warn = notice;
    o.warn_ctx = &nt;
    if (jg_sim_create(p, &o, &s, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    f = out ? fopen(out, "w") : stdout;
    if (!f) {
        jg_error_set(&err, JG_IO, "%s: cannot write", out);
        rc = cli_fail(&err);
        goto done;
    }
    nt.explicit_solver = jg_program_nstates(p) && !jg_sim_jacobian(s, NULL);
    c.f = f;
    c.nx = jg_program_nstates(p);
    c.nlog = jg_sim_nlogged(s);
    if (plot_path) {
        /* open now: a bad path fails before a long run, not after it */
        if (!(pf = fopen(plot_path, "w"))) {
            jg_error_set(&err, JG_IO, "%s: cannot write", plot_path);
            rc = cli_fail(&err);
            goto done;
        }
        c.plot_states = c.nlog == 0;
        int64_t nc = c.plot_states ? c.nx : c.nlog;
        const char **names = malloc(sizeof(char *) * (size_t)(nc + 1));
        if (!names) {
            jg_error_set(&err, JG_NOMEM, "out of memory");
            rc = cli_fail(&err);
            goto done;
        }
        for (int64_t k = 0; k < nc; k++)
            names[k] = c.plot_states ? jg_program_state_name(p, k) : jg_sim_logged_name(s, k);
        char sub[256];
        snprintf(sub, sizeof sub, "%s from %g to %g%s", solver, o.t0, o.tstop,
                 c.plot_states ? "; the model logs no signals: its states" : "");
        jg_plot_opts_t po = {.title = jg_program_name(p),
                             .subtitle = sub,
                             .xlabel = "time",
                             .xmin = o.t0,
                             .xmax = o.tstop,
                             .ylabel = c.plot_states ? "states" : "logged signals"};
        jg_status_t st = jg_plot_create(nc, names, &po, &c.plot, &err);
        free(names);
        if (st) {
            rc = cli_fail(&err);
            goto done;
        }
    }
    c.pr = (progress_t){.on = !no_progress && progress_wanted(f),
                        .name = jg_program_name(p), .t0 = o.t0, .tstop = o.tstop, .start = wall()};
    jg_io_write_csv_header(f, p, s);
    jg_status_t run_st = JG_OK;
    if (op_path) {
        run_st = jg_sim_run(s, op_t, log_row, &c, &err);
        if (!run_st && c.over) run_st = over_error(&c, &err);
        if (!run_st && !c.plot_st && jg_io_write_op(op_path, p, jg_sim_time(s), jg_sim_states(s), &err)) {
            progress_end(&c.pr, jg_sim_time(s));
            rc = cli_fail(&err);
            goto done;
        }
    }
    if (!run_st && !c.plot_st) run_st = jg_sim_run(s, o.tstop, log_row, &c, &err);
    if (!run_st && c.over) run_st = over_error(&c, &err);
    progress_end(&c.pr, jg_sim_time(s));
    if (c.plot_st) {
        rc = cli_fail(&c.plot_err);
        goto done;
    }
    /* a failed run still gets the plot of what was computed, like the CSV */
    if (pf) {
        jg_error_t perr;
        jg_error_clear(&perr);
        jg_status_t pst = jg_plot_write_svg(c.plot, pf, &perr);
        if (fclose(pf) && !pst) pst = JG_IO;
        pf = NULL;
        if (pst) {
            if (pst == JG_IO) jg_error_set(&perr, JG_IO, "%s: write failed", plot_path);
            discard(plot_path);
            if (!run_st) {
                rc = cli_fail(&perr);
                goto done;
            }
            cli_fail(&perr);
        }
    }
    if (run_st) {
        rc = cli_fail(&err);
        goto done;
    }
    jg_sim_stats_t ss;
    jg_sim_stats(s, &ss);
    if (ss.stop_block)   /* a Stop block ended the run: say so, whatever --stats says */
        fprintf(stderr, "%s: stopped by block '%s' at t = %.17g\n", jg_program_name(p),
                ss.stop_block, ss.stop_time);
    if (stats) {
        fprintf(stderr, "%s: %s from %g to %g: %ld steps, %ld rejected, %ld rhs evaluations",
                jg_program_name(p), jg_program_nstates(p) ? solver : "discrete", o.t0,
                jg_sim_time(s), ss.solver.steps,
                ss.solver.rejected, ss.solver.fevals);
        if (ss.solver.jevals || ss.solver.factorizations)
            fprintf(stderr, " (%ld for %ld Jacobians), %ld LU factorizations", ss.solver.fevals_jac,
                    ss.solver.jevals, ss.solver.factorizations);
        if (ss.events || jg_program_nzc(p)) fprintf(stderr, ", %ld zero-crossing events", ss.events);
        if (ss.hits) fprintf(stderr, ", %ld sample hits", ss.hits);
        fputc('\n', stderr);
        const char *why, *jm = jg_sim_jacobian(s, &why);
        if (jm) fprintf(stderr, "%s: solver Jacobian %s (%s)\n", jg_program_name(p), jm, why);
        if (ss.sparsing.active) print_sparsing(p, &ss);
    }
done:
    progress_end(&c.pr, s ? jg_sim_time(s) : o.t0);
    if (pf) {   /* not written: an error came first */
        fclose(pf);
        discard(plot_path);
    }
    if (f && f != stdout && fclose(f) && !rc) {
        jg_error_set(&err, JG_IO, "%s: write failed", out);
        rc = cli_fail(&err);
    }
    jg_plot_free(c.plot);
    jg_sim_free(s);
    jg_io_signal_free(sig);
    free(drop);
    jg_program_free(p);
    jg_model_free(m);
    return rc;
}
