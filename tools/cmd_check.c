/* jacgraph check: every linearization path against the others. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char help[] =
    "usage: jacgraph check MODEL [--tol-graph T] [--tol-perturb T] [io options]\n"
    "\n"
    "Linearize MODEL with the Jacobian graph (reductions none, markowitz, full), the\n"
    "matrix-based block-by-block algorithm (the reference) and central-difference\n"
    "perturbation of the whole model, and print the largest difference of each.\n"
    "A difference is max|X - R| / max(1, max|R|) over each of A, B, C, D.\n"
    "\n"
    "  --tol-graph T     tolerance for the graph paths (default 1e-10)\n"
    "  --tol-perturb T   tolerance for perturbation (default 1e-6)\n"
    "  --input/--output/--open BLOCK:N|SIGNAL, --no-default-io, --op FILE as for linearize\n"
    "\n"
    "Exit status 0 when all agree, 1 when one differs beyond its tolerance.\n";

static int parse_tol(const char *s, double *t)
{
    char *end;
    double v = strtod(s, &end);
    if (*end || !(v > 0)) return -1;
    *t = v;
    return 0;
}

int cmd_check(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "check"};
    cli_io_t io = {0};
    const char *model = NULL, *tg = NULL, *tp = NULL;
    double tol_graph = 1e-10, tol_perturb = 1e-6;
    int r;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        if ((r = cli_io_opt(&a, &io)) || (r = cli_opt(&a, "--tol-graph", &tg)) ||
            (r = cli_opt(&a, "--tol-perturb", &tp))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    if (tg && parse_tol(tg, &tol_graph)) return cli_usage(a.cmd, "--tol-graph must be a positive number");
    if (tp && parse_tol(tp, &tol_perturb)) return cli_usage(a.cmd, "--tol-perturb must be a positive number");
    jg_model_t *md;
    jg_program_t *p;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *ref = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    int rc = cli_load(model, &md, &p);
    if (rc) return rc;
    if ((rc = cli_lin(p, &io, &l))) goto done;
    if (jg_lin_run(l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &ref, NULL, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    printf("check %s: %lld states, %lld inputs, %lld outputs; reference: matrix algorithm\n",
           jg_program_name(p), (long long)ref->nx, (long long)ref->nu, (long long)ref->ny);
    /* the graph method with each reduction (none, markowitz, full), then
     * perturbation */
    int bad = 0;
    for (int k = 0; k <= JG_GRAPH_REDUCE_FULL + 1; k++) {
        int graph = k <= JG_GRAPH_REDUCE_FULL;
        jg_lin_method_t m = graph ? JG_LIN_GRAPH : JG_LIN_PERTURB;
        jg_graph_reduce_t red = graph ? (jg_graph_reduce_t)k : JG_GRAPH_REDUCE_NONE;
        char name[32] = "perturb";
        if (graph) snprintf(name, sizeof name, "graph/%s", jg_graph_reduce_name(red));
        jg_lin_sys_t *s = NULL;
        if (jg_lin_run(l, m, red, &s, NULL, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        const char *which = "A";
        double d = jg_lin_sys_diff(s, ref, &which);
        double tol = graph ? tol_graph : tol_perturb;
        int ok = d <= tol;
        bad |= !ok;
        printf("  %-16s max difference %.3e (in %s)  %s (tolerance %.0e)\n", name, d,
               which, ok ? "ok" : "FAIL", tol);
        jg_lin_sys_free(s);
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    rc = bad ? EXIT_MISMATCH : 0;
done:
    jg_lin_sys_free(ref);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(md);
    return rc;
}
