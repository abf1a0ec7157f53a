/* jacgraph jacobian: the solver Jacobian J_x = df/dx of a model (Simulink,
 * "Choose a Jacobian Method") by one of the five methods, its pattern, its
 * column coloring and the cost of one Jacobian in evaluations of f; optionally
 * a spy plot of the pattern. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "jacgraph/io.h"
#include "jacgraph/simulate.h"
#include "jacgraph/solverjac.h"

int cmd_jacobian(int argc, char **argv);

static const char help[] =
    "usage: jacgraph jacobian MODEL [options]\n"
    "\n"
    "The solver Jacobian J_x = df/dx of MODEL's continuous states, as the implicit\n"
    "solvers of 'jacgraph simulate' use it: f is the model's derivatives with its\n"
    "outputs evaluated first, discrete blocks holding their outputs.  Prints J_x with\n"
    "the state names, its structural pattern (from the Jacobian graph), the number of\n"
    "colors (structurally orthogonal column groups), the evaluations of f one\n"
    "Jacobian costs, and the method used and why.\n"
    "\n"
    "  --method M          auto (default), full-perturbation, sparse-perturbation,\n"
    "                      full-analytical, sparse-analytical\n"
    "  --at T              simulate to time T first (default: the initial state at\n"
    "                      the start time)\n"
    "  --start T0          start time (default 0)\n"
    "  --solver NAME       solver of the --at run (default ode45)\n"
    "  --rtol R --atol A   its tolerances (default 1e-6, 1e-9)\n"
    "  --format F          text (default), json, mm (Matrix Market of J_x on stdout,\n"
    "                      state names in comments)\n"
    "  --reduce S          the vertex elimination the pattern and the analytical\n"
    "                      methods take J_x from (default full; any strategy of\n"
    "                      'jacgraph strategies --list'); --order FILE: order:FILE\n"
    "  --pattern-svg FILE  spy plot of the pattern: one square per entry (black:\n"
    "                      nonzero here, grey: structural zero), state names as\n"
    "                      labels up to 40 states\n";

int cmd_jacobian(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "jacobian"};
    const char *model = NULL, *method = "auto", *format = "text", *svg = NULL, *reduce = NULL, *order = NULL;
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .so = {.rtol = 1e-6, .atol = 1e-9}};
    const char *solver = "ode45";
    double at = NAN;
    int r;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        const cli_num_t nums[] = {
            {"--at", &at, 0}, {"--start", &o.t0, 0}, {"--rtol", &o.so.rtol, 0}, {"--atol", &o.so.atol, 0}};
        if ((r = cli_nums(&a, nums, sizeof nums / sizeof *nums)) ||
            (r = cli_opt(&a, "--method", &method)) || (r = cli_opt(&a, "--format", &format)) ||
            (r = cli_opt(&a, "--pattern-svg", &svg)) || (r = cli_opt(&a, "--solver", &solver)) ||
            (r = cli_opt(&a, "--reduce", &reduce)) || (r = cli_opt(&a, "--order", &order))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    const jg_graph_strategy_t *strat = NULL;
    if ((reduce || order) && (r = cli_strategy(a.cmd, reduce, order, NULL, &strat))) return r;
    jg_io_jac_format_t fmt = !strcmp(format, "text") ? JG_IO_JAC_TEXT
                             : !strcmp(format, "json") ? JG_IO_JAC_JSON
                             : !strcmp(format, "mm")   ? JG_IO_JAC_MM
                                                       : 0;
    if (!fmt) return cli_usage(a.cmd, "unknown --format '%s' (text, json, mm)", format);
    if (svg && !*svg) return cli_usage(a.cmd, "--pattern-svg expects a file name");
    if ((r = cli_sim_at(a.cmd, &at, solver, method, &o))) return r;
    jg_model_t *m;
    jg_program_t *p;
    jg_sim_t *s = NULL;
    jg_solverjac_t *sj = NULL;
    cs_dl *J = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    int rc = cli_load(model, &m, &p);
    if (rc) return rc;
    /* the point: the simulation's, so that discrete blocks hold what they
     * held there (at the start time: after the first major step) */
    if (jg_sim_create(p, &o, &s, &err) || jg_sim_run(s, at, NULL, NULL, &err) ||
        jg_solverjac_create_strategy(p, o.jacobian, jg_sim_work(s), strat, &sj, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    if (!(J = jg_solverjac_alloc(sj))) {
        jg_error_set(&err, JG_NOMEM, "out of memory");
        rc = cli_fail(&err);
        goto done;
    }
    double t = jg_sim_time(s);
    if (jg_solverjac_eval(sj, t, jg_sim_states(s), NULL, J, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    if (jg_io_write_jacobian(stdout, fmt, p, sj, J, method, t, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    if (fflush(stdout) || ferror(stdout)) {
        jg_error_set(&err, JG_IO, "stdout: write failed");
        rc = cli_fail(&err);
        goto done;
    }
    if (svg && jg_io_write_jacobian_svg(svg, p, sj, J, t, &err)) rc = cli_fail(&err);
done:
    cs_dl_spfree(J);
    jg_solverjac_free(sj);
    jg_sim_free(s);
    jg_program_free(p);
    return rc;
}
