/* jacgraph simulate: integrate a model and log time, states and signals to CSV. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "jacgraph/simulate.h"

static const char help[] =
    "usage: jacgraph simulate MODEL [options]\n"
    "\n"
    "Simulate MODEL from its initial states and write a CSV with a header naming\n"
    "each column: time, the states (named as linearize names them), then the logged\n"
    "signals (root Outports, Scope and ToWorkspace inputs).\n"
    "\n"
    "  --solver NAME       ode45 (default), ode23, ode1..ode5 (fixed step)\n"
    "  --start T0          start time (default 0)\n"
    "  --stop TF           stop time (default 10)\n"
    "  --rtol R --atol A   variable-step tolerances (default 1e-3, 1e-6)\n"
    "  --max-step H        variable-step maximum step (default (TF-T0)/50)\n"
    "  --initial-step H    variable-step first step (default: estimated)\n"
    "  --step H            fixed-step solvers: the step (required for ode1..ode5)\n"
    "  --out-step DT       log at T0 + k*DT from the solver's dense output\n"
    "                      (default: every major step)\n"
    "  --decimation N      log every N-th point\n"
    "  --out FILE          CSV file (default: stdout)\n"
    "  --save-op T FILE    write the operating point at time T (for linearize --op)\n"
    "  --stats             steps, rejected steps, right-hand-side evaluations (stderr)\n";

static int parse_num(const char *cmd, const char *opt, const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (!*s || *end || !isfinite(x)) return cli_usage(cmd, "%s expects a number, got '%s'", opt, s);
    *v = x;
    return 0;
}

typedef struct {
    FILE *f;
    int64_t nx, nlog;
} csv_t;

static int log_row(double t, const double *x, const double *sig, void *user)
{
    csv_t *c = user;
    fprintf(c->f, "%.12g", t);
    for (int64_t k = 0; k < c->nx; k++) fprintf(c->f, ",%.12g", x[k]);
    for (int64_t k = 0; k < c->nlog; k++) fprintf(c->f, ",%.12g", sig[k]);
    fputc('\n', c->f);
    return 0;
}

/* The operating point {"t": T, "states": {...}} by state name. */
static int save_op(const char *path, const jg_program_t *p, const jg_sim_t *s)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        jg_error_t err;
        jg_error_set(&err, JG_IO, "%s: cannot write", path);
        return cli_fail(&err);
    }
    fprintf(f, "{\"t\": %.17g, \"states\": {", jg_sim_time(s));
    const double *x = jg_sim_states(s);
    for (int64_t k = 0; k < jg_program_nstates(p); k++)
        fprintf(f, "%s\n  \"%s\": %.17g", k ? "," : "", jg_program_state_name(p, k), x[k]);
    fprintf(f, "\n}}\n");
    if (fclose(f)) {
        jg_error_t err;
        jg_error_set(&err, JG_IO, "%s: write failed", path);
        return cli_fail(&err);
    }
    return 0;
}

int cmd_simulate(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "simulate"};
    const char *model = NULL, *v, *out = NULL, *op_path = NULL;
    jg_sim_opts_t o = {.solver = "ode45", .t0 = 0, .tstop = 10};
    double op_t = NAN, dec = 0;
    int stats = 0, r;
    while (a.i < argc) {
        if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
            fputs(help, stdout);
            return 0;
        }
        if (cli_flag(&a, "--stats")) {
            stats = 1;
            continue;
        }
        struct {
            const char *name;
            double *dst;
        } nums[] = {{"--start", &o.t0},          {"--stop", &o.tstop},
                    {"--rtol", &o.so.rtol},      {"--atol", &o.so.atol},
                    {"--max-step", &o.so.max_step}, {"--initial-step", &o.so.initial_step},
                    {"--step", &o.so.fixed_step}, {"--out-step", &o.out_step},
                    {"--decimation", &dec}};
        int matched = 0;
        for (size_t k = 0; k < sizeof nums / sizeof *nums && !matched; k++) {
            if ((r = cli_opt(&a, nums[k].name, &v))) {
                if (r < 0 || parse_num(a.cmd, nums[k].name, v, nums[k].dst)) return EXIT_USAGE;
                matched = 1;
            }
        }
        if (matched) continue;
        if ((r = cli_opt(&a, "--solver", &o.solver)) || (r = cli_opt(&a, "--out", &out))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if (!strcmp(argv[a.i], "--save-op")) {
            if (a.i + 2 >= argc) return cli_usage(a.cmd, "--save-op needs a time and a file");
            if (parse_num(a.cmd, "--save-op", argv[a.i + 1], &op_t)) return EXIT_USAGE;
            op_path = argv[a.i + 2];
            a.i += 3;
            continue;
        }
        if (argv[a.i][0] == '-' && argv[a.i][1]) return cli_usage(a.cmd, "unknown option '%s'", argv[a.i]);
        if (model) return cli_usage(a.cmd, "more than one MODEL ('%s' and '%s')", model, argv[a.i]);
        model = argv[a.i++];
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    if (dec < 0 || dec != floor(dec)) return cli_usage(a.cmd, "--decimation expects a positive integer");
    o.decimation = (int)dec;
    if (op_path && !(op_t >= o.t0 && op_t <= o.tstop))
        return cli_usage(a.cmd, "--save-op time %g is outside [%g, %g]", op_t, o.t0, o.tstop);
    jg_model_t *m;
    jg_program_t *p;
    jg_sim_t *s = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    int rc = cli_load(model, &m, &p);
    if (rc) return rc;
    FILE *f = NULL;
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
    csv_t c = {f, jg_program_nstates(p), jg_sim_nlogged(s)};
    fprintf(f, "time");
    for (int64_t k = 0; k < c.nx; k++) fprintf(f, ",%s", jg_program_state_name(p, k));
    for (int64_t k = 0; k < c.nlog; k++) fprintf(f, ",%s", jg_sim_logged_name(s, k));
    fputc('\n', f);
    if (op_path) {
        if (jg_sim_run(s, op_t, log_row, &c, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        if ((rc = save_op(op_path, p, s))) goto done;
    }
    if (jg_sim_run(s, o.tstop, log_row, &c, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    if (stats) {
        jg_solver_stats_t ss;
        jg_sim_stats(s, &ss);
        fprintf(stderr, "%s: %s from %g to %g: %ld steps, %ld rejected, %ld rhs evaluations\n",
                jg_program_name(p), o.solver, o.t0, jg_sim_time(s), ss.steps, ss.rejected,
                ss.fevals);
    }
done:
    if (f && f != stdout && fclose(f) && !rc) {
        jg_error_set(&err, JG_IO, "%s: write failed", out);
        rc = cli_fail(&err);
    }
    jg_sim_free(s);
    jg_program_free(p);
    jg_model_free(m);
    return rc;
}
